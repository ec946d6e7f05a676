# SPDX-License-Identifier: GPL-2.0
"""What the compares on a path say about the values (riscv, powerpc)."""

import re

from .disasm import reg

# riscv branches compare registers. What the compares on a path said about
# the values, so that clang's compare repeated after an LL/SC loop ("bne
# a3,a4,1f; sc.w.rl a5,a2,(a0); bnez a5,0b; 1: ...; bne a3,a4,2f; fence
# rw,rw; 2:") is not read as a way around the fence. A value is ("in", r),
# register r's at the entry; ("c", n), a constant; ("d", k), what
# instruction k loaded or otherwise made, unknown but the same until k runs
# again, when the one it replaces becomes ("p", k) (a retry loop compares
# the new load with the old); or (op, value...), an ALU op of values (a
# copy, riscv's MV and powerpc's MR, is the value); None: not known.
# powerpc's condition register: ppc64le.py's cr_step().
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
    crbits = ()
    if f.M.cr_step:             # powerpc's condition register
        done, vals, facts, crbits = f.M.cr_step(f, k, s_, vals, facts)
        if done:
            return None if facts is None else (frozenset(vals.items()), facts)
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
    if crbits and i.dest:
        vals[i.dest[0]] = ("crbits", vals[i.dest[0]], crbits)
    return frozenset(vals.items()), facts
