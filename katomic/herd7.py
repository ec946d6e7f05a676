# SPDX-License-Identifier: GPL-2.0
"""herd7 in the harness: built from vendor/, run under the LKMM on the
tree's litmus tests and katomic's (make lkmm, and run before the first
configuration), on katomic's tests compiled against each built
configuration under its architecture's own model, on the audit's
self-test fixtures, and made to fail with a barrier weakened in the tree
(make mutate)."""

import contextlib
import glob
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from . import arches, audits, env, kbuild, litmus_arch, tree
from .env import die, say

MUTATIONS = "scripts/mutations.tsv"


def rm_rf(*paths):
    """PATHS removed, a directory with what it holds; a missing one is no
    error."""
    for p in paths:
        if os.path.isdir(p) and not os.path.islink(p):
            shutil.rmtree(p)
        elif os.path.lexists(p):
            os.unlink(p)


def prefixed(args, prefix="katomic: ", **kw):
    """ARGS run, each line of their output printed with PREFIX as it comes;
    KW: Popen's (stderr=subprocess.STDOUT: their errors too). Their exit
    status."""
    sys.stdout.flush()
    with subprocess.Popen([str(a) for a in args], stdout=subprocess.PIPE, **kw) as p:
        for line in p.stdout:
            sys.stdout.write(prefix + line.decode(errors="replace"))
            sys.stdout.flush()
    return p.returncode


def print_prefixed(path, prefix):
    """The file PATH printed, each line with PREFIX."""
    *lines, last = Path(path).read_text(errors="replace").split("\n")
    for line in lines:
        print(prefix + line)
    if last:
        print(prefix + last, end="")
    sys.stdout.flush()


def herd7():
    """The herd7 that herd_build builds."""
    return env.WORK / "herdtools7/bin/herd7"


def herd_build():
    """herd7 in WORK/herdtools7/bin, its models in share/herdtools7/herd, as
    herdtools7's make install lays them out: built once from HERDTOOLS
    (again when the tarball changes), herd7 alone, not the other tools."""
    d = env.WORK / "herdtools7"
    src, log = Path(f"{d}.src"), Path(f"{d}.log")
    ident = hashlib.sha256(env.HERDTOOLS.read_bytes()).hexdigest()[:16]
    try:
        built = (d / "source").read_text().rstrip("\n")
    except OSError:
        built = None
    if os.access(d / "bin/herd7", os.X_OK) and built == ident:
        return
    say(f"[herd7] build herd7 from vendor/ (log: {log})")
    rm_rf(d, src)
    for p in (src, d / "bin", d / "share/herdtools7"):
        p.mkdir(parents=True, exist_ok=True)
    # Every step but the unpacking runs in the source.
    steps = [(["tar", "-xzf", env.HERDTOOLS, "-C", src, "--strip-components=1"], None, None),
             (["sh", "./version-gen.sh", d], src, None),
             (["dune", "build", "-j", env.jobs, "--profile", "release", "herd/herd.exe"], src,
              env.BUILD_TIMEOUT),
             (["cp", "_build/default/herd/herd.exe", d / "bin/herd7"], src, None),
             (["cp", "-r", "herd/libdir", d / "share/herdtools7/herd"], src, None)]
    log.write_text("")
    for args, cwd, timeout in steps:
        if env.run(args, log=log, append=True, timeout=timeout, cwd=cwd):
            last = audits.tail(log, 3).replace("\n", " ")
            die(f"herd7 does not build: {last}")
    (d / "source").write_text(ident + "\n")
    rm_rf(src)


def litmus_objects(dir, cfg, objs):
    """katomic's litmus threads (WORK/litmus) as C in DIR, each of OBJS
    (litmus_asm.o, litmus_builtins.o) compiled on its implementation
    against CFG's kernel build (DIR/build.log). The exit status of make."""
    # Not checked: without the threads' C, make fails.
    env.module("litmus_arch", "c", env.WORK / "litmus", Path(dir, "litmus_threads.c"))
    for o in objs:
        impl = "BUILTINS" if o == "litmus_builtins.o" else "ARCH"
        Path(dir, o.removesuffix(".o") + ".c").write_text(
            f'#define ATOMIC_IMPL_{impl}\n#include "litmus_threads.c"\n')
    return kbuild.kmod_make(arches.arch_of(cfg), arches.build_dir(cfg), dir, objs,
                            arches.make_options(arches.config_args(cfg)))


def litmus_arch_one(cfg):
    """katomic's litmus tests on the code of the kernel build of CFG: their
    threads compiled against it on both implementations, as the audit's
    probes are, translated and run under the architecture's own model
    (katomic/litmus_arch.py). Writes results/CFG.litmus.{json,log}; the
    exit status of the check."""
    arch, bdir, dir = arches.arch_of(cfg), arches.build_dir(cfg), env.WORK / "litmus-arch" / cfg
    rm_rf(dir, *glob.glob(f"{glob.escape(str(env.RESULTS / cfg))}.litmus.*"))
    dir.mkdir(parents=True, exist_ok=True)
    if litmus_objects(dir, cfg, ["litmus_asm.o", "litmus_builtins.o"]):
        die(f"lkmm: the litmus threads do not build against {bdir} (log: {dir}/build.log)")
    say(f"[{cfg}] katomic's litmus tests on its code, under {arch}'s own model")
    # The translated tests stay in the work directory: results/ holds files.
    # Held against the audit of the same build, which run makes just
    # before (make lkmm: the last run's, if any).
    audit = env.RESULTS / f"{cfg}.audit.json"
    log = env.RESULTS / f"{cfg}.litmus.log"
    rc = env.module("litmus_arch", "check", "--cache", env.WORK / f"litmus/herd-cache.{cfg}.json",
                    "--kconfig", bdir / ".config", "--tests", dir / "tests",
                    *(["--audit", audit] if audit.is_file() else []),
                    arch, arches.cross(arch), herd7(), env.WORK / "litmus",
                    env.RESULTS / f"{cfg}.litmus.json", dir / "litmus_asm.o",
                    dir / "litmus_builtins.o", log=log)
    print_prefixed(log, f"katomic: [{cfg}] ")
    return rc


def translators():
    """The architectures katomic/litmus_arch.py translates (its --arches)."""
    return [a for a, x in litmus_arch.ARCHES.items() if not x.get("partial")]


def has_litmus_arch(cfg):
    """Whether make test-all checks CFG's code under its architecture's own
    model: an audited configuration of an architecture with a translator."""
    return audits.audited(cfg) and arches.arch_of(cfg) in translators()


def fixtures_herd(configs):
    """The audit's self-test fixtures under the models of the CONFIGS'
    architectures that have one (katomic/litmus_fixtures.py): herd7 must
    judge each as the audit's self-test expects; dies otherwise.
    results/litmus-fixtures.*"""
    sel = sorted({arches.arch_of(c) for c in configs if has_litmus_arch(c)})
    if not sel:
        return
    say(f"the audit's self-test fixtures under herd7: {' '.join(sel)}")
    if prefixed(["python3", "-m", "katomic.litmus_fixtures", herd7(),
                 env.RESULTS / "litmus-fixtures.json", *sel], stderr=subprocess.STDOUT):
        die("herd7 judges an audit self-test fixture otherwise than the audit's self-test "
            "(results/litmus-fixtures.md)")


def globbed(pattern):
    """PATTERN's files, sorted; PATTERN itself where none matches, so that
    lkmm.py fails on tests gone missing rather than checks fewer."""
    return sorted(glob.glob(pattern)) or [pattern]


def lkmm_side():
    """The LKMM side: katomic's litmus tests written to WORK/litmus, herd7's
    verdict under the LKMM on them and on the tree's held against each
    test's "Result:" (results/lkmm.{md,json}), and the booted suite's tests,
    lib/atomic_litmus_tests.h, the output of katomic/litmus_kunit.py on
    them. True when all of it agrees."""
    bad = False
    litmus = env.WORK / "litmus"
    say("herd7 under the LKMM: the tree's litmus tests and katomic's")
    prefixed(["python3", "-m", "katomic.litmus", env.TREE, litmus])
    if prefixed(["python3", "-m", "katomic.lkmm", "--macros", litmus / "katomic.def", herd7(),
                 env.TREE, env.RESULTS / "lkmm",
                 *globbed(f"{env.TREE}/tools/memory-model/litmus-tests/*.litmus"),
                 *globbed(f"{env.TREE}/Documentation/litmus-tests/*/*.litmus"),
                 *globbed(f"{litmus}/*.litmus")]):
        bad = True
    with open(litmus / "kunit.h", "w") as f:
        env.module("litmus_kunit", env.TREE, litmus, stdout=f)
    with open(litmus / "kunit.diff", "w") as f:
        differs = env.run(["diff", "-u", env.TREE / "lib/atomic_litmus_tests.h",
                           litmus / "kunit.h"], stdout=f)
    if differs:
        say(f"lib/atomic_litmus_tests.h is not katomic/litmus_kunit.py's output "
            f"({litmus}/kunit.diff)")
        bad = True
    else:
        n = sum(line.startswith('\t{ "')
                for line in (litmus / "kunit.h").read_text(errors="replace").split("\n"))
        say(f"lib/atomic_litmus_tests.h: the booted suite's {n} litmus tests, "
            "generated from these")
    return not bad


def litmus_arch_table(configs):
    """results/litmus-arch.md, which the repository keeps, from the herd7
    checks of those CONFIGS that ran. Its failure stops the harness."""
    files = [env.RESULTS / f"{c}.litmus.json" for c in configs
             if (env.RESULTS / f"{c}.litmus.json").is_file()]
    if not files:
        return
    with open(env.RESULTS / "litmus-arch.md", "w") as f:
        rc = env.module("litmus_arch", "summary", "--series", tree.series_id(), *files, stdout=f)
    if rc:
        raise SystemExit(rc)


def lkmm():
    """make lkmm: the LKMM side, then the architecture side on the
    configurations of make test-all that are built and have a translator."""
    bad = False
    tree.deps(["s390x"])
    tree.tree()
    herd_build()
    env.RESULTS.mkdir(parents=True, exist_ok=True)
    if not lkmm_side():
        bad = True
    done = []
    for c in arches.configs():
        if not has_litmus_arch(c):
            continue
        if not (arches.build_dir(c) / "vmlinux").is_file():
            say(f"[{c}] not built (make test-all builds it): its code is not checked")
        else:
            if litmus_arch_one(c):
                bad = True
            done.append(env.RESULTS / f"{c}.litmus.json")
    if not done:
        die("lkmm: no configuration of make test-all with a translator is built: the "
            "architecture side checked nothing (make test-all runs it too)")
    litmus_arch_table(arches.configs())
    if bad:
        die("herd7 found what the LKMM forbids, or a test failed (results/lkmm.md, "
            "results/CONFIG.litmus.log)")


def header(series):
    """The head of results/litmus-mutations.md, of the tree's SERIES."""
    return ["# herd7's check and the audit made to fail", "", f"Series {series}", "",
            "Each row weakens one barrier; the litmus tests the LKMM forbids, compiled with it, "
            "must show a violation in the row's code under the architecture's model, and the "
            "machine-code audit of the same build must fail some of the code's functions "
            "(`make mutate`, scripts/mutations.tsv). Judged differently: primitives whose tests "
            "ran that one checker passes and the other fails.", "",
            "| configuration | code | taken away | file | herd7 violations | audit fails "
            "| judged differently | result | tests, for example |",
            "|---|---|---|---|---:|---:|---:|---|---|"]


def mutations(text):
    """The rows of scripts/mutations.tsv's TEXT: (config, code, file, from,
    to, why), FROM's and TO's \\t a tab. Tabs separate the fields, a run of
    them as one, those at either end of a line as none; the last field
    takes the rest of the line. A row ends with its newline (a last line
    without one is none); comments and blank lines are skipped."""
    rows = []
    for line in text.split("\n")[:-1]:
        f = re.split(r"\t+", line.strip("\t"), maxsplit=5)
        f += [""] * (6 - len(f))
        if not f[0] or f[0].startswith("#"):
            continue
        f[3], f[4] = f[3].replace("\\t", "\t"), f[4].replace("\\t", "\t")
        rows.append(tuple(f))
    return rows


def mutated(path, old, new):
    """OLD, which must occur once in the file PATH, replaced by NEW; False,
    and why on stderr, when it does not occur once."""
    with open(path) as f:
        text = f.read()
    if text.count(old) != 1:
        print(f"mutate: {path}: {old!r} occurs {text.count(old)} times, not once",
              file=sys.stderr, flush=True)
        return False
    with open(path, "w") as f:
        f.write(text.replace(old, new))
    return True


@contextlib.contextmanager
def quiet():
    """Our standard output, and that of what we run, to /dev/null."""
    sys.stdout.flush()
    saved = os.dup(1)
    try:
        with open(os.devnull, "w") as null, contextlib.redirect_stdout(null):
            os.dup2(null.fileno(), 1)
            yield
    finally:
        os.dup2(saved, 1)
        os.close(saved)


def verdicts(out, code, audit_file):
    """What a mutation did to CODE: herd7's violations in it (OUT, of
    litmus_arch.py check), the functions of the code that the audit
    (AUDIT_FILE) fails ("none": no audit), the primitives the two judge
    differently, and some tests that fail."""
    r = json.loads(Path(out).read_text())
    impl = code.split("+")[0]
    bad = sorted(t["test"] for t in r["tests"] if t["code"] == code and t["violation"])
    try:
        audit = [a for a in json.loads(Path(audit_file).read_text())["ordering"]
                 if a["impl"] == impl]
    except OSError:
        audit = []
    fails = sum(a["verdict"] == "fail" for a in audit)
    tests = [t for t in r["tests"] if t["code"] == code]
    split = litmus_arch.agreement(litmus_arch.crosscheck(audit, tests))["disagree"]
    return (len(bad), fails if audit else "none", len(split),
            " ".join(bad[:3]) + (" ..." if len(bad) > 3 else ""))


def weakened(n, cfg, code, file, old, new):
    """Row N's barrier weakened in the tree (OLD to NEW in FILE), the litmus
    threads of CODE and the audit's probes compiled with it against CFG's
    build in WORK/mutate/N, the file put back at once, also when that
    fails."""
    arch, dir, bdir = arches.arch_of(cfg), env.WORK / "mutate" / str(n), arches.build_dir(cfg)
    path, orig = f"{env.TREE}/{file}", dir / "orig"
    if env.run(["cp", "-p", path, orig]):
        raise SystemExit(1)
    try:
        if not mutated(path, old, new):
            die(f"mutate: row {n} no longer applies to the tree ({MUTATIONS})")
        if litmus_objects(dir, cfg, [f"litmus_{code.split('+')[0]}.o"]):
            die(f"mutate: row {n}: the litmus threads do not build (log: {dir}/build.log)")
        # The audit of the same weakened code: it must fail it too.
        with quiet():
            audits.audit_build(arch, bdir, dir / f"mutate-{n}",
                               arches.make_options(arches.config_args(cfg)))
    finally:
        # cp -p: the kernel build never saw the change, and stays valid.
        restored = env.run(["cp", "-p", orig, path]) == 0
    if not restored:
        raise SystemExit(1)


def mutate_row(n, cfg, code, file, old, new, why):
    """Row N of scripts/mutations.tsv, herd7's check of the weakened code
    and the audit's verdicts: its line of the table, and whether both
    caught it."""
    arch, dir, bdir = arches.arch_of(cfg), env.WORK / "mutate" / str(n), arches.build_dir(cfg)
    obj = dir / f"litmus_{code.split('+')[0]}.o"
    if not (bdir / "vmlinux").is_file():
        die(f"mutate: {cfg} is not built (make test-all builds it)")
    rm_rf(dir)
    dir.mkdir(parents=True)
    weakened(n, cfg, code, file, old, new)
    say(f"[{cfg}] {code} without {why}")
    # It fails on a violation, the point here.
    env.module("litmus_arch", "check", "--cache", env.WORK / f"litmus/herd-cache.{cfg}.json",
               "--kconfig", bdir / ".config", "--tests", dir / "tests", arch, arches.cross(arch),
               herd7(), env.WORK / "litmus", dir / "out.json", obj, log=dir / "check.log")
    # herd7's violations; the functions of the code the audit fails;
    # the primitives the two judge differently; some tests that fail.
    try:
        nv, na, nd, ex = verdicts(dir / "out.json", code, dir / f"mutate-{n}.audit.json")
    except Exception as e:  # whatever it is: out.json missing, cut short, not as expected
        print(f"{type(e).__name__}: {e}", file=sys.stderr, flush=True)
        die(f"mutate: row {n}: no result from litmus_arch.py (log: {dir}/check.log)")
    say(f"[{cfg}] {code}: herd7 {nv} violations, the audit fails {na} functions, "
        f"{nd} primitives judged differently; {ex}")
    caught = nv > 0 and na != "none" and na > 0
    res = "caught" if caught else "MISSED"
    return f"| {cfg} | {code} | {why} | {file} | {nv} | {na} | {nd} | {res} | {ex} |\n", caught


def mutate():
    """make mutate: the herd7 check made to fail, a row of
    scripts/mutations.tsv at a time. The row's barrier is weakened in the
    tree, the litmus threads compiled with it against the row's built
    configuration, the file put back at once, and litmus_arch.py must find
    a violation in the row's code, the audit fail some of its functions.
    Writes results/litmus-mutations.md."""
    tree.deps(["s390x"])
    tree.tree()
    herd_build()
    env.RESULTS.mkdir(parents=True, exist_ok=True)
    rc = env.module("litmus", env.TREE, env.WORK / "litmus", stdout=subprocess.DEVNULL)
    if rc:
        raise SystemExit(rc)
    md = env.RESULTS / "litmus-mutations.md"
    new = Path(f"{md}.new")
    new.write_text("\n".join(header(tree.series_id())) + "\n")
    bad = False
    for n, row in enumerate(mutations((env.REPO / MUTATIONS).read_text()), 1):
        line, caught = mutate_row(n, *row)
        with open(new, "a") as f:
            f.write(line)
        bad = bad or not caught
    os.replace(new, md)
    if not same_file(env.REPO / "results", env.RESULTS):
        shutil.copyfile(md, env.REPO / "results" / md.name)
    if bad:
        die(f"mutate: herd7's check missed a weakened barrier ({md})")
    say(f"mutate: every weakened barrier found ({md})")


def same_file(a, b):
    """Whether A and B are the same file (both exist)."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False
