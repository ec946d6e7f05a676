# SPDX-License-Identifier: GPL-2.0
"""--selftest: every rule must flag the fixture that violates it."""

import tempfile
from pathlib import Path

from ..arches import arches
from .disasm import alternatives, disassemble, run
from .flow import Func
from .ordering import verdict
from .rules import BUILTINS_OPTIONS, build_config, offered
from .worries import check_rule

# The fixtures (fixtures.S) and what each check expects of them.
TESTDATA = Path(__file__).parent / "testdata"
Z10 = {"CONFIG_HAVE_MARCH_Z10_FEATURES"}
Z196 = Z10 | {"CONFIG_HAVE_MARCH_Z196_FEATURES"}


def expected():
    """(every architecture's checks, {architecture: its own}), each check
    (function, check, a fragment of the complaint or None[, the options]),
    from testdata/expected.tsv, which says what the columns mean."""
    common, own = [], {}
    for line in (TESTDATA / "expected.tsv").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            arch, fn, check, want, kconfig = line.split("\t")
            case = (fn, check, None if want == "-" else want) + \
                (({"z10": Z10, "z196": Z196}[kconfig],) if kconfig != "-" else ())
            (common if arch == "*" else own.setdefault(arch, [])).append(case)
    return common, own


SELFTEST, SELFTEST_ARCH = expected()


def selftest(which, verbose=False):
    bad = 0
    # DIR/kconfig gives the build's options, and whether it offers the
    # builtins.
    for text, want in (("CONFIG_HAVE_MARCH_Z10_FEATURES=y\n"
                        "# CONFIG_HAVE_MARCH_Z196_FEATURES is not set\n"
                        "# CONFIG_ARCH_SUPPORTS_ATOMIC_BUILTINS is not set\n", (False, False)),
                       ("CONFIG_HAVE_MARCH_Z196_FEATURES=y\n"
                        + "".join(f"{o}=y\n" for o in BUILTINS_OPTIONS),
                        (True, True))):
        with tempfile.TemporaryDirectory() as tmp:
            (Path(tmp) / "kconfig").write_text(text)
            options = build_config("s390x", Path(tmp))[0]
        got = ("CONFIG_HAVE_MARCH_Z196_FEATURES" in options, offered("builtins", options))
        if got != want or not offered("asm", options):
            print(f"audit selftest: build_config of {text!r}: (z196, builtins offered) {got}, "
                  f"expected {want}")
            bad += 1
    # Without one, no verdict.
    with tempfile.TemporaryDirectory() as tmp:
        try:
            build_config("s390x", Path(tmp))
            print("audit selftest: build_config without a kconfig gave a verdict")
            bad += 1
        except SystemExit:
            pass
    src = TESTDATA / "fixtures.S"
    for arch in which:
        prefix = arches()[arch]["prefix"]
        with tempfile.TemporaryDirectory() as tmp:
            obj = Path(tmp) / "selftest.o"
            run(prefix + "gcc", "-c", "-o", str(obj), str(src))
            funcs, every = disassemble(prefix, obj)
            alts = alternatives(prefix, obj, every)
        cases = SELFTEST + SELFTEST_ARCH[arch]
        for fn, check, want, *kconfig in cases:
            # Without one of its own, a case is audited as the kernel's
            # default build (s390: MARCH_Z196).
            kconfig = kconfig[0] if kconfig else Z196
            if fn not in funcs:
                print(f"audit selftest: {arch}: {fn} missing from fixtures.S")
                bad += 1
                continue
            if check.rstrip("?") in ("full", "before", "after", "acquire", "release",
                                     "relaxed"):
                got = verdict(arch, fn, funcs[fn], alts, check.rstrip("?"),
                              check.endswith("?"), fn, kconfig)[0]
                got = "; ".join(got) or None
            elif check.startswith("loops="):
                n = Func(arch, fn, funcs[fn]).llsc()[0]
                got = None if str(n) == check[6:] else f"{n} LL/SC loops"
            elif check.startswith("executed="):
                n = verdict(arch, fn, funcs[fn], alts, "relaxed", False, fn, kconfig)[3]
                got = None if str(n) == check[9:] else f"{n} instructions executed"
            else:
                got = check_rule(Func(arch, fn, funcs[fn]), check)
            ok = (got is None) if want is None else (got is not None and want in got)
            bad += not ok
            if not ok or verbose:
                build = f" (kconfig: {' '.join(sorted(kconfig))})" if kconfig else ""
                print(f"audit selftest: {arch}: {fn} {check}{build}: "
                      f"{'ok' if ok else 'expected ' + (want or 'a pass')}, "
                      f"got: {got or 'a pass'}")
        print(f"audit selftest: {arch}: {len(cases)} checks")
    print(f"audit selftest: {'FAILED' if bad else 'every rule flags its violation'}")
    return 1 if bad else 0
