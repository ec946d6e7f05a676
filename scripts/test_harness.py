#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The harness's own tests: every check of summary.py that can fail a run,
shown failing and passing on recorded results (testdata/results.tar.xz, a
make test-all of 2026-12-07 on series 8d5f347e20df1511: s390x, riscv64
with GCC, which offers only the assembly, s390x-builtins-kasan, the
audit-only s390x-z10, and arm64-builtins-llsc-clang, where C11's relaxed
accesses lose cases); the
configuration names katomic.sh accepts and refuses; scripts/arches.tsv as
katomic.sh and report.py read it; the CI pipeline made of it; the
summary's C11 column.

Plain unittest, a few seconds: python3 scripts/test_harness.py [-v]; and
--mutations: each check of summary.py disabled in turn must fail a test."""

import contextlib
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import unittest
from pathlib import Path
from unittest import mock

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # the katomic package
from katomic import (arches, litmus, litmus_arch, litmus_fixtures, litmus_kunit,  # noqa: E402
                     lkmm, report, report_md, summary)
from katomic.audit import disasm  # noqa: E402
from katomic.audit.arch import arm64, ppc64le, riscv64, x86_64  # noqa: E402
from katomic.audit.herd import Unknown  # noqa: E402

KATOMIC = HERE / "katomic.sh"
RECORDED = ("s390x", "riscv64", "s390x-builtins-kasan", "s390x-z10", "arm64-builtins-llsc-clang")


class Recorded(unittest.TestCase):
    """Each test breaks one thing in a copy of the recorded results."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = Path(self.tmp.name)
        with tarfile.open(HERE / "testdata" / "results.tar.xz") as t:
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
        """katomic.sh summary, the CI pipeline's merge job: results of runs
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


def katomic(*args, env=None):
    return subprocess.run(["bash", str(KATOMIC), *args], capture_output=True, text=True,
                          env=dict(os.environ, **(env or {})))


def stub_kunit(tree):
    """A kunit.py in TREE that prints its arguments instead of running."""
    kunit = Path(tree, "tools/testing/kunit")
    kunit.mkdir(parents=True)
    (kunit / "kunit.py").write_text("import sys\nprint(*sys.argv[1:])\n")


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

    def test_parallel(self):
        """run -P N runs N configurations at once, each with its share of
        the cores, then one summary of all (the runs stubbed out)."""
        stub = ('source "$0" > /dev/null; RESULTS=$(mktemp -d); '
                'cmd_deps() { :; }; cmd_tree() { :; }; harness_selftest() { :; }; '
                'audit_selftest() { :; }; herd_build() { :; }; lkmm_side() { :; }; '
                'cmd_summary() { echo "summary $*"; }; '
                # A run ends only once two have started: no timing involved.
                'd=$(mktemp -d); run_one() { echo "start $1 $JOBS"; touch "$d/$1"; '
                'while [ "$(ls "$d" | wc -l)" -lt 2 ]; do sleep 0.05; done; echo "end $1"; }; '
                'nproc() { echo 4; }; cmd_run -P 2 m68k sparc alpha')
        r = subprocess.run(["bash", "-c", stub, str(KATOMIC)], capture_output=True, text=True,
                           timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = [x for x in r.stdout.splitlines() if not x.startswith("katomic:")]
        running, most = 0, 0
        for x in lines[:-1]:
            running += 1 if x.startswith("start") else -1
            most = max(most, running)
        self.assertEqual(most, 2)
        self.assertEqual(sorted(x for x in lines if x.startswith("start")),
                         ["start alpha 2", "start m68k 2", "start sparc 2"])
        self.assertEqual(lines[-1], "summary m68k sparc alpha")

    def test_kernel_args_only_for_run(self):
        """kunit.py config and build refuse --kernel_args, which i386's row
        has: make check passes them to run only (kunit.py stubbed out)."""
        with tempfile.TemporaryDirectory() as d:
            stub_kunit(d)
            Path(d, "lib").mkdir()
            Path(d, "lib/Kconfig.debug").write_text("config ATOMIC_KUNIT_TEST\n")
            stub = (f'source "$0" > /dev/null; TREE={d}; CHECK={d}; '
                    f'check_kunit build i386 {d}/build.log && check_kunit run i386 {d}/run.log')
            r = subprocess.run(["bash", "-c", stub, str(KATOMIC)], capture_output=True,
                               text=True, timeout=60)
            self.assertEqual(r.returncode, 0, r.stderr)
            build, run = (Path(d, f).read_text().split() for f in ("build.log", "run.log"))
        self.assertEqual(build[0], "build")
        self.assertIn("--arch=i386", build)
        self.assertFalse([a for a in build if a.startswith("--kernel_args")])
        self.assertEqual(run[0], "run")
        self.assertIn("--kernel_args=atomic_smp_kunit.stress_iters=2000", run)

    def test_patch_without_configuration(self):
        """A patch to an architecture without a row (csky) builds nothing:
        patch_configs prints nothing and succeeds (its grep of an empty
        list once failed the pipeline and stopped make check unheard)."""
        with tempfile.TemporaryDirectory() as d:
            stub = (f'source "$0" > /dev/null; TREE={d}; '
                    'out=$(echo arch/csky/include/asm/atomic.h | patch_configs) || exit 3; '
                    'printf "[%s]" "$out"')
            r = subprocess.run(["bash", "-c", stub, str(KATOMIC)], capture_output=True,
                               text=True, timeout=60)
        self.assertEqual((r.returncode, r.stdout), (0, "[]"), r.stderr)

    def test_kernel_args_not_to_config(self):
        """The audit-only configuration and make report run kunit.py config
        on a row's arguments: x86_64's has --kernel_args, which config
        refuses (kunit.py stubbed out; make prepare then fails, unheard)."""
        with tempfile.TemporaryDirectory() as d:
            stub_kunit(d)
            stub = (f'source "$0" > /dev/null; TREE={d}; '
                    f'prepare_build x86_64 {d}/b {d}/config.log || true')
            r = subprocess.run(["bash", "-c", stub, str(KATOMIC)], capture_output=True,
                               text=True, timeout=60)
            self.assertEqual(r.returncode, 0, r.stderr)
            config = Path(d, "config.log").read_text().split("\n")[0].split()
        self.assertEqual(config[0], "config")
        self.assertIn("--kconfig_add=CONFIG_ACPI=n", config)
        self.assertFalse([a for a in config if a.startswith("--kernel_args")])

    def test_gcc_plugin(self):
        """sh's row names -fplugin=@PLUGINS@/sh_no_treg_combine.so: built
        once from scripts/ against the row's cross compiler; one that does
        not build stops with its name (g++ and the compiler stubbed out)."""
        with tempfile.TemporaryDirectory() as d:
            stub = (f'source "$0" > /dev/null; WORK={d}; '
                    'sh4-linux-gnu-gcc() { echo /plugin; }; '
                    f'g++() {{ echo "$@" >> {d}/g++.log; touch "${{@: -1}}"; }}; '
                    'gcc_plugins sh && gcc_plugins sh && rm "$WORK/plugins/"*; '
                    'g++() { return 1; }; gcc_plugins sh')
            r = subprocess.run(["bash", "-c", stub, str(KATOMIC)], capture_output=True,
                               text=True, timeout=60)
            built = Path(d, "g++.log").read_text().splitlines()
        self.assertEqual(len(built), 1)  # the second call reuses it
        args = built[0].split()
        self.assertIn("-I/plugin/include", args)
        self.assertTrue(args[-3].endswith("/scripts/sh_no_treg_combine.cc"), args)
        self.assertEqual(args[-1], f"{d}/plugins/sh_no_treg_combine.so.tmp")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("the GCC plugin sh_no_treg_combine does not build", r.stderr)

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
            with tarfile.open(HERE / "testdata/results.tar.xz") as t:
                (bdir / "test.log").write_bytes(t.extractfile("s390x.console.log").read())
            stub = (f'source "$0" > /dev/null; TREE={d}/tree; WORK={d}/work; '
                    f'RESULTS={d}/results; mkdir -p $RESULTS; audited() {{ false; }}; '
                    'run_one s390x')
            r = subprocess.run(["bash", "-c", stub, str(KATOMIC)], capture_output=True,
                               text=True, timeout=60)
            self.assertEqual(r.returncode, 0, r.stderr)
            row = summary.summarise(Path(d, "results"), "s390x")
        self.assertFalse(row["ok"])
        self.assertIn("the kernel did not boot", " ".join(row["problems"]))
        self.assertEqual((row["stress_operations"], row["litmus_runs"]), ({}, 0))

    def test_watch_qemu(self):
        """A QEMU that outlives kunit.py's timeout (s390x's deadlocked
        reboot) is killed, and the run says so."""
        with tempfile.TemporaryDirectory() as d:
            Path(d, "log").write_text("Command '...' timed out after 600 seconds\n")
            r = subprocess.run(["bash", "-c", 'source "$0" > /dev/null; d=$D; '
                                '(exec -a "qemu-system-fake -kernel $d/b/bzImage" sleep 60) & '
                                'q=$!; (while kill -0 $q 2>/dev/null; do sleep 0.2; done) & '
                                'watch_qemu $! $d/log $d/b $d/mark', str(KATOMIC)],
                               capture_output=True, text=True, timeout=30,
                               env=dict(os.environ, D=d))
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("was killed", Path(d, "mark").read_text())

    def test_check_changed_only(self):
        """make check without FROM rebuilds only the patches whose id (git
        patch-id) has no line in results/check.tsv, whatever its number, and
        checkpatches every one (a three-patch tree; checkpatch, builds and
        boots stubbed out)."""
        with tempfile.TemporaryDirectory() as d:
            tree, results = Path(d, "linux"), Path(d, "results")
            results.mkdir()
            git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-C", str(tree)]
            subprocess.run(["git", "init", "-q", "-b", "katomic", str(tree)], check=True)
            for i in range(4):
                Path(tree, f"f{i}").write_text(f"{i}\n")
                subprocess.run(git + ["add", f"f{i}"], check=True)
                subprocess.run(git + ["commit", "-q", "-m", f"patch {i}"], check=True)
                if not i:
                    subprocess.run(git + ["tag", "pristine"], check=True)
            ids = [subprocess.run(f"git -C {tree} show HEAD~{2 - i} | git patch-id --stable",
                                  shell=True, capture_output=True, text=True).stdout[:12]
                   for i in range(3)]
            # Patch 2 is new (inserted): patch 3's line is the old 2, and
            # the old 4 is of no patch now.
            Path(results, "check.tsv").write_text(
                f"1\t10\ts390x\tok\t{ids[0]}\n2\t10\ts390x\tok\t{ids[2]}\n"
                f"4\t10\ts390x\tok\t000000000000\n")
            Path(tree, "scripts").mkdir()
            Path(tree, "scripts/checkpatch.pl").write_text("#!/bin/sh\ncat > /dev/null\n")
            Path(tree, "scripts/checkpatch.pl").chmod(0o755)
            stub = (f'source "$0" > /dev/null; TREE={tree}; WORK={d}; RESULTS={results}; '
                    'cmd_deps() { :; }; cmd_tree() { :; }; patch_configs() { cat > /dev/null; }; '
                    'compile_suites() { :; }; atomics_listed() { :; }; '
                    'check_boot() { echo "Testing complete" > "$CHECK/$1.boot.log"; '
                    'git -C "$TREE" log --format=%s -2 | paste -sd, >> "$CHECK/booted"; }; '
                    'topics() { printf "1 2\n3 3\n"; }; cmd_check')
            r = subprocess.run(["bash", "-c", stub, str(KATOMIC)], capture_output=True,
                               text=True, timeout=60)
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            rows = [x.split("\t") for x in Path(results, "check.tsv").read_text().splitlines()]
            # Again: nothing changed, nothing built or booted, the same lines.
            again = subprocess.run(["bash", "-c", stub, str(KATOMIC)], capture_output=True,
                                   text=True, timeout=60)
            self.assertEqual(again.returncode, 0, again.stdout + again.stderr)
            self.assertIn("[2] end of a topic: booted as", again.stdout)
            self.assertEqual(Path(results, "check.tsv").read_text().splitlines(),
                             ["\t".join(x) for x in rows])
            # Interrupted at patch 2's topic end: patch 3's line stays.
            Path(results, "check.tsv").write_text(
                "".join("\t".join(x[:4] + ["000000000000" if x[0] == "2" else x[4]]) + "\n"
                        for x in rows if x[3] == "ok"))
            cut = subprocess.run(["bash", "-c", stub.replace("cmd_check", "check_topic_boot() "
                                                             "{ exit 9; }; cmd_check"),
                                  str(KATOMIC)], capture_output=True, text=True, timeout=60)
            self.assertEqual(cut.returncode, 9, cut.stdout + cut.stderr)
            self.assertEqual([x.split("\t")[0] for x in
                              Path(results, "check.tsv").read_text().splitlines()],
                             ["1", "2", "3"])
            # Patch 1 changed, patch 2 did not: the topic boots at patch 2,
            # though the check last checked out patch 1.
            Path(results, "check.tsv").write_text(
                "".join("\t".join(x[:2] + ["s390x", "ok", "0" * 12 if x[0] == "1" else x[4]])
                        + "\n" for x in rows if x[3] == "ok"))
            again = subprocess.run(["bash", "-c", stub, str(KATOMIC)], capture_output=True,
                                   text=True, timeout=60)
            self.assertEqual(again.returncode, 0, again.stdout + again.stderr)
            self.assertEqual(Path(d, "check/booted").read_text().splitlines()[-1],
                             "patch 3,patch 2")
            # Interrupted in a topic's boots: a configuration that booted
            # with the topic's id keeps its line, only the others boot.
            tsv = Path(results, "check.tsv").read_text().splitlines()
            kept = [x for x in tsv if "\tboot ok\t" in x]
            self.assertEqual([x.split("\t")[2] for x in kept], ["s390x"])
            Path(results, "check.tsv").write_text("".join(
                ("\t".join(x.split("\t")[:2] + ["s390x x86_64"] + x.split("\t")[3:])
                 if x.startswith("1\t") else x) + "\n" for x in tsv))
            Path(d, "check/booted").unlink()
            again = subprocess.run(["bash", "-c", stub, str(KATOMIC)], capture_output=True,
                                   text=True, timeout=60)
            self.assertEqual(again.returncode, 0, again.stdout + again.stderr)
            self.assertIn("booted on x86_64\n", again.stdout)
            self.assertEqual(len(Path(d, "check/booted").read_text().splitlines()), 1)
            self.assertEqual(sorted(x.split("\t")[2] for x in
                                    Path(results, "check.tsv").read_text().splitlines()
                                    if "\tboot ok\t" in x), ["s390x", "x86_64"])
            self.assertIn(kept[0], Path(results, "check.tsv").read_text().splitlines())
        unchanged = [x for x in r.stdout.splitlines() if "unchanged" in x]
        self.assertEqual([x.split()[1] for x in unchanged], ["[1/3]", "[3/3]"])
        # The topic of patches 1-2 changed: its end booted again, with an id.
        self.assertEqual([(x[0], x[3]) for x in rows], [("1", "ok"), ("2", "ok"),
                                                         ("2", "boot ok"), ("3", "ok")])
        self.assertEqual([x[4] for x in rows if x[3] == "ok"], ids)
        self.assertRegex(rows[2][4], "^[0-9a-f]{12}$")

    def test_matrix(self):
        """Every configuration of the three matrices is a valid name."""
        for which in ((), ("more",), ("arches",)):
            names = katomic("configs", *which).stdout.split()
            self.assertTrue(names)
            r = katomic("args", *names)
            self.assertEqual(r.returncode, 0, r.stderr)


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


def insns(*code):
    """disasm.Insn from (address, mnemonic, operands, branch target)."""
    out = []
    for addr, mnem, ops, target in code:
        i = disasm.Insn(addr, mnem, ops)
        i.target = i.jump = target
        out.append(i)
    return out


class LitmusArch(unittest.TestCase):
    """katomic/litmus_arch.py's translation into herd7's syntax."""

    def test_mutations_table(self):
        """make mutate's rows: six fields, a configuration of make test-all
        whose architecture has a translator, a code the check reports."""
        rows = [line.rstrip("\n").split("\t") for line in
                (HERE / "mutations.tsv").read_text().splitlines()
                if line and not line.startswith("#")]
        self.assertGreaterEqual(len(rows), 6)
        configs = subprocess.run([str(KATOMIC), "configs"], check=True,
                                 capture_output=True, text=True).stdout.split()
        for cfg, code, path, old, new, why in rows:
            self.assertIn(cfg, configs)
            self.assertIn(cfg.split("-")[0], litmus_arch.ARCHES)
            self.assertFalse(litmus_arch.ARCHES[cfg.split("-")[0]].get("partial"))
            self.assertIn(code, ("asm", "asm+lse", "builtins", "builtins+lse"))
            self.assertNotEqual(old, new)
            self.assertTrue(path.startswith("arch/") and why)

    def test_crosscheck(self):
        """The audit's verdict per primitive against herd7's on its tests:
        a violation in any test of the primitive is herd7's fail."""
        audit_rows = [{"impl": "asm", "function": f, "verdict": v} for f, v in (
            ("audit_xchg_u32", "pass"), ("audit_atomic_add_return", "pass"),
            ("audit_after_atomic_inc", "fail"), ("audit_atomic_read", "absent"))]
        test = lambda n, v=False: {"test": n, "code": "asm", "violation": v,  # noqa: E731
                                   "error": None, "run": True}
        got = litmus_arch.agreement(litmus_arch.crosscheck(audit_rows, [
            test("SB+xchg-u32"), test("MP-writer+xchg-u32", True),
            test("SB+atomic_add_return"), test("SB+atomic_inc+mb__after_atomic")]))
        self.assertEqual(got, {"agree": 1, "disagree": [
            "asm:audit_after_atomic_inc audit fail, herd7 pass",
            "asm:audit_xchg_u32 audit pass, herd7 fail"]})

    def test_layout(self):
        """Only loops branch backwards (herd7's -unroll 0 cuts every
        backward branch); code no path reaches is left out."""
        code = insns((0, "b", "", 16), (4, "casal", "x4, x5, [x2]", None),
                     (8, "cmp", "x0, x4", None), (12, "ret", "", None),
                     (16, "ldxr", "x4, [x2]", None), (20, "cbnz", "w6, 10", 16),
                     (24, "b", "", 8))
        out = arm64.a64_thread(code)
        self.assertEqual(out, ["B L10", "L10:", "LDXR X4,[X2]", "CBNZ W6,L10", "B L8",
                               "L8:", "CMP X0,X4"])
        self.assertNotIn("CASAL X4,X5,[X2]", out)

    def test_arm64(self):
        one = lambda m, o: arm64.a64_insn(insns((0, m, o, None))[0], {})  # noqa: E731
        self.assertEqual(one("mov", "x0, #0xfffffffffffffffe"), "MOV X0,#-2")
        self.assertEqual(one("and", "w1, w1, #0xffffff00"), "AND W1,W1,#-256")
        self.assertEqual(one("cmn", "w8, #0x1"), "ADDS WZR,W8,#1")
        for m in ("ldar", "stlr", "ldaxrb", "stlxrh", "ldr", "casal", "swpalb", "ldclrl", "stadd"):
            self.assertTrue(arm64.A64_KNOWN.fullmatch(m), m)
        self.assertIsNone(one("prfm", "pstl1strm, [x1]"))
        with self.assertRaisesRegex(Unknown, "stack"):
            one("str", "x0, [sp, #8]")
        with self.assertRaisesRegex(Unknown, "ccmp, which the translator"):
            one("ccmp", "x0, x1, #0x0, ne")
        with self.assertRaisesRegex(Unknown, "operand"):
            one("add", "x0, x1, x2, uxtw #2")

    def test_weakened(self):
        """The self-test takes out P0's barriers, not P1's."""
        text = ("AArch64 T\n{\n}\nP0               | P1      ;\nLDADDAL W0,W0,[X2] | DMB ISH ;\n"
                "DMB ISH          | STLR W1,[X0] ;\nLDAXR W1,[X2]    | NOP     ;\nexists (x=1)\n")
        w = litmus_arch.weakened(text, arm64.WEAKEN)
        self.assertTrue(w.startswith("AArch64 T.weak\n"))
        self.assertIn("LDADD W0,W0,[X2] ", w)
        self.assertIn("NOP              | STLR W1,[X0] ;", w)
        self.assertIn("LDXR W1,[X2]", w)
        self.assertIn("| DMB ISH ;", w)
        rv = litmus_arch.weakened("RISCV T\nP0 | P1 ;\namoadd.w.aqrl a5,a4,(a1) | fence rw,rw ;\n"
                                  "fence rw,rw | nop ;\n", riscv64.WEAKEN)
        self.assertIn("amoadd.w a5,a4,(a1)", rv)
        self.assertIn("nop", rv.split("\n")[3])
        self.assertIn("| fence rw,rw ;", rv)

    def test_x86(self):
        one = lambda m, o, live=False: x86_64.x86_insn(  # noqa: E731
            insns((0, m, o, None))[0], {}, "Lx0", live)
        self.assertEqual(one("lock addl", "$0x0,-0x4(%rsp)"), ["mfence"])    # smp_mb()
        with self.assertRaisesRegex(Unknown, "stack"):
            one("lock cmpxchg", "%ecx,0x8(%rsp)")
        self.assertEqual(one("lock subl", "$0x1,(%rdx)"), ["lock addl $-1,(%rdx)"])
        self.assertEqual(one("movl", "$0x1,(%rdi)"), ["movl $1,(%rdi)"])
        self.assertEqual(one("lock cmpxchg", "%r9d,(%rdx)"), ["lock cmpxchgl (%rdx),%r9d"])
        self.assertEqual(one("xchg", "%al,(%rsi)"), ["xchgb %al,(%rsi)"])
        self.assertEqual(one("movzwl", "(%rsi),%eax"),
                         ["movq $0,%r14", "movw (%rsi),%r14w", "movl %r14d,%eax"])
        self.assertIsNone(one("endbr64", ""))
        # A 32-bit register written is zero-extended and cut, as herd7
        # does not; its flags, where read, from its value at the top.
        self.assertEqual(one("mov", "$0xffffffff,%eax"), ["movl $-1,%eax", "movl %eax,%eax"])
        self.assertEqual(one("add", "$0xffffffff,%eax", True),
                         ["addl $-1,%eax", "movq %rax,%r15", "shl $32,%r15", "movl %eax,%eax"])
        self.assertEqual(one("lea", "-0x1(%rax),%edi"),
                         ["movl %eax,%edi", "addl $-1,%edi", "movl %edi,%edi"])
        self.assertEqual(one("test", "%eax,%eax"), ["movq %rax,%r15", "shl $32,%r15"])
        self.assertEqual(one("cmp", "$0xffffffff,%eax"), [
            "movq %rax,%r14", "shl $32,%r14", "movq $-1,%r15", "shl $32,%r15", "cmpq %r15,%r14"])
        # Locked ops herd7 lacks, or whose narrow flags it gets wrong: the
        # cmpxchg loop; a source in %rax copied before the loop reloads it.
        loop = ["movq %rax,%r13", "Lx0:", "movq (%rdx),%rax", "movq %rax,%r14",
                "and $-2,%r14", "lock cmpxchgq (%rdx),%r14", "jne Lx0", "movq %r13,%rax"]
        self.assertEqual(one("lock andq", "$0xfffffffffffffffe,(%rdx)"), loop)
        self.assertEqual(one("lock andq", "$0xfffffffffffffffe,(%rdx)", True),
                         loop + ["cmpq $0,%r14"])
        self.assertEqual(one("lock or", "%eax,(%rdx)")[:6],
                         ["movq %rax,%r15", "movq %rax,%r13", "Lx0:", "movl (%rdx),%eax",
                          "movq %rax,%r14", "orl %r15d,%r14d"])
        self.assertEqual(one("lock incl", "(%rdx)"), ["lock incl (%rdx)"])
        self.assertEqual(one("lock incl", "(%rdx)", True)[4:], [
            "addl $1,%r14d", "lock cmpxchgl (%rdx),%r14d", "jne Lx0", "movq %r13,%rax",
            "movq %r14,%r15", "shl $32,%r15"])
        self.assertEqual(one("lock addq", "$0x1,(%rdx)", True), ["lock addq $1,(%rdx)"])
        with self.assertRaisesRegex(Unknown, "needs"):
            one("lock xadd", "%eax,(%rax)")
        # Unlocked (the audit's fixture full_no_fence): a plain read, then
        # a plain write, the old value in the register.
        self.assertEqual(one("xadd", "%eax,(%rdi)"), [
            "movq %rax,%r15", "movl (%rdi),%r14d", "addl %r14d,%r15d", "movl %r15d,(%rdi)",
            "movl %r14d,%eax"])
        with self.assertRaisesRegex(Unknown, "flags of an unlocked xadd"):
            one("xadd", "%eax,(%rdi)", True)
        with self.assertRaisesRegex(Unknown, "without flags"):
            one("lea", "0x1(%rax),%edi", True)
        for m, o in (("sbb", "%eax,%eax"), ("lock btsl", "$0x1,(%rdi)")):
            with self.assertRaisesRegex(Unknown, "which the translator"):
                one(m, o)
        # xadd: the old value in its register; js: neither equal nor greater.
        code = insns((0, "mov", "$0x1,%eax", None), (5, "lock xadd", "%eax,(%rdi)", None),
                     (9, "js", "11", 17), (11, "movl", "$0x1,(%rsi)", None),
                     (17, "ret", "", None))
        self.assertEqual(x86_64.x86_thread(code), [
            "movl $1,%eax", "movl %eax,%eax", "movq %rax,%r15", "movq %rax,%r13", "Lx5:",
            "movl (%rdi),%eax", "movq %rax,%r14", "addl %r15d,%r14d",
            "lock cmpxchgl (%rdi),%r14d", "jne Lx5", "movq %rax,%r15", "movq %r13,%rax",
            "movl %r15d,%eax", "movq %r14,%r15", "shl $32,%r15", "jge Lx9", "jmp L11", "Lx9:",
            "movl $1,(%rsi)", "L11:"])
        with self.assertRaisesRegex(Unknown, "condition herd7's flags"):
            x86_64.x86_thread(insns((0, "cmp", "%eax,%ecx", None), (2, "ja", "6", 6),
                                         (6, "ret", "", None)))
        # cmpxchg sets ZF alone in herd7: no other condition after it.
        with self.assertRaisesRegex(Unknown, "may not have set"):
            x86_64.x86_thread(insns((0, "lock cmpxchg", "%ecx,(%rdi)", None),
                                         (4, "setg", "%al", None), (7, "ret", "", None)))
        # A setcc writes the whole register: only where the rest is zero
        # or unread, %rax counting as cmpxchg's.
        sete = (4, "sete", "%al", None)
        self.assertEqual(x86_64.x86_thread(insns(
            (0, "xor", "%eax,%eax", None), (2, "lock incl", "(%rdi)", None), sete,
            (7, "mov", "%eax,(%rsi)", None)))[-5:],
            ["movl $1,%eax", "je Lx4", "movl $0,%eax", "Lx4:", "movl %eax,(%rsi)"])
        self.assertTrue(x86_64.x86_thread(insns(
            (2, "lock incl", "(%rdi)", None), sete, (7, "movzbl", "%al,%eax", None))))
        for code in (((2, "lock incl", "(%rdi)", None), sete, (7, "mov", "%eax,(%rsi)", None)),
                     ((0, "xor", "%eax,%eax", None), (2, "lock cmpxchg", "%ecx,(%rdi)", None),
                      sete, (7, "mov", "%eax,(%rsi)", None)),
                     ((0, "xor", "%al,%al", None), (2, "lock incl", "(%rdi)", None), sete,
                      (7, "mov", "%eax,(%rsi)", None))):
            with self.assertRaisesRegex(Unknown, "beyond its byte"):
                x86_64.x86_thread(insns(*code))

    def test_riscv(self):
        one = lambda m, o: riscv64.rv_insn(insns((0, m, o, None))[0], {})  # noqa: E731
        self.assertEqual(one("seqz", "a0,a5"), "slti t6,a5,1\nslti a0,a5,0\nsub a0,t6,a0")
        self.assertEqual(one("add", "a5,a5,-1"), "addi a5,a5,-1")
        self.assertEqual(one("srliw", "a5,a5,0x1f"), "slt a5,a5,zero")
        self.assertIsNone(one("sd", "s1,24(sp)"))
        with self.assertRaisesRegex(Unknown, "address of the word"):
            one("and", "a6,a0,-4")
        with self.assertRaisesRegex(Unknown, "does not implement"):
            one("srl", "a5,a5,a4")
        with self.assertRaisesRegex(Unknown, "stack"):
            one("sd", "a5,-40(s0)")


    def test_fixtures(self):
        """The audit's fixtures as litmus tests: which cases, of what kind,
        the fixture in the thread that reads in MP-reader, its registers
        set, and the witness asking what the condition takes for granted."""
        cases = litmus_fixtures.cases("riscv64")
        self.assertIn(("amo_aq", "full", "no release or full barrier before"), cases)
        self.assertNotIn("llsc_spill", [c[0] for c in cases])      # not a barrier
        self.assertNotIn("full_skip", [c[0] for c in cases])       # a path without the op
        self.assertEqual([litmus_fixtures.kind("riscv64", f) for f in (
            "fence_read_acquire", "wmb_set_release", "cmpxchg_ok", "before_late", "amo_aq")],
            ["read", "set", "cmpxchg", "void", "op"])
        self.assertEqual(litmus_fixtures.SHAPES["acquire"], ("MP-reader", "S"))
        test, wit = litmus_fixtures.shape_test("riscv64", "T", "op", ["amoadd.w a0,a0,(a1)"],
                                               "MP-reader")
        self.assertIn("1:a1=a; 1:a0=2;", test)
        self.assertNotIn("0:a1=a", test)
        self.assertIn("| amoadd.w a0,a0,(a1) ;", test)
        self.assertTrue(test.endswith("exists (res0=1 /\\ res1=0)\n"))
        self.assertTrue(wit.startswith("RISCV T.witness\n") and wit.endswith("exists (res0=1)\n"))
        # A cmpxchg in R-op: only a success (it returns the old value, 0)
        # counts; a void op has no value.
        test, _ = litmus_fixtures.shape_test("arm64", "T", "cmpxchg", ["NOP"], "R-op")
        self.assertIn("0:X0=a; 0:X2=2; 0:X1=0;", test)
        self.assertTrue(test.endswith("exists (a=5 /\\ res1=0 /\\ res0=0)\n"))
        test, _ = litmus_fixtures.shape_test("arm64", "T", "void", ["NOP"], "R-op")
        self.assertTrue(test.endswith("exists (a=5 /\\ res1=0)\n"))

    def test_ppc(self):
        """xchg_acquire's lwarx/stwcx./bne-/isync, and CR0's EQ bit read
        as GCC's builtins read it."""
        code = insns((0, "lwarx", "r9,0(r3)", None), (4, "stwcx.", "r4,0(r3)", None),
                     (8, "bne-", "0", 0), (12, "isync", "", None),
                     (16, "mfocrf", "r10,128", None), (20, "rlwinm", "r10,r10,3,31,31", None),
                     (24, "blr", "", None))
        out = ppc64le.ppc_thread(code)
        self.assertEqual(out[:9], ["L0:", "lwarx r9,r0,r3", "stwcx. r4,r0,r3", "bne L0",
                                   "cmpw r9,r9", "bne Lacq0", "Lacq0:", "isync", "mfcr r10"])
        self.assertEqual(out[9:12], ["li r12,2", "and r10,r10,r12", "divw r10,r10,r12"])
        # herd7's PPC has CR0 alone (clang's compare into cr7).
        with self.assertRaisesRegex(Unknown, "other than CR0"):
            ppc64le.ppc_thread(insns((0, "cmpd", "cr7,r3,r3", None), (4, "blr", "", None)))
        # GCC's rS != 0 (addic's carry), and a mask of a loaded value.
        out = ppc64le.ppc_thread(insns((0, "ldarx", "r9,0(r3)", None),
                                           (4, "clrrdi", "r10,r9,1", None),
                                           (8, "addic", "r8,r9,-1", None),
                                           (12, "subfe", "r8,r8,r9", None),
                                           (16, "clrrdi", "r7,r4,2", None)) [:4])
        self.assertEqual(out[1:], ["li r12,-2", "and r10,r9,r12", "addi r8,r9,-1",
                                   "mulli r12,r9,-1", "or r12,r12,r9", "rlwinm r8,r12,1,31,31"])
        with self.assertRaisesRegex(Unknown, "address of the word"):
            ppc64le.ppc_thread(insns((0, "clrrdi", "r7,r4,2", None)))
        # Any other carry is herd7's limit, which fails nothing.
        for m, a in (("subfe", "r9,r9,r9"), ("subfic", "r9,r9,0")):
            with self.assertRaisesRegex(Unknown, "^a carry") as e:
                ppc64le.ppc_thread(insns((0, "ldarx", "r9,0(r3)", None), (4, m, a, None)))
            self.assertTrue(f"untranslated: {e.exception}".startswith(litmus_arch.LIMITS))
        # GCC's S64_MIN (li -1; clrrdi 63) before the carry: the carry is why.
        with self.assertRaisesRegex(Unknown, "^a carry.*subfic"):
            ppc64le.ppc_thread(insns((0, "li", "r7,-1", None), (4, "clrrdi", "r7,r7,63", None),
                                         (8, "xor", "r9,r9,r7", None), (12, "subfic", "r9,r9,0", None)))
        with self.assertRaisesRegex(Unknown, "mfocrf other than"):
            ppc64le.ppc_thread(code[:4] + insns((16, "mfocrf", "r10,128", None),
                                                    (20, "blr", "", None)))


class Report(unittest.TestCase):
    def test_executed_wins(self):
        rows = [{"function": f, "impl": i, "executed": n} for f, i, n in (
            ("a", "asm", 4), ("a", "builtins", 7), ("b", "asm", 5), ("b", "builtins", 5),
            ("c", "asm", 9), ("c", "builtins", 3), ("d", "asm", 2), ("e", "asm", None),
            ("e", "builtins", 1))]
        self.assertEqual(report_md.executed_wins({"ordering": rows}),
                         {"asm": 1, "builtins": 1, "same": 1})
        self.assertIsNone(report_md.executed_wins({"ordering": rows[6:7]}))
        r = {"arch": "arm64"}
        self.assertEqual(report_md.audit_key("arm64", r), "arm64")
        self.assertEqual(report_md.audit_key("arm64-clang", r), "arm64 asm-clang")
        self.assertEqual(report_md.audit_key("arm64", r, "llsc"), "arm64 llsc")

    def test_behind_why(self):
        """Where s390's asm is longer, the report says why, for either
        compiler; elsewhere it has nothing to say."""
        for arch, fn in (("s390x", "try_cmpxchg_u32"), ("s390x-clang", "atomic_sub_and_test"),
                         ("s390x", "atomic64_fetch_add")):
            self.assertTrue(report_md.behind_why(arch, fn), (arch, fn))
        self.assertIsNone(report_md.behind_why("s390x", "try_cmpxchg_u8"))
        self.assertIsNone(report_md.behind_why("x86_64", "try_cmpxchg_u32"))

    def test_size_disagrees(self):
        r = {"arch": "x86_64", "size": {"asm": {"text": 100}, "builtins": {"text": 90}}}
        lines = ["add/remove: 1/0 grow/shrink: 1/0 up/down: 12/0 (12)"]
        self.assertIn(".smp_locks", report_md.size_disagrees(r, "asm_to_builtins", lines))
        r["size"]["builtins"]["text"] = 112
        self.assertIsNone(report_md.size_disagrees(r, "asm_to_builtins", lines))

    def test_markdown_of_record(self):
        """The committed results/report.md is what report.py makes of the
        committed report.json and audits (report.py --markdown)."""
        with tempfile.TemporaryDirectory() as d:
            for f in HERE.parent.glob("results/report*.json"):
                shutil.copy(f, d)
            r = subprocess.run([sys.executable, "-m", "katomic.report", "--markdown", d],
                               capture_output=True, text=True, timeout=60, cwd=HERE.parent)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(Path(d, "report.md").read_text(),
                             (HERE.parent / "results/report.md").read_text())

    def test_bloat_pairs(self):
        with tempfile.TemporaryDirectory() as d:
            built = {v: f"{d}/{v}" for v in ("stock", "asm", "builtins", "llsc")}
            for v in ("asm", "builtins", "llsc"):
                Path(built[v]).touch()
            # No stock kernel (prepared only): no stock_to_asm.
            self.assertEqual(report.bloat_pairs(built),
                             [("asm", "builtins"), ("llsc", "builtins")])
            # GCC on riscv64: no builtins variant at all.
            self.assertEqual(report.bloat_pairs({"stock": built["stock"],
                                                 "asm": built["asm"]}), [])


class Pipeline(unittest.TestCase):
    def test_up_to_date(self):
        """.gitlab-ci.yml is what katomic.sh gitlab-ci makes of arches.tsv."""
        r = katomic("gitlab-ci")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual((HERE.parent / ".gitlab-ci.yml").read_text(), r.stdout,
                         "run: scripts/katomic.sh gitlab-ci > .gitlab-ci.yml")

    def test_jobs(self):
        """A job per configuration of each matrix, and a merge job per
        matrix that needs all of them and summarises exactly them."""
        r = katomic("gitlab-ci")
        jobs = {}
        for block in r.stdout.split("\n\n"):
            name = block.split(":", 1)[0]
            if not name.startswith(("#", " ", ".", "stages", "default")):
                jobs[name] = block
        for matrix in ("", "more", "arches"):
            configs = katomic("configs", *([matrix] if matrix else [])).stdout.split()
            merge = jobs[f"test-{matrix or 'all'}"]
            for c in configs:
                self.assertIn(f"    CONFIG: {c}\n", jobs[c])
                self.assertIn(f"    - job: {c}\n", merge)
            self.assertIn("scripts/katomic.sh summary " + " ".join(configs) + "\n", merge)
            self.assertEqual(merge.count("- job: "), len(configs))


class ArchesTable(unittest.TestCase):
    """scripts/arches.tsv as katomic.sh and report.py read it."""

    def rows(self):
        lines = (HERE / "arches.tsv").read_text().splitlines()
        header = next(line[1:].split("\t") for line in lines if line.startswith("#name\t"))
        rows = [line.split("\t") for line in lines if line.strip() and not line.startswith("#")]
        return header, [dict(zip(header, r)) for r in rows if self.assertEqual(len(r), len(header), r)
                        is None]

    def test_both_readers(self):
        header, rows = self.rows()
        self.assertEqual(set(arches.arches()), {r["name"] for r in rows if r["target"] == "all"})
        every = katomic("args", *(r["name"] for r in rows),
                        env={"KATOMIC_WORK": "/w"}).stdout.split("\n\n")
        self.assertEqual(len(every), len(rows))
        for row, out in zip(rows, every):
            with self.subTest(arch=row["name"]):
                args = out.splitlines()
                self.assertEqual(args[0], f"--arch={row['karch']}")
                if row["prefix"] != "-":
                    self.assertIn(f"--cross_compile={row['prefix']}", args)
                if row["kunit"] != "-":
                    for a in row["kunit"].split(";"):
                        self.assertIn(a.replace("@PLUGINS@", "/w/plugins")
                                      .replace("@REPO@", str(HERE.parent)), args)
                smp = any(a.endswith("/kunit/smp.kunitconfig") for a in args)
                self.assertEqual(smp, int(row["cpus"]) > 1)
                self.assertIn(row["target"], ("all", "arches", "compile"))
                if row["target"] == "all":
                    got = arches.arches()[row["name"]]
                    self.assertEqual(got, {k: "" if v == "-" else v for k, v in row.items()})

    def test_targets(self):
        _, rows = self.rows()
        want = {t: [r["name"] for r in rows if r["target"] == t] for t in ("all", "arches")}
        self.assertEqual(katomic("configs", "arches").stdout.split(), want["arches"])
        self.assertEqual(katomic("configs").stdout.split()[:len(want["all"])], want["all"])


def mutations():
    """Disable each check of summary.py that can fail a run, one at a time
    (its problem never reported), and run the tests on that copy: each must
    make some test fail. Prints a line per check; exits 1 if one is not
    caught. A minute or two: python3 scripts/test_harness.py --mutations"""
    import re
    import shutil
    lines = (HERE.parent / "katomic/summary.py").read_text().splitlines(keepends=True)
    checks = [k for k, x in enumerate(lines)
              if re.search(r'(\bproblems|out\["problems"\])\s*(\.append\(|\+=)', x)]
    missed = 0
    for k in checks:
        with tempfile.TemporaryDirectory() as tmp:
            for d in ("scripts", "katomic"):
                shutil.copytree(HERE.parent / d, Path(tmp, d))
            m = lines[:]
            m[k] = re.sub(r"\.append\(", ".append if False else (lambda *a: None)(", m[k], 1) \
                if ".append(" in m[k] else m[k].replace("+=", "+= [] if True else", 1)
            Path(tmp, "katomic/summary.py").write_text("".join(m))
            r = subprocess.run([sys.executable, str(Path(tmp, "scripts/test_harness.py")), "Recorded"],
                               capture_output=True, text=True)
        missed += r.returncode == 0
        print(f"summary.py:{k + 1}: {'caught' if r.returncode else 'NOT CAUGHT'}: "
              f"{lines[k].strip()[:70]}")
    print(f"{len(checks) - missed} of {len(checks)} checks caught when disabled")
    return 1 if missed else 0


if __name__ == "__main__":
    if sys.argv[1:] == ["--mutations"]:
        sys.exit(mutations())
    unittest.main()
