# SPDX-License-Identifier: GPL-2.0
"""The kernel tree (make tree, reset, export) and what builds it (make
deps): Debian's linux-source-6.12 unpacked into env.TREE, a git repository
whose tag pristine is the tarball and whose branch katomic carries
patches/ on top. env.STATE says what the tree was made of: lines
tarball=, series= and head= (the commit that applying the series left)."""

import hashlib
import os
import re
import subprocess

from . import arches, env
from .env import die, say

COVER = "0000-cover-letter.patch"


def installed(package):
    """Whether dpkg has PACKAGE installed."""
    try:
        r = subprocess.run(["dpkg-query", "-W", "-f=${Status}", package],
                           capture_output=True, text=True)
    except OSError:
        return False
    return "ok installed" in r.stdout


def deps(configs=(), extra=()):
    """Installs env.PACKAGES, EXTRA and the packages of CONFIGS (their
    architectures' and fragments'); with none named, every architecture's.
    Then the GCC plugins of their architectures."""
    configs = list(configs) or list(arches.rows())
    wanted = list(env.PACKAGES) + list(extra)
    for c in configs:
        if arches.arch_of(c) not in arches.rows():
            die(f"deps: unknown architecture in '{c}'")
        wanted += arches.field(arches.arch_of(c), "packages").replace(",", " ").split()
        for f in arches.fragments(c):
            wanted += arches.FRAGMENT_PACKAGES.get(f, [])
    missing = [p for p in dict.fromkeys(wanted) if not installed(p)]
    if missing:
        say(f"installing: {' '.join(missing)}")
        if os.geteuid() != 0:
            die(f"need root to apt-get install {' '.join(missing)}")
        os.environ["DEBIAN_FRONTEND"] = "noninteractive"
        if env.run(["apt-get", "update", "-q"], stdout=subprocess.DEVNULL):
            die("apt-get update failed")
        if env.run(["apt-get", "install", "-y", "-q", "--no-install-recommends", *missing],
                   stdout=subprocess.DEVNULL):
            die(f"apt-get install failed for: {' '.join(missing)}")
    for c in configs:
        gcc_plugins(arches.arch_of(c))


def newer(a, b):
    """Whether A exists and B does not, or A was modified later."""
    try:
        mtime = os.stat(a).st_mtime_ns
    except OSError:
        return False
    try:
        return mtime > os.stat(b).st_mtime_ns
    except OSError:
        return True


def gcc_plugins(arch):
    """The GCC plugins ARCH's kunit column names as -fplugin=@PLUGINS@/NAME.so,
    each built once from scripts/NAME.cc against the row's cross compiler."""
    for name in re.findall(r"@PLUGINS@/([a-z0-9_]*)\.so", arches.field(arch, "kunit")):
        src, so = env.SCRIPTS / f"{name}.cc", env.WORK / "plugins" / f"{name}.so"
        if newer(so, src):
            continue
        say(f"building the GCC plugin {name} for {arch}")
        gcc = f"{arches.cross(arch)}gcc"
        try:
            inc = env.output([gcc, "-print-file-name=plugin"]).rstrip("\n") + "/include"
        except OSError as e:
            die(f"{gcc}: {e.strerror}")
        (env.WORK / "plugins").mkdir(parents=True, exist_ok=True)
        if env.run(["g++", "-std=gnu++17", "-O2", "-fPIC", "-shared", "-fno-rtti", f"-I{inc}",
                    src, "-o", f"{so}.tmp"]):
            die(f"the GCC plugin {name} does not build against {inc}")
        os.replace(f"{so}.tmp", so)


def patch_files():
    """patches/*.patch in order, without hidden files (an editor's)."""
    return sorted(p for p in (env.REPO / "patches").glob("*.patch") if not p.name.startswith("."))


def series():
    """The series' patches in order, without the cover letter."""
    return [p for p in patch_files()
            if p.name[0] in "0123456789" and not p.name.startswith("0000-")]


def series_id():
    """The series' identity: its patches' hash, 16 hex digits."""
    h = hashlib.sha256()
    for p in series():
        h.update(p.read_bytes())
    return h.hexdigest()[:16]


def tarball_id():
    """The tarball's identity: its path, size and modification time in
    seconds ("" if there is none)."""
    try:
        st = os.stat(env.TARBALL)
    except OSError:
        return ""
    return f"{env.TARBALL} {st.st_size} {st.st_mtime_ns // 10**9}"


def state(key):
    """KEY's value in env.STATE, "" if none."""
    for line in env.lines(env.read(env.STATE)):
        if line.startswith(f"{key}="):
            return line.removeprefix(f"{key}=")
    return ""


def git_at(where, *args):
    """git -C WHERE ARGS' output without its trailing newlines; their
    failure stops the harness."""
    return env.output(["git", "-C", where, *args]).rstrip("\n")


def git(*args):
    """git ARGS in the tree (git_at)."""
    return git_at(env.TREE, *args)


def git_ok(*args):
    """Whether git ARGS succeed in the tree, their output dropped."""
    return env.run(["git", "-C", env.TREE, *args], stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL) == 0


def ident():
    """The tree's commits are authored and committed by the repository's
    git user.name and user.email."""
    who = {}
    for key in ("name", "email"):
        r = subprocess.run(["git", "-C", str(env.REPO), "config", f"user.{key}"],
                           capture_output=True, text=True)
        if r.returncode:
            die(f"set git user.{key} in {env.REPO}")
        who[key] = r.stdout.rstrip("\n")
    for role in ("AUTHOR", "COMMITTER"):
        os.environ[f"GIT_{role}_NAME"] = who["name"]
        os.environ[f"GIT_{role}_EMAIL"] = who["email"]


def kernelversion(where):
    """make -s -C WHERE kernelversion: (its exit status, its output)."""
    r = subprocess.run(["make", "-s", "-C", str(where), "kernelversion"], text=True,
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    return r.returncode, r.stdout.rstrip("\n")


def tree_version():
    """The tree's Linux version ("" if make cannot tell)."""
    return kernelversion(env.TREE)[1]


def unpack():
    """A new tree: the tarball unpacked and committed as pristine on the
    branch katomic; env.STATE names the tarball only (no series applied)."""
    tmp = env.WORK / "linux.unpacking"
    if not os.access(env.TARBALL, os.R_OK):
        die(f"{env.TARBALL} not found: run 'make deps'")
    if env.run(["rm", "-rf", tmp, env.TREE, env.STATE]):
        die(f"cannot remove {env.TREE}")
    tmp.mkdir(parents=True)
    say(f"unpacking {env.TARBALL} (about 1.5 minutes)")
    if env.run(["tar", "-xJf", env.TARBALL, "-C", tmp, "--strip-components=1"]):
        die(f"cannot unpack {env.TARBALL}")
    rc, v = kernelversion(tmp)
    if rc:
        die(f"{env.TARBALL} does not hold a kernel tree")
    if not v.startswith("6.12."):
        die(f"{env.TARBALL} is Linux {v}; the series targets 6.12")
    say(f"committing pristine Linux {v}")
    git_at(tmp, "init", "-q", "-b", "katomic")
    # Debian's top-level .gitignore ends with '/*': force-add everything.
    git_at(tmp, "add", "-A", "-f")
    git_at(tmp, "commit", "-q", "-m", f"Debian linux-source {v} (pristine)")
    git_at(tmp, "tag", "pristine")
    tmp.rename(env.TREE)
    env.STATE.write_text(f"tarball={tarball_id()}\n")


def apply_series():
    """The tree reset to pristine, patches/ applied (git am) and the cover
    letter made the branch's description; env.STATE says so."""
    git_ok("am", "--abort")
    git("reset", "-q", "--hard", "pristine")
    git("clean", "-q", "-fdx")
    env.STATE.write_text(f"tarball={tarball_id()}\n")
    patches = series()
    for p in patches:
        if not git_ok("am", "-q", "--keep-cr", p):
            git_ok("am", "--abort")
            die(f"patch {p.name} does not apply to Linux {tree_version()} in {env.TREE}")
    cover_to_description()
    applied = f"series={series_id()}\nhead={git('rev-parse', 'HEAD')}\n"
    with open(env.STATE, "a") as f:
        f.write(applied)
    say(f"applied {len(patches)} patches onto Linux {tree_version()}")


def cover_subject(cover):
    """The subject of the cover letter's lines COVER without [PATCH ...],
    unfolded (format-patch wraps a long one); None unless a line follows
    it."""
    s = None
    for line in cover:
        if line.startswith("Subject: "):
            s = re.sub(r"^Subject: \[PATCH[^]]*\] ", "", line, count=1)
        elif s is not None and line[:1] in (" ", "\t"):
            s += re.sub(r"^[ \t]+", " ", line, count=1)
        elif s is not None:
            return s
    return None


def cover_blurb(cover):
    """The cover letter's blurb: its lines after the headers, up to the
    shortlog's first author ("Name (N):"), the blank ones at its end
    trimmed."""
    out, body = [], False
    for line in cover:
        if body and re.search(r" \([0-9]+\):$", line):
            break
        if body:
            out.append(line)
        if line == "" and not body:
            body = True
    while out and out[-1] == "":
        out.pop()
    return out


def cover_to_description():
    """The cover letter's subject and blurb as the branch's description
    (and WORK/cover.txt), so that export regenerates the shortlog and
    diffstat around them."""
    c = env.REPO / "patches" / COVER
    if not c.is_file():
        return
    cover = env.lines(c.read_bytes().decode("utf-8", "surrogateescape"))
    subject = cover_subject(cover)
    text = "".join(f"{x}\n" for x in ([] if subject is None else [subject]) + [""]
                   + cover_blurb(cover))
    (env.WORK / "cover.txt").write_bytes(text.encode("utf-8", "surrogateescape"))
    git("config", "branch.katomic.description", text.rstrip("\n"))


def tree():
    """make tree: the tree unpacked where there is none or the tarball
    changed, patches/ applied where the series changed; a tree with work not
    in patches/ is used as it is, unless patches/ changed too."""
    ident()
    env.WORK.mkdir(parents=True, exist_ok=True)
    if not (env.TREE / ".git").is_dir() or state("tarball") != tarball_id() \
            or not git_ok("rev-parse", "-q", "--verify", "pristine"):
        unpack()
    if not git_ok("symbolic-ref", "-q", "HEAD"):
        git("checkout", "-q", "katomic")
    head = git("rev-parse", "HEAD")
    dirty = git("status", "--porcelain", "--untracked-files=no")
    if not state("head"):
        apply_series()
    elif head == state("head") and not dirty:
        if state("series") != series_id():
            apply_series()
    elif state("series") == series_id():
        say(f"warning: {env.TREE} has work not in patches/ ('make export' keeps it);"
            " using the tree as it is")
    else:
        die(f"{env.TREE} has local work and patches/ changed too: 'make export' or 'make reset'")
    say(f"tree: {env.TREE} (Linux {tree_version()},"
        f" {git('rev-list', '--count', 'pristine..HEAD')} patches)")


def reset():
    """make reset: the tree's local work thrown away, patches/ re-applied."""
    ident()
    if not (env.TREE / ".git").is_dir():
        tree()
        return
    apply_series()


def dated(cover, date):
    """The cover letter COVER (bytes) with the Date: header DATE."""
    return re.sub(rb"^Date: .*", lambda m: b"Date: " + date, cover, count=1, flags=re.M)


def export():
    """make export: the tree's commits since pristine written back to
    patches/, the cover letter from the branch's description."""
    ident()
    if not (env.TREE / ".git").is_dir():
        die(f"no tree at {env.TREE}: run 'make tree' first")
    if git("status", "--porcelain", "--untracked-files=no"):
        die(f"{env.TREE} has uncommitted changes: commit them first")
    n = int(git("rev-list", "--count", "pristine..HEAD"))
    if n <= 0:
        die(f"no commits on top of 'pristine' in {env.TREE}")
    desc = ["--cover-from-description=subject"] \
        if git_ok("config", "branch.katomic.description") else []
    for p in patch_files():
        p.unlink()
    # --abbrev: the index lines' hashes at a fixed length; git's default
    # grows with the objects of the tree, and a series would export
    # differently from a fresh tree.
    git("format-patch", "-q", "--abbrev=9", "--cover-letter", *desc, "--zero-commit",
        "--no-signature", "--base=pristine", "-o", env.REPO / "patches", "pristine..HEAD")
    # The pristine commit is local: name the tarball instead of its hash.
    base = f"base-commit: Debian linux-source {tree_version()}".encode()
    for p in patch_files():
        p.write_bytes(re.sub(rb"^base-commit: .*", lambda m: base, p.read_bytes(), flags=re.M))
    # The cover letter is dated as the last patch, not now: an unchanged
    # series exports to the same files.
    cover = env.REPO / "patches" / COVER
    cover.write_bytes(dated(cover.read_bytes(), git("log", "-1", "--format=%aD").encode()))
    exported = f"tarball={tarball_id()}\nseries={series_id()}\nhead={git('rev-parse', 'HEAD')}\n"
    env.STATE.write_text(exported)
    say(f"exported {n} patches to patches/")
