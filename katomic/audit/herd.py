# SPDX-License-Identifier: GPL-2.0
"""A compiled thread in herd7's syntax: what the architectures' translators
(HERD["thread"] of katomic/audit/arch/) share. katomic/litmus_arch.py runs
herd7 on the tests they make."""


class Unknown(Exception):
    """An instruction or operand the translator does not know."""


def signed(v, bits):
    """objdump's unsigned immediate as the signed value herd7 reads."""
    return v - (1 << bits) if v >= 1 << (bits - 1) else v


def blocks(insns, ends):
    """The thread's basic blocks in an order where every backward branch
    closes a loop (its target dominates it): herd7 takes each backward
    branch for a loop, and -unroll 0 cuts them all. ENDS: the mnemonics
    after which nothing falls through. [(block, the block its fall-through
    now needs a jump to, or None)]."""
    starts = {insns[0].addr} | {i.target for i in insns if i.target is not None}
    starts |= {b.addr for a, b in zip(insns, insns[1:]) if a.target is not None or a.mnem in ends}
    bl = {}
    for i in insns:
        bl.setdefault(i.addr if i.addr in starts else max(bl), []).append(i)
    order = list(bl)
    fall = {b: (order[k + 1] if k + 1 < len(order) and bl[b][-1].mnem not in ends else None)
            for k, b in enumerate(order)}
    succ = {b: {x for x in (bl[b][-1].target, fall[b]) if x is not None} for b in order}
    # Code no path reaches (the other side of an alternative) left out.
    seen, todo = set(), [order[0]]
    while todo:
        b = todo.pop()
        if b not in seen:
            seen.add(b)
            todo += succ[b]
    order = [b for b in order if b in seen]
    dom = {b: set(order) for b in order}
    dom[order[0]] = {order[0]}
    changed = True
    while changed:
        changed = False
        for b in order[1:]:
            preds = [dom[p] for p in order if b in succ[p]]
            new = {b} | (set.intersection(*preds) if preds else set())
            changed |= new != dom[b]
            dom[b] = new
    # Kahn's order on the edges that close no loop, lowest address first.
    fwd = {b: [x for x in succ[b] if x not in dom[b]] for b in order}
    indeg = {b: sum(b in fwd[p] for p in order) for b in order}
    ready, out = [order[0]], []
    while ready:
        b = min(ready)
        ready.remove(b)
        out.append(b)
        for x in fwd[b]:
            indeg[x] -= 1
            if not indeg[x]:
                ready.append(x)
    if len(out) != len(order):
        raise Unknown("a loop with more than one entry, which herd7 cannot unroll")
    return [(bl[b], fall[b] if fall[b] is not None and fall[b] != nxt else None)
            for b, nxt in zip(out, out[1:] + [None])]


def thread(insns, one, jump, ends, nop):
    """A thread's instructions in herd7's syntax (ONE translates each, the
    return as JUMP to Lret), its blocks ordered so that only loops branch
    backwards, each branch target labelled."""
    labels = {i.target: f"L{i.target:x}" for i in insns if i.target is not None}
    laid = blocks(insns, ends)
    labels.update({f: f"L{f:x}" for _, f in laid if f is not None})
    ret = jump.format("Lret")
    out = []
    for block, fall in laid:
        if block[0].addr in labels:
            out.append(f"{labels[block[0].addr]}:")
        for i in block:
            x = one(i, labels)
            out += x if isinstance(x, list) else [x] if x else []
        if fall is not None:
            out.append(jump.format(labels[fall]))
    while out and out[-1] == ret:
        out.pop()
    if any(x.endswith("Lret") for x in out):
        out += ["Lret:", nop]
    return out
