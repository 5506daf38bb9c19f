/* SPDX-License-Identifier: GPL-2.0 */
/* DIV_ROUND_* as in 6.1's <linux/math.h>: rounding depends on signedness. */
#ifndef _SHIM_LINUX_MATH_H
#define _SHIM_LINUX_MATH_H

#define DIV_ROUND_UP(n, d)	(((n) + (d) - 1) / (d))

/* Rounds half away from zero for signed operands, half up for unsigned. */
#define DIV_ROUND_CLOSEST(x, divisor) ({				\
	__typeof__(x) __dr_x = (x);					\
	__typeof__(divisor) __dr_d = (divisor);				\
	(((__typeof__(x))-1) > 0 ||					\
	 ((__typeof__(divisor))-1) > 0 ||				\
	 (((__dr_x) > 0) == ((__dr_d) > 0))) ?				\
		(((__dr_x) + ((__dr_d) / 2)) / (__dr_d)) :		\
		(((__dr_x) - ((__dr_d) / 2)) / (__dr_d));		\
})

static inline unsigned long long div_u64(unsigned long long n, unsigned int d)
{
	return n / d;
}

static inline unsigned long long div64_u64(unsigned long long n,
					   unsigned long long d)
{
	return n / d;
}

#endif
