# SPDX-License-Identifier: GPL-2.0
"""katomic's command line: python3 -m katomic COMMAND [ARGS], which
scripts/katomic.sh and so the Makefile's targets call. A command is a
function of the module that does it (tree, run, check, ...)."""

import importlib
import sys

from . import arches, env

USAGE = """\
usage: scripts/katomic.sh COMMAND [ARGS]

  deps            install the Debian packages katomic needs (apt-get)
  tree            unpack the kernel tree into $KATOMIC_WORK/linux and apply
                  patches/ (reused when neither the tarball nor patches/ changed;
                  a tree with unexported commits is left as it is)
  export          write the tree's commits since 'pristine' back to patches/
  reset           throw the tree's local work away and re-apply patches/
  run [-P N] CONFIG...
                  build and boot each configuration, keep results, summarise
                  (-P N: N configurations at once, each with 1/N of the
                  cores; make -j N test-all is -P N);
                  an audit-only configuration (-z10) is configured and
                  prepared (kunit.py config, make prepare), not built or
                  booted, and only audited;
                  first the harness's tests, the audit's self-test and
                  the LKMM side of lkmm (below); after each audit of arm64,
                  riscv64, ppc64le and x86_64, the herd7 check of its code,
                  held against the audit per primitive
  check [N]       every patch as a maintainer applies it: those whose id
                  (git patch-id) has no passed line in results/check.tsv,
                  whatever its number, and their topics' boots (N: every
                  patch from the Nth on); checkpatch --strict of every
                  patch, then a W=1 build of the
                  configurations whose sources the patch touches (an
                  architecture's directory: its rows, and its builtins where
                  offered; the suites: every row; generic code: the rows of
                  make test-all both ways), incremental, one directory per
                  configuration under $KATOMIC_WORK/check; no new W=1 or
                  sparse warning in the files it touches (their objects
                  recompiled with W=1 C=2 before and after the patch); at
                  the end of each topic of the cover letter but the tests,
                  the tests picked on top and booted on what the topic
                  built; then, on the series, the suites compiled (W=1)
                  for those of make test-arches and sh, and checked to list
                  every operation of scripts/atomic/atomics.tbl. Per patch
                  a line in results/check.tsv with the patch's id, which a
                  later check keeps where the patch is unchanged, and
                  check N up to patch N (it may come from another machine)
  report [ARCH...] assembly vs builtins vs the stock tree, per architecture
                  (every one of make test-all, or those named; the others'
                  entries are kept
                  from the previous results/report.json) and per compiler
                  (GCC and the compilers column of scripts/arches.tsv):
                  instructions per primitive (scripts/atomic_probe.c) and
                  what an uncontended call executes (the audit), vmlinux
                  size (kunit/report.kunitconfig, no tests) and
                  bloat-o-meter, the audit, and
                  benchmarks in one boot with the first compiler that offers
                  the builtins (ARCH-bench with GCC, else ARCH-COMPILER-bench);
                  no builtins kernel where the architecture does not offer
                  them with a compiler (its asm build's .config lacks
                  CONFIG_ARCH_SUPPORTS_ATOMIC_BUILTINS=y: riscv64 with GCC,
                  or CONFIG_CC_HAS_CHECKED_ATOMIC_BUILTINS=y: a compiler
                  whose builtins were not checked);
                  where ARCH is this machine's (x86_64), the probes of every
                  build timed on its CPU in user space (katomic/hwbench.py);
                  writes results/report.{{md,json,*.png}}. Per architecture
                  a kernel of stock, asm and builtins with each compiler
                  (and arm64's llsc with GCC), six or seven builds, 20-35
                  minutes on 2 cores; and a boot, which reuses the build of
                  its name without -bench that the matrix made
  audit CONFIG... the machine-code audit alone (katomic/audit), of the
                  configurations' existing builds and the tree as it is now:
                  every primitive's ordering on both implementations and the
                  compiler worries of scripts/worries.c; 'run' does it after
                  each boot (not for -bench) and fails the run on a
                  violation. Under KASAN or KCSAN, whose calls hide the
                  code, it counts instead the sanitizer calls in the
                  probe's functions, raw_ and instrumented, on both
                  implementations (results/CONFIG.instr.json)
  summary CONFIG... the summary of those configurations' results in
                  $KATOMIC_RESULTS, however they got there (the CI
                  pipeline's merge job); fails as run would
  gitlab-ci       print the CI pipeline, .gitlab-ci.yml: a job per
                  configuration of make test-all, test-more and test-arches,
                  and a merge job per matrix (see the file's head)
  lkmm            herd7 (herdtools7 from vendor/, built once into the work
                  directory) under the kernel's memory model on the tree's
                  litmus tests (tools/memory-model/litmus-tests,
                  Documentation/litmus-tests) and katomic's, which
                  katomic/litmus.py writes to $KATOMIC_WORK/litmus (each
                  primitive in each ordering, in SB, SB-op, MP, R and
                  2+2W), each
                  verdict held against the test's "Result:" line:
                  results/lkmm.{{md,json}}; lib/atomic_litmus_tests.h, the
                  booted suite's tests, checked to be
                  katomic/litmus_kunit.py's output on them; then katomic's
                  tests compiled against each built configuration of make
                  test-all on arm64, riscv64, ppc64le and x86_64, both
                  implementations, under the architecture's own model
                  (katomic/litmus_arch.py): results/CONFIG.litmus.{{json,log}},
                  results/litmus-arch.md; fails if none is built. run does
                  all of it: the LKMM side before the first configuration,
                  the architecture side after each audit; and before the
                  first configuration, the audit's self-test fixtures of
                  those architectures under their models, each judged as
                  the audit's self-test expects (katomic/litmus_fixtures.py:
                  results/litmus-fixtures.{{md,json}})
  mutate          the architecture side and the audit made to fail: each
                  row of scripts/mutations.tsv weakens one barrier of
                  arm64, riscv64 or ppc64le (asm and builtins) or x86_64
                  (asm) in the tree, the litmus threads and the audit's
                  probes are compiled with it against that built
                  configuration of make test-all, the file is put back;
                  herd7 must find a violation in the row's code and the
                  audit must fail some of its functions:
                  results/litmus-mutations.md (needs make test-all's builds)
  args CONFIG...  the kunit.py arguments of each configuration, as run passes
                  them (and fails on a name it would refuse)
  configs [more|arches]
                  list the test matrix's configurations (make test-all):
                  ARCH of every architecture whose target is all, then
                  those in the matrix column of scripts/arches.tsv; with
                  'more', those of its more column (make test-more); with
                  'arches', the architectures whose target is arches (make
                  test-arches); any other combination runs by name

Architectures: {arches} (one row each in scripts/arches.tsv).
Configurations: ARCH[-builtins][-kasan|-kcsan][-noinstr][-llsc][-clang][-z10][-bench],
the fragments in any order: ARCH alone is the architecture's own atomics,
built with GCC; clang: built with clang 19 (LLVM=-19; installs clang-19,
lld-19 and llvm-19 when first used); builtins:
CONFIG_ATOMIC_BUILTINS=y; kasan, kcsan: under KASAN or KCSAN (any report
fails the run); noinstr (x86 only): CONFIG_DEBUG_ENTRY, so that objtool
checks noinstr code (any objtool warning fails the run); llsc: arm64's
LL/SC atomics, not LSE (CONFIG_ARM64_USE_LSE_ATOMICS=n); bench: only the
benchmarks (CONFIG_ATOMIC_KUNIT_BENCHMARK=y), built in the directory of
the name without -bench; z10 (s390 only): CONFIG_MARCH_Z10=y, the
oldest march instead of the default z196, audit-only: no kernel is
built or booted, the audit's probes compile against the configured and
prepared tree (results/CONFIG.run.json has "boot": false).
Each other one boots with the vCPUs of its architecture's cpus column
and runs the katomic suites (values, stress, litmus) on both
implementations (where the architecture offers the builtins) plus
lib/atomic64_test.c on the configured one.

Environment: KATOMIC_WORK (default ~/.cache/katomic), KATOMIC_TARBALL,
KATOMIC_RESULTS (default results/), KATOMIC_BOOT_TIMEOUT (s, default 600),
KATOMIC_BUILD_TIMEOUT (s, default 1800), KATOMIC_SMP (the vCPUs where the
cpus column says more than one),
KATOMIC_KERNEL_ARGS and KATOMIC_QEMU_ARGS (extra kernel command line and QEMU
arguments, e.g. to try the failure paths: oops=panic, panic=0, -S).
"""


def usage(out=sys.stdout):
    print(USAGE.format(arches=" ".join(arches.rows())), end="", file=out)


def run_command(run, args):
    """run [-P N] CONFIG...: N configurations at once."""
    parallel = None
    if args[:1] == ["-P"]:
        if len(args) < 2:
            env.die("run: -P takes a number of configurations")
        parallel, args = args[1], args[2:]
        if not parallel.isdigit() or int(parallel) == 0:
            env.die(f"run: -P takes a number of configurations, not '{parallel}'")
        parallel = int(parallel)
    run.run(args, parallel)


def args_command(configs):
    """The kunit.py arguments of each configuration, as run passes them, a
    blank line between configurations."""
    if not configs:
        env.die("args: name at least one configuration")
    print("\n\n".join("\n".join(arches.config_args(c)) for c in configs))


def configs_command(which):
    print("\n".join(arches.configs(which[0] if which else "")))


# COMMAND -> (its module, what it does with the command's arguments).
COMMANDS = {
    "deps": ("tree", lambda m, a: m.deps(a)),
    "tree": ("tree", lambda m, a: m.tree()),
    "export": ("tree", lambda m, a: m.export()),
    "reset": ("tree", lambda m, a: m.reset()),
    "run": ("run", lambda m, a: run_command(m, a)),
    "check": ("check", lambda m, a: m.check(*a[:1])),
    "report": ("report_build", lambda m, a: m.report(a)),
    "audit": ("audits", lambda m, a: m.audit(a)),
    "summary": ("run", lambda m, a: sys.exit(m.summary(a))),
    "lkmm": ("herd7", lambda m, a: m.lkmm()),
    "mutate": ("herd7", lambda m, a: m.mutate()),
    "gitlab-ci": ("ci", lambda m, a: print(m.gitlab_ci(), end="")),
    "args": ("arches", lambda m, a: args_command(a)),
    "configs": ("arches", lambda m, a: configs_command(a)),
}


def main(argv):
    cmd = argv[0] if argv else ""
    if cmd in ("", "-h", "--help", "help"):
        usage()
    elif cmd in COMMANDS:
        name, do = COMMANDS[cmd]
        do(importlib.import_module(f"katomic.{name}"), argv[1:])
    else:
        usage(sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main(sys.argv[1:])
