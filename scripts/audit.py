#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Machine-code audit: does the compiled code give the ordering the kernel
requires, and does the compiler leave the kernel's shared accesses alone?

usage: audit.py ARCH DIR OUT.json     check the objects 'katomic.sh audit' built
       audit.py --selftest [-v] [ARCH...]  every rule must flag its violating
                                      input (-v: every check's verdict)
       audit.py --table OUT.md NAME=AUDIT.json...  the tables of results/audit.md
       audit.py --arches                  the architectures it has rules for

DIR holds, compiled against one configured build with the kernel's flags:
  audit_{asm,builtins}.o  scripts/gen_audit_probe.sh's probe (one function
                          per primitive, from atomics.tbl and the raw_
                          xchg/cmpxchg family) on each implementation, and
                          audit_probe.tsv, its manifest: function, primitive,
                          the ordering Documentation/atomic_t.txt requires,
                          whether a failed op may skip the access;
  worries_{once,builtins,c11}.o  scripts/worries.c in each flavour, checked
                          against the rules of scripts/worries.tsv;
  kconfig                 the build's .config, for the rules that depend
                          on it (s390: BCR 14,0 serialises only with
                          CONFIG_HAVE_MARCH_Z196_FEATURES=y), which
                          katomic.sh copies there. Without it there is no
                          verdict: the audit stops with an error. Where it lacks
                          CONFIG_ARCH_SUPPORTS_ATOMIC_BUILTINS=y (riscv with
                          GCC 12) or CONFIG_CC_HAS_CHECKED_ATOMIC_BUILTINS=y
                          (a compiler whose builtins were not checked), the
                          build does not offer the builtins:
                          their probe is audited all the same, its rows
                          marked "offered": false, and what would fail there
                          is logged and fails no run.

Ordering, per function and path through its control-flow graph (an
instruction-level graph from objdump -dr; arm64's patchable branches from
.altinstructions count both ways), with the architecture's rules below:
  full     every path that performs the access has, before it, the order
           the architecture needs there, and after it a full barrier or an
           access that is one; TSO architectures order the RMW after
           earlier accesses by themselves;
  before   every path to the access has a full barrier before it (TSO
           architectures order the RMW after earlier accesses by
           themselves): smp_mb__before_atomic(); op();
  after    every path from the access has a full barrier after it (which
           orders the earlier accesses too): op(); smp_mb__after_atomic();
  acquire  the load of the access is an acquire, or a full barrier follows;
  release  the store of the access is a release, or a full barrier precedes;
  relaxed  nothing; a barrier it carries is reported as a cost.
A failed conditional op (a path without the store) may be unordered, and an
LL/SC store counts as performed only on its status check's success edge.
A call (a library call for an atomic the compiler does not inline) fails:
the audit cannot see what it does.
Every unconditional op must perform its access on every path, so a probe
that compiled to nothing fails too.

LL/SC, per probe function: no memory access (a stack spill or reload too)
on a path from a load-exclusive to a store-exclusive, which may clear the
exclusive monitor on some CPUs so that the loop never succeeds (arm64 keeps
its LL/SC loops in asm for this; clang expands __atomic builtins into LL/SC
loops before register allocation, so a spill can land inside). A path that
leaves without reaching a store-exclusive (a failed compare) may access
memory. Rows of an architecture with exclusives carry llsc: {loops, inside}.
"""

import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

# Per architecture, as data. RMW: one-instruction atomic read-modify-writes;
# FULL: instructions that are full barriers (atomic ones and fences); ACQ,
# REL: the acquire and release forms, and fences (arm64, riscv, powerpc);
# CTRL_ACQ: ACQ fences that order only behind a branch on the loaded value;
# STRONGER: per order, what is more than it asks (a cost; by default the
# other of ACQ and REL, and FULL); FULL_BEFORE: a fully ordered op needs a
# full barrier before it, not a release; FENCE: barrier instructions that
# access no memory; FULL_IF: FULL instructions that are full barriers only
# with a Kconfig option (DIR/kconfig); LX/SX: load- and store-exclusive,
# all that the LL/SC rule needs of an architecture. An instruction matches
# by its mnemonic or its whole text.
LSE_OPS = r"(?:ld(?:add|clr|eor|set|smax|smin|umax|umin)|st(?:add|clr|eor|set|smax|smin|umax|umin)|swp|casp?)"
ARCH = {
    "s390x": {
        "model": "tso",
        # Compare and swap serialises the CPU (Principles of Operation);
        # the interlocked-access facility's LOAD AND ADD family and ASI
        # perform only specific-operand serialization: a later fetch may
        # pass their store. BCR 14,0 and BCR 15,0 (objdump: bnor %r0,
        # br %r0) serialise.
        "rmw": r"cs|csy|csg|cds|cdsy|cdsg|laa|laag|laal|laalg|lan|lang|lao|laog|lax|laxg|asi|agsi|alsi|algsi",
        "full": r"cs|csy|csg|cds|cdsy|cdsg|bnor %r0|br %r0",
        "fence": r"bnor %r0|br %r0",
        # BCR 14,0 only with the fast-BCR-serialization facility (z196 on):
        # asm/barrier.h uses it under this option, BCR 15,0 below.
        "full_if": {r"bnor %r0": "CONFIG_HAVE_MARCH_Z196_FEATURES"},
        # smp_mb__after_atomic() is barrier() where CS does the atomics
        # (below z196): a failed fully ordered cmpxchg must serialise by
        # itself (the LKMM's cmpxchg-fail-ordered-1), as a failed CS does.
        "fail_serialises": True,
        "acq": None, "rel": None, "lx": None, "sx": None, "local": None,
        "ret": r"br %r14",
        # BCR with a condition on %r14: return if (clang: "ber %r14").
        "cond_ret": r"b(?!r )[a-z]+r %r14",
        "jump": r"j|jg|brul?",
        "call": r"brasl?|basr?",
        "branch": r"j\w*|br\w*|c\w*j\w*|bras\w*|bc|bcr",
        "stack": {"r15"},
        "noaccess": r"la|lay|larl|pfd|pfdrl|(?:sl|sr)(?:l|a|dl|da)(?:g|k)?|rllg?",
        "store": r"st\w*|mv\w*",
    },
    "x86_64": {
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
    },
    "arm64": {
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
    },
}
# RISC-V AMOs (Zabha's .b and .h, Zacas's amocas too), and FENCE's
# predecessor and successor sets as objdump prints them, in the order iorw
# (parse() spells out a bare "fence": iorw,iorw). Every set holding r and w.
RV_AMO = r"amo(?:add|swap|and|or|xor|max|maxu|min|minu|cas)\.[bhwdq]"
RV_RW = r"i?o?rw"
ARCH["riscv64"] = {
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
ARCH["ppc64le"] = {
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
for _a in ARCH.values():
    _a.setdefault("ctrl_acq", None)
    for _k in ("rmw", "local", "full", "fence", "acq", "ctrl_acq", "rel", "lx", "sx", "ret",
               "cond_ret", "jump", "call", "branch", "noaccess", "store"):
        if _a[_k]:
            _a[_k] = re.compile(rf"(?:{_a[_k]})")
    _a.setdefault("full_if", {})
    _a.setdefault("full_before", False)
    _a.setdefault("stronger", {})


def rules(arch, kconfig):
    """ARCH[arch] for a build that sets the options kconfig (None: unknown,
    each taken as unset, so that no barrier is assumed): a FULL_IF
    instruction whose option the build lacks is neither a full barrier nor
    a fence; 'lacks' names it for messages."""
    A = ARCH[arch]
    lacks = [(rx, o) for rx, o in A["full_if"].items() if kconfig is None or o not in kconfig]
    if not lacks:
        return A
    A, no = dict(A), "|".join(rx for rx, _ in lacks)
    for k in ("full", "fence"):
        A[k] = re.compile(rf"(?!(?:{no})$)(?:{A[k].pattern})")
    A["lacks"] = [(re.compile(rx), o) for rx, o in lacks]
    return A


def build_config(arch, directory):
    """(the options the build sets, where from), from DIR/kconfig, the
    build's .config; without it there is no verdict (SystemExit)."""
    path = directory / "kconfig"
    if not path.is_file():
        opts = sorted(BUILTINS_OPTIONS) + list(ARCH[arch]["full_if"].values())
        sys.exit(f"audit: {path} missing: no verdict without the build's .config, which "
                 f"says what the rules depend on ({arch}: {', '.join(opts)}); "
                 "katomic.sh audit copies it there")
    return {m.group(1) for m in re.finditer(r"^(CONFIG_\w+)=[ym]$", path.read_text(), re.M)}, \
        str(path)


# Where the architecture does not select it, the build cannot choose the
# builtins implementation (riscv with GCC 12, which calls libatomic for 1-
# and 2-byte ops and drops the release of a compare-exchange).
# The options that offer the builtins: the architecture's and the
# compiler's (scripts/katomic.sh's offers_builtins() greps the same two).
BUILTINS_OPTIONS = {"CONFIG_ARCH_SUPPORTS_ATOMIC_BUILTINS", "CONFIG_CC_HAS_CHECKED_ATOMIC_BUILTINS"}


def offered(impl, kconfig):
    """Whether the build offers the implementation impl; an unknown
    Kconfig (None) offers both."""
    return impl != "builtins" or kconfig is None or BUILTINS_OPTIONS <= kconfig


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


EXIT = -1
FLAG_SETTERS = re.compile(r"cmp|cmn|tst|ccmp|ccmn|(?:add|sub|and|bic|neg|adc|sbc|ngc)s")
INVERSE = dict(zip("eq ne cs cc hs lo mi pl vs vc hi ls ge lt gt le".split(),
                   "ne eq cc cs lo hs pl mi vc vs ls hi lt ge le gt".split()))
RETURN_THUNKS = re.compile(r"__x86_return_thunk|__s390_indirect_jump_r14")
TRAPS = re.compile(r"ud2|int3|brk|udf|hlt|mc|trap")


class Func:
    """One function's instructions and control-flow graph."""

    def __init__(self, arch, name, insns, kconfig=None):
        self.arch, self.name, self.A = arch, name, rules(arch, kconfig)
        for i in insns:         # s390's LARL and LRL show a <target> too
            if not self.A["branch"].fullmatch(i.mnem):
                i.target = i.extern = None
        self.insns = accesses(arch, insns)
        self.at = {i.addr: k for k, i in enumerate(self.insns)}
        self.calls = sorted({i.extern or i.ops for i in self.insns
                             if (matches(self.A["call"], i) or i.extern) and
                             not RETURN_THUNKS.fullmatch(i.extern or "")})

    def succ(self, k):
        i, A = self.insns[k], self.A
        if matches(A["ret"], i) or RETURN_THUNKS.fullmatch(i.extern or ""):
            return [EXIT]
        if matches(A["cond_ret"], i):
            return [EXIT] + ([k + 1] if k + 1 < len(self.insns) else [])
        if matches(A["call"], i):
            return [k + 1] if k + 1 < len(self.insns) else []
        if i.extern:                    # a tail call
            return [EXIT]
        if TRAPS.fullmatch(i.mnem):
            return []
        nxt = [k + 1] if k + 1 < len(self.insns) else []
        if i.target is not None:
            t = [self.at[i.target]] if i.target in self.at else []
            return t if matches(A["jump"], i) else t + nxt
        return nxt

    def find(self, starts, goal=EXIT, stop=lambda k: False, prune=()):
        """A path from starts to goal that enters no node where stop holds,
        as a list of nodes, or None; prune: (node, successor) edges not
        taken."""
        parent, todo = {}, []
        for s in starts:
            if s not in parent and not (s != goal and s != EXIT and stop(s)):
                parent[s] = None
                todo.append(s)
        while todo:
            k = todo.pop()
            if k == goal:
                path = [k]
                while parent[path[-1]] is not None:
                    path.append(parent[path[-1]])
                return path[::-1]
            if k == EXIT:
                continue
            for s in self.succ(k):
                if (k, s) in prune or s in parent or \
                        (s != goal and s != EXIT and stop(s)):
                    continue
                parent[s] = k
                todo.append(s)
        return None

    def show(self, path):
        return " ".join("ret" if k == EXIT else f"{self.insns[k].addr:x}" for k in path)

    def status_check(self, k):
        """For a store-exclusive at k: (its success edges, its failure
        edges), from the branch that tests its status register (nonzero:
        failed) before anything else writes it, None if there is none:
        arm64 CBNZ/CBZ or TBNZ/TBZ of bit 0, riscv BNEZ/BEQZ or BNE/BEQ
        against zero; powerpc's stcx. sets CR0 (EQ: stored), BNE/BEQ on it."""
        st = "cr0" if self.arch == "ppc64le" else reg(self.insns[k].args[0])
        for j in range(k + 1, len(self.insns)):
            i = self.insns[j]
            ops = [reg(a) for a in i.args[:-1]]
            mn = i.mnem.rstrip("+-")        # powerpc's branch hints
            tests = i.mnem in ("cbnz", "cbz", "bnez", "beqz") and ops == [st] or \
                i.mnem in ("tbnz", "tbz") and ops[0] == st and i.args[1].strip() == "#0" or \
                i.mnem in ("bne", "beq") and ops in ([st, "zr"], ["zr", st]) or \
                st == "cr0" and mn in ("bne", "beq", "bnelr", "beqlr") and not ops and \
                (i.target is not None or mn.endswith("lr"))
            if tests:
                # powerpc's BEQLR/BNELR: taken, the function returns.
                taken = EXIT if mn.endswith("lr") else self.at.get(i.target)
                ok, bad = (j + 1, taken) if mn in ("cbnz", "tbnz", "bnez", "bne", "bnelr") \
                    else (taken, j + 1)
                return {(j, ok)}, {(j, bad)}
            if st in i.dest or i.target is not None:
                break
        return None

    def is_(self, what, k):
        return matches(self.A[what], self.insns[k])

    def lacking(self, path):
        """Why instructions on path are no full barrier in this build."""
        return "".join(f" ('{self.insns[k].text}' at {self.insns[k].addr:x} is a full barrier "
                       f"only with {o}, which this build lacks)"
                       for k in dict.fromkeys(path) if k != EXIT
                       for rx, o in self.A.get("lacks", ()) if matches(rx, self.insns[k]))

    def llsc(self):
        """(how many load-exclusives lead to a store-exclusive, [(k, lx)]: the
        accesses k on a path from the load-exclusive lx to a store-exclusive
        with no exclusive in between)."""
        I, ex = self.insns, lambda k: self.is_("lx", k) or self.is_("sx", k)
        if not any(ex(k) for k in range(len(I))):
            return 0, []
        # Nodes from which such a path reaches a store-exclusive: an exit of
        # the loop, such as a failed compare's, may access memory.
        pred = {}
        for k in range(len(I)):
            for s_ in self.succ(k):
                pred.setdefault(s_, []).append(k)
        before, todo = set(), [k for k in range(len(I)) if self.is_("sx", k)]
        while todo:
            for p in pred.get(todo.pop(), ()):
                if p not in before and not ex(p):
                    before.add(p)
                    todo.append(p)
        loops, inside = 0, {}
        for x in (k for k in range(len(I)) if self.is_("lx", k)):
            seen, todo, pair = set(), [x], False
            while todo:
                for s_ in self.succ(todo.pop()):
                    pair = pair or (s_ != EXIT and self.is_("sx", s_))
                    if s_ in before and s_ not in seen:
                        seen.add(s_)
                        todo.append(s_)
            loops += pair
            for k in sorted(seen):
                if I[k].acc:
                    inside.setdefault(k, x)
        return loops, sorted(inside.items())


# s390 branch conditions: the condition codes each extended mnemonic takes
# (mask bits 8, 4, 2, 1 are CC 0, 1, 2, 3), and instructions that leave the
# condition code as it was.
S390_CC = {"o": 1, "h": 2, "p": 2, "nle": 3, "l": 4, "m": 4, "nhe": 5, "lh": 6,
           "ne": 7, "nz": 7, "e": 8, "z": 8, "nlh": 9, "he": 10, "nl": 11, "nm": 11,
           "le": 12, "nh": 13, "np": 13, "no": 14}
S390_CC_KEPT = re.compile(r"l|lg|lgf|llgf|llgc|llgh|llc|llh|lh|lgh|lr|lgr|lgfr|llgfr|llcr|llgcr|"
                          r"llhr|llghr|lhi|lghi|lgfi|llilf|iilf|iihf|la|lay|larl|lrl|lgrl|st|sty|"
                          r"stg|stc|sth|stmg|lmg|rll|rllg|risbgn|sll|sllg|srl|srlg|sllk|srlk|"
                          r"nopr?|j|jg|bcr 0,.*")


def find_cc(f, stop):
    """f.find([0], stop=stop), but on s390 a path whose branches contradict
    each other on the condition code is not one (clang tests it twice:
    'cr; jlh out; ...; out: je skip; bcr 14,0')."""
    if f.arch != "s390x":
        return f.find([0], stop=stop)
    every = frozenset(range(4))
    start = (0, every, ())
    parent, todo = {start: None}, [start]
    while todo:
        state = todo.pop()
        k, cc, ipm = state
        if k == EXIT:
            path = []
            while state:
                path.append(state[0])
                state = parent[state]
            return path[::-1]
        if stop(k):
            continue
        i = f.insns[k]
        m = re.fullmatch(r"jg?(\w+)", i.mnem) if i.target is not None else \
            re.fullmatch(r"b(\w+)r", i.mnem) if f.is_("cond_ret", k) else None
        mask = S390_CC.get(m.group(1)) if m else None
        # IPM copies the condition code into a register (bits 34-35), and
        # TMLH of those bits (0x3000) gives CC 0, 1 or 3 for CC 0, 1-2 or 3.
        nipm = tuple((r, v) for r, v in ipm if r not in i.dest)
        if i.mnem == "ipm" and i.dest:
            nipm += ((i.dest[0], cc),)
        for s_ in f.succ(k):
            ncc = cc
            if mask is not None:
                taken = s_ == EXIT if i.target is None else \
                    s_ == f.at.get(i.target) and s_ != k + 1
                ncc = frozenset(c for c in cc if bool(mask & (8 >> c)) == taken)
                if not ncc:
                    continue
            elif i.mnem == "tmlh" and len(i.args) == 2 and reg(i.args[0]) in dict(ipm) and \
                    int(i.args[1], 0) == 0x3000:
                ncc = frozenset({0: 0, 1: 1, 2: 1, 3: 3}[c] for c in dict(ipm)[reg(i.args[0])])
            elif not S390_CC_KEPT.fullmatch(i.mnem) and not re.fullmatch(r"c\w*j\w*|ipm", i.mnem):
                ncc = every
            nxt = (s_, ncc, nipm)
            if nxt not in parent:
                parent[nxt] = state
                todo.append(nxt)
    return None


# riscv branches compare registers. What the compares on a path said about
# the values, so that clang's compare repeated after an LL/SC loop ("bne
# a3,a4,1f; sc.w.rl a5,a2,(a0); bnez a5,0b; 1: ...; bne a3,a4,2f; fence
# rw,rw; 2:") is not read as a way around the fence. A value is ("in", r),
# register r's at the entry; ("c", n), a constant; ("d", k), what
# instruction k loaded or otherwise made, unknown but the same until k runs
# again, when the one it replaces becomes ("p", k) (a retry loop compares
# the new load with the old); or (op, value...), an ALU op of values (a
# copy, riscv's MV and powerpc's MR, is the value); None: not known.
# powerpc's compares set a CR field to ("cmp", value, value), which BEQ and
# BNE read, and BEQLR and BNELR (a word compare's values tagged "w": it
# compares the low halves). Such a branch on a field, whatever set it (a
# compare, a dot form, stcx.), says on each edge the field's EQ bit:
# "crN.eq", ("c", 1) or ("c", 0), until the field is written again. MFOCRF
# and MFCR copy fields into a register, ("crbits", ("d", k), ((field, EQ
# bit)...)) for those whose EQ bit is known, and RLWINM rX,rY,4n+3,31,31
# extracts field n's (GCC's try_cmpxchg(): "mfocrf r3,128; rlwinm
# r3,r3,3,31,31", CR0's EQ, stcx.'s success, then "cmpwi r3,0; beq"
# around the sync).
RV_ALU = re.compile(r"(?:add|sub|and|or|xor|sll|srl|sra)i?w?|mv|mr|li|not|neg|sext\.w|seqz|snez")
RV_COMMUTES = ("add", "addw", "and", "or", "xor")
RV_EQ_TAKEN = {"beq": True, "beqz": True, "bne": False, "bnez": False}


def rv_value(vals, arg):
    r = reg(arg)
    if r:
        return ("c", 0) if r == "zr" else vals.get(r, ("in", r))
    return ("c", int(arg, 0)) if re.fullmatch(r"-?(?:0x[0-9a-f]+|\d+)", arg) else None


def rv_mentions(v, x):
    return v == x or isinstance(v, tuple) and any(isinstance(y, tuple) and rv_mentions(y, x)
                                                  for y in v)


def rv_rename(v, x, y):
    """v with x, wherever it appears in it, y."""
    if v == x:
        return y
    return tuple(rv_rename(w, x, y) if isinstance(w, tuple) else w for w in v) \
        if isinstance(v, tuple) else v


def rv_fact(facts, a, b, eq):
    """facts and a == b (eq) or a != b; None if they contradict it."""
    # powerpc's compares of constants (tagged ("w", ("c", n)); ("d", k) is
    # no tag)
    if a[0] == b[0] in ("w", "d") and isinstance(a[1], tuple) and \
            isinstance(b[1], tuple) and a[1][0] == b[1][0] == "c":
        low = (1 << (32 if a[0] == "w" else 64)) - 1
        return facts if ((a[1][1] - b[1][1]) & low == 0) == eq else None
    while True:         # compares with zero: of a difference, of seqz, snez
        a, b = (b, a) if a == ("c", 0) else (a, b)
        if b != ("c", 0) or a[0] not in ("xor", "sub", "subw", "seqz", "snez"):
            break
        if a[0] in ("seqz", "snez"):
            a, eq = a[1], eq != (a[0] == "seqz")
        elif a[0] != "subw" or not eq:      # subw: 32 bits equal
            a, b = a[1], a[2]
        else:
            break
    if a == b or a[0] == b[0] == "c":
        return facts if (a == b) == eq else None
    key = tuple(sorted((a, b), key=repr))
    return None if (key, not eq) in facts else facts | {(key, eq)}


def rv_step(f, k, s_, values):
    """values ((register, value) pairs, facts: ((value, value), equal)) on
    the edge from k to s_; None when the facts rule the edge out."""
    i, (vals, facts) = f.insns[k], values
    vals = dict(vals)
    if f.arch == "ppc64le":
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
            return None if facts is None else (frozenset(vals.items()), facts)
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
            return frozenset(vals.items()), facts
    eq = RV_EQ_TAKEN.get(i.mnem)
    if eq is not None and i.target is not None and f.at.get(i.target) != k + 1:
        a = rv_value(vals, i.args[0])
        b = rv_value(vals, i.args[1]) if len(i.args) == 3 else ("c", 0)
        if a is not None and b is not None:
            facts = rv_fact(facts, a, b, eq == (s_ == f.at.get(i.target)))
            return None if facts is None else (frozenset(vals.items()), facts)
    srcs = [rv_value(vals, a) for a in i.args[1:]]
    op = i.mnem if i.mnem == "li" else re.sub(r"i(w?)$", r"\1", i.mnem)   # addi: add
    v, p = ("d", k), ("p", k)
    new = {}
    for d in i.dest:
        if RV_ALU.fullmatch(i.mnem) and srcs and None not in srcs and not i.acc:
            new[d] = srcs[0] if op in ("mv", "mr", "li") else \
                (op, *(sorted(srcs, key=repr) if op in RV_COMMUTES else srcs))
        else:
            new[d] = v
    vals = {r: x for r, x in vals.items() if r not in new}      # overwritten
    if v in new.values():
        # A new value of k. The one it replaces, if a register still holds
        # it, is ("p", k) from now on, and what was said of k's value before
        # that is forgotten; if none does, what was said of it.
        if any(x is not None and rv_mentions(x, v) for x in vals.values()):
            vals = {r: None if x is not None and rv_mentions(x, p) else rv_rename(x, v, p)
                    for r, x in vals.items()}
            facts = frozenset((tuple(sorted(rv_rename(key, v, p), key=repr)), eq)
                              for key, eq in facts if not rv_mentions(key, p))
        else:
            facts = frozenset(x for x in facts if not rv_mentions(x[0], v))
    vals.update(new)
    if f.arch == "ppc64le" and crbits and i.dest:
        vals[i.dest[0]] = ("crbits", vals[i.dest[0]], crbits)
    return frozenset(vals.items()), facts


def check_ordering(f, order, conditional, primitive):
    """(problems, costs) of f, which implements primitive with the given
    order (full, acquire, release, relaxed; before, after: the access
    ordered after the earlier ones, or before the later ones, as
    smp_mb__before_atomic() and smp_mb__after_atomic() make it)."""
    I, problems, costs = f.insns, [], []
    if f.calls:
        problems.append(f"calls {', '.join(f.calls)}: the audit cannot see inside")
    kind = "load" if re.search(r"_read(_acquire)?$", primitive) else \
        "store" if re.search(r"_set(_release)?$", primitive) else None
    rmw = ("rmw", "sx", "local") if primitive.endswith("_local") else ("rmw", "sx")
    acc = [k for k, i in enumerate(I) if i.acc and not i.acc.stack and
           (i.acc.kind == kind if kind else i.acc.kind in rmw)]
    what = kind or "atomic read-modify-write"
    # Where an access is performed: a store-exclusive, on its success edge.
    # A store-exclusive is performed on its status check's success edge.
    performed = {}
    for k in acc:
        if I[k].acc.kind == "sx":
            check = f.status_check(k)
            if check is None:
                problems.append(f"'{I[k].text}' at {I[k].addr:x}: no test of its status "
                                "register follows: the audit cannot tell when it stored")
            else:
                performed.update({e: k for e in check[0]})
    if not acc:
        local = [f"'{i.text}' at {i.addr:x}" for i in I if i.acc and i.acc.kind == "local"]
        problems.append(f"performs no {what}" + (
            f" ({', '.join(local)}: atomic only against this CPU)" if local else ""))
    elif not conditional:
        path = f.find([0], stop=lambda k: k in acc and I[k].acc.kind != "sx",
                      prune=set(performed))
        if path:
            problems.append(f"a path performs no {what}: {f.show(path)}")
    elif order == "full" and f.A.get("fail_serialises") and "cmpxchg" in primitive and \
            not primitive.endswith("_local"):
        path = find_cc(f, stop=lambda k: f.is_("full", k))
        if path:
            problems.append("a path, a failed cmpxchg, has no full barrier, which "
                            "smp_mb__after_atomic() relies on where it is barrier(): "
                            + f.show(path) + f.lacking(path))
    weak = f.A["model"] == "weak"
    full = lambda k: f.is_("full", k)
    # The barrier after: walk every path from the entry, remembering an
    # access still waiting for it, and (arm64) what earlier flag tests
    # decided, so that a repeated b.ne after an LL/SC loop is not taken as
    # an escape past the DMB.
    def load_half(k):
        if I[k].acc.kind != "sx":
            return k
        return next((j for j in range(k - 1, -1, -1) if I[j].acc and I[j].acc.kind == "lx"), k)

    def full_pair(k):
        """riscv: FENCE rw,w (or stronger) just before an AMO.aq, as GCC 12
        writes a seq_cst AMO: the fence orders every earlier access before
        the AMO, a store, and .aq the AMO before every later one (RVWMO),
        so the access needs no barrier after it."""
        return f.arch == "riscv64" and k > 0 and \
            re.fullmatch(rf"{RV_AMO}\.aq", I[k].mnem) is not None and \
            re.fullmatch(rf"fence {RV_RW},i?o?r?w", I[k - 1].text) is not None and \
            not any(i.target == I[k].addr for i in I)

    def waits(k):
        """What the access at k leaves waiting: (for a full barrier, for an
        acquire: the load, or on riscv the store-exclusive after it, which
        the load precedes as an access to the same address)."""
        return (k if order in ("full", "after") and not full(k) and not full_pair(k) else None,
                k if weak and order == "acquire" and not full(load_half(k)) and
                not f.is_("acq", load_half(k)) and not f.is_("acq", k) else None)

    # consts: registers a MOV of a constant set on this path (arm64), so that
    # clang's "mov w8, #1; cbnz w8, <dmb>" is not read as a way around it;
    # values: what riscv's and powerpc's compares on this path said
    # (rv_step()); dep: a branch on the value pa waits for was taken
    # (powerpc's isync orders only behind one).
    start = (0, None, (), None, None, (), (frozenset(), frozenset())
             if f.arch in ("riscv64", "ppc64le") else None, False)
    parent, todo, found, tainted = {start: None}, [start], {}, {}

    def branches_on(w, k):
        """Whether k is a conditional branch on what the access at w loaded
        (taint(): linear)."""
        if w not in tainted:
            tainted[w] = taint(f, {load_half(w)})
        return conditional_branch(f, k) and "cc" in tainted[w][k]

    while todo:
        state = todo.pop()
        k, setter, known, pf, pa, consts, values, dep = state
        if k == EXIT:
            for why, w in (("full barrier", pf), ("acquire or full barrier", pa)):
                if w is not None and (why, w) not in found:
                    path, st = [], state
                    while st:
                        path.append(st[0])
                        st = parent[st]
                    found[(why, w)] = (f"no {why} after '{I[w].text}' at {I[w].addr:x}: "
                                       f"{f.show(path[::-1])}{f.lacking(path)}")
            continue
        if full(k):
            pf = pa = None
        elif f.is_("acq", k) and not I[k].acc and (dep or not f.is_("ctrl_acq", k)):
            pa = None
        if k in acc and I[k].acc.kind != "sx":
            nf, na = waits(k)
            pf, pa = nf if nf is not None else pf, na if na is not None else pa
            dep = dep and na is None
        dep = dep or pa is not None and bool(f.A["ctrl_acq"]) and branches_on(pa, k)
        cond, cz, i = None, None, I[k]
        if f.arch == "arm64" and i.mnem in ("cbz", "cbnz", "tbz", "tbnz") and \
                reg(i.args[0]) in dict(consts):       # whether it is taken
            v = dict(consts)[reg(i.args[0])]
            if i.mnem.startswith("tb"):
                v &= 1 << int(i.args[1].strip().lstrip("#"), 0)
            cz = (v != 0) == i.mnem.endswith("nz")
        if f.arch == "arm64":
            consts = tuple((r, v) for r, v in consts if r not in i.dest)
            m = re.fullmatch(r"#(-?(?:0x)?[0-9a-f]+)|[wx]zr", i.args[1]) \
                if i.mnem == "mov" and len(i.args) == 2 else None
            if m and i.dest:
                consts += ((i.dest[0], int(m.group(1), 0) if m.group(1) else 0),)
        if f.arch == "arm64" and FLAG_SETTERS.fullmatch(I[k].mnem):
            setter, known = k, ()
        elif f.arch == "arm64" and I[k].mnem.startswith("b.") and I[k].target is not None:
            cond = I[k].mnem[2:]
        for s_ in f.succ(k):
            nk, nf, na, nv, nd = known, pf, pa, values, dep
            if cz is not None and (s_ == f.at.get(i.target) and s_ != k + 1) != cz:
                continue
            if values is not None:
                nv = rv_step(f, k, s_, values)
                if nv is None:          # the path so far says it is not taken
                    continue
            if cond:
                taken = s_ == f.at.get(I[k].target) and s_ != k + 1
                want = dict(known).get(cond, None)
                if want is None and INVERSE.get(cond) in dict(known):
                    want = not dict(known)[INVERSE[cond]]
                if want is not None and want != taken:
                    continue
                nk = known + ((cond, taken),)
            if (k, s_) in performed:      # k branches on the store's status
                wf, wa = waits(performed[(k, s_)])
                nf, na = wf if wf is not None else nf, wa if wa is not None else na
                nd = nd or wa is not None
            nxt = (s_, setter, nk, nf, na, consts, nv, nd)
            if nxt not in parent:
                parent[nxt] = state
                todo.append(nxt)
    problems += list(found.values())
    # A release fence (riscv fence rw,w) orders the earlier accesses before
    # a later store as a release store would.
    released = lambda k: full(k) or (f.is_("rel", k) and not I[k].acc)
    for k in acc:
        here = f"'{I[k].text}' at {I[k].addr:x}"
        if weak and (order == "before" or order == "full" and f.A["full_before"]) and \
                not full(k):
            path = f.find([0], goal=k, stop=full)
            if path:
                problems.append(f"no full barrier before {here}: {f.show(path)}")
        elif weak and order in ("full", "release") and not full(k) and not f.is_("rel", k):
            path = f.find([0], goal=k, stop=released)
            if path:
                problems.append(f"no release or full barrier before {here}: {f.show(path)}")
    if order not in ("full", "before", "after"):
        reach = {k for k in range(len(I)) if k == 0 or f.find([0], goal=k)}
        # Forms stronger than the order asks (weak models), and fences but
        # the order's own (riscv: fence r,rw for an acquire).
        stronger = {"relaxed": ("acq", "rel", "full"), "acquire": ("rel", "full"),
                    "release": ("acq", "full"), **f.A["stronger"]}[order] if weak else ()
        own = {"acquire": "acq", "release": "rel"}.get(order) if weak else None
        fences = sorted({I[k].text for k in reach if f.is_("fence", k) and (
            not own or not f.is_(own, k) or any(f.is_(c, k) for c in stronger))})
        forms = sorted({I[k].mnem for k in reach if I[k].acc and not I[k].acc.stack and
                        not f.is_("fence", k) and any(f.is_(c, k) for c in stronger)})
        if fences or forms:
            costs.append(f"{order} but carries {', '.join(fences + forms)}")
    return problems, costs



# The article's worries (scripts/worries.c, scripts/worries.tsv): each rule
# is a fact about the accesses to named locations on the paths of a function.
FLAG_READERS = {"x86_64": r"cmov\w+|set\w+|adc\w*|sbb\w*",
                "arm64": r"cs\w+|cset\w*|cinc|cinv|cneg|ccm[pn]|adc\w*|sbc\w*",
                "s390x": r"loc\w*|ipm|alc\w*|slb\w*|sel\w*",
                "riscv64": r"(?!)",        # no flags: a branch compares registers
                "ppc64le": r"isel\w*|mfcr|mfocrf"}
# Instructions that only write their destination: riscv's every one.
MOVES = {"x86_64": r"mov\w*|lea\w*|pop\w*",
         "riscv64": r".*",
         "ppc64le": r"(?!cmp)\w+",         # all but compares and dot forms (CR0)
         "arm64": r"mov\w*|ld\w+|adrp?",
         "s390x": r"l|lg|lgf|llgf|lr|lgr|lgfr|llgfr|lhi|lghi|lgfi|llc|llgc|llh|llgh|lh|lgh|larl|lrl|lgrl|ly|la|lay|llill|llilf|iihf|iilf"}


def conditional_branch(f, k):
    i = f.insns[k]
    return (i.target is not None and not f.is_("jump", k)) or f.is_("cond_ret", k)


def taint(f, sources):
    """Per instruction index, the registers (and 'cc', the flags) holding a
    value derived from what the instructions at sources loaded; linear,
    which is exact for the straight-line cases worries.c holds."""
    bad, out = set(), []
    readers = re.compile(f"(?:{FLAG_READERS[f.arch]})")
    moves = re.compile(f"(?:{MOVES[f.arch]})")
    for k, i in enumerate(f.insns):
        out.append(set(bad))
        def regs(args):
            return {reg(x) for a in args for x in re.split(r"[(),\[\]\s#]+", a) if reg(x)}
        # A move's sources are its operands but the destination (x86: the last).
        srcs = regs(i.args[:-1] if f.arch == "x86_64" else i.args[1:]) \
            if moves.fullmatch(i.mnem) else regs(i.args)
        if i.acc and i.acc.kind == "load":
            srcs = set()      # an address register is not the loaded value
        hit = bool(srcs & bad) or (readers.fullmatch(i.mnem) and "cc" in bad) or k in sources
        for d in i.dest:        # arm64's zero register holds nothing
            (bad.add if hit and d != "zr" else bad.discard)(d)
        if hit and not moves.fullmatch(i.mnem) and i.target is None:
            bad.add("cc")
        elif not moves.fullmatch(i.mnem) and i.target is None and i.args and \
                (not i.acc or i.acc.kind not in ("store", "sx")):
            bad.discard("cc")       # flags set from something else
    return out


def paths(f, limit=4000):
    """The simple paths from entry to return, as lists of nodes."""
    out, stack = [], [(0, [0])]
    while stack and len(out) < limit:
        k, path = stack.pop()
        for s in f.succ(k):
            if s == EXIT:
                out.append(path)
            elif s not in path:
                stack.append((s, path + [s]))
    return out


def executed(f):
    """The instructions an uncontended call executes: the shortest path from
    entry to return that takes no loop twice (a compare-and-swap or LL/SC
    that succeeds at once) and, where the function writes memory other
    than its stack, does (a cmpxchg() that succeeds); None without such a
    path within paths()' limit."""
    def writes(k):
        a = f.insns[k].acc
        return a and not a.stack and a.kind in ("store", "update", "rmw", "sx")
    every = paths(f)
    store = any(writes(k) for k in range(len(f.insns)))
    runs = [len(p) for p in every if not store or any(writes(k) for k in p)]
    return min(runs) if runs else None


def at(f, k, name, may=True):
    """Whether the access at k is to the location name ('sym' or 'sym+off');
    with may, also a selected address that may be it."""
    a = f.insns[k].acc
    if not a:
        return False
    sym, _, off = name.partition("+")
    # None: offset unknown.
    return any(s_ == sym and (not off or o == int(off, 0))
               for s_, o in ((a.loc,) if a.loc else a.may if may else ()))


def loads(f, k, x, may=True):
    return at(f, k, x, may) and f.insns[k].acc.kind in ("load", "update", "rmw", "lx")


def stores(f, k, x, may=True):
    return at(f, k, x, may) and f.insns[k].acc.kind in ("store", "update", "rmw", "sx")


def check_rule(f, rule):
    """None when f keeps rule, else what it does instead."""
    m = re.fullmatch(r"(\w+)\(([^)]*)\)\s*(<=|=)?\s*(\d+)?", rule.strip())
    if not m:
        return f"unknown rule '{rule}'"
    name, args, cmp, n = m.group(1), [a.strip() for a in m.group(2).split(",")], \
        m.group(3), int(m.group(4) or 0)
    # A rule about a location the checker does not see at all proves nothing.
    for x in args:
        name_ = x[1:].partition("+")[0] if x.startswith("*") else x
        if not any(at(f, k, name_) for k in range(len(f.insns))):
            return f"no access to {name_} recognised"
    every = paths(f)
    if not every:
        return "no path returns"
    if name in ("loads", "stores") and args[0].startswith("*"):
        # *X+off: the location at the value loaded from X, plus off.
        x, _, off = args[0][1:].partition("+")
        t = taint(f, {k for k in range(len(f.insns)) if loads(f, k, x)})

        def pick(f, k, _, may=True):
            i = f.insns[k]
            if not i.acc or i.acc.loc or i.acc.may or i.acc.stack or \
                    (i.acc.kind == "store") != (name == "stores"):
                return False
            m = next(a for a in i.args if is_mem(f.arch, a, i))
            return mem_base(f.arch, m) in t[k] and disp(f.arch, m) == int(off or "0", 0)
    elif name in ("loads", "stores"):
        pick = loads if name == "loads" else stores
    if name in ("loads", "stores"):
        # "=N" counts the accesses certainly to X, and a path with one that
        # only may be (a selected address) fails; "<=N" counts both.
        counts = sorted({(sum(1 for k in p if pick(f, k, args[0], False)),
                          sum(1 for k in p if pick(f, k, args[0]))) for p in every})
        ok = all(d == n == m for d, m in counts) if cmp == "=" else \
            all(m <= n for d, m in counts)
        return None if ok else f"{name} of {args[0]} per path: " \
            f"{sorted({m for d, m in counts})}, want {cmp}{n}"
    if name == "width":
        ws = sorted({f.insns[k].acc.width for k in range(len(f.insns)) if at(f, k, args[0])})
        return None if ws == [n] or (ws and all(w == n for w in ws)) else \
            f"{args[0]} accessed {ws or 'nowhere'} bytes wide, want {n}"
    if name == "path_without_store":
        return None if any(not any(stores(f, k, args[0]) for k in p) for p in every) else \
            f"every path stores {args[0]}"
    if name == "load_in_loop":
        looped = [k for k in range(len(f.insns)) if loads(f, k, args[0]) and
                  f.find(f.succ(k), goal=k)]
        return None if looped else f"no load of {args[0]} inside a loop"
    if name == "order":
        for p in every:
            xs = [n for n, k in enumerate(p) if at(f, k, args[0])]
            ys = [n for n, k in enumerate(p) if at(f, k, args[1])]
            if xs and ys and max(xs) > min(ys):
                return f"{args[1]} accessed before {args[0]}: {f.show(p)}"
        return None
    y, x = args[0], args[-1]
    src = {k for k in range(len(f.insns)) if loads(f, k, x)}
    t = taint(f, src)
    if name == "addr_dep":
        direct = [f.insns[k] for k in range(len(f.insns)) if loads(f, k, y)]
        via = [k for k, i in enumerate(f.insns) if i.acc and i.acc.kind == "load"
               and not i.acc.loc and not i.acc.may and not i.acc.stack and
               mem_base(f.arch, next(a for a in i.args if is_mem(f.arch, a, i))) in t[k]]
        if direct:
            return f"loads {y} directly ('{direct[0].text}'), not through the value of {x}"
        return None if via else f"no load through the value loaded from {x}"
    for p in every:
        seen_load = seen_branch = False
        for k in p:
            i = f.insns[k]
            if stores(f, k, y):
                data = reg(i.args[1 if i.acc.kind == "sx" else 0])
                if name == "store_after_load" and not seen_load:
                    return f"stores {y} before loading {x}: {f.show(p)}"
                if name in ("ctrl", "ctrl_or_data") and not (seen_load and seen_branch):
                    if name == "ctrl_or_data" and seen_load and data in t[k]:
                        continue
                    # An address computed from the load orders the store too
                    # (LKMM: addr;[W] is in ppo): clang's selected address.
                    m = next(a for a in i.args if is_mem(f.arch, a, i))
                    if seen_load and i.acc.may and mem_base(f.arch, m) in t[k]:
                        continue
                    return (f"stores {y} ('{i.text}' at {i.addr:x}) without a branch on "
                            f"{x} before it: {f.show(p)}")
            if loads(f, k, x, False):
                seen_load = True
            elif seen_load and conditional_branch(f, k) and \
                    ("cc" in t[k] or any(reg(a) in t[k] for a in i.args)):
                seen_branch = True
        if name not in ("store_after_load", "ctrl", "ctrl_or_data"):
            return f"unknown rule '{name}'"
    return None


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


WORRIES = Path(__file__).parent / "worries.tsv"


def worry_cases():
    out = []
    for line in WORRIES.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            case, cls, rules, cite = line.split("\t")[:4]
            out.append((case, cls, [r for r in rules.split(";") if r.strip()], cite))
    return out


def audit_worries(arch, prefix, directory, kconfig=None):
    rows = []
    for flavour in ("once", "builtins", "c11"):
        obj = directory / f"worries_{flavour}.o"
        funcs = {n: Func(arch, n, i) for n, i in disassemble(prefix, obj)[0].items()}
        symbolise(prefix, obj, {n: f.insns for n, f in funcs.items()})
        for case, cls, rules, cite in worry_cases():
            f = funcs.get(f"worry_{case}")
            if f is None:
                reasons = [f"worry_{case} is not in {obj.name}"]
            else:
                reasons = [r for r in (check_rule(f, rule) for rule in rules) if r]
                if f.calls:
                    reasons.append(f"calls {', '.join(f.calls)}")
            rows.append({"case": case, "class": cls, "flavour": flavour,
                         "verdict": "fail" if reasons else "pass", "reasons": reasons,
                         "rules": [r.strip() for r in rules], "cite": cite})
            if not offered(flavour, kconfig):   # the builtins' atomic_read/set
                rows[-1]["offered"] = False
    # The C11 flavour is the reference, what a relaxed __atomic access gets:
    # a guaranteed case it loses, where the kernel idiom keeps it, is a
    # finding and no failure; one the checker cannot read fails as usual.
    once = {w["case"] for w in rows if w["flavour"] == "once" and w["verdict"] == "pass"}
    for w in rows:
        w["reference"] = w["flavour"] == "c11" and w["case"] in once and not any(
            re.search(r"is not in|^calls |no path returns|unknown rule", r) for r in w["reasons"])
    return rows


def verdict(arch, fn, insns, alts, order, conditional, primitive, kconfig=None):
    """(problems, costs, LL/SC loops or None, instructions executed) of fn as
    compiled and, if it has alternatives, as patched with all of them
    (arm64: LSE in place of LL/SC, as the boot patches it on an LSE CPU);
    the loops are counted as compiled, the instructions an uncontended
    call executes (executed()) as patched."""
    problems, costs, views, llsc = [], [], [("", insns)], None
    alt, notes = patched(insns, alts)
    if alt:
        views.append(("with the alternatives applied: ", alt))
    for view, code in views:
        f = Func(arch, fn, code, kconfig)
        p, c = check_ordering(f, order, conditional, primitive)
        loops, inside = f.llsc()
        I = f.insns
        bad = [f"LL/SC: '{I[k].text}' at {I[k].addr:x} between '{I[x].text}' at "
               f"{I[x].addr:x} and a store-exclusive: an access there may clear the "
               "exclusive monitor, and the loop never succeed" for k, x in inside]
        if llsc is None and f.A["lx"]:
            llsc = {"loops": loops,
                    "inside": [f"'{I[k].text}' at {I[k].addr:x}" for k, _ in inside]}
        problems += [view + x for x in p] + [x for x in bad if x not in problems]
        costs += [view + x for x in c]
        runs = executed(f)
    return problems + notes, costs, llsc, runs


def audit_ordering(arch, prefix, directory, kconfig=None):
    """One row per manifest function and implementation."""
    rows = []
    manifest = [line.split("\t") for line in
                (directory / "audit_probe.tsv").read_text().splitlines()]
    for impl in ("asm", "builtins"):
        obj = directory / f"audit_{impl}.o"
        funcs, every = disassemble(prefix, obj)
        alts = alternatives(prefix, obj, every)
        if not funcs:
            sys.exit(f"audit: {obj} holds no functions")
        for fn, primitive, order, cond in manifest:
            row = {"function": fn, "primitive": primitive, "order": order, "impl": impl}
            if fn not in funcs:
                row.update(verdict="absent", reasons=["not in this kernel: its arch_ "
                                                      "macro is not defined"])
                rows.append(row)
                continue
            problems, costs, llsc, runs = verdict(arch, fn, funcs[fn], alts, order,
                                                  cond == "yes", primitive, kconfig)
            row.update(verdict="fail" if problems else "cost" if costs else "pass",
                       reasons=problems + costs, insns=len(funcs[fn]), executed=runs)
            if not offered(impl, kconfig):
                row["offered"] = False      # audited, and fails no run
            if llsc is not None:
                row["llsc"] = llsc
            rows.append(row)
    return rows


# What --selftest expects of scripts/audit_selftest.S: (function, check, a
# fragment of the complaint, None where the code is right and must pass,
# optionally the options of the build, as DIR/kconfig gives them).
# A check is an ordering (full, before, after, acquire, release, relaxed; "?" marks a conditional
# op; the LL/SC rule is part of it), loops=N (the LL/SC loops counted),
# executed=N (the instructions an uncontended call executes) or a
# worries.tsv rule.
Z10 = {"CONFIG_HAVE_MARCH_Z10_FEATURES"}
Z196 = Z10 | {"CONFIG_HAVE_MARCH_Z196_FEATURES"}
SELFTEST = [
    ("full_ok", "full", None),
    ("full_skip", "full", "a path performs no"),
    ("cas_loop_ok", "full", None),
    ("spin_hoisted", "load_in_loop(w_flag)", "no load of w_flag inside a loop"),
    ("spin_ok", "load_in_loop(w_flag)", None),
    ("ctrl_hoisted", "ctrl(w_b, w_a)", "without a branch"),
    ("ctrl_hoisted", "store_after_load(w_b, w_a)", "before loading"),
    ("ctrl_ok", "ctrl(w_b, w_a)", None),
    ("ctrl_hoisted_copy", "ctrl(w_b, w_a)", "without a branch"),
    ("ctrl_ok", "path_without_store(w_z)", "no access to w_z recognised"),
    ("data_dep", "ctrl_or_data(w_b, w_a)", None),
    ("data_dep", "ctrl(w_b, w_a)", "without a branch"),
    ("ctrl_hoisted", "ctrl_or_data(w_b, w_a)", "without a branch"),
    ("ctrl_ok", "path_without_store(w_b)", None),
    ("ctrl_hoisted", "path_without_store(w_b)", "every path stores"),
    ("loads_merged", "loads(w_x)=2", "want =2"),
    ("store_torn", "stores(w_x)=1", "want =1"),
    ("store_torn", "width(w_x)=8", "want 8"),
    ("store_invented", "stores(w_y)<=1", "want <=1"),
    ("store_invented", "store_after_load(w_y, w_x)", "before loading"),
    ("addr_dep_broken", "addr_dep(w_x, w_p)", "directly"),
    ("addr_dep_broken", "loads(*w_p+4)=1", "want =1"),
    ("addr_dep_ok", "loads(*w_p+4)=1", None),
    ("order_swapped", "order(w_msg, w_flag)", "accessed before"),
    ("store_torn", "order(w_x+0, w_x+4)", None),
    ("ctrl_select", "ctrl(w_c, w_a)", None),
    ("ctrl_select", "ctrl(w_d, w_a)", None),
    ("ctrl_select_hoisted", "ctrl(w_c, w_a)", "without a branch"),
]
SELFTEST_ARCH = {
    "s390x": [("cas_loop_ok", "executed=6", None),
              # The path that leaves before CS is shorter, but stores nothing.
              ("cmpxchg_fail_early", "executed=7", None),("full_no_fence", "full", "no full barrier after"),
              ("ctrl_condret", "ctrl(w_b, w_a)", None),
              ("cmpxchg_fail_early", "full?", "a failed cmpxchg, has no full barrier"),
              ("cmpxchg_fail_bcr", "full?", None),
              ("cmpxchg_fail_cc", "full?", None),
              ("cmpxchg_fail_ipm", "full?", None),
              ("cmpxchg_fail_ipm_bad", "full?", "a failed cmpxchg, has no full barrier"),
              ("ctrl_select_other", "ctrl(w_c, w_a)", "without a branch"),
              ("got_load_ok", "loads(w_x)=1", None),
              ("got_reuse", "loads(w_x)=1", "want =1"),
              ("ctrl_condret", "path_without_store(w_b)", None),
              ("full_fence_skipped", "full", "no full barrier after"),
              # Below z196 BCR 14,0 does not serialise, BCR 15,0 does.
              ("cmpxchg_fail_bcr", "full?", None, Z196),
              ("cmpxchg_fail_bcr", "full?", "a failed cmpxchg, has no full barrier", Z10),
              ("cmpxchg_fail_bcr", "full?", "is a full barrier only with "
               "CONFIG_HAVE_MARCH_Z196_FEATURES, which this build lacks", Z10),
              ("cmpxchg_fail_bcr15", "full?", None, Z10),
              ("full_ok", "full", "no full barrier after 'laa", Z10),
              ("cas_loop_ok", "full", None, Z10)],
    # TSO: a missing barrier is a missing LOCK, a plain access.
    "x86_64": [("cas_loop_ok", "executed=5", None),
               ("full_no_fence", "full", "performs no atomic"),
               ("ctrl_cs_thunk", "ctrl(w_b, w_a)", None),
               ("ctrl_select_other", "ctrl(w_c, w_a)", "without a branch"),
               ("plain_cmpxchg_local", "relaxed", None),
               ("plain_cmpxchg_local", "full", "no full barrier after"),
               ("full_fence_skipped", "full", "a path performs no atomic")],
    "arm64": [("before_ok", "before", None),
              # As the boot patches it: NOP, LDADD, RET; not the LL/SC loop.
              ("lse_no_al", "executed=3", None),
              ("llsc_two", "executed=7", None),
              ("before_late", "before", "no full barrier before"),
              ("before_late", "after", None),
              ("before_ok", "after", "no full barrier after"),
              ("full_no_fence", "full", "no full barrier after"),
              ("full_fence_skipped", "full", "no full barrier after"),
              ("full_no_release", "full", "no release or full barrier before"),
              ("acquire_missing", "acquire", "no acquire or full barrier after"),
              ("acquire_missing", "release", "no release or full barrier before"),
              ("plain_set_release", "release", "no release or full barrier before"),
              ("plain_read_acquire", "acquire", "no acquire or full barrier after"),
              ("ldar_read_acquire", "acquire", None),
              ("cmpxchg_fail_ok", "full?", None),
              ("cmpxchg_success_no_fence", "full?", "no full barrier after"),
              ("lse_no_al", "full", "with the alternatives applied: no full barrier"),
              ("status_unchecked", "full?", "no test of its status register"),
              ("tbnz_ok", "full", None),
              ("const_flag_ok", "full?", None),
              ("const_flag_skips", "full?", "no full barrier after"),
              ("dmb_st_not_full", "full", "no full barrier after"),
              ("llsc_spill", "full", "LL/SC: 'str x1, [sp, #8]' at "),
              ("llsc_spill", "loops=1", None),
              ("llsc_reload_ok", "full", None),
              ("llsc_reload_ok", "loops=1", None),
              ("llsc_exit_load", "full?", None),
              ("llsc_exit_load", "loops=1", None),
              ("llsc_two", "full?", "LL/SC: 'ldr x5, [sp, #8]'"),
              ("llsc_two", "loops=2", None),
              ("full_no_fence", "loops=1", None),
              ("lse_no_al", "loops=1", None),
              ("ldar_read_acquire", "loops=0", None)],
    "riscv64": [("full_ok", "loops=0", None),
                ("cas_loop_ok", "executed=7", None),
                ("full_no_fence", "full", "no full barrier after"),
                ("full_no_fence", "relaxed", None),
                ("amo_aq", "full", "no release or full barrier before"),
                ("amo_aq", "full", "no full barrier after"),
                ("amo_aq", "acquire", None),
                ("amo_rl", "full", "no full barrier after"),
                ("amo_rl", "release", None),
                ("amo_rl", "acquire", "no acquire or full barrier after"),
                ("cas_loop_ok", "loops=1", None),
                ("cmpxchg_ok", "full?", None),
                ("cmpxchg_ok", "full", "a path performs no"),
                ("cmpxchg_no_fence", "full?", "no full barrier after 'sc.w.rl"),
                ("lr_aqrl_pair", "full", "no full barrier after 'sc.w.rl"),
                ("lr_aqrl_pair", "acquire", None),
                ("sc_aqrl", "full", None),
                ("sc_aqrl", "release", None),
                # sc.aqrl: the LR before it, to the same address, precedes it.
                ("sc_aqrl", "acquire", None),
                ("sc_aq_only", "acquire", "no acquire or full barrier after"),
                ("gcc_amo_full", "full", None),
                ("cmpxchg_no_fence", "acquire?", "no acquire or full barrier after"),
                ("tso_after", "full", "no full barrier after"),
                ("tso_after", "acquire", None),
                ("fence_read_acquire", "acquire", None),
                ("rmb_read_acquire", "acquire", "no acquire or full barrier after"),
                ("plain_read_acquire", "acquire", "no acquire or full barrier after"),
                ("fence_set_release", "release", None),
                ("wmb_set_release", "release", "no release or full barrier before"),
                ("io_set_release", "release", None),
                ("plain_set_release", "release", "no release or full barrier before"),
                ("before_ok", "before", None),
                ("before_ok", "after", "no full barrier after"),
                ("before_late", "before", "no full barrier before"),
                ("before_late", "after", None),
                ("iorw_full", "full", None),
                ("status_unchecked", "full?", "no test of its status register"),
                ("status_beqz_ok", "full", None),
                ("status_bne_ok", "full", None),
                ("llsc_spill", "full", "LL/SC: 'sd a1,8(sp)' at "),
                ("llsc_spill", "loops=1", None),
                ("llsc_reload_ok", "full", None),
                ("llsc_reload_ok", "loops=1", None),
                ("llsc_exit_load", "full?", None),
                ("llsc_exit_load", "loops=1", None),
                ("llsc_two", "full?", "LL/SC: 'ld a3,8(sp)'"),
                ("llsc_two", "loops=2", None),
                ("libcall", "full?", "calls __atomic_compare_exchange_4"),
                ("libcall_tail", "full", "calls __atomic_fetch_add_4"),
                ("gcc12_cmpxchg", "full?", "no release or full barrier before"),
                ("gcc12_cmpxchg", "release?", "no release or full barrier before"),
                # nor an acquire: sc.w.aq alone orders nothing more
                ("gcc12_cmpxchg", "acquire?", "no acquire or full barrier after"),
                ("cmp_again_ok", "full?", None),
                ("cmp_masked_ok", "full?", None),
                ("cmp_other_skips", "full?", "no full barrier after 'sc.w.rl"),
                ("index_ok", "loads(w_x)=1", None)],
    "ppc64le": [("full_ok", "loops=1", None),
                ("cas_loop_ok", "executed=7", None),
                ("full_ok", "relaxed", None),
                ("full_no_fence", "full", "no full barrier after"),
                ("full_no_fence", "relaxed", None),
                ("full_fence_skipped", "full", "no full barrier after"),
                ("exit_sync_removed", "full", "no full barrier after 'stwcx."),
                ("exit_sync_removed", "before", None),
                ("exit_sync_removed", "after", "no full barrier after"),
                ("entry_sync_removed", "full", "no full barrier before 'stwcx."),
                ("entry_sync_removed", "after", None),
                ("entry_sync_removed", "before", "no full barrier before"),
                # Neither compiler's SEQ_CST is the kernel's fully ordered op.
                ("gcc12_seq_cst", "full", "no full barrier after 'stwcx."),
                ("gcc12_seq_cst", "acquire", None),
                ("clang19_seq_cst", "full", "no full barrier after 'stwcx."),
                ("clang19_seq_cst", "acquire", None),
                ("clang19_seq_cst", "release", None),
                ("lwsync_entry", "full", "no full barrier before 'stwcx."),
                ("lwsync_entry", "release", None),
                ("lwsync_entry", "after", None),
                ("acquire_isync", "acquire", None),
                ("acquire_isync", "release", "no release or full barrier before"),
                ("release_lwsync", "release", None),
                ("release_lwsync", "acquire", "no acquire or full barrier after"),
                ("eieio_exit", "full", "no full barrier after"),
                ("isync_read_acquire", "acquire", "no acquire or full barrier after"),
                ("other_branch_read_acquire", "acquire", "no acquire or full barrier after"),
                ("ctrl_isync_read_acquire", "acquire", None),
                ("cr7_read_acquire", "acquire", None),
                ("lwsync_read_acquire", "acquire", None),
                ("lwsync_set_release", "release", None),
                ("eieio_set_release", "release", "no release or full barrier before"),
                ("status_unchecked", "full?", "no test of its status register"),
                ("status_other_field", "full?", "no test of its status register"),
                ("status_beq_ok", "full", None),
                ("cmpxchg_ok", "full?", None),
                ("cmpxchg_ok", "full", "a path performs no"),
                ("cmpxchg_no_exit", "full?", "no full barrier after 'stwcx."),
                ("cmpxchg_gcc12", "full?", "no full barrier after 'stwcx."),
                ("cmpxchg_gcc12", "acquire?", None),
                ("cmpxchg_acquire_ok", "acquire?", None),
                ("cmpxchg_acquire_ok", "full?", "no full barrier before"),
                ("cmp_again_ok", "full?", None),
                ("cmp_other_skips", "full?", "no full barrier after 'stwcx."),
                # clang's: the compare repeated, and a conditional return
                # on it; the try_cmpxchg() loop, the compare after it.
                ("cmpxchg_bnelr_ok", "full?", None),
                ("cmpxchg_beqlr", "full?", "no full barrier after 'stdcx."),
                ("dec_if_positive_ok", "full?", None),
                ("dec_if_positive_ok", "loops=1", None),
                ("dec_if_positive_no_exit", "full?", "no full barrier after 'stwcx."),
                # GCC's try_cmpxchg(): stcx.'s success, CR0's EQ bit, in r3.
                ("try_cmpxchg_gcc12_ok", "full?", None),
                ("try_cmpxchg_gcc12_ok", "full", "a path performs no"),
                ("try_cmpxchg_cr7_ok", "full?", None),
                ("try_cmpxchg_beq_inverted", "full?", "no full barrier after 'stwcx."),
                ("try_cmpxchg_gt_bit", "full?", "no full barrier after 'stwcx."),
                ("try_cmpxchg_other_field", "full?", "no full barrier after 'stwcx."),
                ("try_cmpxchg_cr0_rewritten", "full?", "no full barrier after 'stwcx."),
                ("llsc_spill", "full", "LL/SC: 'std r4,32(r1)' at "),
                ("llsc_spill", "loops=1", None),
                ("llsc_reload_ok", "full", None),
                ("llsc_reload_ok", "loops=1", None),
                ("llsc_exit_load", "full?", None),
                ("llsc_exit_load", "loops=1", None),
                ("libcall", "full", "calls __atomic_fetch_add_4"),
                ("libcall_tail", "full", "calls __atomic_fetch_add_4"),
                ("lwsync_read_acquire", "loops=0", None),
                ("toc_split_ok", "stores(w_b)=1", None),
                ("toc_split_ok", "ctrl_or_data(w_b, w_a)", None),
                ("index_ok", "loads(w_x)=1", None)],
}


def selftest(which, verbose=False):
    sys.path.insert(0, str(Path(__file__).parent))
    from report import arches
    bad = 0
    # DIR/kconfig gives the build's options, and whether it offers the
    # builtins.
    for text, want in (("CONFIG_HAVE_MARCH_Z10_FEATURES=y\n"
                        "# CONFIG_HAVE_MARCH_Z196_FEATURES is not set\n"
                        "# CONFIG_ARCH_SUPPORTS_ATOMIC_BUILTINS is not set\n", (False, False)),
                       ("CONFIG_HAVE_MARCH_Z196_FEATURES=y\n"
                        + "".join(f"{o}=y\n" for o in BUILTINS_OPTIONS),
                        (True, True))):
        with tempfile.TemporaryDirectory() as tmp:
            (Path(tmp) / "kconfig").write_text(text)
            options = build_config("s390x", Path(tmp))[0]
        got = ("CONFIG_HAVE_MARCH_Z196_FEATURES" in options, offered("builtins", options))
        if got != want or not offered("asm", options):
            print(f"audit selftest: build_config of {text!r}: (z196, builtins offered) {got}, "
                  f"expected {want}")
            bad += 1
    # Without one, no verdict.
    with tempfile.TemporaryDirectory() as tmp:
        try:
            build_config("s390x", Path(tmp))
            print("audit selftest: build_config without a kconfig gave a verdict")
            bad += 1
        except SystemExit:
            pass
    src = Path(__file__).parent / "audit_selftest.S"
    for arch in which:
        prefix = arches()[arch]["prefix"]
        with tempfile.TemporaryDirectory() as tmp:
            obj = Path(tmp) / "selftest.o"
            run(prefix + "gcc", "-c", "-o", str(obj), str(src))
            funcs, every = disassemble(prefix, obj)
            alts = alternatives(prefix, obj, every)
        cases = SELFTEST + SELFTEST_ARCH[arch]
        for fn, check, want, *kconfig in cases:
            # Without one of its own, a case is audited as the kernel's
            # default build (s390: MARCH_Z196).
            kconfig = kconfig[0] if kconfig else Z196
            if fn not in funcs:
                print(f"audit selftest: {arch}: {fn} missing from audit_selftest.S")
                bad += 1
                continue
            if check.rstrip("?") in ("full", "before", "after", "acquire", "release",
                                     "relaxed"):
                got = verdict(arch, fn, funcs[fn], alts, check.rstrip("?"),
                              check.endswith("?"), fn, kconfig)[0]
                got = "; ".join(got) or None
            elif check.startswith("loops="):
                n = Func(arch, fn, funcs[fn]).llsc()[0]
                got = None if str(n) == check[6:] else f"{n} LL/SC loops"
            elif check.startswith("executed="):
                n = verdict(arch, fn, funcs[fn], alts, "relaxed", False, fn, kconfig)[3]
                got = None if str(n) == check[9:] else f"{n} instructions executed"
            else:
                got = check_rule(Func(arch, fn, funcs[fn]), check)
            ok = (got is None) if want is None else (got is not None and want in got)
            bad += not ok
            if not ok or verbose:
                build = f" (kconfig: {' '.join(sorted(kconfig))})" if kconfig else ""
                print(f"audit selftest: {arch}: {fn} {check}{build}: "
                      f"{'ok' if ok else 'expected ' + (want or 'a pass')}, "
                      f"got: {got or 'a pass'}")
        print(f"audit selftest: {arch}: {len(cases)} checks")
    print(f"audit selftest: {'FAILED' if bad else 'every rule flags its violation'}")
    return 1 if bad else 0


MARK = {"pass": "ok", "cost": "cost", "fail": "**FAIL**", "absent": "-"}
UNOFFERED = "would fail (not offered)"      # a failure the build's Kconfig excludes


def table(audits):
    """Markdown of {column: CONFIG.audit.json}: counts, the compiler worries
    (case x column x flavour) and every primitive (primitive x column x
    implementation), with the reasons of what did not simply pass."""
    cols = list(audits)
    out = [f"- {c}: {audits[c].get('compiler') or 'compiler not recorded'}" for c in cols]
    out += ["", "| | " + " | ".join(f"{c}: asm" + f" | {c}: builtins" for c in cols) + " |",
           "|---|" + "---:|" * (2 * len(cols))]
    for v in ("pass", "cost", "fail", "absent"):
        out.append(f"| {v} | " + " | ".join(
            str(sum(1 for r in audits[c]["ordering"] if r["impl"] == i and r["verdict"] == v))
            + (" (not offered)" if v == "fail" and any(
                r.get("offered") is False for r in audits[c]["ordering"] if r["impl"] == i)
               else "")
            for c in cols for i in ("asm", "builtins")) + " |")
    flav = ("once", "builtins", "c11")
    out += ["", "### The compiler worries", "",
            "Each case compiled as the kernel idiom (READ_ONCE/WRITE_ONCE), with the builtins "
            "implementation's atomic_read/atomic_set, and as C11 relaxed `__atomic`; "
            "ok: every rule holds. A guaranteed case must hold; a canary is the programmer's "
            "fault, and *transformed* shows the checker sees what compilers do. The c11 "
            "flavour is the reference, what a relaxed C11 access gets: a guaranteed case it "
            "loses (*transformed*) is the article's worry come true, and fails no run.", "",
            "| case | class | " + " | ".join(f"{c}: {f}" for c in cols for f in flav) + " |",
            "|---|---|" + "---|" * (3 * len(cols))]
    cases = {}
    for c in cols:
        for w in audits[c]["worries"]:
            cases.setdefault((w["case"], w["class"]), {})[(c, w["flavour"])] = w
    notes = []
    for (case, cls), cells in cases.items():
        row = []
        for c in cols:
            for f in flav:
                w = cells.get((c, f))
                if not w:
                    row.append("-")
                    continue
                row.append("ok" if w["verdict"] == "pass" else
                           "*transformed*" if cls == "canary" or w.get("reference")
                           else "**FAIL**" if w.get("offered", True) else UNOFFERED)
                if w["verdict"] != "pass":
                    notes.append(f"- {case}, {c}, {f}"
                                 + (" (not offered)" if row[-1] == UNOFFERED else "")
                                 + f": {'; '.join(w['reasons'])}")
        out.append(f"| {case} | {cls} | " + " | ".join(row) + " |")
    out += ["", "<details><summary>What the checker saw where a rule did not hold</summary>",
            ""] + notes + ["", "</details>", "", "### Every primitive", "",
                           "| primitive | order | " + " | ".join(
                               f"{c}: asm | {c}: builtins" for c in cols) + " |",
                           "|---|---|" + "---|" * (2 * len(cols))]
    prims, notes = {}, []
    for c in cols:
        for r in audits[c]["ordering"]:
            prims.setdefault((r["primitive"], r["function"], r["order"]), {})[(c, r["impl"])] = r
    for (prim, fn, order), cells in prims.items():
        row = []
        for c in cols:
            for i in ("asm", "builtins"):
                r = cells.get((c, i))
                offer = not r or r.get("offered", True)
                row.append(UNOFFERED if r and r["verdict"] == "fail" and not offer else
                           MARK[r["verdict"]] if r else "-")
                if r and r["verdict"] in ("cost", "fail"):
                    notes.append(f"- {fn}, {c}, {i}{'' if offer else ' (not offered)'}: "
                                 f"{'; '.join(r['reasons'])}")
        out.append(f"| {fn[len('audit_'):]} | {order} | " + " | ".join(row) + " |")
    out += ["", "Needless barriers (a cost) and failures:", ""] + (notes or ["- none"])
    return "\n".join(out) + "\n"


def main():
    if len(sys.argv) >= 2 and sys.argv[1] == "--table":
        out, audits = Path(sys.argv[2]), {}
        for arg in sys.argv[3:]:
            name, _, path = arg.partition("=")
            if Path(path).exists():
                audits[name] = json.loads(Path(path).read_text())
        out.write_text("# katomic machine-code audit\n\nGenerated by scripts/audit.py from "
                       + ", ".join(f"{n}.audit.json" for n in audits) + ".\n\n"
                       + table(audits))
        return 0
    if sys.argv[1:] == ["--arches"]:
        print(" ".join(ARCH))
        return 0
    if len(sys.argv) >= 2 and sys.argv[1] == "--selftest":
        verbose = "-v" in sys.argv[2:]
        return selftest([a for a in sys.argv[2:] if a != "-v"] or list(ARCH), verbose)
    if len(sys.argv) != 4 or sys.argv[1] not in ARCH:
        sys.exit(__doc__)
    arch, directory, out = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
    sys.path.insert(0, str(Path(__file__).parent))
    from report import arches
    prefix = arches()[arch]["prefix"]
    kconfig, source = build_config(arch, directory)
    # The options the rules consulted, true or false.
    options = {o: o in kconfig for o in ARCH[arch]["full_if"].values()}
    for rx, o in ARCH[arch]["full_if"].items():
        print(f"audit: {arch}: {o}={'y' if options[o] else 'n'} ({source}): "
              f"'{rx}' is {'' if options[o] else 'not '}a full barrier")
    ordering = audit_ordering(arch, prefix, directory, kconfig)
    worries = audit_worries(arch, prefix, directory, kconfig)
    # What the build does not offer is audited, and shown, but fails no run.
    failed = [r for r in ordering if r["verdict"] == "fail" and r.get("offered", True)] + \
        [w for w in worries if w["verdict"] == "fail" and w["class"] == "guaranteed"
         and not w["reference"] and w.get("offered", True)]
    unoffered = "not offered by this build's Kconfig"
    cc = directory / "compiler"
    compiler = cc.read_text().strip() if cc.exists() else ""
    out.write_text(json.dumps({"arch": arch, "compiler": compiler, "kconfig": options,
                               "ordering": ordering, "worries": worries,
                               "failed": len(failed)}, indent=1) + "\n")
    for impl in ("asm", "builtins"):
        n = {v: sum(1 for r in ordering if r["impl"] == impl and r["verdict"] == v)
             for v in ("pass", "cost", "fail", "absent")}
        print(f"audit: {arch} {impl}: " + ("" if offered(impl, kconfig) else
                                          f"{unoffered} ({source}: "
                                          f"{' or '.join(sorted(BUILTINS_OPTIONS - kconfig))}"
                                          " not set): ")
              + f"{n['pass'] + n['cost'] + n['fail']} functions, "
              f"{n['fail']} {'fail' if offered(impl, kconfig) else 'would fail'}, "
              f"{n['cost']} with a needless barrier, {n['absent']} not in this kernel")
        llsc = [r["llsc"] for r in ordering if r["impl"] == impl and "llsc" in r]
        if llsc:        # functions per number of loops, e.g. "0: 10, 1: 230"
            per = {n: sum(1 for x in llsc if x["loops"] == n)
                   for n in sorted({x["loops"] for x in llsc})}
            print(f"audit: {arch} {impl}: LL/SC: {sum(x['loops'] for x in llsc)} loops in "
                  f"{len(llsc)} functions (functions per count of loops: "
                  f"{', '.join(f'{n}: {c}' for n, c in per.items())}), "
                  f"{sum(1 for x in llsc if x['inside'])} with a memory access inside")
    for flavour in ("once", "builtins", "c11"):
        mine = [w for w in worries if w["flavour"] == flavour]
        g = [w for w in mine if w["class"] == "guaranteed"]
        c = [w for w in mine if w["class"] == "canary"]
        print(f"audit: {arch} worries ({flavour}): {sum(w['verdict'] == 'pass' for w in g)} "
              f"of {len(g)} guaranteed cases kept, {sum(w['verdict'] == 'fail' for w in c)} "
              f"of {len(c)} canaries transformed")
    for w in worries:
        if w["verdict"] == "fail" and w["class"] == "guaranteed":
            print(f"audit: {arch} " + ("C11 transformed" if w["reference"] else "FAIL"
                                       if w.get("offered", True) else unoffered + ": would FAIL")
                  + f" {w['case']} ({w['flavour']}): {'; '.join(w['reasons'])}")
    for r in ordering:
        if r["verdict"] == "fail":
            print(f"audit: {arch} " + ("FAIL" if r.get("offered", True) else
                                       unoffered + ": would FAIL")
                  + f" {r['impl']} {r['primitive']} ({r['function']}): "
                  f"{'; '.join(r['reasons'])}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
