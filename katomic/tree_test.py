# SPDX-License-Identifier: GPL-2.0
"""The tree's bookkeeping: the GCC plugins built once, the cover letter
made the branch's description, and make tree, export and reset on a tiny
tree of a tarball made here (no kernel: a Makefile that says 6.12.57)."""

import io
import os
import subprocess
import tarfile
import tempfile
import unittest
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from unittest import mock

from . import env, tree

COVER = """\
From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001
From: A U Thor <a@example.org>
Date: Sat, 5 Dec 2026 06:39:57 +0000
Subject: [PATCH v2 00/46] katomic: the kernel's atomics on compiler builtins,
 \t selectable and tested

Blurb.
  Indented.

Second paragraph.


A U Thor (2):
  one
  two
"""


class GccPlugin(unittest.TestCase):
    def test_gcc_plugin(self):
        """sh's row names -fplugin=@PLUGINS@/sh_no_treg_combine.so: built
        once from scripts/ against the row's cross compiler; one that does
        not build stops with its name (g++ and the compiler stubbed out)."""
        built = []

        def gxx(args, **kw):
            built.append([str(a) for a in args])
            Path(args[-1]).touch()
            return 0
        with tempfile.TemporaryDirectory() as d, \
                mock.patch.object(env, "WORK", Path(d)), \
                mock.patch.object(env, "output", return_value="/plugin\n") as gcc, \
                mock.patch.object(env, "run", side_effect=gxx) as run, \
                redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()) as err:
            tree.gcc_plugins("sh")
            tree.gcc_plugins("sh")
            for p in Path(d, "plugins").iterdir():
                p.unlink()
            run.side_effect = None
            run.return_value = 1
            with self.assertRaises(SystemExit) as e:
                tree.gcc_plugins("sh")
        self.assertEqual(len(built), 1)  # the second call reuses it
        self.assertEqual(gcc.call_args.args[0], ["sh4-linux-gnu-gcc", "-print-file-name=plugin"])
        args = built[0]
        self.assertEqual(args[0], "g++")
        self.assertIn("-I/plugin/include", args)
        self.assertTrue(args[-3].endswith("/scripts/sh_no_treg_combine.cc"), args)
        self.assertEqual(args[-1], f"{d}/plugins/sh_no_treg_combine.so.tmp")
        self.assertEqual(e.exception.code, 1)
        self.assertIn("the GCC plugin sh_no_treg_combine does not build", err.getvalue())


class Deps(unittest.TestCase):
    def test_deps(self):
        """The packages everything needs, then EXTRA, then the
        configurations' rows' and fragments', each once, and only those
        missing; then the configurations' plugins (dpkg, apt-get stubbed)."""
        with mock.patch.object(tree, "installed", side_effect=lambda p: p != "clang-19"), \
                mock.patch.object(env, "run", return_value=0) as run, \
                mock.patch.object(tree, "gcc_plugins") as plugins, \
                mock.patch("os.geteuid", return_value=0), \
                mock.patch.dict(os.environ), redirect_stdout(io.StringIO()) as out:
            tree.deps(["s390x-clang", "x86_64-clang-kasan"], ["sparse"])
            self.assertEqual(os.environ["DEBIAN_FRONTEND"], "noninteractive")
        self.assertEqual(out.getvalue(), "katomic: installing: clang-19\n")
        self.assertEqual([c.args[0] for c in run.call_args_list],
                         [["apt-get", "update", "-q"],
                          ["apt-get", "install", "-y", "-q", "--no-install-recommends",
                           "clang-19"]])
        self.assertEqual([c.args for c in plugins.call_args_list], [("s390x",), ("x86_64",)])
        seen = []
        with mock.patch.object(tree, "installed", side_effect=lambda p: seen.append(p)), \
                mock.patch("os.geteuid", return_value=1000), \
                redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()) as err, \
                self.assertRaises(SystemExit):
            tree.deps()
        self.assertEqual(len(seen), len(set(seen)))
        self.assertEqual(seen[:len(env.PACKAGES)], env.PACKAGES)
        self.assertIn("gcc-12-plugin-dev-sh4-linux-gnu", seen)  # every row's
        self.assertIn("need root to apt-get install linux-source-6.12 ", err.getvalue())


class Tree(unittest.TestCase):
    """A repository with patches/, a work directory and a tarball, in a
    temporary directory; git's own configuration ignored."""

    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        d = Path(tmp.name)
        self.repo, work, tarball = d / "repo", d / "work", d / "linux.tar.xz"
        self.patches = self.repo / "patches"
        self.patches.mkdir(parents=True)
        for p in (mock.patch.dict(os.environ, GIT_CONFIG_GLOBAL="/dev/null",
                                  GIT_CONFIG_NOSYSTEM="1"),
                  mock.patch.multiple(env, REPO=self.repo, WORK=work, TREE=work / "linux",
                                      STATE=work / "tree.state", TARBALL=tarball)):
            p.start()
            self.addCleanup(p.stop)
        self.git("init", "-q", cwd=self.repo)
        self.git("config", "user.name", "A U Thor", cwd=self.repo)
        self.git("config", "user.email", "a@example.org", cwd=self.repo)
        src = d / "linux-source-6.12"
        src.mkdir()
        (src / "Makefile").write_text("kernelversion:\n\t@echo 6.12.57\n")
        (src / ".gitignore").write_text("/*\n")  # as Debian's ends
        (src / "a.c").write_text("int a;\n")
        with tarfile.open(tarball, "w:xz") as t:
            t.add(src, arcname=src.name)

    def git(self, *args, cwd=None):
        return subprocess.run(["git", *args], cwd=cwd or env.TREE, check=True,
                              capture_output=True, text=True).stdout

    def quiet(self, fn):
        """FN's output lines."""
        out = io.StringIO()
        with redirect_stdout(out):
            fn()
        return out.getvalue().splitlines()

    def commit(self, name, text, subject):
        Path(env.TREE, name).write_text(text)
        self.git("add", "-f", name)  # .gitignore ignores all
        self.git("commit", "-q", "-m", subject)

    def test_cover_to_description(self):
        """The subject unfolded without its [PATCH ...], the blurb up to the
        shortlog without the blank lines at its end."""
        self.quiet(tree.tree)
        (self.patches / tree.COVER).write_text(COVER)
        tree.cover_to_description()
        want = ("katomic: the kernel's atomics on compiler builtins, selectable and tested\n\n"
                "Blurb.\n  Indented.\n\nSecond paragraph.\n")
        self.assertEqual(Path(env.WORK, "cover.txt").read_text(), want)
        self.assertEqual(self.git("config", "branch.katomic.description"), want)

    def test_round_trip(self):
        """make tree on a new work directory unpacks and applies the (empty)
        series; export writes the commits and the description to patches/,
        the base and the cover letter's date fixed; reset applies them again
        and exports to the same files."""
        out = self.quiet(tree.tree)
        self.assertIn("katomic: committing pristine Linux 6.12.57", out)
        self.assertEqual(out[-1], f"katomic: tree: {env.TREE} (Linux 6.12.57, 0 patches)")
        self.assertEqual(self.git("ls-tree", "--name-only", "pristine").split(),
                         [".gitignore", "Makefile", "a.c"])  # .gitignore ignores them all
        self.commit("a.c", "int a = 1;\n", "a: one")
        self.commit("b.c", "int b;\n", "b: two")
        desc = ("katomic: a subject long enough that format-patch folds it, as the real one"
                " is folded\n\nThe blurb.\n\nIts second paragraph.")
        self.git("config", "branch.katomic.description", desc)
        self.assertEqual(self.quiet(tree.export), ["katomic: exported 2 patches to patches/"])
        files = {p.name: p.read_bytes() for p in self.patches.iterdir()}
        self.assertEqual(len(files), 3)
        cover = files[tree.COVER].decode()
        self.assertRegex(cover, r"\nSubject: \[PATCH 0/2\] katomic: a subject long enough"
                         r" [^\n]*\n [^\n]* is folded\n")  # folded: the description unfolds it
        self.assertIn("\nbase-commit: Debian linux-source 6.12.57\n", cover)
        date = self.git("log", "-1", "--format=%aD").strip()
        self.assertIn(f"\nDate: {date}\n", cover)
        head = self.git("rev-parse", "HEAD").strip()
        self.assertEqual(env.STATE.read_text(), f"tarball={tree.tarball_id()}\n"
                         f"series={tree.series_id()}\nhead={head}\n")
        self.assertRegex(tree.tarball_id(), rf"^{env.TARBALL} \d+ \d+$")
        self.assertEqual(self.quiet(tree.tree)[-1],
                         f"katomic: tree: {env.TREE} (Linux 6.12.57, 2 patches)")
        self.git("config", "--unset", "branch.katomic.description")
        self.commit("c.c", "int c;\n", "c: local")  # reset throws it away
        self.assertEqual(self.quiet(tree.reset), ["katomic: applied 2 patches onto Linux 6.12.57"])
        self.assertEqual(self.git("config", "branch.katomic.description"), desc + "\n")
        self.assertEqual(self.git("log", "--format=%s", "pristine..").split("\n"),
                         ["b: two", "a: one", ""])
        self.assertFalse(Path(env.TREE, "c.c").exists())
        self.quiet(tree.export)
        self.assertEqual({p.name: p.read_bytes() for p in self.patches.iterdir()}, files)

    def test_local_work(self):
        """A commit not in patches/ is used as it is, but not once patches/
        changed too; a tree reused as it was applies nothing."""
        self.quiet(tree.tree)
        self.assertEqual(self.quiet(tree.tree),
                         [f"katomic: tree: {env.TREE} (Linux 6.12.57, 0 patches)"])
        self.commit("a.c", "int a = 2;\n", "a: local")
        self.assertIn("has work not in patches/", self.quiet(tree.tree)[0])
        (self.patches / "0001-x.patch").write_text("changed\n")
        err = io.StringIO()
        with redirect_stderr(err), self.assertRaises(SystemExit):
            self.quiet(tree.tree)
        self.assertIn("has local work and patches/ changed too", err.getvalue())

    def test_not_6_12(self):
        with tarfile.open(env.TARBALL, "w:xz") as t:
            info = tarfile.TarInfo("linux/Makefile")
            data = b"kernelversion:\n\t@echo 6.6.1\n"
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))
        err = io.StringIO()
        with redirect_stderr(err), self.assertRaises(SystemExit):
            self.quiet(tree.tree)
        self.assertIn("is Linux 6.6.1; the series targets 6.12", err.getvalue())


if __name__ == "__main__":
    unittest.main()
