# SPDX-License-Identifier: GPL-2.0
"""litmus.py's tests, and the values that make its herd7 forms exact."""

import tempfile
import unittest
from unittest import mock

from . import litmus


class Litmus(unittest.TestCase):
    """katomic/litmus.py: each primitive's tests, with values on which
    its herd7 form computes what the kernel's does."""

    TBL = ("read l cv\nset s v i\nadd vRF i v\nand vF i v\nor vF i v\n"
           "cmpxchg I v i:old i:new\ntry_cmpxchg B v p:old i:new\n"
           "add_unless fb v i:a i:u\ndec_if_positive i v\ninc_unless_negative b v\n")

    def prims(self):
        with tempfile.NamedTemporaryFile("w", suffix=".tbl") as f:
            f.write(self.TBL)
            f.flush()
            return litmus.prims_of_tbl(f.name) + litmus.prims_xchg()

    def test_every_form(self):
        prims = self.prims()
        tests, unfit = litmus.tests(prims)
        self.assertEqual(unfit, [])
        names = {t["name"] for t in tests}
        for n in ("SB+atomic_fetch_or_acquire", "MP-writer+atomic_set_release",
                  "MP-reader+atomic_read_acquire", "SB+atomic_add+mb__after_atomic",
                  "MP-reader+atomic64_dec_if_positive-fail", "2+2W+cmpxchg_relaxed-u8",
                  "R+try_cmpxchg-u64", "MP-writer+atomic_fetch_add_unless"):
            self.assertIn(n, names)
        by = {p.name: p for p in prims}
        for t in tests:
            p = by[t["prim"]]
            for x in (t["init"], t["written"]):
                if x is not None:
                    self.assertEqual(p.sem(x, *t["args"]), p.herd(x, *t["args"]), t["name"])

    def test_expectations(self):
        t = {t["name"]: t["result"] for t in litmus.tests(self.prims())[0]}
        self.assertEqual(t["SB+atomic_fetch_and"], "Never")
        self.assertEqual(t["SB+atomic_fetch_and_acquire"], "Sometimes")
        self.assertEqual(t["MP-writer+atomic_fetch_and_release"], "Never")
        self.assertEqual(t["MP-reader+atomic_fetch_and_release"], "Sometimes")
        self.assertEqual(t["MP-reader+atomic_cmpxchg-fail"], "Sometimes")
        self.assertEqual(t["MP-writer+atomic_add+mb__after_atomic"], "Sometimes")
        self.assertEqual(t["MP-reader+atomic_add+mb__after_atomic"], "Never")
        # The op's own write before a later read: full ordering only.
        self.assertEqual(t["SB-op+atomic_fetch_and"], "Never")
        self.assertEqual(t["SB-op+atomic_fetch_and_acquire"], "Sometimes")
        self.assertEqual(t["SB-op+atomic_add+mb__before_atomic"], "Sometimes")
        self.assertEqual(t["SB-op+atomic_add+mb__after_atomic"], "Never")

    def test_herd_form_checked(self):
        """A herd7 form wrong on every value the search tries fits no test."""
        op = litmus.ARITH["or"]
        with mock.patch.dict(litmus.ARITH, {"or": (*op[:3], lambda x, i: x + i + 1)}):
            unfit = litmus.tests(self.prims())[1]
        self.assertTrue(unfit)
        self.assertTrue(all(u.split()[1].endswith(("_or", "_or_acquire", "_or_release", "_or_relaxed")) for u in unfit), unfit)

    def test_macros(self):
        kernel = "atomic_fetch_add(V,X) __atomic_fetch_op{mb}(X,+,V)\n"
        d = litmus.macros(self.prims(), kernel)
        self.assertEqual(d.count("atomic_fetch_add(V,X)"), 1)
        self.assertIn("atomic_fetch_or_acquire(V,X) __atomic_fetch_op{acquire}(X,+,V)", d)
        self.assertIn("atomic_and(V,X) { __atomic_op(X,-,(7^V)); }", d)
        self.assertIn("try_cmpxchg_release(X,V,W) (__cmpxchg{release}(X,V,W) == V)", d)
        self.assertNotIn("\natomic_add_unless(", d)


if __name__ == "__main__":
    unittest.main()
