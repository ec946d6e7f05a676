# SPDX-License-Identifier: GPL-2.0
"""All that the audit knows of an architecture, a module each:

RULES          which instructions are atomic, full barriers, acquires,
               releases, exclusives, returns, jumps, calls, branches;
               katomic/audit/rules.py says what each entry means
width(), is_mem(), mem_base(), disp(), access_kind(), dests()
               how an instruction accesses memory and what it writes
got_load(), reloc_addend(), toc_slot(), forms_addr(), select_srcs(),
COPIES, address_offset()
               how a register comes to hold a global's address
FLAG_READERS, MOVES, DEST_LAST, STATUS_REG
               what taint() follows, where a store-exclusive's status goes
cc_path, FLAG_SETTERS, INVERSE, VALUES, FULL_PAIR, cr_step
               what a path's condition code, flags or compared values
               decide (None or False where the architecture needs none)
HERD           the litmus translation: the thread's code as a test in
               herd7's syntax, for katomic/litmus_arch.py (None: herd7 has
               no model of the architecture)

What an architecture has nothing special for, its module imports from
defaults.py. A new architecture is a module here, listed below, a row of
scripts/arches.tsv and fixtures in testdata/."""

from . import arm64, ppc64le, riscv64, s390x, x86_64

# In the order of the audit's tables.
MODULES = {"s390x": s390x, "x86_64": x86_64, "arm64": arm64, "riscv64": riscv64,
           "ppc64le": ppc64le}
