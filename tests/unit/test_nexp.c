// SPDX-License-Identifier: GPL-2.0
/*
 * nexp_u32(x) ~ e^(-x/10^6) * (2^32 - 1) against libm, over every x below
 * 2^16, every 7th x up to the 2^24 cut-off with the neighbours of every
 * power of two, and the cut-off itself (spec section 8).
 */
#include <math.h>
#include <stdio.h>

#include "testlib.h"

/*
 * Bounds, measured on this table and justified:
 *  - The low 8 bits are linear: 1 - y for e^-y (error y^2/2 <= 3.3e-8 of
 *    U32_MAX at y = 255e-6) with a slope floor(U32_MAX / 10^6) = 4294
 *    instead of 4294.97 (at most 255 * 0.97 = 247 counts): < 400 counts.
 *  - Each higher bit multiplies by floor(e^-y * 65536) / 65536, which is
 *    low by up to 1/65536 absolute, i.e. relatively up to 1/c for the
 *    constant c: 1.5e-5 for bit 0, growing to 6.7% for bit 15 (c = 15).
 *    The errors add up in relative terms, and each >>16 truncates < 1.
 *  So the absolute error is largest around x ~ 2^18..2^20, where several
 *  constants with a relative error of ~1e-4 apply to a result still large;
 *  the relative error is largest near the cut-off where the result is a
 *  few hundred.  The asserted bounds are the measured maxima rounded up;
 *  a changed table constant or slope exceeds them.
 */
#define ABS_BOUND	90000.0		/* counts of 2^-32; measured 87537 */
#define REL_BOUND_2_20	3.5e-5		/* relative below 2^20; measured 3.41e-5 */
#define REL_BOUND_ALL	6.5e-3		/* relative up to 2^24 - 1; measured 6.36e-3 */
/*
 * Not monotonic: where x + 1 carries into a higher bit, one floored
 * constant replaces a product of several (each floored, so their product
 * is lower), and nexp(x + 1) can exceed nexp(x).  A rise is at most the
 * sum of the two errors, 2 * ABS_BOUND (measured: 60 rises below 2^16, the
 * largest 81550 counts, a backoff probability off by 1.9e-5).
 */
#define RISE_BOUND	((u32)(2 * ABS_BOUND))

struct err {
	double abs, rel, rel20;
	u32 abs_x, rel_x;
	long n;
};

static void measure(const struct cdg_impl *impl, u32 x, struct err *e)
{
	double ref = 4294967295.0 * exp(-(double)x * 1e-6);
	double got = impl->nexp(x);
	double a = fabs(got - ref), r = a / ref;

	e->n++;
	if (a > e->abs) {
		e->abs = a;
		e->abs_x = x;
	}
	if (r > e->rel) {
		e->rel = r;
		e->rel_x = x;
	}
	if (x < (1u << 20) && r > e->rel20)
		e->rel20 = r;
}

static void test_impl(const struct cdg_impl *impl)
{
	struct err e = { 0 };
	u32 x, prev = U32_MAX, rise = 0, rises = 0;
	int k;

	for (x = 0; x < (1u << 24); x += x < (1u << 16) ? 1 : 7) {
		u32 v = impl->nexp(x);

		measure(impl, x, &e);
		if (x < (1u << 16)) {
			if (v > prev) {
				rises++;
				rise = max(rise, v - prev);
			}
			prev = v;
		}
	}
	for (k = 1; k < 24; k++) {
		measure(impl, (1u << k) - 1, &e);
		measure(impl, 1u << k, &e);
		measure(impl, (1u << k) + 1, &e);
	}
	measure(impl, (1u << 24) - 1, &e);

	tap_diag("%s nexp: %ld inputs, max abs error %.0f/2^32 (%.3g) at x=%u, "
		 "max rel error %.3g at x=%u, %.3g below 2^20", impl->name, e.n,
		 e.abs, e.abs / 4294967296.0, e.abs_x, e.rel, e.rel_x, e.rel20);
	tap_ok(impl->nexp(0) == U32_MAX, "%s nexp(0) = U32_MAX", impl->name);
	tap_ok(e.abs <= ABS_BOUND, "%s nexp max absolute error %.0f <= %.0f counts of 2^-32",
	       impl->name, e.abs, ABS_BOUND);
	tap_ok(e.rel20 <= REL_BOUND_2_20, "%s nexp relative error %.3g <= %.2g below 2^20",
	       impl->name, e.rel20, REL_BOUND_2_20);
	tap_ok(e.rel <= REL_BOUND_ALL, "%s nexp relative error %.3g <= %.2g up to the cut-off",
	       impl->name, e.rel, REL_BOUND_ALL);
	tap_ok(impl->nexp((1u << 24) - 1) > 0 && impl->nexp(1u << 24) == 0 &&
	       impl->nexp((1u << 24) + 1) == 0 && impl->nexp(U32_MAX) == 0,
	       "%s nexp cut-off: > 0 below 2^24, 0 from 2^24 on", impl->name);
	tap_diag("%s nexp rises %u times below 2^16, by at most %u", impl->name,
		 rises, rise);
	tap_ok(rise <= RISE_BOUND, "%s nexp never rises by more than %u below 2^16",
	       impl->name, RISE_BOUND);
}

int main(void)
{
	u32 x;
	bool same = true;
	u32 first = 0;

	test_impl(&impl_ours);
	if (!impl_oracle.available) {
		tap_skip("linux-source-6.1 not installed", "oracle nexp equals ours");
		return tap_done();
	}
	test_impl(&impl_oracle);
	for (x = 0; x <= (1u << 24) + 16; x++) {
		if (impl_ours.nexp(x) != impl_oracle.nexp(x)) {
			if (same)
				first = x;
			same = false;
		}
	}
	tap_ok(same, "nexp: ours equals the oracle for every x <= 2^24 + 16%s",
	       same ? "" : " (first difference below)");
	if (!same)
		tap_diag("first x where they differ: %u: ours %u oracle %u", first,
			 impl_ours.nexp(first), impl_oracle.nexp(first));
	return tap_done();
}
