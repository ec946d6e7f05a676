# SPDX-License-Identifier: GPL-2.0
"""litmus_kunit.py's C, and the tests it refuses."""

import unittest

from . import litmus_kunit


class LitmusKunit(unittest.TestCase):
    """katomic/litmus_kunit.py: the booted suite's tests from .litmus files."""

    SB = ("C SB+t\n\n(*\n * Result: Never\n *)\n\n{\n\ta=-1;\n}\n\n"
          "P0(int *x, int *y, uint16_t *a)\n{\n\tint r0;\n\tint r1;\n\n"
          "\tWRITE_ONCE(*x, 1);\n\tr1 = try_cmpxchg_acquire(a, 0, 1);\n\tr0 = READ_ONCE(*y);\n}\n\n"
          "P1(int *x, int *y) // the other\n{\n\tint r2;\n\n\tWRITE_ONCE(*y, 1);\n"
          "\tsmp_mb();\n\tr2 = READ_ONCE(*x);\n}\n\n"
          "exists (0:r0=0 /\\ 1:r2=0 /\\ a=-1) (* comment *)\n")

    def test_test(self):
        t = litmus_kunit.test(self.SB)
        self.assertTrue(t["never"])
        self.assertEqual(t["has"], ["HAS_CMPXCHG_SIZE(2)"])
        self.assertEqual(t["init"], ["LITMUS_LOC(2, 2, -1)"])
        # Registers from 0 in each thread; a location by its size.
        self.assertEqual(t["exists"], ["LITMUS_REG(0, 0, 0)", "LITMUS_REG(1, 0, 0)",
                                       "LITMUS_LOC(2, 2, -1)"])
        p0, p1 = ("\n".join(b) for b in t["bodies"])
        self.assertIn("\tint *x = &l[0].i, *y = &l[1].i;\n\tu16 *a = &l[2].b2;", p0)
        self.assertIn("\tif (!HAS_CMPXCHG_SIZE(2))\n\t\treturn;", p0)
        self.assertIn("r[1] = ({ typeof(*a) old = 0; try_cmpxchg_acquire(a, &old, 1); });", p0)
        self.assertIn("\tsmp_mb();\t/* the test's ordering */\n\tr[0] = READ_ONCE(*x);", p1)
        self.assertNotIn("a =", p1)

    def test_unfit(self):
        for old, new, why in (("smp_mb();", "spin_lock(l);", r"spin_lock\(\)"),
                              ("/\\ a=-1", "\\/ a=-1", "conjunction"),
                              ("\tWRITE_ONCE(*y, 1);", "\t*y = 1;", "plain access"),
                              ("P1(", "P2(int *z)\n{\n}\n\nP1(", "3 threads")):
            with self.subTest(why=why):
                with self.assertRaisesRegex(litmus_kunit.Unfit, why):
                    litmus_kunit.test(self.SB.replace(old, new))


if __name__ == "__main__":
    unittest.main()
