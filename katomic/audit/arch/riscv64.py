# SPDX-License-Identifier: GPL-2.0
"""riscv64: its rules (RVWMO), and how its instructions access memory."""

import re

from ..disasm import add_offset, base_reg, displacement, matches, reg

# RISC-V AMOs (Zabha's .b and .h, Zacas's amocas too), and FENCE's
# predecessor and successor sets as objdump prints them, in the order iorw
# (parse() spells out a bare "fence": iorw,iorw). Every set holding r and w.
RV_AMO = r"amo(?:add|swap|and|or|xor|max|maxu|min|minu|cas)\.[bhwdq]"
RV_RW = r"i?o?rw"
RULES = {
    "model": "weak",
    # RVWMO: a FENCE ordering rw before rw, an AMO with .aqrl, and an SC
    # with .aqrl (RCsc both ways; its LR, to the same address, precedes
    # it) are full barriers. lr.aqrl; sc.rl is none: the SC's store may
    # pass a later load. The kernel's fully ordered LR/SC op is lr; sc.rl;
    # bnez; fence rw,rw (commit 5ce6c1f3535f, "riscv/atomic: Strengthen
    # implementations with fences", written against the 2018 draft, where
    # .aqrl was weaker). herd7 under riscv.cat judges the self-test's
    # fixtures so (scripts/litmus_fixtures.py).
    "rmw": RV_AMO + r"(?:\.aq|\.rl|\.aqrl)?",
    "full": rf"fence {RV_RW},{RV_RW}|{RV_AMO}\.aqrl|sc\.[wd]\.aqrl",
    "fence": r"fence|fence\.tso",          # fence.i orders no data
    # FENCE.TSO orders all but a store before a load: an acquire and a
    # release fence, no full one.
    # An SC with .aq alone orders no more than a plain one (the A
    # extension: software sets it only with .rl); with .aqrl it orders its
    # LR, which precedes it, before what follows.
    "acq": rf"(?:lr\.[wd]|{RV_AMO})\.aq(?:rl)?|sc\.[wd]\.aqrl|fence i?o?rw?,{RV_RW}|fence\.tso",
    "rel": rf"(?:sc\.[wd]|{RV_AMO})\.(?:aq)?rl|fence {RV_RW},i?o?r?w|fence\.tso",
    "lx": r"lr\.[wd](?:\.aq|\.rl|\.aqrl)?",
    "sx": r"sc\.[wd](?:\.aq|\.rl|\.aqrl)?",
    # smp_mb__before_atomic() and after_atomic() are fence rw,rw: a failed
    # fully ordered cmpxchg may be unordered, as on arm64.
    "fail_serialises": False,
    "local": None,
    "ret": r"ret",
    "cond_ret": None,
    "jump": r"j|jr",
    "call": r"jalr?",
    "branch": r"b\w+|j|jr|jalr?",
    "stack": {"sp", "s0"},      # s0 is the frame pointer: CONFIG_FRAME_POINTER
    "noaccess": r"prefetch\.[irw]|cbo\.\w+",
    "store": r"s[bhwd]",
}


def width(A, i, memarg):
    """lw, sd, lbu; amoadd.w.aqrl, lr.d, sc.w."""
    m = re.fullmatch(r"[ls]([bhwd])u?|\w+\.([bhwdq])(?:\.\w+)?", i.mnem)
    return {"b": 1, "h": 2, "w": 4, "d": 8, "q": 16}[m.group(1) or m.group(2)] if m else 0


def is_mem(A, a, i):
    """off(reg), (reg); not JALR's target."""
    return bool(re.fullmatch(r"-?\d*\(\w+\)", a)) and not matches(A["branch"], i)


def mem_base(a):
    return base_reg(a)


def disp(a):
    return displacement(a)


def access_kind(A, i, memarg):
    return "store" if matches(A["store"], i) else "load"


def dests(A, i, mn):
    """The first operand, but of a store, branch or FENCE."""
    if re.fullmatch(r"s[bhwd]|b\w+|jr?|ret|fence\S*|prefetch\.\w|cbo\.\w+", mn):
        return []
    return [r for r in [reg(i.args[0])] if r]


# Address tracking (access.py's accesses()): AUIPC and LUI of a symbol or
# of its GOT slot (GOT_HI20), LD of the slot, a register copy, and ADD's
# (objdump: add for addi too) offset, or an index at an unknown offset.
COPIES = ("mv",)


def got_load(i):
    return i.mnem == "ld"


def reloc_addend(i, a, off, nxt):
    return a


def toc_slot(i):
    return False


def forms_addr(i, loc):
    return i.mnem in ("auipc", "lui") and loc


def select_srcs(i):
    return None


def address_offset(i, held):
    return add_offset(i, held)


# What taint() follows from a loaded value: instructions that read the
# flags, and those that only write their destination.
FLAG_READERS = r"(?!)"        # no flags: a branch compares registers
MOVES = r".*"
# The register a store-exclusive's status goes to: None, its first operand.
STATUS_REG = None
# AT&T syntax: the destination is the last operand.
DEST_LAST = False
# Where the condition code decides the paths: s390x.py.
cc_path = None


# The ordering check follows the flags (arm64.py) or the compared values
# (riscv64.py, ppc64le.py) of a path; a fence and an acquire AMO as a pair
# that is a full barrier: riscv64.py.
FLAG_SETTERS = None
VALUES = True
FULL_PAIR = (
    # FENCE rw,w (or stronger) just before an AMO.aq, as GCC 12 writes a
    # seq_cst AMO: the fence orders every earlier access before the AMO, a
    # store, and .aq the AMO before every later one (RVWMO), so the access
    # needs no barrier after it: (the AMO's mnemonic, the fence's text).
    rf"{RV_AMO}\.aq", rf"fence {RV_RW},i?o?r?w")
# The condition register's fields, which the compares set: ppc64le.py.
cr_step = None
