# SPDX-License-Identifier: GPL-2.0
"""Where the harness keeps things, the knobs its environment variables set,
and how it speaks, runs commands and reads files: what every module of the
harness shares."""

import os
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
WORK = Path(os.path.abspath(os.environ.get("KATOMIC_WORK") or Path.home() / ".cache/katomic"))
TARBALL = Path(os.environ.get("KATOMIC_TARBALL") or "/usr/src/linux-source-6.12.tar.xz")
# Relative to where katomic starts (a CI job's project directory).
RESULTS = Path(os.path.abspath(os.environ.get("KATOMIC_RESULTS") or REPO / "results"))
BOOT_TIMEOUT = int(os.environ.get("KATOMIC_BOOT_TIMEOUT") or 600)  # seconds QEMU may run
BUILD_TIMEOUT = int(os.environ.get("KATOMIC_BUILD_TIMEOUT") or 1800)  # build + boot
NPROC = len(os.sched_getaffinity(0))
# make -j of a build; run -P N shares the cores out (run.py sets it).
jobs = NPROC
# Under make -j N (make -j 4 test-all), run's N; the kernel's own makes get
# their -j from kunit.py, not the jobserver of ours.
_j = re.search(r" -j([0-9]+)", " " + os.environ.get("MAKEFLAGS", ""))
MAKE_PARALLEL = int(_j.group(1)) if _j else None
for _v in ("MAKEFLAGS", "MFLAGS"):
    os.environ.pop(_v, None)
TREE = WORK / "linux"
STATE = WORK / "tree.state"
KUNIT = REPO / "kunit"
SCRIPTS = REPO / "scripts"
# The package, for the python3 -m katomic.MODULE that the harness runs.
os.environ["PYTHONPATH"] = os.pathsep.join(
    [str(REPO)] + ([os.environ["PYTHONPATH"]] if os.environ.get("PYTHONPATH") else []))
os.environ["PYTHONDONTWRITEBYTECODE"] = "1"
# The suites' objects (lib/Makefile builds each but the runner twice, the
# second as *_other_kunit.o).
SUITE_OBJS = ["lib/atomic_kunit.o", "lib/atomic_smp_runner.o", "lib/atomic_stress_kunit.o",
              "lib/atomic_stress_retry_kunit.o", "lib/atomic_litmus_kunit.o",
              "lib/atomic_bench_kunit.o"]
# herdtools7 (herd7, the memory models), vendored, and what builds it.
HERDTOOLS = REPO / "vendor/herdtools7-7.57.tar.gz"
HERD_PACKAGES = ["ocaml-nox", "ocaml-dune", "menhir", "libmenhir-ocaml-dev",
                 "libzarith-ocaml-dev"]
# What every architecture needs; each row of scripts/arches.tsv adds its own.
PACKAGES = ["linux-source-6.12", "build-essential", "flex", "bison", "bc", "libelf-dev",
            "libssl-dev", "python3", "python3-ply", "python3-git", "xz-utils", "git", "rsync",
            "cpio", "kmod", "gnuplot-nox", "procps"] + HERD_PACKAGES


def say(msg):
    print(f"katomic: {msg}", flush=True)


def die(msg):
    print(f"katomic: error: {msg}", file=sys.stderr, flush=True)
    raise SystemExit(1)


def read(path):
    """PATH's text, "" where it is missing."""
    try:
        return Path(path).read_text(errors="replace")
    except OSError:
        return ""


def lines(text):
    """TEXT's lines: each ends at a newline, and none follows the last."""
    return text.removesuffix("\n").split("\n") if text else []


def run(args, log=None, append=False, timeout=None, **kw):
    """ARGS run, their output to the file LOG (appended with APPEND) or
    ours; TIMEOUT: seconds, then SIGTERM and 30 s later SIGKILL, exit 124
    (timeout(1)). The exit status."""
    args = [str(a) for a in args]
    if timeout:
        args = ["timeout", "-k", "30", str(int(timeout))] + args
    sys.stdout.flush()
    if log is None:
        return subprocess.run(args, **kw).returncode
    with open(log, "a" if append else "w") as f:
        return subprocess.run(args, stdout=f, stderr=subprocess.STDOUT, **kw).returncode


def output(args, check=True, **kw):
    """ARGS' standard output; with CHECK, their failure stops the harness."""
    r = subprocess.run([str(a) for a in args], capture_output=True, text=True, **kw)
    if check and r.returncode:
        die(f"{' '.join(str(a) for a in args)} failed: {r.stderr.strip()}")
    return r.stdout


def module(name, *args, log=None, **kw):
    """python3 -m katomic.NAME ARGS, as run()."""
    return run(["python3", "-m", f"katomic.{name}", *args], log=log, **kw)
