# SPDX-License-Identifier: GPL-2.0
"""lkmm.py's verdicts and witnesses, herd7 stubbed out."""

import tempfile
import unittest
from pathlib import Path
from unittest import mock

from . import lkmm


class Lkmm(unittest.TestCase):
    """katomic/lkmm.py against a herd7 stubbed out: each verdict held
    against the test's Result: line, and every way a test can fail to
    give one."""

    def run_one(self, result, herd7_body):
        with tempfile.TemporaryDirectory() as d:
            test = Path(d, "T.litmus")
            test.write_text(f"C T\n(*\n * Result: {result}\n *)\n" if result else "C T\n")
            herd7 = Path(d, "herd7")
            herd7.write_text("#!/bin/sh\n" + herd7_body)
            herd7.chmod(0o755)
            return lkmm.check(str(herd7), d, test)

    def test_verdicts(self):
        out = "printf 'States %s\\nObservation T %s %s 1\\n'"
        self.assertTrue(self.run_one("Never", out % (3, "Never", 0))["ok"])
        r = self.run_one("Never", out % (4, "Sometimes", 1))
        self.assertFalse(r["ok"])
        self.assertEqual(r["verdict"], "Sometimes")
        # RM-broken: every execution deadlocks, herd7 counts no state.
        self.assertTrue(self.run_one("DEADLOCK", out % (0, "Never", 0))["ok"])
        self.assertFalse(self.run_one("DEADLOCK", out % (2, "Never", 0))["ok"])
        self.assertFalse(self.run_one(None, out % (3, "Never", 0))["ok"])  # no Result:

    def test_herd7_fails(self):
        r = self.run_one("Never", "echo 'unknown macro' >&2; exit 1")
        self.assertFalse(r["ok"])
        self.assertIn("unknown macro", r["error"])
        self.assertFalse(self.run_one("Never", "echo nothing")["ok"])
        with mock.patch.object(lkmm, "TIMEOUT", 0.5):
            r = self.run_one("Never", "sleep 5")
        self.assertFalse(r["ok"])
        self.assertIn("did not finish", r["error"])

    def test_witness(self):
        """A Never that no state could have shown is no verdict."""
        out = ("printf 'States 2\\n0:r0=1; [a]=2;\\n0:r0=0; [a]=1;\\nOk\\n"
               "Observation T Never 0 2\\n'")
        self.assertTrue(self.run_one("Never\n * Witness: 0:r0=1; [a]=2;", out)["ok"])
        r = self.run_one("Never\n * Witness: 0:r0=1; [a]=1;", out)
        self.assertFalse(r["ok"])
        self.assertIn("witness", r["error"])


if __name__ == "__main__":
    unittest.main()
