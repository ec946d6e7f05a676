# SPDX-License-Identifier: GPL-2.0
"""What the harness's tests share: the repository, scripts/katomic.sh as a
command, and the recorded results of a make test-all of 2026-12-07 on
series 8d5f347e20df1511 (testdata/results.tar.xz): s390x, riscv64 with
GCC, which offers only the assembly, s390x-builtins-kasan, the audit-only
s390x-z10, and arm64-builtins-llsc-clang, where C11's relaxed accesses
lose cases. All of them: python3 -m unittest discover -s katomic -t .
-p '*_test.py'."""

import os
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
KATOMIC = REPO / "scripts/katomic.sh"
TESTDATA = Path(__file__).resolve().parent / "testdata"
RECORDED = ("s390x", "riscv64", "s390x-builtins-kasan", "s390x-z10", "arm64-builtins-llsc-clang")


def katomic(*args, env=None):
    """scripts/katomic.sh ARGS, its output captured."""
    return subprocess.run(["bash", str(KATOMIC), *args], capture_output=True, text=True,
                          env=dict(os.environ, **(env or {})))
