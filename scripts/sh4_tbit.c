// SPDX-License-Identifier: GPL-2.0
/*
 * Debian 12's cross compiler for sh4 (gcc-12-sh4-linux-gnu 12.2.0-13cross1,
 * "sh4-linux-gnu-gcc (Debian 12.2.0-13) 12.2.0") drops the load and the TST
 * that set the T bit before a conditional branch, at -O1 and above:
 *
 *   sh4-linux-gnu-gcc -O2 -nostdlib -static scripts/sh4_tbit.c -o tbit
 *   timeout 5 qemu-sh4 ./tbit
 *
 * Compiled right (-O0) it prints "0 0 3" and exits 0; at -O1, -O2 and -Os it
 * prints "0 1" and hangs. is_nonzero() is "bf.s 1f; mov.l @r4,r0; rts; nop;
 * 1: rts; mov #1,r0", a branch on the caller's T bit, and count() is
 * "bt.s 2f; mov #0,r0; 1: bf.s 1b; add #1,r0", a loop that never loads. The
 * fault is in cc1, not in the code: sh_treg_combine declares
 * t_reg_operand() and negt_reg_operand() as returning int where they return
 * bool, and on x86_64 tests all of %eax where only %al is set, so it takes
 * ordinary sets for stores of T and deletes them with the TST. In the
 * kernel it leaves malloc() of include/linux/decompress/mm.h returning NULL,
 * so the gzip decompressor of the r2d zImage stops in error(), silently.
 *
 * Run by no test: the evidence for scripts/arches.tsv's sh row.
 */

__attribute__((noinline)) int is_nonzero(const int *p)
{
	if (*p)
		return 1;
	asm volatile("" ::: "memory");	/* a branch, not a NEGC */
	return 0;
}

__attribute__((noinline)) int count(int *const *v)
{
	int n = 0;

	while (*v++)
		n++;
	return n;
}

static long sys(long nr, long a, long b, long c)
{
	register long r3 asm("r3") = nr, r4 asm("r4") = a, r5 asm("r5") = b,
		r6 asm("r6") = c;

	asm volatile("trapa #0x13" : "+r" (r3) : "r" (r4), "r" (r5), "r" (r6)
		     : "memory", "t");
	return r3;
}

static int zero, x;
static int *vec[] = { &x, &x, &x, 0, &x, 0 };

void start_c(void)
{
	static char out[] = "? ? ?\n";
	int a, b, c;

	asm volatile("sett" ::: "t");	/* T=1 left for the callee */
	a = is_nonzero(&zero);
	asm volatile("clrt" ::: "t");
	b = is_nonzero(&zero);
	out[0] = '0' + a;
	out[2] = '0' + b;
	sys(4, 1, (long)out, 4);	/* write(1, "a b ", 4) */
	c = count(vec);
	out[4] = '0' + (c > 9 ? 9 : c);
	sys(4, 1, (long)out + 4, 2);
	sys(1, !(a == 0 && b == 0 && c == 3), 0, 0);	/* exit */
	for (;;)
		;
}

asm(".text\n.global _start\n_start:\n\tmov.l 1f,r0\n\tjmp @r0\n\tnop\n"
    "\t.align 2\n1:\t.long start_c\n");
