# SPDX-License-Identifier: GPL-2.0
"""The architectures' rules: which instructions order, access, branch."""

import re
import sys

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
