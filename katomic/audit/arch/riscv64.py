# SPDX-License-Identifier: GPL-2.0
"""riscv64: its rules (RVWMO), and how its instructions access memory."""

import re

from ..herd import Unknown, signed, thread
from .defaults import reloc_addend, select_srcs, toc_slot  # noqa: F401
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
    # fixtures so (katomic/litmus_fixtures.py).
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


def forms_addr(i, loc):
    return i.mnem in ("auipc", "lui") and loc


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


# The litmus translation: a compiled thread in herd7's RISCV syntax, for
# katomic/litmus_arch.py, which runs it under riscv.cat.
# riscv: the assembler's aliases herd7 does not read, as the instructions
# they stand for; the frame pointer's save and restore, which touch only
# the thread's stack.
RV_ALIAS = {
    "bnez": "bne {0},zero,{1}", "beqz": "beq {0},zero,{1}", "bltz": "blt {0},zero,{1}",
    "bgez": "bge {0},zero,{1}", "blez": "bge zero,{0},{1}", "bgtz": "blt zero,{0},{1}",
    "bgt": "blt {1},{0},{2}", "ble": "bge {1},{0},{2}", "bgtu": "bltu {1},{0},{2}",
    "bleu": "bgeu {1},{0},{2}",
    # herd7 implements neither SLTU nor SLTIU: the same value from SLT,
    # SLTI and a register the thread does not use ({t}), with no branch
    # (a branch would add a control dependency the code does not have).
    "seqz": "slti {t},{1},1\nslti {0},{1},0\nsub {0},{t},{0}",
    "snez": "slt {t},zero,{1}\nslt {0},{1},zero\nor {0},{0},{t}",
    "not": "xori {0},{1},-1",
    "neg": "sub {0},zero,{1}", "negw": "subw {0},zero,{1}", "zext.b": "andi {0},{1},255",
    "sext.w": "addiw {0},{1},0",
}
RV_IMM = {"add": "addi", "addw": "addiw", "and": "andi", "or": "ori", "xor": "xori",
          "sll": "slli", "srl": "srli", "sra": "srai", "sllw": "slliw", "srlw": "srliw",
          "sraw": "sraiw", "slt": "slti", "sltu": "sltiu"}
RV_ARGS = [f"a{n}" for n in range(8)]
RV_SCRATCH = "t6"


def rv_insn(i, labels):
    """One instruction in herd7's RISC-V syntax, None to drop it."""
    a = list(i.args)
    if i.mnem == "nop" or i.mnem.startswith("c.nop"):
        return None
    if i.mnem == "ret":
        return "j Lret"
    if i.extern:
        raise Unknown(f"a call or jump out of the thread ({i.text})")
    # The frame: sp and s0 set up and restored, ra and the callee-saved
    # registers saved and restored, on the thread's own stack.
    if i.mnem in ("add", "addi") and a[0] in ("sp", "s0") and a[1] == "sp":
        return None
    if re.fullmatch(r"[sl]d", i.mnem) and re.fullmatch(r"ra|s\d+", a[0]) and a[1].endswith("(sp)"):
        return None
    if any(x.endswith("(sp)") or x.endswith("(s0)") for x in a):
        raise Unknown(f"a stack access ({i.text})")
    if i.target is not None:
        a[-1] = labels[i.target]
    elif i.jump is not None:
        raise Unknown(f"a branch out of the thread ({i.text})")
    m = i.mnem
    # The sign bit, which herd7's SRLI and SRLIW (not implemented) would
    # give only for 64-bit values: SLT against zero.
    if m in ("srli", "srl", "srliw", "srlw") and re.fullmatch(r"0x\w+|\d+", a[2]) and \
            int(a[2], 0) == (31 if m.endswith("w") else 63):
        return f"slt {a[0]},{a[1]},zero"
    if m in RV_ALIAS:
        return RV_ALIAS[m].format(*a, t=RV_SCRATCH)
    # The emulation of 1 and 2-byte ops computes the word's address and
    # shifts by a register: herd7 has no arithmetic on addresses.
    if m in ("and", "andi") and a[2] in ("-4", "-8"):
        raise Unknown(f"the address of the word around a 1 or 2-byte location ({i.text})")
    if m in ("srl", "sra", "srliw", "sraiw", "srlw", "sraw", "sltu", "sltiu", "srai"):
        raise Unknown(f"{m}, which herd7 does not implement ({i.text})")
    if m in RV_IMM and re.fullmatch(r"-?(0x[0-9a-f]+|\d+)", a[-1]):
        m = RV_IMM[m]
    if m == "fence" and a == ["iorw", "iorw"]:
        a = ["rw", "rw"]
    a = [str(signed(int(x, 0), 64)) if re.fullmatch(r"-?(0x[0-9a-f]+|\d+)", x) else x for x in a]
    return f"{m} {','.join(a)}".strip()


def rv_thread(insns):
    if any(RV_SCRATCH in i.args for i in insns):
        raise Unknown(f"{RV_SCRATCH}, the translation's scratch register, in the code")
    out = thread(insns, rv_insn, "j {}", {"j", "ret", "jr"}, "nop")
    return [x for s in out for x in s.split("\n")]


# The self-test's weakening of P0: every barrier and ordering taken out.
WEAKEN = [(r"^fence\S* .*", "nop"), (r"^fence\.tso$", "nop"),
          (r"^(\S+?)\.(aqrl|aq|rl)\b", r"\1")]

HERD = {"herd": "RISCV", "model": "riscv.cat", "args": RV_ARGS,
        "reg": lambda r: r, "thread": rv_thread, "weaken": WEAKEN}
