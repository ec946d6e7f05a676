# SPDX-License-Identifier: GPL-2.0
"""riscv64: its rules (RVWMO), and how its instructions access memory."""

import re

from ..disasm import base_reg, displacement, matches, reg

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
