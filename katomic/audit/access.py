# SPDX-License-Identifier: GPL-2.0
"""Each instruction's memory access and the registers it writes."""

import re

from .disasm import TRAPS, matches
from .rules import ARCH

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


S390_WIDTH = {1: "llc llgc lb lgb stc stcy ic icy mvi cli cliy tm llcrl",
              2: "lh lhy llh llgh lgh sth sthy ch chy mvhhi lhrl llhrl llghrl lghrl sthrl chrl",
              8: "lg stg ltg cg clg csg csy mvghi lgrl stgrl laag lang laog laxg laalg agsi "
                 "algsi cgrl clgrl ag sg ng og xg alg slg cghsi clghsi cds cdsy",
              16: "cdsg lpq stpq"}
S390_WIDTH = {m: w for w, ms in S390_WIDTH.items() for m in ms.split()}


def width(arch, i, memarg):
    if arch == "s390x":
        return S390_WIDTH.get(i.mnem, 4)
    if arch == "ppc64le":       # lwz, stdu, lhbrx, lwarx, stwcx.
        m = re.match(r"(?:l|st)([bhwdq])", i.mnem)
        return {"b": 1, "h": 2, "w": 4, "d": 8, "q": 16}[m.group(1)] if m else 0
    if arch == "riscv64":       # lw, sd, lbu; amoadd.w.aqrl, lr.d, sc.w
        m = re.fullmatch(r"[ls]([bhwd])u?|\w+\.([bhwdq])(?:\.\w+)?", i.mnem)
        return {"b": 1, "h": 2, "w": 4, "d": 8, "q": 16}[m.group(1) or m.group(2)] if m else 0
    if arch == "arm64":
        m = re.search(r"(?:x|r|[a-z])(sb|sh|sw|b|h)$", i.mnem.split()[0])
        if m and not i.mnem.startswith(("ldp", "stp", "ldxp", "stxp", "ldaxp", "stlxp")):
            return {"sb": 1, "b": 1, "sh": 2, "h": 2, "sw": 4}[m.group(1)]
        data = i.args[1] if matches(ARCH[arch]["sx"], i) else i.args[0]
        n = {"w": 4, "x": 8, "q": 16, "b": 1, "h": 2, "s": 4, "d": 8}.get(data[:1], 8)
        return 2 * n if re.match(r"(ld|st)[a-z]*p$", i.mnem) or "casp" in i.mnem else n
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


class Access:
    """A memory access of one instruction: kind is load, store, rmw (an
    atomic read-modify-write), lx or sx (exclusive load or store)."""

    def __init__(self, kind, width, loc, stack, may=()):
        self.kind, self.width, self.loc, self.stack = kind, width, loc, stack
        self.may = may      # the locations a selected address may be

    def __repr__(self):
        return f"{self.kind}{self.width}@{self.loc}"


def accesses(arch, insns):
    """Annotate each Insn with .acc (an Access or None) and .dest (the
    registers it writes); locations of globals are (symbol, offset), from
    relocations and the registers address-forming instructions load."""
    # held: register -> (symbol, offset) of the address it holds, or a
    # tuple of those when the compiler selected one of them (clang turns
    # "if (a) c = 1; else d = 1;" into a store through a CSEL or LOCG).
    # got: registers holding a GOT slot's address (s390 LARL of @GOTENT,
    # riscv AUIPC of GOT_HI20).
    # joins: per address a forward branch reaches, what was held at each
    # branch to it: a join holds what all its ways in agree on, or a
    # selection (clang selects between two addresses by branching on riscv).
    A, held, got, joins = ARCH[arch], {}, {}, {}
    for n, i in enumerate(insns):
        if i.addr in joins:
            held = merge(joins.pop(i.addr) + ([held] if n and falls_through(A, insns[n - 1])
                                              else []))
        if i.target is not None and i.target > i.addr:
            joins.setdefault(i.target, []).append(dict(held))
        i.acc, i.dest = None, dests(arch, i)
        memarg = next((a for a in i.args if is_mem(arch, a, i)), None)
        slot = got.get(mem_base(arch, memarg)) if memarg and (
            arch == "s390x" and re.fullmatch(r"lg|locg\w*", i.mnem) or
            arch == "riscv64" and i.mnem == "ld") and re.fullmatch(r"0\(%?\w+\)", memarg) \
            else None
        for d in i.dest:
            got.pop(d, None)
        nxt = insns[n + 1].addr if n + 1 < len(insns) else i.addr + 4
        # riscv's %pcrel_lo relocations name the AUIPC's label, not the
        # symbol: the register holds that since the AUIPC.
        rel = next(((s, a, off) for off, t, s, a in i.relocs
                    if not re.search(r"PLT|CALL|JUMP|PCREL_LO12|RELAX|BRANCH|_JAL$", t)), None)
        loc = None
        if rel:
            s, a, off = rel
            # PC-relative fields: x86 counts from the next instruction, s390
            # from this one; arm64's and absolute addends are the offset.
            if arch == "x86_64" and re.search(r"PC32$", i.relocs[0][1]):
                a += nxt - off
            elif arch == "s390x" and re.search(r"DBL|GOTENT", i.relocs[0][1]):
                a += i.addr - off
            loc = (s, a)
        # powerpc's LD of a TOC entry names the entry itself: whatever way
        # its ADDIS came (GCC hoists that above a branch).
        if arch == "ppc64le" and i.mnem == "ld" and i.relocs and "GOT" in i.relocs[0][1]:
            slot = loc
        forms_addr = (arch == "s390x" and i.mnem == "larl") or \
            (arch == "arm64" and i.mnem in ("adrp", "add", "adr") and loc) or \
            (arch == "riscv64" and i.mnem in ("auipc", "lui") and loc) or \
            (arch == "ppc64le" and i.mnem in ("addis", "addi") and loc) or \
            (arch == "x86_64" and loc and (i.mnem.startswith("lea") or
                                           i.args[0].startswith("$")))
        # s390 modules are -fPIC: LGRL loads a global's address from the GOT.
        forms_addr = forms_addr or (arch == "s390x" and i.mnem == "lgrl" and
                                    i.relocs and "GOT" in i.relocs[0][1])
        if forms_addr and i.dest:
            if i.mnem in ("larl", "auipc", "addis") and i.relocs and "GOT" in i.relocs[0][1]:
                got[i.dest[0]] = loc
                held.pop(i.dest[0], None)
            else:
                held[i.dest[0]] = loc
            continue
        # Selects: a load of a GOT slot gives the symbol's address, a
        # conditional one (s390 LOCG) that or the register's old address,
        # and so do CSEL and CMOV of two held addresses.
        if slot and i.dest:
            if not i.mnem.startswith("loc"):
                held[i.dest[0]] = slot
            elif i.dest[0] in held:
                held[i.dest[0]] = choices(held[i.dest[0]], slot)
            else:
                held.pop(i.dest[0], None)       # the old value is unknown
            continue
        srcs = [reg(a) for a in (i.args[1:3] if arch in ("arm64", "ppc64le") else i.args[:1])]
        if i.dest and (arch == "arm64" and i.mnem == "csel" or
                       arch == "ppc64le" and i.mnem.startswith("isel") or
                       arch == "x86_64" and i.mnem.startswith("cmov")) and \
                all(r in held for r in srcs + (i.dest if arch == "x86_64" else [])):
            held[i.dest[0]] = choices(*(held[r] for r in srcs + (
                i.dest if arch == "x86_64" else [])))
            continue
        # A copy of a held address.
        copy = {"arm64": ("mov",), "s390x": ("lgr", "lr"), "x86_64": ("mov", "movq"),
                "riscv64": ("mv",), "ppc64le": ("mr",)}[arch]
        if i.mnem in copy and len(i.args) == 2 and i.dest and \
                all(a.lstrip("%").rstrip() and reg(a) for a in i.args):
            src = reg(i.args[1] if arch != "x86_64" else i.args[0])
            if src in held:
                held[i.dest[0]] = held[src]
                continue
        # An offset added to a held address: arm64 ADD xD, xS, #imm, s390
        # LA rD, imm(rS) (the statics behind a section anchor), riscv
        # (objdump: add) and powerpc ADDI and, an index at an unknown
        # offset, ADD.
        src, imm = None, 0
        if arch == "arm64" and i.mnem == "add" and len(i.args) == 3 and \
                i.args[2].startswith("#"):
            src, imm = reg(i.args[1]), int(i.args[2][1:], 0)
        elif arch == "s390x" and i.mnem in ("la", "lay"):
            src, imm = mem_base(arch, i.args[1]), disp(arch, i.args[1])
        elif arch in ("riscv64", "ppc64le") and i.mnem in ("add", "addi") and len(i.args) == 3:
            if re.fullmatch(r"-?(?:0x[0-9a-f]+|\d+)", i.args[2]):
                src, imm = reg(i.args[1]), int(i.args[2], 0)
            else:
                src, imm = next((r for r in map(reg, i.args[1:]) if r in held), None), None
        if src in held and i.dest:
            held[i.dest[0]] = tuple((s_, None if o is None or imm is None else o + imm)
                                    for s_, o in choices(held[src]))
            continue
        if memarg is not None and not matches(A["noaccess"], i):
            base, may = mem_base(arch, memarg), ()
            if loc is None and base in held:
                d = disp(arch, memarg)
                at_ = [(s_, None if d is None or o is None else o + d)
                       for s_, o in choices(held[base])]
                loc, may = (at_[0], ()) if len(at_) == 1 else (None, tuple(at_))
            i.acc = Access(access_kind(arch, i, memarg), width(arch, i, memarg), loc,
                           base in A["stack"] and loc is None and not may, may)
        for d in i.dest:
            held.pop(d, None)
    return insns


def falls_through(A, i):
    """Whether the instruction after i may run next."""
    return not (matches(A["jump"], i) or matches(A["ret"], i) or TRAPS.fullmatch(i.mnem)
                or (i.extern and not matches(A["call"], i)))


def merge(states):
    """What each of the states held agrees on, or may be."""
    out = {}
    for r in set(states[0]).intersection(*states[1:]):
        out[r] = states[0][r] if all(s[r] == states[0][r] for s in states) else \
            choices(*(s[r] for s in states))
    return out


def choices(*held):
    """The (symbol, offset) pairs of held addresses, each one or a tuple."""
    out = []
    for h in held:
        out += [x for x in (h if isinstance(h[0], tuple) else (h,)) if x not in out]
    return tuple(out)


def is_mem(arch, a, i):
    if arch == "arm64":
        return a.startswith("[")
    if arch == "ppc64le":       # off(rA); parse()'s 0(rB) and (rA,rB)
        return bool(re.fullmatch(r"-?\d+\(r\d+\)|\(r\d+,r\d+\)", a))
    if arch == "riscv64":       # off(reg), (reg); not JALR's target
        return bool(re.fullmatch(r"-?\d*\(\w+\)", a)) and not matches(ARCH[arch]["branch"], i)
    if arch == "s390x":
        return bool(re.fullmatch(r"-?\d+\(((%r)?\d+,)?%r\d+\)", a)) or \
            (i.mnem.endswith("rl") and i.mnem not in ("larl", "exrl", "pfdrl") and
             a is i.args[-1] and bool(i.relocs))
    if i.target is not None or i.extern or matches(ARCH[arch]["call"], i) or \
            matches(ARCH[arch]["jump"], i) or i.mnem.startswith("j"):
        return False
    return not a.startswith(("$", "%")) and bool(a)


def mem_base(arch, a):
    if arch == "arm64":
        return reg(a.strip("[]!").split(",")[0])
    m = re.search(r"\(([^)]*)\)", a)
    if not m:
        return None
    parts = [p for p in m.group(1).split(",")]
    return reg(parts[-1] if arch == "s390x" else parts[0]) if parts[0] or arch == "s390x" else None


def disp(arch, a):
    """The displacement of a memory operand; None when an index register
    makes it unknown."""
    if arch == "arm64":
        parts = a.strip("[]!").split(",")
        if len(parts) > 1 and not parts[1].strip().startswith("#"):
            return None
        m = re.search(r"#(-?(?:0x)?[0-9a-f]+)\]", a)
    else:
        if arch == "x86_64" and re.search(r"\(%?\w*,%\w+", a) or \
                arch == "ppc64le" and "," in a:
            return None
        m = re.match(r"(-?(?:0x)?[0-9a-f]+)\(", a)
    return int(m.group(1), 0) if m else 0


def access_kind(arch, i, memarg):
    A = ARCH[arch]
    if matches(A["rmw"], i):
        return "rmw"
    if matches(A["local"], i):
        return "local"
    if matches(A["lx"], i):
        return "lx"
    if matches(A["sx"], i):
        return "sx"
    if arch == "s390x" and re.fullmatch(r"[nox](?:i|iy|c)", i.mnem):
        return "update"         # AND/OR/XOR to storage: read and written
    if arch == "x86_64":
        mn = i.mnem
        if mn.startswith(("cmp", "test", "push")) or memarg is not i.args[-1]:
            return "load"
        return "store" if mn.startswith("mov") else "update"
    return "store" if matches(A["store"], i) else "load"


def dests(arch, i):
    """The registers i writes (a best effort: the first operand, or the
    last on x86, unless the instruction only reads its operands)."""
    if not i.args:
        return []
    mn = i.mnem.split()[-1]
    if arch == "x86_64":
        if mn.startswith(("cmp", "test", "push", "j", "call", "ret")):
            return []
        out = [reg(i.args[-1])] if i.args[-1].startswith("%") else []
        if mn.startswith(("xchg", "xadd", "cmpxchg")):
            out += [reg(a) for a in i.args if a.startswith("%")] + ["a"]
        return [r for r in out if r]
    if arch == "ppc64le":       # the first operand, but of a store, compare or branch;
        # CR0 of a compare without a field, a dot form and stcx.
        cr0 = ["cr0"] if mn.endswith(".") or mn.startswith("cmp") and \
            not i.args[0].startswith("cr") else []
        if re.match(r"st|cmp|b|tw|td|dcb|icbi|mt", mn):
            return cr0
        return [r for r in [reg(i.args[0])] if r] + cr0
    if arch == "riscv64":       # the first operand, but of a store, branch or FENCE
        if re.fullmatch(r"s[bhwd]|b\w+|jr?|ret|fence\S*|prefetch\.\w|cbo\.\w+", mn):
            return []
        return [r for r in [reg(i.args[0])] if r]
    if arch == "s390x":
        if re.match(r"(st|mv|c|tm|j|b|br|bn|pfd|n[iy]|o[iy]|x[iy]$)", mn) and \
                not mn.startswith(("cs", "cds")):
            return []
        return [r for r in [reg(i.args[0])] if r]
    if re.match(r"(cmp|cmn|tst|b|cb|tb|prfm|ret)", mn) or \
            (mn.startswith("st") and not matches(ARCH[arch]["sx"], i)
             and not matches(ARCH[arch]["rmw"], i)):
        return []
    out = [reg(i.args[0])]
    if mn.startswith("ldp") or mn.startswith("ldxp") or mn.startswith("ldaxp"):
        out.append(reg(i.args[1]))
    if mn.startswith("cas"):
        out = [reg(i.args[0])]
    return [r for r in out if r]
