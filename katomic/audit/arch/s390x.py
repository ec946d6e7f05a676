# SPDX-License-Identifier: GPL-2.0
"""s390x (z/Architecture): its rules, and how its instructions access memory."""

import re

from .defaults import select_srcs, toc_slot  # noqa: F401
from ..disasm import EXIT, base_reg, displacement, matches, reg

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


# Address tracking (access.py's accesses()): a load of a GOT slot, LARL of a
# symbol or of its GOT entry (@GOTENT), and LGRL of its GOT slot (modules
# are -fPIC), a register copy, and LA's offset to an address held.
COPIES = ("lgr", "lr")


def got_load(i):
    return bool(re.fullmatch(r"lg|locg\w*", i.mnem))


def reloc_addend(i, a, off, nxt):
    """PC-relative fields count from this instruction."""
    return a + i.addr - off if re.search(r"DBL|GOTENT", i.relocs[0][1]) else a


def forms_addr(i, loc):
    return i.mnem == "larl" or (i.mnem == "lgrl" and i.relocs and "GOT" in i.relocs[0][1])


def address_offset(i, held):
    """LA rD, imm(rS): the statics behind a section anchor."""
    if i.mnem in ("la", "lay"):
        return mem_base(i.args[1]), disp(i.args[1])
    return None, 0


# What taint() follows from a loaded value: instructions that read the
# flags, and those that only write their destination.
FLAG_READERS = r"loc\w*|ipm|alc\w*|slb\w*|sel\w*"
MOVES = (r"l|lg|lgf|llgf|lr|lgr|lgfr|llgfr|lhi|lghi|lgfi|llc|llgc|llh|llgh|lh|lgh|larl|lrl|lgrl|"
         r"ly|la|lay|llill|llilf|iihf|iilf")
# The register a store-exclusive's status goes to: None, its first operand.
STATUS_REG = None
# AT&T syntax: the destination is the last operand.
DEST_LAST = False


# s390 branch conditions: the condition codes each extended mnemonic takes
# (mask bits 8, 4, 2, 1 are CC 0, 1, 2, 3), and instructions that leave the
# condition code as it was.
CC_MASKS = {"o": 1, "h": 2, "p": 2, "nle": 3, "l": 4, "m": 4, "nhe": 5, "lh": 6,
            "ne": 7, "nz": 7, "e": 8, "z": 8, "nlh": 9, "he": 10, "nl": 11, "nm": 11,
            "le": 12, "nh": 13, "np": 13, "no": 14}
CC_KEPT = re.compile(r"l|lg|lgf|llgf|llgc|llgh|llc|llh|lh|lgh|lr|lgr|lgfr|llgfr|llcr|llgcr|"
                     r"llhr|llghr|lhi|lghi|lgfi|llilf|iilf|iihf|la|lay|larl|lrl|lgrl|st|sty|"
                     r"stg|stc|sth|stmg|lmg|rll|rllg|risbgn|sll|sllg|srl|srlg|sllk|srlk|"
                     r"nopr?|j|jg|bcr 0,.*")


def cc_path(f, stop):
    """f.find([0], stop=stop), but a path whose branches contradict each
    other on the condition code is not one (clang tests it twice: 'cr; jlh
    out; ...; out: je skip; bcr 14,0')."""
    every = frozenset(range(4))
    start = (0, every, ())
    parent, todo = {start: None}, [start]
    while todo:
        state = todo.pop()
        k, cc, ipm = state
        if k == EXIT:
            path = []
            while state:
                path.append(state[0])
                state = parent[state]
            return path[::-1]
        if stop(k):
            continue
        i = f.insns[k]
        m = re.fullmatch(r"jg?(\w+)", i.mnem) if i.target is not None else \
            re.fullmatch(r"b(\w+)r", i.mnem) if f.is_("cond_ret", k) else None
        mask = CC_MASKS.get(m.group(1)) if m else None
        # IPM copies the condition code into a register (bits 34-35), and
        # TMLH of those bits (0x3000) gives CC 0, 1 or 3 for CC 0, 1-2 or 3.
        nipm = tuple((r, v) for r, v in ipm if r not in i.dest)
        if i.mnem == "ipm" and i.dest:
            nipm += ((i.dest[0], cc),)
        for s_ in f.succ(k):
            ncc = cc
            if mask is not None:
                taken = s_ == EXIT if i.target is None else \
                    s_ == f.at.get(i.target) and s_ != k + 1
                ncc = frozenset(c for c in cc if bool(mask & (8 >> c)) == taken)
                if not ncc:
                    continue
            elif i.mnem == "tmlh" and len(i.args) == 2 and reg(i.args[0]) in dict(ipm) and \
                    int(i.args[1], 0) == 0x3000:
                ncc = frozenset({0: 0, 1: 1, 2: 1, 3: 3}[c] for c in dict(ipm)[reg(i.args[0])])
            elif not CC_KEPT.fullmatch(i.mnem) and not re.fullmatch(r"c\w*j\w*|ipm", i.mnem):
                ncc = every
            nxt = (s_, ncc, nipm)
            if nxt not in parent:
                parent[nxt] = state
                todo.append(nxt)
    return None


# The ordering check follows the flags (arm64.py) or the compared values
# (riscv64.py, ppc64le.py) of a path; a fence and an acquire AMO as a pair
# that is a full barrier: riscv64.py.
FLAG_SETTERS = None
VALUES = False
FULL_PAIR = None
# The condition register's fields, which the compares set: ppc64le.py.
cr_step = None

# No translator of its code into a herd7 test: herd7 has no model of s390x.
HERD = None
