# SPDX-License-Identifier: GPL-2.0
"""katomic's architectures and configurations: scripts/arches.tsv, a row per
architecture, and the fragments that a configuration's name adds to it
(ARCH[-FRAGMENT...]), as kunit.py arguments."""

import functools
import os
import sys

from . import env
from .env import die

ARCHES = env.SCRIPTS / "arches.tsv"

# Configuration fragments: NAME -> its kunit.py arguments. Every boot tests
# both implementations, so the sanitizers see both; llsc: arm64's LL/SC
# atomics instead of LSE (elsewhere the =n changes nothing, and kunit.py
# accepts it); bench: the benchmarks alone, both implementations in one
# boot (make report); noinstr (x86 only): objtool checks that noinstr code
# calls nothing instrumentable (vmlinux.o), which summary.py reads; z10
# (s390 only): the oldest march the kernel supports instead of its default,
# z196, so that the atomics take their pre-z196 paths (compare and swap
# loops, BCR 15,0), built only as far as the audit needs (audit_only).
FRAGMENTS = {
    "builtins": ["--kconfig_add=CONFIG_ATOMIC_BUILTINS=y"],
    "kasan": ["--kconfig_add=CONFIG_KASAN=y", "--kconfig_add=CONFIG_KASAN_GENERIC=y"],
    "kcsan": ["--kconfig_add=CONFIG_DEBUG_KERNEL=y", "--kconfig_add=CONFIG_KCSAN=y"],
    "llsc": ["--kconfig_add=CONFIG_ARM64_USE_LSE_ATOMICS=n"],
    "bench": ["--kconfig_add=CONFIG_ATOMIC_KUNIT_BENCHMARK=y", "atomic_bench_*"],
    "clang": ["--make_options=LLVM=-19"],
    "noinstr": ["--kconfig_add=CONFIG_DEBUG_KERNEL=y", "--kconfig_add=CONFIG_DEBUG_ENTRY=y"],
    "z10": ["--kconfig_add=CONFIG_MARCH_Z10=y", "--kconfig_add=CONFIG_MARCH_Z196=n"],
}
# What a fragment needs installed besides the rows' packages.
FRAGMENT_PACKAGES = {"clang": ["clang-19", "lld-19", "llvm-19"]}


@functools.cache
def rows():
    """{name: {column: field}} of every row of ARCHES, in its order, the
    columns named by its header line; "-" is empty."""
    out, columns = {}, None
    for line in ARCHES.read_text().splitlines():
        if line.startswith("#name\t"):
            columns = line[1:].split("\t")
        elif line.strip() and not line.startswith("#"):
            fields = line.split("\t")
            if not columns or len(fields) != len(columns):
                sys.exit(f"{ARCHES}: a row does not match the header line: {line}")
            out[fields[0]] = dict(zip(columns, ("" if f == "-" else f for f in fields)))
    return out


def arches():
    """The rows that make test-all and make report cover (target all)."""
    return {a: r for a, r in rows().items() if r["target"] == "all"}


def of_target(target):
    """The architectures whose target column is TARGET (all, arches, compile)."""
    return [a for a, r in rows().items() if r["target"] == target]


def field(arch, column):
    """That field of ARCH's row; KeyError for an unknown ARCH."""
    return rows()[arch][column]


def arch_of(config):
    return config.split("-")[0]


def cross(arch):
    """ARCH's toolchain prefix (CROSS_COMPILE)."""
    return field(arch, "prefix")


def karch(arch):
    """ARCH as the kernel's make knows it (ARCH=)."""
    return field(arch, "karch")


def srcarch(arch):
    """ARCH's directory under arch/ (the top-level Makefile's SRCARCH)."""
    k = karch(arch)
    return "x86" if k in ("x86_64", "i386") else k


def cpus(arch, smp=True):
    """The vCPUs of ARCH's boot; with SMP, KATOMIC_SMP for those with more
    than one."""
    n = field(arch, "cpus")
    if not n.isdigit() or int(n) == 0:
        die(f"scripts/arches.tsv: {arch}: cpus '{n}' is not a number of CPUs")
    if n != "1" and smp and os.environ.get("KATOMIC_SMP"):
        return int(os.environ["KATOMIC_SMP"])
    return int(n)


def arch_args(arch):
    """kunit.py's arguments for ARCH: its kernel architecture, compiler and
    its row's own (@PLUGINS@: the GCC plugins the harness builds)."""
    out = [f"--arch={karch(arch)}"]
    if cross(arch):
        out.append(f"--cross_compile={cross(arch)}")
    extra = field(arch, "kunit").replace("@PLUGINS@", str(env.WORK / "plugins"))
    if extra:
        out += extra.replace("@REPO@", str(env.REPO)).split(";")
    return out


def config_args(config):
    """CONFIG -> its kunit.py arguments. CONFIG is ARCH[-FRAGMENT...]: ARCH
    a row of ARCHES, then each fragment of FRAGMENTS at most once, in any
    order. An error for a name run would refuse."""
    arch, *frags = config.split("-")
    if arch not in rows():
        die(f"unknown architecture '{arch}' in '{config}' (architectures: {' '.join(rows())})")
    out, seen = arch_args(arch), []
    for f in frags:
        if f not in FRAGMENTS:
            die(f"unknown fragment '{f}' in '{config}' (fragments: {' '.join(sorted(FRAGMENTS))})")
        if f in seen:
            die(f"fragment '{f}' twice in '{config}'")
        seen.append(f)
        out += FRAGMENTS[f]
    if "kasan" in seen and "kcsan" in seen:
        die(f"'{config}': KCSAN depends on !KASAN")
    if "z10" in seen and karch(arch) != "s390":
        die(f"'{config}': z10 is an s390 march")
    if "z10" in seen and "bench" in seen:
        die(f"'{config}': z10 is audit-only, bench needs a boot")
    out.append(f"--kunitconfig={env.KUNIT / 'katomic.kunitconfig'}")
    if cpus(arch, smp=False) != 1:
        out.append(f"--kunitconfig={env.KUNIT / 'smp.kunitconfig'}")
    return out


def build_args(args):
    """kunit.py arguments -> those its config and build take too (not the
    row's --kernel_args, which only run takes)."""
    return [a for a in args if not a.startswith("--kernel_args=")]


def make_options(args):
    """kunit.py arguments -> the make options among them (LLVM=...)."""
    return [a.removeprefix("--make_options=") for a in args if a.startswith("--make_options=")]


def fragments(config):
    return config.split("-")[1:]


def build_dir(config):
    """CONFIG's build directory: the fragments sorted, so one directory
    whatever their order, and without bench, which only adds the
    benchmarks: a warm build of the name without it recompiles two files."""
    frags = sorted(f for f in fragments(config) if f and f != "bench")
    return env.WORK / "build" / "-".join([arch_of(config)] + frags)


def audit_only(config):
    """Whether run only configures and prepares CONFIG for the audit, no
    kernel built or booted: z10, an s390 march whose code the audit is to
    see (about 20 s on 2 cores, where a build and boot takes 10 minutes)."""
    return "z10" in fragments(config)


def sanitized(config):
    return "kasan" in fragments(config) or "kcsan" in fragments(config)


def configs(which=""):
    """The test matrix (make test-all): every architecture of target all,
    its assembly with GCC, then the further configurations of its matrix
    column; 'more': those of the more column (make test-more); 'arches':
    the architectures of target arches (make test-arches). Every boot tests
    both implementations, so the matrix configures the builtins where they
    make a difference: under a sanitizer and with clang."""
    if which == "":
        return of_target("all") + [c for a in of_target("all") for c in field(a, "matrix").split()]
    if which == "more":
        return [c for r in rows().values() for c in r["more"].split()]
    if which == "arches":
        return of_target("arches")
    die("configs: say nothing, 'more' or 'arches'")
