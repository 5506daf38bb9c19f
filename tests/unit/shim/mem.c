// SPDX-License-Identifier: GPL-2.0
/*
 * kmalloc family and per-CPU allocations over calloc.  Every live pointer
 * is remembered, so a leak, a double kfree or a kfree of a foreign
 * pointer is seen even in the build without AddressSanitizer.
 */
#include <stdio.h>
#include <stdlib.h>

#include <linux/percpu.h>
#include <linux/slab.h>

#include "shim.h"

struct shim_mem_stats shim_mem;
int shim_cpu;

static const void **live;
static size_t nlive, cap;
static long fail_left;

void shim_mem_fail(long n)
{
	fail_left = n;
}

static bool should_fail(void)
{
	if (fail_left == 0)
		return false;
	if (fail_left > 0)
		fail_left--;
	shim_mem.failed++;
	return true;
}

static void track(const void *p)
{
	if (nlive == cap) {
		cap = cap ? 2 * cap : 64;
		live = realloc(live, cap * sizeof(*live));
		if (!live) {
			fprintf(stderr, "shim: out of memory tracking allocations\n");
			abort();
		}
	}
	live[nlive++] = p;
	shim_mem.live++;
	shim_mem.allocs++;
}

static bool untrack(const void *p)
{
	size_t i;

	for (i = nlive; i-- > 0;) {
		if (live[i] == p) {
			live[i] = live[--nlive];
			shim_mem.live--;
			return true;
		}
	}
	return false;
}

bool shim_mem_is_live(const void *p)
{
	size_t i;

	for (i = 0; i < nlive; i++)
		if (live[i] == p)
			return true;
	return false;
}

void *kcalloc(size_t n, size_t size, gfp_t flags)
{
	void *p;

	shim_mem.last_gfp = flags;
	shim_mem.last_size = n * size;
	if (size && n > SIZE_MAX / size)
		return NULL;
	if (should_fail())
		return NULL;
	p = calloc(n ? n : 1, size ? size : 1);
	if (p)
		track(p);
	return p;
}

void *kzalloc(size_t size, gfp_t flags)
{
	return kcalloc(1, size, flags);
}

void *kmalloc(size_t size, gfp_t flags)
{
	return kcalloc(1, size, flags);
}

void kfree(const void *p)
{
	if (!p)
		return;
	if (!untrack(p)) {
		/* A double free or a foreign pointer: count it, do not crash. */
		shim_mem.bad_frees++;
		fprintf(stderr, "shim: kfree(%p) of a pointer not allocated here\n", p);
		return;
	}
	free((void *)p);
}

void *__alloc_percpu(size_t size, size_t align)
{
	void *p;

	if (size > SHIM_PCPU_STRIDE || align > SHIM_PCPU_STRIDE) {
		fprintf(stderr, "shim: per-CPU object of %zu bytes too large\n", size);
		abort();
	}
	if (should_fail())
		return NULL;
	p = calloc(SHIM_NR_CPUS, SHIM_PCPU_STRIDE);
	if (p)
		track(p);
	return p;
}

/* Freed per-CPU areas, poisoned, the oldest released when it is full. */
#define QUARANTINE	8
#define POISON		0x6b
static void *quarantine[QUARANTINE];
static int qnext;

static bool poisoned(const unsigned char *p)
{
	size_t i;

	for (i = 0; i < (size_t)SHIM_NR_CPUS * SHIM_PCPU_STRIDE; i++)
		if (p[i] != POISON)
			return false;
	return true;
}

static void quarantine_check(int i)
{
	if (quarantine[i] && !poisoned(quarantine[i])) {
		shim_mem.freed_writes++;
		fprintf(stderr, "shim: freed per-CPU area %p written to\n", quarantine[i]);
		memset(quarantine[i], POISON, (size_t)SHIM_NR_CPUS * SHIM_PCPU_STRIDE);
	}
}

long shim_mem_check_freed(void)
{
	int i;

	for (i = 0; i < QUARANTINE; i++)
		quarantine_check(i);
	return shim_mem.freed_writes;
}

void free_percpu(void *p)
{
	if (!p)
		return;
	if (!untrack(p)) {
		shim_mem.bad_frees++;
		fprintf(stderr, "shim: free_percpu(%p) of a pointer not allocated here\n", p);
		return;
	}
	memset(p, POISON, (size_t)SHIM_NR_CPUS * SHIM_PCPU_STRIDE);
	quarantine_check(qnext);
	free(quarantine[qnext]);
	quarantine[qnext] = p;
	qnext = (qnext + 1) % QUARANTINE;
}
