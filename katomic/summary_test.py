# SPDX-License-Identifier: GPL-2.0
"""summary.py's checks, each shown failing and passing on the recorded results
of a make test-all (testdata/results.tar.xz; testing.py names them). A
few seconds: python3 -m unittest katomic.summary_test; and python3 -m
katomic.summary_test --mutations: each check of summary.py disabled in
turn must fail a test (a few minutes)."""

import contextlib
import io
import json
import subprocess
import sys
import tarfile
import tempfile
import unittest
from pathlib import Path

from . import summary
from .testing import RECORDED, REPO, TESTDATA, katomic


class Recorded(unittest.TestCase):
    """Each test breaks one thing in a copy of the recorded results."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = Path(self.tmp.name)
        with tarfile.open(TESTDATA / "results.tar.xz") as t:
            t.extractall(self.dir)

    def tearDown(self):
        self.tmp.cleanup()

    def path(self, name, kind):
        return self.dir / f"{name}.{kind}"

    def edit_text(self, name, kind, change):
        p = self.path(name, kind)
        p.write_text(change(p.read_text()))

    def edit_json(self, name, kind, change):
        p = self.path(name, kind)
        data = json.loads(p.read_text())
        change(data)
        p.write_text(json.dumps(data))

    def append(self, name, kind, line):
        self.edit_text(name, kind, lambda t: t + line + "\n")

    def problems(self, name):
        r = summary.summarise(self.dir, name)
        self.assertEqual(r["ok"], not r["problems"])
        return r["problems"]

    def assertFails(self, name, text):
        problems = self.problems(name)
        self.assertTrue(any(text in p for p in problems),
                        f"no problem with {text!r} in {problems}")

    def set_case(self, name, case, status):
        """Give the leaf case named case (suite.group.case) status."""
        def walk(group, path):
            for c in group.get("test_cases", []):
                if ".".join(path + [c["name"]]) == case:
                    c["status"] = status
                    return True
            return any(walk(g, path + [g["name"]]) for g in group.get("sub_groups", []))
        self.edit_json(name, "json", lambda d: self.assertTrue(walk(d, []), case))

    def drop_cases(self, name, suite, keep):
        """Keep the first keep groups of cases of suite (none: no case)."""
        def walk(group):
            if group["name"] == suite:
                group["sub_groups"] = group.get("sub_groups", [])[:keep]
                if not keep:
                    group["test_cases"] = []
            for g in group.get("sub_groups", []):
                walk(g)
        self.edit_json(name, "json", walk)

    # The recorded runs pass, with the counts of their console.

    def test_recorded_pass(self):
        for name in RECORDED:
            with self.subTest(name=name):
                self.assertEqual(self.problems(name), [])
        r = summary.summarise(self.dir, "s390x")
        self.assertEqual((r["passed"], r["failed"], r["skipped"]), (2174, 0, 22))
        self.assertTrue(r["atomic64_test"])
        self.assertGreater(sum(r["stress_operations"].values()), 0)
        self.assertEqual(r["litmus_forbidden_seen"], 0)

    # What stops a run: timeouts, panics, sanitizers, no boot.

    def test_build_timeout(self):
        self.edit_json("s390x", "run.json", lambda d: d.update(rc=124))
        self.assertFails("s390x", "timed out after")

    def test_qemu_timeout(self):
        self.append("s390x", "kunit.log", "[12:00:00] Timed out after 600 seconds")
        self.assertEqual(self.problems("s390x"), [])  # kunit.py's words, lower case
        self.append("s390x", "kunit.log", "ERROR: timed out after 600 seconds")
        self.assertFails("s390x", "QEMU timed out after 600 seconds")

    def test_panic(self):
        self.append("s390x", "console.log", "Kernel panic - not syncing: Fatal exception")
        self.assertFails("s390x", "Kernel panic - not syncing: Fatal exception")

    def test_sanitizer_report(self):
        self.append("s390x-builtins-kasan", "console.log",
                    "BUG: KASAN: slab-out-of-bounds in atomic_test+0x10/0x20")
        self.assertFails("s390x-builtins-kasan", "1 sanitizer reports")

    def test_no_boot(self):
        self.path("s390x", "console.log").unlink()
        self.assertFails("s390x", "the kernel did not boot")

    def test_audit_only_configuration(self):
        self.assertEqual(self.problems("s390x-z10"), [])
        self.edit_json("s390x-z10", "run.json", lambda d: d.update(rc=2))
        self.assertFails("s390x-z10", "configuring it failed (exit 2)")

    def test_atomic64_test(self):
        self.edit_text("s390x", "console.log",
                       lambda t: t.replace("atomic64_test: passed", "atomic64_test: ..."))
        self.assertFails("s390x", "lib/atomic64_test.c did not print 'passed'")

    def test_kunit_exit(self):
        self.edit_json("s390x", "run.json", lambda d: d.update(rc=1))
        self.assertFails("s390x", "kunit.py exited 1")

    # The suites: parsed, all there, as many cases on both implementations.

    def test_no_ktap(self):
        self.path("s390x", "json").unlink()
        self.assertFails("s390x", "no KTAP results parsed")

    def test_failed_case(self):
        self.set_case("s390x", "atomic_xchg_arch.xchg_heap.cmpxchg(s8)", "FAIL")
        self.assertFails("s390x", "1 failed: atomic_xchg_arch.xchg_heap.cmpxchg(s8)")

    def test_missing_suite(self):
        self.drop_cases("s390x", "atomic_litmus_builtins", 0)
        self.assertFails("s390x", "suite atomic_litmus_builtins did not run")

    def test_short_suite(self):
        self.drop_cases("s390x", "atomic_ops_arch", 1)
        self.assertFails("s390x", "suite atomic_ops_arch ran 85 cases, atomic_ops_builtins 170")

    def test_one_implementation(self):
        # riscv64 with GCC offers the assembly only: its builtins suites
        # are not expected, until the run says the builtins were offered.
        self.edit_json("riscv64", "run.json", lambda d: d.update(builtins=True))
        self.assertFails("riscv64", "suite atomic_xchg_builtins did not run")

    def test_bench_skipped(self):
        cases = [("atomic_bench_arch.a", "PASS"), ("atomic_bench_builtins.a", "SKIP")]
        self.assertEqual(summary.suite_problems(cases, True),
                         ["suite atomic_bench_builtins skipped its benchmarks"])
        self.assertEqual(summary.suite_problems(cases[:1] + [("atomic_bench_builtins.a", "PASS")],
                                                True), [])

    # The console and the build's warnings.

    def test_console_failure(self):
        self.append("s390x", "console.log", "WARNING: CPU: 1 PID: 42 at lib/foo.c:1 bar+0x0/0x4")
        self.assertFails("s390x", "1 console lines the torture scripts count as failure")

    def test_after_restart(self):
        # What the platform's reset prints after the tests is a note; the
        # same line before the restart fails the run.
        self.append("s390x", "console.log", "reboot: Restarting system")
        self.append("s390x", "console.log", "WARNING: CPU: 1 PID: 0 at kernel/smp.c:661 x")
        self.append("s390x", "console.log", "Kernel panic - not syncing: Reboot failed!")
        self.assertEqual(self.problems("s390x"), [])
        self.assertIn("2 failure lines on the console after the restart",
                      " ".join(summary.summarise(self.dir, "s390x")["notes"]))
        self.edit_text("s390x", "console.log", lambda t: "WARNING: CPU: 0 PID: 1 at a\n" + t)
        self.assertFails("s390x", "1 console lines the torture scripts count as failure")

    def test_objtool(self):
        self.append("s390x", "kunit.log",
                    "vmlinux.o: warning: objtool: .text+0x10: unreachable instruction")
        self.assertEqual(self.problems("s390x"), [])  # an overridden __weak body: a note
        self.append("s390x", "kunit.log", "vmlinux.o: warning: objtool: foo+0x4: call to "
                    "bar() leaves .noinstr.text section")
        self.assertFails("s390x", "1 objtool warnings on vmlinux.o")

    def test_library_calls(self):
        self.edit_json("s390x", "run.json", lambda d: d.update(libatomic_symbols=2))
        self.assertFails("s390x", "vmlinux has 2 library-call symbols")

    def test_instrumentation_count(self):
        self.path("s390x-builtins-kasan", "instr.json").unlink()
        self.assertFails("s390x-builtins-kasan", "the count of sanitizer calls in the probe did not run")

    # The machine-code audit.

    def herd(self, name, fails=False, selftest_ok=2):
        """A herd7 check of name's code: one test, failing or not."""
        self.edit_json(name, "run.json", lambda d: d.update(herd7=True))
        line = {"code": "asm", "offered": True, "tests": 1, "translated": 1, "run": 1,
                "selftest": 2, "selftest_ok": selftest_ok, "violations": int(fails),
                "errors": 0, "time_s": 1.0}
        test = {"test": "SB+xchg", "code": "asm", "violation": fails, "error": None,
                "fails": fails}
        self.path(name, "litmus.json").write_text(json.dumps(
            {"arch": "riscv64", "model": "riscv.cat", "lines": [line], "tests": [test]}))

    def test_herd_pass(self):
        self.herd("riscv64")
        self.assertEqual(self.problems("riscv64"), [])
        self.assertEqual(summary.summarise(self.dir, "riscv64")["herd7"][0]["run"], 1)

    def test_herd_missing(self):
        self.herd("riscv64")
        self.path("riscv64", "litmus.json").unlink()
        self.assertFails("riscv64", "herd7 check of its code did not run")

    def test_herd_violation(self):
        self.herd("riscv64", fails=True)
        self.assertFails("riscv64", "SB+xchg (asm): the model allows what the LKMM forbids")

    def test_herd_selftest(self):
        self.herd("riscv64", selftest_ok=1)
        self.assertFails("riscv64", "the self-test of asm: 1 of 2")

    def test_herd_disagree(self):
        self.herd("riscv64")
        self.edit_json("riscv64", "litmus.json", lambda d: d.update(crosscheck={
            "agree": 3, "disagree": ["asm:audit_xchg_u32 audit pass, herd7 fail"]}))
        self.assertFails("riscv64", "herd7 and the audit disagree: asm:audit_xchg_u32")
        # A cross-check that matched no primitive checked nothing.
        self.edit_json("riscv64", "litmus.json", lambda d: d.update(crosscheck={
            "agree": 0, "disagree": []}))
        self.assertFails("riscv64", "judged no primitive both")

    def test_audit_missing(self):
        self.path("s390x", "audit.json").unlink()
        self.assertFails("s390x", "the machine-code audit did not run")

    def test_audit_failure(self):
        def fail(d):
            d["ordering"][0].update(verdict="fail", reasons=["no barrier after the RMW"])
        self.edit_json("s390x", "audit.json", fail)
        self.assertFails("s390x", "audit: asm raw_atomic_read: no barrier after the RMW")

    def test_audit_checked_nothing(self):
        self.edit_json("s390x", "audit.json", lambda d: d.update(
            ordering=[r for r in d["ordering"] if r["impl"] != "builtins"]))
        self.assertFails("s390x", "the audit checked no builtins function")

    def test_guaranteed_worry_lost(self):
        def lose(d):
            w = next(w for w in d["worries"] if w["flavour"] == "once" and w["class"] == "guaranteed")
            w.update(verdict="fail", reasons=["store before the load"])
        self.edit_json("s390x", "audit.json", lose)
        self.assertFails("s390x", "which the kernel guarantees: store before the load")

    def test_no_worries(self):
        self.edit_json("s390x", "audit.json", lambda d: d.update(
            worries=[w for w in d["worries"] if w["flavour"] == "c11"]))
        self.assertFails("s390x", "the audit checked none of the compiler worries")

    def test_c11_flavour(self):
        self.edit_json("s390x", "audit.json", lambda d: d.update(
            worries=[w for w in d["worries"] if w["flavour"] != "c11"]))
        self.assertFails("s390x", "the audit checked no case in the C11 flavour")

    def test_c11_unreadable(self):
        """A C11 case fails without being the reference: the checker could
        not read the code the kernel's flavour kept (the audit marks it)."""
        def unread(d):
            w = next(w for w in d["worries"] if w["flavour"] == "c11" and w["class"] == "guaranteed")
            w.update(verdict="fail", reference=False, reasons=["no load of x"])
        self.edit_json("s390x", "audit.json", unread)
        self.assertFails("s390x", "(c11), which the checker could not read: no load of x")

    def test_c11_column(self):
        """The C11 column counts the guaranteed cases that the relaxed
        __atomic accesses lose and the kernel's flavour keeps."""
        audit = json.loads(self.path("arm64-builtins-llsc-clang", "audit.json").read_text())
        c11 = [w for w in audit["worries"] if w["flavour"] == "c11" and w["class"] == "guaranteed"]
        lost = sorted(w["case"] for w in c11 if w.get("reference") and w["verdict"] == "fail")
        self.assertTrue(lost)
        arm64 = "arm64-builtins-llsc-clang"
        self.assertEqual(summary.summarise(self.dir, arm64)["audit"]["c11_transformed"], lost)
        cell = f"{len(lost)} of {len(c11)} ({', '.join(lost)})"
        self.assertIn(cell, self.main(arm64)[1])
        self.assertIn(f"| 0 of {len(c11)} |", self.main("s390x")[1])
        # A C11 loss that the kernel's flavour suffers too is no reference.
        audit["worries"] = [dict(w, reference=False) if w["case"] == lost[0] else w
                            for w in audit["worries"]]
        self.path(arm64, "audit.json").write_text(json.dumps(audit))
        self.assertIn(f"{len(lost) - 1} of {len(c11)}", self.main(arm64)[1])

    # The whole: summary.md and the exit status.

    def main(self, *names):
        argv, out = sys.argv, io.StringIO()
        sys.argv = ["summary.py", str(self.dir), *names]
        try:
            with contextlib.redirect_stdout(out):
                rc = summary.main()
        finally:
            sys.argv = argv
        return rc, (self.dir / "summary.md").read_text()

    def test_missing_results(self):
        self.path("riscv64", "run.json").unlink()
        self.assertFails("riscv64", "no results (riscv64.run.json)")
        rc, md = self.main(*RECORDED)
        self.assertEqual(rc, 1)
        self.assertIn("| riscv64 | FAIL | 0 | 0 | 0 | no results | 0 s |", md)

    def test_merge(self):
        """katomic summary, the CI pipeline's merge job: results of runs
        elsewhere, a failure when one configuration's are missing."""
        env = {"KATOMIC_RESULTS": str(self.dir)}
        self.assertEqual(katomic("summary", *RECORDED, env=env).returncode, 0)
        # results/audit.md is the whole matrix's: not of a part of it.
        self.assertFalse((self.dir / "audit.md").exists())
        for f in self.dir.glob("riscv64.*"):
            f.unlink()
        r = katomic("summary", *RECORDED, env=env)
        self.assertEqual(r.returncode, 1)
        self.assertIn("riscv64: no results", r.stdout)

    def test_series(self):
        """The summary names the series each run was built from, and says
        so when a merge mixes runs of different series."""
        for name in RECORDED:
            self.edit_json(name, "run.json", lambda d: d.update(series="0123456789abcdef"))
        md = self.main(*RECORDED)[1]
        self.assertIn("Series 0123456789abcdef (", md)
        self.edit_json("riscv64", "run.json", lambda d: d.update(series="fedcba9876543210"))
        md = self.main(*RECORDED)[1]
        self.assertIn("Series 0123456789abcdef, fedcba9876543210", md)
        self.assertIn("the runs are of different series", md)

    def test_exit_status(self):
        self.assertEqual(self.main(*RECORDED)[0], 0)
        self.edit_json("riscv64", "run.json", lambda d: d.update(rc=137))
        rc, md = self.main(*RECORDED)
        self.assertEqual(rc, 1)
        self.assertIn("| riscv64 | FAIL |", md)


def mutations():
    """Disable each check of summary.py that can fail a run, one at a time
    (its problem never reported), and run the tests on that copy: each must
    make some test fail. Prints a line per check; exits 1 if one is not
    caught. A few minutes: python3 -m katomic.summary_test --mutations"""
    import re
    import shutil
    lines = (REPO / "katomic/summary.py").read_text().splitlines(keepends=True)
    checks = [k for k, x in enumerate(lines)
              if re.search(r'(\bproblems|out\["problems"\])\s*(\.append\(|\+=)', x)]
    missed = 0
    for k in checks:
        with tempfile.TemporaryDirectory() as tmp:
            for d in ("scripts", "katomic"):
                shutil.copytree(REPO / d, Path(tmp, d))
            m = lines[:]
            m[k] = re.sub(r"\.append\(", ".append if False else (lambda *a: None)(", m[k], 1) \
                if ".append(" in m[k] else m[k].replace("+=", "+= [] if True else", 1)
            Path(tmp, "katomic/summary.py").write_text("".join(m))
            r = subprocess.run([sys.executable, "-m", "unittest", "katomic.summary_test"],
                               capture_output=True, text=True, cwd=tmp)
        missed += r.returncode == 0
        print(f"summary.py:{k + 1}: {'caught' if r.returncode else 'NOT CAUGHT'}: "
              f"{lines[k].strip()[:70]}")
    print(f"{len(checks) - missed} of {len(checks)} checks caught when disabled")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(mutations()) if sys.argv[1:] == ["--mutations"] else unittest.main()
