# SPDX-License-Identifier: GPL-2.0
"""make test-all and its kin: each configuration built and booted with the
tree's kunit.py (an audit-only one configured and prepared), its machine
code audited and checked under herd7, its results kept in RESULTS; then the
summary of them all."""

import concurrent.futures
import glob
import json
import os
import shutil
import time
import traceback
from pathlib import Path

from . import arches, audits, env, herd7, kbuild, tree
from .env import die, say


def boot_args(cfg, out, bdir):
    """kunit.py run's arguments for CFG, its results OUT.json."""
    args = arches.config_args(cfg) + [
        f"--build_dir={bdir}", f"--jobs={env.jobs}", f"--timeout={env.BOOT_TIMEOUT}",
        f"--qemu_args=-smp {arches.cpus(arches.arch_of(cfg))}", "--kernel_args=panic=-1"]
    if os.environ.get("KATOMIC_KERNEL_ARGS"):
        args.append(f"--kernel_args={os.environ['KATOMIC_KERNEL_ARGS']}")
    if os.environ.get("KATOMIC_QEMU_ARGS"):
        args.append(f"--qemu_args={os.environ['KATOMIC_QEMU_ARGS']}")
    return args + [f"--json={out}.json"]


def build_and_boot(cfg, out, bdir):
    """CFG built and booted, or, audit-only, configured and prepared; its
    log OUT.kunit.log, its console OUT.console.log. The exit status."""
    log = f"{out}.kunit.log"
    if arches.audit_only(cfg):
        say(f"[{cfg}] configure and prepare for the audit, no build or boot (log: {log})")
        rc = kbuild.prepare_build(cfg, bdir, log)
        if rc:
            last = audits.tail(log, 1).rstrip("\n")
            say(f"[{cfg}] FAILED (exit {rc}): {last}")
        return rc
    say(f"[{cfg}] build and boot (log: {log})")
    rc = kbuild.kunit_boot(boot_args(cfg, out, bdir), log, bdir, f"{out}.qemu-killed",
                           name=cfg)
    if (bdir / "test.log").is_file():
        shutil.copy(bdir / "test.log", f"{out}.console.log")
    return rc


def run_one(cfg):
    """CFG built and booted, audited (under a sanitizer: its
    instrumentation counted), its code checked under herd7:
    RESULTS/CFG.*, the last of them CFG.run.json."""
    out, bdir = env.RESULTS / cfg, arches.build_dir(cfg)
    arches.config_args(cfg)
    bdir.mkdir(parents=True, exist_ok=True)
    # Only what this run produces: kunit.py leaves its console in the build
    # directory, and a build that fails leaves the last boot's there.
    for f in glob.glob(glob.escape(str(out)) + ".*") + [str(bdir / "test.log")]:
        if os.path.lexists(f) and not os.path.isdir(f):
            os.unlink(f)
    t0 = time.monotonic()
    open(f"{out}.kunit.log", "w").close()
    boot = not arches.audit_only(cfg)
    rc = build_and_boot(cfg, out, bdir)
    audit = herd = False
    if audits.audited(cfg):
        audit = True
        audits.audit_one(cfg)
        if boot and herd7.has_litmus_arch(cfg):
            herd = True
            herd7.litmus_arch_one(cfg)
    elif arches.sanitized(cfg):
        audits.instr_one(cfg)
    elif "bench" not in arches.fragments(cfg):
        say(f"[{cfg}] no machine-code audit: katomic/audit has no rules for {arches.arch_of(cfg)}")
    # boot: false for an audit-only configuration, which has no vmlinux to
    # count library calls in (-1, as for a build that failed), no console
    # and no KTAP results.
    libcalls = kbuild.libatomic_symbols(cfg, bdir) if boot else -1
    # builtins: whether the architecture offers the builtins with this
    # compiler, and so whether the boot tests them (riscv: not with GCC).
    builtins = kbuild.offers_builtins(bdir)
    Path(f"{out}.run.json").write_text(json.dumps(
        {"config": cfg, "rc": rc, "seconds": int(time.monotonic() - t0),
         "libatomic_symbols": libcalls, "audit": audit, "herd7": herd, "boot": boot,
         "builtins": builtins, "series": tree.series_id()}) + "\n")


def harness_selftest():
    """The harness's own tests (seconds): each module's, katomic/*_test.py."""
    say("the harness's own tests")
    log = env.WORK / "harness.log"
    rc = env.run(["python3", "-m", "unittest", "discover", "-s", "katomic", "-t", ".",
                  "-p", "*_test.py"], log=log, cwd=env.REPO)
    if rc:
        last = audits.tail(log, 3).rstrip("\n")
        die(f"the harness's own tests failed: {last}")


def run(configs, parallel=None):
    """make test-all and its kin: CONFIGS built, booted, audited and
    checked, PARALLEL of them at once (None: make's -j, else 1), each
    with its share of the cores; first the harness's tests, the audit's
    self-test and the LKMM side; then the summary, whose failure is the
    run's exit status."""
    if parallel is None:
        parallel = env.MAKE_PARALLEL if env.MAKE_PARALLEL is not None else 1
    if not str(parallel).isdigit() or int(parallel) == 0:
        die(f"run: -P takes a number of configurations, not '{parallel}'")
    parallel = int(parallel)
    if not configs:
        die("run: name at least one configuration")
    for c in configs:
        arches.config_args(c)
    tree.deps(configs)
    tree.tree()
    env.RESULTS.mkdir(parents=True, exist_ok=True)
    harness_selftest()
    audits.audit_selftest(configs)
    herd7.herd_build()
    if not herd7.lkmm_side():
        die("herd7 under the LKMM disagrees with a test's Result:, or the suite's litmus "
            "tests are not generated from them (results/lkmm.md, "
            f"{env.WORK}/litmus/kunit.diff)")
    herd7.fixtures_herd(configs)
    if parallel == 1:
        for c in configs:
            run_one(c)
    else:
        # N at once, each with its share of the cores; a run that dies stops
        # only itself, and the summary tells of it.
        env.jobs = max(env.NPROC // parallel, 1)
        say(f"{len(configs)} configurations, {parallel} at once, {env.jobs} cores each")
        with concurrent.futures.ThreadPoolExecutor(max_workers=parallel) as pool:
            runs = [pool.submit(run_one, c) for c in configs]
        for r in runs:
            if r.exception() and not isinstance(r.exception(), SystemExit):
                traceback.print_exception(r.exception())
    rc = summary(configs)
    if rc:
        raise SystemExit(rc)


def summary(configs):
    """The summary of CONFIGS from the results in RESULTS (also of runs on
    other machines, as the CI pipeline's merge job does):
    results/summary.{md,json}, and for the whole matrix of make test-all
    the audit's tables, results/audit.md; fails unless every one of them
    passed. The summary of a whole matrix is also kept by the repository,
    with the series it ran on: results/test-{all,more,arches}.{md,json}.
    The exit status of summary.py."""
    if not configs:
        die("summary: name at least one configuration")
    configs = list(configs)
    audited = [f"{c}={env.RESULTS}/{c}.audit.json" for c in configs
               if (env.RESULTS / f"{c}.audit.json").is_file()]
    # results/audit.md, which the repository keeps, is the whole matrix's.
    if audited and configs == arches.configs():
        rc = env.module("audit", "--table", env.RESULTS / "audit.md", *audited)
        if rc:
            raise SystemExit(rc)
        herd7.litmus_arch_table(configs)
    rc = env.module("summary", env.RESULTS, *configs)
    for m in ("all", "more", "arches"):
        if configs != arches.configs("" if m == "all" else m):
            continue
        shutil.copy(env.RESULTS / "summary.md", env.REPO / f"results/test-{m}.md")
        shutil.copy(env.RESULTS / "summary.json", env.REPO / f"results/test-{m}.json")
        say(f"the repository's record of make test-{m}: results/test-{m}.md")
    return rc
