# SPDX-License-Identifier: GPL-2.0
"""katomic's harness: the machine-code audit (katomic.audit) and the table
of architectures (katomic.arches), which scripts/ and scripts/katomic.sh
use; the tables and sources they read stay in scripts/."""

from pathlib import Path

SCRIPTS = Path(__file__).resolve().parent.parent / "scripts"
