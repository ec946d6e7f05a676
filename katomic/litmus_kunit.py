# SPDX-License-Identifier: GPL-2.0
"""The booted suite's litmus tests, generated from .litmus files, so that
the suite runs what herd7 checked and cannot drift from it.

usage: litmus_kunit.py TREE LITMUSDIR > lib/atomic_litmus_tests.h

Takes the two-thread tests of TREE/tools/memory-model/litmus-tests and
TREE/Documentation/litmus-tests/atomic that use only marked accesses,
barriers and atomics (the others are named in the header's opening
comment, with the reason), and the tests of LITMUSDIR (katomic/litmus.py's)
whose "Result:" is Never: only those can fail a run. Each thread becomes a
function of its test's locations (union litmus_loc l[]) and registers
(int r[]) whose body is the test's, registers as r[N]; the exists clause
and the initial values become terms that lib/atomic_litmus_kunit.c evaluates
after each run. make lkmm checks every "Result:" against herd7 under the
LKMM, and that the tree's header is this script's output.
"""

import re
import sys
from pathlib import Path

from . import lkmm

LOCS = 4                # union litmus_loc l[LOCS]
REGS = 8                # int r[REGS] per thread
# The member of union litmus_loc for a location's type, and its size.
MEMBERS = {"int": ("i", 4), "atomic_t": ("at", 4), "int64_t": ("at64", 8),
           "atomic64_t": ("at64", 8), "uint8_t": ("b1", 1), "uint16_t": ("b2", 2),
           "uint32_t": ("b4", 4), "uint64_t": ("b8", 8)}
KTYPES = {"int64_t": "atomic64_t", "uint8_t": "u8", "uint16_t": "u16", "uint32_t": "u32",
          "uint64_t": "u64"}
CALLS = re.compile(r"READ_ONCE|WRITE_ONCE|smp_load_acquire|smp_store_release|smp_r?w?mb|"
                   r"smp_mb__(before|after)_atomic|(atomic(64)?_\w+)|"
                   r"(try_)?cmpxchg(_\w+)?|xchg(_\w+)?")
SIZED = re.compile(r"(?<!\w)(try_cmpxchg|cmpxchg|xchg)\w*\((\w+),")


class Unfit(Exception):
    """A test the suite cannot run; the message says why."""


def parse(text):
    """Name, verdict, initial values, threads (params, body lines), exists."""
    name = re.match(r"C (\S+)", text).group(1)
    head, rest = re.sub(r"\(\*\s.*?\*\)|//[^\n]*", "", text, flags=re.S).split("{", 1)[1].split("}", 1)
    init = {}
    for m in re.finditer(r"(?:atomic_t\s+)?(\w+)\s*=\s*(?:ATOMIC_INIT\()?(-?\d+)\)?;", head):
        init[m.group(1)] = int(m.group(2))
    if re.sub(r"(?:atomic_t\s+)?\w+\s*=\s*(?:ATOMIC_INIT\()?-?\d+\)?;", "", head).strip():
        raise Unfit("initial values the suite cannot set")
    threads = [([p.strip().rsplit(" ", 1) for p in params.split(",")], body.splitlines())
               for params, body in re.findall(r"^P\d+\(([^)]*)\)\s*\{\n(.*?)^\}", rest, re.M | re.S)]
    m = re.search(r"^exists\s*\((.*?)\)\s*$", rest, re.M | re.S)
    if not m:
        raise Unfit("no exists clause")
    return name, lkmm.expected(text), init, threads, m.group(1)


def thread(params, lines, locs, reg_base):
    """A thread's C: pointers to its locations, its body with r[N]."""
    decls, body, has = {}, [], []
    for ctype, var in params:
        var = var.lstrip("*")
        if not re.search(rf"\b{var}\b", "\n".join(lines)):
            continue
        if ctype not in MEMBERS:
            raise Unfit(f"a location of type {ctype}")
        decls.setdefault(KTYPES.get(ctype, ctype), []).append(
            f"*{var} = &l[{locs[var]}].{MEMBERS[ctype][0]}")
    types = {v.lstrip("*"): t for t, v in params}
    for line in lines:
        s = line.strip()
        if not s or re.fullmatch(r"int r\d+;", s):
            continue
        if re.match(r"int |\w+ \*", s):
            raise Unfit(f"a local other than a register: {s}")
        for call in re.findall(r"(\w+)\(", s):
            if call != "if" and not CALLS.fullmatch(call):
                raise Unfit(f"{call}(), which the suite does not run")
        if re.match(r"\*", s) or re.search(r"[^=!<>]=[^=]", re.sub(r"^r\d+ = ", "", s)):
            raise Unfit(f"a plain access or assignment: {s}")
        for op, var in SIZED.findall(s):
            size = MEMBERS.get(types.get(var), (None, 4))[1]
            if size != 4:
                has.append(f"HAS_{'XCHG' if op == 'xchg' else 'CMPXCHG'}_SIZE({size})")
        s = line.replace("    ", "\t")
        m = re.search(r"\b(\w*try_cmpxchg\w*)\((\w+), (-?\w+), (-?\w+)\)", s)
        if m:
            f, var, old, new = m.groups()
            t = {"atomic_t": "int", "int64_t": "s64"}.get(types[var], f"typeof(*{var})")
            s = s.replace(m.group(0), f"({{ {t} old = {old}; {f}({var}, &old, {new}); }})")
        s = re.sub(r"\br(\d+)\b", lambda r: f"r[{int(r.group(1)) - reg_base}]", s)
        # checkpatch asks what a barrier orders: what the test asks about.
        body.append(re.sub(r"((smp_[rw]?mb(__\w+)?\(|smp_load_acquire|smp_store_release).*;)$", r"\1\t/* the test's ordering */", s))
    out = [f"\t{t} {', '.join(d)};" for t, d in decls.items()] + [""]
    if has:
        cond = " && ".join(sorted(set(has)))
        out += [f"\tif (!{cond if len(set(has)) == 1 else f'({cond})'})", "\t\treturn;", ""]
    return out + body, sorted(set(has))


def terms(cond, locs, types, regbase):
    """The exists clause as LITMUS_REG(thread, n, value), LITMUS_LOC(l, size, value)."""
    if re.search(r"\\/|~|\bnot\b", cond):
        raise Unfit("an exists clause other than a conjunction")
    out = []
    for term in cond.split("/\\"):
        m = re.fullmatch(r"\s*(?:(\d+):r(\d+)|(\w+))=(-?\d+)\s*", term)
        if not m:
            raise Unfit(f"an exists term {term.strip()}")
        if m.group(1):
            t, n = int(m.group(1)), int(m.group(2)) - regbase[int(m.group(1))]
            out.append(f"LITMUS_REG({t}, {n}, {m.group(4)})")
        else:
            out.append(loc_term(m.group(3), int(m.group(4)), locs, types))
    return out


def loc_term(var, value, locs, types):
    size = MEMBERS[types[var]][1]
    return f"LITMUS_LOC({locs[var]}, {size}, {value})"


def test(text):
    """A test's thread functions and its row of litmus_tests[]."""
    name, result, init, threads, cond = parse(text)
    if len(threads) != 2:
        raise Unfit(f"{len(threads)} threads")
    if result not in ("Never", "Sometimes"):
        raise Unfit("no Result: line")
    locs, types = {}, {}
    for params, _ in threads:
        for ctype, var in params:
            types[var.lstrip("*")] = ctype
            locs.setdefault(var.lstrip("*"), len(locs))
    if len(locs) > LOCS:
        raise Unfit(f"{len(locs)} locations")
    # A thread's registers from 0: some tests number them across threads.
    regbase = []
    for _, lines in threads:
        regs = [int(r) for r in re.findall(r"\br(\d+)\b", "\n".join(lines))]
        regbase.append(min(regs, default=0))
        if regs and max(regs) - regbase[-1] >= REGS:
            raise Unfit("too many registers")
    bodies, has = [], []
    for (params, lines), base in zip(threads, regbase):
        b, h = thread(params, lines, locs, base)
        bodies.append(b)
        has += h
    return {"name": name, "never": result == "Never", "bodies": bodies,
            "has": sorted(set(has)),
            "init": [loc_term(v, x, locs, types) for v, x in init.items() if x],
            "exists": terms(cond, locs, types, regbase)}


def ident(name):
    s = re.sub(r"[^0-9a-z]+", "_", name.lower()).strip("_")
    return "litmus_" + s


def header(tree, litmusdir):
    kernel = sorted(tree.glob("tools/memory-model/litmus-tests/*.litmus"))
    kernel += sorted(tree.glob("Documentation/litmus-tests/atomic/*.litmus"))
    ours = [p for p in sorted(Path(litmusdir).glob("*.litmus"))
            if lkmm.expected(p.read_text()) == "Never"]
    if not ours:
        sys.exit(f"litmus_kunit: no test in {litmusdir} whose Result: is Never")
    tests, unfit = [], []
    for p in kernel + ours:
        try:
            tests.append(test(p.read_text()))
        except Unfit as e:
            if p in ours:
                sys.exit(f"litmus_kunit: {p.name}: {e}")
            unfit.append(f" *   {p.name}: {e}")
    out = ["/* SPDX-License-Identifier: GPL-2.0 */",
           "/*",
           " * Generated by katomic's katomic/litmus_kunit.py: do not edit.",
           " *",
           " * The litmus tests of tools/memory-model and Documentation/litmus-tests/atomic",
           " * with two threads, marked accesses and atomics only, and katomic's tests",
           f" * that the LKMM forbids: {len(tests)} tests, each thread's body as in its",
           " * .litmus file, and the verdict of its Result: line, which herd7 gives",
           " * under the LKMM. Not here:",
           *unfit,
           " */", ""]
    fns, rows = {}, []
    for t in tests:
        names = []
        for i, body in enumerate(t["bodies"]):
            text = "\n".join(body)
            if text not in fns:
                fns[text] = f"{ident(t['name'])}_p{i}"
                sig = f"static void {fns[text]}(union litmus_loc *l, int *r)"
                if len(sig) > 100:
                    col = sig.index("(union") + 1
                    sig = sig.replace(" int", "\n" + "\t" * (col // 8) + " " * (col % 8) + "int")
                out += [sig, "{", *body, "}", ""]
            names.append(fns[text])
        init = f"{{ {', '.join(t['init'])} }}".replace("{  }", "{ }")
        rows += [f'\t{{ "{t["name"]}", {str(t["never"]).lower()}, '
                 f"{' && '.join(t['has']) or 'true'},",
                 f"\t  {names[0]},", f"\t  {names[1]},",
                 f"\t  {init}, {{ {', '.join(t['exists'])} }} }},"]
    out += ["static const struct litmus_test litmus_tests[] = {", *rows, "};"]
    return "\n".join(out) + "\n"


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    sys.stdout.write(header(Path(sys.argv[1]), sys.argv[2]))


if __name__ == "__main__":
    main()
