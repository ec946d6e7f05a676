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
        slot = got.get(M.mem_base(memarg)) if memarg and M.got_load(i) and \
            re.fullmatch(r"0\(%?\w+\)", memarg) else None
        for d in i.dest:
            got.pop(d, None)
        nxt = insns[n + 1].addr if n + 1 < len(insns) else i.addr + 4
        # riscv's %pcrel_lo relocations name the AUIPC's label, not the
        # symbol: the register holds that since the AUIPC.
        rel = next(((s, a, off) for off, t, s, a in i.relocs
                    if not re.search(r"PLT|CALL|JUMP|PCREL_LO12|RELAX|BRANCH|_JAL$", t)), None)
        # PC-relative fields: the architecture says from where they count.
        loc = (rel[0], M.reloc_addend(i, rel[1], rel[2], nxt)) if rel else None
        if M.toc_slot(i):
            slot = loc
        if i.dest and moves_address(M, i, loc, slot, held, got):
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


def moves_address(M, i, loc, slot, held, got):
    """Whether i, which writes a register, only forms, loads, selects,
    copies or offsets an address, tracked in held (and got: a GOT slot's);
    loc: what its relocation names, slot: the GOT slot it loads."""
    d = i.dest[0]
    if M.forms_addr(i, loc):
        if i.mnem in ("larl", "auipc", "addis") and i.relocs and "GOT" in i.relocs[0][1]:
            got[d] = loc
            held.pop(d, None)
        else:
            held[d] = loc
        return True
    # Selects: a load of a GOT slot gives the symbol's address, a
    # conditional one (s390 LOCG) that or the register's old address,
    # and so do CSEL and CMOV of two held addresses.
    if slot:
        if not i.mnem.startswith("loc"):
            held[d] = slot
        elif d in held:
            held[d] = choices(held[d], slot)
        else:
            held.pop(d, None)       # the old value is unknown
        return True
    srcs = M.select_srcs(i)
    if srcs is not None and all(r in held for r in srcs):
        held[d] = choices(*(held[r] for r in srcs))
        return True
    # A copy of a held address.
    if i.mnem in M.COPIES and len(i.args) == 2 and \
            all(a.lstrip("%").rstrip() and reg(a) for a in i.args):
        src = reg(i.args[0 if M.DEST_LAST else 1])
        if src in held:
            held[d] = held[src]
            return True
    # An offset added to a held address (None: an index, at an unknown one).
    src, imm = M.address_offset(i, held)
    if src in held:
        held[d] = tuple((s_, None if o is None or imm is None else o + imm)
                        for s_, o in choices(held[src]))
        return True
    return False


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
