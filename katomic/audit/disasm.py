# SPDX-License-Identifier: GPL-2.0
"""objdump's code as instructions, with arm64's alternatives applied."""

import re
import subprocess
import tempfile
from pathlib import Path


class Insn:
    def __init__(self, addr, mnem, ops):
        self.addr, self.mnem, self.ops = addr, mnem, ops
        self.args = split_args(ops)
        self.text = f"{mnem} {ops}".strip()
        self.relocs = []          # (offset of the field, type, symbol, addend)
        self.target = None        # branch target inside the function
        self.extern = None        # symbol outside it (call or tail jump)
        self.jump = None          # the address a branch names

    def __repr__(self):
        return f"{self.addr:x}: {self.text}"


def split_args(ops):
    """Operands, split at the commas outside parentheses and brackets."""
    out, depth, cur = [], 0, ""
    for ch in ops:
        depth += (ch in "([{") - (ch in ")]}")
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    return out + [cur.strip()] if cur.strip() else out


LINE = re.compile(r"^\s*([0-9a-f]+):\t(\S+)\s*(.*)$")
RELOC = re.compile(r"^\s*([0-9a-f]+): (R_\w+)\s+(\S+?)(?:([+-]0x[0-9a-f]+))?$")
HEAD = re.compile(r"^[0-9a-f]+ <(.+)>:$")
TARGET = re.compile(r"\b([0-9a-f]+) <([^>+]+)(?:\+0x[0-9a-f]+)?>")
PPC_INDEXED = re.compile(r"(?:l|st)\w*x|st[bhwdq]cx\.")


def parse(text):
    """{function: [Insn]} from objdump -dr --no-show-raw-insn."""
    funcs, name, last = {}, None, None
    for line in text.splitlines():
        line = line.rstrip()
        m = HEAD.match(line)
        # riscv keeps local labels (.L2, .L1^B1) in the symbol table for the
        # linker's relaxation: they are places in the function.
        if m and name and m.group(1).startswith(".L"):
            continue
        if m:
            name, last = m.group(1), None
            funcs[name] = []
            continue
        m = RELOC.match(line)
        if m and last is not None:
            add = int(m.group(4), 16) if m.group(4) else 0
            last.relocs.append((int(m.group(1), 16), m.group(2), m.group(3), add))
            continue
        m = LINE.match(line)
        if m and name:
            mnem, ops = m.group(2), m.group(3)
            if mnem == "lock":      # x86: the prefix is part of the mnemonic
                mnem, _, ops = ("lock " + ops).partition(" ")[2].partition(" ")
                mnem = "lock " + mnem
            # x86 prefixes that change nothing here (clang: "cs jmp" to the
            # return thunk, as a padding byte).
            while mnem in ("cs", "ds", "notrack", "bnd") and re.match(r"[a-z]+\b(?!,)", ops):
                mnem, _, ops = ops.partition(" ")
            # objdump's comments: x86 "# addr <sym>", arm64 "// ..."
            ops = re.sub(r"\s+(# |//).*$", "", ops).strip()
            if mnem == "fence" and not ops:         # riscv's FENCE IORW,IORW
                ops = "iorw,iorw"
            last = Insn(int(m.group(1), 16), mnem, ops)
            # powerpc's indexed forms (lwarx r9,0,r3; lwzx r9,r3,r4): the
            # address as one operand, 0(RB) when RA is 0, else (RA,RB).
            x = last.args
            if PPC_INDEXED.fullmatch(mnem) and len(x) >= 3 and \
                    re.fullmatch(r"0|r\d+", x[1]) and re.fullmatch(r"r\d+", x[2]):
                last.args = [x[0], f"0({x[2]})" if x[1] == "0" else f"({x[1]},{x[2]})"] + x[3:]
            funcs[name].append(last)
    for name, insns in funcs.items():
        for n, i in enumerate(insns):
            t = TARGET.search(i.ops)
            i.jump = int(t.group(1), 16) if t else None
            if t and (t.group(2) == name or t.group(2).startswith(".L")):
                i.target = int(t.group(1), 16)
            elif t:
                i.extern = t.group(2)
            if i.relocs and re.match(r"R_\w+_(PLT32|PC32DBL|PLT32DBL|CALL26|JUMP26|PC32|REL24)$",
                                     i.relocs[0][1]) and (t or i.mnem in ("call", "jmp")):
                i.extern, i.target = i.relocs[0][2], None
            # riscv in an object: a JAL or branch shows its own address, its
            # relocation the symbol; a call or tail call is AUIPC, whose
            # relocation names the callee, then JALR or JR.
            kind, sym = i.relocs[0][1:3] if i.relocs else ("", "")
            if t and re.fullmatch(r"R_RISCV_(JAL|RVC_JUMP|BRANCH|RVC_BRANCH)", kind) and \
                    sym != name and not sym.startswith(".L"):
                i.extern, i.target = sym, None
            if i.mnem == "auipc" and re.fullmatch(r"R_RISCV_CALL(_PLT)?", kind) and \
                    n + 1 < len(insns) and insns[n + 1].mnem in ("jalr", "jr"):
                insns[n + 1].extern = sym
    return {n: i for n, i in funcs.items() if i}


def matches(rx, i):
    return bool(rx) and bool(rx.fullmatch(i.mnem) or rx.fullmatch(i.text))


def run(*cmd):
    return subprocess.run(cmd, capture_output=True, text=True, check=True).stdout


def disassemble(prefix, obj):
    """({function: [Insn]}, {address: Insn} of all of .text): each function
    cut at its symbol's size, so that what follows it (padding, arm64's
    alternative replacements in .text's subsection 1) is not its code."""
    text = parse(run(prefix + "objdump", "-dr", "--no-show-raw-insn", "-j", ".text", obj))
    size = {}
    for line in run(prefix + "nm", "-S", obj).splitlines():
        f = line.split()
        if len(f) == 4:
            size[f[3]] = (int(f[0], 16), int(f[1], 16))
    every = {i.addr: i for insns in text.values() for i in insns}
    # ppc64 -mcmodel=large (modules) loads a global's address from its .toc
    # entry (addis rX,r2 and ld rX,0(rX) against .toc+N): name the entry by
    # the symbol it holds, a GOT slot (R_PPC64_GOT16_*, as -fPIC has it).
    toc = {}
    if re.search(r"\s\.toc\s", run(prefix + "objdump", "-h", obj)):
        for line in run(prefix + "objdump", "-r", "-j", ".toc", obj).splitlines():
            f = line.split()
            if len(f) == 3 and re.fullmatch(r"[0-9a-f]+", f[0]):
                sym, _, add = f[2].partition("+")
                toc[int(f[0], 16)] = (sym, int(add or "0", 16))
    for i in every.values():
        i.relocs = [(o, t.replace("TOC16", "GOT16"), *toc[a]) if s == ".toc" and a in toc
                    else (o, t, s, a) for o, t, s, a in i.relocs]
    funcs = {}
    for name, insns in text.items():
        start, n = size.get(name, (insns[0].addr, 1 << 30))
        funcs[name] = [i for i in insns if start <= i.addr < start + n]
    return funcs, every


def alternatives(prefix, obj, every):
    """arm64's .altinstructions: [(site, length, replacement [Insn] or None)],
    None for a callback other than alt_cb_patch_nops (not applied); the
    replacements are in .text (every: its instructions by address)."""
    sections = run(prefix + "objdump", "-h", obj)
    if ".altinstructions" not in sections:
        return []
    with tempfile.NamedTemporaryFile() as raw:
        run(prefix + "objcopy", "-O", "binary", "--only-section=.altinstructions",
            obj, raw.name)
        data = Path(raw.name).read_bytes()
    relocs = {}
    for line in run(prefix + "objdump", "-r", "-j", ".altinstructions", obj).splitlines():
        f = line.split()
        if len(f) == 3 and re.fullmatch(r"[0-9a-f]+", f[0]):
            sym, _, add = f[2].partition("+")
            relocs[int(f[0], 16)] = (sym, int(add or "0", 16))
    out = []
    for entry in range(0, len(data) - 11, 12):
        site, alt = relocs.get(entry), relocs.get(entry + 4)
        orig_len, alt_len = data[entry + 10], data[entry + 11]
        if not site or site[0] != ".text" or not alt:
            continue
        if alt[0] == ".text":
            new = [every[a] for a in range(alt[1], alt[1] + alt_len, 4) if a in every]
        elif alt[0] == "alt_cb_patch_nops":
            new = [Insn(0, "nop", "") for _ in range(orig_len // 4)]
        else:
            new = None
        out.append((site[1], orig_len, new))
    return out


def patched(insns, alts):
    """insns with every alternative in its range applied (arm64: 4-byte
    instructions), or None when none is there; unapplied ones are noted."""
    lo, hi = insns[0].addr, insns[-1].addr
    mine = [a for a in alts if lo <= a[0] <= hi]
    if not mine:
        return None, []
    out, notes = list(insns), []
    for site, length, new in mine:
        if new is None:
            notes.append(f"alternative at {site:x} has a callback: not applied")
            continue
        for k, i in enumerate(out):
            if i.addr == site:
                moved = []
                for n, r in enumerate(new):
                    c = Insn(site + 4 * n, r.mnem, r.ops)
                    c.relocs, c.jump = r.relocs, r.jump
                    c.target = r.jump if r.jump is not None and lo <= r.jump <= hi else None
                    c.extern = r.extern if c.target is None else None
                    moved.append(c)
                out[k:k + length // 4] = moved
                break
    return out, notes


# The node after a return, in a function's control-flow graph.
EXIT = -1
RETURN_THUNKS = re.compile(r"__x86_return_thunk|__s390_indirect_jump_r14")
TRAPS = re.compile(r"ud2|int3|brk|udf|hlt|mc|trap")


def symbolise(prefix, obj, funcs):
    """Name the statics that relocations reach through their section."""
    syms = []
    for line in run(prefix + "objdump", "-t", obj).splitlines():
        f = line.split()
        if len(f) >= 6 and f[2] == "O" and f[3].startswith("."):
            syms.append((f[3], int(f[0], 16), int(f[4], 16), f[5]))

    def name(loc):
        sec, off = loc
        for s, start, size, sym in syms:
            if s == sec and off is not None and start <= off < start + max(size, 1):
                return (sym, off - start)
        return loc

    for insns in funcs.values():
        for i in insns:
            if i.acc and i.acc.loc:
                i.acc.loc = name(i.acc.loc)
            if i.acc and i.acc.may:
                i.acc.may = tuple(name(x) for x in i.acc.may)


def reg(arg):
    """A register under one name (arm64 w0/x0: r0; x86 %eax/%rax: a; s390
    %r2: r2; riscv's ABI names, zero: zr, fp: s0), or None."""
    a = arg.strip().lstrip("%").rstrip("!")
    if re.fullmatch(r"a[0-7]|t[0-6]|s(?:1[01]|\d)|ra|gp|tp", a):
        return a
    if a in ("zero", "fp"):
        return {"zero": "zr", "fp": "s0"}[a]
    if re.fullmatch(r"[wx]\d+", a):
        return "r" + a[1:]
    if re.fullmatch(r"r\d+[dwb]?", a):
        return a.rstrip("dwb")
    if a in ("sp", "wsp", "xzr", "wzr"):
        return a.lstrip("wx") if a.endswith("sp") else "zr"
    m = re.fullmatch(r"[re]?([abcd])x|([abcd])[lh]|[re]?(si|di|bp|sp|ip)l?", a)
    return next(g for g in m.groups() if g) if m else None


def base_reg(a, last=False):
    """The base register of a memory operand "disp(base)" or "(base,index)",
    or with last of s390's "disp(index,base)"."""
    m = re.search(r"\(([^)]*)\)", a)
    if not m:
        return None
    parts = m.group(1).split(",")
    return reg(parts[-1]) if last else reg(parts[0]) if parts[0] else None


def displacement(a):
    """The displacement of a memory operand "disp(...)", 0 without one."""
    m = re.match(r"(-?(?:0x)?[0-9a-f]+)\(", a)
    return int(m.group(1), 0) if m else 0


def add_offset(i, held):
    """(source, offset) of riscv's and powerpc's ADD or ADDI rD, rS, X: an
    immediate X, or an index at an unknown offset (None) from whichever
    source holds an address."""
    if i.mnem in ("add", "addi") and len(i.args) == 3:
        if re.fullmatch(r"-?(?:0x[0-9a-f]+|\d+)", i.args[2]):
            return reg(i.args[1]), int(i.args[2], 0)
        return next((r for r in map(reg, i.args[1:]) if r in held), None), None
    return None, 0
