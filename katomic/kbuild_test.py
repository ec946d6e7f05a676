# SPDX-License-Identifier: GPL-2.0
"""katomic/kbuild.py: kunit.py's arguments, a boot's progress and its
QEMU watched (kunit.py and QEMU stubbed out); and the audit's count of a
sanitizer's calls (katomic/audits.py)."""

import contextlib
import io
import re
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path
from unittest import mock

from . import audits, env, kbuild


def stub_kunit(tree, body="import sys\nprint(*sys.argv[1:])\n"):
    """A kunit.py in TREE that runs BODY (by default: prints its
    arguments) instead of kunit.py."""
    kunit = Path(tree, "tools/testing/kunit")
    kunit.mkdir(parents=True)
    (kunit / "kunit.py").write_text(body)


class Kbuild(unittest.TestCase):
    def test_kernel_args_not_to_config(self):
        """The audit-only configuration and make report run kunit.py config
        on a row's arguments: x86_64's has --kernel_args, which config
        refuses (kunit.py stubbed out; make prepare then fails, unheard)."""
        with tempfile.TemporaryDirectory() as d, mock.patch.object(env, "TREE", Path(d)), \
                contextlib.redirect_stdout(io.StringIO()) as out:
            stub_kunit(d)
            rc = kbuild.prepare_build("x86_64", Path(d, "b"), Path(d, "config.log"))
            config = Path(d, "config.log").read_text().split("\n")[0].split()
        self.assertNotEqual(rc, 0)  # make prepare without a kernel tree
        self.assertEqual(config[0], "config")
        self.assertIn("--kconfig_add=CONFIG_ACPI=n", config)
        self.assertIn(f"--build_dir={d}/b", config)
        self.assertFalse([a for a in config if a.startswith("--kernel_args")])
        self.assertEqual(out.getvalue(), "katomic: [x86_64] kunit.py config\n"
                         "katomic: [x86_64] make prepare\n")

    def test_progress(self):
        """A boot's log keeps all that kunit.py prints; its stage lines are
        run's progress, printed as they come (the last one without its
        newline too)."""
        body = ("import sys, time\n"
                "print('[10:00:00] Building KUnit Kernel ...', flush=True)\n"
                "print('$ make all', flush=True)\n"
                "time.sleep(0.5)\n"
                "print(' '.join(sys.argv[1:]))\n"
                "print('[10:01:00] Testing complete. Ran 9 tests: passed: 9')\n"
                "print('Elapsed time: 60s', end='')\n")
        with tempfile.TemporaryDirectory() as d, mock.patch.object(env, "TREE", Path(d)), \
                mock.patch.object(kbuild, "WATCH_INTERVAL", 0.05), \
                contextlib.redirect_stdout(io.StringIO()) as out:
            stub_kunit(d, body)
            rc = kbuild.kunit_boot(["--arch=s390"], Path(d, "log"), Path(d, "b"),
                                   Path(d, "mark"), name="s390x")
            log = Path(d, "log").read_text()
            self.assertFalse(Path(d, "mark").exists())
        self.assertEqual(rc, 0)
        self.assertIn("$ make all\nrun --arch=s390\n", log)
        self.assertEqual(out.getvalue().splitlines(), [
            "katomic: [s390x] [10:00:00] Building KUnit Kernel ...",
            "katomic: [s390x] [10:01:00] Testing complete. Ran 9 tests: passed: 9",
            "katomic: [s390x] Elapsed time: 60s"])

    def test_watch_qemu(self):
        """A QEMU that outlives kunit.py's timeout (s390x's deadlocked
        reboot) is killed, and the run says so (pkill stubbed out: it kills
        the fake QEMU if its pattern matches its command line)."""
        with tempfile.TemporaryDirectory() as d:
            Path(d, "log").write_text("Command '...' timed out after 600 seconds\n")
            qemu = subprocess.Popen(
                ["bash", "-c", f'exec -a "qemu-system-fake -kernel {d}/b/bzImage" sleep 60'])
            calls = []

            def pkill(args, **kw):
                calls.append(args)
                cmdline = Path(f"/proc/{qemu.pid}/cmdline").read_bytes().replace(b"\0", b" ")
                if args[:3] != ["pkill", "-KILL", "-f"] or \
                        not re.search(args[3], cmdline.decode()):
                    return 1
                qemu.kill()
                return 0
            try:
                with mock.patch.object(env, "run", pkill), \
                        mock.patch.object(kbuild, "WATCH_INTERVAL", 0.05):
                    kbuild.watch_qemu(qemu, Path(d, "log"), Path(d, "b"), Path(d, "mark"))
            finally:
                qemu.kill()
                qemu.wait()
            self.assertEqual(calls[0], ["pkill", "-KILL", "-f", f"qemu-system-.* -kernel {d}/b/"])
            self.assertIn("was killed", Path(d, "mark").read_text())

    def test_watch_qemu_quiet(self):
        """A kunit.py that ends by itself kills nothing."""
        with tempfile.TemporaryDirectory() as d:
            Path(d, "log").write_text("[10:01:00] Testing complete. Ran 9 tests: passed: 9\n")
            proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(0.2)"])
            with mock.patch.object(env, "run") as run, \
                    mock.patch.object(kbuild, "WATCH_INTERVAL", 0.05):
                kbuild.watch_qemu(proc, Path(d, "log"), Path(d, "b"), Path(d, "mark"))
            run.assert_not_called()
            self.assertFalse(Path(d, "mark").exists())

    def test_offers_builtins(self):
        with tempfile.TemporaryDirectory() as d:
            self.assertFalse(kbuild.offers_builtins(d))
            Path(d, ".config").write_text("CONFIG_ARCH_SUPPORTS_ATOMIC_BUILTINS=y\n")
            self.assertFalse(kbuild.offers_builtins(d))
            Path(d, ".config").write_text("CONFIG_ARCH_SUPPORTS_ATOMIC_BUILTINS=y\n"
                                          "CONFIG_CC_HAS_CHECKED_ATOMIC_BUILTINS=y\n")
            self.assertTrue(kbuild.offers_builtins(d))
            self.assertEqual(kbuild.libatomic_symbols("s390x", d), -1)  # no vmlinux


class Instrumentation(unittest.TestCase):
    def test_sanitizer_calls(self):
        """instr_one's count in objdump -dr's output: functions without the
        __pfx_ padding, those with a sanitizer's relocation, the calls."""
        objdump = """
0000000000000000 <__pfx_raw_atomic_add>:
   0:\t90 nop
0000000000000010 <raw_atomic_add>:
  10:\te8 00 00 00 00       \tcall   15 <raw_atomic_add+0x5>
\t\t\t11: R_X86_64_PLT32\t__tsan_write4-0x4
  15:\te8 00 00 00 00       \tcall   1a <raw_atomic_add+0xa>
\t\t\t16: R_X86_64_PLT32\t__kcsan_check_access-0x4
0000000000000020 <raw_atomic_sub>:
  20:\tf0 29 3e             \tlock sub %edi,(%rsi)
0000000000000030 <atomic_inc>:
  30:\te8 00 00 00 00       \tcall   35 <atomic_inc+0x5>
\t\t\t31: R_X86_64_PLT32\tkcsan_mb-0x4
"""
        self.assertEqual(audits.sanitizer_calls(objdump), (3, 2, 3))
        self.assertEqual(audits.sanitizer_calls(""), (0, 0, 0))


if __name__ == "__main__":
    unittest.main()
