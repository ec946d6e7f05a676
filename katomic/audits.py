# SPDX-License-Identifier: GPL-2.0
"""The machine-code audit of the builds (katomic/audit): its probes and
scripts/worries.c compiled against a build and audited; under KASAN or
KCSAN, whose calls hide the code, the sanitizer calls in the probe counted
instead; the audit's self-test; make audit."""

import glob
import re
import shutil
import subprocess
import sys
from pathlib import Path

from . import arches, env, kbuild, tree
from .audit.rules import ARCH as AUDITED
from .env import die, say

# A sanitizer's call, in objdump -dr's relocations.
SANITIZER_CALL = re.compile(r"R_.*(__tsan_|__asan_|__kasan_|__kcsan_|kcsan_)")
FUNCTION = re.compile(r"^[0-9a-f]+ <.*>:$")


def audited(cfg):
    """Whether run audits CFG's machine code: not under a sanitizer, whose
    calls hide what the code does, and not for -bench, the same build; and
    only where the audit knows the architecture's barriers (python3 -m
    katomic.audit --arches)."""
    return not arches.sanitized(cfg) and "bench" not in arches.fragments(cfg) and \
        arches.arch_of(cfg) in AUDITED


def tail(path, n):
    """The last N lines of PATH ("" where it is missing)."""
    try:
        lines = Path(path).read_text(errors="replace").splitlines(keepends=True)
    except OSError:
        return ""
    return "".join(lines[-n:])


def gen_probe(tsv, out, *what):
    """scripts/gen_audit_probe.sh's probe of the tree as C to OUT, its
    manifest to TSV (WHAT: ops, the ops alone)."""
    with open(out, "w") as f:
        env.run(["sh", env.SCRIPTS / "gen_audit_probe.sh", env.TREE, tsv, *what], stdout=f)


def audit_sources(bdir, dir):
    """DIR: the probe on both implementations, scripts/worries.c in its
    three flavours, BDIR's compiler and .config."""
    gen_probe(dir / "audit_probe.tsv", dir / "audit_probe.c")
    shutil.copy(env.SCRIPTS / "worries.c", dir)
    for impl, macro in (("asm", "ARCH"), ("builtins", "BUILTINS")):
        (dir / f"audit_{impl}.c").write_text(
            f'#define ATOMIC_IMPL_{macro}\n#include "audit_probe.c"\n')
    for f in ("once", "builtins", "c11"):
        (dir / f"worries_{f}.c").write_text(f'#define WORRY_{f.upper()}\n#include "worries.c"\n')
    kconfig = Path(bdir, ".config").read_text(errors="replace")
    (dir / "compiler").write_text("".join(
        f"{v}\n" for v in re.findall(r'^CONFIG_CC_VERSION_TEXT="(.*)"', kconfig, re.M)))
    # the audit's rules that depend on the build's options (s390: whether
    # BCR 14,0 serialises, CONFIG_HAVE_MARCH_Z196_FEATURES).
    shutil.copy(Path(bdir, ".config"), dir / "kconfig")


def failed(log, msg):
    """MSG written to LOG and to stderr."""
    Path(log).write_text(msg)
    sys.stderr.write(msg)
    sys.stderr.flush()


def audit_build(arch, bdir, out, make_opts=()):
    """The machine-code audit (katomic/audit) of the kernel build BDIR for
    ARCH: the probe of scripts/gen_audit_probe.sh on both implementations
    and scripts/worries.c in its three flavours, compiled against BDIR with
    the kernel's flags (MAKE_OPTS: the build's make options, LLVM=...).
    Writes OUT.audit.{json,log}; fails when the audit does."""
    out = Path(out)
    dir = env.WORK / "audit" / out.name
    for f in out.parent.glob(glob.escape(out.name) + ".audit.*"):
        f.unlink(missing_ok=True)
    log = Path(f"{out}.audit.log")
    if not Path(bdir, ".config").is_file():
        failed(log, f"audit: {bdir} is not built\n")
        return 1
    shutil.rmtree(dir, ignore_errors=True)
    dir.mkdir(parents=True)
    audit_sources(bdir, dir)
    objs = ["audit_asm.o", "audit_builtins.o", "worries_once.o", "worries_builtins.o",
            "worries_c11.o"]
    if kbuild.kmod_make(arch, bdir, dir, objs, make_opts):
        failed(log, f"audit: the probes do not build against {bdir}:\n"
               + tail(dir / "build.log", 5))
        return 1
    rc = env.module("audit", arch, dir, f"{out}.audit.json", log=log)
    for line in log.read_text(errors="replace").splitlines():
        print(f"katomic: [{out.name}] {line}")
    sys.stdout.flush()
    return rc


def audit_one(cfg):
    say(f"[{cfg}] machine-code audit")
    return audit_build(arches.arch_of(cfg), arches.build_dir(cfg), env.RESULTS / cfg,
                       arches.make_options(arches.config_args(cfg)))


def sanitizer_calls(objdump):
    """objdump -dr's output of an object -> its functions (no __pfx_
    padding), those of them with sanitizer calls, and the calls."""
    functions, calls, hit, f = 0, 0, set(), ""
    for line in objdump.splitlines():
        if FUNCTION.match(line):
            if line.split()[1].startswith("<__pfx_"):
                f = ""
            else:
                functions, f = functions + 1, line.split()[1]
        elif SANITIZER_CALL.search(line):
            calls += 1
            hit.add(f)
    return functions, len(hit), calls


def instr_sources(dir):
    """The probe's ops, without the barrier idioms (their smp_mb__*_atomic()
    would add KCSAN's barrier instrumentation, kcsan_mb() with
    CONFIG_KCSAN_STRICT, to the raw_ count), as raw_ and as instrumented
    calls, on both implementations, in DIR: their objects."""
    gen_probe(dir / "probe.tsv", dir / "raw_probe.c", "ops")
    raw = (dir / "raw_probe.c").read_text()
    (dir / "instrumented_probe.c").write_text(re.sub(r"\braw_", "", raw))
    objs = []
    for v in ("raw", "instrumented"):
        for impl, macro in (("asm", "ARCH"), ("builtins", "BUILTINS")):
            (dir / f"{v}_{impl}.c").write_text(
                f'#define ATOMIC_IMPL_{macro}\n#include "{v}_probe.c"\n')
            objs.append(f"{v}_{impl}.o")
    return objs


def instr_one(cfg):
    """Under KASAN or KCSAN, what the sanitizer instruments of the atomics:
    the audit's probe, one function per primitive, compiled against CFG's
    build as the raw_ forms (which promise no instrumentation) and as the
    instrumented ones, on both implementations. Sanitizer calls per object
    to RESULTS/CFG.instr.json; summary.py shows them."""
    if not arches.sanitized(cfg):
        return 0
    arch, dir = arches.arch_of(cfg), env.WORK / "instr" / cfg
    bdir, path = arches.build_dir(cfg), env.RESULTS / f"{cfg}.instr.json"
    shutil.rmtree(dir, ignore_errors=True)
    path.unlink(missing_ok=True)
    dir.mkdir(parents=True)
    objs = instr_sources(dir)
    if kbuild.kmod_make(arch, bdir, dir, objs, arches.make_options(arches.config_args(cfg))):
        say(f"[{cfg}] instrumentation: the probe does not build (log: {dir}/build.log)")
        return 1
    counts = []
    for o in objs:
        sys.stdout.flush()
        objdump = subprocess.run([f"{arches.cross(arch)}objdump", "-dr", str(dir / o)],
                                 stdout=subprocess.PIPE, text=True, errors="replace").stdout
        functions, with_calls, calls = sanitizer_calls(objdump)
        counts.append(f'"{o[:-2]}": {{"functions": {functions}, "with_calls": {with_calls}, '
                      f'"calls": {calls}}}')
    path.write_text("{" + ",".join(counts) + "}\n")
    say(f"[{cfg}] sanitizer calls in the probe: {{{','.join(counts)}}}")
    return 0


def audit_selftest(configs):
    """The audit's self-test, for the architectures whose CONFIGS it audits
    (their toolchains assemble its fixtures)."""
    sel = sorted({arches.arch_of(c) for c in configs if audited(c)})
    if sel and env.module("audit", "--selftest", *sel):
        die("the audit's self-test failed")


def audit(configs):
    """make audit: the machine-code audit alone of CONFIGS' existing builds
    and the tree as it is now (under a sanitizer, instr_one)."""
    if not configs:
        die("audit: name at least one configuration")
    for c in configs:
        arches.config_args(c)
        if "bench" in arches.fragments(c):
            die(f"audit: {c} is a -bench configuration: audit {c.replace('-bench', '', 1)}")
        if not audited(c) and not arches.sanitized(c):
            die(f"audit: katomic/audit has no rules for {arches.arch_of(c)}")
    tree.tree()
    env.RESULTS.mkdir(parents=True, exist_ok=True)
    audit_selftest(configs)
    bad = False
    for c in configs:
        if (audit_one(c) if audited(c) else instr_one(c)):
            bad = True
    if bad:
        die("the machine-code audit failed (results/CONFIG.audit.log)")
