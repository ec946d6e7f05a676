# SPDX-License-Identifier: GPL-2.0
"""scripts/katomic.sh's own tests: the configuration names it accepts and
refuses, make check's bookkeeping, the runs' bounds, and the CI pipeline it
writes (kunit.py, builds and boots stubbed out). A few seconds:
python3 scripts/katomic_test.py [-v]."""

import os
import subprocess
import sys
import tarfile
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the katomic package
from katomic import summary  # noqa: E402
from katomic.testing import KATOMIC, REPO, TESTDATA, katomic  # noqa: E402


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
            with tarfile.open(TESTDATA / "results.tar.xz") as t:
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


class Pipeline(unittest.TestCase):
    def test_up_to_date(self):
        """.gitlab-ci.yml is what katomic.sh gitlab-ci makes of arches.tsv."""
        r = katomic("gitlab-ci")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual((REPO / ".gitlab-ci.yml").read_text(), r.stdout,
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


if __name__ == "__main__":
    unittest.main()
