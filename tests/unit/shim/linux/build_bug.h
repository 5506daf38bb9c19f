/* SPDX-License-Identifier: GPL-2.0 */
/*
 * BUILD_BUG_ON as the kernel does it: a call to a function carrying
 * __attribute__((error)) that only optimisation can remove, so conditions
 * that are constant only after inlining (minmax's signedness checks) behave
 * as in a kernel build.  The unit build therefore needs -O1 or more.
 */
#ifndef _SHIM_LINUX_BUILD_BUG_H
#define _SHIM_LINUX_BUILD_BUG_H

#include <linux/compiler.h>

#define __shim_compiletime_assert(cond, msg, id)			\
	do {								\
		extern void id(void) __attribute__((__error__(msg)));	\
		if (!(cond))						\
			id();						\
	} while (0)

#define BUILD_BUG_ON_MSG(cond, msg) \
	__shim_compiletime_assert(!(cond), msg, __UNIQUE_ID(__build_bug_))
#define BUILD_BUG_ON(cond) \
	BUILD_BUG_ON_MSG(cond, "BUILD_BUG_ON failed: " #cond)
#define BUILD_BUG_ON_ZERO(e)	((int)(sizeof(struct { int : (-!!(e)); })))

#endif
