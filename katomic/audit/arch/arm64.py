# SPDX-License-Identifier: GPL-2.0
"""arm64: its rules, and how its instructions access memory."""

import re

from ..herd import Unknown, signed, thread
from .defaults import got_load, reloc_addend, toc_slot  # noqa: F401
from ..disasm import matches, reg

LSE_OPS = r"(?:ld(?:add|clr|eor|set|smax|smin|umax|umin)|st(?:add|clr|eor|set|smax|smin|umax|umin)|swp|casp?)"
RULES = {
    "model": "weak",
    # DMB ISH (and SY, DSB) are full barriers; so are the LSE AL forms,
    # as the kernel uses them. LDXR/STXR are not.
    "rmw": LSE_OPS + r"(?:a|al|l)?[bh]?",
    # DMB/DSB ...ST order stores only, ...LD are acquire fences.
    "full": r"(?:dmb|dsb) (?:ish|osh|sy)|" + LSE_OPS + r"al[bh]?",
    "fence": r"dmb \w+|dsb \w+",
    "acq": r"ldaxr[bh]?|ldaxp|ldar[bh]?|ldapur?[bh]?|" + LSE_OPS + r"a[bh]?|"
           r"(?:dmb|dsb) (?:ish|osh)?ld",
    "rel": r"stlxr[bh]?|stlxp|stlr[bh]?|stlur[bh]?|" + LSE_OPS + r"l[bh]?",
    "lx": r"ld[a]?xr[bh]?|ld[a]?xp",
    "local": None,
    "sx": r"st[l]?xr[bh]?|st[l]?xp",
    "ret": r"ret",
    "cond_ret": None,
    "jump": r"b",
    "call": r"blr?",
    "branch": r"b|b\.\w+|blr?|cbn?z|tbn?z",
    "stack": {"sp", "r29"},
    "noaccess": r"prfm|prfum|adrp?|add",
    "store": r"st\w*",
}


def width(A, i, memarg):
    m = re.search(r"(?:x|r|[a-z])(sb|sh|sw|b|h)$", i.mnem.split()[0])
    if m and not i.mnem.startswith(("ldp", "stp", "ldxp", "stxp", "ldaxp", "stlxp")):
        return {"sb": 1, "b": 1, "sh": 2, "h": 2, "sw": 4}[m.group(1)]
    data = i.args[1] if matches(A["sx"], i) else i.args[0]
    n = {"w": 4, "x": 8, "q": 16, "b": 1, "h": 2, "s": 4, "d": 8}.get(data[:1], 8)
    return 2 * n if re.match(r"(ld|st)[a-z]*p$", i.mnem) or "casp" in i.mnem else n


def is_mem(A, a, i):
    return a.startswith("[")


def mem_base(a):
    return reg(a.strip("[]!").split(",")[0])


def disp(a):
    """None when an index register makes it unknown."""
    parts = a.strip("[]!").split(",")
    if len(parts) > 1 and not parts[1].strip().startswith("#"):
        return None
    m = re.search(r"#(-?(?:0x)?[0-9a-f]+)\]", a)
    return int(m.group(1), 0) if m else 0


def access_kind(A, i, memarg):
    return "store" if matches(A["store"], i) else "load"


def dests(A, i, mn):
    if re.match(r"(cmp|cmn|tst|b|cb|tb|prfm|ret)", mn) or \
            (mn.startswith("st") and not matches(A["sx"], i)
             and not matches(A["rmw"], i)):
        return []
    out = [reg(i.args[0])]
    if mn.startswith("ldp") or mn.startswith("ldxp") or mn.startswith("ldaxp"):
        out.append(reg(i.args[1]))
    if mn.startswith("cas"):
        out = [reg(i.args[0])]
    return [r for r in out if r]


# Address tracking (access.py's accesses()): ADRP, ADD and ADR of a symbol,
# a register copy, CSEL between two addresses held, and ADD's offset.
COPIES = ("mov",)


def forms_addr(i, loc):
    return i.mnem in ("adrp", "add", "adr") and loc


def select_srcs(i):
    return [reg(a) for a in i.args[1:3]] if i.mnem == "csel" else None


def address_offset(i, held):
    """ADD xD, xS, #imm."""
    if i.mnem == "add" and len(i.args) == 3 and i.args[2].startswith("#"):
        return reg(i.args[1]), int(i.args[2][1:], 0)
    return None, 0


# What taint() follows from a loaded value: instructions that read the
# flags, and those that only write their destination.
FLAG_READERS = r"cs\w+|cset\w*|cinc|cinv|cneg|ccm[pn]|adc\w*|sbc\w*"
MOVES = r"mov\w*|ld\w+|adrp?"
# The register a store-exclusive's status goes to: None, its first operand.
STATUS_REG = None
# AT&T syntax: the destination is the last operand.
DEST_LAST = False
# Where the condition code decides the paths: s390x.py.
cc_path = None


# The ordering check follows what the paths decided (ordering.py): arm64
# with the instructions that set the flags, the conditions a b.cond reads
# (each with its inverse), and the constants a MOV puts in a register, so
# that clang's "mov w8, #1; cbnz w8, <dmb>" and a b.ne repeated after an
# LL/SC loop are not read as ways around a barrier.
FLAG_SETTERS = re.compile(r"cmp|cmn|tst|ccmp|ccmn|(?:add|sub|and|bic|neg|adc|sbc|ngc)s")
INVERSE = dict(zip("eq ne cs cc hs lo mi pl vs vc hi ls ge lt gt le".split(),
                   "ne eq cc cs lo hs pl mi vc vs ls hi lt ge le gt".split()))
VALUES = False
FULL_PAIR = None
# The condition register's fields, which the compares set: ppc64le.py.
cr_step = None


# The litmus translation: a compiled thread in herd7's AArch64 syntax, for
# katomic/litmus_arch.py, which runs it under aarch64.cat.
# arm64: what changes nothing the model sees.
A64_DROP = re.compile(r"nop|prfm|bti|paciasp|autiasp|pacibsp|autibsp|hint|clrex")
A64_ARGS = [f"x{n}" for n in range(8)]
# What herd7's AArch64 reads, of what compilers emit here.
A64_KNOWN = re.compile(
    r"ld(a|x|ax)?r[bh]?|ldrs[bhw]|ldapr[bh]?|ld(a?x)?p|st(l|x|lx)?r[bh]?|stl?xp|stp|"
    r"casp?a?l?[bh]?|swpa?l?[bh]?|ld(add|clr|eor|set)a?l?[bh]?|st(add|clr|eor|set)l?[bh]?|"
    r"mov[zkn]?|mvn|adds?|subs?|negs?|ands?|orr|orn|eor|eon|bics?|lsl|lsr|asr|ror|"
    r"[us]xt[bhw]|cmp|cmn|tst|cs(el|inc|inv|neg|et|etm)|cinc|[us]bfm|"
    r"b(\.\w+)?|cbn?z|tbn?z|ret|dmb|dsb|isb")


def a64_operand(op, labels, bits=64):
    op = op.strip()
    m = re.fullmatch(r"#(-?0x[0-9a-f]+|-?\d+)", op)
    if m:
        return f"#{signed(int(m.group(1), 0), bits)}"
    m = re.fullmatch(r"\[(\w+)(?:, #(-?0x[0-9a-f]+|-?\d+))?\]", op)
    if m:
        if m.group(1) == "sp":
            raise Unknown(f"a stack access ({op})")
        off = int(m.group(2), 0) if m.group(2) else 0
        return f"[{m.group(1).upper()}{f',#{off}' if off else ''}]"
    if re.fullmatch(r"[wx](\d+|zr)", op):
        return op.upper()
    if re.fullmatch(r"eq|ne|lt|le|gt|ge|hi|ls|cs|cc|hs|lo|mi|pl|vs|vc", op):
        return op.upper()
    m = re.fullmatch(r"(lsl|lsr|asr) #(\d+)", op)
    if m:
        return f"{m.group(1).upper()} #{m.group(2)}"
    raise Unknown(f"operand '{op}'")


def a64_insn(i, labels):
    """One instruction in herd7's AArch64 syntax, None to drop it."""
    if A64_DROP.fullmatch(i.mnem):
        return None
    if i.mnem == "ret":
        return "B Lret"
    if not A64_KNOWN.fullmatch(i.mnem):
        raise Unknown(f"{i.mnem}, which the translator does not know ({i.text})")
    if i.extern:
        raise Unknown(f"a call or jump out of the thread ({i.text})")
    if i.target is not None:
        ops = [a64_operand(o, labels) for o in i.args[:-1]]
        return f"{i.mnem.upper()} {','.join(ops + [labels[i.target]])}"
    if i.mnem in ("dmb", "dsb"):
        return f"{i.mnem.upper()} {i.args[0].upper()}"
    if i.mnem == "cmn":         # herd7 has ADDS, not its alias CMN
        zr = "WZR" if i.args[0].startswith("w") else "XZR"
        return f"ADDS {zr},{','.join(a64_operand(o, labels) for o in i.args)}"
    bits = 32 if i.args and i.args[0].startswith("w") else 64
    return f"{i.mnem.upper()} {','.join(a64_operand(o, labels, bits) for o in i.args)}".strip()


def a64_thread(insns):
    return thread(insns, a64_insn, "B {}", {"b", "ret"}, "NOP")


# The self-test's weakening of P0: every barrier and ordering taken out.
WEAKEN = [(r"^DMB \w+", "NOP"), (r"^(LD(ADD|CLR|EOR|SET)|CAS|SWP)(AL|A|L)(?=[BH]? )", r"\1"),
          (r"^(ST(ADD|CLR|EOR|SET))L(?=[BH]? )", r"\1"), (r"^LDA(X?R)", r"LD\1"),
          (r"^STL(X?R)", r"ST\1")]
HERD = {"herd": "AArch64", "model": "aarch64.cat", "args": A64_ARGS,
        "reg": lambda r: r.upper(), "thread": a64_thread, "weaken": WEAKEN}
