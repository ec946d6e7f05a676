# SPDX-License-Identifier: GPL-2.0
"""The orderings of Documentation/atomic_t.txt, per probe function."""

import re
import sys

from .arch.riscv64 import RV_AMO, RV_RW
from .disasm import alternatives, disassemble, patched, reg
from .flow import EXIT, FLAG_SETTERS, INVERSE, Func, conditional_branch, executed, find_cc, taint
from .rules import offered
from .values import rv_step

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
