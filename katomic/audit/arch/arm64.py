# SPDX-License-Identifier: GPL-2.0
"""arm64: its rules, and how its instructions access memory."""

import re

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
