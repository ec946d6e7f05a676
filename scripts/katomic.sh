#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# katomic harness: unpack Debian's linux-source-6.12, apply patches/, build and
# boot it in QEMU with the tree's own kunit.py, and keep the results.
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
WORK=${KATOMIC_WORK:-$HOME/.cache/katomic}
TARBALL=${KATOMIC_TARBALL:-/usr/src/linux-source-6.12.tar.xz}
# Relative to where katomic starts (a CI job's project directory).
RESULTS=$(realpath -m "${KATOMIC_RESULTS:-$REPO/results}")
BOOT_TIMEOUT=${KATOMIC_BOOT_TIMEOUT:-600}	# seconds QEMU may run
BUILD_TIMEOUT=${KATOMIC_BUILD_TIMEOUT:-1800}	# seconds for build + boot
JOBS=$(nproc)	# make -j of a build; run -P N shares the cores out
# Under make -j N (make -j 4 test-all), run's N; the kernel's own makes get
# their -j from kunit.py, not the jobserver of ours.
MAKE_PARALLEL=$(sed -n 's/.* -j\([0-9][0-9]*\).*/\1/p' <<< " ${MAKEFLAGS:-}")
unset MAKEFLAGS MFLAGS
TREE=$WORK/linux
STATE=$WORK/tree.state
ARCHES=$REPO/scripts/arches.tsv
# The harness's Python package, katomic/ (python3 -m katomic.audit).
export PYTHONPATH=$REPO${PYTHONPATH:+:$PYTHONPATH}
# The suites' objects (lib/Makefile builds each but the runner twice, the
# second as *_other_kunit.o).
SUITE_OBJS="lib/atomic_kunit.o lib/atomic_smp_runner.o lib/atomic_stress_kunit.o
	lib/atomic_stress_retry_kunit.o lib/atomic_litmus_kunit.o lib/atomic_bench_kunit.o"
# What every architecture needs; each row of $ARCHES adds its own packages.
PACKAGES="linux-source-6.12 build-essential flex bison bc
	libelf-dev libssl-dev python3 python3-ply python3-git xz-utils git rsync cpio kmod
	gnuplot-nox"
# herdtools7 (herd7, the memory models), vendored, and what builds it.
HERDTOOLS=$REPO/vendor/herdtools7-7.57.tar.gz
HERD_PACKAGES="ocaml-nox ocaml-dune menhir libmenhir-ocaml-dev libzarith-ocaml-dev"
PACKAGES+=" $HERD_PACKAGES"

# Configuration fragments: NAME -> its kunit.py arguments, ";" between them.
# Every boot tests both implementations, so the sanitizers see both; llsc:
# arm64's LL/SC atomics instead of LSE (elsewhere the =n changes nothing, and
# kunit.py accepts it); bench: the benchmarks alone, both implementations in
# one boot (make report); noinstr (x86 only): objtool checks that noinstr
# code calls nothing instrumentable (vmlinux.o), which summary.py reads;
# z10 (s390 only): the oldest march the kernel supports instead of its
# default, z196, so that the atomics take their pre-z196 paths (compare and
# swap loops, BCR 15,0), built only as far as the audit needs (audit_only).
declare -A FRAGMENTS=(
	[builtins]="--kconfig_add=CONFIG_ATOMIC_BUILTINS=y"
	[kasan]="--kconfig_add=CONFIG_KASAN=y;--kconfig_add=CONFIG_KASAN_GENERIC=y"
	[kcsan]="--kconfig_add=CONFIG_DEBUG_KERNEL=y;--kconfig_add=CONFIG_KCSAN=y"
	[llsc]="--kconfig_add=CONFIG_ARM64_USE_LSE_ATOMICS=n"
	[bench]="--kconfig_add=CONFIG_ATOMIC_KUNIT_BENCHMARK=y;atomic_bench_*"
	[clang]="--make_options=LLVM=-19"
	[noinstr]="--kconfig_add=CONFIG_DEBUG_KERNEL=y;--kconfig_add=CONFIG_DEBUG_ENTRY=y"
	[z10]="--kconfig_add=CONFIG_MARCH_Z10=y;--kconfig_add=CONFIG_MARCH_Z196=n"
)
# What a fragment needs installed besides PACKAGES (only when it is used).
declare -A FRAGMENT_PACKAGES=(
	[clang]="clang-19 lld-19 llvm-19"
)

export PYTHONDONTWRITEBYTECODE=1

die() { echo "katomic: error: $*" >&2; exit 1; }
say() { echo "katomic: $*"; }

usage() {
	cat <<EOF
usage: scripts/katomic.sh COMMAND [ARGS]

  deps            install the Debian packages katomic needs (apt-get)
  tree            unpack the kernel tree into \$KATOMIC_WORK/linux and apply
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
                  configuration under \$KATOMIC_WORK/check; no new W=1 or
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
                  writes results/report.{md,json,*.png}. Per architecture
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
                  \$KATOMIC_RESULTS, however they got there (the CI
                  pipeline's merge job); fails as run would
  gitlab-ci       print the CI pipeline, .gitlab-ci.yml: a job per
                  configuration of make test-all, test-more and test-arches,
                  and a merge job per matrix (see the file's head)
  lkmm            herd7 (herdtools7 from vendor/, built once into the work
                  directory) under the kernel's memory model on the tree's
                  litmus tests (tools/memory-model/litmus-tests,
                  Documentation/litmus-tests) and katomic's, which
                  katomic/litmus.py writes to \$KATOMIC_WORK/litmus (each
                  primitive in each ordering, in SB, SB-op, MP, R and
                  2+2W), each
                  verdict held against the test's "Result:" line:
                  results/lkmm.{md,json}; lib/atomic_litmus_tests.h, the
                  booted suite's tests, checked to be
                  katomic/litmus_kunit.py's output on them; then katomic's
                  tests compiled against each built configuration of make
                  test-all on arm64, riscv64, ppc64le and x86_64, both
                  implementations, under the architecture's own model
                  (katomic/litmus_arch.py): results/CONFIG.litmus.{json,log},
                  results/litmus-arch.md; fails if none is built. run does
                  all of it: the LKMM side before the first configuration,
                  the architecture side after each audit; and before the
                  first configuration, the audit's self-test fixtures of
                  those architectures under their models, each judged as
                  the audit's self-test expects (katomic/litmus_fixtures.py:
                  results/litmus-fixtures.{md,json})
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

Architectures: $(arches | paste -sd ' ') (one row each in scripts/arches.tsv).
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
EOF
}

# Installs PACKAGES, and the packages of the configurations named (their
# architectures' and fragments'); with none named, every architecture's.
cmd_deps() {
	local missing=() a c p f extra=
	[ $# -gt 0 ] || set -- $(arches)
	for c in "$@"; do
		arch_field "${c%%-*}" name >/dev/null || die "deps: unknown architecture in '$c'"
		extra+=" $(arch_field "${c%%-*}" packages | tr , ' ')"
		for f in $(tr - ' ' <<< "${c#*-}"); do extra+=" ${FRAGMENT_PACKAGES[$f]:-}"; done
	done
	for p in $(printf '%s\n' $PACKAGES $extra | awk '!seen[$0]++'); do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
			grep -q 'ok installed' || missing+=("$p")
	done
	if [ ${#missing[@]} -gt 0 ]; then
		say "installing: ${missing[*]}"
		[ "$(id -u)" -eq 0 ] || die "need root to apt-get install ${missing[*]}"
		export DEBIAN_FRONTEND=noninteractive
		apt-get update -q >/dev/null ||
			die "apt-get update failed"
		apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null ||
			die "apt-get install failed for: ${missing[*]}"
	fi
	for c in "$@"; do gcc_plugins "${c%%-*}"; done
}

# The GCC plugins ARCH's kunit column names as -fplugin=@PLUGINS@/NAME.so,
# each built once from scripts/NAME.cc against the row's cross compiler.
gcc_plugins() {
	local name src so inc
	for name in $(arch_field "$1" kunit | grep -o '@PLUGINS@/[a-z0-9_]*\.so' |
		      sed 's|.*/||; s|\.so$||'); do
		src=$REPO/scripts/$name.cc so=$WORK/plugins/$name.so
		[ "$so" -nt "$src" ] && continue
		say "building the GCC plugin $name for $1"
		inc=$("$(cross "$1")gcc" -print-file-name=plugin)/include
		mkdir -p "$WORK/plugins"
		g++ -std=gnu++17 -O2 -fPIC -shared -fno-rtti -I"$inc" "$src" -o "$so.tmp" &&
			mv "$so.tmp" "$so" ||
			die "the GCC plugin $name does not build against $inc"
	done
}

series() { ls "$REPO"/patches/[0-9]*.patch 2>/dev/null | grep -v '/0000-' || true; }
series_id() { cat $(series) /dev/null | sha256sum | cut -c1-16; }
tarball_id() { stat -L -c '%n %s %Y' "$TARBALL"; }
state() { sed -n "s/^$1=//p" "$STATE" 2>/dev/null; }
tree_git() { git -C "$TREE" "$@"; }

ident() {
	local name email
	name=$(git -C "$REPO" config user.name) || die "set git user.name in $REPO"
	email=$(git -C "$REPO" config user.email) || die "set git user.email in $REPO"
	export GIT_AUTHOR_NAME=$name GIT_AUTHOR_EMAIL=$email
	export GIT_COMMITTER_NAME=$name GIT_COMMITTER_EMAIL=$email
}

unpack() {
	local tmp=$WORK/linux.unpacking
	[ -r "$TARBALL" ] || die "$TARBALL not found: run 'make deps'"
	rm -rf "$tmp" "$TREE" "$STATE"
	mkdir -p "$tmp"
	say "unpacking $TARBALL (about 1.5 minutes)"
	tar -xJf "$TARBALL" -C "$tmp" --strip-components=1 ||
		die "cannot unpack $TARBALL"
	local v
	v=$(make -s -C "$tmp" kernelversion 2>/dev/null) ||
		die "$TARBALL does not hold a kernel tree"
	case $v in 6.12.*) ;; *) die "$TARBALL is Linux $v; the series targets 6.12";; esac
	say "committing pristine Linux $v"
	git -C "$tmp" init -q -b katomic
	# Debian's top-level .gitignore ends with '/*': force-add everything.
	git -C "$tmp" add -A -f
	git -C "$tmp" commit -q -m "Debian linux-source $v (pristine)"
	git -C "$tmp" tag pristine
	mv "$tmp" "$TREE"
	printf 'tarball=%s\n' "$(tarball_id)" > "$STATE"
}

apply_series() {
	tree_git am --abort >/dev/null 2>&1 || true
	tree_git reset -q --hard pristine
	tree_git clean -q -fdx
	printf 'tarball=%s\n' "$(tarball_id)" > "$STATE"
	local p n=0
	for p in $(series); do
		n=$((n + 1))
		if ! tree_git am -q --keep-cr "$p" >/dev/null 2>&1; then
			tree_git am --abort >/dev/null 2>&1 || true
			die "patch $(basename "$p") does not apply to Linux $(tree_version) in $TREE"
		fi
	done
	cover_to_description
	printf 'series=%s\nhead=%s\n' "$(series_id)" "$(tree_git rev-parse HEAD)" >> "$STATE"
	say "applied $n patches onto Linux $(tree_version)"
}

tree_version() { make -s -C "$TREE" kernelversion 2>/dev/null; }

# The cover letter's subject and blurb live in the branch description, so that
# 'export' regenerates the shortlog and diffstat around them.
cover_to_description() {
	local c=$REPO/patches/0000-cover-letter.patch
	[ -f "$c" ] || return 0
	{
		# The subject, unfolded: format-patch wraps a long one.
		awk '/^Subject: / { sub(/^Subject: \[PATCH[^]]*\] /, ""); s = $0; subj = 1; next }
		     subj && /^[ \t]/ { sub(/^[ \t]+/, " "); s = s $0; next }
		     subj { print s; exit }' "$c"
		echo
		awk 'body && / \([0-9]+\):$/ { exit } body { print }
		     /^$/ && !body { body = 1 }' "$c" | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}'
	} > "$WORK/cover.txt"
	tree_git config branch.katomic.description "$(cat "$WORK/cover.txt")"
}

cmd_tree() {
	ident
	mkdir -p "$WORK"
	if [ ! -d "$TREE/.git" ] || [ "$(state tarball)" != "$(tarball_id)" ] ||
	   ! tree_git rev-parse -q --verify pristine >/dev/null; then
		unpack
	fi
	local head dirty
	tree_git symbolic-ref -q HEAD >/dev/null || tree_git checkout -q katomic
	head=$(tree_git rev-parse HEAD)
	dirty=$(tree_git status --porcelain --untracked-files=no)
	if [ -z "$(state head)" ]; then
		apply_series
	elif [ "$head" = "$(state head)" ] && [ -z "$dirty" ]; then
		[ "$(state series)" = "$(series_id)" ] || apply_series
	elif [ "$(state series)" = "$(series_id)" ]; then
		say "warning: $TREE has work not in patches/ ('make export' keeps it); using the tree as it is"
	else
		die "$TREE has local work and patches/ changed too: 'make export' or 'make reset'"
	fi
	say "tree: $TREE (Linux $(tree_version), $(tree_git rev-list --count pristine..HEAD) patches)"
}

cmd_reset() {
	ident
	[ -d "$TREE/.git" ] || { cmd_tree; return; }
	apply_series
}

cmd_export() {
	ident
	[ -d "$TREE/.git" ] || die "no tree at $TREE: run 'make tree' first"
	[ -z "$(tree_git status --porcelain --untracked-files=no)" ] ||
		die "$TREE has uncommitted changes: commit them first"
	local n
	n=$(tree_git rev-list --count pristine..HEAD)
	[ "$n" -gt 0 ] || die "no commits on top of 'pristine' in $TREE"
	local desc=()
	tree_git config branch.katomic.description >/dev/null &&
		desc=(--cover-from-description=subject)
	rm -f "$REPO"/patches/*.patch
	# --abbrev: the index lines' hashes at a fixed length; git's default
	# grows with the objects of the tree, and a series would export
	# differently from a fresh tree.
	tree_git format-patch -q --abbrev=9 --cover-letter "${desc[@]}" --zero-commit \
		--no-signature --base=pristine -o "$REPO/patches" pristine..HEAD
	# The pristine commit is local: name the tarball instead of its hash.
	# The cover letter is dated as the last patch, not now: an unchanged
	# series exports to the same files.
	sed -i "s/^base-commit: .*/base-commit: Debian linux-source $(tree_version)/" \
		"$REPO"/patches/*.patch
	sed -i "1,/^Date: /s/^Date: .*/Date: $(tree_git log -1 --format=%aD)/" \
		"$REPO"/patches/0000-cover-letter.patch
	printf 'tarball=%s\nseries=%s\nhead=%s\n' "$(tarball_id)" "$(series_id)" \
		"$(tree_git rev-parse HEAD)" > "$STATE"
	say "exported $n patches to patches/"
}

# The architectures, in the order of $ARCHES.
arches() { awk -F'\t' '!/^#/ && NF { print $1 }' "$ARCHES"; }

# TARGET -> the architectures of that target column: all or arches.
arches_of() {
	local a
	for a in $(arches); do [ "$(arch_field "$a" target)" != "$1" ] || echo "$a"; done
}

# ARCH COLUMN -> that field of ARCH's row of $ARCHES ("-" is empty), the
# column named by the header line; fails for an unknown ARCH.
arch_field() {
	awk -F'\t' -v arch="$1" -v col="$2" '
		/^#name\t/ { sub(/^#/, ""); for (i = 1; i <= NF; i++) at[$i] = i
			      if (!(col in at)) exit 2; next }
		/^#/ || !NF { next }
		$1 == arch { if ($at[col] != "-") print $at[col]; found = 1; exit }
		END { exit !found }' "$ARCHES"
}

# ARCH -> its toolchain's prefix, its architecture for the kernel's make,
# and the directory under arch/ (the top-level Makefile's SRCARCH).
cross() { arch_field "$1" prefix; }
karch() { arch_field "$1" karch; }
srcarch() { karch "$1" | sed -e 's/^x86_64$/x86/' -e 's/^i386$/x86/'; }

# ARCH -> the vCPUs of its boot (KATOMIC_SMP for those with more than one).
cpus() {
	local n
	n=$(arch_field "$1" cpus)
	case $n in ''|0|*[!0-9]*) die "scripts/arches.tsv: $1: cpus '$n' is not a number of CPUs" ;; esac
	[ "$n" -eq 1 ] || n=${KATOMIC_SMP:-$n}
	echo "$n"
}

# FRAGMENT -> its kunit.py arguments.
fragment_args() { tr ';' '\n' <<< "${FRAGMENTS[$1]}"; }

# ARCH -> kunit.py's architecture arguments.
arch_args() {
	local extra
	echo "--arch=$(karch "$1")"
	[ -z "$(cross "$1")" ] || echo "--cross_compile=$(cross "$1")"
	extra=$(arch_field "$1" kunit)
	extra=${extra//@PLUGINS@/$WORK/plugins}
	[ -z "$extra" ] || tr ';' '\n' <<< "${extra//@REPO@/$REPO}"
}

# kunit.py arguments, one per line -> those its config and build take too
# (not the row's --kernel_args, which only run takes).
config_build_args() { grep -v '^--kernel_args='; }

# CONFIG -> kunit.py arguments. CONFIG is ARCH[-FRAGMENT...]: ARCH a row of
# $ARCHES, then each fragment of FRAGMENTS at most once, in any order.
config_args() {
	local arch=${1%%-*} f seen=" " frags=()
	arch_field "$arch" name >/dev/null ||
		die "unknown architecture '$arch' in '$1' (architectures: $(arches | paste -sd ' '))"
	[ "$1" = "$arch" ] || IFS=- read -ra frags <<< "${1#*-}-"
	arch_args "$arch"
	for f in "${frags[@]}"; do
		[ -n "$f" ] && [ -n "${FRAGMENTS[$f]+set}" ] ||
			die "unknown fragment '$f' in '$1' (fragments: $(printf '%s\n' "${!FRAGMENTS[@]}" | sort | paste -sd ' '))"
		case $seen in *" $f "*) die "fragment '$f' twice in '$1'" ;; esac
		seen+="$f "
		fragment_args "$f"
	done
	[[ $seen != *" kasan "* || $seen != *" kcsan "* ]] ||
		die "'$1': KCSAN depends on !KASAN"
	[[ $seen != *" z10 "* ]] || [ "$(karch "$arch")" = s390 ] ||
		die "'$1': z10 is an s390 march"
	[[ $seen != *" z10 "* || $seen != *" bench "* ]] ||
		die "'$1': z10 is audit-only, bench needs a boot"
	echo "--kunitconfig=$REPO/kunit/katomic.kunitconfig"
	[ "$(KATOMIC_SMP= cpus "$arch")" -eq 1 ] || echo "--kunitconfig=$REPO/kunit/smp.kunitconfig"
}

# CONFIG... -> the kunit.py arguments run passes for each (one per line,
# a blank line between configurations), or an error for a bad name.
cmd_args() {
	[ $# -gt 0 ] || die "args: name at least one configuration"
	local c out first=1
	for c in "$@"; do
		out=$(config_args "$c") || exit 1
		[ $first = 1 ] || echo
		echo "$out"
		first=0
	done
}

# kunit.py arguments on stdin -> the make options among them (LLVM=...).
make_options() { sed -n 's/^--make_options=//p'; }

# CONFIG -> its build directory: bench only adds the benchmarks, so a warm
# build of the name without -bench recompiles two files.
build_dir() {
	local arch=${1%%-*} dir f
	dir=$arch
	# The fragments sorted: one directory whatever their order.
	for f in $(tr - '\n' <<< "${1#"$arch"}" | grep -vx -e '' -e bench | sort); do
		dir+=-$f
	done
	echo "$WORK/build/$dir"
}

# Library calls that the builtins would need and the kernel cannot link:
# CONFIG's architecture's libcalls in its vmlinux at BUILD_DIR.
libatomic_symbols() {
	local arch=${1%%-*}
	[ -f "$2/vmlinux" ] || { echo -1; return; }
	"$(cross "$arch")nm" "$2/vmlinux" |
		grep -cE " ($(arch_field "$arch" libcalls))\$" || true
}

# ARCH -> its builtins configuration where the checked-out tree offers the
# builtins on it (arch/*/Kconfig selects ARCH_SUPPORTS_ATOMIC_BUILTINS),
# with clang where only clang gets them (riscv); only for the rows of make
# test-all: the others are tested on their own atomics.
builtins_config() {
	local sel
	[ "$(arch_field "$1" target)" = all ] || return 0
	sel=$(grep 'select ARCH_SUPPORTS_ATOMIC_BUILTINS' "$TREE/arch/$(srcarch "$1")/Kconfig") ||
		return 0
	case $sel in
	*CC_IS_CLANG*) echo "$1-builtins-clang" ;;
	*) echo "$1-builtins" ;;
	esac
}

# The files a patch touches (stdin) -> the configurations check builds for
# it at the checked-out tree: an architecture's directory, its rows (with
# their builtins where offered); the suites, lib/Makefile and
# lib/Kconfig.debug, every row (each builds the suites on both
# implementations where it offers both); the builtins
# generic code, every builtins configuration (the rows of make test-all
# when none offers them yet); lib/cmpxchg-emu.c, the rows whose
# architecture selects it; scripts/clang-tools/, those whose architecture
# links libgcc.a; anything else (generic headers, fs/, lib/), the
# rows of make test-all, both ways. Documentation and MAINTAINERS build
# nothing.
patch_configs() {
	local f a d all
	all=$(arches_of all)
	while read -r f; do
		case $f in
		MAINTAINERS|Documentation/*) ;;
		arch/Kconfig|include/asm-generic/*builtins*.h|include/asm-generic/atomic-impl.h)
			for a in $all; do builtins_config "$a"; done | grep . || echo "$all" ;;
		arch/*)
			d=${f#arch/}
			for a in $(arches); do
				[ "$(srcarch "$a")" != "${d%%/*}" ] || { echo "$a"; builtins_config "$a"; }
			done ;;
		lib/atomic_*|lib/Makefile|lib/Kconfig.debug)
			arches ;;
		lib/cmpxchg-emu.c)
			for a in $(arches); do
				! grep -q 'select ARCH_NEED_CMPXCHG_1_EMU' \
					"$TREE/arch/$(srcarch "$a")/Kconfig" || echo "$a"
			done ;;
		scripts/clang-tools/*)
			for a in $(arches); do
				! grep -q '^libs-y.*(LIBGCC)' \
					"$TREE/arch/$(srcarch "$a")/Makefile" || echo "$a"
			done ;;
		*)
			for a in $all; do echo "$a"; builtins_config "$a"; done ;;
		esac
	done | tr ' ' '\n' | awk 'NF && !seen[$0]++'
}

# CONFIG -> kunit.py's arguments for check: before the suites exist, the
# kunitconfig without them (kunit.py fails on an option the tree lacks);
# W=1's warnings not made errors (powerpc builds its own code with -Werror;
# CONFIG_WERROR is off in every configuration).
check_args() {
	local list
	list=$(config_args "$1") || exit 1
	[ "$(karch "${1%%-*}")" != powerpc ] ||
		list+=$'\n--kconfig_add=CONFIG_PPC_DISABLE_WERROR=y'
	if ! grep -q '^config ATOMIC_KUNIT_TEST' "$TREE/lib/Kconfig.debug"; then
		grep -v ATOMIC_KUNIT "$REPO/kunit/katomic.kunitconfig" > "$CHECK/base.kunitconfig"
		list=${list//"$REPO/kunit/katomic.kunitconfig"/"$CHECK/base.kunitconfig"}
	fi
	echo "$list"
}

# CONFIG's W=1 and sparse warnings in the files FILES..., "file:line:
# message", sorted: the objects of the touched .c and .S files that CONFIG
# builds, and for a header the objects that use the atomics most
# (lib/atomic64_test.c, the suites), recompiled with W=1 C=2 at the tree as
# it is checked out.
check_warnings() {
	local cfg=$1 arch=${1%%-*} dir=$CHECK/${1} f o objs=() re=
	shift
	for f in "$@"; do
		case $f in
		*.[cS]) objs+=("${f%.*}.o") ;;
		*.h) objs+=(lib/atomic64_test.o $SUITE_OBJS ${SUITE_OBJS//_kunit.o/_other_kunit.o}) ;;
		*) continue ;;
		esac
		re+="${re:+|}$(sed 's/[.[\*^$]/\\&/g' <<< "$f")"
	done
	[ -n "$re" ] || return 0
	# Only what this configuration builds: the object is there after a build.
	for o in $(printf '%s\n' "${objs[@]}" | sort -u); do
		[ -f "$dir/$o" ] && { [ -f "$TREE/${o%.o}.c" ] || [ -f "$TREE/${o%.o}.S" ]; } ||
			continue
		rm -f "$dir/$o"
		make -k -C "$TREE" O="$dir" ARCH="$(karch "$arch")" CROSS_COMPILE="$(cross "$arch")" \
			$(check_args "$cfg" | make_options) W=1 C=2 "$o" 2>&1 || true
	done | sed "s|^$TREE/||" | { grep -E "^($re):[0-9]+:([0-9]+:)? (warning|error):" || true; } |
		sed -E 's/^([^:]*:[0-9]+):([0-9]+:)? /\1: /' | sort -u
}

# The warnings of AFTER (check_warnings at patch C) that are new: their file
# and message are not in BEFORE (the same at C's parent), and they are on a
# line that C adds. (Before a build fix, a file that did not compile had no
# warnings: the upstream ones it has are not the patch's.)
new_warnings() {
	tree_git diff -U0 "$3^" "$3" |
		awk '/^\+\+\+ b\// { f = substr($2, 3) }
		     /^@@/ { split(substr($3, 2), a, ","); n = a[2] == "" ? 1 : a[2]
			     for (i = 0; i < n; i++) print f ":" a[1] + i }' > "$CHECK/added"
	awk 'function key(s) { sub(/:[0-9]+: /, ": ", s); return s }
	     FILENAME == ARGV[1] { added[$0] = 1; next }
	     FILENAME == ARGV[2] { old[key($0)] = 1; next }
	     { split($0, w, ": "); if (!(key($0) in old) && w[1] in added) print }' \
		"$CHECK/added" "$1" "$2"
}

# kunit.py build or run (CMD) of CONFIG at the checked-out patch, W=1, in
# its check directory (incremental after the first time), output to LOG;
# further arguments go to kunit.py.
check_kunit() {
	local cmd=$1 cfg=$2 log=$3 list args=()
	shift 3
	list=$(check_args "$cfg") || exit 1
	[ "$cmd" = run ] || list=$(config_build_args <<< "$list")
	mapfile -t args <<< "$list"
	timeout -k 30 "$BUILD_TIMEOUT" python3 "$TREE/tools/testing/kunit/kunit.py" "$cmd" \
		"${args[@]}" --make_options=W=1 --build_dir="$CHECK/$cfg" --jobs="$(nproc)" \
		"$@" > "$log" 2>&1
}

check_build() { check_kunit build "$1" "$CHECK/$1.log"; }

# Boot the suites on CONFIG.
check_boot() {
	local pid rc=0
	rm -f "$CHECK/$1.qemu-killed"
	check_kunit run "$1" "$CHECK/$1.boot.log" --timeout="$BOOT_TIMEOUT" \
		--qemu_args="-smp $(cpus "${1%%-*}")" --kernel_args=panic=-1 &
	pid=$!
	watch_qemu $pid "$CHECK/$1.boot.log" "$CHECK/$1" "$CHECK/$1.qemu-killed"
	wait $pid || rc=$?
	return $rc
}

# The cover letter's topics (the branch description, paragraphs unfolded):
# "Topic N, ... (patches A-B" -> "A B" per line.
topics() {
	tree_git config branch.katomic.description |
		awk 'BEGIN { RS = "" } { gsub(/\n/, " "); print }' |
		sed -n 's/^Topic [0-9]*, [^(]*(patches \([0-9]*\)-\([0-9]*\)[;,)].*/\1 \2/p'
}

# The id of the patch of commit C: git patch-id (its diff, not its message)
# in 12 digits; results/check.tsv's fifth column. A topic-end boot's is the
# hash of the ids of the patches it booted.
# checkpatch --strict of commit $1 (--ignore UNKNOWN_COMMIT_ID: the tree has
# no mainline history). One warning is waived: VOLATILE on a line that
# declares the "volatile void *ptr" that every cmpxchg.h takes, as a
# reflowed prototype repeats it; any other report fails, and so does a
# checkpatch that fails without one.
checkpatch_one() {
	local out
	out=$(tree_git format-patch -1 --stdout "$1" |
	      (cd "$TREE" && PATH=/usr/bin:$PATH scripts/checkpatch.pl --strict \
		--quiet --show-types --ignore UNKNOWN_COMMIT_ID - 2>&1)) && return 0
	printf '%s\n' "$out" | awk 'BEGIN { RS = ""; bad = 1 }
		/^total:/ { next }
		/^WARNING:VOLATILE:/ && /\n\+[^\n]*volatile void \*ptr[,)]/ { if (bad != 2) bad = 0; next }
		{ print > "/dev/stderr"; bad = 2 }
		END { exit bad == 2 ? 1 : bad }'
}

patch_id() { tree_git show "$1" | git patch-id --stable | cut -c1-12; }
boot_id() { printf '%s\n' "$@" | sha256sum | cut -c1-12; }

# N TSV: TSV is this check's lines up to patch N, then, before the series'
# last patch (\$last), the earlier check's (CHECK/check.tsv.old) whose id
# none of these has: the patches still to come, wherever they stood.
check_tsv_keep() {
	{ cat "$CHECK_TSV"; [ "$1" -ge "$last" ] ||
		awk -F'\t' 'FILENAME == ARGV[1] { seen[$5] = 1; next } !($5 in seen)' \
			"$CHECK_TSV" "$CHECK/check.tsv.old"; } > "$2.new"
	mv "$2.new" "$2"
}

# Whether patch N ends a topic (no pipe into grep -q, whose early exit
# would fail the pipeline under pipefail).
topic_end() { [[ $'\n'"$(topics)"$'\n' == *" $1"$'\n'* ]]; }

# make check: every patch as a maintainer applies it, those whose id has no
# line in results/check.tsv that passed (N: from the Nth on).
# Per patch: checkpatch --strict; a W=1 build of the configurations whose
# sources it touches (patch_configs), incremental in one directory per
# configuration under $WORK/check; no new W=1 or sparse warning in the files
# it touches (check_warnings before and after it). At the last patch of each
# topic but the last (the tests), the tests topic is picked on top and the
# suites boot on every configuration the topic built; the tests topic's own
# end is the series, which make test-all and test-arches boot. Then, on the
# series: the suites compile for the rows of make test-arches and sh, and
# list every atomic. Per patch a line of $RESULTS/check.tsv: number, seconds,
# configurations, result, id.
cmd_check() {
	local first=${1:-} c n=0 bad=0 t0 cfg cfgs files new res id row ids=() topic_done=
	local tests_first last built= tip old tests
	case $first in 0|*[!0-9]*) die "check: N is a patch number (1 is the first)" ;; esac
	PACKAGES+=" sparse" cmd_deps $(arches) $(arches_of all | sed 's/$/-clang/')
	cmd_tree
	# The lines of this check go to CHECK_TSV, results/check.tsv is kept
	# whole after each patch: these, then the earlier check's of the
	# patches still to come (an interrupted check loses none).
	CHECK=$WORK/check CHECK_TSV=$WORK/check/check.tsv.this tsv=$RESULTS/check.tsv
	mkdir -p "$CHECK" "$RESULTS"
	tip=$(tree_git rev-parse HEAD)
	# The topics must cover the series, one after the other.
	topics | awk -v n="$(tree_git rev-list --count pristine..HEAD)" '
		$1 != next_ + 1 || $2 < $1 { bad = 1 } { next_ = $2 }
		END { exit bad || next_ != n }' BEGIN_next_=0 ||
		die "check: the cover letter's topics ('Topic N, ... (patches A-B') do not cover patches 1-$(tree_git rev-list --count pristine..HEAD) in order: $(topics | paste -sd ' ')"
	read -r tests_first last < <(topics | tail -1)
	tests=$(tree_git rev-list --reverse pristine..HEAD | sed -n "$tests_first,\$p" |
		while read -r c; do patch_id "$c"; done)
	trap 'tree_git checkout -q -f katomic' EXIT
	# Without N: only the patches whose line is missing, failed, or of
	# another patch text (its id), and the topic-end boots they affect.
	old=$CHECK/check.tsv.old
	touch "$tsv"
	cp "$tsv" "$old"
	: > "$CHECK_TSV"
	if [ -z "$first" ]; then
		first=1
	elif [ "$first" -gt 1 ]; then
		# Resumed: what the current topic built so far, for its boot, and
		# the lines of the patches before the Nth (results/check.tsv is
		# committed: a resume on a fresh machine has them too).
		built=$(topics | awk -v n="$first" '$1 <= n && n <= $2 { print $1 }' |
			xargs -I{} awk -F'\t' -v a={} -v n="$first" \
			'$1 >= a && $1 < n && $4 !~ /^boot/ && $4 != "build" { print $3 }' "$old")
		awk -F'\t' -v n="$first" '$1 < n' "$old" > "$CHECK_TSV"
	fi
	for c in $(tree_git rev-list --reverse pristine..HEAD); do
		n=$((n + 1))
		id=$(patch_id "$c")
		ids+=("$id")
		[ $n -ge "$first" ] || continue
		t0=$SECONDS res=ok
		# Every patch's message and diff, also of one checked before.
		if ! checkpatch_one "$c"; then
			res="checkpatch" bad=1
		fi
		# By id wherever it stood: a patch inserted before it renumbers
		# a patch, not changes it.
		row=$(awk -F'\t' -v n=$n -v id="$id" 'BEGIN { OFS = FS }
			$4 == "ok" && $5 == id { $1 = n; print; exit }' "$old")
		if [ -n "$row" ] && [ -z "${1:-}" ] && [ $res = ok ]; then
			say "[$n/$last] $(tree_git log -1 --format='%h %s' "$c"): checkpatch-clean; built as $id before, unchanged"
			echo "$row" >> "$CHECK_TSV"
			built+=" $(cut -f3 <<< "$row")"
			if [ $n -lt "$tests_first" ] && topic_end $n; then
				check_topic_boot "$n" "$tests_first" "$tip" "$(boot_id "${ids[@]}" $tests)" \
					"$topic_done" $built || bad=1
				built= topic_done=
			fi
			check_tsv_keep "$n" "$tsv"
			continue
		fi
		topic_done=changed
		say "[$n/$last] $(tree_git log -1 --format='%h %s' "$c")"
		mapfile -t files < <(tree_git diff-tree --no-commit-id --name-only -r "$c")
		# What the patch offers (a builtins select) counts: at the patch.
		tree_git checkout -q "$c"
		cfgs=$(printf '%s\n' "${files[@]}" | patch_configs)
		tree_git checkout -q "$c^"
		for cfg in $cfgs; do
			rm -f "$CHECK/$cfg.before"
			[ ! -d "$CHECK/$cfg" ] || check_warnings "$cfg" "${files[@]}" > "$CHECK/$cfg.before"
		done
		tree_git checkout -q "$c"
		for cfg in $cfgs; do
			if ! check_build "$cfg"; then
				say "  $cfg: build FAILED (log: $CHECK/$cfg.log)"
				res="build" bad=1
				continue
			fi
			check_warnings "$cfg" "${files[@]}" > "$CHECK/$cfg.after"
			touch "$CHECK/$cfg.before"
			new=$(new_warnings "$CHECK/$cfg.before" "$CHECK/$cfg.after" "$c")
			if [ -n "$new" ]; then
				say "  $cfg: builds, new warnings:"
				sed 's/^/katomic:     /' <<< "$new"
				res="warnings" bad=1
			else
				say "  $cfg: builds, no new W=1 or sparse warning in the files it touches"
			fi
			built+=" $cfg"
		done
		printf '%d\t%d\t%s\t%s\t%s\n' $n $((SECONDS - t0)) "$(echo ${cfgs:--})" $res "$id" >> "$CHECK_TSV"
		if [ $n -lt "$tests_first" ] && topic_end $n; then
			check_topic_boot "$n" "$tests_first" "$tip" "$(boot_id "${ids[@]}" $tests)" \
				changed $built || bad=1
			built= topic_done=
		fi
		check_tsv_keep "$n" "$tsv"
	done
	tree_git checkout -q katomic
	say "the series: the suites on more architectures, the list of atomics"
	compile_suites || bad=1
	atomics_listed || bad=1
	say "per patch: $tsv; $SECONDS s in all"
	[ $bad -eq 0 ] || die "some patches are not clean, do not build, warn or fail"
	say "every patch is checkpatch-clean, builds without a new warning, and each topic passes the suites"
}

# N TESTS_FIRST TIP ID CHANGED CONFIG...: at topic end N, the tests topic
# (TESTS_FIRST to the tip TIP) picked on top, the suites booted on each
# CONFIG built (a builtins one only where it needs its own compiler: every
# boot tests both implementations). Unless CHANGED, a configuration whose
# boot passed with ID in the earlier check keeps its line instead, so that
# an interrupted check loses no boot but the one it was in.
check_topic_boot() {
	local n=$1 tests_first=$2 tip=$3 id=$4 changed=$5 cfg row bad=0 todo=
	shift 5
	# A patch that built nothing has "-" for its configurations.
	for cfg in $(printf '%s\n' "$@" | sed 's/-builtins$//' | awk '$0 != "-" && !seen[$0]++'); do
		[ "$(arch_field "${cfg%%-*}" target)" != compile ] || continue
		row=
		[ -n "$changed" ] || row=$(awk -F'\t' -v n="$n" -v c="$cfg" -v id="$id" \
			'$1 == n && $3 == c && $4 == "boot ok" && $5 == id' "$CHECK/check.tsv.old")
		if [ -n "$row" ]; then
			echo "$row" >> "$CHECK_TSV"
		else
			todo+=" $cfg"
		fi
	done
	if [ -z "$todo" ]; then
		say "[$n] end of a topic: booted as $id before, unchanged"
		return 0
	fi
	say "[$n] end of a topic: the suites of patches $tests_first-on on top, booted on$todo"
	# At patch N: a check that kept patch N's line did not check it out.
	tree_git checkout -q --detach "$(tree_git rev-list --reverse pristine.."$tip" | sed -n "${n}p")"
	if ! tree_git cherry-pick "$(tree_git rev-list --reverse pristine.."$tip" |
	     sed -n "${tests_first}p")^..$tip" > "$CHECK/pick.log" 2>&1; then
		tree_git cherry-pick --abort >/dev/null 2>&1 || true
		say "  the tests do not apply on patch $n (log: $CHECK/pick.log)"
		return 1
	fi
	for cfg in $todo; do
		local t0=$SECONDS res=ok
		if check_boot "$cfg" && grep -q 'Testing complete' "$CHECK/$cfg.boot.log"; then
			say "  $cfg: $(grep -m1 -o 'Testing complete.*' "$CHECK/$cfg.boot.log")"
		else
			say "  $cfg: FAILED (log: $CHECK/$cfg.boot.log)"
			res=FAILED bad=1
		fi
		printf '%d\t%d\t%s\tboot %s\t%s\n' "$n" $((SECONDS - t0)) "$cfg" $res "$id" >> "$CHECK_TSV"
		check_tsv_keep "$n" "$tsv"
	done
	return $bad
}

# The suites compiled with W=1 for the architectures of make test-arches:
# without a warning, and without a call to a primitive of a size the
# architecture lacks (an undefined __*_bad_pointer or __*_wrong_size: a link
# error).
compile_suites() {
	local arch cross dir objs args=() bad=0
	objs=$SUITE_OBJS
	for arch in $(arches_of arches) $(arches_of compile); do
		cross=$(cross "$arch")
		mapfile -t args < <(arch_args "$arch" | config_build_args)
		dir=$WORK/build/compile-$arch
		mkdir -p "$dir"
		if python3 "$TREE/tools/testing/kunit/kunit.py" config "${args[@]}" \
		     --kunitconfig="$TREE/lib/atomic_kunit.kunitconfig" \
		     --build_dir="$dir" > "$dir.log" 2>&1 &&
		   make -s -C "$TREE" O="$dir" ARCH="$(karch "$arch")" CROSS_COMPILE="$cross" W=1 \
		     $(arch_args "$arch" | make_options) -j"$(nproc)" $objs >> "$dir.log" 2>&1 &&
		   ! grep 'lib/atomic_[a-z_]*\.[ch]:.*\(warning\|error\):' "$dir.log" &&
		   ! (cd "$dir" && "${cross}nm" -u $objs) | grep -E 'bad_pointer|wrong_size|not_implemented'; then
			say "  $arch: the suites compile"
		else
			say "  $arch: the suites do not compile cleanly (log: $dir.log)"
			bad=1
		fi
	done
	return $bad
}

# Every operation of scripts/atomic/atomics.tbl, from which the kernel
# generates the atomics, has a row in lib/atomic_kunit_ops.h, the list the
# value suite's wrappers and cases come from.
atomics_listed() {
	local op missing=
	for op in $(awk '!/^#/ && NF { print $1 }' "$TREE/scripts/atomic/atomics.tbl"); do
		grep -qE "^ATOMIC(_TRY)?\($op," "$TREE/lib/atomic_kunit_ops.h" || missing+=" $op"
	done
	[ -z "$missing" ] || { say "  lib/atomic_kunit_ops.h does not list:$missing"; return 1; }
	say "  lib/atomic_kunit_ops.h lists every operation of scripts/atomic/atomics.tbl"
}

# The test matrix: every architecture's assembly with GCC, then the further
# configurations its row names; 'more': those of its more column. Every
# boot tests both implementations, so the matrix configures the builtins
# where they make a difference: under a sanitizer and with clang. Other
# combinations run by name.
cmd_configs() {
	local a
	case ${1:-} in
	"") arches_of all
	    for a in $(arches_of all); do arch_field "$a" matrix | tr ' ' '\n'; done ;;
	more) for a in $(arches); do arch_field "$a" more | tr ' ' '\n'; done ;;
	arches) arches_of arches ;;
	*) die "configs: say nothing, 'more' or 'arches'" ;;
	esac
}

# QEMU 7.2's s390x sometimes deadlocks on the reboot that ends a KUnit run
# (-smp 4, multi-threaded TCG), and then ignores kunit.py's SIGTERM: kill it
# 30 s after the tests completed, or at once when kunit.py's timeout fired.
# PID: kunit.py's, LOG: its output, BDIR: its build directory; MARK: a
# file that says so if QEMU was killed.
watch_qemu() {
	local pid=$1 log=$2 bdir=$3 mark=$4 done_at=
	while kill -0 "$pid" 2>/dev/null; do
		sleep 2
		if [ -z "$done_at" ] && grep -q 'Testing complete' "$log"; then
			done_at=$SECONDS
		fi
		if grep -q 'timed out after' "$log" ||
		   { [ -n "$done_at" ] && [ $((SECONDS - done_at)) -gt 30 ]; }; then
			if pkill -KILL -f "qemu-system-.* -kernel $bdir/"; then
				echo "QEMU did not exit after the run and was killed" > "$mark"
			fi
		fi
	done
	return 0
}

run_one() {
	local name=$1 out=$RESULTS/$1 bdir list rc=0 args=() boot=true
	bdir=$(build_dir "$name")
	list=$(config_args "$name") || exit 1
	mapfile -t args <<< "$list"
	mkdir -p "$bdir"
	# Only what this run produces: kunit.py leaves its console in the build
	# directory, and a build that fails leaves the last boot's there.
	rm -f "$out".* "$bdir/test.log"
	local t0=$SECONDS
	: > "$out.kunit.log"
	if audit_only "$name"; then
		boot=false
		say "[$name] configure and prepare for the audit, no build or boot (log: $out.kunit.log)"
		prepare_build "$name" "$bdir" "$out.kunit.log" || rc=$?
		[ $rc -eq 0 ] || say "[$name] FAILED (exit $rc): $(tail -1 "$out.kunit.log")"
	else
		say "[$name] build and boot (log: $out.kunit.log)"
		timeout -k 30 "$BUILD_TIMEOUT" python3 "$TREE/tools/testing/kunit/kunit.py" run \
			"${args[@]}" --build_dir="$bdir" --jobs="$JOBS" \
			--timeout="$BOOT_TIMEOUT" --qemu_args="-smp $(cpus "${name%%-*}")" \
			--kernel_args=panic=-1 ${KATOMIC_KERNEL_ARGS:+--kernel_args="$KATOMIC_KERNEL_ARGS"} \
			${KATOMIC_QEMU_ARGS:+--qemu_args="$KATOMIC_QEMU_ARGS"} \
			--json="$out.json" > "$out.kunit.log" 2>&1 &
		local pid=$!
		# Progress: kunit.py's stage lines, as they come.
		tail -n +1 --pid=$pid -f "$out.kunit.log" 2>/dev/null |
			grep --line-buffered -E '^(\[[0-9:]+\] )?(Building|Starting|Testing complete|Elapsed|ERROR|Command)' |
			sed -u "s/^/katomic: [$name] /" &
		watch_qemu $pid "$out.kunit.log" "$bdir" "$out.qemu-killed"
		wait $pid || rc=$?
		wait
		[ -f "$bdir/test.log" ] && cp "$bdir/test.log" "$out.console.log"
	fi
	local audit=false herd=false
	if audited "$name"; then
		audit=true
		audit_one "$name" || true
		if $boot && has_litmus_arch "$name"; then
			herd=true
			litmus_arch_one "$name" || true
		fi
	elif sanitized "$name"; then
		instr_one "$name" || true
	elif [[ "-$name-" != *-bench-* ]]; then
		say "[$name] no machine-code audit: katomic/audit has no rules for ${name%%-*}"
	fi
	# boot: false for an audit-only configuration, which has no vmlinux to
	# count library calls in (-1, as for a build that failed), no console
	# and no KTAP results.
	local libcalls=-1
	! $boot || libcalls=$(libatomic_symbols "$name" "$bdir")
	# builtins: whether the architecture offers the builtins with this
	# compiler, and so whether the boot tests them (riscv: not with GCC).
	local builtins=false
	! offers_builtins "$bdir" 2>/dev/null || builtins=true
	printf '{"config": "%s", "rc": %d, "seconds": %d, "libatomic_symbols": %d, "audit": %s, "herd7": %s, "boot": %s, "builtins": %s, "series": "%s"}\n' \
		"$name" "$rc" $((SECONDS - t0)) "$libcalls" "$audit" "$herd" "$boot" "$builtins" "$(series_id)" > "$out.run.json"
	return 0
}

# Configurations that run only configures and prepares for the audit
# (prepare_build), with no kernel built or booted: z10, an s390 march whose
# code the audit is to see: about 20 s on 2 cores (kunit.py config 5 s, make
# prepare, the audit 8 s) where a build and boot takes about 10 minutes.
audit_only() { [[ "-$1-" == *-z10-* ]]; }

# An audit-only CONFIG in BDIR: kunit.py config (the .config) and make
# prepare (generated headers, asm-offsets, kbuild's tools, objtool), what
# the audit's probes, objects compiled as external modules are (kmod_make),
# need of a build. Not modules_prepare: that is prepare and the modules'
# linker script, and without CONFIG_MODULES (the kunit configurations of
# x86_64 and arm64) nothing at all. Output to LOG; the exit status of the
# step that failed (124: timed out, the whole bounded by
# KATOMIC_BUILD_TIMEOUT).
prepare_build() {
	local name=$1 bdir=$2 log=$3 arch=${1%%-*} list args=() t0=$SECONDS
	list=$(config_args "$name") || exit 1
	mapfile -t args < <(grep '^--' <<< "$list" | config_build_args)
	say "[$name] kunit.py config"
	timeout -k 30 "$BUILD_TIMEOUT" python3 "$TREE/tools/testing/kunit/kunit.py" config \
		"${args[@]}" --build_dir="$bdir" >> "$log" 2>&1 || return
	say "[$name] make prepare"
	timeout -k 30 $((BUILD_TIMEOUT - (SECONDS - t0))) \
		make -s -C "$TREE" O="$bdir" ARCH="$(karch "$arch")" CROSS_COMPILE="$(cross "$arch")" \
		$(make_options <<< "$list") -j"$JOBS" prepare >> "$log" 2>&1
}

# Whether run audits CONFIG's machine code: not under a sanitizer, whose
# calls hide what the code does, and not for -bench, the same build.
sanitized() { [[ "-$1-" == *-kasan-* || "-$1-" == *-kcsan-* ]]; }
# The audit knows the barriers of some architectures only (python3 -m katomic.audit --arches).
audited() {
	! sanitized "$1" && [[ "-$1-" != *-bench-* ]] &&
		[[ " $(python3 -m katomic.audit --arches) " == *" ${1%%-*} "* ]]
}

# Compile OBJS in DIR as external modules against the kernel build BDIR of
# ARCH, the log to DIR/build.log; further arguments are make options.
kmod_make() {
	local arch=$1 bdir=$2 dir=$3 objs=$4
	shift 4
	echo "obj-m := $objs" > "$dir/Kbuild"
	make -s -C "$TREE" O="$bdir" M="$dir" ARCH="$(karch "$arch")" \
		CROSS_COMPILE="$(cross "$arch")" "$@" $objs > "$dir/build.log" 2>&1
}

# The machine-code audit (katomic/audit) of the kernel build BDIR for
# ARCH: the probe of scripts/gen_audit_probe.sh on both implementations and
# scripts/worries.c in its three flavours, compiled against BDIR with the
# kernel's flags. Writes OUT.audit.{json,log}; fails when the audit does.
audit_build() {
	local arch=$1 bdir=$2 out=$3 dir=$WORK/audit/${3##*/} f objs rc=0
	shift 3		# the rest: make options of the build (LLVM=...)
	rm -f "$out".audit.*
	[ -f "$bdir/.config" ] || { echo "audit: $bdir is not built" | tee "$out.audit.log" >&2; return 1; }
	rm -rf "$dir"
	mkdir -p "$dir"
	sh "$REPO/scripts/gen_audit_probe.sh" "$TREE" "$dir/audit_probe.tsv" > "$dir/audit_probe.c"
	cp "$REPO/scripts/worries.c" "$dir/"
	for f in asm:ARCH builtins:BUILTINS; do
		printf '#define ATOMIC_IMPL_%s\n#include "audit_probe.c"\n' "${f#*:}" > "$dir/audit_${f%%:*}.c"
	done
	for f in once builtins c11; do
		printf '#define WORRY_%s\n#include "worries.c"\n' "${f^^}" > "$dir/worries_$f.c"
	done
	objs="audit_asm.o audit_builtins.o worries_once.o worries_builtins.o worries_c11.o"
	sed -n 's/^CONFIG_CC_VERSION_TEXT="\(.*\)"/\1/p' "$bdir/.config" > "$dir/compiler"
	# the audit's rules that depend on the build's options (s390: whether
	# BCR 14,0 serialises, CONFIG_HAVE_MARCH_Z196_FEATURES).
	cp "$bdir/.config" "$dir/kconfig"
	if ! kmod_make "$arch" "$bdir" "$dir" "$objs" "$@"; then
		{ echo "audit: the probes do not build against $bdir:"; tail -5 "$dir/build.log"; } |
			tee "$out.audit.log" >&2
		return 1
	fi
	python3 -m katomic.audit "$arch" "$dir" "$out.audit.json" > "$out.audit.log" 2>&1 || rc=$?
	sed "s/^/katomic: [${out##*/}] /" "$out.audit.log"
	return $rc
}

audit_one() {
	say "[$1] machine-code audit"
	audit_build "${1%%-*}" "$(build_dir "$1")" "$RESULTS/$1" \
		$(config_args "$1" | make_options)
}

# Under KASAN or KCSAN, what the sanitizer instruments of the atomics: the
# audit's probe, one function per primitive, compiled against CONFIG's
# build as the raw_ forms (which promise no instrumentation) and as the
# instrumented ones, on both implementations. Sanitizer calls per object
# to RESULTS/CONFIG.instr.json; summary.py shows them.
instr_one() {
	local name=$1 arch=${1%%-*} dir=$WORK/instr/$1 bdir v i o objs=
	sanitized "$name" || return 0
	bdir=$(build_dir "$name")
	rm -rf "$dir" "$RESULTS/$name.instr.json"
	mkdir -p "$dir"
	# The ops alone, without the barrier idioms: their smp_mb__*_atomic()
	# would add KCSAN's barrier instrumentation (kcsan_mb(), with
	# CONFIG_KCSAN_STRICT) to the raw_ count.
	sh "$REPO/scripts/gen_audit_probe.sh" "$TREE" "$dir/probe.tsv" ops > "$dir/raw_probe.c"
	sed 's/\braw_//g' "$dir/raw_probe.c" > "$dir/instrumented_probe.c"
	for v in raw instrumented; do
		for i in asm:ARCH builtins:BUILTINS; do
			printf '#define ATOMIC_IMPL_%s\n#include "%s_probe.c"\n' "${i#*:}" "$v" \
				> "$dir/${v}_${i%%:*}.c"
			objs+=" ${v}_${i%%:*}.o"
		done
	done
	if ! kmod_make "$arch" "$bdir" "$dir" "$objs" $(config_args "$name" | make_options); then
		say "[$name] instrumentation: the probe does not build (log: $dir/build.log)"
		return 1
	fi
	for o in $objs; do
		"$(cross "$arch")objdump" -dr "$dir/$o" | awk -v o="${o%.o}" '
			/^[0-9a-f]+ <__pfx_.*>:$/ { f = ""; next }
			/^[0-9a-f]+ <.*>:$/ { fn++; f = $2; next }
			/R_.*(__tsan_|__asan_|__kasan_|__kcsan_|kcsan_)/ { calls++; hit[f] = 1 }
			END { n = 0; for (f in hit) n++
			      printf "\"%s\": {\"functions\": %d, \"with_calls\": %d, \"calls\": %d}\n",
				     o, fn, n, calls }'
	done | paste -sd, | sed 's/^/{/; s/$/}/' > "$RESULTS/$name.instr.json"
	say "[$name] sanitizer calls in the probe: $(cat "$RESULTS/$name.instr.json")"
}

cmd_audit() {
	[ $# -gt 0 ] || die "audit: name at least one configuration"
	local c bad=0
	for c in "$@"; do
		config_args "$c" >/dev/null
		[[ "-$c-" != *-bench-* ]] || die "audit: $c is a -bench configuration: audit ${c/-bench/}"
		audited "$c" || sanitized "$c" || die "audit: katomic/audit has no rules for ${c%%-*}"
	done
	cmd_tree
	mkdir -p "$RESULTS"
	audit_selftest "$@"
	for c in "$@"; do
		if audited "$c"; then audit_one "$c" || bad=1; else instr_one "$c" || bad=1; fi
	done
	[ $bad -eq 0 ] || die "the machine-code audit failed (results/CONFIG.audit.log)"
}

# The audit's self-test, for the architectures whose CONFIGs it audits (their
# toolchains assemble its fixtures).
# The harness's own tests (seconds): each module's, katomic/*_test.py, and
# this script's, scripts/katomic_test.py.
harness_selftest() {
	say "the harness's own tests"
	{ (cd "$REPO" && python3 -m unittest discover -s katomic -t . -p '*_test.py') &&
	  python3 "$REPO/scripts/katomic_test.py"; } > "$WORK/harness.log" 2>&1 ||
		die "the harness's own tests failed: $(tail -3 "$WORK/harness.log")"
}

audit_selftest() {
	local c sel
	sel=$(for c in "$@"; do ! audited "$c" || echo "${c%%-*}"; done | sort -u)
	[ -z "$sel" ] || python3 -m katomic.audit --selftest $sel ||
		die "the audit's self-test failed"
}

cmd_run() {
	local c parallel=${MAKE_PARALLEL:-1}
	if [ "${1:-}" = -P ]; then
		[ $# -ge 2 ] || die "run: -P takes a number of configurations"
		parallel=$2
		shift 2
	fi
	case $parallel in ''|0|*[!0-9]*) die "run: -P takes a number of configurations, not '$parallel'" ;; esac
	[ $# -gt 0 ] || die "run: name at least one configuration"
	for c in "$@"; do config_args "$c" >/dev/null; done
	cmd_deps "$@"
	cmd_tree
	mkdir -p "$RESULTS"
	harness_selftest
	audit_selftest "$@"
	herd_build
	lkmm_side || die "herd7 under the LKMM disagrees with a test's Result:, or the suite's litmus tests are not generated from them (results/lkmm.md, $WORK/litmus/kunit.diff)"
	fixtures_herd "$@"
	if [ "$parallel" -eq 1 ]; then
		for c in "$@"; do run_one "$c"; done
	else
		# N at once, each with its share of the cores.
		JOBS=$(( $(nproc) / parallel > 0 ? $(nproc) / parallel : 1 ))
		say "$# configurations, $parallel at once, $JOBS cores each"
		for c in "$@"; do
			while [ "$(jobs -rp | wc -l)" -ge "$parallel" ]; do wait -n || true; done
			run_one "$c" &
		done
		wait
	fi
	cmd_summary "$@"
}

# The CI pipeline (.gitlab-ci.yml), from the matrices of scripts/arches.tsv:
# a job per configuration of make test-all, test-more and test-arches, each
# keeping its results, and per matrix a merge job named as its make target
# that summarises them and fails as the target would (also when a job left
# no results).
cmd_gitlab_ci() {
	local m c dir configs
	cat <<'EOF'
# Generated by 'scripts/katomic.sh gitlab-ci > .gitlab-ci.yml' from
# scripts/arches.tsv (scripts/katomic_test.py checks that it is up to date).
# A job per configuration of make test-all, test-more and test-arches, each
# keeping its results; a job per matrix, named as its make target, merges
# them into one summary and fails as the target would. Jobs run as root on
# Debian 12 (apt-get), each on a machine of its own: they share no work
# directory.
stages: [test, merge]

default:
  image: debian:12
  timeout: 3h

.config:
  stage: test
  script:
    - scripts/katomic.sh run "$CONFIG"
  artifacts:
    when: always
    paths: [results/]
EOF
	for m in all more arches; do
		if [ $m = all ]; then configs=$(cmd_configs) dir=results
		else configs=$(cmd_configs $m) dir=results/$m
		fi
		for c in $configs; do
			printf '\n%s:\n  extends: .config\n  variables:\n' "$c"
			printf '    CONFIG: %s\n    KATOMIC_RESULTS: %s\n' "$c" "$dir"
		done
		printf '\ntest-%s:\n  stage: merge\n  when: always\n  needs:\n' "$m"
		for c in $configs; do printf '    - job: %s\n      artifacts: true\n' "$c"; done
		printf '  variables:\n    KATOMIC_RESULTS: %s\n' "$dir"
		printf '  script:\n    - command -v python3 || { apt-get update -q && apt-get install -y -q python3; }\n'
		printf '    - scripts/katomic.sh summary %s\n' "$(echo $configs)"
		printf '  artifacts:\n    when: always\n    paths: [%s/summary.md, %s/summary.json, %s/audit.md, results/test-%s.md, results/test-%s.json]\n' \
			"$dir" "$dir" "$dir" "$m" "$m"
	done
}

# The summary of CONFIG... from the results in $RESULTS (also of runs on
# other machines, as the CI pipeline's merge job does):
# results/summary.{md,json}, and for the whole matrix of make test-all the
# audit's tables, results/audit.md; fails unless every one of them passed.
# The summary of a whole matrix is also kept by the repository, with the
# series it ran on: results/test-{all,more,arches}.{md,json}.
cmd_summary() {
	local c m audits=() rc=0
	[ $# -gt 0 ] || die "summary: name at least one configuration"
	for c in "$@"; do [ ! -f "$RESULTS/$c.audit.json" ] || audits+=("$c=$RESULTS/$c.audit.json"); done
	# results/audit.md, which the repository keeps, is the whole matrix's.
	if [ ${#audits[@]} -gt 0 ] && [ "$*" = "$(cmd_configs | paste -sd ' ')" ]; then
		python3 -m katomic.audit --table "$RESULTS/audit.md" "${audits[@]}"
		litmus_arch_table "$@"
	fi
	python3 -m katomic.summary "$RESULTS" "$@" || rc=$?
	for m in all more arches; do
		[ "$*" = "$(cmd_configs ${m/all/} | paste -sd ' ')" ] || continue
		cp "$RESULTS/summary.md" "$REPO/results/test-$m.md"
		cp "$RESULTS/summary.json" "$REPO/results/test-$m.json"
		say "the repository's record of make test-$m: results/test-$m.md"
	done
	return $rc
}

# The report's kernels: kunit/report.kunitconfig (no tests), built from the
# stock tree (a worktree at 'pristine') and from the series with either
# implementation, each with scripts/atomic_probe.c compiled against it.
# ARCH VARIANT [COMPILER]: COMPILER a fragment (clang), GCC without it.
report_build() {
	local arch=$1 variant=$2 compiler=${3:-} src=$TREE name=$1-$2${3:+-$3} list args=() f
	local bdir=$WORK/build/report/$name pdir=$WORK/probe/$name
	[ "$variant" = stock ] && src=$WORK/stock
	list=$(arch_args "$arch") || exit 1
	for f in $variant $compiler; do
		case $f in
		stock|asm) ;;
		*)	[ -n "${FRAGMENTS[$f]+set}" ] ||
				die "report: '$f' in the row of $arch is not a fragment"
			list+=$'\n'$(fragment_args "$f") ;;
		esac
	done
	mapfile -t args < <(config_build_args <<< "$list")
	mkdir -p "$bdir"
	say "[report] $name: build (log: $bdir.log)"
	timeout -k 30 "$BUILD_TIMEOUT" python3 "$src/tools/testing/kunit/kunit.py" build \
		"${args[@]}" --kunitconfig="$REPO/kunit/report.kunitconfig" \
		--build_dir="$bdir" --jobs="$JOBS" > "$bdir.log" 2>&1 ||
		die "report: $name does not build: $(tail -3 "$bdir.log" | tr '\n' ' ')"
	rm -rf "$pdir"
	mkdir -p "$pdir"
	cp "$REPO/scripts/atomic_probe.c" "$pdir/"
	echo 'obj-m := atomic_probe.o' > "$pdir/Kbuild"
	make -s -C "$src" O="$bdir" M="$pdir" ARCH="$(karch "$arch")" \
		CROSS_COMPILE="$(cross "$arch")" $(make_options <<< "$list") \
		atomic_probe.o >> "$bdir.log" 2>&1 ||
		die "report: the probe does not build against $name (log: $bdir.log)"
}

# Where ARCH is this machine's own, the report's probe objects timed on its
# CPU in user space (katomic/hwbench.py): RESULTS/report-hwbench-ARCH.json.
hwbench() {
	local arch=$1 c v objs=()
	[ "$(karch "$arch")" = "$(uname -m)" ] || return 0
	for c in "" $(arch_field "$arch" compilers); do
		for v in asm builtins stock; do
			objs+=("${c:-gcc}-$v=$WORK/probe/$arch-$v${c:+-$c}/atomic_probe.o")
		done
	done
	say "[report] $arch: the probes timed on this machine's CPU (katomic/hwbench.py)"
	rm -f "$RESULTS/report-hwbench-$arch.json"
	python3 -m katomic.hwbench "$RESULTS/report-hwbench-$arch.json" "${objs[@]}" ||
		say "[report] warning: hwbench failed: the report has no hardware timings of $arch"
}

# Whether the kernel configured in BDIR offers CONFIG_ATOMIC_BUILTINS: the
# architecture (riscv: with clang alone) and the compiler (GCC 12, clang 19).
offers_builtins() {
	grep -qx CONFIG_ARCH_SUPPORTS_ATOMIC_BUILTINS=y "$1/.config" &&
		grep -qx CONFIG_CC_HAS_CHECKED_ATOMIC_BUILTINS=y "$1/.config"
}

stock_tree() {
	local st=$WORK/stock
	[ "$(git -C "$st" rev-parse -q --verify HEAD 2>/dev/null)" = \
	  "$(tree_git rev-parse pristine)" ] && [ -z "$(git -C "$st" status --porcelain)" ] &&
		return 0
	say "[report] stock tree: worktree of 'pristine' in $st"
	rm -rf "$st"
	tree_git worktree prune
	tree_git worktree add -q --detach "$st" pristine
}

cmd_report() {
	local arch variant c name asm bench seed list=("$@") deps=()
	for arch in "${list[@]}"; do
		[ "$(arch_field "$arch" target 2>/dev/null)" = all ] ||
			die "report: '$arch' is not an architecture of make report (those are: $(arches_of all | paste -sd ' '))"
	done
	[ ${#list[@]} -gt 0 ] || mapfile -t list < <(arches_of all)
	for arch in "${list[@]}"; do
		deps+=("$arch" $(arch_field "$arch" compilers | sed "s/[^ ]*/$arch-&/g"))
	done
	cmd_deps "${deps[@]}"
	cmd_tree
	stock_tree
	mkdir -p "$RESULTS"
	for arch in "${list[@]}"; do
		bench=
		for c in "" $(arch_field "$arch" compilers); do
			asm=$WORK/build/report/$arch-asm${c:+-$c}
			for variant in stock asm builtins $([ -n "$c" ] || arch_field "$arch" report); do
				name=$arch-$variant${c:+-$c}
				# The asm, built before, says whether there are builtins.
				if [ "$variant" = builtins ] &&
				   ! offers_builtins "$asm"; then
					say "[report] $name: skipped: $arch does not offer the builtins with ${c:-GCC} (Kconfig)"
					continue
				fi
				report_build "$arch" "$variant" $c
				# The audit compiles both implementations against one build.
				[ "$variant" = stock ] || [ "$variant" = builtins ] ||
					audit_build "$arch" "$WORK/build/report/$name" \
						"$RESULTS/report-$name" \
						$([ -z "$c" ] || fragment_args "$c" | make_options) ||
					true
			done
			# The benchmarks time both implementations in one boot: with
			# the first compiler that offers the builtins.
			[ -n "$bench" ] || ! offers_builtins "$asm" ||
				bench=$arch${c:+-$c}-bench seed=$asm
		done
		hwbench "$arch"
		if [ -n "$bench" ]; then
			# Without the matrix's build, the benchmarks' kernel starts
			# from the report's asm kernel: the same but for the suites,
			# a few files to compile instead of a whole kernel.
			[ -e "$(build_dir "$bench")" ] || [ ! -f "$seed/vmlinux" ] ||
				cp -a "$seed" "$(build_dir "$bench")"
			run_one "$bench"
		else
			say "[report] $arch: no compiler offers the builtins: no benchmark boot"
		fi
	done
	python3 -m katomic.report "$RESULTS" "$TREE" "$WORK" "${list[@]}"
}

# herd7 in $WORK/herdtools7/bin, its models in share/herdtools7/herd, as
# herdtools7's make install lays them out: built once from $HERDTOOLS
# (again when the tarball changes), herd7 alone, not the other tools.
herd_build() {
	local dir=$WORK/herdtools7 id
	id=$(sha256sum < "$HERDTOOLS" | cut -c1-16)
	[ -x "$dir/bin/herd7" ] && [ "$(cat "$dir/source" 2>/dev/null)" = "$id" ] && return 0
	say "[herd7] build herd7 from vendor/ (log: $dir.log)"
	rm -rf "$dir" "$dir.src"
	mkdir -p "$dir.src" "$dir/bin" "$dir/share/herdtools7"
	(tar -xzf "$HERDTOOLS" -C "$dir.src" --strip-components=1 && cd "$dir.src" &&
	 sh ./version-gen.sh "$dir" &&
	 timeout -k 30 "$BUILD_TIMEOUT" dune build -j "$JOBS" --profile release herd/herd.exe &&
	 cp _build/default/herd/herd.exe "$dir/bin/herd7" &&
	 cp -r herd/libdir "$dir/share/herdtools7/herd") > "$dir.log" 2>&1 ||
		die "herd7 does not build: $(tail -3 "$dir.log" | tr '\n' ' ')"
	echo "$id" > "$dir/source"
	rm -rf "$dir.src"
}

# katomic's litmus tests on the code of the kernel build of CONFIG: their
# threads compiled against it on both implementations, as the audit's
# probes are, translated and run under the architecture's own model
# (katomic/litmus_arch.py). Writes results/CONFIG.litmus.{json,log}.
# DIR CONFIG OBJ...: katomic's litmus threads ($WORK/litmus) as C in DIR,
# each OBJ (litmus_asm.o, litmus_builtins.o) compiled on its implementation
# against CONFIG's kernel build (DIR/build.log).
litmus_objects() {
	local dir=$1 c=$2 o
	shift 2
	python3 -m katomic.litmus_arch c "$WORK/litmus" "$dir/litmus_threads.c"
	for o in "$@"; do
		printf '#define ATOMIC_IMPL_%s\n#include "litmus_threads.c"\n' \
			"$([ "$o" = litmus_builtins.o ] && echo BUILTINS || echo ARCH)" > "$dir/${o%.o}.c"
	done
	kmod_make "${c%%-*}" "$(build_dir "$c")" "$dir" "$*" $(config_args "$c" | make_options)
}

litmus_arch_one() {
	local c=$1 arch=${1%%-*} bdir dir=$WORK/litmus-arch/$1 rc=0
	bdir=$(build_dir "$c")
	rm -rf "$dir" "$RESULTS/$c".litmus.*
	mkdir -p "$dir"
	litmus_objects "$dir" "$c" litmus_asm.o litmus_builtins.o ||
		die "lkmm: the litmus threads do not build against $bdir (log: $dir/build.log)"
	say "[$c] katomic's litmus tests on its code, under $arch's own model"
	# The translated tests stay in the work directory: results/ holds files.
	# Held against the audit of the same build, which run makes just
	# before (make lkmm: the last run's, if any).
	python3 -m katomic.litmus_arch check --cache "$WORK/litmus/herd-cache.$c.json" \
		--kconfig "$bdir/.config" --tests "$dir/tests" \
		$([ ! -f "$RESULTS/$c.audit.json" ] || echo --audit "$RESULTS/$c.audit.json") \
		"$arch" "$(cross "$arch")" "$WORK/herdtools7/bin/herd7" \
		"$WORK/litmus" "$RESULTS/$c.litmus.json" "$dir"/litmus_{asm,builtins}.o \
		> "$RESULTS/$c.litmus.log" 2>&1 || rc=$?
	sed "s/^/katomic: [$c] /" "$RESULTS/$c.litmus.log"
	return $rc
}

# Whether make test-all checks CONFIG's code under its architecture's own
# model: an audited configuration of an architecture with a translator.
has_litmus_arch() {
	# Not piped into grep -q: its early exit breaks the pipe, and with
	# pipefail an architecture would drop out at random.
	audited "$1" && [[ $'\n'$(python3 -m katomic.litmus_arch --arches)$'\n' == *$'\n'"${1%%-*}"$'\n'* ]]
}

# The audit's self-test fixtures under the models of the CONFIGs'
# architectures that have one (katomic/litmus_fixtures.py): herd7 must
# judge each as the audit's self-test expects. results/litmus-fixtures.*.
fixtures_herd() {
	local c sel
	sel=$(for c in "$@"; do ! has_litmus_arch "$c" || echo "${c%%-*}"; done | sort -u)
	[ -n "$sel" ] || return 0
	say "the audit's self-test fixtures under herd7: $(echo $sel)"
	python3 -m katomic.litmus_fixtures "$WORK/herdtools7/bin/herd7" \
		"$RESULTS/litmus-fixtures.json" $sel 2>&1 | sed 's/^/katomic: /'
	[ "${PIPESTATUS[0]}" -eq 0 ] ||
		die "herd7 judges an audit self-test fixture otherwise than the audit's self-test (results/litmus-fixtures.md)"
}

# The LKMM side: katomic's litmus tests written to $WORK/litmus, herd7's
# verdict under the LKMM on them and on the tree's held against each test's
# "Result:" (results/lkmm.{md,json}), and the booted suite's tests,
# lib/atomic_litmus_tests.h, the output of katomic/litmus_kunit.py on them.
lkmm_side() {
	local bad=0
	say "herd7 under the LKMM: the tree's litmus tests and katomic's"
	python3 -m katomic.litmus "$TREE" "$WORK/litmus" | sed 's/^/katomic: /'
	python3 -m katomic.lkmm --macros "$WORK/litmus/katomic.def" \
		"$WORK/herdtools7/bin/herd7" "$TREE" "$RESULTS/lkmm" \
		"$TREE"/tools/memory-model/litmus-tests/*.litmus \
		"$TREE"/Documentation/litmus-tests/*/*.litmus "$WORK"/litmus/*.litmus |
		sed 's/^/katomic: /'
	[ "${PIPESTATUS[0]}" -eq 0 ] || bad=1
	python3 -m katomic.litmus_kunit "$TREE" "$WORK/litmus" > "$WORK/litmus/kunit.h"
	if ! diff -u "$TREE/lib/atomic_litmus_tests.h" "$WORK/litmus/kunit.h" > "$WORK/litmus/kunit.diff"; then
		say "lib/atomic_litmus_tests.h is not katomic/litmus_kunit.py's output ($WORK/litmus/kunit.diff)"
		bad=1
	else
		say "lib/atomic_litmus_tests.h: the booted suite's $(grep -c '^	{ "' "$WORK/litmus/kunit.h") litmus tests, generated from these"
	fi
	return $bad
}

# results/litmus-arch.md, which the repository keeps, from the herd7 checks
# of those CONFIGs that ran.
litmus_arch_table() {
	local c files=()
	for c in "$@"; do [ ! -f "$RESULTS/$c.litmus.json" ] || files+=("$RESULTS/$c.litmus.json"); done
	[ ${#files[@]} -eq 0 ] ||
		python3 -m katomic.litmus_arch summary --series "$(series_id)" "${files[@]}" \
			> "$RESULTS/litmus-arch.md"
}

cmd_lkmm() {
	local c bad=0
	cmd_deps s390x
	cmd_tree
	herd_build
	mkdir -p "$RESULTS"
	lkmm_side || bad=1
	# The architecture side, on the configurations of make test-all that
	# are built and have a translator.
	local done=()
	for c in $(cmd_configs); do
		has_litmus_arch "$c" || continue
		if [ ! -f "$(build_dir "$c")/vmlinux" ]; then
			say "[$c] not built (make test-all builds it): its code is not checked"
		else
			litmus_arch_one "$c" || bad=1
			done+=("$RESULTS/$c.litmus.json")
		fi
	done
	[ ${#done[@]} -gt 0 ] ||
		die "lkmm: no configuration of make test-all with a translator is built: the architecture side checked nothing (make test-all runs it too)"
	litmus_arch_table $(cmd_configs)
	[ $bad -eq 0 ] || die "herd7 found what the LKMM forbids, or a test failed (results/lkmm.md, results/CONFIG.litmus.log)"
}

# make mutate: the herd7 check made to fail, a row of scripts/mutations.tsv
# at a time. The row's barrier is weakened in the tree, the litmus threads
# compiled with it against the row's built configuration, the file put back
# at once (cp -p: the kernel build never saw the change, and stays valid),
# and litmus_arch.py must find a violation in the row's code. Writes
# results/litmus-mutations.md.
cmd_mutate() {
	local cfg code file from to why n=0 bad=0 dir bdir arch v res md=$RESULTS/litmus-mutations.md
	cmd_deps s390x
	cmd_tree
	herd_build
	mkdir -p "$RESULTS"
	python3 -m katomic.litmus "$TREE" "$WORK/litmus" > /dev/null
	printf '%s\n' "# herd7's check and the audit made to fail" "" "Series $(series_id)" "" \
		"Each row weakens one barrier; the litmus tests the LKMM forbids, compiled with it, must show a violation in the row's code under the architecture's model, and the machine-code audit of the same build must fail some of the code's functions (\`make mutate\`, scripts/mutations.tsv). Judged differently: primitives whose tests ran that one checker passes and the other fails." "" \
		"| configuration | code | taken away | file | herd7 violations | audit fails | judged differently | result | tests, for example |" \
		"|---|---|---|---|---:|---:|---:|---|---|" > "$md.new"
	while IFS=$'\t' read -r cfg code file from to why; do
		[[ -z $cfg || $cfg == \#* ]] && continue
		n=$((n + 1)) arch=${cfg%%-*} dir=$WORK/mutate/$n bdir=$(build_dir "$cfg")
		[ -f "$bdir/vmlinux" ] || die "mutate: $cfg is not built (make test-all builds it)"
		rm -rf "$dir" && mkdir -p "$dir"
		cp -p "$TREE/$file" "$dir/orig"
		trap 'cp -p "$dir/orig" "$TREE/$file"' EXIT
		python3 - "$TREE/$file" "${from//\\t/$'\t'}" "${to//\\t/$'\t'}" <<-'PY' ||
			import sys
			path, old, new = sys.argv[1:]
			text = open(path).read()
			if text.count(old) != 1:
			    sys.exit(f"mutate: {path}: {old!r} occurs {text.count(old)} times, not once")
			open(path, "w").write(text.replace(old, new))
		PY
			die "mutate: row $n no longer applies to the tree (scripts/mutations.tsv)"
		litmus_objects "$dir" "$cfg" "litmus_${code%%+*}.o" ||
			{ cp -p "$dir/orig" "$TREE/$file"; die "mutate: row $n: the litmus threads do not build (log: $dir/build.log)"; }
		# The audit of the same weakened code: it must fail it too.
		audit_build "$arch" "$bdir" "$dir/mutate-$n" $(config_args "$cfg" | make_options) > /dev/null || :
		cp -p "$dir/orig" "$TREE/$file"
		trap - EXIT
		say "[$cfg] $code without $why"
		python3 -m katomic.litmus_arch check --cache "$WORK/litmus/herd-cache.$cfg.json" \
			--kconfig "$bdir/.config" --tests "$dir/tests" "$arch" "$(cross "$arch")" \
			"$WORK/herdtools7/bin/herd7" "$WORK/litmus" "$dir/out.json" "$dir/litmus_${code%%+*}.o" \
			> "$dir/check.log" 2>&1 || :	# it fails on a violation, the point here
		# herd7's violations; the functions of the code the audit fails;
		# the primitives the two judge differently; some tests that fail.
		v=$(python3 - "$dir/out.json" "$code" "$dir/mutate-$n.audit.json" <<-'PY'
			import json, sys
			r = json.load(open(sys.argv[1]))
			impl = sys.argv[2].split("+")[0]
			bad = sorted(t["test"] for t in r["tests"] if t["code"] == sys.argv[2] and t["violation"])
			try:
			    audit = [a for a in json.load(open(sys.argv[3]))["ordering"] if a["impl"] == impl]
			except OSError:
			    audit = []
			fails = sum(a["verdict"] == "fail" for a in audit)
			from katomic import litmus_arch
			tests = [t for t in r["tests"] if t["code"] == sys.argv[2]]
			split = litmus_arch.agreement(litmus_arch.crosscheck(audit, tests))["disagree"]
			print(len(bad), fails if audit else "none", len(split),
			      " ".join(bad[:3]) + (" ..." if len(bad) > 3 else ""))
		PY
		) || die "mutate: row $n: no result from litmus_arch.py (log: $dir/check.log)"
		read -r nv na nd ex <<< "$v"
		say "[$cfg] $code: herd7 $nv violations, the audit fails $na functions, $nd primitives judged differently; $ex"
		if [ "$nv" -gt 0 ] && [ "$na" != none ] && [ "$na" -gt 0 ]; then res=caught; else res="MISSED"; bad=1; fi
		printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$cfg" "$code" "$why" "$file" \
			"$nv" "$na" "$nd" "$res" "$ex" >> "$md.new"
	done < "$REPO/scripts/mutations.tsv"
	mv "$md.new" "$md"
	[ "$REPO/results" -ef "$RESULTS" ] || cp "$md" "$REPO/results/"
	[ $bad -eq 0 ] || die "mutate: herd7's check missed a weakened barrier ($md)"
	say "mutate: every weakened barrier found ($md)"
}

case ${1:-} in
deps|tree|export|reset|check|configs|report|audit|args|summary|lkmm|mutate) c=$1; shift; "cmd_$c" "$@" ;;
gitlab-ci) shift; cmd_gitlab_ci "$@" ;;
run) shift; cmd_run "$@" ;;
-h|--help|help|"") usage ;;
*) usage >&2; exit 2 ;;
esac
