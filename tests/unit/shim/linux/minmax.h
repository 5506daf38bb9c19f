/* SPDX-License-Identifier: GPL-2.0 */
/*
 * min()/max() with the semantics of Debian's 6.1 (6.1.19x, which carries
 * the 6.x minmax rework): operands are evaluated once, mixed types are
 * allowed only when the comparison cannot change meaning with signedness
 * (both unsigned, both signed, or a signed operand that is statically
 * non-negative), else the build fails.  min_t/max_t cast both sides first.
 * A module that compiles here with a signedness mistake would not compile
 * in the kernel either, and vice versa.
 */
#ifndef _SHIM_LINUX_MINMAX_H
#define _SHIM_LINUX_MINMAX_H

/*
 * The signedness check compares unsigned values with 0 by design; the
 * kernel only warns about that (-Wtype-limits) at W=2.
 */
#pragma GCC diagnostic ignored "-Wtype-limits"

#include <linux/build_bug.h>
#include <linux/compiler.h>

/* bit 0: usable in an unsigned comparison, bit 1: in a signed one. */
#define __shim_nonneg(ux)	statically_true((long long)(ux) >= 0)
#define __shim_sign_use(ux) (is_signed_type(__typeof__(ux)) ?		\
	(2 + __shim_nonneg(ux)) : (1 + 2 * (sizeof(ux) < 4)))
#define __shim_types_ok(ux, uy)	(__shim_sign_use(ux) & __shim_sign_use(uy))

#define __shim_cmp(op, x, y)	((x) op (y) ? (x) : (y))

#define __shim_careful(op, x, y, ux, uy) ({				\
	__auto_type ux = (x);						\
	__auto_type uy = (y);						\
	BUILD_BUG_ON_MSG(!__shim_types_ok(ux, uy),			\
			 #op "(" #x ", " #y ") signedness error");	\
	__shim_cmp(op, ux, uy); })

#define __shim_careful3(op, x, y, z, ux, uy, uz) ({			\
	__auto_type ux = (x);						\
	__auto_type uy = (y);						\
	__auto_type uz = (z);						\
	BUILD_BUG_ON_MSG(!(__shim_sign_use(ux) & __shim_sign_use(uy) &	\
			   __shim_sign_use(uz)),			\
			 #op "3(" #x ", " #y ", " #z ") signedness error");\
	__shim_cmp(op, ux, __shim_cmp(op, uy, uz)); })

#define __shim_once_t(op, type, x, y, ux, uy) ({			\
	type ux = (x);							\
	type uy = (y);							\
	__shim_cmp(op, ux, uy); })

#define min(x, y) __shim_careful(<, x, y, __UNIQUE_ID(x_), __UNIQUE_ID(y_))
#define max(x, y) __shim_careful(>, x, y, __UNIQUE_ID(x_), __UNIQUE_ID(y_))
#define min3(x, y, z) __shim_careful3(<, x, y, z, __UNIQUE_ID(x_),	\
				      __UNIQUE_ID(y_), __UNIQUE_ID(z_))
#define max3(x, y, z) __shim_careful3(>, x, y, z, __UNIQUE_ID(x_),	\
				      __UNIQUE_ID(y_), __UNIQUE_ID(z_))
#define min_t(type, x, y) \
	__shim_once_t(<, type, x, y, __UNIQUE_ID(x_), __UNIQUE_ID(y_))
#define max_t(type, x, y) \
	__shim_once_t(>, type, x, y, __UNIQUE_ID(x_), __UNIQUE_ID(y_))

#define min_not_zero(x, y) ({						\
	__typeof__(x) __mnz_x = (x);					\
	__typeof__(y) __mnz_y = (y);					\
	__mnz_x == 0 ? __mnz_y : ((__mnz_y == 0) ? __mnz_x : min(__mnz_x, __mnz_y)); })

#define clamp_t(type, val, lo, hi) min_t(type, max_t(type, val, lo), hi)
#define clamp(val, lo, hi)	min((__typeof__(val))max(val, lo), hi)

#endif
