# SPDX-License-Identifier: GPL-2.0
"""katomic's harness, a module per responsibility: python3 -m katomic
COMMAND (__main__.py), which scripts/katomic.sh and so the Makefile call;
the modules that read results also run alone, python3 -m katomic.MODULE.

env             where things are, the KATOMIC_* knobs, say and die
arches          scripts/arches.tsv and the fragments: configurations
tree            the Debian packages, the kernel tree and patches/
kbuild          the tree's kunit.py and make: builds, boots, QEMU watched
run             make test-all and its kin, a configuration at a time
check           make check, every patch as a maintainer applies it
report_build    make report's kernels and probes
audits          the audit's probes compiled against a build
audit/          the machine-code audit of the builds (its own __init__.py)
herd7           herd7 built and run: the LKMM side, the architectures' side,
                make lkmm and make mutate
litmus          katomic's litmus tests, from the tree's atomics.tbl
lkmm            herd7 under the kernel's memory model on them
litmus_kunit    the booted suite's tests, lib/atomic_litmus_tests.h
litmus_arch     herd7 on the compiled threads, under each architecture's
                model, held against the audit
litmus_fixtures the audit's self-test fixtures under herd7
summary         a run's results, checked, as results/test-*.md
report          make report's comparison, results/report.md
hwbench         the probes timed on this machine's CPU
ci              the CI pipeline, .gitlab-ci.yml

The tables and sources they read stay in scripts/ (SCRIPTS)."""

from pathlib import Path

SCRIPTS = Path(__file__).resolve().parent.parent / "scripts"
