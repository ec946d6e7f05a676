# SPDX-License-Identifier: GPL-2.0
"""report.py and report_md.py: results/report.md is what they make of the
committed report.json."""

import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

from . import report, report_md
from .testing import REPO


class Report(unittest.TestCase):
    def test_executed_wins(self):
        rows = [{"function": f, "impl": i, "executed": n} for f, i, n in (
            ("a", "asm", 4), ("a", "builtins", 7), ("b", "asm", 5), ("b", "builtins", 5),
            ("c", "asm", 9), ("c", "builtins", 3), ("d", "asm", 2), ("e", "asm", None),
            ("e", "builtins", 1))]
        self.assertEqual(report_md.executed_wins({"ordering": rows}),
                         {"asm": 1, "builtins": 1, "same": 1})
        self.assertIsNone(report_md.executed_wins({"ordering": rows[6:7]}))
        r = {"arch": "arm64"}
        self.assertEqual(report_md.audit_key("arm64", r), "arm64")
        self.assertEqual(report_md.audit_key("arm64-clang", r), "arm64 asm-clang")
        self.assertEqual(report_md.audit_key("arm64", r, "llsc"), "arm64 llsc")

    def test_behind_why(self):
        """Where s390's asm is longer, the report says why, for either
        compiler; elsewhere it has nothing to say."""
        for arch, fn in (("s390x", "try_cmpxchg_u32"), ("s390x-clang", "atomic_sub_and_test"),
                         ("s390x", "atomic64_fetch_add")):
            self.assertTrue(report_md.behind_why(arch, fn), (arch, fn))
        self.assertIsNone(report_md.behind_why("s390x", "try_cmpxchg_u8"))
        self.assertIsNone(report_md.behind_why("x86_64", "try_cmpxchg_u32"))

    def test_size_disagrees(self):
        r = {"arch": "x86_64", "size": {"asm": {"text": 100}, "builtins": {"text": 90}}}
        lines = ["add/remove: 1/0 grow/shrink: 1/0 up/down: 12/0 (12)"]
        self.assertIn(".smp_locks", report_md.size_disagrees(r, "asm_to_builtins", lines))
        r["size"]["builtins"]["text"] = 112
        self.assertIsNone(report_md.size_disagrees(r, "asm_to_builtins", lines))

    def test_markdown_of_record(self):
        """The committed results/report.md is what report.py makes of the
        committed report.json and audits (report.py --markdown)."""
        with tempfile.TemporaryDirectory() as d:
            for f in REPO.glob("results/report*.json"):
                shutil.copy(f, d)
            r = subprocess.run([sys.executable, "-m", "katomic.report", "--markdown", d],
                               capture_output=True, text=True, timeout=60, cwd=REPO)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(Path(d, "report.md").read_text(),
                             (REPO / "results/report.md").read_text())

    def test_bloat_pairs(self):
        with tempfile.TemporaryDirectory() as d:
            built = {v: f"{d}/{v}" for v in ("stock", "asm", "builtins", "llsc")}
            for v in ("asm", "builtins", "llsc"):
                Path(built[v]).touch()
            # No stock kernel (prepared only): no stock_to_asm.
            self.assertEqual(report.bloat_pairs(built),
                             [("asm", "builtins"), ("llsc", "builtins")])
            # GCC on riscv64: no builtins variant at all.
            self.assertEqual(report.bloat_pairs({"stock": built["stock"],
                                                 "asm": built["asm"]}), [])


if __name__ == "__main__":
    unittest.main()
