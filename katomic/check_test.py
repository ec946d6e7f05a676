# SPDX-License-Identifier: GPL-2.0
"""katomic/check.py, make check's bookkeeping: which patches it checks
again, the topic-end boots it keeps, what it builds for a patch and how it
calls kunit.py (checkpatch, builds and boots stubbed out)."""

import contextlib
import io
import os
import subprocess
import tempfile
import unittest
from pathlib import Path
from unittest import mock

from . import check, env, tree

# The commits the tests make and cherry-pick have an author wherever they run.
IDENT = {f"GIT_{who}_{what}": value for who in ("AUTHOR", "COMMITTER")
         for what, value in (("NAME", "t"), ("EMAIL", "t@t"))}


def stub_kunit(tree):
    """A kunit.py in TREE that prints its arguments instead of running."""
    kunit = Path(tree, "tools/testing/kunit")
    kunit.mkdir(parents=True)
    (kunit / "kunit.py").write_text("import sys\nprint(*sys.argv[1:])\n")


def three_patches(d):
    """A tree in D/linux: 'pristine', then patches 1 to 3 on branch
    katomic, a file each, and a checkpatch.pl that passes everything.
    The patches' ids."""
    linux = Path(d, "linux")
    git = ["git", "-C", str(linux)]
    subprocess.run(["git", "init", "-q", "-b", "katomic", str(linux)], check=True)
    for i in range(4):
        Path(linux, f"f{i}").write_text(f"{i}\n")
        subprocess.run(git + ["add", f"f{i}"], check=True)
        subprocess.run(git + ["commit", "-q", "-m", f"patch {i}"], check=True)
        if not i:
            subprocess.run(git + ["tag", "pristine"], check=True)
    Path(linux, "scripts").mkdir()
    Path(linux, "scripts/checkpatch.pl").write_text("#!/bin/sh\ncat > /dev/null\n")
    Path(linux, "scripts/checkpatch.pl").chmod(0o755)
    return [subprocess.run(f"git -C {linux} show HEAD~{2 - i} | git patch-id --stable",
                           shell=True, capture_output=True, text=True).stdout[:12]
            for i in range(3)]


class Check(unittest.TestCase):
    def test_kernel_args_only_for_run(self):
        """kunit.py config and build refuse --kernel_args, which i386's row
        has: make check passes them to run only (kunit.py stubbed out)."""
        with tempfile.TemporaryDirectory() as d:
            stub_kunit(d)
            Path(d, "lib").mkdir()
            Path(d, "lib/Kconfig.debug").write_text("config ATOMIC_KUNIT_TEST\n")
            with mock.patch.object(env, "TREE", Path(d)), \
                    mock.patch.object(check, "check_dir", return_value=Path(d)):
                self.assertEqual(check.check_kunit("build", "i386", f"{d}/build.log"), 0)
                self.assertEqual(check.check_kunit("run", "i386", f"{d}/run.log"), 0)
            build, run = (Path(d, f).read_text().split() for f in ("build.log", "run.log"))
        self.assertEqual(build[0], "build")
        self.assertIn("--arch=i386", build)
        self.assertFalse([a for a in build if a.startswith("--kernel_args")])
        self.assertEqual(run[0], "run")
        self.assertIn("--kernel_args=atomic_smp_kunit.stress_iters=2000", run)

    def test_patch_without_configuration(self):
        """A patch to an architecture without a row (csky) builds nothing:
        patch_configs gives nothing and does not fail (an empty list once
        stopped make check without a word)."""
        with tempfile.TemporaryDirectory() as d, mock.patch.object(env, "TREE", Path(d)):
            self.assertEqual(check.patch_configs(["arch/csky/include/asm/atomic.h"]), [])

    def run_check(self, d, topic_boot=None):
        """make check on the tree of three_patches, its packages, tree,
        builds, suites and boots stubbed out (a boot appends the two
        commits it booted to D/check/booted), the topics patches 1-2 and
        3; TOPIC_BOOT: what check_topic_boot does instead. The exit status
        and what it printed."""
        linux = Path(d, "linux")

        def boot(cfg):
            Path(d, "check", f"{cfg}.boot.log").write_text("Testing complete\n")
            log = subprocess.run(["git", "-C", str(linux), "log", "--format=%s", "-2"],
                                 capture_output=True, text=True).stdout
            with open(Path(d, "check/booted"), "a") as f:
                f.write(",".join(log.splitlines()) + "\n")
            return 0
        out, rc = io.StringIO(), 0
        with contextlib.ExitStack() as stack:
            for obj, name, value in (
                    (env, "TREE", linux), (env, "WORK", Path(d)),
                    (env, "RESULTS", Path(d, "results")),
                    (tree, "deps", mock.Mock()), (tree, "tree", mock.Mock()),
                    (check, "patch_configs", mock.Mock(return_value=[])),
                    (check, "compile_suites", mock.Mock(return_value=True)),
                    (check, "atomics_listed", mock.Mock(return_value=True)),
                    (check, "check_boot", boot),
                    (check, "topics", mock.Mock(return_value=[(1, 2), (3, 3)]))):
                stack.enter_context(mock.patch.object(obj, name, value))
            if topic_boot:
                stack.enter_context(mock.patch.object(check.Check, "check_topic_boot",
                                                      side_effect=topic_boot))
            stack.enter_context(mock.patch.dict(os.environ, IDENT))
            stack.enter_context(contextlib.redirect_stdout(out))
            try:
                check.check()
            except SystemExit as e:
                rc = e.code
        return rc, out.getvalue()

    def test_check_changed_only(self):
        """make check without FROM rebuilds only the patches whose id (git
        patch-id) has no line in results/check.tsv, whatever its number, and
        checkpatches every one (a three-patch tree; checkpatch, builds and
        boots stubbed out)."""
        with tempfile.TemporaryDirectory() as d, mock.patch.dict(os.environ, IDENT):
            ids, results = three_patches(d), Path(d, "results")
            results.mkdir()
            tsv = results / "check.tsv"
            # Patch 2 is new (inserted): patch 3's line is the old 2, and
            # the old 4 is of no patch now.
            tsv.write_text(f"1\t10\ts390x\tok\t{ids[0]}\n2\t10\ts390x\tok\t{ids[2]}\n"
                           f"4\t10\ts390x\tok\t000000000000\n")
            rc, first = self.run_check(d)
            self.assertEqual(rc, 0, first)
            rows = [x.split("\t") for x in tsv.read_text().splitlines()]
            # Again: nothing changed, nothing built or booted, the same lines.
            rc, again = self.run_check(d)
            self.assertEqual(rc, 0, again)
            self.assertIn("[2] end of a topic: booted as", again)
            self.assertEqual(tsv.read_text().splitlines(), ["\t".join(x) for x in rows])
            # Interrupted at patch 2's topic end: patch 3's line stays.
            tsv.write_text("".join("\t".join(x[:4] + ["000000000000" if x[0] == "2" else x[4]])
                                   + "\n" for x in rows if x[3] == "ok"))
            rc, cut = self.run_check(d, topic_boot=SystemExit(9))
            self.assertEqual(rc, 9, cut)
            self.assertEqual([x.split("\t")[0] for x in tsv.read_text().splitlines()],
                             ["1", "2", "3"])
            # Patch 1 changed, patch 2 did not: the topic boots at patch 2,
            # though the check last checked out patch 1.
            tsv.write_text("".join("\t".join(x[:2] + ["s390x", "ok",
                                                      "0" * 12 if x[0] == "1" else x[4]])
                                   + "\n" for x in rows if x[3] == "ok"))
            rc, again = self.run_check(d)
            self.assertEqual(rc, 0, again)
            self.assertEqual(Path(d, "check/booted").read_text().splitlines()[-1],
                             "patch 3,patch 2")
            # Interrupted in a topic's boots: a configuration that booted
            # with the topic's id keeps its line, only the others boot.
            lines = tsv.read_text().splitlines()
            kept = [x for x in lines if "\tboot ok\t" in x]
            self.assertEqual([x.split("\t")[2] for x in kept], ["s390x"])
            tsv.write_text("".join(
                ("\t".join(x.split("\t")[:2] + ["s390x x86_64"] + x.split("\t")[3:])
                 if x.startswith("1\t") else x) + "\n" for x in lines))
            Path(d, "check/booted").unlink()
            rc, again = self.run_check(d)
            self.assertEqual(rc, 0, again)
            self.assertIn("booted on x86_64\n", again)
            self.assertEqual(len(Path(d, "check/booted").read_text().splitlines()), 1)
            self.assertEqual(sorted(x.split("\t")[2] for x in tsv.read_text().splitlines()
                                    if "\tboot ok\t" in x), ["s390x", "x86_64"])
            self.assertIn(kept[0], tsv.read_text().splitlines())
        unchanged = [x for x in first.splitlines() if "unchanged" in x]
        self.assertEqual([x.split()[1] for x in unchanged], ["[1/3]", "[3/3]"])
        # The topic of patches 1-2 changed: its end booted again, with an id.
        self.assertEqual([(x[0], x[3]) for x in rows], [("1", "ok"), ("2", "ok"),
                                                        ("2", "boot ok"), ("3", "ok")])
        self.assertEqual([x[4] for x in rows if x[3] == "ok"], ids)
        self.assertRegex(rows[2][4], "^[0-9a-f]{12}$")


if __name__ == "__main__":
    unittest.main()
