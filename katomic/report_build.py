# SPDX-License-Identifier: GPL-2.0
"""make report's builds: per architecture and compiler, a kernel of the
stock tree, of the series' assembly and of its builtins, each with
scripts/atomic_probe.c compiled against it and the asm one audited; the
probes timed on this machine's CPU where it is the architecture's; the
benchmarks in one boot; then katomic/report.py's comparison."""

import os
import shutil
import subprocess
from pathlib import Path

from . import arches, audits, env, kbuild, run, tree
from .env import die, say


def report_dir(name):
    """The report's build directory of NAME (ARCH-VARIANT[-COMPILER])."""
    return env.WORK / "build/report" / name


def report_build(arch, variant, compiler=""):
    """The report's kernel ARCH-VARIANT[-COMPILER]: kunit/report.kunitconfig
    (no tests), built from the stock tree (a worktree at 'pristine') or from
    the series with either implementation, and scripts/atomic_probe.c
    compiled against it. COMPILER a fragment (clang), GCC without it."""
    name = "-".join([arch, variant] + ([compiler] if compiler else []))
    src = env.WORK / "stock" if variant == "stock" else env.TREE
    bdir, pdir = report_dir(name), env.WORK / "probe" / name
    args = arches.arch_args(arch)
    for f in [variant] + ([compiler] if compiler else []):
        if f in ("stock", "asm"):
            continue
        if f not in arches.FRAGMENTS:
            die(f"report: '{f}' in the row of {arch} is not a fragment")
        args += arches.FRAGMENTS[f]
    log = Path(f"{bdir}.log")
    bdir.mkdir(parents=True, exist_ok=True)
    say(f"[report] {name}: build (log: {log})")
    if kbuild.kunit("build", arches.build_args(args) + [
            f"--kunitconfig={env.REPO / 'kunit/report.kunitconfig'}", f"--build_dir={bdir}",
            f"--jobs={env.jobs}"], log, tree=src):
        last = audits.tail(log, 3).replace("\n", " ")
        die(f"report: {name} does not build: {last}")
    shutil.rmtree(pdir, ignore_errors=True)
    pdir.mkdir(parents=True)
    shutil.copy(env.SCRIPTS / "atomic_probe.c", pdir)
    (pdir / "Kbuild").write_text("obj-m := atomic_probe.o\n")
    if env.run(["make", "-s", "-C", src, f"O={bdir}", f"M={pdir}",
                f"ARCH={arches.karch(arch)}", f"CROSS_COMPILE={arches.cross(arch)}",
                *arches.make_options(args), "atomic_probe.o"], log=log, append=True):
        die(f"report: the probe does not build against {name} (log: {log})")


def compilers(arch):
    """"" (GCC), then the compilers of ARCH's row (fragments: clang)."""
    return [""] + arches.field(arch, "compilers").split()


def hwbench(arch):
    """Where ARCH is this machine's own, the report's probe objects timed on
    its CPU in user space (katomic/hwbench.py):
    RESULTS/report-hwbench-ARCH.json."""
    if arches.karch(arch) != os.uname().machine:
        return
    objs = [f"{c or 'gcc'}-{v}={env.WORK}/probe/{arch}-{v}{'-' + c if c else ''}/atomic_probe.o"
            for c in compilers(arch) for v in ("asm", "builtins", "stock")]
    say(f"[report] {arch}: the probes timed on this machine's CPU (katomic/hwbench.py)")
    out = env.RESULTS / f"report-hwbench-{arch}.json"
    out.unlink(missing_ok=True)
    if env.module("hwbench", out, *objs):
        say(f"[report] warning: hwbench failed: the report has no hardware timings of {arch}")


def stock_tree():
    """WORK/stock, a worktree of the tree at 'pristine', clean: the stock
    kernel's source."""
    st = env.WORK / "stock"
    head = subprocess.run(["git", "-C", str(st), "rev-parse", "-q", "--verify", "HEAD"],
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True).stdout
    if head.rstrip("\n") == tree.git("rev-parse", "pristine") and not subprocess.run(
            ["git", "-C", str(st), "status", "--porcelain"], stdout=subprocess.PIPE,
            text=True).stdout.rstrip("\n"):
        return
    say(f"[report] stock tree: worktree of 'pristine' in {st}")
    shutil.rmtree(st, ignore_errors=True)
    tree.git("worktree", "prune")
    tree.git("worktree", "add", "-q", "--detach", str(st), "pristine")


def arch_builds(arch):
    """ARCH's kernels of the report, with GCC and each compiler of its row
    (and with GCC those of its report column: arm64's llsc), the asm ones
    audited. The configuration of the benchmarks' boot, with the first
    compiler that offers the builtins, and the asm build it may start
    from; None, None where none does."""
    bench = seed = None
    for c in compilers(arch):
        asm = report_dir(f"{arch}-asm{'-' + c if c else ''}")
        for variant in ["stock", "asm", "builtins"] + ([] if c else
                                                       arches.field(arch, "report").split()):
            name = f"{arch}-{variant}{'-' + c if c else ''}"
            # The asm, built before, says whether there are builtins.
            if variant == "builtins" and not kbuild.offers_builtins(asm):
                say(f"[report] {name}: skipped: {arch} does not offer the builtins with "
                    f"{c or 'GCC'} (Kconfig)")
                continue
            report_build(arch, variant, c)
            # The audit compiles both implementations against one build;
            # its failure shows in the report.
            if variant not in ("stock", "builtins"):
                audits.audit_build(arch, report_dir(name), env.RESULTS / f"report-{name}",
                                   arches.make_options(arches.FRAGMENTS.get(c, [])))
        # The benchmarks time both implementations in one boot: with the
        # first compiler that offers the builtins.
        if not bench and kbuild.offers_builtins(asm):
            bench, seed = f"{arch}{'-' + c if c else ''}-bench", asm
    return bench, seed


def report(chosen):
    """make report [ARCH...]: assembly vs builtins vs the stock tree on
    each architecture CHOSEN (every one of make test-all without), then
    katomic/report.py's results/report.{md,json,*.png}."""
    every = arches.of_target("all")
    for arch in chosen:
        if arch not in every:
            die(f"report: '{arch}' is not an architecture of make report (those are: "
                f"{' '.join(every)})")
    chosen = list(chosen) or every
    tree.deps([f"{a}-{c}" if c else a for a in chosen for c in compilers(a)])
    tree.tree()
    stock_tree()
    env.RESULTS.mkdir(parents=True, exist_ok=True)
    for arch in chosen:
        bench, seed = arch_builds(arch)
        hwbench(arch)
        if bench:
            # Without the matrix's build, the benchmarks' kernel starts
            # from the report's asm kernel: the same but for the suites,
            # a few files to compile instead of a whole kernel.
            bdir = arches.build_dir(bench)
            if not bdir.exists() and (seed / "vmlinux").is_file():
                rc = env.run(["cp", "-a", seed, bdir])
                if rc:
                    raise SystemExit(rc)
            run.run_one(bench)
        else:
            say(f"[report] {arch}: no compiler offers the builtins: no benchmark boot")
    rc = env.module("report", env.RESULTS, env.TREE, env.WORK, *chosen)
    if rc:
        raise SystemExit(rc)
