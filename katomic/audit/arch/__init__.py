# SPDX-License-Identifier: GPL-2.0
"""One module per architecture: RULES, its barriers and accesses as data
(katomic/audit/rules.py says what each entry means), and how its
instructions access memory: width(), is_mem(), mem_base(), disp(),
access_kind() and dests(). A new architecture is a module here, listed
below, and a row of scripts/arches.tsv."""

from . import arm64, ppc64le, riscv64, s390x, x86_64

# In the order of the audit's tables.
MODULES = {"s390x": s390x, "x86_64": x86_64, "arm64": arm64, "riscv64": riscv64,
           "ppc64le": ppc64le}
