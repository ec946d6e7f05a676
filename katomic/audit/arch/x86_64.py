# SPDX-License-Identifier: GPL-2.0
"""x86_64: its rules, and how its instructions (AT&T syntax) access memory."""

import re

from ..herd import Unknown, signed, thread
from .defaults import address_offset, got_load, toc_slot  # noqa: F401
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


def reloc_addend(i, a, off, nxt):
    """PC-relative fields count from the next instruction."""
    return a + nxt - off if re.search(r"PC32$", i.relocs[0][1]) else a


def forms_addr(i, loc):
    return loc and (i.mnem.startswith("lea") or i.args[0].startswith("$"))


def select_srcs(i):
    """CMOV: its source, and the destination it may keep."""
    return [reg(a) for a in i.args[:1]] + i.dest if i.mnem.startswith("cmov") else None


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


# The litmus translation: a compiled thread in herd7's X86_64 syntax, for
# katomic/litmus_arch.py, which runs it under x86tso-mixed.cat.
# x86_64: herd7's X86_64 reads AT&T syntax, as objdump writes it, with
# few instructions (no xadd, sub, test, setcc, movz, lea; no locked and or
# or) and flags of its own: a flag-setting instruction compares its result
# with 0 (cmp: its destination with its source), ZF is "equal" and SF is
# "greater" (herd/X86_64Sem.ml). What herd7 lacks is written with what it
# has; the registers it takes for that, which the compiled threads do not
# use, are SCRATCH. A locked read-modify-write herd7 does not have is a
# plain read, then a locked cmpxchg of the new value that loops back on
# failure: herd7 cuts every loop (-unroll 0), so what remains is the
# cmpxchg that succeeds, reading what the plain read read, a locked
# read-modify-write as the original is (x86tso-mixed.cat: X events).
X86_ARGS = ["rdi", "rsi", "rdx", "rcx", "r8", "r9"]
X86_SCRATCH = ("r13", "r14", "r15")
X86_REGS = {"a": "rax", "b": "rbx", "c": "rcx", "d": "rdx", "si": "rsi", "di": "rdi",
            "bp": "rbp", "sp": "rsp"}
X86_SUFFIX = {8: "b", 16: "w", 32: "l", 64: "q"}
X86_WIDE = {"r": 64, "e": 32, "": 16}       # %rax, %eax, %ax
# Jump to {t} if the condition holds, by herd7's flags. l and s: neither
# equal nor greater (no overflow: the tests' values are small).
X86_JUMP_IF = {"e": ["je {t}"], "ne": ["jne {t}"], "g": ["jgt {t}"], "le": ["jle {t}"],
               "ge": ["jge {t}"], "ns": ["jge {t}"], "l": ["jge {n}", "jmp {t}", "{n}:"],
               "s": ["jge {n}", "jmp {t}", "{n}:"]}
X86_FLAGS_READ = re.compile(r"j(?!mp)\w+|set\w+|cmov\w+|adc\w*|sbb\w*")
X86_FLAGS_WRITE = re.compile(r"(lock )?(add|sub|and|or|xor|cmp|test|inc|dec|neg|xadd|"
                             r"cmpxchg|shl|shr|sar)[bwlq]?")


def x86_reg(r):
    """%eax -> (rax, 32): a register's 64-bit name and its width."""
    r = r.lstrip("%")
    m = re.fullmatch(r"(r\d+)([bwd]?)", r)
    if m:
        return m.group(1), {"b": 8, "w": 16, "d": 32, "": 64}[m.group(2)]
    m = re.fullmatch(r"([re]?)(a|b|c|d)([xlh])|([re]?)(si|di|bp|sp)(l?)", r)
    if not m:
        raise Unknown(f"register %{r}")
    if m.group(2):
        if m.group(3) == "h":
            raise Unknown(f"register %{r}")
        return X86_REGS[m.group(2)], 8 if m.group(3) == "l" else X86_WIDE[m.group(1)]
    return X86_REGS[m.group(5)], 8 if m.group(6) else X86_WIDE[m.group(4)]


def x86_part(r64, bits):
    """A register's name at a width: (rax, 32) -> %eax, (r14, 8) -> %r14b."""
    if re.fullmatch(r"r\d+", r64):
        return f"%{r64}{ {64: '', 32: 'd', 16: 'w', 8: 'b'}[bits]}"
    base = next(k for k, v in X86_REGS.items() if v == r64)
    if bits == 8:
        return f"%{base}l"
    return f"%{ {64: 'r', 32: 'e', 16: ''}[bits]}{base}{'x' if len(base) == 1 else ''}"


def x86_imm(a, bits):
    """objdump's immediate as the signed value of its width: herd7 compares
    values as signed 64-bit numbers."""
    return f"${signed(int(a[1:], 0) & ((1 << bits) - 1), bits)}"


def x86_flags(r64, bits):
    """herd7's flags of a BITS-wide value in R64, as a test of it sets them:
    a narrower value shifted to the top, so that its sign is the sign."""
    if bits == 64:
        return [f"cmpq $0,%{r64}"]
    return [f"movq %{r64},%r15", f"shl ${64 - bits},%r15"]


def x86_reach(insns, k, stop):
    """The instructions on the paths from the K-th's successor, each path
    ending at the first for which STOP is true (still yielded), a return or
    a jump out."""
    at = {i.addr: n for n, i in enumerate(insns)}
    seen, todo = set(), [k + 1]
    while todo:
        n = todo.pop()
        if n in seen or n >= len(insns):
            continue
        seen.add(n)
        i = insns[n]
        yield i
        if stop(i) or i.mnem in ("ret", "retq") or i.extern:
            continue
        if i.target is not None:
            todo.append(at[i.target])
        if i.mnem != "jmp":
            todo.append(n + 1)


def x86_flags_live(insns, k):
    """Whether a flag the K-th instruction's successors read may be one it
    leaves."""
    return any(X86_FLAGS_READ.fullmatch(i.mnem) for i in x86_reach(
        insns, k, lambda i: X86_FLAGS_READ.fullmatch(i.mnem) or X86_FLAGS_WRITE.fullmatch(i.mnem)))


def x86_rmw_loop(i, label, bits, compute):
    """A locked read-modify-write herd7 lacks (I, BITS wide) as the cmpxchg
    loop whose COMPUTE instructions make the new value in %r14 from the
    old in %rax; %rax kept in %r13."""
    mem = i.args[-1]
    if re.search(r"%(r13|r14|r15|[re]?ax)\b", mem):
        raise Unknown(f"an address in a register the translation needs ({i.text})")
    sfx = X86_SUFFIX[bits]
    return ["movq %rax,%r13", f"{label}:", f"mov{sfx} {mem},{x86_part('rax', bits)}",
            "movq %rax,%r14", *compute, f"lock cmpxchg{sfx} {mem},{x86_part('r14', bits)}",
            f"jne {label}"]


def x86_source(arg, bits, out):
    """A source operand at BITS, a register first copied to %r15 (the
    loop that follows reloads %rax); OUT gets the copy."""
    if arg.startswith("$"):
        return arg
    out.append(f"movq %{x86_reg(arg)[0]},%r15")
    return x86_part("r15", bits)


def x86_cmp(src, dst, bits):
    """cmp at BITS < 64 as a 64-bit cmp of both operands shifted to the
    top: herd7 compares registers zero-extended and results unwrapped."""
    out = []
    for arg, r in ((dst, "r14"), (src, "r15")):
        if arg.startswith("$"):
            out.append(f"movq {arg},%{r}")
        elif arg.startswith("%"):
            out.append(f"movq %{x86_reg(arg)[0]},%{r}")
        else:
            out.append(f"mov{X86_SUFFIX[bits]} {arg},{x86_part(r, bits)}")
        out.append(f"shl ${64 - bits},%{r}")
    return out + ["cmpq %r15,%r14"]


def x86_insn(i, labels, label, live):
    """One instruction in herd7's X86_64 syntax: a list, or None to drop
    it. LABEL: a label of this instruction's own; LIVE: whether a later
    instruction reads the flags it leaves."""
    out = x86_one(i, labels, label, live)
    # herd7 neither zero-extends nor cuts a value written to a 32-bit
    # register: a 32-bit move of it to itself does both.
    regs = [a for a in i.args if a.startswith("%")]
    if out and regs and i.mnem.split()[-1].rstrip("lq") in ("mov", "add", "sub", "and", "or",
                                                            "xor", "lea") \
            and x86_reg(regs[-1])[1] == 32 and regs[-1] == i.args[-1]:
        out.append(f"movl {regs[-1]},{regs[-1]}")
    return out


def x86_one(i, labels, label, live):
    m = i.mnem
    if m in ("endbr64", "int3", "data16") or m.startswith("nop") or m == "cs" or \
            (m == "xchg" and i.args[0] == i.args[1]):
        return None
    if m in ("ret", "retq") or (m == "jmp" and i.extern and "return_thunk" in i.extern):
        return ["jmp Lret"]
    if i.extern:
        raise Unknown(f"a call or jump out of the thread ({i.text})")
    # smp_mb(): a locked add of 0 to the stack, a full barrier as MFENCE is.
    if re.fullmatch(r"lock (add|or)[lq]?", m) and i.args[0] == "$0x0" and \
            i.args[-1].endswith("(%rsp)"):
        return ["mfence"]
    if any(a.endswith("(%rsp)") for a in i.args):
        raise Unknown(f"a stack access ({i.text})")
    if any(re.search(r"%(r13|r14|r15)\b", a) for a in i.args):
        raise Unknown(f"a register the translation needs ({i.text})")
    if i.target is not None:
        cc = m[1:]
        if m == "jmp":
            return [f"jmp {labels[i.target]}"]
        if cc not in X86_JUMP_IF:
            raise Unknown(f"{m}, a condition herd7's flags cannot tell ({i.text})")
        return [x.format(t=labels[i.target], n=label) for x in X86_JUMP_IF[cc]]
    return x86_op(i, label, live)


def x86_op(i, label, live):
    """An instruction but a branch: its operation, size and operands."""
    m = i.mnem
    args = list(i.args)
    regs = [x86_reg(a) for a in args if a.startswith("%")]
    mm = re.fullmatch(r"(lock )?(xadd|cmpxchg|xchg|add|sub|and|or|xor|inc|dec|mov|cmp|test)"
                      r"([bwlq]?)", m) or re.fullmatch(r"()(\w+)()", m)
    if not mm:
        raise Unknown(f"{m}, which the translator does not know ({i.text})")
    lock, op, sfx = mm.group(1) or "", mm.group(2), mm.group(3)
    bits = {"b": 8, "w": 16, "l": 32, "q": 64}.get(sfx) or (regs[-1][1] if regs else 64)
    args = [x86_imm(a, bits) if a.startswith("$") else a for a in args]
    if op == "sub" and args[0].startswith("$"):     # herd7 has no sub
        op, args[0] = "add", f"${-int(args[0][1:])}"
    if lock:
        return x86_locked(i, label, live, op, args, regs, bits)
    return x86_plain(i, label, live, op, args, regs, bits)


def x86_locked(i, label, live, op, args, regs, bits):
    """A locked operation, followed by its flags where they are read."""
    m, sfx = i.mnem, X86_SUFFIX[bits]
    flags = x86_flags("r14", bits) if live else []
    if op == "xadd":
        reg = x86_reg(args[0])[0]
        add = f"add{sfx} {x86_part('r15', bits)},{x86_part('r14', bits)}"
        return [f"movq %{reg},%r15", *x86_rmw_loop(i, label, bits, [add]),
                "movq %rax,%r15", "movq %r13,%rax",
                f"mov{sfx} {x86_part('r15', bits)},{args[0]}", *flags]
    # The locked ops herd7 lacks, and those whose flags it would get wrong
    # below 64 bits: the cmpxchg loop, then the flags of the new value.
    if op in ("and", "or") or op in ("add", "xor", "inc", "dec") and live and bits < 64:
        pre = []
        src = x86_source(args[0], bits, pre) if op not in ("inc", "dec") else \
            {"inc": "$1", "dec": "$-1"}[op]
        compute = f"and {src if src.startswith('$') else '%r15'},%r14" if op == "and" else \
            f"{'add' if op in ('inc', 'dec') else op}{sfx} {src},{x86_part('r14', bits)}"
        return [*pre, *x86_rmw_loop(i, label, bits, [compute]), "movq %r13,%rax", *flags]
    if op in ("add", "xor", "inc", "dec", "cmpxchg"):
        if op == "cmpxchg":
            return [f"lock cmpxchg{X86_SUFFIX[regs[0][1]]} {args[1]},{args[0]}"]
        return [f"lock {op}{sfx} {','.join(args)}"]
    raise Unknown(f"{m}, which the translator does not know ({i.text})")


def x86_plain(i, label, live, op, args, regs, bits):
    """An operation without LOCK."""
    m, sfx = i.mnem, X86_SUFFIX[bits]
    if op == "xadd":            # unlocked: a plain read, then a plain write
        if live:
            raise Unknown(f"the flags of an unlocked xadd ({i.text})")
        return [f"movq %{x86_reg(args[0])[0]},%r15", f"mov{sfx} {args[1]},{x86_part('r14', bits)}",
                f"add{sfx} {x86_part('r14', bits)},{x86_part('r15', bits)}",
                f"mov{sfx} {x86_part('r15', bits)},{args[1]}",
                f"mov{sfx} {x86_part('r14', bits)},{args[0]}"]
    if op == "cmpxchg":         # unlocked: neither atomic nor ordered
        return [f"cmpxchg{X86_SUFFIX[regs[0][1]]} {args[1]},{args[0]}"]
    if op == "xchg":            # a locked exchange when one side is memory
        return [f"xchg{sfx} {','.join(args)}"]
    if op == "xor" and len(regs) == 2 and args[0] == args[1] and bits >= 32:
        # Zeroing: herd7 cannot xor a register that holds an address.
        return [f"movq $0,%{regs[0][0]}"] + ([f"cmpq $0,%{regs[0][0]}"] if live else [])
    if op == "cmp":
        return [f"cmpq {','.join(args)}"] if bits == 64 else x86_cmp(*args, bits)
    # Flags below 64 bits from the register written, shifted to the top.
    narrow = x86_flags(regs[-1][0], bits) if live and bits < 64 and regs and \
        args[-1].startswith("%") and op != "mov" else []
    if op in ("mov", "add", "xor", "or"):
        return [f"{op}{sfx} {','.join(args)}", *narrow]
    if op == "and" and not i.mnem[-1:] in "bwlq" and \
            len(regs) == len(args) - args[0].startswith("$"):
        return [f"and {','.join(args)}", *narrow]
    if op == "test" and len(args) == 2 and args[0] == args[1] and regs:
        return x86_flags(*regs[0])
    if m.startswith("set") and m[3:] in X86_JUMP_IF and len(regs) == 1:
        # The whole register: herd7 cannot write a byte of one that holds
        # an address; x86_thread() checks that the rest is zero or unread.
        r = x86_part(regs[0][0], 32)
        return [f"movl $1,{r}", *[x.format(t=label, n=label + "n")
                                  for x in X86_JUMP_IF[m[3:]]], f"movl $0,{r}", f"{label}:"]
    mz = re.fullmatch(r"movz([bw])([lq])", m)
    if mz:
        w = {"b": 8, "w": 16}[mz.group(1)]
        return ["movq $0,%r14", f"mov{mz.group(1)} {args[0]},{x86_part('r14', w)}",
                f"mov{mz.group(2)} {x86_part('r14', regs[-1][1])},{args[1]}"]
    ml = re.fullmatch(r"(-?0x[0-9a-f]+|-?\d+)?\((%\w+)\)", args[0])
    if m == "lea" and ml and not live:
        dst, w = regs[-1]
        out = [f"mov{X86_SUFFIX[w]} {x86_part(x86_reg(ml.group(2))[0], w)},{args[1]}"]
        off = int(ml.group(1) or "0", 0)
        return out + ([f"add{X86_SUFFIX[w]} ${off},{args[1]}"] if off else [])
    if m == "lea":
        raise Unknown(f"a lea herd7 cannot compute without flags ({i.text})")
    raise Unknown(f"{m}, which the translator does not know ({i.text})")


def x86_byte_only(insns, k):
    """Whether what the K-th instruction (a setcc) leaves in its register
    is read only as that byte, zero-extended (movzb), before it is written
    again, on every path."""
    reg = x86_reg(insns[k].args[0])[0]

    def uses(i):
        return any(a.startswith("%") and x86_reg(a)[0] == reg or re.search(rf"\(%{reg}\b", a)
                   for a in i.args) or (reg == "rax" and "cmpxchg" in i.mnem)
    return all(i.mnem.startswith("movzb") and i.args[0] == insns[k].args[0]
               for i in x86_reach(insns, k, uses) if uses(i))


def x86_zeroed(insns, k):
    """Whether the K-th instruction's register was zeroed (xor with
    itself) on the one path that leads to it."""
    reg = x86_reg(insns[k].args[0])[0]
    targets = {i.target for i in insns if i.target is not None}
    for n in range(k - 1, -1, -1):
        if insns[n + 1].addr in targets:
            return False
        i = insns[n]
        if any(a.startswith("%") and x86_reg(a)[0] == reg for a in i.args) or \
                (reg == "rax" and "cmpxchg" in i.mnem):
            return i.mnem == "xor" and i.args[0] == i.args[1] and x86_reg(i.args[0])[1] >= 32
    return False


def x86_flags_from(insns, k):
    """The instruction that set the flags the K-th reads, on the one path
    that leads to it; None where paths join before one."""
    targets = {i.target for i in insns if i.target is not None}
    for n in range(k - 1, -1, -1):
        if insns[n + 1].addr in targets:
            return None
        if X86_FLAGS_WRITE.fullmatch(insns[n].mnem):
            return insns[n]
    return None


def x86_thread(insns):
    for k, i in enumerate(insns):
        cc = i.mnem[3:] if i.mnem.startswith("set") else i.mnem[1:] if \
            X86_FLAGS_READ.fullmatch(i.mnem) else None
        if cc and cc not in ("e", "ne"):
            w = x86_flags_from(insns, k)
            # herd7's cmpxchg sets ZF alone.
            if w is None or "cmpxchg" in w.mnem:
                raise Unknown(f"a {i.mnem} on flags herd7 may not have set ({i.text})")
        if i.mnem.startswith("set") and not (x86_zeroed(insns, k) or x86_byte_only(insns, k)):
            raise Unknown(f"a {i.mnem} whose register is read beyond its byte ({i.text})")
    live = {n for n in range(len(insns)) if x86_flags_live(insns, n)}
    at = {i.addr: n for n, i in enumerate(insns)}
    return thread(insns, lambda i, labels: x86_insn(i, labels, f"Lx{i.addr:x}", at[i.addr] in live),
                  "jmp {}", {"jmp", "ret", "retq"}, "nop")


# The self-test's weakening of P0: every barrier and ordering taken out.
WEAKEN = [(r"^lock ", ""), (r"^mfence$", "nop"),
          (r"^xchg[bwlq]? (%\w+),(\(%\w+\))$", r"mov \1,\2")]
HERD = {"herd": "X86_64", "model": "x86tso-mixed.cat", "args": X86_ARGS,
        "reg": lambda r: r, "thread": x86_thread, "weaken": WEAKEN}
