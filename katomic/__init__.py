# SPDX-License-Identifier: GPL-2.0
"""katomic's harness in Python, a module per responsibility, each run as
python3 -m katomic.MODULE by scripts/katomic.sh (which puts the repository
on PYTHONPATH):

arches          scripts/arches.tsv, an architecture per row
audit/          the machine-code audit of the builds (its own __init__.py)
litmus          katomic's litmus tests, from the tree's atomics.tbl
lkmm            herd7 under the kernel's memory model on them
litmus_kunit    the booted suite's tests, lib/atomic_litmus_tests.h
litmus_arch     herd7 on the compiled threads, under each architecture's
                model, held against the audit
litmus_fixtures the audit's self-test fixtures under herd7
summary         a run's results, checked, as results/test-*.md
report          make report's comparison, results/report.md
hwbench         the probes timed on this machine's CPU

The tables and sources they read stay in scripts/ (SCRIPTS)."""

from pathlib import Path

SCRIPTS = Path(__file__).resolve().parent.parent / "scripts"
