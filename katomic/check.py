# SPDX-License-Identifier: GPL-2.0
"""make check: every patch of the series as a maintainer applies it:
checkpatch --strict, a W=1 build of the configurations whose sources it
touches, incremental under WORK/check, and no new W=1 or sparse warning in
the files it touches; at the end of each topic but the tests, the tests
picked on top and booted; then, on the series, the suites compiled on more
architectures and checked to list every atomic. A line per patch in
RESULTS/check.tsv, kept by a later check where the patch did not change."""

import fnmatch
import hashlib
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import NamedTuple

from . import arches, env, kbuild, tree
from .env import die, lines, read, say

# A touched header: the objects that use the atomics most, the suites (the
# runner is built twice, the second as *_other_kunit.o) and atomic64_test.
HEADER_OBJS = ["lib/atomic64_test.o"] + env.SUITE_OBJS + \
    [o.replace("_kunit.o", "_other_kunit.o") for o in env.SUITE_OBJS]
# "Topic N, ... (patches A-B" of the cover letter, a paragraph unfolded.
TOPIC = re.compile(r"Topic [0-9]+, [^(]*\(patches ([0-9]+)-([0-9]+)[;,)]")


def check_dir():
    """make check's builds, logs and bookkeeping: WORK/check."""
    return env.WORK / "check"


def append(path, *items):
    """ITEMS appended to the file PATH, a line each."""
    with open(path, "a") as f:
        f.write("".join(f"{item}\n" for item in items))


class Row(NamedTuple):
    """A line of check.tsv: the patch's number, the seconds it took, the
    configurations built ("-": none) or booted, the result and the id of
    the patch or boot ("" on lines older than ids); LINE, the line itself."""
    n: int
    seconds: str
    configs: str
    result: str
    id: str
    line: str

    @classmethod
    def of(cls, line):
        n, seconds, configs, result, id = (line.split("\t") + [""] * 4)[:5]
        return cls(int(n), seconds, configs, result, id, line)

    def renumbered(self, n):
        """The line with the patch number N."""
        return "\t".join([str(n)] + self.line.split("\t")[1:])


def rows(path):
    """The Rows of the check.tsv PATH (none where it is missing)."""
    try:
        return [Row.of(line) for line in lines(read(path))]
    except ValueError as e:
        die(f"{path}: a line does not start with a patch number ({e})")


def paragraphs(text):
    """TEXT's paragraphs: its lines split at runs of empty ones."""
    text = text.strip("\n")
    return re.split(r"\n\n+", text) if text else []


def tree_lines(path):
    """The lines of PATH in the checked-out tree (none where it is missing)."""
    return lines(read(env.TREE / path))


def builtins_config(arch):
    """ARCH -> its builtins configuration where the checked-out tree offers
    the builtins on it (arch/*/Kconfig selects ARCH_SUPPORTS_ATOMIC_BUILTINS),
    with clang where only clang gets them (riscv); only for the rows of make
    test-all: the others are tested on their own atomics. None otherwise."""
    if arches.field(arch, "target") != "all":
        return None
    sel = [line for line in tree_lines(f"arch/{arches.srcarch(arch)}/Kconfig")
           if "select ARCH_SUPPORTS_ATOMIC_BUILTINS" in line]
    if not sel:
        return None
    return f"{arch}-builtins-clang" if any("CC_IS_CLANG" in s for s in sel) else f"{arch}-builtins"


def selects(arch, path, pattern):
    """Whether a line of arch/SRCARCH/PATH of ARCH matches PATTERN."""
    return any(re.search(pattern, line)
               for line in tree_lines(f"arch/{arches.srcarch(arch)}/{path}"))


def file_configs(f):
    """The configurations that check builds for the file F of a patch (see
    patch_configs), "" or None among them for none."""
    every, all_ = list(arches.rows()), arches.of_target("all")
    if f == "MAINTAINERS" or fnmatch.fnmatchcase(f, "Documentation/*"):
        return []
    if f == "arch/Kconfig" or f == "include/asm-generic/atomic-impl.h" or \
            fnmatch.fnmatchcase(f, "include/asm-generic/*builtins*.h"):
        return [c for c in map(builtins_config, all_) if c] or all_
    if f.startswith("arch/"):
        d = f.removeprefix("arch/").split("/")[0]
        return [c for a in every if arches.srcarch(a) == d for c in (a, builtins_config(a))]
    if f.startswith("lib/atomic_") or f in ("lib/Makefile", "lib/Kconfig.debug"):
        return every
    if f == "lib/cmpxchg-emu.c":
        return [a for a in every if selects(a, "Kconfig", "select ARCH_NEED_CMPXCHG_1_EMU")]
    if f.startswith("scripts/clang-tools/"):
        return [a for a in every if selects(a, "Makefile", r"^libs-y.*\(LIBGCC\)")]
    return [c for a in all_ for c in (a, builtins_config(a))]


def patch_configs(files):
    """The files a patch touches -> the configurations check builds for it
    at the checked-out tree: an architecture's directory, its rows (with
    their builtins where offered); the suites, lib/Makefile and
    lib/Kconfig.debug, every row (each builds the suites on both
    implementations where it offers both); the builtins generic code, every
    builtins configuration (the rows of make test-all when none offers them
    yet); lib/cmpxchg-emu.c, the rows whose architecture selects it;
    scripts/clang-tools/, those whose architecture links libgcc.a; anything
    else (generic headers, fs/, lib/), the rows of make test-all, both ways.
    Documentation and MAINTAINERS build nothing. Each once, in order."""
    out = [c for f in files for c in file_configs(f)]
    return list(dict.fromkeys(c for c in out if c))


def check_args(cfg):
    """CFG -> kunit.py's arguments for check: before the suites exist, the
    kunitconfig without them (kunit.py fails on an option the tree lacks);
    W=1's warnings not made errors (powerpc builds its own code with
    -Werror; CONFIG_WERROR is off in every configuration)."""
    args = arches.config_args(cfg)
    if arches.karch(arches.arch_of(cfg)) == "powerpc":
        args.append("--kconfig_add=CONFIG_PPC_DISABLE_WERROR=y")
    if not any(line.startswith("config ATOMIC_KUNIT_TEST")
               for line in tree_lines("lib/Kconfig.debug")):
        kunitconfig, base = env.KUNIT / "katomic.kunitconfig", check_dir() / "base.kunitconfig"
        base.write_text("".join(f"{line}\n" for line in lines(kunitconfig.read_text())
                                if "ATOMIC_KUNIT" not in line))
        args = [a.replace(str(kunitconfig), str(base)) for a in args]
    return args


def check_warnings(cfg, files):
    """CFG's W=1 and sparse warnings in FILES, "file:line: message", sorted:
    the objects of the touched .c and .S files that CFG builds, and for a
    header the objects that use the atomics most (HEADER_OBJS), recompiled
    with W=1 C=2 at the tree as it is checked out."""
    arch, bdir = arches.arch_of(cfg), check_dir() / cfg
    names = [f for f in files if fnmatch.fnmatchcase(f, "*.[cSh]")]
    objs = {o for f in names for o in (HEADER_OBJS if f.endswith(".h") else [f[:-2] + ".o"])}
    out = []
    for o in sorted(objs):
        # Only what this configuration builds: the object is there after a build.
        src = o.removesuffix(".o")
        if not (bdir / o).is_file() or \
                not ((env.TREE / f"{src}.c").is_file() or (env.TREE / f"{src}.S").is_file()):
            continue
        (bdir / o).unlink()
        sys.stdout.flush()
        out += subprocess.run(
            ["make", "-k", "-C", str(env.TREE), f"O={bdir}", f"ARCH={arches.karch(arch)}",
             f"CROSS_COMPILE={arches.cross(arch)}", *arches.make_options(check_args(cfg)),
             "W=1", "C=2", o], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            text=True, errors="replace").stdout.split("\n")
    warning = re.compile(rf"^({'|'.join(map(re.escape, names))}):[0-9]+:([0-9]+:)? "
                         r"(warning|error):")
    found = (line.removeprefix(f"{env.TREE}/") for line in out)
    return sorted({re.sub(r"^([^:]*:[0-9]+):([0-9]+:)? ", r"\1: ", line, count=1)
                   for line in found if warning.match(line)})


def added_lines(c):
    """FILE:LINE of every line that commit C adds."""
    diff = env.output(["git", "-C", env.TREE, "diff", "-U0", f"{c}^", c], errors="replace")
    out, f = [], ""
    for line in lines(diff):
        if line.startswith("+++ b/"):
            f = line.split()[1][2:]
        if line.startswith("@@"):
            start, _, count = line.split()[2][1:].partition(",")
            out += [f"{f}:{int(start) + i}" for i in range(int(count) if count else 1)]
    return out


def new_warnings(before, after, c):
    """The warnings of AFTER (check_warnings at patch C) that are new: their
    file and message are not in BEFORE (the same at C's parent), and they
    are on a line that C adds. (Before a build fix, a file that did not
    compile had no warnings: the upstream ones it has are not the patch's.)"""
    def key(w):
        """W without its line number."""
        return re.sub(r":[0-9]+: ", ": ", w, count=1)
    added = set(added_lines(c))
    old = {key(w) for w in lines(read(before))}
    return [w for w in lines(read(after)) if key(w) not in old and w.split(": ")[0] in added]


def kunit_args(cmd, cfg, *extra):
    """kunit.py's arguments for CMD of CFG at the checked-out patch, W=1, in
    its check directory (incremental after the first time); EXTRA follow.
    Only run takes the row's --kernel_args."""
    args = check_args(cfg)
    if cmd != "run":
        args = arches.build_args(args)
    return args + ["--make_options=W=1", f"--build_dir={check_dir() / cfg}",
                   f"--jobs={env.NPROC}", *extra]


def check_kunit(cmd, cfg, log, *extra):
    """kunit.py CMD (build or run) of CFG, output to LOG; the exit status."""
    return kbuild.kunit(cmd, kunit_args(cmd, cfg, *extra), log)


def check_build(cfg):
    return check_kunit("build", cfg, check_dir() / f"{cfg}.log")


def check_boot(cfg):
    """Boot the suites on CFG (QEMU watched); the exit status."""
    d = check_dir()
    (d / f"{cfg}.qemu-killed").unlink(missing_ok=True)
    args = kunit_args("run", cfg, f"--timeout={env.BOOT_TIMEOUT}",
                      f"--qemu_args=-smp {arches.cpus(arches.arch_of(cfg))}",
                      "--kernel_args=panic=-1")
    return kbuild.kunit_boot(args, d / f"{cfg}.boot.log", d / cfg, d / f"{cfg}.qemu-killed")


def topics():
    """The cover letter's topics (the branch description, paragraphs
    unfolded): "Topic N, ... (patches A-B" -> (A, B)."""
    desc = env.output(["git", "-C", env.TREE, "config", "branch.katomic.description"],
                      check=False)
    return [(int(m[1]), int(m[2]))
            for m in (TOPIC.match(p.replace("\n", " ")) for p in paragraphs(desc)) if m]


def topic_end(n):
    """Whether patch N ends a topic."""
    return any(b == n for _, b in topics())


def checkpatch_one(c):
    """checkpatch --strict of commit C (--ignore UNKNOWN_COMMIT_ID: the tree
    has no mainline history). One warning is waived: VOLATILE on a line that
    declares the "volatile void *ptr" that every cmpxchg.h takes, as a
    reflowed prototype repeats it; any other report fails (to stderr), and
    so does a checkpatch that fails without one. Whether it passed."""
    sys.stdout.flush()
    patch = subprocess.Popen(["git", "-C", str(env.TREE), "format-patch", "-1", "--stdout", c],
                             stdout=subprocess.PIPE)
    checkpatch = subprocess.Popen(
        ["scripts/checkpatch.pl", "--strict", "--quiet", "--show-types", "--ignore",
         "UNKNOWN_COMMIT_ID", "-"], stdin=patch.stdout, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, cwd=env.TREE,
        env=dict(os.environ, PATH="/usr/bin:" + os.environ.get("PATH", "")))
    patch.stdout.close()
    out = checkpatch.communicate()[0].decode(errors="replace")
    if patch.wait() == 0 and checkpatch.returncode == 0:
        return True
    reports = [r for r in paragraphs(out) if not r.startswith("total:")]
    waived = [r.startswith("WARNING:VOLATILE:")
              and re.search(r"\n\+[^\n]*volatile void \*ptr[,)]", r) is not None
              for r in reports]
    for report, ok in zip(reports, waived):
        if not ok:
            print(report, file=sys.stderr, flush=True)
    return any(waived) and all(waived)


def patch_id(c):
    """The id of the patch of commit C: git patch-id (its diff, not its
    message) in 12 digits; results/check.tsv's fifth column."""
    sys.stdout.flush()
    show = subprocess.run(["git", "-C", str(env.TREE), "show", c], stdout=subprocess.PIPE)
    if show.returncode:
        raise SystemExit(show.returncode)
    return subprocess.run(["git", "patch-id", "--stable"], input=show.stdout,
                          stdout=subprocess.PIPE).stdout.decode()[:12]


def boot_id(*ids):
    """A topic-end boot's id: the hash of the ids of the patches it booted."""
    return hashlib.sha256(("\n".join(ids) + "\n").encode()).hexdigest()[:12]


def covers(topics, count):
    """Whether TOPICS cover patches 1-COUNT, one after the other."""
    ends = [0] + [b for _, b in topics]
    return bool(topics) and ends[-1] == count and \
        all(a == end + 1 and b >= a for (a, b), end in zip(topics, ends))


class Check:
    """One make check: where it keeps its lines, the series' shape, and what
    it found so far. FIRST: N as given ("" for none)."""

    def __init__(self, first):
        self.given = bool(first)
        self.first = int(first) if first else 1
        self.dir = check_dir()
        # The lines of this check go to this, results/check.tsv is kept
        # whole after each patch: these, then the earlier check's (old) of
        # the patches still to come (an interrupted check loses none).
        self.this = self.dir / "check.tsv.this"
        self.tsv = env.RESULTS / "check.tsv"
        self.old = self.dir / "check.tsv.old"
        self.bad = False
        self.built, self.ids, self.topic_done = [], [], ""

    def prepare(self):
        """The packages, the tree, and the series' shape: its tip, its
        topics, which must cover it in order, and the ids of the tests."""
        tree.deps(list(arches.rows()) + [f"{a}-clang" for a in arches.of_target("all")],
                  extra=("sparse",))
        tree.tree()
        self.dir.mkdir(parents=True, exist_ok=True)
        env.RESULTS.mkdir(parents=True, exist_ok=True)
        self.tip = tree.git("rev-parse", "HEAD")
        count, cover = tree.git("rev-list", "--count", "pristine..HEAD"), topics()
        if not covers(cover, int(count)):
            die("check: the cover letter's topics ('Topic N, ... (patches A-B') do not cover "
                f"patches 1-{count} in order: {' '.join(f'{a} {b}' for a, b in cover)}")
        self.tests_first, self.last = cover[-1]
        revs = tree.git("rev-list", "--reverse", "pristine..HEAD").split()
        self.tests = [patch_id(c) for c in revs[self.tests_first - 1:]]

    def start(self):
        """The earlier check's lines kept aside (old). Resumed (N > 1): what
        the current topic built so far, for its boot, and the lines of the
        patches before the Nth (results/check.tsv is committed: a resume on
        a fresh machine has them too)."""
        self.tsv.touch()
        shutil.copyfile(self.tsv, self.old)
        self.this.write_text("")
        if self.first <= 1:
            return
        old = rows(self.old)
        for a, b in topics():
            if a <= self.first <= b:
                self.built += [cfg for r in old if a <= r.n < self.first
                               and not r.result.startswith("boot") and r.result != "build"
                               for cfg in r.configs.split()]
        append(self.this, *(r.line for r in old if r.n < self.first))

    def patches(self):
        """Every patch from the first on (without N: only those whose line is
        missing, failed, or of another patch text, its id), and the ends of
        topics, whose boots the patches checked again affect."""
        for n, c in enumerate(tree.git("rev-list", "--reverse", "pristine..HEAD").split(), 1):
            pid = patch_id(c)
            self.ids.append(pid)
            if n < self.first:
                continue
            t0, res = int(time.time()), "ok"
            # Every patch's message and diff, also of one checked before.
            if not checkpatch_one(c):
                res, self.bad = "checkpatch", True
            row = self.old_row(pid)
            if row and not self.given and res == "ok":
                say(f"[{n}/{self.last}] {tree.git('log', '-1', '--format=%h %s', c)}: "
                    f"checkpatch-clean; built as {pid} before, unchanged")
                append(self.this, row.renumbered(n))
                self.built += row.configs.split()
            else:
                self.patch(n, c, pid, t0, res)
            if n < self.tests_first and topic_end(n):
                if not self.check_topic_boot(n, boot_id(*self.ids, *self.tests),
                                             self.topic_done, self.built):
                    self.bad = True
                self.built, self.topic_done = [], ""
            self.check_tsv_keep(n)

    def old_row(self, pid):
        """The earlier check's Row of the patch PID that passed: by id
        wherever it stood (a patch inserted before it renumbers a patch,
        not changes it)."""
        return next((r for r in rows(self.old) if r.result == "ok" and r.id == pid), None)

    def patch(self, n, c, pid, t0, res):
        """Patch N, commit C of id PID, built where it touches, its warnings
        held against its parent's; its line (RES: checkpatch's)."""
        self.topic_done = "changed"
        say(f"[{n}/{self.last}] {tree.git('log', '-1', '--format=%h %s', c)}")
        names = tree.git("diff-tree", "--no-commit-id", "--name-only", "-r", c)
        files = names.split("\n") if names else []
        # What the patch offers (a builtins select) counts: at the patch.
        # A patch that touches no file builds as generic code would.
        tree.git("checkout", "-q", c)
        cfgs = patch_configs(files or [""])
        tree.git("checkout", "-q", f"{c}^")
        for cfg in cfgs:
            before = self.dir / f"{cfg}.before"
            before.unlink(missing_ok=True)
            if (self.dir / cfg).is_dir():
                before.write_text("".join(f"{w}\n" for w in check_warnings(cfg, files)))
        tree.git("checkout", "-q", c)
        for cfg in cfgs:
            res = self.build(cfg, files, c) or res
        append(self.this, f"{n}\t{int(time.time()) - t0}\t{' '.join(cfgs) or '-'}\t{res}\t{pid}")

    def build(self, cfg, files, c):
        """CFG built at commit C, the new warnings in FILES; what the patch's
        result becomes (None: it stays)."""
        d = self.dir
        if check_build(cfg):
            say(f"  {cfg}: build FAILED (log: {d}/{cfg}.log)")
            self.bad = True
            return "build"
        (d / f"{cfg}.after").write_text("".join(f"{w}\n" for w in check_warnings(cfg, files)))
        (d / f"{cfg}.before").touch()
        new = new_warnings(d / f"{cfg}.before", d / f"{cfg}.after", c)
        self.built.append(cfg)
        if new:
            say(f"  {cfg}: builds, new warnings:")
            for w in new:
                say(f"    {w}")
            self.bad = True
            return "warnings"
        say(f"  {cfg}: builds, no new W=1 or sparse warning in the files it touches")
        return None

    def check_tsv_keep(self, n):
        """results/check.tsv: this check's lines up to patch N, then, before
        the series' last patch, the earlier check's whose id none of these
        has: the patches still to come, wherever they stood."""
        text = self.this.read_text()
        if n < self.last:
            seen = {r.id for r in rows(self.this)}
            text += "".join(f"{r.line}\n" for r in rows(self.old) if r.id not in seen)
        new = Path(f"{self.tsv}.new")
        new.write_text(text)
        new.replace(self.tsv)

    def check_topic_boot(self, n, id, changed, configs):
        """At topic end N, the tests topic (tests_first to the tip) picked on
        top, the suites booted on each of CONFIGS built (a builtins one only
        where it needs its own compiler: every boot tests both implementations).
        Unless CHANGED, a configuration whose boot passed with ID in the earlier
        check keeps its line instead, so that an interrupted check loses no
        boot but the one it was in. Whether all booted."""
        todo, old = [], rows(self.old)
        # A patch that built nothing has "-" for its configurations.
        for cfg in dict.fromkeys(c.removesuffix("-builtins") for c in configs):
            if cfg in ("", "-") or \
                    arches.rows().get(arches.arch_of(cfg), {}).get("target") == "compile":
                continue
            booted = [] if changed else [
                r.line for r in old
                if r.n == n and r.configs == cfg and r.result == "boot ok" and r.id == id]
            if booted:
                append(self.this, *booted)
            else:
                todo.append(cfg)
        if not todo:
            say(f"[{n}] end of a topic: booted as {id} before, unchanged")
            return True
        say(f"[{n}] end of a topic: the suites of patches {self.tests_first}-on on top, "
            f"booted on{''.join(' ' + c for c in todo)}")
        # At patch N: a check that kept patch N's line did not check it out.
        revs = tree.git("rev-list", "--reverse", f"pristine..{self.tip}").split()
        tree.git("checkout", "-q", "--detach", revs[n - 1])
        pick = self.dir / "pick.log"
        if env.run(["git", "-C", env.TREE, "cherry-pick",
                    f"{revs[self.tests_first - 1]}^..{self.tip}"], log=pick):
            env.run(["git", "-C", env.TREE, "cherry-pick", "--abort"],
                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            say(f"  the tests do not apply on patch {n} (log: {pick})")
            return False
        ok = True
        for cfg in todo:
            ok = self.boot(n, cfg, id) and ok
        return ok

    def boot(self, n, cfg, id):
        """The suites booted on CFG at topic end N; its line, of id ID."""
        t0, res = int(time.time()), "ok"
        log = self.dir / f"{cfg}.boot.log"
        done = re.search(r"Testing complete.*", read(log)) if check_boot(cfg) == 0 else None
        if done:
            say(f"  {cfg}: {done[0]}")
        else:
            say(f"  {cfg}: FAILED (log: {log})")
            res = "FAILED"
        append(self.this, f"{n}\t{int(time.time()) - t0}\t{cfg}\tboot {res}\t{id}")
        self.check_tsv_keep(n)
        return res == "ok"


def compile_suite(arch):
    """The suites compiled with W=1 for ARCH: without a warning, and without
    a call to a primitive of a size the architecture lacks (an undefined
    __*_bad_pointer or __*_wrong_size: a link error). Whether so."""
    cross, args = arches.cross(arch), arches.arch_args(arch)
    d = env.WORK / "build" / f"compile-{arch}"
    log = Path(f"{d}.log")
    d.mkdir(parents=True, exist_ok=True)
    clean = env.run(["python3", env.TREE / "tools/testing/kunit/kunit.py", "config",
                     *arches.build_args(args),
                     f"--kunitconfig={env.TREE / 'lib/atomic_kunit.kunitconfig'}",
                     f"--build_dir={d}"], log=log) == 0 and \
        env.run(["make", "-s", "-C", env.TREE, f"O={d}", f"ARCH={arches.karch(arch)}",
                 f"CROSS_COMPILE={cross}", "W=1", *arches.make_options(args),
                 f"-j{env.NPROC}", *env.SUITE_OBJS], log=log, append=True) == 0 and \
        not print_matching(r"lib/atomic_[a-z_]*\.[ch]:.*(warning|error):", read(log)) and \
        not undefined_calls(d, cross)
    if clean:
        say(f"  {arch}: the suites compile")
    else:
        say(f"  {arch}: the suites do not compile cleanly (log: {log})")
    return clean


def print_matching(pattern, text):
    """The lines of TEXT that PATTERN matches, printed; whether any."""
    found = [line for line in lines(text) if re.search(pattern, line)]
    print("".join(f"{line}\n" for line in found), end="", flush=True)
    return bool(found)


def undefined_calls(d, cross):
    """Whether the suites' objects in D call an undefined __*_bad_pointer,
    __*_wrong_size or *_not_implemented (the calls printed); none where nm
    fails."""
    sys.stdout.flush()
    try:
        nm = subprocess.run([f"{cross}nm", "-u", *env.SUITE_OBJS], cwd=d, stdout=subprocess.PIPE,
                            text=True, errors="replace")
    except OSError:
        return False
    return print_matching("bad_pointer|wrong_size|not_implemented", nm.stdout) \
        and nm.returncode == 0


def compile_suites():
    """compile_suite for each architecture of make test-arches and of target
    compile (sh); whether all are clean."""
    return all([compile_suite(a) for a in arches.of_target("arches") + arches.of_target("compile")])


def atomics_listed():
    """Every operation of scripts/atomic/atomics.tbl, from which the kernel
    generates the atomics, has a row in lib/atomic_kunit_ops.h, the list the
    value suite's wrappers and cases come from. Whether so."""
    ops = [line.split()[0] for line in tree_lines("scripts/atomic/atomics.tbl")
           if not line.startswith("#") and line.split()]
    listed = read(env.TREE / "lib/atomic_kunit_ops.h")
    missing = [op for op in ops
               if not re.search(rf"^ATOMIC(_TRY)?\({re.escape(op)},", listed, re.M)]
    if missing:
        say(f"  lib/atomic_kunit_ops.h does not list:{''.join(' ' + op for op in missing)}")
        return False
    say("  lib/atomic_kunit_ops.h lists every operation of scripts/atomic/atomics.tbl")
    return True


def check(first=None):
    """make check (check [N]): every patch as a maintainer applies it, those
    whose id has no line in results/check.tsv that passed (N: from the Nth
    on), their topics' boots, then the series; dies if any is not clean."""
    started = int(time.time())
    first = "" if first is None else str(first)
    if first == "0" or not re.fullmatch("[0-9]*", first):
        die("check: N is a patch number (1 is the first)")
    run = Check(first)
    run.prepare()
    try:
        run.start()
        run.patches()
        tree.git("checkout", "-q", "katomic")
        say("the series: the suites on more architectures, the list of atomics")
        ok = all([compile_suites(), atomics_listed()])
        say(f"per patch: {run.tsv}; {int(time.time()) - started} s in all")
        if run.bad or not ok:
            die("some patches are not clean, do not build, warn or fail")
        say("every patch is checkpatch-clean, builds without a new warning, and each topic "
            "passes the suites")
    finally:
        env.run(["git", "-C", env.TREE, "checkout", "-q", "-f", "katomic"])
