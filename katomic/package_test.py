# SPDX-License-Identifier: GPL-2.0
"""The package's shape: its modules import each other without a circle,
and none is over 600 lines, no function over 80."""

import ast
import unittest
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent


def modules():
    """{module name: its syntax tree} of every module of the package."""
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = (path, ast.parse(path.read_text()))
    return out


def imports(name, tree, known):
    """The package's modules that module name imports at its top level (an
    import inside a function runs later, and cannot close a circle)."""
    package = name if name in known and any(k.startswith(name + ".") for k in known) \
        else name.rpartition(".")[0]
    out = set()
    for node in tree.body:
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join(up + ([base] if base else []))
            for a in node.names:
                full = f"{base}.{a.name}"
                out.add(full if full in known else base)
        elif isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
    return {m for m in out if m in known and m != name}


class Shape(unittest.TestCase):
    def test_no_import_circle(self):
        mods = modules()
        graph = {n: imports(n, t, mods) for n, (_, t) in mods.items()}
        state = {}

        def visit(n, path):
            if state.get(n) == "done":
                return
            self.assertNotEqual(state.get(n), "open", " -> ".join(path + [n]))
            state[n] = "open"
            for m in sorted(graph[n]):
                visit(m, path + [n])
            state[n] = "done"
        for n in graph:
            visit(n, [])
        # The graph is read: the audit imports its architectures.
        self.assertIn("katomic.audit.arch", graph["katomic.audit.access"])

    def test_sizes(self):
        for name, (path, tree) in modules().items():
            self.assertLessEqual(len(path.read_text().splitlines()), 600, name)
            for node in ast.walk(tree):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    self.assertLessEqual(node.end_lineno - node.lineno + 1, 80,
                                         f"{name}.{node.name}")


if __name__ == "__main__":
    unittest.main()
