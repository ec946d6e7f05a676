// SPDX-License-Identifier: GPL-2.0
/*
 * The compiler worries of "C11 atomic variables and the kernel" (LWN,
 * 2014) and of the kernel's memory-model documents, one small function per
 * case, for the machine-code audit to disassemble. scripts/worries.tsv says
 * what must hold of each case and which document says so.
 *
 * Built as an external object against a configured tree, with the kernel's
 * own flags, once per flavour of the shared accesses:
 *  WORRY_ONCE:     READ_ONCE() and WRITE_ONCE() on plain int, the idiom;
 *  WORRY_BUILTINS: raw_atomic_read() and raw_atomic_set() on atomic_t, from
 *                  asm-generic/atomic-builtins.h;
 *  WORRY_C11:      relaxed __atomic_load_n() and __atomic_store_n() on int.
 *
 * Every shared location is a global of its own, w_<case>_<role>, declared
 * extern and defined nowhere (the object is compiled, never linked), so that
 * each access carries that symbol's relocation: defined here, they would be
 * reached from one section anchor on arm64. The statics are the locations
 * the compiler must know more about: that nothing else writes them (fold_),
 * or their address (canary_ptr_cmp). The plain_ cases store a plain int
 * on purpose, in every flavour. Nothing here runs.
 */
#ifdef WORRY_BUILTINS
#define ATOMIC_IMPL_BUILTINS
#endif

#include <linux/array_size.h>
#include <linux/atomic.h>
#include <linux/compiler.h>
#include <linux/processor.h>
#include <linux/types.h>

#if defined(WORRY_ONCE)
typedef int loc_t;
typedef u64 loc64_t;
#define LOAD(x)		READ_ONCE(x)
#define STORE(x, v)	WRITE_ONCE(x, v)
#define STORE64(x, v)	WRITE_ONCE(x, v)
#elif defined(WORRY_BUILTINS)
typedef atomic_t loc_t;
typedef atomic64_t loc64_t;
#define LOAD(x)		raw_atomic_read(&(x))
#define STORE(x, v)	raw_atomic_set(&(x), v)
#define STORE64(x, v)	raw_atomic64_set(&(x), v)
#elif defined(WORRY_C11)
typedef int loc_t;
typedef u64 loc64_t;
#define LOAD(x)		__atomic_load_n(&(x), __ATOMIC_RELAXED)
#define STORE(x, v)	__atomic_store_n(&(x), v, __ATOMIC_RELAXED)
#define STORE64(x, v)	__atomic_store_n(&(x), v, __ATOMIC_RELAXED)
#else
#error "define WORRY_ONCE, WORRY_BUILTINS or WORRY_C11"
#endif

/* atomic_t has no pointer or 16-bit kind: the builtins use the C11 form. */
#ifdef WORRY_ONCE
#define LOAD_PTR(p)	READ_ONCE(p)
#define STORE16(x, v)	WRITE_ONCE(x, v)
#else
#define LOAD_PTR(p)	__atomic_load_n(&(p), __ATOMIC_RELAXED)
#define STORE16(x, v)	__atomic_store_n(&(x), v, __ATOMIC_RELAXED)
#endif

/* v at offset 4, for an address dependency with an offset. */
struct worry_obj {
	int pad;
	loc_t v;
};

struct worry_u16_pair {
	u16 lo;
	u16 hi;
};

void worry_spec_ifelse(void);
void worry_spec_a42(void);
void worry_plain_cond(void);
void worry_plain_cond_store(void);
void worry_ctrl(void);
void worry_ctrl_legs(void);
int worry_load_twice(void);
void worry_spin(void);
void worry_spin_bare(void);
void worry_fold_spin(void);
int worry_fold_read(void);
void worry_fold_store_init(void);
void worry_store64_const(void);
void worry_store16_pair(void);
void worry_order(int m);
int worry_addr_dep(void);
void worry_canary_same_legs(void);
void worry_canary_same_legs_barrier(void);
void worry_canary_mod1(void);
void worry_canary_or_true(void);
void worry_canary_mul0(void);
int worry_canary_ptr_cmp(void);

/* An invented store: y = 2; if (x) y = 1; lets a reader see a wrong 2. */
extern loc_t w_spec_ifelse_x, w_spec_ifelse_y;

noinline void worry_spec_ifelse(void)
{
	if (LOAD(w_spec_ifelse_x))
		STORE(w_spec_ifelse_y, 1);
	else
		STORE(w_spec_ifelse_y, 2);
}

/* memory-barriers.txt's example: may become b = 42; if (a) b = a; */
extern loc_t w_spec_a42_a, w_spec_a42_b;

noinline void worry_spec_a42(void)
{
	int r = LOAD(w_spec_a42_a);

	if (r)
		STORE(w_spec_a42_b, r);
	else
		STORE(w_spec_a42_b, 42);
}

/* A plain store under a condition: writing y back unconditionally races. */
extern loc_t w_plain_cond_x;
extern int w_plain_cond_y;

noinline void worry_plain_cond(void)
{
	if (LOAD(w_plain_cond_x))
		w_plain_cond_y = 1;
}

/*
 * A plain counter bumped under flags: loop store motion may keep it in a
 * register and store it back on every path; GCC does unless
 * -fno-allow-store-data-races.
 */
extern loc_t w_plain_cond_store_flag[8];
extern int w_plain_cond_store_cnt;

noinline void worry_plain_cond_store(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(w_plain_cond_store_flag); i++)
		if (LOAD(w_plain_cond_store_flag[i]))
			w_plain_cond_store_cnt++;
}

/* Control dependency: the store may not leave the branch on the load. */
extern loc_t w_ctrl_a, w_ctrl_b;

noinline void worry_ctrl(void)
{
	if (LOAD(w_ctrl_a))
		STORE(w_ctrl_b, 1);
}

/*
 * Different stores, then different work, in the two legs: ordered by the
 * branch, or by data if the compiler selects the value of b.
 */
extern loc_t w_ctrl_legs_a, w_ctrl_legs_b, w_ctrl_legs_c, w_ctrl_legs_d;

noinline void worry_ctrl_legs(void)
{
	if (LOAD(w_ctrl_legs_a)) {
		STORE(w_ctrl_legs_b, 1);
		STORE(w_ctrl_legs_c, 1);
	} else {
		STORE(w_ctrl_legs_b, 2);
		STORE(w_ctrl_legs_d, 1);
	}
}

/* Two loads of one location may be merged into one (then r1 - r2 == 0). */
extern loc_t w_load_twice_x;

noinline int worry_load_twice(void)
{
	int r1 = LOAD(w_load_twice_x);
	int r2 = LOAD(w_load_twice_x);

	return r1 - r2;
}

/* A spin-loop load may be hoisted out of the loop. */
extern loc_t w_spin_flag;

noinline void worry_spin(void)
{
	while (!LOAD(w_spin_flag))
		cpu_relax();
}

/*
 * The same without cpu_relax(), a compiler barrier on all three (barrier(),
 * or an asm with a memory clobber) that alone forces the reload.
 */
extern loc_t w_spin_bare_flag;

noinline void worry_spin_bare(void)
{
	while (!LOAD(w_spin_bare_flag))
		;
}

/*
 * A static this file never writes is 0 as far as the compiler can see:
 * the load may be folded and the loop become an endless one. One static
 * for both cases: GCC would merge two such statics into one object anyway.
 */
static loc_t w_fold_never;

noinline void worry_fold_spin(void)
{
	while (!LOAD(w_fold_never))
		;
}

/* The same, one load: may become "return 0". */
noinline int worry_fold_read(void)
{
	return LOAD(w_fold_never);
}

/* A store of the value a static already holds (and nobody reads): may go. */
static loc_t w_fold_store_init_x;

noinline void worry_fold_store_init(void)
{
	STORE(w_fold_store_init_x, 0);
}

/* A 64-bit constant may be stored in halves, as two 32-bit immediates. */
extern loc64_t w_store64_const_x;

noinline void worry_store64_const(void)
{
	STORE64(w_store64_const_x, 0x1234567887654321ULL);
}

/* Adjacent 16-bit stores may be fused into one 32-bit store. */
extern struct worry_u16_pair w_store16_pair;

noinline void worry_store16_pair(void)
{
	STORE16(w_store16_pair.lo, 1);
	STORE16(w_store16_pair.hi, 2);
}

/* Stores to different locations may be swapped: flag before msg. */
extern loc_t w_order_msg, w_order_flag;

noinline void worry_order(int m)
{
	STORE(w_order_msg, m);
	STORE(w_order_flag, 1);
}

/* An address dependency: the compiler may guess p and load early. */
extern struct worry_obj *w_addr_dep_p;

noinline int worry_addr_dep(void)
{
	struct worry_obj *p = LOAD_PTR(w_addr_dep_p);

	return LOAD(p->v);
}

/*
 * Canaries: the documents' own examples of code the compiler may break,
 * and does today; the audit must see each one transformed.
 *
 * The same store to b in both legs: done before, or without, the branch.
 * GCC 12 merges the legs only when nothing else in them differs.
 */
extern loc_t w_canary_same_legs_a, w_canary_same_legs_b;

noinline void worry_canary_same_legs(void)
{
	if (LOAD(w_canary_same_legs_a))
		STORE(w_canary_same_legs_b, 1);
	else
		STORE(w_canary_same_legs_b, 1);
}

/* The same with barrier() in each leg, which does not help. */
extern loc_t w_canary_same_legs_barrier_a, w_canary_same_legs_barrier_b;

noinline void worry_canary_same_legs_barrier(void)
{
	if (LOAD(w_canary_same_legs_barrier_a)) {
		barrier();
		STORE(w_canary_same_legs_barrier_b, 1);
	} else {
		barrier();
		STORE(w_canary_same_legs_barrier_b, 1);
	}
}

/* q % 1 is 0 whatever q is: the branch goes, b = 2 is unconditional. */
#define WORRY_MAX 1
extern loc_t w_canary_mod1_a, w_canary_mod1_b;

noinline void worry_canary_mod1(void)
{
	int q = LOAD(w_canary_mod1_a);

	if (q % WORRY_MAX)
		STORE(w_canary_mod1_b, 1);
	else
		STORE(w_canary_mod1_b, 2);
}

/* q || 1 > 0 is true whatever q is: the branch goes. */
extern loc_t w_canary_or_true_a, w_canary_or_true_b;

noinline void worry_canary_or_true(void)
{
	int q = LOAD(w_canary_or_true_a);

	if (q || 1 > 0)
		STORE(w_canary_or_true_b, 1);
}

/* A purely syntactic data dependency: r1 * 0 is stored as a constant 0. */
extern loc_t w_canary_mul0_x, w_canary_mul0_y;

noinline void worry_canary_mul0(void)
{
	int r1 = LOAD(w_canary_mul0_x);

	STORE(w_canary_mul0_y, r1 * 0);
}

/*
 * After p == &x the compiler may load x.v by its address, not through p.
 * x is static for its address to be a constant: a global is reached
 * through the GOT on s390, whose kernel is built with -fPIC.
 */
static struct worry_obj w_canary_ptr_cmp_x;
extern struct worry_obj *w_canary_ptr_cmp_p;

noinline int worry_canary_ptr_cmp(void)
{
	struct worry_obj *p = LOAD_PTR(w_canary_ptr_cmp_p);

	if (p == &w_canary_ptr_cmp_x)
		return LOAD(p->v);
	return 0;
}
