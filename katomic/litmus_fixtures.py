# SPDX-License-Identifier: GPL-2.0
"""The audit's self-test fixtures (katomic/audit/testdata/fixtures.S) under herd7:
each fixture whose ordering the audit's self-test judges (SELFTEST in
katomic/audit: a barrier missing or on the wrong side, or the code
right) run as the op of small litmus tests under the architecture's
model. herd7 must judge each as the audit's self-test expects: fail where
it expects a complaint about a barrier, pass where it expects none.

usage: litmus_fixtures.py HERD7 OUT.json ARCH...

A fixture F is one thread of the shapes that show its ordering, with
the other thread and the accesses around F written here:
  SB         x=1; F(a); r0=y        || y=1; smp_mb(); r1=x
  R          x=1; F(a); y=1         || y=2; smp_mb(); r1=x
  LB         r0=x; F(a); y=1        || r1=y; smp_mb(); x=1
  MP-writer  x=1; F(a)              || r0=a; smp_rmb(); r1=x
  R-op       x=1; F(a)              || a=5; smp_mb(); r1=x
  LB-writer  r0=x; F(a)             || r1=a; smp_mb(); x=1
  MP-after   F(a); y=1              || r0=y; smp_rmb(); r1=a
  SB-op      F(a); r0=y             || y=1; smp_mb(); r1=a
  MP-reader  x=1; smp_wmb(); a=1    || r0=F(a); r1=x
  S          x=2; smp_mb(); a=1     || r0=F(a); x=1
full: all; before: the first six; after: SB, R, LB and the last four;
release: MP-writer, LB-writer; acquire: MP-reader, S; a void op (no
value returned) without MP-reader and S. "?" (a conditional op): the
same, where the op succeeds. herd7 fails the fixture if any shape allows
its outcome; each shape's witness (the op's store seen, or its value
read) must show. A fixture herd7 cannot express (an instruction its
architecture lacks) is named, with the reason, and judged by the audit
alone. Exits 1 on any disagreement.
"""

import json
import re
import sys
import tempfile
from pathlib import Path

from . import litmus_arch as la
from .arches import arches
from .audit.disasm import run
from .audit.herd import Unknown
from .audit.selftest import SELFTEST, SELFTEST_ARCH, TESTDATA

ORDERINGS = ("full", "before", "after", "acquire", "release")
# The complaints that are a barrier missing or on the wrong side (x86: a
# missing LOCK); the others (a path without the op, a spill in an LL/SC
# loop, a libcall) are no question for a memory model.
BARRIER = re.compile(r"^(?!a path).*(barrier|performs no atomic)")
BEFORE = ("SB", "R", "LB", "R-op", "MP-writer", "LB-writer")
AFTER = ("MP-after", "SB-op", "MP-reader", "S")
SHAPES = {"full": BEFORE + AFTER, "before": BEFORE, "after": BEFORE[:3] + AFTER,
          "release": BEFORE[4:], "acquire": AFTER[2:]}
READS = ("MP-reader", "S")       # the shapes that need the value the op read

# Per architecture: the scratch registers of the code around the fixture
# (locations x, y, a, res0, res1; two values), the return register, how
# to store an immediate, load, store a register, and the fences.
ARCH = {
    "arm64": {"loc": ["X20", "X21", "X22", "X23", "X24"], "val": ["W25", "W26"], "ret": "W0",
              "imm": ["MOV W27,#{v}", "STR W27,[{l}]"], "ld": "LDR {r},[{l}]",
              "st": "STR {r},[{l}]", "mb": "DMB ISH", "rmb": "DMB ISHLD", "wmb": "DMB ISHST"},
    "riscv64": {"loc": ["s2", "s3", "s4", "s5", "s6"], "val": ["s7", "s8"], "ret": "a0",
                "imm": ["li s9,{v}", "sw s9,0({l})"], "ld": "lw {r},0({l})",
                "st": "sw {r},0({l})", "mb": "fence rw,rw", "rmb": "fence r,r",
                "wmb": "fence w,w"},
    "ppc64le": {"loc": ["r20", "r21", "r22", "r23", "r24"], "val": ["r25", "r26"],
                "ret": "r3", "imm": ["li r27,{v}", "stw r27,0({l})"], "ld": "lwz {r},0({l})",
                "st": "stw {r},0({l})", "mb": "sync", "rmb": "lwsync", "wmb": "lwsync"},
    "x86_64": {"loc": ["r8", "r9", "r10", "r11", "r12"], "val": ["%ebx", "%ebp"],
               "ret": "%eax", "imm": ["movl ${v},(%{l})"], "ld": "movl (%{l}),{r}",
               "st": "movl {r},(%{l})", "mb": "mfence", "rmb": None, "wmb": None},
}
# The registers of each kind of fixture: P the location, V the operand,
# O the expected old value, OP the address of it, M a mask of all ones;
# S a register that selects the op's path (x86: test %esi).
ROLES = {
    "arm64": {"op": {"P": "x1", "V": "x0"}, "void": {"P": "x1", "V": "x0"}, "read": {"P": "x0"},
              "set": {"P": "x1", "V": "x0"}, "cmpxchg": {"P": "x0", "O": "x1", "V": "x2"}},
    "riscv64": {"op": {"P": "a1", "V": "a0"}, "void": {"P": "a1", "V": "a0"}, "read": {"P": "a0"},
                "set": {"P": "a0", "V": "a1"}, "cmpxchg": {"P": "a0", "O": "a1", "V": "a2"},
                "try": {"P": "a0", "OP": "a1", "V": "a2"},
                "masked": {"P": "a6", "O": "a1", "V": "a2", "M": "a4"}},
    "ppc64le": {"op": {"P": "r4", "V": "r3"}, "read": {"P": "r3"},
                "set": {"P": "r3", "V": "r4"}, "cmpxchg": {"P": "r3", "O": "r4", "V": "r5"},
                "try": {"P": "r3", "OP": "r4", "V": "r5"}, "dec": {"P": "r3"}},
    "x86_64": {"op": {"P": "rdi", "V": "rax", "S": "rsi"},
               "cmpxchg": {"P": "rdi", "O": "rax", "V": "rdx"}},
}
# Fixtures whose kind their name does not tell.
KIND = {("riscv64", "cmp_again_ok"): "try", ("riscv64", "cmp_other_skips"): "try",
        ("riscv64", "cmp_masked_ok"): "masked", ("ppc64le", "dec_if_positive_ok"): "dec",
        ("ppc64le", "dec_if_positive_no_exit"): "dec",
        ("ppc64le", "cas_loop_ok"): "set",          # xchg(v, new)
        ("x86_64", "plain_cmpxchg_local"): "cmpxchg"}


def kind(arch, fn):
    if (arch, fn) in KIND:
        return KIND[arch, fn]
    if fn.startswith("before_"):   # smp_mb__before_atomic(); atomic_add()
        return "void"
    if fn.startswith("try_cmpxchg"):
        return "try"
    for k, rx in (("read", r"_read_"), ("set", r"_set_"),
                  ("cmpxchg", r"cmpxchg|cmp_|const_flag|llsc_exit_load")):
        if re.search(rx, fn) and k in ROLES[arch]:
            return k
    return "op"


def threads(arch, k, code, shape, old):
    """The two threads of SHAPE around CODE (a fixture of kind K that
    finds OLD in a), its condition, and its witness's."""
    A = ARCH[arch]
    x, y, a, res0, res1 = A["loc"]
    v0, v1 = A["val"]

    def imm(loc, v):
        return [s.format(v=v, l=loc) for s in A["imm"]]

    def ld(loc, r):
        return A["ld"].format(l=loc, r=r)

    def st(r, loc):
        return A["st"].format(l=loc, r=r)

    def fence(f):
        return [A[f]] if A[f] else []

    stored = f"~a={old}"
    if shape == "SB":
        return ([imm(x, 1) + code + [ld(y, v0), st(v0, res0)],
                 imm(y, 1) + fence("mb") + [ld(x, v1), st(v1, res1)]],
                "res0=0 /\\ res1=0", stored)
    if shape == "R":
        return ([imm(x, 1) + code + imm(y, 1), imm(y, 2) + fence("mb") + [ld(x, v1), st(v1, res1)]],
                "y=2 /\\ res1=0", stored)
    if shape == "LB":
        return ([[ld(x, v0)] + code + imm(y, 1) + [st(v0, res0)],
                 [ld(y, v1)] + fence("mb") + imm(x, 1) + [st(v1, res1)]],
                "res0=1 /\\ res1=1", stored)
    if shape == "R-op":
        # The op's store before P1's in a's coherence order: a cmpxchg
        # that read P1's fails, so the op's value tells that it stored.
        done = "" if k == "void" else f" /\\ res0={1 if k == 'try' else 0}"
        return ([imm(x, 1) + code + ([] if k == "void" else [st(A["ret"], res0)]),
                 imm(a, 5) + fence("mb") + [ld(x, v1), st(v1, res1)]],
                f"a=5 /\\ res1=0{done}", f"a=5{done}")
    if shape == "LB-writer":
        return ([[ld(x, v0)] + code + [st(v0, res0)],
                 [ld(a, v1)] + fence("mb") + imm(x, 1) + [st(v1, res1)]],
                f"res0=1 /\\ ~res1={old}", f"~res1={old}")
    if shape == "SB-op":
        return ([code + [ld(y, v0), st(v0, res0)],
                 imm(y, 1) + fence("mb") + [ld(a, v1), st(v1, res1)]],
                f"res0=0 /\\ res1={old}", stored)
    if shape == "MP-writer":
        return ([imm(x, 1) + code,
                 [ld(a, v0)] + fence("rmb") + [ld(x, v1), st(v0, res0), st(v1, res1)]],
                f"~res0={old} /\\ res1=0", f"~res0={old}")
    if shape == "MP-after":
        return ([code + imm(y, 1),
                 [ld(y, v0)] + fence("rmb") + [ld(a, v1), st(v0, res0), st(v1, res1)]],
                f"res0=1 /\\ res1={old}", f"res0=1 /\\ ~res1={old}")
    if shape == "MP-reader":
        return ([imm(x, 1) + fence("wmb") + imm(a, old),
                 code + [st(A["ret"], res0), ld(x, v1), st(v1, res1)]],
                "res0=1 /\\ res1=0", "res0=1")
    assert shape == "S"
    return ([imm(x, 2) + fence("mb") + imm(a, old), code + [st(A["ret"], res0)] + imm(x, 1)],
            "res0=1 /\\ x=2", "res0=1")


def shape_test(arch, name, k, code, shape):
    """The litmus test of a fixture of kind K (its translated CODE) in
    SHAPE, and the same test asking for its witness."""
    herd = la.ARCHES[arch]
    # a's value when the op runs: in READS the one the other thread
    # stores, which the op must read (and then returns 1: the value read,
    # the new value of dec_if_positive(), or try_cmpxchg()'s success);
    # elsewhere its initial value. The op stores 2 (dec_if_positive(): 0).
    old = (2 if k == "dec" else 1) if shape in READS else 1 if k == "dec" else 0
    p, cond, wit = threads(arch, k, code, shape, old)
    roles = ROLES[arch][k]
    fix = [f"{herd['reg'](roles['P'])}=a"]
    fix += [f"{herd['reg'](roles[r])}={v}" for r, v in (("V", 2), ("O", old), ("M", -1), ("S", 1))
            if r in roles]
    fix += [f"{herd['reg'](roles['OP'])}=o"] if "OP" in roles else []
    init = [f"a={0 if shape in READS else old};"] + (["o=%d;" % old] if "OP" in roles else [])
    for t in range(2):
        init += [f"{t}:{herd['reg'](r)}={n};"
                 for r, n in zip(ARCH[arch]["loc"], ("x", "y", "a", "res0", "res1"))]
        init += [f"{t}:{s};" for s in fix] if t == (shape in READS) else []
    width = [max(len(s) for s in c) for c in p]
    lines = [f"{herd['herd']} {name}", "{", " ".join(init), "}",
             " | ".join(f"P{t}".ljust(width[t]) for t in range(2)) + " ;"]
    lines += [" | ".join((p[t][r] if r < len(p[t]) else "").ljust(width[t]) for t in range(2))
              + " ;" for r in range(max(map(len, p)))]
    text = "\n".join(lines) + "\n"
    return text + f"exists ({cond})\n", \
        re.sub(r"^(\S+ \S+)", r"\1.witness", text, count=1) + f"exists ({wit})\n"


def cases(arch):
    """The self-test's ordering cases of ARCH that are a question for a
    memory model: (fixture, check, the audit's complaint or None)."""
    return [(fn, check, want) for fn, check, want, *kconfig in
            SELFTEST + SELFTEST_ARCH[arch]
            if check.rstrip("?") in ORDERINGS and not kconfig
            and (not want or BARRIER.search(want))]


def run_arch(arch, herd7, tmp):
    """Each case of ARCH judged by herd7: [row]."""
    obj = tmp / f"{arch}.o"
    prefix = arches()[arch]["prefix"]
    run(prefix + "gcc", "-c", "-o", str(obj), str(TESTDATA / "fixtures.S"))
    codes, rows, paths = la.variants(arch, prefix, obj), [], []
    for fn, check, want in cases(arch):
        k = kind(arch, fn)
        row = {"arch": arch, "fixture": fn, "check": check, "kind": k,
               "audit": "fail" if want else "pass", "tests": [], "error": None}
        rows.append(row)
        for label, funcs in codes:
            try:
                code = la.ARCHES[arch]["thread"](funcs[fn])
            except Unknown as e:
                row["error"] = f"untranslated: {e}"
                break
            for shape in SHAPES[check.rstrip("?")]:
                if k == "void" and shape in READS:
                    continue
                name = f"{arch}.{fn}.{check.rstrip('?')}.{shape}{label}"
                texts = shape_test(arch, name, k, code, shape)
                for n, text in zip((name, name + ".witness"), texts):
                    paths.append(tmp / f"{n}.litmus")
                    paths[-1].write_text(text)
                row["tests"].append(name)
    libdir = Path(herd7).resolve().parent.parent / "share/herdtools7/herd"
    got = la.run_herd(herd7, libdir, la.ARCHES[arch]["model"], paths)
    for row in rows:
        row["allowed"] = []
        for name in row.pop("tests"):
            ((allowed, _), err), ((seen, _), werr) = got[name], got[name + ".witness"]
            row["error"] = row["error"] or err or werr or (
                None if seen else f"{name}: no execution shows the witness")
            if allowed:
                row["allowed"].append(name.split(".", 3)[3])
        row["herd7"] = "untranslated" if (row["error"] or "").startswith("untranslated") else \
            "error" if row["error"] else "fail" if row["allowed"] else "pass"
    return rows


def disagree(row):
    return row["herd7"] not in (row["audit"], "untranslated")


def markdown(rows):
    L = ["# The audit's self-test fixtures under herd7", "",
         "Each fixture of katomic/audit/testdata/fixtures.S whose ordering the audit's self-test judges "
         "(a barrier missing or on the wrong side, or the code right), run as the op of SB, "
         "MP-writer, MP-after and MP-reader under the architecture's model "
         "(katomic/litmus_fixtures.py; `make test-all`). herd7 must fail what the audit's "
         "self-test expects it to flag and pass what it expects it to pass.", "",
         "| architecture | cases | herd7 fails, as the audit | herd7 passes, as the audit | "
         "herd7 cannot express | disagree |", "|---|---:|---:|---:|---:|---:|"]
    for arch in dict.fromkeys(r["arch"] for r in rows):
        rs = [r for r in rows if r["arch"] == arch]
        L.append(f"| {arch} | {len(rs)} | "
                 f"{sum(r['audit'] == r['herd7'] == 'fail' for r in rs)} | "
                 f"{sum(r['audit'] == r['herd7'] == 'pass' for r in rs)} | "
                 f"{sum(r['herd7'] == 'untranslated' for r in rs)} | "
                 f"{sum(disagree(r) for r in rs)} |")
    L += ["", "| fixture | check | audit | herd7 | shapes allowed |", "|---|---|---|---|---|"]
    L += [f"| {r['arch']} {r['fixture']} | {r['check']} | {r['audit']} | "
          f"{'**' + r['herd7'] + '**' if disagree(r) else r['herd7']} | "
          f"{', '.join(r['allowed']) or r['error'] or '-'} |" for r in rows]
    return "\n".join(L) + "\n"


def main():
    if len(sys.argv) < 4 or any(a not in la.ARCHES for a in sys.argv[3:]):
        sys.exit(__doc__)
    herd7, out = sys.argv[1], Path(sys.argv[2])
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for arch in sys.argv[3:]:
            rows += run_arch(arch, herd7, Path(tmp))
    out.write_text(json.dumps(rows, indent=1) + "\n")
    out.with_suffix(".md").write_text(markdown(rows))
    bad = [r for r in rows if disagree(r)]
    # A run that judged nothing must not pass as one that agreed.
    none = [a for a in sys.argv[3:] if not any(r["arch"] == a and r["herd7"] in ("pass", "fail")
                                               for r in rows)]
    for a in none:
        print(f"litmus_fixtures: {a}: no fixture judged by herd7", file=sys.stderr)
    for r in bad:
        print(f"litmus_fixtures: {r['arch']} {r['fixture']} {r['check']}: the audit's self-test "
              f"expects {r['audit']}, herd7 {r['herd7']}: "
              f"{', '.join(r['allowed']) or r['error'] or 'every shape forbidden'}",
              file=sys.stderr)
    for arch in sys.argv[3:]:
        rs = [r for r in rows if r["arch"] == arch]
        print(f"litmus_fixtures: {arch}: {len(rs)} fixture checks under "
              f"{la.ARCHES[arch]['model']}, {sum(r['audit'] == r['herd7'] for r in rs)} "
              f"judged as the audit's self-test expects, "
              f"{sum(r['herd7'] == 'untranslated' for r in rs)} that herd7 cannot express, "
              f"{sum(disagree(r) for r in rs)} disagreements")
    return 1 if bad or none else 0


if __name__ == "__main__":
    sys.exit(main())
