# SPDX-License-Identifier: GPL-2.0
"""The orderings of Documentation/atomic_t.txt, per probe function."""

import re
import sys

from .disasm import EXIT, alternatives, disassemble, patched, reg
from .flow import Func, conditional_branch, executed, find_cc, taint
from .rules import offered
from .values import rv_step


def check_ordering(f, order, conditional, primitive):
    """(problems, costs) of f, which implements primitive with the given
    order (full, acquire, release, relaxed; before, after: the access
    ordered after the earlier ones, or before the later ones, as
    smp_mb__before_atomic() and smp_mb__after_atomic() make it)."""
    c = Ordering(f, order, primitive)
    c.performs(conditional, primitive)
    c.after()
    c.before()
    return c.problems, c.costs()


class Ordering:
    """The check of one function: the accesses of its primitive (acc), and
    for a store-exclusive the edges where it is performed (performed: its
    status check's success edges)."""

    def __init__(self, f, order, primitive):
        I = self.I = f.insns
        self.f, self.order, self.weak, self.tainted = f, order, f.A["model"] == "weak", {}
        self.problems = [f"calls {', '.join(f.calls)}: the audit cannot see inside"] \
            if f.calls else []
        kind = "load" if re.search(r"_read(_acquire)?$", primitive) else \
            "store" if re.search(r"_set(_release)?$", primitive) else None
        rmw = ("rmw", "sx", "local") if primitive.endswith("_local") else ("rmw", "sx")
        self.acc = [k for k, i in enumerate(I) if i.acc and not i.acc.stack and
                    (i.acc.kind == kind if kind else i.acc.kind in rmw)]
        self.what = kind or "atomic read-modify-write"
        self.performed = {}
        for k in self.acc:
            if I[k].acc.kind == "sx":
                check = f.status_check(k)
                if check is None:
                    self.problems.append(f"'{I[k].text}' at {I[k].addr:x}: no test of its "
                                         "status register follows: the audit cannot tell "
                                         "when it stored")
                else:
                    self.performed.update({e: k for e in check[0]})

    def full(self, k):
        return self.f.is_("full", k)

    def performs(self, conditional, primitive):
        """Every path performs the access, unless the op is conditional; a
        failed fully ordered cmpxchg serialises where the architecture's
        smp_mb__after_atomic() relies on it."""
        f, I, acc, what = self.f, self.I, self.acc, self.what
        if not acc:
            local = [f"'{i.text}' at {i.addr:x}" for i in I if i.acc and i.acc.kind == "local"]
            self.problems.append(f"performs no {what}" + (
                f" ({', '.join(local)}: atomic only against this CPU)" if local else ""))
        elif not conditional:
            path = f.find([0], stop=lambda k: k in acc and I[k].acc.kind != "sx",
                          prune=set(self.performed))
            if path:
                self.problems.append(f"a path performs no {what}: {f.show(path)}")
        elif self.order == "full" and f.A.get("fail_serialises") and "cmpxchg" in primitive \
                and not primitive.endswith("_local"):
            path = find_cc(f, stop=self.full)
            if path:
                self.problems.append("a path, a failed cmpxchg, has no full barrier, which "
                                     "smp_mb__after_atomic() relies on where it is barrier(): "
                                     + f.show(path) + f.lacking(path))

    def load_half(self, k):
        """The load of the access at k: a store-exclusive's load-exclusive."""
        I = self.I
        if I[k].acc.kind != "sx":
            return k
        return next((j for j in range(k - 1, -1, -1) if I[j].acc and I[j].acc.kind == "lx"), k)

    def full_pair(self, k):
        """Whether the access at k and the fence before it are a full
        barrier (riscv64.py's FULL_PAIR)."""
        I, pair = self.I, self.f.M.FULL_PAIR
        return bool(pair) and k > 0 and re.fullmatch(pair[0], I[k].mnem) is not None and \
            re.fullmatch(pair[1], I[k - 1].text) is not None and \
            not any(i.target == I[k].addr for i in I)

    def waits(self, k):
        """What the access at k leaves waiting: (for a full barrier, for an
        acquire: the load, or on riscv the store-exclusive after it, which
        the load precedes as an access to the same address)."""
        f, order, half = self.f, self.order, self.load_half(k)
        return (k if order in ("full", "after") and not self.full(k) and not self.full_pair(k)
                else None,
                k if self.weak and order == "acquire" and not self.full(half) and
                not f.is_("acq", half) and not f.is_("acq", k) else None)

    def branches_on(self, w, k):
        """Whether k is a conditional branch on what the access at w loaded
        (taint(): linear)."""
        if w not in self.tainted:
            self.tainted[w] = taint(self.f, {self.load_half(w)})
        return conditional_branch(self.f, k) and "cc" in self.tainted[w][k]

    def after(self):
        """The barrier after: every path from the entry, remembering an
        access still waiting for it. A state is (node, the last flag setter,
        what the flags are known to say, the access waiting for a full
        barrier, the one waiting for an acquire, consts, values, dep):
        consts, the registers a MOV of a constant set on this path and
        known, the conditions tested (arm64: FLAG_SETTERS); values, what
        riscv's and powerpc's compares on this path said (rv_step()); dep,
        a branch on the value the acquire waits for was taken (powerpc's
        isync orders only behind one)."""
        start = (0, None, (), None, None, (), (frozenset(), frozenset())
                 if self.f.M.VALUES else None, False)
        parent, todo, found = {start: None}, [start], {}
        while todo:
            state = todo.pop()
            if state[0] == EXIT:
                self.report(state, parent, found)
                continue
            for nxt in self.successors(state):
                if nxt not in parent:
                    parent[nxt] = state
                    todo.append(nxt)
        self.problems += list(found.values())

    def report(self, state, parent, found):
        """At the exit: the accesses still waiting, with the path."""
        I, f = self.I, self.f
        for why, w in (("full barrier", state[3]), ("acquire or full barrier", state[4])):
            if w is not None and (why, w) not in found:
                path, st = [], state
                while st:
                    path.append(st[0])
                    st = parent[st]
                found[(why, w)] = (f"no {why} after '{I[w].text}' at {I[w].addr:x}: "
                                   f"{f.show(path[::-1])}{f.lacking(path)}")

    def successors(self, state):
        """The states after state's node, on each edge the path may take."""
        f, I = self.f, self.I
        k, setter, known, pf, pa, consts, values, dep = state
        if self.full(k):
            pf = pa = None
        elif f.is_("acq", k) and not I[k].acc and (dep or not f.is_("ctrl_acq", k)):
            pa = None
        if k in self.acc and I[k].acc.kind != "sx":
            nf, na = self.waits(k)
            pf, pa = nf if nf is not None else pf, na if na is not None else pa
            dep = dep and na is None
        dep = dep or pa is not None and bool(f.A["ctrl_acq"]) and self.branches_on(pa, k)
        cz = cond = None
        if f.M.FLAG_SETTERS:
            cz, cond, consts, setter, known = flags_step(f, k, consts, setter, known)
        out, i = [], I[k]
        for s_ in f.succ(k):
            nk, nf, na, nv, nd = known, pf, pa, values, dep
            taken = s_ == f.at.get(i.target) and s_ != k + 1
            if cz is not None and taken != cz:
                continue
            if values is not None:
                nv = rv_step(f, k, s_, values)
                if nv is None:          # the path so far says it is not taken
                    continue
            if cond:
                want = dict(known).get(cond, None)
                if want is None and f.M.INVERSE.get(cond) in dict(known):
                    want = not dict(known)[f.M.INVERSE[cond]]
                if want is not None and want != taken:
                    continue
                nk = known + ((cond, taken),)
            if (k, s_) in self.performed:      # k branches on the store's status
                wf, wa = self.waits(self.performed[(k, s_)])
                nf, na = wf if wf is not None else nf, wa if wa is not None else na
                nd = nd or wa is not None
            out.append((s_, setter, nk, nf, na, consts, nv, nd))
        return out

    def before(self):
        """The barrier before, on weak models: a full one where the order
        asks for it, else a release; a release fence (riscv fence rw,w)
        orders the earlier accesses before a later store as a release store
        would."""
        f, I, order = self.f, self.I, self.order
        released = lambda k: self.full(k) or (f.is_("rel", k) and not I[k].acc)
        for k in self.acc:
            here = f"'{I[k].text}' at {I[k].addr:x}"
            if self.weak and (order == "before" or order == "full" and f.A["full_before"]) \
                    and not self.full(k):
                path = f.find([0], goal=k, stop=self.full)
                if path:
                    self.problems.append(f"no full barrier before {here}: {f.show(path)}")
            elif self.weak and order in ("full", "release") and not self.full(k) and \
                    not f.is_("rel", k):
                path = f.find([0], goal=k, stop=released)
                if path:
                    self.problems.append(f"no release or full barrier before {here}: "
                                         f"{f.show(path)}")

    def costs(self):
        """Forms stronger than the order asks (weak models), and fences but
        the order's own (riscv: fence r,rw for an acquire)."""
        f, I, order, weak = self.f, self.I, self.order, self.weak
        if order in ("full", "before", "after"):
            return []
        reach = {k for k in range(len(I)) if k == 0 or f.find([0], goal=k)}
        stronger = {"relaxed": ("acq", "rel", "full"), "acquire": ("rel", "full"),
                    "release": ("acq", "full"), **f.A["stronger"]}[order] if weak else ()
        own = {"acquire": "acq", "release": "rel"}.get(order) if weak else None
        fences = sorted({I[k].text for k in reach if f.is_("fence", k) and (
            not own or not f.is_(own, k) or any(f.is_(c, k) for c in stronger))})
        forms = sorted({I[k].mnem for k in reach if I[k].acc and not I[k].acc.stack and
                        not f.is_("fence", k) and any(f.is_(c, k) for c in stronger)})
        return [f"{order} but carries {', '.join(fences + forms)}"] if fences or forms else []


def flags_step(f, k, consts, setter, known):
    """arm64: (whether CBZ/CBNZ/TBZ/TBNZ at k is taken, as a constant its
    register holds says, or None; the condition a b.cond at k tests, or
    None; consts, setter and known after k)."""
    i, cz, cond = f.insns[k], None, None
    if i.mnem in ("cbz", "cbnz", "tbz", "tbnz") and reg(i.args[0]) in dict(consts):
        v = dict(consts)[reg(i.args[0])]
        if i.mnem.startswith("tb"):
            v &= 1 << int(i.args[1].strip().lstrip("#"), 0)
        cz = (v != 0) == i.mnem.endswith("nz")
    consts = tuple((r, v) for r, v in consts if r not in i.dest)
    m = re.fullmatch(r"#(-?(?:0x)?[0-9a-f]+)|[wx]zr", i.args[1]) \
        if i.mnem == "mov" and len(i.args) == 2 else None
    if m and i.dest:
        consts += ((i.dest[0], int(m.group(1), 0) if m.group(1) else 0),)
    if f.M.FLAG_SETTERS.fullmatch(i.mnem):
        setter, known = k, ()
    elif i.mnem.startswith("b.") and i.target is not None:
        cond = i.mnem[2:]
    return cz, cond, consts, setter, known


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
