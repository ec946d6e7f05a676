# SPDX-License-Identifier: GPL-2.0
"""Control flow: paths, the condition code, and what a load taints."""

import re

from .access import accesses
from .arch import MODULES
from .disasm import EXIT, RETURN_THUNKS, TRAPS, matches, reg
from .rules import rules


class Func:
    """One function's instructions and control-flow graph."""

    def __init__(self, arch, name, insns, kconfig=None):
        self.arch, self.name, self.A = arch, name, rules(arch, kconfig)
        self.M = MODULES[arch]
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
        st = self.M.STATUS_REG or reg(self.insns[k].args[0])
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


def find_cc(f, stop):
    """f.find([0], stop=stop), but where the architecture follows the
    condition code (s390x's cc_path()), a path whose branches contradict
    each other on it is not one."""
    return f.M.cc_path(f, stop) if f.M.cc_path else f.find([0], stop=stop)


def conditional_branch(f, k):
    i = f.insns[k]
    return (i.target is not None and not f.is_("jump", k)) or f.is_("cond_ret", k)


def taint(f, sources):
    """Per instruction index, the registers (and 'cc', the flags) holding a
    value derived from what the instructions at sources loaded; linear,
    which is exact for the straight-line cases worries.c holds."""
    bad, out = set(), []
    readers = re.compile(f"(?:{f.M.FLAG_READERS})")
    moves = re.compile(f"(?:{f.M.MOVES})")
    for k, i in enumerate(f.insns):
        out.append(set(bad))

        def regs(args):
            return {reg(x) for a in args for x in re.split(r"[(),\[\]\s#]+", a) if reg(x)}
        # A move's sources are its operands but the destination (x86: the last).
        srcs = regs(i.args[:-1] if f.M.DEST_LAST else i.args[1:]) \
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
