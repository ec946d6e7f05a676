# SPDX-License-Identifier: GPL-2.0
"""katomic's litmus tests: every atomic primitive in every ordering, in the
shapes that show that ordering, for herd7 and the kernel's memory model.

usage: litmus.py TREE OUTDIR

Reads TREE/scripts/atomic/atomics.tbl (the atomic_t and atomic64_t ops) and
adds the xchg family (xchg, cmpxchg, try_cmpxchg on 1, 2, 4 and 8 bytes).
Writes OUTDIR/NAME.litmus for each test, with its "Result:" as
Documentation/atomic_t.txt orders the primitive, and OUTDIR/katomic.def:
TREE/tools/memory-model/linux-kernel.def and a macro for each primitive
that it lacks, for herd7 -macros.

herd7's C has RMW ops with + and - only, __xchg, __cmpxchg and
__atomic_add_unless; a bitwise or sign-conditional op is written as one of
those that gives the same value and return on every value its location can
hold in the test (an or as + on bits that are clear, a dec_if_positive as
an add_unless of -1 unless 0), and the generator checks each test's values
against both semantics.  try_cmpxchg() takes its old value by value: a
litmus test has no address-of.

The shapes, each with the primitive on location a (x, y plain):
  SB        WRITE_ONCE(x); op(a); READ_ONCE(y)  against smp_mb() on P1
  R         WRITE_ONCE(x); op(a); WRITE_ONCE(y) against smp_mb() on P1
  2+2W      WRITE_ONCE(x); op(a); WRITE_ONCE(y) against smp_mb() on P1
  MP-writer WRITE_ONCE(x); op(a)  against reads of a, smp_rmb(), x
  MP-reader op(a); READ_ONCE(x)   against x, smp_wmb(), a written
  SB-op     op(a); READ_ONCE(y)   against y written, smp_mb(), a read: the
            op's own write before a later read
A conditional op also fails in SB and MP-reader (-fail); a void op comes
alone and with smp_mb__before_atomic() or smp_mb__after_atomic().
"""

import itertools
import json
import re
import sys
from pathlib import Path

# Values a location may start with or be written, in the order tried.
VALUES = (0, 1, 2, 3, 4, 5, 6, 7, -1)
OPERANDS = (1, 2, 4, 3, 5, 6)
SIZES = {1: "uint8_t", 2: "uint16_t", 4: "uint32_t", 8: "uint64_t"}
ORDERS = {"": "mb", "_acquire": "acquire", "_release": "release", "_relaxed": "once"}


def u(cond, new):
    """An op's write: new when cond holds, else none (None)."""
    return new if cond else None


# Per op of atomics.tbl (and the xchg family): the kernel's semantics,
# (x, operands) -> (value written or None, value returned), as
# Documentation/atomic_t.txt and include/linux/atomic/atomic-instrumented.h
# define them; the herd7 form of its macro, with {o} for the ordering
# (mb, acquire, release, once); and what that form computes.  For void,
# _return and fetch_ forms, "op" names the arithmetic: (herd7 operator,
# herd7 operand, result of x op operand).
ARITH = {
    "add": ("+", "V", lambda x, i: x + i, lambda x, i: x + i),
    "sub": ("-", "V", lambda x, i: x - i, lambda x, i: x - i),
    "inc": ("+", "1", lambda x: x + 1, lambda x: x + 1),
    "dec": ("-", "1", lambda x: x - 1, lambda x: x - 1),
    # herd7 has no bitwise RMW: the same value on the test's values.
    "or": ("+", "V", lambda x, i: x | i, lambda x, i: x + i),
    "xor": ("+", "V", lambda x, i: x ^ i, lambda x, i: x + i),
    "andnot": ("-", "V", lambda x, i: x & ~i, lambda x, i: x - i),
    "and": ("-", "(7^V)", lambda x, i: x & i, lambda x, i: x - (7 ^ i)),
}

# Ops whose result is a value or a bool, not void/_return/fetch_ forms.
OTHER = {
    "xchg": ("__xchg{{{o}}}(X,V)",
             lambda x, n: (n, x), lambda x, n: (n, x)),
    "cmpxchg": ("__cmpxchg{{{o}}}(X,V,W)",
                lambda x, o, n: (u(x == o, n), x), lambda x, o, n: (u(x == o, n), x)),
    "try_cmpxchg": ("(__cmpxchg{{{o}}}(X,V,W) == V)",
                    lambda x, o, n: (u(x == o, n), int(x == o)),
                    lambda x, o, n: (u(x == o, n), int(x == o))),
    "sub_and_test": ("(__atomic_op_return{{{o}}}(X,-,V) == 0)",
                     lambda x, i: (x - i, int(x - i == 0)), lambda x, i: (x - i, int(x - i == 0))),
    "dec_and_test": ("(__atomic_op_return{{{o}}}(X,-,1) == 0)",
                     lambda x: (x - 1, int(x == 1)), lambda x: (x - 1, int(x - 1 == 0))),
    "inc_and_test": ("(__atomic_op_return{{{o}}}(X,+,1) == 0)",
                     lambda x: (x + 1, int(x == -1)), lambda x: (x + 1, int(x + 1 == 0))),
    "add_negative": ("(__atomic_op_return{{{o}}}(X,+,V) < 0)",
                     lambda x, i: (x + i, int(x + i < 0)), lambda x, i: (x + i, int(x + i < 0))),
    "fetch_add_unless": ("__atomic_add_unless(X,V,W)",
                         lambda x, a, v: (u(x != v, x + a), x),
                         lambda x, a, v: (u(x != v, x + a), x)),
    "add_unless": ("atomic_add_unless(X,V,W)",
                   lambda x, a, v: (u(x != v, x + a), int(x != v)),
                   lambda x, a, v: (u(x != v, x + a), int(x != v))),
    "inc_not_zero": ("atomic_add_unless(X,1,0)",
                     lambda x: (u(x != 0, x + 1), int(x != 0)),
                     lambda x: (u(x != 0, x + 1), int(x != 0))),
    # Exact where -1 is the only negative value the location holds.
    "inc_unless_negative": ("atomic_add_unless(X,1,-1)",
                            lambda x: (u(x >= 0, x + 1), int(x >= 0)),
                            lambda x: (u(x != -1, x + 1), int(x != -1))),
    # Exact where 1 is the only positive value.
    "dec_unless_positive": ("atomic_add_unless(X,-1,1)",
                            lambda x: (u(x <= 0, x - 1), int(x <= 0)),
                            lambda x: (u(x != 1, x - 1), int(x != 1))),
    # Exact where 0 is the only value not positive.
    "dec_if_positive": ("(__atomic_add_unless(X,-1,0) - 1)",
                        lambda x: (u(x > 0, x - 1), x - 1),
                        lambda x: (u(x != 0, x - 1), x - 1)),
}

# The primitives' arguments, as the kernel takes them; the location is X.
PARAMS = {"xchg": "X,V", "cmpxchg": "X,V,W", "try_cmpxchg": "X,V,W",
          "fetch_add_unless": "X,V,W", "add_unless": "X,V,W"}
CONDITIONAL = {"cmpxchg", "try_cmpxchg", "fetch_add_unless", "add_unless", "inc_not_zero",
               "inc_unless_negative", "dec_unless_positive", "dec_if_positive"}


class Prim:
    """One primitive: its kernel name, the C type of its location, the
    ordering it gives on success (mb, acquire, release, once; none for a
    void op), its herd7 macro, and the two semantics."""

    def __init__(self, op, name, ctype, order, kind, params, body, sem, herd, size=None):
        self.name, self.ctype, self.order, self.kind = name, ctype, order, kind
        self.params, self.body, self.sem, self.herd = params, body, sem, herd
        self.nargs = sem.__code__.co_argcount - 1
        self.conditional = op in CONDITIONAL
        self.size = size        # the xchg family's, on a plain location

    def call(self, loc, args):
        """The call as the test writes it: the kernel's argument order."""
        a = iter(str(v) for v in args)
        call = ", ".join(loc if q == "X" else next(a) for q in self.params.split(","))
        return f"{self.name}({call})"


def prims_of_tbl(tbl):
    """atomic_* and atomic64_* primitives of scripts/atomic/atomics.tbl."""
    out = []
    for line in Path(tbl).read_text().splitlines():
        f = line.split()
        if not f or f[0].startswith("#"):
            continue
        op, meta = f[0], f[1]
        has_i = "i" in f[2:] or any(a.startswith("i:") for a in f[2:])
        for pfx, ctype in (("atomic", "atomic_t"), ("atomic64", "int64_t")):
            for m in meta:
                out += forms(pfx, ctype, op, m, has_i)
    return out


def forms(pfx, ctype, op, m, has_i):
    orders = ORDERS if m.isupper() else {"": "mb"}
    xparams = "V,X" if has_i else "X"
    out = []
    if op == "read":
        for sfx, mac in (("", "READ_ONCE(*X)"), ("_acquire", "smp_load_acquire(X)")):
            out.append(Prim("read", f"{pfx}_read{sfx}", ctype, sfx[1:] or "once", "read", "X", mac,
                            lambda x: (None, x), lambda x: (None, x)))
        return out
    if op == "set":
        for sfx, mac in (("", "{ WRITE_ONCE(*X,V); }"),
                         ("_release", "{ smp_store_release(X,V); }")):
            out.append(Prim("set", f"{pfx}_set{sfx}", ctype, sfx[1:] or "once", "set", "X,V", mac,
                            lambda x, i: (i, None), lambda x, i: (i, None)))
        return out
    if op in ARITH:
        hop, hv, ksem, hsem = ARITH[op]
        if not has_i:
            k1, h1 = ksem, hsem
            ksem, hsem = (lambda x, i: k1(x)), (lambda x, i: h1(x))
        if m == "v":
            return [Prim(op, f"{pfx}_{op}", ctype, "none", "void", xparams,
                         f"{{ __atomic_op(X,{hop},{hv}); }}",
                         *arith(ksem, hsem, has_i, lambda x, n: None))]
        for sfx, o in orders.items():
            if m == "R":
                out.append(Prim(op, f"{pfx}_{op}_return{sfx}", ctype, o, "return", xparams,
                                f"__atomic_op_return{{{o}}}(X,{hop},{hv})",
                                *arith(ksem, hsem, has_i, lambda x, n: n)))
            else:
                out.append(Prim(op, f"{pfx}_fetch_{op}{sfx}", ctype, o, "fetch", xparams,
                                f"__atomic_fetch_op{{{o}}}(X,{hop},{hv})",
                                *arith(ksem, hsem, has_i, lambda x, n: x)))
        return out
    name = {"f": f"fetch_{op}"}.get(m, op)
    body, ksem, hsem = OTHER[name]
    for sfx, o in orders.items():
        out.append(Prim(name, f"{pfx}_{name}{sfx}", ctype, o, "value", PARAMS.get(name, xparams),
                        body.format(o=o), ksem, hsem))
    return out


def arith(ksem, hsem, has_i, ret):
    """(kernel, herd7) semantics of a void, _return or fetch_ form."""
    if has_i:
        return (lambda x, i: (ksem(x, i), ret(x, ksem(x, i))),
                lambda x, i: (hsem(x, i), ret(x, hsem(x, i))))
    return (lambda x: (ksem(x, 0), ret(x, ksem(x, 0))),
            lambda x: (hsem(x, 0), ret(x, hsem(x, 0))))


def prims_xchg():
    """xchg(), cmpxchg() and try_cmpxchg() on plain 1, 2, 4 and 8-byte values."""
    out = []
    for size, ctype in SIZES.items():
        for op in ("xchg", "cmpxchg", "try_cmpxchg"):
            body, ksem, hsem = OTHER[op]
            for sfx, o in ORDERS.items():
                out.append(Prim(op, f"{op}{sfx}", ctype, o, "value", PARAMS[op],
                                body.format(o=o), ksem, hsem, size))
    return out


def expect(shape, order, fence):
    """Never or Sometimes, as Documentation/atomic_t.txt orders the op: a
    fully ordered op is an smp_mb() on both sides; an acquire orders its
    read before what follows, a release what precedes before its write;
    smp_mb__before_atomic() orders what precedes against the op and all
    that follows, smp_mb__after_atomic() the other way round; a failed
    conditional op orders nothing."""
    full = order == "mb" or fence in ("before", "after")
    if shape == "MP-writer":
        full = order in ("mb", "release") or fence == "before"
    if shape == "MP-reader":
        full = order in ("mb", "acquire") or fence == "after"
    if shape == "SB-op":
        full = order == "mb" or fence == "after"
    return "Never" if full else "Sometimes"


def values(p, shape, fail):
    """The first initial value, value written by P0 (MP-reader) and
    operands that make the op succeed (or fail), observable, and the
    same under both semantics; with the exists clause. None if none."""
    # A plain location is unsigned: no -1 there.
    vals = [v for v in VALUES if v >= 0 or not p.size]
    for args in itertools.product(OPERANDS if p.kind != "value" else vals, repeat=p.nargs):
        for v0 in vals:
            for w in (vals if shape == "MP-reader" else (None,)):
                r = test_values(p, shape, fail, v0, w, args)
                if r:
                    return r
    return None


def test_values(p, shape, fail, v0, w, args):
    seen = [v0] if w is None else [v0, w]
    if w is not None and w == v0:
        return None
    for x in seen:
        if p.sem(x, *args) != p.herd(x, *args):
            return None
    at = seen[-1]
    new, ret = p.sem(at, *args)
    if p.kind not in ("read", "set") and (new is None) != fail:
        return None
    # An op that writes what was there could hide a write that is lost.
    if new is not None and new == at:
        return None
    # What the op itself shows, in some state herd7 reports: a witness
    # that the values of the exists clause can happen at all, so that a
    # wrong herd7 form cannot pass a Never test by never matching.
    seen_op = {"0:r1": ret} if ret is not None else {}
    if shape == "MP-writer":
        if new is None or new == v0:
            return None
        return v0, w, args, f"1:r0={new} /\\ 1:r1=0", {**seen_op, "1:r0": new}
    if shape == "SB-op":
        if new is None:
            return None
        return v0, w, args, f"0:r0=0 /\\ 1:r0={v0}", {**seen_op, "[a]": new}
    if shape == "MP-reader":
        other = p.sem(v0, *args)[1]
        if ret is not None and ret != other:
            return v0, w, args, f"0:r0={ret} /\\ 0:r1=0", {"0:r0": ret}
        if new is not None and new != w:
            return v0, w, args, f"a={new} /\\ 0:r1=0", {"[a]": new}
        return None
    return v0, w, args, None, {**seen_op, "[a]": v0 if new is None else new}


HEADER = "C {name}\n\n(*\n * Result: {result}\n * Witness: {witness}\n *\n * {what}\n *)\n\n"


def litmus(p, shape, fail, fence):
    """The test as herd7 reads it, with its metadata; None if no values fit."""
    vals = values(p, shape, fail)
    if vals is None:
        return None
    v0, w, args, cond, witness = vals
    order = "once" if fail else p.order
    result = expect(shape, order, fence)
    ctype = p.ctype
    size = f"-u{p.size * 8}" if p.size else ""
    name = f"{shape}+{p.name}{size}" + ("-fail" if fail else "") + (
        f"+mb__{fence}_atomic" if fence else "")
    plain = bool(p.size)
    pfx = p.name.split("_")[0]
    read_a = "READ_ONCE(*a)" if plain else f"{pfx}_read(a)"
    set_a = f"WRITE_ONCE(*a, {w})" if plain else f"{pfx}_set(a, {w})"
    call = p.call("a", args)
    op = []
    if fence == "before":
        op.append("smp_mb__before_atomic();")
    op.append(f"r1 = {call};" if p.kind not in ("void", "set") else f"{call};")
    if fence == "after":
        op.append("smp_mb__after_atomic();")
    regs = ["r0", "r1"]
    if shape in ("SB", "R", "2+2W"):
        last = {"SB": "r0 = READ_ONCE(*y);", "R": "WRITE_ONCE(*y, 1);",
                "2+2W": "WRITE_ONCE(*y, 2);"}[shape]
        p0 = ["WRITE_ONCE(*x, 1);"] + op + [last]
        p1 = {"SB": ["WRITE_ONCE(*y, 1);", "smp_mb();", "r0 = READ_ONCE(*x);"],
              "R": ["WRITE_ONCE(*y, 2);", "smp_mb();", "r0 = READ_ONCE(*x);"],
              "2+2W": ["WRITE_ONCE(*y, 1);", "smp_mb();", "WRITE_ONCE(*x, 2);"]}[shape]
        exists = {"SB": "0:r0=0 /\\ 1:r0=0", "R": "y=2 /\\ 1:r0=0",
                  "2+2W": "x=1 /\\ y=1"}[shape]
        threads = [("x, y, a", p0), ("x, y", p1)]
    elif shape == "SB-op":
        # The op's own write before a later read: P1 reads a's old value.
        p0 = op + ["r0 = READ_ONCE(*y);"]
        p1 = ["WRITE_ONCE(*y, 1);", "smp_mb();", f"r0 = {read_a};"]
        threads, exists = [("y, a", p0), ("y, a", p1)], cond
    elif shape == "MP-writer":
        p0 = ["WRITE_ONCE(*x, 1);"] + op
        p1 = [f"r0 = {read_a};", "smp_rmb();", "r1 = READ_ONCE(*x);"]
        threads, exists = [("x, a", p0), ("x, a", p1)], cond
    else:
        # P0 reads with the op; the register it tests is r0.
        op = [s.replace("r1 = ", "r0 = ") for s in op]
        p0 = op + ["r1 = READ_ONCE(*x);"]
        p1 = ["WRITE_ONCE(*x, 1);", "smp_wmb();", f"{set_a};"]
        threads, exists = [("x, a", p0), ("x, a", p1)], cond
    what = (f"{p.name}{' on ' + ctype if plain else ''}"
            f"{' failing' if fail else ''}{' with smp_mb__' + fence + '_atomic()' if fence else ''}"
            f" in {shape}: {'forbidden' if result == 'Never' else 'allowed'} "
            f"by its ordering ({'none, it fails' if fail else p.order}).")
    text = HEADER.format(name=name, result=result, what=what,
                         witness=" ".join(f"{k}={v};" for k, v in witness.items()))
    text += f"{{\n\ta={v0};\n}}\n"
    for i, (params, body) in enumerate(threads):
        decl = ", ".join((f"{ctype} *{v}" if v == "a" else f"int *{v}")
                         for v in params.split(", "))
        used = [r for r in regs if any(re.search(rf"\b{r}\b", s) for s in body)]
        text += f"\nP{i}({decl})\n{{\n"
        text += "".join(f"\tint {r};\n" for r in used)
        text += "\n" if used else ""
        text += "".join(f"\t{s}\n" for s in body) + "}\n"
    text += f"\nlocations [{' '.join(k.strip('[]') + ';' for k in witness)}]\n"
    text += f"exists ({exists})\n"
    return {"name": name, "prim": p.name, "ctype": ctype, "shape": shape, "fail": fail,
            "fence": fence, "order": order, "result": result, "init": v0, "written": w,
            "args": list(args), "witness": witness, "text": text}


def tests(prims):
    out, unfit = [], []
    for p in prims:
        if p.kind == "read":
            shapes = [("MP-reader", False, None)]
        elif p.kind == "set":
            shapes = [("MP-writer", False, None)]
        else:
            fences = (None, "before", "after") if p.kind == "void" else (None,)
            shapes = [(s, False, f) for s in ("SB", "SB-op", "MP-writer", "MP-reader", "R",
                                              "2+2W")
                      for f in fences]
            if p.conditional:
                shapes += [("SB", True, None), ("MP-reader", True, None)]
        for shape, fail, fence in shapes:
            t = litmus(p, shape, fail, fence)
            (out.append(t) if t else unfit.append(f"{shape} {p.name} fail={fail}"))
    return out, unfit


def macros(prims, kernel_def):
    """linux-kernel.def and a macro for each primitive it lacks."""
    have = set(re.findall(r"^(\w+)\(", kernel_def, re.M)) | {"atomic_add_unless"}
    lines = [kernel_def.rstrip("\n"), "",
             "// katomic: the primitives linux-kernel.def lacks (katomic/litmus.py);",
             "// bitwise and sign-conditional ops exact on the values of its tests only."]
    done = set()
    for p in prims:
        if p.name in have or p.name in done:
            continue
        done.add(p.name)
        body = p.body
        if p.kind in ("void", "set") and not body.startswith("{"):
            body = f"{{ {body}; }}"
        lines.append(f"{p.name}({p.params}) {body}")
    return "\n".join(lines) + "\n"


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    tree, outdir = Path(sys.argv[1]), Path(sys.argv[2])
    prims = prims_of_tbl(tree / "scripts/atomic/atomics.tbl") + prims_xchg()
    ts, unfit = tests(prims)
    if unfit:
        sys.exit("litmus: no values fit: " + "; ".join(unfit))
    outdir.mkdir(parents=True, exist_ok=True)
    for old in outdir.glob("*.litmus"):
        old.unlink()
    for t in ts:
        (outdir / f"{t['name']}.litmus").write_text(t.pop("text"))
    kdef = (tree / "tools/memory-model/linux-kernel.def").read_text()
    (outdir / "katomic.def").write_text(macros(prims, kdef))
    (outdir / "tests.json").write_text(json.dumps(ts, indent=1) + "\n")
    print(f"litmus: {len(ts)} tests of {len(prims)} primitives in {outdir}")


if __name__ == "__main__":
    main()
