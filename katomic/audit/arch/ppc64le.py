# SPDX-License-Identifier: GPL-2.0
"""ppc64le (Power ISA): its rules, and how its instructions access memory."""

import re

from ..herd import Unknown, signed, thread
from .defaults import got_load, reloc_addend  # noqa: F401
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


# The litmus translation: a compiled thread in herd7's PPC syntax, for
# katomic/litmus_arch.py, which runs it under ppc.cat.
# powerpc: the forms herd7's PPC reads. Its values have no width: the
# doubleword forms are the word forms, and 1 and 2-byte lbarx/lharx and
# stbcx./sthcx. the word's on a location of their own.
PPC_SAME = {"hwsync": "sync", "ldarx": "lwarx", "lbarx": "lwarx", "lharx": "lwarx",
            "stdcx.": "stwcx.", "stbcx.": "stwcx.", "sthcx.": "stwcx.", "cmpd": "cmpw",
            "cmpdi": "cmpwi", "addic": "addi", "extsb": "mr", "extsh": "mr"}
PPC_KNOWN = re.compile(r"li|lis|addi|addis|add|subf|mr|or|ori|xor|xori|and\.?|andi\.|mulli|"
                       r"extsw|rlwinm|clrldi|cmpw|cmpwi|cmplwi|lbz|lhz|lwz|lwa|ld|"
                       r"stb|sth|stw|std|lwarx|stwcx\.|sync|lwsync|isync|eieio|b|beq|bne|blt|"
                       r"ble|bgt|bge")
# What reads a carry, or sets one that is read: of these, only the test
# for nonzero (PPC_NONZERO) translates.
PPC_CARRY = ("subfe", "subfic", "adde", "addze", "addme", "subfze", "subfme")
PPC_ARGS = [f"r{n}" for n in range(3, 11)]
PPC_SCRATCH = "r12"


def ppc_insn(i, labels):
    """One instruction in herd7's PPC syntax, None to drop it."""
    m, a = i.mnem.rstrip("+-"), list(i.args)
    if m == "nop":
        return None
    if m == "blr":
        return "b Lret"
    if re.fullmatch(r"b(eq|ne|lt|le|gt|ge)lr", m):
        return f"{m[:-2]} {a[0] + ',' if a else ''}Lret"
    if i.extern:
        raise Unknown(f"a call or jump out of the thread ({i.text})")
    if any(re.search(r"\(r1\)$", x) for x in a):
        raise Unknown(f"a stack access ({i.text})")
    if any(re.fullmatch(r"cr[1-7]", x) for x in a):
        raise Unknown(f"a condition register field other than CR0, which herd7's PPC "
                      f"does not have ({i.text})")
    m = PPC_SAME.get(m, m)
    # Clearing the low bits of a pointer argument is the address of the
    # word around a 1 or 2-byte location; of a value, an and with a mask.
    if m in ("clrrdi", "clrrwi"):
        if i.addr not in PPC_VALUES:
            raise Unknown(f"the address of the word around a 1 or 2-byte location ({i.text})")
        if int(a[2], 0) > 15:
            raise Unknown(f"{m} of a value by more than 15 bits ({i.text})")
        t = PPC_SCRATCH
        return f"li {t},{-(1 << int(a[2], 0))}\nand {a[0]},{a[1]},{t}"
    # addic rT,rS,-1; subfe rT,rT,rS is rS != 0 (the carry of the addic):
    # as for a count of leading zeros, the sign bit of rS | -rS. Any other
    # carry stopped the thread in ppc_thread().
    if m == "subfe":
        t = PPC_SCRATCH
        return f"mulli {t},{a[2]},-1\nor {t},{t},{a[2]}\nrlwinm {a[0]},{t},1,31,31"
    # herd7's PPC computes only add, subf, mulli, and, or, xor and rlwinm
    # of these: the others as what gives their value. Its values have no
    # width; the tests' are small, and rlwinm rotates their low word.
    if m == "neg":
        m, a = "mulli", [a[0], a[1], "-1"]
    if m == "not":
        return f"mulli {a[0]},{a[1]},-1\naddi {a[0]},{a[0]},-1"
    # No count of leading zeros: compilers use it for x == 0, the count
    # shifted right by 5 (6), which ppc_thread() checks: x == 0 itself,
    # ((x | -x) has its sign bit unless x is 0) ^ 1, then the shift a move.
    if m in ("cntlzw", "cntlzd"):
        t = PPC_SCRATCH
        return (f"mulli {t},{a[1]},-1\nor {t},{t},{a[1]}\nrlwinm {t},{t},1,31,31\n"
                f"xori {a[0]},{t},1")
    # Clear the left bits: an and with the mask, built in the scratch
    # register (andi. would set CR0 as well).
    if m == "clrlwi":
        n = int(a[2], 0)
        if n < 16:
            raise Unknown(f"clrlwi of {n} bits, which these tests do not need ({i.text})")
        t = PPC_SCRATCH
        return f"li {t},0\nori {t},{t},{(1 << (32 - n)) - 1}\nand {a[0]},{a[1]},{t}"
    if i.addr in PPC_COUNTED:
        return f"mr {a[0]},{a[1]}"
    # CR0's EQ bit as 0 or 1 (mfocrf 128, then rlwinm 3,31,31 takes it):
    # herd7's mfcr reads CR0 alone, EQ as 2, and its rlwinm rotates by 31
    # wrong (rot64 shifts right by 63 - n); an and and a divide instead.
    if m == "mfocrf":
        if a[1] != "128" or i.addr not in PPC_CR0:
            raise Unknown(f"mfocrf other than of CR0's EQ bit ({i.text})")
        return f"mfcr {a[0]}"
    if i.addr in PPC_CR0.values():
        t = PPC_SCRATCH
        return f"li {t},2\nand {a[0]},{a[1]},{t}\ndivw {a[0]},{a[0]},{t}"
    # The sign bit, as srwi 31 (srdi 63) takes it: herd7's rlwinm is right
    # for this rotation, not for others (rlwinm 27,5,31 of 32 gives 2).
    if (m, a[2:]) in (("srwi", ["31"]), ("srdi", ["63"])):
        m, a = "rlwinm", [a[0], a[1], "1", "31", "31"]
    if not PPC_KNOWN.fullmatch(m):
        raise Unknown(f"{m}, which the translator does not know ({i.text})")
    if i.target is not None:
        a[-1] = labels[i.target]
    # objdump's indexed address (disasm.parse: 0(rB) or (rA,rB)) as herd7's rA,rB.
    if m in ("lwarx", "stwcx."):
        x = a[1]
        a[1:2] = ["r0", x[2:-1]] if x.startswith("0(") else x.strip("()").split(",")
    a = [str(signed(int(x, 0), 64)) if re.fullmatch(r"-?(0x[0-9a-f]+|\d+)", x) else x for x in a]
    return f"{m} {','.join(a)}".strip()


PPC_COUNTED = set()     # the shifts of a count of leading zeros
PPC_CR0 = {}            # mfocrf of CR0: the rlwinm that takes its EQ bit
PPC_NONZERO = set()     # subfe after addic -1: a test for nonzero
PPC_VALUES = set()      # clrrdi/clrrwi of a register the code wrote


def ppc_thread(insns):
    if any(PPC_SCRATCH in i.args for i in insns):
        raise Unknown(f"{PPC_SCRATCH}, the translation's scratch register, in the code")
    PPC_COUNTED.clear()
    for k, i in enumerate(insns):
        if i.mnem not in ("cntlzw", "cntlzd"):
            continue
        use = next((u for u in insns[k + 1:] if i.args[0] in u.args[1:]), None)
        shift = ("srwi", "5") if i.mnem == "cntlzw" else ("srdi", "6")
        if use is None or (use.mnem, use.args[2]) != shift or use.args[1] != i.args[0]:
            raise Unknown(f"{i.mnem} not shifted right by {shift[1]} to test for zero ({i.text})")
        PPC_COUNTED.add(use.addr)
    PPC_NONZERO.clear()
    PPC_VALUES.clear()
    written = set()
    for k, i in enumerate(insns):
        if i.mnem in ("clrrdi", "clrrwi") and i.args[1] in written:
            PPC_VALUES.add(i.addr)
        if (i.mnem == "subfe" and k and insns[k - 1].mnem == "addic" and i.args[1] == i.args[0]
                and insns[k - 1].args == [i.args[0], i.args[2], "-1"]):
            PPC_NONZERO.add(i.addr)
        if i.args and i.target is None and not i.mnem.startswith(("st", "cmp")):
            written.add(i.args[0])
    # A carry the test for nonzero does not explain: the thread's values
    # need it, whatever else it would take, so that is its reason.
    carry = next((i for i in insns if i.mnem in PPC_CARRY and i.addr not in PPC_NONZERO), None)
    if carry:
        raise Unknown(f"a carry, which herd7's PPC does not have ({carry.text})")
    PPC_CR0.clear()
    for i, use in zip(insns, insns[1:]):
        if i.mnem == "mfocrf" and use.mnem == "rlwinm" and use.args == [i.args[0]] * 2 + [
                "3", "31", "31"]:
            PPC_CR0[i.addr] = use.addr
    out = [x for s in thread(insns, ppc_insn, "b {}", {"b", "blr"}, "nop") for x in s.split("\n")]
    return ppc_acquire(out)


def ppc_acquire(out):
    """lwarx rD; ...; stwcx.; bne- retry; isync: the Power ISA's acquire
    (Book II, Appendix B.2.1.1, "Acquire Lock": the branch on the
    store-conditional, then isync). Its ordering runs from the lwarx's read
    through the reservation, which herd7's stwcx. does not carry: it sets
    CR0 from a constant (PPCSem.ml, flags_res), so the branch depends on no
    read and ppc.cat sees no ctrl+isync. A compare of rD with itself and a
    branch on it before the isync give that dependency, and leave CR0 as a
    stwcx. that succeeded does (EQ)."""
    res, n = [], 0
    for k, x in enumerate(out):
        if (x == "isync" and k >= 2 and out[k - 2].startswith("stwcx.")
                and re.fullmatch(r"bne L\w+", out[k - 1])):
            rd = next(y.split()[1].split(",")[0] for y in reversed(out[:k])
                      if y.startswith("lwarx "))
            res += [f"cmpw {rd},{rd}", f"bne Lacq{n}", f"Lacq{n}:"]
            n += 1
        res.append(x)
    return res


# The self-test's weakening of P0: every barrier and ordering taken out.
WEAKEN = [(r"^(hw|lw)?sync$", "nop"), (r"^isync$", "nop")]
HERD = {"herd": "PPC", "model": "ppc.cat", "args": PPC_ARGS,
        "reg": lambda r: r, "thread": ppc_thread, "weaken": WEAKEN}
