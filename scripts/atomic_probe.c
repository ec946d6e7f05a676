// SPDX-License-Identifier: GPL-2.0
/*
 * One function per atomic primitive, for 'make report' to disassemble.
 *
 * Built as an external object against a configured kernel tree, with the
 * kernel's own flags, on the implementation that tree is configured with:
 * the stock Debian tree, or the series with CONFIG_ATOMIC_ARCH or
 * CONFIG_ATOMIC_BUILTINS. Nothing here runs.
 */
#include <linux/atomic.h>
#include <linux/limits.h>

#define PROBE static noinline __used

#define PROBE_CMPXCHG(type)						\
PROBE type probe_xchg_##type(type *p, type n)				\
{									\
	return xchg(p, n);						\
}									\
PROBE type probe_cmpxchg_##type(type *p, type o, type n)		\
{									\
	return cmpxchg(p, o, n);					\
}									\
PROBE bool probe_try_cmpxchg_##type(type *p, type *o, type n)		\
{									\
	return try_cmpxchg(p, o, n);					\
}

PROBE_CMPXCHG(u8)
PROBE_CMPXCHG(u16)
PROBE_CMPXCHG(u32)
PROBE_CMPXCHG(u64)

#ifdef system_has_cmpxchg128
PROBE u128 probe_cmpxchg_u128(u128 *p, u128 o, u128 n)
{
	return cmpxchg128(p, o, n);
}

PROBE bool probe_try_cmpxchg_u128(u128 *p, u128 *o, u128 n)
{
	return try_cmpxchg128(p, o, n);
}
#endif

/* @atomic is atomic or atomic64, @vtype its type, @type its value's. */
#define PROBE_ATOMIC(atomic, vtype, type, max)				\
PROBE void probe_##atomic##_add(vtype *v, type i)			\
{									\
	atomic##_add(i, v);						\
}									\
PROBE void probe_##atomic##_inc(vtype *v)				\
{									\
	atomic##_inc(v);						\
}									\
PROBE type probe_##atomic##_fetch_add(vtype *v, type i)			\
{									\
	return atomic##_fetch_add(i, v);				\
}									\
PROBE type probe_##atomic##_add_return(vtype *v, type i)		\
{									\
	return atomic##_add_return(i, v);				\
}									\
PROBE void probe_##atomic##_and(vtype *v, type i)			\
{									\
	atomic##_and(i, v);						\
}									\
PROBE void probe_##atomic##_or(vtype *v, type i)			\
{									\
	atomic##_or(i, v);						\
}									\
PROBE void probe_##atomic##_xor(vtype *v, type i)			\
{									\
	atomic##_xor(i, v);						\
}									\
PROBE bool probe_##atomic##_dec_and_test(vtype *v)			\
{									\
	return atomic##_dec_and_test(v);				\
}									\
/* How the condition-deciding ops are used: branched on. */		\
PROBE void probe_##atomic##_dec_and_test_if(vtype *v, int *done)	\
{									\
	if (atomic##_dec_and_test(v))					\
		WRITE_ONCE(*done, 1);					\
}									\
PROBE bool probe_##atomic##_sub_and_test(vtype *v, type i)		\
{									\
	return atomic##_sub_and_test(i, v);				\
}									\
PROBE bool probe_##atomic##_add_unless(vtype *v, type a, type u)	\
{									\
	return atomic##_add_unless(v, a, u);				\
}									\
PROBE bool probe_##atomic##_inc_not_zero(vtype *v)			\
{									\
	return atomic##_inc_not_zero(v);				\
}									\
PROBE type probe_##atomic##_xchg(vtype *v, type n)			\
{									\
	return atomic##_xchg(v, n);					\
}									\
PROBE type probe_##atomic##_cmpxchg(vtype *v, type o, type n)		\
{									\
	return atomic##_cmpxchg(v, o, n);				\
}									\
/* The usual try_cmpxchg() loop: increment up to a limit. */		\
PROBE bool probe_##atomic##_inc_below(vtype *v)				\
{									\
	type old = atomic##_read(v);					\
									\
	do {								\
		if (old == (max))					\
			return false;					\
	} while (!atomic##_try_cmpxchg(v, &old, old + 1));		\
	return true;							\
}

PROBE_ATOMIC(atomic, atomic_t, int, INT_MAX)
PROBE_ATOMIC(atomic64, atomic64_t, s64, S64_MAX)
