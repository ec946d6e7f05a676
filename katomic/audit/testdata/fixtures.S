/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Hand-written inputs for 'python3 -m katomic.audit --selftest': for every
 * rule of the machine-code audit, code that breaks it (which the audit must
 * flag) and code that keeps it (which it must pass), as expected.tsv next
 * to this file says. The w_* symbols are left undefined: only their
 * relocations matter.
 */
	.text
#if defined(__s390x__)

full_no_fence:			/* atomic_fetch_add() without BCR 14,0 */
	laa	%r2,%r2,0(%r3)
	br	%r14
full_ok:
	laa	%r2,%r2,0(%r3)
	bcr	14,0
	br	%r14
full_skip:			/* a path that does not add at all */
	ltr	%r2,%r2
	je	1f
	laa	%r2,%r2,0(%r3)
	bcr	14,0
1:	br	%r14
full_fence_skipped:		/* one path around the fence */
	laa	%r2,%r2,0(%r3)
	ltr	%r2,%r2
	je	1f
	bcr	15,0
1:	br	%r14
cas_loop_ok:			/* CS serialises: no fence needed */
	l	%r1,0(%r2)
1:	lr	%r0,%r1
	ahi	%r0,1
	cs	%r1,%r0,0(%r2)
	jl	1b
	br	%r14
spin_hoisted:			/* while (!READ_ONCE(w_flag)), load hoisted */
	larl	%r1,w_flag
	l	%r2,0(%r1)
1:	ltr	%r2,%r2
	je	1b
	br	%r14
spin_ok:
	larl	%r1,w_flag
1:	l	%r2,0(%r1)
	ltr	%r2,%r2
	je	1b
	br	%r14
ctrl_hoisted:			/* if (READ_ONCE(w_a)) WRITE_ONCE(w_b, 1), hoisted */
	larl	%r1,w_b
	mvhi	0(%r1),1
	larl	%r2,w_a
	l	%r2,0(%r2)
	br	%r14
ctrl_ok:
	larl	%r2,w_a
	l	%r2,0(%r2)
	ltr	%r2,%r2
	je	1f
	larl	%r1,w_b
	mvhi	0(%r1),1
1:	br	%r14
loads_merged:			/* READ_ONCE(w_x) twice, loaded once */
	lrl	%r2,w_x
	br	%r14
store_torn:			/* WRITE_ONCE() of a u64 as two stores */
	larl	%r1,w_x
	mvhi	0(%r1),1
	mvhi	4(%r1),2
	br	%r14
store_invented:			/* if (x) y = 1; else y = 2; as y = 2; if (x) y = 1; */
	larl	%r1,w_y
	mvhi	0(%r1),2
	lrl	%r2,w_x
	ltr	%r2,%r2
	je	1f
	mvhi	0(%r1),1
1:	br	%r14
addr_dep_broken:		/* p = READ_ONCE(w_p); if (p == &w_x) return p->b; */
	lgrl	%r1,w_p
	larl	%r2,w_x
	cgrje	%r1,%r2,1f
	lghi	%r2,0
	br	%r14
1:	lrl	%r2,w_x+4
	br	%r14

ctrl_condret:			/* as clang: return if zero, then store */
	lrl	%r2,w_a
	ltr	%r2,%r2
	ber	%r14
	larl	%r1,w_b
	mvhi	0(%r1),1
	br	%r14
ctrl_hoisted_copy:		/* the same through a copied address */
	larl	%r1,w_b
	lgr	%r3,%r1
	mvhi	0(%r3),1
	lrl	%r2,w_a
	br	%r14
data_dep:			/* WRITE_ONCE(w_b, READ_ONCE(w_a) + 1): no branch */
	lrl	%r2,w_a
	ahi	%r2,1
	larl	%r1,w_b
	st	%r2,0(%r1)
	br	%r14
order_swapped:			/* WRITE_ONCE(msg); WRITE_ONCE(flag); swapped */
	larl	%r1,w_flag
	mvhi	0(%r1),1
	larl	%r1,w_msg
	mvhi	0(%r1),1
	br	%r14
addr_dep_ok:
	lgrl	%r1,w_p
	l	%r2,4(%r1)
	br	%r14

ctrl_select:			/* clang: if (a) c = 1; else d = 1; as a select */
	lgrl	%r1,w_a@GOTENT
	lt	%r0,0(%r1)
	larl	%r2,w_d@GOTENT
	lgrl	%r3,w_c@GOTENT
	locge	%r3,0(%r2)
	mvhi	0(%r3),1
	br	%r14
cmpxchg_fail_early:		/* a byte cmpxchg that leaves before CS */
	l	%r0,0(%r1)
0:	rll	%r2,%r0,8(%r5)
	risbgz	%r4,%r2,56,63,0
	crjne	%r4,%r3,1f
	cs	%r0,%r4,0(%r1)
	jl	0b
1:	br	%r14
	.macro	cmpxchg_fail_through m	/* the same, failing through BCR \m,0 */
	l	%r0,0(%r1)
0:	rll	%r2,%r0,8(%r5)
	risbgz	%r4,%r2,56,63,0
	crjne	%r4,%r3,1f
	cs	%r0,%r4,0(%r1)
	jl	0b
	j	2f
1:	bcr	\m,0
2:	br	%r14
	.endm
cmpxchg_fail_bcr:		/* BCR 14,0: a barrier from z196 on */
	cmpxchg_fail_through 14
cmpxchg_fail_bcr15:		/* BCR 15,0: on z10 too */
	cmpxchg_fail_through 15
cmpxchg_fail_cc:		/* clang: the CC tested again at the exit */
	l	%r0,0(%r1)
0:	rll	%r2,%r0,8(%r5)
	llcr	%r4,%r2
	cr	%r4,%r3
	jlh	1f
	cs	%r0,%r4,0(%r1)
	jl	0b
1:	je	2f
	bcr	14,0
2:	br	%r14
cmpxchg_fail_ipm:		/* clang: the CC kept by IPM, tested by TMLH */
	l	%r0,0(%r1)
0:	rll	%r2,%r0,8(%r5)
	llcr	%r4,%r2
	cr	%r4,%r3
	jlh	1f
	cs	%r0,%r4,0(%r1)
	jl	0b
1:	ipm	%r2
	afi	%r0,-1
	tmlh	%r2,12288
	je	2f
	bcr	14,0
2:	br	%r14
cmpxchg_fail_ipm_bad:		/* the same, branching the wrong way */
	l	%r0,0(%r1)
0:	rll	%r2,%r0,8(%r5)
	llcr	%r4,%r2
	cr	%r4,%r3
	jlh	1f
	cs	%r0,%r4,0(%r1)
	jl	0b
1:	ipm	%r2
	tmlh	%r2,12288
	jne	2f
	bcr	14,0
2:	br	%r14
ctrl_select_other:		/* the select on another load's flags */
	lgrl	%r1,w_a@GOTENT
	lt	%r0,0(%r1)
	lgrl	%r4,w_z@GOTENT
	lt	%r5,0(%r4)
	larl	%r2,w_d@GOTENT
	lgrl	%r3,w_c@GOTENT
	locge	%r3,0(%r2)
	mvhi	0(%r3),1
	br	%r14
got_load_ok:			/* READ_ONCE(w_x) through its GOT slot */
	larl	%r1,w_x@GOTENT
	lg	%r1,0(%r1)
	l	%r2,0(%r1)
	br	%r14
got_reuse:			/* the slot's register reused: two loads */
	larl	%r2,w_d@GOTENT
	lg	%r3,0(%r2)
	lgrl	%r2,w_x@GOTENT
	l	%r0,0(%r2)
	l	%r0,0(%r2)
	br	%r14
ctrl_select_hoisted:		/* the select on another condition */
	lgrl	%r1,w_a@GOTENT
	l	%r0,0(%r1)
	ltr	%r4,%r4
	larl	%r2,w_d@GOTENT
	lgrl	%r3,w_c@GOTENT
	locge	%r3,0(%r2)
	mvhi	0(%r3),1
	br	%r14

#elif defined(__x86_64__)

full_no_fence:			/* atomic_fetch_add() without its LOCK prefix */
	xadd	%eax,(%rdi)
	ret
full_ok:
	lock xadd %eax,(%rdi)
	ret
full_skip:
	test	%esi,%esi
	je	1f
	lock xadd %eax,(%rdi)
1:	ret
full_fence_skipped:		/* a plain store where xchg was needed */
	test	%esi,%esi
	je	1f
	xchg	%eax,(%rdi)
	ret
1:	mov	%eax,(%rdi)
	ret
plain_cmpxchg_local:		/* cmpxchg_local(): no LOCK, no ordering */
	cmpxchg	%edx,(%rdi)
	ret
cas_loop_ok:
	mov	(%rdi),%eax
1:	lea	1(%rax),%edx
	lock cmpxchg %edx,(%rdi)
	jne	1b
	ret
spin_hoisted:
	mov	w_flag(%rip),%eax
1:	test	%eax,%eax
	je	1b
	ret
spin_ok:
1:	mov	w_flag(%rip),%eax
	test	%eax,%eax
	je	1b
	ret
ctrl_hoisted:
	movl	$1,w_b(%rip)
	mov	w_a(%rip),%eax
	ret
ctrl_ok:
	mov	w_a(%rip),%eax
	test	%eax,%eax
	je	1f
	movl	$1,w_b(%rip)
1:	ret
loads_merged:
	mov	w_x(%rip),%eax
	ret
store_torn:
	movl	$1,w_x(%rip)
	movl	$2,w_x+4(%rip)
	ret
store_invented:
	movl	$2,w_y(%rip)
	mov	w_x(%rip),%eax
	test	%eax,%eax
	je	1f
	movl	$1,w_y(%rip)
1:	ret
addr_dep_broken:
	mov	w_p(%rip),%rax
	lea	w_x(%rip),%rdx
	cmp	%rdx,%rax
	jne	1f
	mov	w_x+4(%rip),%eax
	ret
1:	xor	%eax,%eax
	ret

ctrl_hoisted_copy:
	lea	w_b(%rip),%rax
	mov	%rax,%rdx
	movl	$1,(%rdx)
	mov	w_a(%rip),%eax
	ret
data_dep:			/* WRITE_ONCE(w_b, !READ_ONCE(w_a)): a select */
	mov	w_a(%rip),%eax
	test	%eax,%eax
	sete	%dl
	movzbl	%dl,%edx
	mov	%edx,w_b(%rip)
	ret
order_swapped:
	movl	$1,w_flag(%rip)
	movl	$1,w_msg(%rip)
	ret
addr_dep_ok:
	mov	w_p(%rip),%rax
	mov	4(%rax),%eax
	ret

ctrl_select:
	mov	w_a(%rip),%eax
	mov	$w_c,%rcx
	mov	$w_d,%rdx
	test	%eax,%eax
	cmove	%rdx,%rcx
	movl	$1,(%rcx)
	ret
ctrl_cs_thunk:			/* clang: returns by "cs jmp" to the thunk */
	cmpl	$0,w_a(%rip)
	je	1f
	movl	$1,w_b(%rip)
1:	.byte	0x2e
	jmp	__x86_return_thunk
ctrl_select_other:
	cmpl	$0,w_a(%rip)
	cmpl	$0,w_z(%rip)
	mov	$w_c,%rcx
	mov	$w_d,%rdx
	cmove	%rdx,%rcx
	movl	$1,(%rcx)
	ret
ctrl_select_hoisted:
	mov	w_a(%rip),%eax
	mov	$w_c,%rcx
	mov	$w_d,%rdx
	test	%esi,%esi
	cmove	%rdx,%rcx
	movl	$1,(%rcx)
	ret

#elif defined(__aarch64__)
	.arch_extension lse

before_ok:			/* smp_mb__before_atomic(); atomic_add() */
	dmb	ish
	stadd	w0,[x1]
	ret
before_late:			/* the DMB on the wrong side */
	stadd	w0,[x1]
	dmb	ish
	ret
full_no_fence:			/* LL/SC atomic_fetch_add() without DMB ISH */
1:	ldxr	w2,[x1]
	add	w3,w2,w0
	stlxr	w4,w3,[x1]
	cbnz	w4,1b
	mov	w0,w2
	ret
full_ok:
1:	ldxr	w2,[x1]
	add	w3,w2,w0
	stlxr	w4,w3,[x1]
	cbnz	w4,1b
	dmb	ish
	mov	w0,w2
	ret
full_skip:
	cbz	w0,2f
1:	ldxr	w2,[x1]
	add	w3,w2,w0
	stlxr	w4,w3,[x1]
	cbnz	w4,1b
	dmb	ish
2:	ret
full_fence_skipped:		/* seq_cst without the kernel's trailing DMB */
1:	ldaxr	w2,[x1]
	add	w3,w2,w0
	stlxr	w4,w3,[x1]
	cbnz	w4,1b
	mov	w0,w2
	ret
full_no_release:		/* STXR: earlier accesses may pass the store */
1:	ldxr	w2,[x1]
	add	w3,w2,w0
	stxr	w4,w3,[x1]
	cbnz	w4,1b
	dmb	ish
	mov	w0,w2
	ret
acquire_missing:
1:	ldxr	w2,[x1]
	add	w3,w2,w0
	stxr	w4,w3,[x1]
	cbnz	w4,1b
	mov	w0,w2
	ret
plain_set_release:		/* atomic_set_release() as a plain store */
	str	w0,[x1]
	ret
plain_read_acquire:		/* atomic_read_acquire() as a plain load */
	ldr	w0,[x0]
	ret
ldar_read_acquire:
	ldar	w0,[x0]
	ret
cmpxchg_fail_ok:		/* a failed compare may skip the barrier */
1:	ldxr	w3,[x0]
	cmp	w3,w1
	b.ne	2f
	stlxr	w4,w2,[x0]
	cbnz	w4,1b
	dmb	ish
2:	mov	w0,w3
	ret
cmpxchg_success_no_fence:
1:	ldxr	w3,[x0]
	cmp	w3,w1
	b.ne	2f
	stlxr	w4,w2,[x0]
	cbnz	w4,1b
	b	3f
2:	dmb	ish
3:	mov	w0,w3
	ret
cas_loop_ok:
	ldaddal	w0,w0,[x1]
	ret
lse_no_al:			/* patched at boot to LDADD, which is relaxed */
661:	b	1f
662:
	.pushsection .altinstructions,"a"
	.word	661b - .
	.word	663f - .
	.hword	0
	.byte	662b - 661b
	.byte	664f - 663f
	.popsection
	.subsection 1
663:	nop
664:
	.previous
	ldadd	w0,w0,[x1]
	ret
1:	ldxr	w2,[x1]
	add	w3,w2,w0
	stlxr	w4,w3,[x1]
	cbnz	w4,1b
	dmb	ish
	mov	w0,w2
	ret
spin_hoisted:
	adrp	x1,w_flag
	ldr	w0,[x1,#:lo12:w_flag]
1:	cbz	w0,1b
	ret
spin_ok:
	adrp	x1,w_flag
	add	x1,x1,#:lo12:w_flag
1:	ldar	w0,[x1]
	cbz	w0,1b
	ret
ctrl_hoisted:
	adrp	x1,w_b
	mov	w2,#1
	str	w2,[x1,#:lo12:w_b]
	adrp	x0,w_a
	ldr	w0,[x0,#:lo12:w_a]
	ret
ctrl_ok:
	adrp	x0,w_a
	ldr	w0,[x0,#:lo12:w_a]
	cbz	w0,1f
	adrp	x1,w_b
	mov	w2,#1
	str	w2,[x1,#:lo12:w_b]
1:	ret
loads_merged:
	adrp	x0,w_x
	ldr	w0,[x0,#:lo12:w_x]
	ret
store_torn:
	adrp	x0,w_x
	add	x0,x0,#:lo12:w_x
	mov	w1,#1
	str	w1,[x0]
	mov	w1,#2
	str	w1,[x0,#4]
	ret
store_invented:
	adrp	x1,w_y
	add	x1,x1,#:lo12:w_y
	mov	w2,#2
	str	w2,[x1]
	adrp	x0,w_x
	ldr	w0,[x0,#:lo12:w_x]
	cbz	w0,1f
	mov	w2,#1
	str	w2,[x1]
1:	ret
addr_dep_broken:
	adrp	x0,w_p
	ldr	x0,[x0,#:lo12:w_p]
	adrp	x1,w_x
	add	x1,x1,#:lo12:w_x
	cmp	x0,x1
	b.ne	1f
	ldr	w0,[x1,#4]
	ret
1:	mov	w0,#0
	ret

ctrl_hoisted_copy:
	adrp	x1,w_b
	add	x1,x1,#:lo12:w_b
	mov	x3,x1
	mov	w2,#1
	str	w2,[x3]
	adrp	x0,w_a
	ldr	w0,[x0,#:lo12:w_a]
	ret
const_flag_ok:			/* clang: a constant flag picks the DMB path */
1:	ldxr	w8,[x0]
	cmp	w8,w1
	b.ne	2f
	stlxr	w9,w2,[x0]
	cbnz	w9,1b
	mov	w0,w8
	mov	w3,#1
	tbnz	w3,#0,3f
	ret
2:	mov	w0,w8
	mov	w3,wzr
	clrex
	cbz	w3,4f
3:	dmb	ish
4:	ret
const_flag_skips:		/* the same with the flag wrong: no DMB */
1:	ldxr	w8,[x0]
	cmp	w8,w1
	b.ne	2f
	stlxr	w9,w2,[x0]
	cbnz	w9,1b
	mov	w0,w8
	mov	w3,wzr
	cbnz	w3,3f
	ret
2:	mov	w0,w8
	clrex
	ret
3:	dmb	ish
	ret
status_unchecked:		/* the status goes through another register */
1:	ldxr	w2,[x1]
	add	w3,w2,w0
	stlxr	w4,w3,[x1]
	mov	w5,w4
	cbnz	w5,1b
	dmb	ish
	ret
tbnz_ok:			/* the status tested by its bit 0 */
1:	ldxr	w2,[x1]
	add	w3,w2,w0
	stlxr	w4,w3,[x1]
	tbnz	w4,#0,1b
	dmb	ish
	mov	w0,w2
	ret
dmb_st_not_full:		/* smp_wmb() orders stores only */
1:	ldxr	w2,[x1]
	add	w3,w2,w0
	stlxr	w4,w3,[x1]
	cbnz	w4,1b
	dmb	ishst
	mov	w0,w2
	ret
llsc_spill:			/* clang: a spill between LDXR and STXR */
1:	ldxr	w2,[x1]
	add	w3,w2,w0
	str	x1,[sp,#8]
	stlxr	w4,w3,[x1]
	cbnz	w4,1b
	dmb	ish
	ret
llsc_reload_ok:			/* a reload on the retry edge, outside */
	str	x1,[sp,#8]
1:	ldxr	w2,[x1]
	add	w3,w2,w0
	stlxr	w4,w3,[x1]
	cbz	w4,2f
	ldr	x1,[sp,#8]
	b	1b
2:	dmb	ish
	ret
llsc_exit_load:			/* the failed compare's exit loads */
1:	ldxr	w3,[x0]
	cmp	w3,w1
	b.ne	2f
	stlxr	w4,w2,[x0]
	cbnz	w4,1b
	dmb	ish
	ret
2:	clrex
	ldr	x5,[sp,#8]
	ret
llsc_two:			/* two loops, the second with a reload */
1:	ldxr	w3,[x0]
	cmp	w3,w1
	b.ne	3f
	stlxr	w4,w2,[x0]
	cbnz	w4,1b
	dmb	ish
	ret
3:	ldaxr	w3,[x6]
	cbz	w3,4f
	ldr	x5,[sp,#8]
4:	stlxr	w4,w3,[x6]
	cbnz	w4,3b
	dmb	ish
	ret
data_dep:
	adrp	x0,w_a
	ldr	w0,[x0,#:lo12:w_a]
	cmp	w0,#0
	cset	w1,eq
	adrp	x2,w_b
	str	w1,[x2,#:lo12:w_b]
	ret
order_swapped:
	adrp	x0,w_flag
	mov	w1,#1
	str	w1,[x0,#:lo12:w_flag]
	adrp	x0,w_msg
	str	w1,[x0,#:lo12:w_msg]
	ret
addr_dep_ok:
	adrp	x0,w_p
	ldr	x0,[x0,#:lo12:w_p]
	ldr	w0,[x0,#4]
	ret

ctrl_select:
	adrp	x8,w_a
	ldr	w8,[x8,#:lo12:w_a]
	adrp	x10,w_c
	add	x10,x10,#:lo12:w_c
	adrp	x11,w_d
	add	x11,x11,#:lo12:w_d
	cmp	w8,#0
	csel	x10,x11,x10,eq
	mov	w9,#1
	str	w9,[x10]
	ret
ctrl_select_hoisted:
	adrp	x8,w_a
	ldr	w8,[x8,#:lo12:w_a]
	adrp	x10,w_c
	add	x10,x10,#:lo12:w_c
	adrp	x11,w_d
	add	x11,x11,#:lo12:w_d
	cmp	w1,#0
	csel	x10,x11,x10,eq
	mov	w9,#1
	str	w9,[x10]
	ret


#elif defined(__riscv)
/*
 * lw a0,sym and sw a1,sym,a5 are the assembler's auipc pairs, lla the
 * auipc and addi: what GCC emits for globals with -mcmodel=medany.
 */

full_ok:			/* atomic_fetch_add(): an AMO with .aqrl */
	amoadd.w.aqrl	a0,a0,(a1)
	ret
full_no_fence:			/* the relaxed AMO */
	amoadd.w	a0,a0,(a1)
	ret
full_skip:
	beqz	a0,1f
	amoadd.w.aqrl	a0,a0,(a1)
1:	ret
full_fence_skipped:		/* one path around the fence */
1:	lr.w	a2,(a1)
	addw	a3,a2,a0
	sc.w.rl	a4,a3,(a1)
	bnez	a4,1b
	beqz	a2,2f
	fence	rw,rw
2:	ret
cas_loop_ok:			/* the kernel's fully ordered LR/SC op */
1:	lr.w	a2,(a1)
	addw	a3,a2,a0
	sc.w.rl	a4,a3,(a1)
	bnez	a4,1b
	fence	rw,rw
	mv	a0,a2
	ret
amo_aq:				/* .aq: an acquire, no full barrier */
	amoadd.w.aq	a0,a0,(a1)
	ret
gcc_amo_full:			/* GCC 12's seq_cst AMO: fence rw,w then .aq */
	fence	iorw,ow
	amoadd.w.aq	a0,a0,(a1)
	ret
sc_aq_only:			/* sc.aq without .rl: no acquire (A extension) */
1:	lr.w	a2,(a1)
	addw	a3,a2,a0
	sc.w.aq	a4,a3,(a1)
	bnez	a4,1b
	mv	a0,a2
	ret
amo_rl:				/* .rl: a release, no full barrier */
	amoswap.d.rl	a0,a0,(a1)
	ret
	.macro	rv_cmpxchg_loop fail	/* arch_cmpxchg()'s loop, to \fail if unequal */
1:	lr.w	a5,(a0)
	bne	a5,a1,\fail
	sc.w.rl	a4,a2,(a0)
	bnez	a4,1b
	.endm
cmpxchg_ok:			/* arch_cmpxchg(): a failed compare skips the fence */
	rv_cmpxchg_loop 2f
	fence	rw,rw
2:	mv	a0,a5
	ret
cmpxchg_no_fence:		/* the same without its fence */
	rv_cmpxchg_loop 2f
2:	mv	a0,a5
	ret
lr_aqrl_pair:			/* lr.aqrl; sc.rl is no full barrier (5ce6c1f3535f) */
1:	lr.w.aqrl	a2,(a1)
	addw	a3,a2,a0
	sc.w.rl	a4,a3,(a1)
	bnez	a4,1b
	mv	a0,a2
	ret
sc_aqrl:			/* sc.aqrl is: its LR precedes it (RVWMO) */
1:	lr.w	a2,(a1)
	addw	a3,a2,a0
	sc.w.aqrl	a4,a3,(a1)
	bnez	a4,1b
	mv	a0,a2
	ret
tso_after:			/* fence.tso: an acquire fence, no full one */
1:	lr.w	a2,(a1)
	addw	a3,a2,a0
	sc.w.rl	a4,a3,(a1)
	bnez	a4,1b
	fence.tso
	mv	a0,a2
	ret
fence_read_acquire:		/* smp_load_acquire(): fence r,rw after */
	lw	a0,0(a0)
	fence	r,rw
	ret
rmb_read_acquire:		/* smp_rmb() after: no acquire */
	lw	a0,0(a0)
	fence	r,r
	ret
plain_read_acquire:
	lw	a0,0(a0)
	ret
fence_set_release:		/* smp_store_release(): fence rw,w before */
	fence	rw,w
	sw	a1,0(a0)
	ret
wmb_set_release:		/* smp_wmb() before: no release */
	fence	w,w
	sw	a1,0(a0)
	ret
io_set_release:			/* GCC 12's release fence: iorw,ow */
	fence	iorw,ow
	sw	a1,0(a0)
	ret
plain_set_release:
	sw	a1,0(a0)
	ret
before_ok:			/* smp_mb__before_atomic(); atomic_add() */
	fence	rw,rw
	amoadd.w	zero,a0,(a1)
	ret
before_late:			/* the fence on the wrong side */
	amoadd.w	zero,a0,(a1)
	fence	rw,rw
	ret
iorw_full:			/* mb() on each side: fence iorw,iorw, printed bare */
	fence	iorw,iorw
	amoadd.w	a0,a0,(a1)
	fence	iorw,iorw
	ret
status_unchecked:		/* the status goes through another register */
1:	lr.w	a2,(a1)
	addw	a3,a2,a0
	sc.w.rl	a4,a3,(a1)
	mv	a5,a4
	bnez	a5,1b
	fence	rw,rw
	ret
status_beqz_ok:			/* the status tested for success */
1:	lr.w	a2,(a1)
	addw	a3,a2,a0
	sc.w.rl	a4,a3,(a1)
	beqz	a4,2f
	j	1b
2:	fence	rw,rw
	mv	a0,a2
	ret
status_bne_ok:			/* and against the zero register */
1:	lr.d	a2,(a1)
	add	a3,a2,a0
	sc.d.rl	a4,a3,(a1)
	bne	zero,a4,1b
	fence	rw,rw
	mv	a0,a2
	ret
llsc_spill:			/* a spill between LR and SC */
1:	lr.w	a2,(a1)
	addw	a3,a2,a0
	sd	a1,8(sp)
	sc.w.rl	a4,a3,(a1)
	bnez	a4,1b
	fence	rw,rw
	ret
llsc_reload_ok:			/* a reload on the retry edge, outside */
	sd	a1,8(sp)
1:	lr.w	a2,(a1)
	addw	a3,a2,a0
	sc.w.rl	a4,a3,(a1)
	beqz	a4,2f
	ld	a1,8(sp)
	j	1b
2:	fence	rw,rw
	ret
llsc_exit_load:			/* the failed compare's exit loads */
	rv_cmpxchg_loop 2f
	fence	rw,rw
	ret
2:	ld	a3,8(s0)
	ret
llsc_two:			/* two loops, the second with a reload */
	rv_cmpxchg_loop 3f
	fence	rw,rw
	ret
3:	lr.w	a5,(a6)
	beqz	a5,4f
	ld	a3,8(sp)
4:	sc.w.rl	a4,a5,(a6)
	bnez	a4,3b
	fence	rw,rw
	ret
libcall:			/* GCC 12's byte cmpxchg: libatomic */
	addi	sp,sp,-16
	sd	ra,8(sp)
	call	__atomic_compare_exchange_4
	ld	ra,8(sp)
	addi	sp,sp,16
	ret
libcall_tail:			/* the same as a tail call */
	tail	__atomic_fetch_add_4
gcc12_cmpxchg:			/* GCC 12, seq_cst with failure relaxed: no release */
1:	lr.w	a5,(a0)
	bne	a5,a1,2f
	sc.w.aq	a4,a2,(a0)
	bnez	a4,1b
2:	sext.w	a0,a5
	ret
cmp_again_ok:			/* clang: the compare repeated after the loop */
	lw	a4,0(a1)
1:	lr.w	a3,(a0)
	bne	a3,a4,2f
	sc.w.rl	a5,a2,(a0)
	bnez	a5,1b
2:	xor	a0,a3,a4
	seqz	a0,a0
	bne	a3,a4,3f
	fence	rw,rw
3:	ret
cmp_masked_ok:			/* clang: a byte's compare computed again */
1:	lr.w	a5,(a6)
	and	a3,a5,a4
	bne	a3,a1,2f
	xor	a3,a5,a2
	and	a3,a3,a4
	xor	a3,a3,a5
	sc.w.rl	a3,a3,(a6)
	bnez	a3,1b
2:	and	a4,a4,a5
	bne	a1,a4,3f
	fence	rw,rw
3:	mv	a0,a5
	ret
cmp_other_skips:		/* a compare of something else skips the fence */
	lw	a4,0(a1)
1:	lr.w	a3,(a0)
	bne	a3,a4,2f
	sc.w.rl	a5,a2,(a0)
	bnez	a5,1b
2:	bne	a3,a2,3f
	fence	rw,rw
3:	xor	a0,a3,a4
	seqz	a0,a0
	ret
spin_hoisted:
	lw	a0,w_flag
1:	beqz	a0,1b
	ret
spin_ok:
1:	lw	a0,w_flag
	beqz	a0,1b
	ret
ctrl_hoisted:
	li	a4,1
	sw	a4,w_b,a5
	lw	a0,w_a
	ret
ctrl_ok:
	lw	a0,w_a
	beqz	a0,1f
	li	a4,1
	sw	a4,w_b,a5
1:	ret
loads_merged:
	lw	a0,w_x
	ret
store_torn:
	lla	a5,w_x
	li	a4,1
	sw	a4,0(a5)
	li	a4,2
	sw	a4,4(a5)
	ret
store_invented:
	lla	a5,w_y
	li	a4,2
	sw	a4,0(a5)
	lw	a0,w_x
	beqz	a0,1f
	li	a4,1
	sw	a4,0(a5)
1:	ret
addr_dep_broken:
	ld	a0,w_p
	lla	a1,w_x
	bne	a0,a1,1f
	lw	a0,4(a1)
	ret
1:	li	a0,0
	ret

ctrl_hoisted_copy:
	lla	a5,w_b
	mv	a3,a5
	li	a4,1
	sw	a4,0(a3)
	lw	a0,w_a
	ret
data_dep:
	lw	a5,w_a
	addiw	a5,a5,1
	sw	a5,w_b,a4
	ret
order_swapped:
	li	a4,1
	sw	a4,w_flag,a5
	sw	a4,w_msg,a5
	ret
addr_dep_ok:
	ld	a5,w_p
	lw	a0,4(a5)
	ret
index_ok:			/* w_x[i]: an index at an unknown offset */
	lla	a5,w_x
	slli	a0,a0,2
	add	a5,a5,a0
	lw	a0,0(a5)
	ret

ctrl_select:			/* clang: if (a) c = 1; else d = 1; by a branch */
	lw	a0,w_a
	beqz	a0,1f
	lla	a0,w_c
	j	2f
1:	lla	a0,w_d
2:	li	a1,1
	sw	a1,0(a0)
	ret
ctrl_select_hoisted:		/* the selection on another condition */
	lw	a0,w_a
	beqz	a1,1f
	lla	a0,w_c
	j	2f
1:	lla	a0,w_d
2:	li	a1,1
	sw	a1,0(a0)
	ret


#elif defined(__powerpc64__)
/*
 * Globals as modules reach them (-mcmodel=large): toc_addr loads the
 * address from the symbol's .toc entry; loads_merged takes -mcmodel=medium's
 * @toc form.
 */
	.macro	toc_addr r, sym
	.pushsection .toc,"aw"
.Ltoc\@:	.quad	\sym
	.popsection
	addis	\r,%r2,.Ltoc\@@toc@ha
	ld	\r,.Ltoc\@@toc@l(\r)
	.endm
	.macro	fetch_add entry, exit	/* atomic_fetch_add() between \entry and \exit */
	\entry
1:	lwarx	%r9,0,%r4
	add	%r10,%r9,%r3
	stwcx.	%r10,0,%r4
	bne-	1b
	\exit
	extsw	%r3,%r9
	blr
	.endm
	.macro	cmpxchg_loop fail	/* arch_cmpxchg()'s loop, to \fail if unequal */
1:	lwarx	%r9,0,%r3
	cmpw	%r9,%r4
	bne-	\fail
	stwcx.	%r5,0,%r3
	bne-	1b
	.endm

full_ok:			/* sync; ll/sc; sync: the kernel's, fenced RELAXED */
	fetch_add hwsync,hwsync
full_no_fence:			/* the _relaxed op */
	fetch_add ,
full_skip:
	cmpwi	%r3,0
	beqlr
	fetch_add hwsync,hwsync
full_fence_skipped:		/* one path around the trailing sync */
	hwsync
1:	lwarx	%r9,0,%r4
	add	%r10,%r9,%r3
	stwcx.	%r10,0,%r4
	bne-	1b
	cmpwi	%r9,0
	beq	2f
	hwsync
2:	extsw	%r3,%r9
	blr
cas_loop_ok:			/* the kernel's xchg() */
	hwsync
1:	lwarx	%r9,0,%r3
	stwcx.	%r4,0,%r3
	bne-	1b
	hwsync
	extsw	%r3,%r9
	blr
exit_sync_removed:		/* full_ok without its trailing sync */
	fetch_add hwsync,
entry_sync_removed:		/* and without its leading one */
	fetch_add ,hwsync
gcc12_seq_cst:			/* GCC 12's SEQ_CST: isync after, an acquire */
	fetch_add hwsync,isync
clang19_seq_cst:		/* clang 19's: lwsync after */
	fetch_add hwsync,lwsync
lwsync_entry:			/* 2014's (b97021f85517): lwsync before */
	fetch_add lwsync,hwsync
acquire_isync:			/* _acquire: the relaxed op, then PPC_ACQUIRE_BARRIER */
	fetch_add ,isync
release_lwsync:			/* _release: PPC_RELEASE_BARRIER, then the op */
	fetch_add lwsync,
eieio_exit:			/* eieio orders stores among themselves only */
	fetch_add hwsync,eieio
isync_read_acquire:		/* isync with no branch before it orders nothing */
	lwz	%r3,0(%r3)
	isync
	blr
other_branch_read_acquire:	/* a branch, but not on the loaded value */
	lwz	%r9,0(%r3)
	cmpwi	%r4,0
	beq	1f
1:	isync
	extsw	%r3,%r9
	blr
ctrl_isync_read_acquire:	/* GCC's ACQUIRE load: a branch on it, isync */
	lwz	%r3,0(%r3)
	cmpw	%r3,%r3
	bne-	1f
1:	isync
	extsw	%r3,%r3
	blr
cr7_read_acquire:		/* clang's: the compare into cr7 */
	lwz	%r3,0(%r3)
	cmpd	%cr7,%r3,%r3
	extsw	%r3,%r3
	bne-	%cr7,1f
1:	isync
	blr
lwsync_read_acquire:		/* smp_load_acquire() */
	lwz	%r3,0(%r3)
	lwsync
	extsw	%r3,%r3
	blr
lwsync_set_release:		/* smp_store_release() */
	lwsync
	stw	%r4,0(%r3)
	blr
eieio_set_release:
	eieio
	stw	%r4,0(%r3)
	blr
status_unchecked:		/* a compare overwrites CR0 before the test */
	hwsync
1:	lwarx	%r9,0,%r4
	add	%r10,%r9,%r3
	stwcx.	%r10,0,%r4
	cmpwi	%r10,0
	bne-	1b
	hwsync
	blr
status_other_field:		/* the branch tests cr7, not stwcx.'s CR0 */
	hwsync
1:	lwarx	%r9,0,%r4
	add	%r10,%r9,%r3
	stwcx.	%r10,0,%r4
	bne-	%cr7,1b
	hwsync
	blr
status_beq_ok:			/* the status tested for success */
	hwsync
1:	lwarx	%r9,0,%r4
	add	%r10,%r9,%r3
	stwcx.	%r10,0,%r4
	beq+	2f
	b	1b
2:	hwsync
	extsw	%r3,%r9
	blr
cmpxchg_ok:			/* arch_cmpxchg(), GCC's fenced: no sync on failure */
	hwsync
	cmpxchg_loop 2f
	hwsync
2:	extsw	%r3,%r9
	blr
cmpxchg_no_exit:		/* the same without its trailing sync */
	hwsync
	cmpxchg_loop 2f
2:	extsw	%r3,%r9
	blr
cmpxchg_gcc12:			/* GCC 12's SEQ_CST compare-exchange */
	hwsync
	cmpxchg_loop 2f
2:	isync
	extsw	%r3,%r9
	blr
cmpxchg_acquire_ok:		/* arch_cmpxchg_acquire() */
	cmpxchg_loop 2f
	isync
2:	extsw	%r3,%r9
	blr
	.macro	cmp_again old		/* clang's: the compare repeated after the loop */
	hwsync
1:	lwarx	%r6,0,%r3
	cmpw	%r6,%r4
	bne	2f
	stwcx.	%r5,0,%r3
	bne	1b
2:	cmplw	%r6,\old
	bne	3f
	hwsync
3:	extsw	%r3,%r6
	blr
	.endm
cmp_again_ok:
	cmp_again %r4
cmp_other_skips:		/* a compare of something else skips the sync */
	cmp_again %r5
	.macro	cmpxchg64_ret ret	/* clang's cmpxchg(): the compare again, a return on it */
	mr	%r6,%r3
	hwsync
1:	ldarx	%r3,0,%r6
	cmpd	%r3,%r4
	bne	2f
	stdcx.	%r5,0,%r6
	bne	1b
2:	cmpld	%r3,%r4
	\ret
	hwsync
	blr
	.endm
cmpxchg_bnelr_ok:		/* unequal (failed): returns at once */
	cmpxchg64_ret bnelr
cmpxchg_beqlr:			/* equal (stored): returns without the sync */
	cmpxchg64_ret beqlr
	.macro	dec_if_positive exit	/* clang's: the fallback's try_cmpxchg() loop */
	lwz	%r5,0(%r3)
	b	2f
1:	cmplw	%r6,%r5		/* 3: stored if equal (cmpw r6,r5, not taken) */
	mr	%r5,%r6
	beq	4f
2:	addi	%r4,%r5,-1
	cmpwi	%r5,0
	ble	5f
	hwsync
3:	lwarx	%r6,0,%r3
	cmpw	%r6,%r5
	bne	1b
	stwcx.	%r4,0,%r3
	bne	3b
	b	1b
4:	extsw	%r3,%r4
	\exit
	blr
5:	cmpwi	%r4,0
	isellt	%r4,%r4,%r5
	extsw	%r3,%r4
	blr
	.endm
dec_if_positive_ok:
	dec_if_positive hwsync
dec_if_positive_no_exit:	/* the stored path's sync removed */
	dec_if_positive
	/*
	 * GCC 12's try_cmpxchg(): CR0's EQ bit (stwcx.'s success, or the
	 * compare's) copied into r3 and tested again around the sync.
	 */
	.macro	try_cmpxchg_gcc12 fxm=128, sh=3, cmpv=0, cr=%cr0, clobber
	hwsync
	lwz	%r10,0(%r4)
1:	lwarx	%r9,0,%r3
	cmpw	\cr,%r9,%r10
	bne	\cr,2f
	stwcx.	%r5,0,%r3
	bne	1b
2:	\clobber
	mfocrf	%r3,\fxm
	rlwinm	%r3,%r3,\sh,31,31
	bne	4f
3:	cmpwi	%r3,\cmpv
	beq	5f
	hwsync
5:	clrldi	%r3,%r3,63
	blr
4:	stw	%r9,0(%r4)
	b	3b
	.endm
try_cmpxchg_gcc12_ok:
	try_cmpxchg_gcc12
try_cmpxchg_cr7_ok:		/* the compare in cr7, its EQ bit (mfocrf 1, 31) */
	try_cmpxchg_gcc12 fxm=1, sh=31, cr=%cr7
try_cmpxchg_beq_inverted:	/* the beq tests for 1: the stored path skips */
	try_cmpxchg_gcc12 cmpv=1
try_cmpxchg_gt_bit:		/* CR0's GT bit, not EQ: unknown */
	try_cmpxchg_gcc12 sh=2
try_cmpxchg_other_field:	/* cr7 copied, CR0's EQ bit extracted */
	try_cmpxchg_gcc12 fxm=1
try_cmpxchg_cr0_rewritten:	/* a dot form rewrites CR0 before the copy */
	try_cmpxchg_gcc12 clobber="or. %r10,%r10,%r10"
llsc_spill:			/* a spill between lwarx and stwcx. */
	hwsync
1:	lwarx	%r9,0,%r4
	add	%r10,%r9,%r3
	std	%r4,32(%r1)
	stwcx.	%r10,0,%r4
	bne-	1b
	hwsync
	blr
llsc_reload_ok:			/* a reload on the retry edge, outside */
	hwsync
	std	%r4,32(%r1)
1:	lwarx	%r9,0,%r4
	add	%r10,%r9,%r3
	stwcx.	%r10,0,%r4
	beq	2f
	ld	%r4,32(%r1)
	b	1b
2:	hwsync
	blr
llsc_exit_load:			/* the failed compare's exit loads */
	hwsync
	cmpxchg_loop 2f
	hwsync
	blr
2:	ld	%r5,32(%r1)
	blr
libcall:			/* an atomic the compiler did not inline */
	mflr	%r0
	std	%r0,16(%r1)
	stdu	%r1,-32(%r1)
	bl	__atomic_fetch_add_4
	nop
	addi	%r1,%r1,32
	ld	%r0,16(%r1)
	mtlr	%r0
	blr
libcall_tail:			/* the same as a tail call */
	b	__atomic_fetch_add_4
spin_hoisted:
	toc_addr %r9,w_flag
	lwz	%r3,0(%r9)
1:	cmpwi	%r3,0
	beq	1b
	blr
spin_ok:
	toc_addr %r9,w_flag
1:	lwz	%r3,0(%r9)
	cmpwi	%r3,0
	beq	1b
	blr
ctrl_hoisted:
	toc_addr %r9,w_b
	li	%r10,1
	stw	%r10,0(%r9)
	toc_addr %r9,w_a
	lwz	%r3,0(%r9)
	blr
	.balign	8
	.quad	.TOC.-ctrl_ok
ctrl_ok:			/* with -mcmodel=large's global entry: r2 from above */
	ld	%r2,-8(%r12)
	add	%r2,%r2,%r12
	toc_addr %r9,w_a
	lwz	%r9,0(%r9)
	cmpwi	%r9,0
	beqlr
	toc_addr %r9,w_b
	li	%r10,1
	stw	%r10,0(%r9)
	blr
toc_split_ok:			/* GCC: a .toc entry's addis above the branch */
	.pushsection .toc,"aw"
.Ltoc_b:	.quad	w_b
	.popsection
	addis	%r9,%r2,.Ltoc_b@toc@ha
	toc_addr %r8,w_a
	lwz	%r8,0(%r8)
	cmpwi	%r8,0
	beq	1f
	ld	%r10,.Ltoc_b@toc@l(%r9)
	li	%r9,1
	stw	%r9,0(%r10)
	blr
1:	ld	%r9,.Ltoc_b@toc@l(%r9)
	li	%r10,2
	stw	%r10,0(%r9)
	blr
loads_merged:
	addis	%r9,%r2,w_x@toc@ha
	lwz	%r3,w_x@toc@l(%r9)
	blr
store_torn:
	toc_addr %r9,w_x
	li	%r10,1
	stw	%r10,0(%r9)
	li	%r10,2
	stw	%r10,4(%r9)
	blr
store_invented:
	toc_addr %r9,w_y
	li	%r10,2
	stw	%r10,0(%r9)
	toc_addr %r8,w_x
	lwz	%r8,0(%r8)
	cmpwi	%r8,0
	beqlr
	li	%r10,1
	stw	%r10,0(%r9)
	blr
addr_dep_broken:
	toc_addr %r9,w_p
	ld	%r9,0(%r9)
	toc_addr %r10,w_x
	cmpd	%r9,%r10
	bne	1f
	lwz	%r3,4(%r10)
	blr
1:	li	%r3,0
	blr

ctrl_hoisted_copy:
	toc_addr %r9,w_b
	mr	%r8,%r9
	li	%r10,1
	stw	%r10,0(%r8)
	toc_addr %r9,w_a
	lwz	%r3,0(%r9)
	blr
data_dep:
	toc_addr %r9,w_a
	lwz	%r10,0(%r9)
	addi	%r10,%r10,1
	toc_addr %r9,w_b
	stw	%r10,0(%r9)
	blr
order_swapped:
	li	%r10,1
	toc_addr %r9,w_flag
	stw	%r10,0(%r9)
	toc_addr %r9,w_msg
	stw	%r10,0(%r9)
	blr
addr_dep_ok:
	toc_addr %r9,w_p
	ld	%r9,0(%r9)
	lwz	%r3,4(%r9)
	blr
index_ok:			/* w_x[i]: lwzx at an unknown offset */
	toc_addr %r9,w_x
	sldi	%r3,%r3,2
	lwzx	%r3,%r9,%r3
	blr

ctrl_select:			/* clang: if (a) c = 1; else d = 1; by isel */
	toc_addr %r3,w_a
	toc_addr %r4,w_c
	toc_addr %r5,w_d
	lwz	%r3,0(%r3)
	cmplwi	%r3,0
	iseleq	%r3,%r5,%r4
	li	%r4,1
	stw	%r4,0(%r3)
	blr
ctrl_select_hoisted:		/* the selection on another condition */
	toc_addr %r3,w_a
	toc_addr %r4,w_c
	toc_addr %r5,w_d
	lwz	%r3,0(%r3)
	cmplwi	%r6,0
	iseleq	%r3,%r5,%r4
	li	%r4,1
	stw	%r4,0(%r3)
	blr

#endif
