# SPDX-License-Identifier: GPL-2.0
"""herd7.py's choices and bookkeeping, herd7, make and the audit stubbed
out: which configurations have their code checked under their model, the
files litmus-arch.md is made of, and make mutate's rows, its weakening of
the tree (once, and put back whatever happens) and its table's lines."""

import hashlib
import io
import json
import subprocess
import tempfile
import unittest
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from unittest import mock

from . import env, herd7

ROW = ("arm64", "asm", "arch/arm64/include/asm/cmpxchg.h", "fence(SEQ_CST);", "fence(ACQ);",
       "the full fence")


class Temp(unittest.TestCase):
    """A work directory, a tree and results of their own, in a temporary
    directory."""

    def setUp(self):
        d = tempfile.TemporaryDirectory()
        self.addCleanup(d.cleanup)
        self.d = Path(d.name)
        for name, sub in (("WORK", "work"), ("TREE", "work/linux"), ("RESULTS", "results")):
            Path(self.d, sub).mkdir(parents=True, exist_ok=True)
            p = mock.patch.object(env, name, self.d / sub)
            p.start()
            self.addCleanup(p.stop)


class Choice(unittest.TestCase):
    def test_has_litmus_arch(self):
        """Audited, and an architecture litmus_arch.py translates."""
        for cfg, want in (("arm64", True), ("x86_64-clang", True), ("riscv64-builtins-clang", True),
                          ("arm64-kasan", False), ("arm64-bench", False), ("s390x", False),
                          ("sh", False)):
            with self.subTest(cfg=cfg):
                self.assertEqual(herd7.has_litmus_arch(cfg), want)
        with mock.patch.object(herd7.audits, "audited", return_value=False):
            self.assertFalse(herd7.has_litmus_arch("arm64"))
        with mock.patch.object(herd7.audits, "audited", return_value=True):
            self.assertFalse(herd7.has_litmus_arch("s390x"))  # no translator

    def test_fixtures_herd(self):
        """Each architecture once, sorted; none: nothing runs; a fixture
        judged otherwise stops the harness."""
        with mock.patch.object(herd7, "prefixed", return_value=0) as run, \
                redirect_stdout(io.StringIO()) as out:
            herd7.fixtures_herd(["x86_64", "s390x", "arm64-builtins-llsc-clang", "arm64",
                                 "ppc64le-kasan"])
            self.assertEqual(run.call_args.args[0][5:], ["arm64", "x86_64"])
            self.assertIn("katomic: the audit's self-test fixtures under herd7: arm64 x86_64\n",
                          out.getvalue())
            run.reset_mock()
            herd7.fixtures_herd(["s390x", "sh"])
            run.assert_not_called()
        with mock.patch.object(herd7, "prefixed", return_value=1), \
                redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()) as err, \
                self.assertRaises(SystemExit) as e:
            herd7.fixtures_herd(["arm64"])
        self.assertEqual(e.exception.code, 1)
        self.assertIn("katomic: error: herd7 judges an audit self-test fixture", err.getvalue())


class Table(Temp):
    def test_files(self):
        """results/litmus-arch.md of the configurations that have results,
        in their order, with the series; nothing without any."""
        for c in ("riscv64-builtins-clang", "arm64"):
            Path(env.RESULTS, f"{c}.litmus.json").write_text("{}")
        calls = []

        def module(name, *args, stdout=None, **kw):
            calls.append((name, [str(a) for a in args]))
            stdout.write("table\n")
            return 0
        with mock.patch.object(herd7.env, "module", module), \
                mock.patch.object(herd7.tree, "series_id", return_value="8d5f347e20df1511"):
            herd7.litmus_arch_table(["s390x", "arm64", "x86_64", "riscv64-builtins-clang"])
            self.assertEqual(calls, [("litmus_arch", [
                "summary", "--series", "8d5f347e20df1511", f"{env.RESULTS}/arm64.litmus.json",
                f"{env.RESULTS}/riscv64-builtins-clang.litmus.json"])])
            self.assertEqual(Path(env.RESULTS, "litmus-arch.md").read_text(), "table\n")
            herd7.litmus_arch_table(["s390x", "x86_64"])
            self.assertEqual(len(calls), 1)

    def test_failure_stops(self):
        Path(env.RESULTS, "arm64.litmus.json").write_text("{}")
        with mock.patch.object(herd7.env, "module", return_value=2), \
                mock.patch.object(herd7.tree, "series_id", return_value="0"), \
                self.assertRaises(SystemExit) as e:
            herd7.litmus_arch_table(["arm64"])
        self.assertEqual(e.exception.code, 2)


class LkmmSide(Temp):
    def side(self, header):
        """lkmm_side with the tree's lib/atomic_litmus_tests.h HEADER, the
        modules stubbed out: litmus_kunit.py writes two tests."""
        Path(env.TREE, "lib").mkdir()
        Path(env.TREE, "lib/atomic_litmus_tests.h").write_text(header)
        Path(env.WORK, "litmus").mkdir()
        for name in ("b", "a", "C"):
            Path(env.WORK, "litmus", f"{name}.litmus").write_text("")

        def module(name, *args, stdout=None, **kw):
            stdout.write('\t{ "a" },\n\t{ "b" },\n')
        with mock.patch.object(herd7, "prefixed", return_value=0) as run, \
                mock.patch.object(herd7.env, "module", module), \
                redirect_stdout(io.StringIO()) as out:
            ok = herd7.lkmm_side()
        return ok, out.getvalue(), run.call_args_list[1].args[0]

    def test_generated(self):
        ok, out, lkmm = self.side('\t{ "a" },\n\t{ "b" },\n')
        self.assertTrue(ok)
        self.assertIn("katomic: lib/atomic_litmus_tests.h: the booted suite's 2 litmus tests, "
                      "generated from these\n", out)
        # Each pattern's files sorted (by code point), one that matches
        # nothing passed on as it is.
        self.assertEqual([Path(a).name for a in lkmm[-5:]],
                         ["*.litmus", "*.litmus", "C.litmus", "a.litmus", "b.litmus"])

    def test_not_generated(self):
        ok, out, _ = self.side('\t{ "a" },\n')
        self.assertFalse(ok)
        self.assertIn("katomic: lib/atomic_litmus_tests.h is not katomic/litmus_kunit.py's "
                      f"output ({env.WORK}/litmus/kunit.diff)\n", out)
        self.assertIn('+\t{ "b" },', Path(env.WORK, "litmus/kunit.diff").read_text())


class Rows(unittest.TestCase):
    def test_mutations_tsv(self):
        """The rows of scripts/mutations.tsv, \\t a tab in FROM and TO."""
        rows = herd7.mutations((env.REPO / herd7.MUTATIONS).read_text())
        self.assertGreaterEqual(len(rows), 9)
        self.assertTrue(all(len(r) == 6 and all(r) for r in rows))
        self.assertEqual(rows[0][:3], ("arm64", "asm", "arch/arm64/include/asm/atomic_ll_sc.h"))
        builtins = rows[2]
        self.assertEqual(builtins[3], "arch_atomic_builtin_full_fence()\t"
                         "__atomic_thread_fence(__ATOMIC_SEQ_CST)")
        self.assertEqual(rows[3][3], '".rl", "", "\tfence rw, rw\\n")')

    def test_row_syntax(self):
        """Runs of tabs separate, the last field takes the rest; comments,
        blank lines and a last line without its newline are no rows."""
        text = ("# config\tcode\n\n\tx86_64\t\tasm\tf.h\ta\\tb\tc\tthe LOCK\tprefix\t\n"
                "arm64\tasm\tf.h\ta\tb\tnot a row: no newline")
        self.assertEqual(herd7.mutations(text),
                         [("x86_64", "asm", "f.h", "a\tb", "c", "the LOCK\tprefix")])


class Mutate(Temp):
    def setUp(self):
        super().setUp()
        self.file = Path(env.TREE, ROW[2])
        self.file.parent.mkdir(parents=True)
        self.text = "#define X fence(SEQ_CST);\n"
        self.file.write_text(self.text)
        Path(env.WORK, "build/arm64").mkdir(parents=True)
        Path(env.WORK, "build/arm64/vmlinux").write_text("")

    def test_once(self):
        """FROM must occur once: otherwise the row no longer applies."""
        self.assertTrue(herd7.mutated(self.file, "SEQ_CST", "ACQ"))
        self.assertEqual(self.file.read_text(), "#define X fence(ACQ);\n")
        self.file.write_text("a a\n")
        for old, n in (("a", 2), ("b", 0)):
            with redirect_stderr(io.StringIO()) as err:
                self.assertFalse(herd7.mutated(self.file, old, "c"))
            self.assertEqual(err.getvalue(),
                             f"mutate: {self.file}: {old!r} occurs {n} times, not once\n")
        self.assertEqual(self.file.read_text(), "a a\n")

    def test_no_longer_applies(self):
        row = ROW[:3] + ("fence(SC);",) + ROW[4:]
        with mock.patch.object(herd7, "litmus_objects") as objs, \
                redirect_stderr(io.StringIO()) as err, self.assertRaises(SystemExit):
            herd7.mutate_row(1, *row)
        objs.assert_not_called()
        self.assertIn("katomic: error: mutate: row 1 no longer applies to the tree "
                      "(scripts/mutations.tsv)", err.getvalue())

    def test_put_back(self):
        """The tree's file is put back when the threads do not build, and
        after the audit, which sees the weakened code (its output
        dropped)."""
        seen = []
        with mock.patch.object(herd7, "litmus_objects", return_value=2), \
                redirect_stderr(io.StringIO()) as err, self.assertRaises(SystemExit):
            herd7.mutate_row(1, *ROW)
        self.assertIn("mutate: row 1: the litmus threads do not build (log: ", err.getvalue())
        self.assertEqual(self.file.read_text(), self.text)

        def audit_build(arch, bdir, out, make_opts):
            seen.append((arch, out.name, self.file.read_text()))
            print("katomic: [mutate-1] the audit's lines")
            subprocess.run(["echo", "katomic: and its programs'"])
            return 1
        with mock.patch.object(herd7, "litmus_objects", return_value=0), \
                mock.patch.object(herd7.audits, "audit_build", audit_build), \
                redirect_stdout(io.StringIO()) as out:
            herd7.weakened(1, "arm64", "asm", ROW[2], ROW[3], ROW[4])
        self.assertEqual(seen, [("arm64", "mutate-1", "#define X fence(ACQ);\n")])
        self.assertEqual(out.getvalue(), "")
        self.assertEqual(self.file.read_text(), self.text)

    def check(self, violations, audit_fails):
        """mutate_row with litmus_arch.py's check writing VIOLATIONS tests
        with a violation and the audit AUDIT_FAILS failed functions (None:
        no audit)."""
        def module(name, *args, log=None, **kw):
            tests = [{"test": f"SB+t{i}", "code": "asm", "violation": i < violations,
                      "error": None, "run": True} for i in range(5)]
            Path(args[-2]).write_text(json.dumps({"tests": tests}))
            return 1

        def audit_build(arch, bdir, out, make_opts):
            if audit_fails is not None:
                Path(f"{out}.audit.json").write_text(json.dumps({"ordering": [
                    {"impl": "asm", "function": f"audit_f{i}",
                     "verdict": "fail" if i < audit_fails else "pass"} for i in range(3)]}))
        with mock.patch.object(herd7, "litmus_objects", return_value=0), \
                mock.patch.object(herd7.audits, "audit_build", audit_build), \
                mock.patch.object(herd7.env, "module", module), \
                redirect_stdout(io.StringIO()) as out:
            line, caught = herd7.mutate_row(3, *ROW)
        self.assertEqual(self.file.read_text(), self.text)
        return line, caught, out.getvalue()

    def test_caught(self):
        line, caught, out = self.check(4, 2)
        self.assertTrue(caught)
        self.assertEqual(line, f"| arm64 | asm | the full fence | {ROW[2]} | 4 | 2 | 0 | caught "
                         "| SB+t0 SB+t1 SB+t2 ... |\n")
        self.assertIn("katomic: [arm64] asm without the full fence\n", out)
        self.assertIn("katomic: [arm64] asm: herd7 4 violations, the audit fails 2 functions, "
                      "0 primitives judged differently; SB+t0 SB+t1 SB+t2 ...\n", out)

    def test_missed(self):
        for violations, fails, na in ((0, 2, "2"), (2, 0, "0"), (2, None, "none")):
            with self.subTest(violations=violations, fails=fails):
                line, caught, _ = self.check(violations, fails)
                self.assertFalse(caught)
                self.assertEqual(line.split(" | ")[5:8], [na, "0", "MISSED"])

    def test_not_built(self):
        Path(env.WORK, "build/arm64/vmlinux").unlink()
        with redirect_stderr(io.StringIO()) as err, self.assertRaises(SystemExit):
            herd7.mutate_row(1, *ROW)
        self.assertIn("mutate: arm64 is not built (make test-all builds it)", err.getvalue())


class MutateTable(Temp):
    def mutate(self, caught):
        """make mutate on two rows (mutate_row stubbed out: CAUGHT says
        whether each was) with a repository of its own."""
        repo = self.d / "repo"
        Path(repo, "scripts").mkdir(parents=True)
        Path(repo, "results").mkdir()
        Path(repo, herd7.MUTATIONS).write_text("# a comment\n" + "\t".join(ROW) + "\n"
                                               + "\t".join(("x86_64",) + ROW[1:]) + "\n")
        rows = []
        with mock.patch.object(env, "REPO", repo), \
                mock.patch.object(herd7.tree, "deps"), mock.patch.object(herd7.tree, "tree"), \
                mock.patch.object(herd7.tree, "series_id", return_value="8d5f347e20df1511"), \
                mock.patch.object(herd7, "herd_build"), \
                mock.patch.object(herd7.env, "module", return_value=0), \
                mock.patch.object(herd7, "mutate_row", lambda n, *r: rows.append((n, r)) or (
                    f"| row {n} |\n", caught.pop(0))), \
                redirect_stdout(io.StringIO()) as out, redirect_stderr(io.StringIO()) as err:
            try:
                herd7.mutate()
            except SystemExit as e:
                self.assertEqual(e.code, 1)
        self.assertEqual([(n, r[0]) for n, r in rows], [(1, "arm64"), (2, "x86_64")])
        md = Path(env.RESULTS, "litmus-mutations.md").read_text()
        self.assertEqual(Path(repo, "results/litmus-mutations.md").read_text(), md)
        self.assertIn("\nSeries 8d5f347e20df1511\n", md)
        self.assertTrue(md.endswith("|---|---|---|---|---:|---:|---:|---|---|\n| row 1 |\n"
                                    "| row 2 |\n"))
        return out.getvalue(), err.getvalue()

    def test_caught(self):
        out, err = self.mutate([True, True])
        self.assertIn("katomic: mutate: every weakened barrier found (", out)
        self.assertEqual(err, "")

    def test_missed(self):
        out, err = self.mutate([False, True])
        self.assertIn("katomic: error: mutate: herd7's check missed a weakened barrier (", err)


class Objects(Temp):
    def test_litmus_objects(self):
        """Each object's C on its implementation, compiled against the
        configuration's build with its make options."""
        with mock.patch.object(herd7.env, "module", return_value=0) as module, \
                mock.patch.object(herd7.kbuild, "kmod_make", return_value=0) as make:
            self.assertEqual(herd7.litmus_objects(self.d, "arm64-builtins-llsc-clang",
                                                  ["litmus_asm.o", "litmus_builtins.o"]), 0)
        self.assertEqual(module.call_args.args[:2], ("litmus_arch", "c"))
        self.assertEqual(Path(self.d, "litmus_builtins.c").read_text(),
                         '#define ATOMIC_IMPL_BUILTINS\n#include "litmus_threads.c"\n')
        self.assertIn("ATOMIC_IMPL_ARCH\n", Path(self.d, "litmus_asm.c").read_text())
        self.assertEqual(make.call_args.args,
                         ("arm64", env.WORK / "build/arm64-builtins-clang-llsc", self.d,
                          ["litmus_asm.o", "litmus_builtins.o"], ["LLVM=-19"]))

    def test_herd_built_once(self):
        """herd7 is not built again for the same tarball."""
        d = Path(env.WORK, "herdtools7")
        Path(d, "bin").mkdir(parents=True)
        Path(d, "bin/herd7").write_text("")
        Path(d, "bin/herd7").chmod(0o755)
        Path(d, "source").write_text(
            hashlib.sha256(env.HERDTOOLS.read_bytes()).hexdigest()[:16] + "\n")
        with mock.patch.object(herd7.env, "run") as run:
            herd7.herd_build()
        run.assert_not_called()


if __name__ == "__main__":
    unittest.main()
