// SPDX-License-Identifier: GPL-2.0
/*
 * Seedable random streams (xoshiro256**, seeded by splitmix64).  Each
 * simulated socket owns one and points shim_rng_current at it before it
 * calls into an implementation, so both implementations draw the same
 * numbers in the same order.  A test may force the value of the draws.
 */
#include <stdio.h>
#include <stdlib.h>

#include <linux/random.h>
#include <linux/sched/clock.h>

#include "shim.h"

static struct shim_rng default_rng = { { 1, 2, 3, 4 }, 0, false, 0 };
struct shim_rng *shim_rng_current = &default_rng;

static u64 splitmix64(u64 *x)
{
	u64 z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void shim_rng_seed(struct shim_rng *r, u64 seed)
{
	int i;

	for (i = 0; i < 4; i++)
		r->s[i] = splitmix64(&seed);
	r->draws = 0;
	r->forced = false;
}

static u64 rotl(u64 x, int k)
{
	return (x << k) | (x >> (64 - k));
}

u32 shim_rng_next(struct shim_rng *r)
{
	u64 *s = r->s;
	u64 result = rotl(s[1] * 5, 7) * 9;
	u64 t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return (u32)(result >> 32);
}

u32 get_random_u32(void)
{
	struct shim_rng *r = shim_rng_current;

	r->draws++;
	if (r->forced)
		return r->forced_val;
	return shim_rng_next(r);
}

/* Nothing in 6.1's CDG calls it; a call would make results time-dependent. */
u64 local_clock(void)
{
	fprintf(stderr, "shim: local_clock() called: not deterministic\n");
	abort();
}
