# SPDX-License-Identifier: GPL-2.0
"""Machine-code audit: does the compiled code give the ordering the kernel
requires, and does the compiler leave the kernel's shared accesses alone?

usage: python3 -m katomic.audit ARCH DIR OUT.json
           check the objects 'katomic.sh audit' built
       python3 -m katomic.audit --selftest [-v] [ARCH...]
           every rule must flag its violating input (-v: every check's verdict)
       python3 -m katomic.audit --table OUT.md NAME=AUDIT.json...
           the tables of results/audit.md
       python3 -m katomic.audit --arches
           the architectures it has rules for

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
