# SPDX-License-Identifier: GPL-2.0
"""--selftest: every rule must flag the fixture that violates it."""

import tempfile
from pathlib import Path

from .. import SCRIPTS
from ..arches import arches
from .disasm import alternatives, disassemble, run
from .flow import Func
from .ordering import verdict
from .rules import BUILTINS_OPTIONS, build_config, offered
from .worries import check_rule

# What --selftest expects of scripts/audit_selftest.S: (function, check, a
# fragment of the complaint, None where the code is right and must pass,
# optionally the options of the build, as DIR/kconfig gives them).
# A check is an ordering (full, before, after, acquire, release, relaxed; "?" marks a conditional
# op; the LL/SC rule is part of it), loops=N (the LL/SC loops counted),
# executed=N (the instructions an uncontended call executes) or a
# worries.tsv rule.
Z10 = {"CONFIG_HAVE_MARCH_Z10_FEATURES"}
Z196 = Z10 | {"CONFIG_HAVE_MARCH_Z196_FEATURES"}
SELFTEST = [
    ("full_ok", "full", None),
    ("full_skip", "full", "a path performs no"),
    ("cas_loop_ok", "full", None),
    ("spin_hoisted", "load_in_loop(w_flag)", "no load of w_flag inside a loop"),
    ("spin_ok", "load_in_loop(w_flag)", None),
    ("ctrl_hoisted", "ctrl(w_b, w_a)", "without a branch"),
    ("ctrl_hoisted", "store_after_load(w_b, w_a)", "before loading"),
    ("ctrl_ok", "ctrl(w_b, w_a)", None),
    ("ctrl_hoisted_copy", "ctrl(w_b, w_a)", "without a branch"),
    ("ctrl_ok", "path_without_store(w_z)", "no access to w_z recognised"),
    ("data_dep", "ctrl_or_data(w_b, w_a)", None),
    ("data_dep", "ctrl(w_b, w_a)", "without a branch"),
    ("ctrl_hoisted", "ctrl_or_data(w_b, w_a)", "without a branch"),
    ("ctrl_ok", "path_without_store(w_b)", None),
    ("ctrl_hoisted", "path_without_store(w_b)", "every path stores"),
    ("loads_merged", "loads(w_x)=2", "want =2"),
    ("store_torn", "stores(w_x)=1", "want =1"),
    ("store_torn", "width(w_x)=8", "want 8"),
    ("store_invented", "stores(w_y)<=1", "want <=1"),
    ("store_invented", "store_after_load(w_y, w_x)", "before loading"),
    ("addr_dep_broken", "addr_dep(w_x, w_p)", "directly"),
    ("addr_dep_broken", "loads(*w_p+4)=1", "want =1"),
    ("addr_dep_ok", "loads(*w_p+4)=1", None),
    ("order_swapped", "order(w_msg, w_flag)", "accessed before"),
    ("store_torn", "order(w_x+0, w_x+4)", None),
    ("ctrl_select", "ctrl(w_c, w_a)", None),
    ("ctrl_select", "ctrl(w_d, w_a)", None),
    ("ctrl_select_hoisted", "ctrl(w_c, w_a)", "without a branch"),
]
SELFTEST_ARCH = {
    "s390x": [("cas_loop_ok", "executed=6", None),
              # The path that leaves before CS is shorter, but stores nothing.
              ("cmpxchg_fail_early", "executed=7", None),("full_no_fence", "full", "no full barrier after"),
              ("ctrl_condret", "ctrl(w_b, w_a)", None),
              ("cmpxchg_fail_early", "full?", "a failed cmpxchg, has no full barrier"),
              ("cmpxchg_fail_bcr", "full?", None),
              ("cmpxchg_fail_cc", "full?", None),
              ("cmpxchg_fail_ipm", "full?", None),
              ("cmpxchg_fail_ipm_bad", "full?", "a failed cmpxchg, has no full barrier"),
              ("ctrl_select_other", "ctrl(w_c, w_a)", "without a branch"),
              ("got_load_ok", "loads(w_x)=1", None),
              ("got_reuse", "loads(w_x)=1", "want =1"),
              ("ctrl_condret", "path_without_store(w_b)", None),
              ("full_fence_skipped", "full", "no full barrier after"),
              # Below z196 BCR 14,0 does not serialise, BCR 15,0 does.
              ("cmpxchg_fail_bcr", "full?", None, Z196),
              ("cmpxchg_fail_bcr", "full?", "a failed cmpxchg, has no full barrier", Z10),
              ("cmpxchg_fail_bcr", "full?", "is a full barrier only with "
               "CONFIG_HAVE_MARCH_Z196_FEATURES, which this build lacks", Z10),
              ("cmpxchg_fail_bcr15", "full?", None, Z10),
              ("full_ok", "full", "no full barrier after 'laa", Z10),
              ("cas_loop_ok", "full", None, Z10)],
    # TSO: a missing barrier is a missing LOCK, a plain access.
    "x86_64": [("cas_loop_ok", "executed=5", None),
               ("full_no_fence", "full", "performs no atomic"),
               ("ctrl_cs_thunk", "ctrl(w_b, w_a)", None),
               ("ctrl_select_other", "ctrl(w_c, w_a)", "without a branch"),
               ("plain_cmpxchg_local", "relaxed", None),
               ("plain_cmpxchg_local", "full", "no full barrier after"),
               ("full_fence_skipped", "full", "a path performs no atomic")],
    "arm64": [("before_ok", "before", None),
              # As the boot patches it: NOP, LDADD, RET; not the LL/SC loop.
              ("lse_no_al", "executed=3", None),
              ("llsc_two", "executed=7", None),
              ("before_late", "before", "no full barrier before"),
              ("before_late", "after", None),
              ("before_ok", "after", "no full barrier after"),
              ("full_no_fence", "full", "no full barrier after"),
              ("full_fence_skipped", "full", "no full barrier after"),
              ("full_no_release", "full", "no release or full barrier before"),
              ("acquire_missing", "acquire", "no acquire or full barrier after"),
              ("acquire_missing", "release", "no release or full barrier before"),
              ("plain_set_release", "release", "no release or full barrier before"),
              ("plain_read_acquire", "acquire", "no acquire or full barrier after"),
              ("ldar_read_acquire", "acquire", None),
              ("cmpxchg_fail_ok", "full?", None),
              ("cmpxchg_success_no_fence", "full?", "no full barrier after"),
              ("lse_no_al", "full", "with the alternatives applied: no full barrier"),
              ("status_unchecked", "full?", "no test of its status register"),
              ("tbnz_ok", "full", None),
              ("const_flag_ok", "full?", None),
              ("const_flag_skips", "full?", "no full barrier after"),
              ("dmb_st_not_full", "full", "no full barrier after"),
              ("llsc_spill", "full", "LL/SC: 'str x1, [sp, #8]' at "),
              ("llsc_spill", "loops=1", None),
              ("llsc_reload_ok", "full", None),
              ("llsc_reload_ok", "loops=1", None),
              ("llsc_exit_load", "full?", None),
              ("llsc_exit_load", "loops=1", None),
              ("llsc_two", "full?", "LL/SC: 'ldr x5, [sp, #8]'"),
              ("llsc_two", "loops=2", None),
              ("full_no_fence", "loops=1", None),
              ("lse_no_al", "loops=1", None),
              ("ldar_read_acquire", "loops=0", None)],
    "riscv64": [("full_ok", "loops=0", None),
                ("cas_loop_ok", "executed=7", None),
                ("full_no_fence", "full", "no full barrier after"),
                ("full_no_fence", "relaxed", None),
                ("amo_aq", "full", "no release or full barrier before"),
                ("amo_aq", "full", "no full barrier after"),
                ("amo_aq", "acquire", None),
                ("amo_rl", "full", "no full barrier after"),
                ("amo_rl", "release", None),
                ("amo_rl", "acquire", "no acquire or full barrier after"),
                ("cas_loop_ok", "loops=1", None),
                ("cmpxchg_ok", "full?", None),
                ("cmpxchg_ok", "full", "a path performs no"),
                ("cmpxchg_no_fence", "full?", "no full barrier after 'sc.w.rl"),
                ("lr_aqrl_pair", "full", "no full barrier after 'sc.w.rl"),
                ("lr_aqrl_pair", "acquire", None),
                ("sc_aqrl", "full", None),
                ("sc_aqrl", "release", None),
                # sc.aqrl: the LR before it, to the same address, precedes it.
                ("sc_aqrl", "acquire", None),
                ("sc_aq_only", "acquire", "no acquire or full barrier after"),
                ("gcc_amo_full", "full", None),
                ("cmpxchg_no_fence", "acquire?", "no acquire or full barrier after"),
                ("tso_after", "full", "no full barrier after"),
                ("tso_after", "acquire", None),
                ("fence_read_acquire", "acquire", None),
                ("rmb_read_acquire", "acquire", "no acquire or full barrier after"),
                ("plain_read_acquire", "acquire", "no acquire or full barrier after"),
                ("fence_set_release", "release", None),
                ("wmb_set_release", "release", "no release or full barrier before"),
                ("io_set_release", "release", None),
                ("plain_set_release", "release", "no release or full barrier before"),
                ("before_ok", "before", None),
                ("before_ok", "after", "no full barrier after"),
                ("before_late", "before", "no full barrier before"),
                ("before_late", "after", None),
                ("iorw_full", "full", None),
                ("status_unchecked", "full?", "no test of its status register"),
                ("status_beqz_ok", "full", None),
                ("status_bne_ok", "full", None),
                ("llsc_spill", "full", "LL/SC: 'sd a1,8(sp)' at "),
                ("llsc_spill", "loops=1", None),
                ("llsc_reload_ok", "full", None),
                ("llsc_reload_ok", "loops=1", None),
                ("llsc_exit_load", "full?", None),
                ("llsc_exit_load", "loops=1", None),
                ("llsc_two", "full?", "LL/SC: 'ld a3,8(sp)'"),
                ("llsc_two", "loops=2", None),
                ("libcall", "full?", "calls __atomic_compare_exchange_4"),
                ("libcall_tail", "full", "calls __atomic_fetch_add_4"),
                ("gcc12_cmpxchg", "full?", "no release or full barrier before"),
                ("gcc12_cmpxchg", "release?", "no release or full barrier before"),
                # nor an acquire: sc.w.aq alone orders nothing more
                ("gcc12_cmpxchg", "acquire?", "no acquire or full barrier after"),
                ("cmp_again_ok", "full?", None),
                ("cmp_masked_ok", "full?", None),
                ("cmp_other_skips", "full?", "no full barrier after 'sc.w.rl"),
                ("index_ok", "loads(w_x)=1", None)],
    "ppc64le": [("full_ok", "loops=1", None),
                ("cas_loop_ok", "executed=7", None),
                ("full_ok", "relaxed", None),
                ("full_no_fence", "full", "no full barrier after"),
                ("full_no_fence", "relaxed", None),
                ("full_fence_skipped", "full", "no full barrier after"),
                ("exit_sync_removed", "full", "no full barrier after 'stwcx."),
                ("exit_sync_removed", "before", None),
                ("exit_sync_removed", "after", "no full barrier after"),
                ("entry_sync_removed", "full", "no full barrier before 'stwcx."),
                ("entry_sync_removed", "after", None),
                ("entry_sync_removed", "before", "no full barrier before"),
                # Neither compiler's SEQ_CST is the kernel's fully ordered op.
                ("gcc12_seq_cst", "full", "no full barrier after 'stwcx."),
                ("gcc12_seq_cst", "acquire", None),
                ("clang19_seq_cst", "full", "no full barrier after 'stwcx."),
                ("clang19_seq_cst", "acquire", None),
                ("clang19_seq_cst", "release", None),
                ("lwsync_entry", "full", "no full barrier before 'stwcx."),
                ("lwsync_entry", "release", None),
                ("lwsync_entry", "after", None),
                ("acquire_isync", "acquire", None),
                ("acquire_isync", "release", "no release or full barrier before"),
                ("release_lwsync", "release", None),
                ("release_lwsync", "acquire", "no acquire or full barrier after"),
                ("eieio_exit", "full", "no full barrier after"),
                ("isync_read_acquire", "acquire", "no acquire or full barrier after"),
                ("other_branch_read_acquire", "acquire", "no acquire or full barrier after"),
                ("ctrl_isync_read_acquire", "acquire", None),
                ("cr7_read_acquire", "acquire", None),
                ("lwsync_read_acquire", "acquire", None),
                ("lwsync_set_release", "release", None),
                ("eieio_set_release", "release", "no release or full barrier before"),
                ("status_unchecked", "full?", "no test of its status register"),
                ("status_other_field", "full?", "no test of its status register"),
                ("status_beq_ok", "full", None),
                ("cmpxchg_ok", "full?", None),
                ("cmpxchg_ok", "full", "a path performs no"),
                ("cmpxchg_no_exit", "full?", "no full barrier after 'stwcx."),
                ("cmpxchg_gcc12", "full?", "no full barrier after 'stwcx."),
                ("cmpxchg_gcc12", "acquire?", None),
                ("cmpxchg_acquire_ok", "acquire?", None),
                ("cmpxchg_acquire_ok", "full?", "no full barrier before"),
                ("cmp_again_ok", "full?", None),
                ("cmp_other_skips", "full?", "no full barrier after 'stwcx."),
                # clang's: the compare repeated, and a conditional return
                # on it; the try_cmpxchg() loop, the compare after it.
                ("cmpxchg_bnelr_ok", "full?", None),
                ("cmpxchg_beqlr", "full?", "no full barrier after 'stdcx."),
                ("dec_if_positive_ok", "full?", None),
                ("dec_if_positive_ok", "loops=1", None),
                ("dec_if_positive_no_exit", "full?", "no full barrier after 'stwcx."),
                # GCC's try_cmpxchg(): stcx.'s success, CR0's EQ bit, in r3.
                ("try_cmpxchg_gcc12_ok", "full?", None),
                ("try_cmpxchg_gcc12_ok", "full", "a path performs no"),
                ("try_cmpxchg_cr7_ok", "full?", None),
                ("try_cmpxchg_beq_inverted", "full?", "no full barrier after 'stwcx."),
                ("try_cmpxchg_gt_bit", "full?", "no full barrier after 'stwcx."),
                ("try_cmpxchg_other_field", "full?", "no full barrier after 'stwcx."),
                ("try_cmpxchg_cr0_rewritten", "full?", "no full barrier after 'stwcx."),
                ("llsc_spill", "full", "LL/SC: 'std r4,32(r1)' at "),
                ("llsc_spill", "loops=1", None),
                ("llsc_reload_ok", "full", None),
                ("llsc_reload_ok", "loops=1", None),
                ("llsc_exit_load", "full?", None),
                ("llsc_exit_load", "loops=1", None),
                ("libcall", "full", "calls __atomic_fetch_add_4"),
                ("libcall_tail", "full", "calls __atomic_fetch_add_4"),
                ("lwsync_read_acquire", "loops=0", None),
                ("toc_split_ok", "stores(w_b)=1", None),
                ("toc_split_ok", "ctrl_or_data(w_b, w_a)", None),
                ("index_ok", "loads(w_x)=1", None)],
}


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
    src = SCRIPTS / "audit_selftest.S"
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
                print(f"audit selftest: {arch}: {fn} missing from audit_selftest.S")
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
