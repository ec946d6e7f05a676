# SPDX-License-Identifier: GPL-2.0
"""ppc64le (Power ISA): its rules, and how its instructions access memory."""

import re

from ..disasm import base_reg, displacement, matches, reg

RULES = {
    "model": "weak",
    # Power ISA Book II: sync (hwsync) is a full barrier; lwsync orders all
    # but an earlier store before a later load: an acquire and a release
    # fence, no full one. eieio orders stores only: none of these.
    "rmw": None,
    "full": r"sync|hwsync|ptesync",
    "fence": r"sync|hwsync|ptesync|lwsync|isync",
    # isync is an acquire only behind a branch on the loaded value, or on
    # stcx.'s status (the kernel's PPC_ACQUIRE_BARRIER): ctrl_acq.
    "acq": r"lwsync|isync",
    "ctrl_acq": r"isync",
    "rel": r"lwsync",
    # lwsync is both: only sync is stronger than an acquire or a release.
    "stronger": {"acquire": ("full",), "release": ("full",)},
    # lwsync before the RMW leaves an earlier store unordered with its load
    # (the 2014 "lwsync; ll/sc; sync" the kernel made "sync; ll/sc; sync"):
    # a fully ordered op needs a full barrier before it too.
    "full_before": True,
    "lx": r"l[bhwdq]arx",
    "sx": r"st[bhwdq]cx\.",
    "fail_serialises": False,       # smp_mb__after_atomic() is sync
    "local": None,
    "ret": r"blr",
    "cond_ret": r"b(?:eq|ne|lt|le|gt|ge|so|ns|un|nu|dnz|dz)lr[+-]?",
    "jump": r"b|bctr",
    "call": r"bl|bctrl|blrl",
    "branch": r"b\w*[+-]?",
    "stack": {"r1", "r31"},
    # ld r2: the TOC pointer, from the word before the function at its
    # global entry (-mcmodel=large, as modules are built).
    "noaccess": r"dcb\w+|icbi|ld r2,.*",
    "store": r"st\w*",
}


def width(A, i, memarg):
    """lwz, stdu, lhbrx, lwarx, stwcx."""
    m = re.match(r"(?:l|st)([bhwdq])", i.mnem)
    return {"b": 1, "h": 2, "w": 4, "d": 8, "q": 16}[m.group(1)] if m else 0


def is_mem(A, a, i):
    """off(rA); parse()'s 0(rB) and (rA,rB)."""
    return bool(re.fullmatch(r"-?\d+\(r\d+\)|\(r\d+,r\d+\)", a))


def mem_base(a):
    return base_reg(a)


def disp(a):
    """None when an index register makes it unknown."""
    return None if "," in a else displacement(a)


def access_kind(A, i, memarg):
    return "store" if matches(A["store"], i) else "load"


def dests(A, i, mn):
    """The first operand, but of a store, compare or branch; CR0 of a
    compare without a field, a dot form and stcx."""
    cr0 = ["cr0"] if mn.endswith(".") or mn.startswith("cmp") and \
        not i.args[0].startswith("cr") else []
    if re.match(r"st|cmp|b|tw|td|dcb|icbi|mt", mn):
        return cr0
    return [r for r in [reg(i.args[0])] if r] + cr0
