# SPDX-License-Identifier: GPL-2.0
"""The command line, as the Makefile calls it (scripts/katomic.sh): the
configuration names it accepts and refuses, and the matrices' names."""

import unittest

from katomic.testing import katomic


class Configurations(unittest.TestCase):
    def test_names(self):
        r = katomic("args", "s390x-kasan-builtins", "riscv64-clang-builtins", "sh")
        self.assertEqual(r.returncode, 0, r.stderr)
        s390x, riscv64, sh = (c.splitlines() for c in r.stdout.split("\n\n"))
        for frag in ("--kconfig_add=CONFIG_ATOMIC_BUILTINS=y", "--kconfig_add=CONFIG_KASAN=y"):
            self.assertIn(frag, s390x)
        self.assertIn("--make_options=LLVM=-19", riscv64)
        self.assertTrue(any(a.endswith("/kunit/smp.kunitconfig") for a in s390x))
        self.assertFalse(any(a.endswith("/kunit/smp.kunitconfig") for a in sh))  # 1 CPU

    def test_refused(self):
        for name, error in (("vax", "unknown architecture 'vax'"),
                            ("s390x-fast", "unknown fragment 'fast'"),
                            ("s390x-", "unknown fragment ''"),
                            ("s390x-kasan-kasan", "fragment 'kasan' twice"),
                            ("x86_64-kasan-kcsan", "KCSAN depends on !KASAN"),
                            ("x86_64-z10", "z10 is an s390 march"),
                            ("s390x-z10-bench", "z10 is audit-only")):
            with self.subTest(name=name):
                r = katomic("args", name)
                self.assertNotEqual(r.returncode, 0)
                self.assertIn(error, r.stderr)
                self.assertEqual(r.stdout, "")

    def test_parallel_refused(self):
        # Were it not refused, the run would stop at once at a tarball and
        # a work directory that are not there.
        env = {"KATOMIC_WORK": "/nonexistent/katomic", "KATOMIC_TARBALL": "/nonexistent.tar.xz"}
        for p in ("0", "x", ""):
            with self.subTest(p=p):
                r = katomic("run", "-P", p, "s390x", env=env)
                self.assertNotEqual(r.returncode, 0)
                self.assertIn("-P takes a number of configurations", r.stderr)

    def test_matrix(self):
        """Every configuration of the three matrices is a valid name."""
        for which in ((), ("more",), ("arches",)):
            names = katomic("configs", *which).stdout.split()
            self.assertTrue(names)
            r = katomic("args", *names)
            self.assertEqual(r.returncode, 0, r.stderr)

    def test_unknown_command(self):
        r = katomic("frobnicate")
        self.assertEqual(r.returncode, 2)
        self.assertIn("usage: scripts/katomic.sh COMMAND", r.stderr)


if __name__ == "__main__":
    unittest.main()
