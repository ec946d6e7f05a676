# SPDX-License-Identifier: GPL-2.0
"""Driving the tree's kunit.py and the kernel's make: builds and boots
bounded in time, QEMU watched, the audit-only configurations prepared, and
objects compiled as external modules against a build."""

import re
import subprocess
import sys
import threading
import time
from pathlib import Path

from . import arches, env
from .env import read, say

# Seconds between two looks at a boot's log.
WATCH_INTERVAL = 2
# kunit.py's stage lines, run's progress.
PROGRESS = re.compile(r"^(\[[0-9:]+\] )?(Building|Starting|Testing complete|Elapsed|ERROR|Command)")


def kunit_command(cmd, args, tree=None, timeout=None):
    """timeout -k 30 TIMEOUT python3 TREE/tools/testing/kunit/kunit.py CMD
    ARGS: TREE the harness's (the report's stock tree otherwise), TIMEOUT
    KATOMIC_BUILD_TIMEOUT unless given."""
    kunit_py = Path(tree or env.TREE) / "tools/testing/kunit/kunit.py"
    return ["timeout", "-k", "30", str(int(timeout or env.BUILD_TIMEOUT)), "python3",
            str(kunit_py), cmd] + [str(a) for a in args]


def kunit(cmd, args, log, tree=None, timeout=None, append=False):
    """kunit.py CMD ARGS (kunit_command), its output to LOG (appended with
    APPEND); the exit status (124: timed out)."""
    return env.run(kunit_command(cmd, args, tree, timeout), log=log, append=append)


def status(rc):
    """A Popen's returncode RC as an exit status: 128 + N where signal N
    killed the process (137: SIGKILL, which summary.py reads as timed
    out)."""
    return 128 - rc if rc < 0 else rc


def kunit_boot(args, log, bdir, mark, name=None):
    """kunit.py run ARGS in the background, its output to LOG, watched by
    watch_qemu (BDIR: its build directory, MARK: the file that says QEMU
    was killed); with NAME, kunit.py's stage lines printed as they come,
    "katomic: [NAME] ...". The exit status."""
    sys.stdout.flush()
    # stdin /dev/null: QEMU's serial console is kunit.py's pipe, never the
    # terminal.
    with open(log, "w") as f:
        proc = subprocess.Popen(kunit_command("run", args), stdin=subprocess.DEVNULL, stdout=f,
                                stderr=subprocess.STDOUT)
    progress = None
    if name is not None:
        progress = threading.Thread(target=follow, args=(proc, log, name), daemon=True)
        progress.start()
    watch_qemu(proc, log, bdir, mark)
    rc = status(proc.wait())
    if progress:
        progress.join()
    return rc


def follow(proc, log, name):
    """LOG followed as it grows until PROC ends, its progress lines
    (PROGRESS) printed with NAME: kunit.py's output goes to the log
    alone."""
    with open(log, errors="replace") as f:
        part = ""
        while True:
            ended = proc.poll() is not None
            part += f.read()
            *lines, part = part.split("\n")
            for line in lines:
                progress_line(name, line)
            if ended:
                break
            time.sleep(0.2)
    if part:
        progress_line(name, part)


def progress_line(name, line):
    if PROGRESS.search(line):
        print(f"katomic: [{name}] {line}", flush=True)


def watch_qemu(proc, log, bdir, mark):
    """QEMU 7.2's s390x sometimes deadlocks on the reboot that ends a KUnit
    run (-smp 4, multi-threaded TCG), and then ignores kunit.py's SIGTERM:
    kill it 30 s after the tests completed, or at once when kunit.py's
    timeout fired. PROC: kunit.py's Popen, LOG: its output, BDIR: its build
    directory; MARK: a file that says so if QEMU was killed."""
    done_at = None
    while proc.poll() is None:
        time.sleep(WATCH_INTERVAL)
        text = read(log)
        if done_at is None and "Testing complete" in text:
            done_at = time.monotonic()
        if "timed out after" in text or \
                (done_at is not None and time.monotonic() - done_at > 30):
            if env.run(["pkill", "-KILL", "-f", f"qemu-system-.* -kernel {bdir}/"]) == 0:
                Path(mark).write_text("QEMU did not exit after the run and was killed\n")


def prepare_build(cfg, bdir, log):
    """An audit-only CFG in BDIR: kunit.py config (the .config) and make
    prepare (generated headers, asm-offsets, kbuild's tools, objtool), what
    the audit's probes, objects compiled as external modules (kmod_make),
    need of a build. Not modules_prepare: that is prepare and the modules'
    linker script, and without CONFIG_MODULES (the kunit configurations of
    x86_64 and arm64) nothing at all. Output appended to LOG; the exit
    status of the step that failed (124: timed out, the whole bounded by
    KATOMIC_BUILD_TIMEOUT)."""
    arch, t0 = arches.arch_of(cfg), time.monotonic()
    args = arches.config_args(cfg)
    say(f"[{cfg}] kunit.py config")
    rc = kunit("config", arches.build_args([a for a in args if a.startswith("--")])
               + [f"--build_dir={bdir}"], log, append=True)
    if rc:
        return rc
    say(f"[{cfg}] make prepare")
    return env.run(["make", "-s", "-C", env.TREE, f"O={bdir}", f"ARCH={arches.karch(arch)}",
                    f"CROSS_COMPILE={arches.cross(arch)}", *arches.make_options(args),
                    f"-j{env.jobs}", "prepare"], log=log, append=True,
                   timeout=max(1, env.BUILD_TIMEOUT - int(time.monotonic() - t0)))


def kmod_make(arch, bdir, dir, objs, make_opts=()):
    """Compile the objects OBJS in DIR as external modules against the
    kernel build BDIR of ARCH, the log to DIR/build.log; MAKE_OPTS: make
    options of the build (LLVM=...)."""
    objs = [str(o) for o in objs]
    Path(dir, "Kbuild").write_text(f"obj-m := {' '.join(objs)}\n")
    return env.run(["make", "-s", "-C", env.TREE, f"O={bdir}", f"M={dir}",
                    f"ARCH={arches.karch(arch)}", f"CROSS_COMPILE={arches.cross(arch)}",
                    *make_opts, *objs], log=Path(dir, "build.log"))


def offers_builtins(bdir):
    """Whether the kernel configured in BDIR offers CONFIG_ATOMIC_BUILTINS:
    the architecture (riscv: with clang alone) and the compiler (GCC 12,
    clang 19)."""
    lines = read(Path(bdir, ".config")).splitlines()
    return "CONFIG_ARCH_SUPPORTS_ATOMIC_BUILTINS=y" in lines and \
        "CONFIG_CC_HAS_CHECKED_ATOMIC_BUILTINS=y" in lines


def libatomic_symbols(cfg, bdir):
    """Library calls that the builtins would need and the kernel cannot
    link: CFG's architecture's libcalls in its vmlinux in BDIR (-1: none
    built)."""
    arch = arches.arch_of(cfg)
    if not Path(bdir, "vmlinux").is_file():
        return -1
    sys.stdout.flush()
    nm = subprocess.run([f"{arches.cross(arch)}nm", str(Path(bdir, "vmlinux"))],
                        stdout=subprocess.PIPE, text=True, errors="replace")
    libcalls = re.compile(f" ({arches.field(arch, 'libcalls')})$")
    return sum(1 for line in nm.stdout.splitlines() if libcalls.search(line))
