# SPDX-License-Identifier: GPL-2.0
"""The compiler worries: rules about the accesses to named locations."""

import re

from .. import SCRIPTS
from .disasm import disassemble, reg, symbolise
from .flow import Func, conditional_branch, paths, taint
from .rules import offered

# The article's worries (scripts/worries.c, scripts/worries.tsv): each rule
# is a fact about the accesses to named locations on the paths of a function.


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
    if name in ("loads", "stores"):
        return count_rule(f, name, args[0], cmp, n, every)
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
               f.M.mem_base(next(a for a in i.args if f.M.is_mem(f.A, a, i))) in t[k]]
        if direct:
            return f"loads {y} directly ('{direct[0].text}'), not through the value of {x}"
        return None if via else f"no load through the value loaded from {x}"
    return dep_rule(f, name, y, x, t, every)


def count_rule(f, name, loc, cmp, n, every):
    """loads(LOC) or stores(LOC) =N or <=N on every path: "=N" counts the
    accesses certainly to LOC, and a path with one that only may be (a
    selected address) fails; "<=N" counts both."""
    if loc.startswith("*"):
        # *X+off: the location at the value loaded from X, plus off.
        x, _, off = loc[1:].partition("+")
        t = taint(f, {k for k in range(len(f.insns)) if loads(f, k, x)})

        def pick(f, k, _, may=True):
            i = f.insns[k]
            if not i.acc or i.acc.loc or i.acc.may or i.acc.stack or \
                    (i.acc.kind == "store") != (name == "stores"):
                return False
            m = next(a for a in i.args if f.M.is_mem(f.A, a, i))
            return f.M.mem_base(m) in t[k] and f.M.disp(m) == int(off or "0", 0)
    else:
        pick = loads if name == "loads" else stores
    counts = sorted({(sum(1 for k in p if pick(f, k, loc, False)),
                      sum(1 for k in p if pick(f, k, loc))) for p in every})
    ok = all(d == n == m for d, m in counts) if cmp == "=" else \
        all(m <= n for d, m in counts)
    return None if ok else f"{name} of {loc} per path: " \
        f"{sorted({m for d, m in counts})}, want {cmp}{n}"


def dep_rule(f, name, y, x, t, every):
    """store_after_load(Y, X), ctrl(Y, X), ctrl_or_data(Y, X): on every
    path the store to Y comes after the load of X (t: what that load
    taints), behind a branch on its value, or stores it."""
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
                    m = next(a for a in i.args if f.M.is_mem(f.A, a, i))
                    if seen_load and i.acc.may and f.M.mem_base(m) in t[k]:
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


WORRIES = SCRIPTS / "worries.tsv"


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
