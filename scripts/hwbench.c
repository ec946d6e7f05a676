// SPDX-License-Identifier: GPL-2.0
/*
 * Times the x86_64 probe functions of scripts/atomic_probe.c, as the kernel
 * build compiled them, on this machine's own CPU, in user space.
 *
 * scripts/hwbench.py links each variant's atomic_probe.o in (its probe_*
 * functions renamed VARIANT__probe_*) and generates hwbench_table.h: the
 * variants, and per probe its name and one function per variant. The
 * kernel's code model (absolute 32-bit addresses) holds in a non-PIE
 * binary; the only symbol it needs is __x86_return_thunk, a RET here.
 *
 * Every probe takes a pointer to its word, then integers or pointers; all
 * are called as long (*)(void *, long, long) with arguments that keep the
 * word in a steady state (a cmpxchg of 0 to 0 always succeeds). Output:
 * one line per probe, mode, round and variant: nanoseconds per call,
 * including the indirect call, which the "empty" line measures.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef long (*probe_fn)(void *p, long a, long b);

#include "hwbench_table.h"	/* NVARIANTS, variant_names[], probes[] */

asm(".globl __x86_return_thunk\n__x86_return_thunk: ret\n"
    ".globl hwbench_empty\nhwbench_empty: ret\n");
long hwbench_empty(void *p, long a, long b);

static _Alignas(64) long word[2];
static long old, done;
static pthread_barrier_t start;

/* The arguments for name, and the word's first value. */
static long args(const char *name, long *a, long *b)
{
	*a = 1;
	*b = -0x7fffffffL - 1;		/* add_unless: a limit never reached */
	if (strstr(name, "xchg")) {	/* 0 for 0: every cmpxchg succeeds */
		*a = strstr(name, "try_") ? (long)&old : 0;
		*b = 0;
		return 0;
	}
	if (strstr(name, "_and_test_if"))
		*a = (long)&done;
	else if (strstr(name, "_and"))
		*a = -1;
	return 1;			/* inc_not_zero needs a non-zero word */
}

struct job {
	probe_fn fn;
	long a, b, n;
};

static void *loop(void *arg)
{
	struct job *j = arg;

	pthread_barrier_wait(&start);
	for (long i = 0; i < j->n; i++)
		j->fn(word, j->a, j->b);
	return NULL;
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

/* Nanoseconds per call of fn by threads threads at once on one word. */
static double timed(probe_fn fn, const char *name, int threads, long n)
{
	struct job j = { .fn = fn, .n = n };
	pthread_t t[2];
	double t0;

	word[0] = args(name, &j.a, &j.b);
	old = 0;
	pthread_barrier_init(&start, NULL, threads + 1);
	for (int i = 0; i < threads; i++) {
		pthread_attr_t attr;
		cpu_set_t cpus;

		/* One thread per CPU, or "contended" means nothing. */
		CPU_ZERO(&cpus);
		CPU_SET(i, &cpus);
		pthread_attr_init(&attr);
		if (pthread_attr_setaffinity_np(&attr, sizeof(cpus), &cpus) ||
		    pthread_create(&t[i], &attr, loop, &j)) {
			fprintf(stderr, "hwbench: cannot run a thread on CPU %d\n", i);
			exit(1);
		}
		pthread_attr_destroy(&attr);
	}
	t0 = now();
	pthread_barrier_wait(&start);
	for (int i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
	pthread_barrier_destroy(&start);
	return (now() - t0) / n;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 11;
	long n = argc > 2 ? atol(argv[2]) : 200000;

	for (int r = 0; r < rounds; r++) {
		for (int threads = 1; threads <= 2; threads++) {
			printf("empty %d %d - %.3f\n", threads, r,
			       timed(hwbench_empty, "empty", threads, n));
			for (size_t p = 0; p < sizeof(probes) / sizeof(probes[0]); p++) {
				/* Interleaved, each round from another variant. */
				for (int k = 0; k < NVARIANTS; k++) {
					int v = (k + r) % NVARIANTS;

					printf("%s %d %d %s %.3f\n", probes[p].name,
					       threads, r, variant_names[v],
					       timed(probes[p].fn[v], probes[p].name,
						     threads, n));
				}
			}
		}
		fflush(stdout);
	}
	return 0;
}
