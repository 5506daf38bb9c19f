/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace shim of <linux/types.h>: the kernel's fixed-width names. */
#ifndef _SHIM_LINUX_TYPES_H
#define _SHIM_LINUX_TYPES_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* A typedef, as in the kernel, not <stdbool.h>'s macro: module_param(x,
 * bool, …) pastes the type name. */
typedef _Bool bool;
#define true	1
#define false	0

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef int64_t s64;
typedef u8 __u8;
typedef u16 __u16;
typedef u32 __u32;
typedef u64 __u64;
typedef s32 __s32;
typedef u16 __be16;
typedef u32 __be32;
typedef unsigned int gfp_t;

struct list_head {
	struct list_head *next, *prev;
};

#endif
