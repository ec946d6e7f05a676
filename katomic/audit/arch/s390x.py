# SPDX-License-Identifier: GPL-2.0
"""s390x (z/Architecture): its rules, and how its instructions access memory."""

import re

from ..disasm import base_reg, displacement, matches, reg

RULES = {
    "model": "tso",
    # Compare and swap serialises the CPU (Principles of Operation);
    # the interlocked-access facility's LOAD AND ADD family and ASI
    # perform only specific-operand serialization: a later fetch may
    # pass their store. BCR 14,0 and BCR 15,0 (objdump: bnor %r0,
    # br %r0) serialise.
    "rmw": r"cs|csy|csg|cds|cdsy|cdsg|laa|laag|laal|laalg|lan|lang|lao|laog|lax|laxg|asi|agsi|alsi|algsi",
    "full": r"cs|csy|csg|cds|cdsy|cdsg|bnor %r0|br %r0",
    "fence": r"bnor %r0|br %r0",
    # BCR 14,0 only with the fast-BCR-serialization facility (z196 on):
    # asm/barrier.h uses it under this option, BCR 15,0 below.
    "full_if": {r"bnor %r0": "CONFIG_HAVE_MARCH_Z196_FEATURES"},
    # smp_mb__after_atomic() is barrier() where CS does the atomics
    # (below z196): a failed fully ordered cmpxchg must serialise by
    # itself (the LKMM's cmpxchg-fail-ordered-1), as a failed CS does.
    "fail_serialises": True,
    "acq": None, "rel": None, "lx": None, "sx": None, "local": None,
    "ret": r"br %r14",
    # BCR with a condition on %r14: return if (clang: "ber %r14").
    "cond_ret": r"b(?!r )[a-z]+r %r14",
    "jump": r"j|jg|brul?",
    "call": r"brasl?|basr?",
    "branch": r"j\w*|br\w*|c\w*j\w*|bras\w*|bc|bcr",
    "stack": {"r15"},
    "noaccess": r"la|lay|larl|pfd|pfdrl|(?:sl|sr)(?:l|a|dl|da)(?:g|k)?|rllg?",
    "store": r"st\w*|mv\w*",
}

WIDTH = {1: "llc llgc lb lgb stc stcy ic icy mvi cli cliy tm llcrl",
         2: "lh lhy llh llgh lgh sth sthy ch chy mvhhi lhrl llhrl llghrl lghrl sthrl chrl",
         8: "lg stg ltg cg clg csg csy mvghi lgrl stgrl laag lang laog laxg laalg agsi "
            "algsi cgrl clgrl ag sg ng og xg alg slg cghsi clghsi cds cdsy",
         16: "cdsg lpq stpq"}
WIDTH = {m: w for w, ms in WIDTH.items() for m in ms.split()}


def width(A, i, memarg):
    return WIDTH.get(i.mnem, 4)


def is_mem(A, a, i):
    """D(X,B), or the relative-long operand of a ...RL instruction."""
    return bool(re.fullmatch(r"-?\d+\(((%r)?\d+,)?%r\d+\)", a)) or \
        (i.mnem.endswith("rl") and i.mnem not in ("larl", "exrl", "pfdrl") and
         a is i.args[-1] and bool(i.relocs))


def mem_base(a):
    return base_reg(a, last=True)


def disp(a):
    return displacement(a)


def access_kind(A, i, memarg):
    if re.fullmatch(r"[nox](?:i|iy|c)", i.mnem):
        return "update"         # AND/OR/XOR to storage: read and written
    return "store" if matches(A["store"], i) else "load"


def dests(A, i, mn):
    if re.match(r"(st|mv|c|tm|j|b|br|bn|pfd|n[iy]|o[iy]|x[iy]$)", mn) and \
            not mn.startswith(("cs", "cds")):
        return []
    return [r for r in [reg(i.args[0])] if r]
