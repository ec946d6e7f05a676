# SPDX-License-Identifier: GPL-2.0
"""The architectures' rules: which instructions order, access, branch."""

import re
import sys

from .arch import MODULES

# Per architecture, as data. RMW: one-instruction atomic read-modify-writes;
# FULL: instructions that are full barriers (atomic ones and fences); ACQ,
# REL: the acquire and release forms, and fences (arm64, riscv, powerpc);
# CTRL_ACQ: ACQ fences that order only behind a branch on the loaded value;
# STRONGER: per order, what is more than it asks (a cost; by default the
# other of ACQ and REL, and FULL); FULL_BEFORE: a fully ordered op needs a
# full barrier before it, not a release; FENCE: barrier instructions that
# access no memory; FULL_IF: FULL instructions that are full barriers only
# with a Kconfig option (DIR/kconfig); LX/SX: load- and store-exclusive,
# all that the LL/SC rule needs of an architecture. An instruction matches
# by its mnemonic or its whole text.
ARCH = {name: dict(m.RULES) for name, m in MODULES.items()}
for _a in ARCH.values():
    _a.setdefault("ctrl_acq", None)
    for _k in ("rmw", "local", "full", "fence", "acq", "ctrl_acq", "rel", "lx", "sx", "ret",
               "cond_ret", "jump", "call", "branch", "noaccess", "store"):
        if _a[_k]:
            _a[_k] = re.compile(rf"(?:{_a[_k]})")
    _a.setdefault("full_if", {})
    _a.setdefault("full_before", False)
    _a.setdefault("stronger", {})


def rules(arch, kconfig):
    """ARCH[arch] for a build that sets the options kconfig (None: unknown,
    each taken as unset, so that no barrier is assumed): a FULL_IF
    instruction whose option the build lacks is neither a full barrier nor
    a fence; 'lacks' names it for messages."""
    A = ARCH[arch]
    lacks = [(rx, o) for rx, o in A["full_if"].items() if kconfig is None or o not in kconfig]
    if not lacks:
        return A
    A, no = dict(A), "|".join(rx for rx, _ in lacks)
    for k in ("full", "fence"):
        A[k] = re.compile(rf"(?!(?:{no})$)(?:{A[k].pattern})")
    A["lacks"] = [(re.compile(rx), o) for rx, o in lacks]
    return A


def build_config(arch, directory):
    """(the options the build sets, where from), from DIR/kconfig, the
    build's .config; without it there is no verdict (SystemExit)."""
    path = directory / "kconfig"
    if not path.is_file():
        opts = sorted(BUILTINS_OPTIONS) + list(ARCH[arch]["full_if"].values())
        sys.exit(f"audit: {path} missing: no verdict without the build's .config, which "
                 f"says what the rules depend on ({arch}: {', '.join(opts)}); "
                 "katomic.sh audit copies it there")
    return {m.group(1) for m in re.finditer(r"^(CONFIG_\w+)=[ym]$", path.read_text(), re.M)}, \
        str(path)


# Where the architecture does not select it, the build cannot choose the
# builtins implementation (riscv with GCC 12, which calls libatomic for 1-
# and 2-byte ops and drops the release of a compare-exchange).
# The options that offer the builtins: the architecture's and the
# compiler's (scripts/katomic.sh's offers_builtins() greps the same two).
BUILTINS_OPTIONS = {"CONFIG_ARCH_SUPPORTS_ATOMIC_BUILTINS", "CONFIG_CC_HAS_CHECKED_ATOMIC_BUILTINS"}


def offered(impl, kconfig):
    """Whether the build offers the implementation impl; an unknown
    Kconfig (None) offers both."""
    return impl != "builtins" or kconfig is None or BUILTINS_OPTIONS <= kconfig
