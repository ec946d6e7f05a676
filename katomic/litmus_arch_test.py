# SPDX-License-Identifier: GPL-2.0
"""The litmus translation (katomic/audit/herd.py and each architecture's
module) and litmus_arch.py's check, herd7 stubbed out or not run."""

import subprocess
import unittest

from . import SCRIPTS, litmus_arch, litmus_fixtures
from .audit import disasm
from .audit.arch import arm64, ppc64le, riscv64, x86_64
from .audit.herd import Unknown
from .testing import KATOMIC


def insns(*code):
    """disasm.Insn from (address, mnemonic, operands, branch target)."""
    out = []
    for addr, mnem, ops, target in code:
        i = disasm.Insn(addr, mnem, ops)
        i.target = i.jump = target
        out.append(i)
    return out


class LitmusArch(unittest.TestCase):
    """katomic/litmus_arch.py's translation into herd7's syntax."""

    def test_mutations_table(self):
        """make mutate's rows: six fields, a configuration of make test-all
        whose architecture has a translator, a code the check reports."""
        rows = [line.rstrip("\n").split("\t") for line in
                (SCRIPTS / "mutations.tsv").read_text().splitlines()
                if line and not line.startswith("#")]
        self.assertGreaterEqual(len(rows), 6)
        configs = subprocess.run([str(KATOMIC), "configs"], check=True,
                                 capture_output=True, text=True).stdout.split()
        for cfg, code, path, old, new, why in rows:
            self.assertIn(cfg, configs)
            self.assertIn(cfg.split("-")[0], litmus_arch.ARCHES)
            self.assertFalse(litmus_arch.ARCHES[cfg.split("-")[0]].get("partial"))
            self.assertIn(code, ("asm", "asm+lse", "builtins", "builtins+lse"))
            self.assertNotEqual(old, new)
            self.assertTrue(path.startswith("arch/") and why)

    def test_crosscheck(self):
        """The audit's verdict per primitive against herd7's on its tests:
        a violation in any test of the primitive is herd7's fail."""
        audit_rows = [{"impl": "asm", "function": f, "verdict": v} for f, v in (
            ("audit_xchg_u32", "pass"), ("audit_atomic_add_return", "pass"),
            ("audit_after_atomic_inc", "fail"), ("audit_atomic_read", "absent"))]
        test = lambda n, v=False: {"test": n, "code": "asm", "violation": v,  # noqa: E731
                                   "error": None, "run": True}
        got = litmus_arch.agreement(litmus_arch.crosscheck(audit_rows, [
            test("SB+xchg-u32"), test("MP-writer+xchg-u32", True),
            test("SB+atomic_add_return"), test("SB+atomic_inc+mb__after_atomic")]))
        self.assertEqual(got, {"agree": 1, "disagree": [
            "asm:audit_after_atomic_inc audit fail, herd7 pass",
            "asm:audit_xchg_u32 audit pass, herd7 fail"]})

    def test_layout(self):
        """Only loops branch backwards (herd7's -unroll 0 cuts every
        backward branch); code no path reaches is left out."""
        code = insns((0, "b", "", 16), (4, "casal", "x4, x5, [x2]", None),
                     (8, "cmp", "x0, x4", None), (12, "ret", "", None),
                     (16, "ldxr", "x4, [x2]", None), (20, "cbnz", "w6, 10", 16),
                     (24, "b", "", 8))
        out = arm64.a64_thread(code)
        self.assertEqual(out, ["B L10", "L10:", "LDXR X4,[X2]", "CBNZ W6,L10", "B L8",
                               "L8:", "CMP X0,X4"])
        self.assertNotIn("CASAL X4,X5,[X2]", out)

    def test_arm64(self):
        one = lambda m, o: arm64.a64_insn(insns((0, m, o, None))[0], {})  # noqa: E731
        self.assertEqual(one("mov", "x0, #0xfffffffffffffffe"), "MOV X0,#-2")
        self.assertEqual(one("and", "w1, w1, #0xffffff00"), "AND W1,W1,#-256")
        self.assertEqual(one("cmn", "w8, #0x1"), "ADDS WZR,W8,#1")
        for m in ("ldar", "stlr", "ldaxrb", "stlxrh", "ldr", "casal", "swpalb", "ldclrl", "stadd"):
            self.assertTrue(arm64.A64_KNOWN.fullmatch(m), m)
        self.assertIsNone(one("prfm", "pstl1strm, [x1]"))
        with self.assertRaisesRegex(Unknown, "stack"):
            one("str", "x0, [sp, #8]")
        with self.assertRaisesRegex(Unknown, "ccmp, which the translator"):
            one("ccmp", "x0, x1, #0x0, ne")
        with self.assertRaisesRegex(Unknown, "operand"):
            one("add", "x0, x1, x2, uxtw #2")

    def test_weakened(self):
        """The self-test takes out P0's barriers, not P1's."""
        text = ("AArch64 T\n{\n}\nP0               | P1      ;\nLDADDAL W0,W0,[X2] | DMB ISH ;\n"
                "DMB ISH          | STLR W1,[X0] ;\nLDAXR W1,[X2]    | NOP     ;\nexists (x=1)\n")
        w = litmus_arch.weakened(text, arm64.WEAKEN)
        self.assertTrue(w.startswith("AArch64 T.weak\n"))
        self.assertIn("LDADD W0,W0,[X2] ", w)
        self.assertIn("NOP              | STLR W1,[X0] ;", w)
        self.assertIn("LDXR W1,[X2]", w)
        self.assertIn("| DMB ISH ;", w)
        rv = litmus_arch.weakened("RISCV T\nP0 | P1 ;\namoadd.w.aqrl a5,a4,(a1) | fence rw,rw ;\n"
                                  "fence rw,rw | nop ;\n", riscv64.WEAKEN)
        self.assertIn("amoadd.w a5,a4,(a1)", rv)
        self.assertIn("nop", rv.split("\n")[3])
        self.assertIn("| fence rw,rw ;", rv)

    def test_x86(self):
        one = lambda m, o, live=False: x86_64.x86_insn(  # noqa: E731
            insns((0, m, o, None))[0], {}, "Lx0", live)
        self.assertEqual(one("lock addl", "$0x0,-0x4(%rsp)"), ["mfence"])    # smp_mb()
        with self.assertRaisesRegex(Unknown, "stack"):
            one("lock cmpxchg", "%ecx,0x8(%rsp)")
        self.assertEqual(one("lock subl", "$0x1,(%rdx)"), ["lock addl $-1,(%rdx)"])
        self.assertEqual(one("movl", "$0x1,(%rdi)"), ["movl $1,(%rdi)"])
        self.assertEqual(one("lock cmpxchg", "%r9d,(%rdx)"), ["lock cmpxchgl (%rdx),%r9d"])
        self.assertEqual(one("xchg", "%al,(%rsi)"), ["xchgb %al,(%rsi)"])
        self.assertEqual(one("movzwl", "(%rsi),%eax"),
                         ["movq $0,%r14", "movw (%rsi),%r14w", "movl %r14d,%eax"])
        self.assertIsNone(one("endbr64", ""))
        # A 32-bit register written is zero-extended and cut, as herd7
        # does not; its flags, where read, from its value at the top.
        self.assertEqual(one("mov", "$0xffffffff,%eax"), ["movl $-1,%eax", "movl %eax,%eax"])
        self.assertEqual(one("add", "$0xffffffff,%eax", True),
                         ["addl $-1,%eax", "movq %rax,%r15", "shl $32,%r15", "movl %eax,%eax"])
        self.assertEqual(one("lea", "-0x1(%rax),%edi"),
                         ["movl %eax,%edi", "addl $-1,%edi", "movl %edi,%edi"])
        self.assertEqual(one("test", "%eax,%eax"), ["movq %rax,%r15", "shl $32,%r15"])
        self.assertEqual(one("cmp", "$0xffffffff,%eax"), [
            "movq %rax,%r14", "shl $32,%r14", "movq $-1,%r15", "shl $32,%r15", "cmpq %r15,%r14"])
        # Locked ops herd7 lacks, or whose narrow flags it gets wrong: the
        # cmpxchg loop; a source in %rax copied before the loop reloads it.
        loop = ["movq %rax,%r13", "Lx0:", "movq (%rdx),%rax", "movq %rax,%r14",
                "and $-2,%r14", "lock cmpxchgq (%rdx),%r14", "jne Lx0", "movq %r13,%rax"]
        self.assertEqual(one("lock andq", "$0xfffffffffffffffe,(%rdx)"), loop)
        self.assertEqual(one("lock andq", "$0xfffffffffffffffe,(%rdx)", True),
                         loop + ["cmpq $0,%r14"])
        self.assertEqual(one("lock or", "%eax,(%rdx)")[:6],
                         ["movq %rax,%r15", "movq %rax,%r13", "Lx0:", "movl (%rdx),%eax",
                          "movq %rax,%r14", "orl %r15d,%r14d"])
        self.assertEqual(one("lock incl", "(%rdx)"), ["lock incl (%rdx)"])
        self.assertEqual(one("lock incl", "(%rdx)", True)[4:], [
            "addl $1,%r14d", "lock cmpxchgl (%rdx),%r14d", "jne Lx0", "movq %r13,%rax",
            "movq %r14,%r15", "shl $32,%r15"])
        self.assertEqual(one("lock addq", "$0x1,(%rdx)", True), ["lock addq $1,(%rdx)"])
        with self.assertRaisesRegex(Unknown, "needs"):
            one("lock xadd", "%eax,(%rax)")
        # Unlocked (the audit's fixture full_no_fence): a plain read, then
        # a plain write, the old value in the register.
        self.assertEqual(one("xadd", "%eax,(%rdi)"), [
            "movq %rax,%r15", "movl (%rdi),%r14d", "addl %r14d,%r15d", "movl %r15d,(%rdi)",
            "movl %r14d,%eax"])
        with self.assertRaisesRegex(Unknown, "flags of an unlocked xadd"):
            one("xadd", "%eax,(%rdi)", True)
        with self.assertRaisesRegex(Unknown, "without flags"):
            one("lea", "0x1(%rax),%edi", True)
        for m, o in (("sbb", "%eax,%eax"), ("lock btsl", "$0x1,(%rdi)")):
            with self.assertRaisesRegex(Unknown, "which the translator"):
                one(m, o)

    def test_x86_thread(self):
        # xadd: the old value in its register; js: neither equal nor greater.
        code = insns((0, "mov", "$0x1,%eax", None), (5, "lock xadd", "%eax,(%rdi)", None),
                     (9, "js", "11", 17), (11, "movl", "$0x1,(%rsi)", None),
                     (17, "ret", "", None))
        self.assertEqual(x86_64.x86_thread(code), [
            "movl $1,%eax", "movl %eax,%eax", "movq %rax,%r15", "movq %rax,%r13", "Lx5:",
            "movl (%rdi),%eax", "movq %rax,%r14", "addl %r15d,%r14d",
            "lock cmpxchgl (%rdi),%r14d", "jne Lx5", "movq %rax,%r15", "movq %r13,%rax",
            "movl %r15d,%eax", "movq %r14,%r15", "shl $32,%r15", "jge Lx9", "jmp L11", "Lx9:",
            "movl $1,(%rsi)", "L11:"])
        with self.assertRaisesRegex(Unknown, "condition herd7's flags"):
            x86_64.x86_thread(insns((0, "cmp", "%eax,%ecx", None), (2, "ja", "6", 6),
                                    (6, "ret", "", None)))
        # cmpxchg sets ZF alone in herd7: no other condition after it.
        with self.assertRaisesRegex(Unknown, "may not have set"):
            x86_64.x86_thread(insns((0, "lock cmpxchg", "%ecx,(%rdi)", None),
                                    (4, "setg", "%al", None), (7, "ret", "", None)))
        # A setcc writes the whole register: only where the rest is zero
        # or unread, %rax counting as cmpxchg's.
        sete = (4, "sete", "%al", None)
        self.assertEqual(x86_64.x86_thread(insns(
            (0, "xor", "%eax,%eax", None), (2, "lock incl", "(%rdi)", None), sete,
            (7, "mov", "%eax,(%rsi)", None)))[-5:],
            ["movl $1,%eax", "je Lx4", "movl $0,%eax", "Lx4:", "movl %eax,(%rsi)"])
        self.assertTrue(x86_64.x86_thread(insns(
            (2, "lock incl", "(%rdi)", None), sete, (7, "movzbl", "%al,%eax", None))))
        for code in (((2, "lock incl", "(%rdi)", None), sete, (7, "mov", "%eax,(%rsi)", None)),
                     ((0, "xor", "%eax,%eax", None), (2, "lock cmpxchg", "%ecx,(%rdi)", None),
                      sete, (7, "mov", "%eax,(%rsi)", None)),
                     ((0, "xor", "%al,%al", None), (2, "lock incl", "(%rdi)", None), sete,
                      (7, "mov", "%eax,(%rsi)", None))):
            with self.assertRaisesRegex(Unknown, "beyond its byte"):
                x86_64.x86_thread(insns(*code))

    def test_riscv(self):
        one = lambda m, o: riscv64.rv_insn(insns((0, m, o, None))[0], {})  # noqa: E731
        self.assertEqual(one("seqz", "a0,a5"), "slti t6,a5,1\nslti a0,a5,0\nsub a0,t6,a0")
        self.assertEqual(one("add", "a5,a5,-1"), "addi a5,a5,-1")
        self.assertEqual(one("srliw", "a5,a5,0x1f"), "slt a5,a5,zero")
        self.assertIsNone(one("sd", "s1,24(sp)"))
        with self.assertRaisesRegex(Unknown, "address of the word"):
            one("and", "a6,a0,-4")
        with self.assertRaisesRegex(Unknown, "does not implement"):
            one("srl", "a5,a5,a4")
        with self.assertRaisesRegex(Unknown, "stack"):
            one("sd", "a5,-40(s0)")

    def test_fixtures(self):
        """The audit's fixtures as litmus tests: which cases, of what kind,
        the fixture in the thread that reads in MP-reader, its registers
        set, and the witness asking what the condition takes for granted."""
        cases = litmus_fixtures.cases("riscv64")
        self.assertIn(("amo_aq", "full", "no release or full barrier before"), cases)
        self.assertNotIn("llsc_spill", [c[0] for c in cases])      # not a barrier
        self.assertNotIn("full_skip", [c[0] for c in cases])       # a path without the op
        self.assertEqual([litmus_fixtures.kind("riscv64", f) for f in (
            "fence_read_acquire", "wmb_set_release", "cmpxchg_ok", "before_late", "amo_aq")],
            ["read", "set", "cmpxchg", "void", "op"])
        self.assertEqual(litmus_fixtures.SHAPES["acquire"], ("MP-reader", "S"))
        test, wit = litmus_fixtures.shape_test("riscv64", "T", "op", ["amoadd.w a0,a0,(a1)"],
                                               "MP-reader")
        self.assertIn("1:a1=a; 1:a0=2;", test)
        self.assertNotIn("0:a1=a", test)
        self.assertIn("| amoadd.w a0,a0,(a1) ;", test)
        self.assertTrue(test.endswith("exists (res0=1 /\\ res1=0)\n"))
        self.assertTrue(wit.startswith("RISCV T.witness\n") and wit.endswith("exists (res0=1)\n"))
        # A cmpxchg in R-op: only a success (it returns the old value, 0)
        # counts; a void op has no value.
        test, _ = litmus_fixtures.shape_test("arm64", "T", "cmpxchg", ["NOP"], "R-op")
        self.assertIn("0:X0=a; 0:X2=2; 0:X1=0;", test)
        self.assertTrue(test.endswith("exists (a=5 /\\ res1=0 /\\ res0=0)\n"))
        test, _ = litmus_fixtures.shape_test("arm64", "T", "void", ["NOP"], "R-op")
        self.assertTrue(test.endswith("exists (a=5 /\\ res1=0)\n"))

    def test_ppc(self):
        """xchg_acquire's lwarx/stwcx./bne-/isync, and CR0's EQ bit read
        as GCC's builtins read it."""
        code = insns((0, "lwarx", "r9,0(r3)", None), (4, "stwcx.", "r4,0(r3)", None),
                     (8, "bne-", "0", 0), (12, "isync", "", None),
                     (16, "mfocrf", "r10,128", None), (20, "rlwinm", "r10,r10,3,31,31", None),
                     (24, "blr", "", None))
        out = ppc64le.ppc_thread(code)
        self.assertEqual(out[:9], ["L0:", "lwarx r9,r0,r3", "stwcx. r4,r0,r3", "bne L0",
                                   "cmpw r9,r9", "bne Lacq0", "Lacq0:", "isync", "mfcr r10"])
        self.assertEqual(out[9:12], ["li r12,2", "and r10,r10,r12", "divw r10,r10,r12"])
        # herd7's PPC has CR0 alone (clang's compare into cr7).
        with self.assertRaisesRegex(Unknown, "other than CR0"):
            ppc64le.ppc_thread(insns((0, "cmpd", "cr7,r3,r3", None), (4, "blr", "", None)))
        # GCC's rS != 0 (addic's carry), and a mask of a loaded value.
        out = ppc64le.ppc_thread(insns((0, "ldarx", "r9,0(r3)", None),
                                       (4, "clrrdi", "r10,r9,1", None),
                                       (8, "addic", "r8,r9,-1", None),
                                       (12, "subfe", "r8,r8,r9", None),
                                       (16, "clrrdi", "r7,r4,2", None)) [:4])
        self.assertEqual(out[1:], ["li r12,-2", "and r10,r9,r12", "addi r8,r9,-1",
                                   "mulli r12,r9,-1", "or r12,r12,r9", "rlwinm r8,r12,1,31,31"])
        with self.assertRaisesRegex(Unknown, "address of the word"):
            ppc64le.ppc_thread(insns((0, "clrrdi", "r7,r4,2", None)))
        # Any other carry is herd7's limit, which fails nothing.
        for m, a in (("subfe", "r9,r9,r9"), ("subfic", "r9,r9,0")):
            with self.assertRaisesRegex(Unknown, "^a carry") as e:
                ppc64le.ppc_thread(insns((0, "ldarx", "r9,0(r3)", None), (4, m, a, None)))
            self.assertTrue(f"untranslated: {e.exception}".startswith(litmus_arch.LIMITS))
        # GCC's S64_MIN (li -1; clrrdi 63) before the carry: the carry is why.
        with self.assertRaisesRegex(Unknown, "^a carry.*subfic"):
            ppc64le.ppc_thread(insns((0, "li", "r7,-1", None), (4, "clrrdi", "r7,r7,63", None),
                                     (8, "xor", "r9,r9,r7", None), (12, "subfic", "r9,r9,0", None)))
        with self.assertRaisesRegex(Unknown, "mfocrf other than"):
            ppc64le.ppc_thread(code[:4] + insns((16, "mfocrf", "r10,128", None),
                                                (20, "blr", "", None)))


if __name__ == "__main__":
    unittest.main()
