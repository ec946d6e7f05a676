# SPDX-License-Identifier: GPL-2.0
"""Each instruction's memory access and the registers it writes."""

import re

from .arch import MODULES
from .disasm import TRAPS, matches, reg
from .rules import ARCH

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
    A, M, held, got, joins = ARCH[arch], MODULES[arch], {}, {}, {}
    for n, i in enumerate(insns):
        if i.addr in joins:
            held = merge(joins.pop(i.addr) + ([held] if n and falls_through(A, insns[n - 1])
                                              else []))
        if i.target is not None and i.target > i.addr:
            joins.setdefault(i.target, []).append(dict(held))
        i.acc, i.dest = None, dests(arch, i)
        memarg = next((a for a in i.args if M.is_mem(A, a, i)), None)
        slot = got.get(M.mem_base(memarg)) if memarg and (
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
            src, imm = M.mem_base(i.args[1]), M.disp(i.args[1])
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
            base, may = M.mem_base(memarg), ()
            if loc is None and base in held:
                d = M.disp(memarg)
                at_ = [(s_, None if d is None or o is None else o + d)
                       for s_, o in choices(held[base])]
                loc, may = (at_[0], ()) if len(at_) == 1 else (None, tuple(at_))
            i.acc = Access(access_kind(arch, i, memarg), M.width(A, i, memarg), loc,
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


def access_kind(arch, i, memarg):
    A = ARCH[arch]
    for kind in ("rmw", "local", "lx", "sx"):
        if matches(A[kind], i):
            return kind
    return MODULES[arch].access_kind(A, i, memarg)


def dests(arch, i):
    """The registers i writes (a best effort: the first operand, or the
    last on x86, unless the instruction only reads its operands)."""
    if not i.args:
        return []
    return MODULES[arch].dests(ARCH[arch], i, i.mnem.split()[-1])
