# SPDX-License-Identifier: GPL-2.0
"""katomic/run.py: run -P's configurations at once, and what a build that
fails leaves in the results (the runs, kunit.py and the checks before
them stubbed out)."""

import contextlib
import io
import tarfile
import tempfile
import threading
import unittest
from pathlib import Path
from unittest import mock

from . import audits, env, herd7, kbuild, run, summary, tree
from .testing import TESTDATA


class Run(unittest.TestCase):
    def run_stubbed(self, parallel):
        """run of three configurations, PARALLEL at once on 4 cores, each
        run_one ending only once two have started: no timing involved.
        The events, in order."""
        events, started, lock = [], set(), threading.Lock()
        two = threading.Event()

        def run_one(cfg):
            with lock:
                events.append(f"start {cfg} {env.jobs}")
                started.add(cfg)
                if len(started) >= 2:
                    two.set()
            self.assertTrue(two.wait(30))
            with lock:
                events.append(f"end {cfg}")

        def summarise(configs):
            events.append(f"summary {' '.join(configs)}")
            return 0
        with tempfile.TemporaryDirectory() as d, \
                mock.patch.object(env, "RESULTS", Path(d)), \
                mock.patch.object(env, "NPROC", 4), mock.patch.object(env, "jobs", 4), \
                mock.patch.object(tree, "deps"), mock.patch.object(tree, "tree"), \
                mock.patch.object(run, "harness_selftest"), \
                mock.patch.object(audits, "audit_selftest"), \
                mock.patch.object(herd7, "herd_build"), \
                mock.patch.object(herd7, "lkmm_side", return_value=True), \
                mock.patch.object(herd7, "fixtures_herd"), \
                mock.patch.object(run, "run_one", run_one), \
                mock.patch.object(run, "summary", summarise), \
                contextlib.redirect_stdout(io.StringIO()) as out:
            run.run(["m68k", "sparc", "alpha"], parallel)
        return events, out.getvalue()

    def test_parallel(self):
        """run -P N runs N configurations at once, each with its share of
        the cores, then one summary of all; make -j N does as -P N."""
        for parallel, make in ((2, None), (None, 2)):
            with self.subTest(parallel=parallel, make=make), \
                    mock.patch.object(env, "MAKE_PARALLEL", make):
                events, out = self.run_stubbed(parallel)
                running, most = 0, 0
                for x in events[:-1]:
                    running += 1 if x.startswith("start") else -1
                    most = max(most, running)
                self.assertEqual(most, 2)
                self.assertEqual(sorted(x for x in events if x.startswith("start")),
                                 ["start alpha 2", "start m68k 2", "start sparc 2"])
                self.assertEqual(events[-1], "summary m68k sparc alpha")
                self.assertIn("katomic: 3 configurations, 2 at once, 2 cores each\n", out)

    def test_failed_build_no_earlier_figures(self):
        """A build that fails shows none of the last boot's figures, which
        kunit.py left in the build directory's test.log (kunit.py stubbed
        out: it fails as a build does, before any boot)."""
        with tempfile.TemporaryDirectory() as d:
            kunit = Path(d, "tree/tools/testing/kunit")
            kunit.mkdir(parents=True)
            (kunit / "kunit.py").write_text("import sys\nprint('ERROR: build failed')\n"
                                            "sys.exit(1)\n")
            bdir = Path(d, "work/build/s390x")
            bdir.mkdir(parents=True)
            with tarfile.open(TESTDATA / "results.tar.xz") as t:
                (bdir / "test.log").write_bytes(t.extractfile("s390x.console.log").read())
            results = Path(d, "results")
            results.mkdir()
            with mock.patch.object(env, "TREE", Path(d, "tree")), \
                    mock.patch.object(env, "WORK", Path(d, "work")), \
                    mock.patch.object(env, "RESULTS", results), \
                    mock.patch.object(audits, "audited", return_value=False), \
                    mock.patch.object(kbuild, "WATCH_INTERVAL", 0.05), \
                    contextlib.redirect_stdout(io.StringIO()) as out:
                run.run_one("s390x")
            row = summary.summarise(results, "s390x")
        self.assertFalse(row["ok"])
        self.assertIn("the kernel did not boot", " ".join(row["problems"]))
        self.assertEqual((row["stress_operations"], row["litmus_runs"]), ({}, 0))
        self.assertIn("katomic: [s390x] ERROR: build failed\n", out.getvalue())


if __name__ == "__main__":
    unittest.main()
