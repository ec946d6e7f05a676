# SPDX-License-Identifier: GPL-2.0
"""What the compares on a path say about the values (riscv, powerpc)."""

import re

from .disasm import reg
from .flow import EXIT

# riscv branches compare registers. What the compares on a path said about
# the values, so that clang's compare repeated after an LL/SC loop ("bne
# a3,a4,1f; sc.w.rl a5,a2,(a0); bnez a5,0b; 1: ...; bne a3,a4,2f; fence
# rw,rw; 2:") is not read as a way around the fence. A value is ("in", r),
# register r's at the entry; ("c", n), a constant; ("d", k), what
# instruction k loaded or otherwise made, unknown but the same until k runs
# again, when the one it replaces becomes ("p", k) (a retry loop compares
# the new load with the old); or (op, value...), an ALU op of values (a
# copy, riscv's MV and powerpc's MR, is the value); None: not known.
# powerpc's compares set a CR field to ("cmp", value, value), which BEQ and
# BNE read, and BEQLR and BNELR (a word compare's values tagged "w": it
# compares the low halves). Such a branch on a field, whatever set it (a
# compare, a dot form, stcx.), says on each edge the field's EQ bit:
# "crN.eq", ("c", 1) or ("c", 0), until the field is written again. MFOCRF
# and MFCR copy fields into a register, ("crbits", ("d", k), ((field, EQ
# bit)...)) for those whose EQ bit is known, and RLWINM rX,rY,4n+3,31,31
# extracts field n's (GCC's try_cmpxchg(): "mfocrf r3,128; rlwinm
# r3,r3,3,31,31", CR0's EQ, stcx.'s success, then "cmpwi r3,0; beq"
# around the sync).
RV_ALU = re.compile(r"(?:add|sub|and|or|xor|sll|srl|sra)i?w?|mv|mr|li|not|neg|sext\.w|seqz|snez")
RV_COMMUTES = ("add", "addw", "and", "or", "xor")
RV_EQ_TAKEN = {"beq": True, "beqz": True, "bne": False, "bnez": False}


def rv_value(vals, arg):
    r = reg(arg)
    if r:
        return ("c", 0) if r == "zr" else vals.get(r, ("in", r))
    return ("c", int(arg, 0)) if re.fullmatch(r"-?(?:0x[0-9a-f]+|\d+)", arg) else None


def rv_mentions(v, x):
    return v == x or isinstance(v, tuple) and any(isinstance(y, tuple) and rv_mentions(y, x)
                                                  for y in v)


def rv_rename(v, x, y):
    """v with x, wherever it appears in it, y."""
    if v == x:
        return y
    return tuple(rv_rename(w, x, y) if isinstance(w, tuple) else w for w in v) \
        if isinstance(v, tuple) else v


def rv_fact(facts, a, b, eq):
    """facts and a == b (eq) or a != b; None if they contradict it."""
    # powerpc's compares of constants (tagged ("w", ("c", n)); ("d", k) is
    # no tag)
    if a[0] == b[0] in ("w", "d") and isinstance(a[1], tuple) and \
            isinstance(b[1], tuple) and a[1][0] == b[1][0] == "c":
        low = (1 << (32 if a[0] == "w" else 64)) - 1
        return facts if ((a[1][1] - b[1][1]) & low == 0) == eq else None
    while True:         # compares with zero: of a difference, of seqz, snez
        a, b = (b, a) if a == ("c", 0) else (a, b)
        if b != ("c", 0) or a[0] not in ("xor", "sub", "subw", "seqz", "snez"):
            break
        if a[0] in ("seqz", "snez"):
            a, eq = a[1], eq != (a[0] == "seqz")
        elif a[0] != "subw" or not eq:      # subw: 32 bits equal
            a, b = a[1], a[2]
        else:
            break
    if a == b or a[0] == b[0] == "c":
        return facts if (a == b) == eq else None
    key = tuple(sorted((a, b), key=repr))
    return None if (key, not eq) in facts else facts | {(key, eq)}


def rv_step(f, k, s_, values):
    """values ((register, value) pairs, facts: ((value, value), equal)) on
    the edge from k to s_; None when the facts rule the edge out."""
    i, (vals, facts) = f.insns[k], values
    vals = dict(vals)
    if f.arch == "ppc64le":
        cr = i.args[0] if i.args and i.args[0].startswith("cr") else "cr0"
        m = re.fullmatch(r"cmpl?([wd])i?", i.mnem)
        c = vals.get(cr)
        # BEQ and BNE to a target, or BEQLR and BNELR: to the exit.
        to = f.at.get(i.target) if i.target is not None else \
            EXIT if f.is_("cond_ret", k) else None
        branch = f.is_("branch", k)
        if m:
            a, b = (rv_value(vals, x) for x in i.args[-2:])
            vals[cr] = None if None in (a, b) else ("cmp", (m.group(1), a), (m.group(1), b))
            vals.pop(cr + ".eq", None)
        elif re.fullmatch(r"b(?:eq|ne)(?:lr)?", i.mnem.rstrip("+-")) and \
                to is not None and to != k + 1:
            eq = (i.mnem[1:3] == "eq") == (s_ == to)
            if c and c[0] == "cmp":
                facts = rv_fact(facts, c[1], c[2], eq)
            if vals.get(cr + ".eq", ("c", int(eq))) != ("c", int(eq)):
                facts = None        # the field's EQ bit says otherwise
            vals[cr + ".eq"] = ("c", int(eq))
        elif re.match(r"cr|mtcr|mtocrf|mcrf", i.mnem):     # CR written otherwise
            vals = {r: v for r, v in vals.items() if not r.startswith("cr")}
        elif not branch and i.args and re.fullmatch(r"cr[0-7]", i.args[0]):
            vals.pop(i.args[0], None)       # a field written (fcmpu cr7, ...)
            vals.pop(i.args[0] + ".eq", None)
        if m or facts is None or i.target is not None or to is not None:
            return None if facts is None else (frozenset(vals.items()), facts)
        if "cr0" in i.dest:         # a dot form, stcx.
            vals.pop("cr0.eq", None)
        # A copy of CR fields, and field n's EQ bit extracted from one.
        fxm = int(i.args[1], 0) if i.mnem == "mfocrf" and len(i.args) == 2 and \
            re.fullmatch(r"\d+", i.args[1]) else 255 if i.mnem == "mfcr" else 0
        crbits = tuple((n, vals[f"cr{n}.eq"][1]) for n in range(8)
                       if fxm & (128 >> n) and f"cr{n}.eq" in vals)
        # RLWINM ...,SH,31,31 keeps bit SH - 1 of the word (IBM's numbering,
        # 0 the highest): field n's EQ bit, 4n + 2, is SH = 4n + 3.
        src = rv_value(vals, i.args[1]) if i.mnem == "rlwinm" and len(i.args) == 5 and \
            i.args[3:] == ["31", "31"] and re.fullmatch(r"\d+", i.args[2]) else None
        sh = int(i.args[2]) - 3 if src else -1
        bit = dict(src[2]).get(sh // 4) if src and src[0] == "crbits" and sh % 4 == 0 \
            else None
        if bit is not None and i.dest:
            vals[i.dest[0]] = ("c", bit)
            return frozenset(vals.items()), facts
    eq = RV_EQ_TAKEN.get(i.mnem)
    if eq is not None and i.target is not None and f.at.get(i.target) != k + 1:
        a = rv_value(vals, i.args[0])
        b = rv_value(vals, i.args[1]) if len(i.args) == 3 else ("c", 0)
        if a is not None and b is not None:
            facts = rv_fact(facts, a, b, eq == (s_ == f.at.get(i.target)))
            return None if facts is None else (frozenset(vals.items()), facts)
    srcs = [rv_value(vals, a) for a in i.args[1:]]
    op = i.mnem if i.mnem == "li" else re.sub(r"i(w?)$", r"\1", i.mnem)   # addi: add
    v, p = ("d", k), ("p", k)
    new = {}
    for d in i.dest:
        if RV_ALU.fullmatch(i.mnem) and srcs and None not in srcs and not i.acc:
            new[d] = srcs[0] if op in ("mv", "mr", "li") else \
                (op, *(sorted(srcs, key=repr) if op in RV_COMMUTES else srcs))
        else:
            new[d] = v
    vals = {r: x for r, x in vals.items() if r not in new}      # overwritten
    if v in new.values():
        # A new value of k. The one it replaces, if a register still holds
        # it, is ("p", k) from now on, and what was said of k's value before
        # that is forgotten; if none does, what was said of it.
        if any(x is not None and rv_mentions(x, v) for x in vals.values()):
            vals = {r: None if x is not None and rv_mentions(x, p) else rv_rename(x, v, p)
                    for r, x in vals.items()}
            facts = frozenset((tuple(sorted(rv_rename(key, v, p), key=repr)), eq)
                              for key, eq in facts if not rv_mentions(key, p))
        else:
            facts = frozenset(x for x in facts if not rv_mentions(x[0], v))
    vals.update(new)
    if f.arch == "ppc64le" and crbits and i.dest:
        vals[i.dest[0]] = ("crbits", vals[i.dest[0]], crbits)
    return frozenset(vals.items()), facts
