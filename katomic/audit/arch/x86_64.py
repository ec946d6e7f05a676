# SPDX-License-Identifier: GPL-2.0
"""x86_64: its rules, and how its instructions (AT&T syntax) access memory."""

import re

from ..disasm import base_reg, displacement, matches, reg

RULES = {
    "model": "tso",
    # A LOCK-prefixed instruction and XCHG with memory are full barriers.
    "rmw": r"lock \w+|xchg[bwlq]?",
    # Without LOCK: atomic against interrupts on this CPU, the _local ops.
    "local": r"cmpxchg\w*|xadd[bwlq]?",
    "full": r"lock \w+|xchg[bwlq]?|mfence",
    "fence": r"mfence",
    "fail_serialises": True,        # smp_mb__after_atomic() is barrier()
    "acq": None, "rel": None, "lx": None, "sx": None,
    "ret": r"ret[q]?",
    "cond_ret": None,
    "jump": r"jmp[q]?",
    "call": r"call[q]?",
    "branch": r"j\w*|call\w*",
    "stack": {"sp", "bp"},
    "noaccess": r"lea[lq]?|nop\w*|prefetch\w*|clflush\w*",
    "store": None,     # AT&T: the destination is the last operand
}


def width(A, i, memarg):
    mn = i.mnem.split()[-1]
    m = re.fullmatch(r"mov[sz]([bw])[wlq]", mn)
    if m:
        return {"b": 1, "w": 2}[m.group(1)]
    if mn.startswith("cmpxchg16b"):
        return 16
    r = next((a[1:] for a in i.args if a.startswith("%")), None)
    if r:
        m = re.fullmatch(r"r\d+([dwb]?)", r)
        if m:
            return {"": 8, "d": 4, "w": 2, "b": 1}[m.group(1)]
        return 8 if r[0] == "r" else 4 if r[0] == "e" else \
            1 if r[-1] in "lh" and r not in ("si", "di") else 2
    m = re.search(r"([bwlq])$", mn)
    return {"b": 1, "w": 2, "l": 4, "q": 8}[m.group(1)] if m else 0


def is_mem(A, a, i):
    if i.target is not None or i.extern or matches(A["call"], i) or \
            matches(A["jump"], i) or i.mnem.startswith("j"):
        return False
    return not a.startswith(("$", "%")) and bool(a)


def mem_base(a):
    return base_reg(a)


def disp(a):
    """None when an index register makes it unknown."""
    return None if re.search(r"\(%?\w*,%\w+", a) else displacement(a)


def access_kind(A, i, memarg):
    mn = i.mnem
    if mn.startswith(("cmp", "test", "push")) or memarg is not i.args[-1]:
        return "load"
    return "store" if mn.startswith("mov") else "update"


def dests(A, i, mn):
    """The last operand, and what XCHG, XADD and CMPXCHG write besides."""
    if mn.startswith(("cmp", "test", "push", "j", "call", "ret")):
        return []
    out = [reg(i.args[-1])] if i.args[-1].startswith("%") else []
    if mn.startswith(("xchg", "xadd", "cmpxchg")):
        out += [reg(a) for a in i.args if a.startswith("%")] + ["a"]
    return [r for r in out if r]


# Address tracking (access.py's accesses()): LEA or a MOV of an immediate
# address, a register copy, and CMOV between two addresses held.
COPIES = ("mov", "movq")


def got_load(i):
    return False


def reloc_addend(i, a, off, nxt):
    """PC-relative fields count from the next instruction."""
    return a + nxt - off if re.search(r"PC32$", i.relocs[0][1]) else a


def toc_slot(i):
    return False


def forms_addr(i, loc):
    return loc and (i.mnem.startswith("lea") or i.args[0].startswith("$"))


def select_srcs(i):
    """CMOV: its source, and the destination it may keep."""
    return [reg(a) for a in i.args[:1]] + i.dest if i.mnem.startswith("cmov") else None


def address_offset(i, held):
    return None, 0


# What taint() follows from a loaded value: instructions that read the
# flags, and those that only write their destination.
FLAG_READERS = r"cmov\w+|set\w+|adc\w*|sbb\w*"
MOVES = r"mov\w*|lea\w*|pop\w*"
# The register a store-exclusive's status goes to: None, its first operand.
STATUS_REG = None
# AT&T syntax: the destination is the last operand.
DEST_LAST = True
# Where the condition code decides the paths: s390x.py.
cc_path = None


# The ordering check follows the flags (arm64.py) or the compared values
# (riscv64.py, ppc64le.py) of a path; a fence and an acquire AMO as a pair
# that is a full barrier: riscv64.py.
FLAG_SETTERS = None
VALUES = False
FULL_PAIR = None
# The condition register's fields, which the compares set: ppc64le.py.
cr_step = None
