# SPDX-License-Identifier: GPL-2.0
"""ppc64le (Power ISA): its rules, and how its instructions access memory."""

import re

from ..disasm import EXIT, add_offset, base_reg, displacement, matches, reg
from ..values import rv_fact, rv_value

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


# Address tracking (access.py's accesses()): ADDIS and ADDI of a symbol, LD
# of a TOC entry (the entry itself, whatever way its ADDIS came: GCC hoists
# that above a branch), a register copy, ISEL between two addresses held,
# and ADDI's offset, or ADD's index at an unknown offset.
COPIES = ("mr",)


def got_load(i):
    return False


def reloc_addend(i, a, off, nxt):
    return a


def toc_slot(i):
    return i.mnem == "ld" and i.relocs and "GOT" in i.relocs[0][1]


def forms_addr(i, loc):
    return i.mnem in ("addis", "addi") and loc


def select_srcs(i):
    return [reg(a) for a in i.args[1:3]] if i.mnem.startswith("isel") else None


def address_offset(i, held):
    return add_offset(i, held)


# What taint() follows from a loaded value: instructions that read the
# flags, and those that only write their destination.
FLAG_READERS = r"isel\w*|mfcr|mfocrf"
MOVES = r"(?!cmp)\w+"         # all but compares and dot forms (CR0)
# The register a store-exclusive's status goes to: None, its first operand.
STATUS_REG = "cr0"
# AT&T syntax: the destination is the last operand.
DEST_LAST = False
# Where the condition code decides the paths: s390x.py.
cc_path = None


# The ordering check follows the flags (arm64.py) or the compared values
# (riscv64.py, ppc64le.py) of a path; a fence and an acquire AMO as a pair
# that is a full barrier: riscv64.py.
FLAG_SETTERS = None
VALUES = True
FULL_PAIR = None


def cr_step(f, k, s_, vals, facts):
    """values.py's rv_step() for the condition register: (whether that is
    all k does, vals, facts, the EQ bits of the CR fields k copies to its
    destination). Compares set a CR field to ("cmp", value, value), which
    BEQ and BNE read, and BEQLR and BNELR (a word compare's values tagged
    "w": it compares the low halves). Such a branch on a field, whatever
    set it (a compare, a dot form, stcx.), says on each edge the field's EQ
    bit: "crN.eq", ("c", 1) or ("c", 0), until the field is written again.
    MFOCRF and MFCR copy fields into a register, ("crbits", ("d", k),
    ((field, EQ bit)...)) for those whose EQ bit is known, and RLWINM
    rX,rY,4n+3,31,31 extracts field n's (GCC's try_cmpxchg(): "mfocrf
    r3,128; rlwinm r3,r3,3,31,31", CR0's EQ, stcx.'s success, then "cmpwi
    r3,0; beq" around the sync)."""
    i = f.insns[k]
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
        return True, vals, facts, ()
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
        return True, vals, facts, ()
    return False, vals, facts, crbits
