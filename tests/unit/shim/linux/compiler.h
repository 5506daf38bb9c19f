/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace shim of the <linux/compiler*.h> attributes and helpers. */
#ifndef _SHIM_LINUX_COMPILER_H
#define _SHIM_LINUX_COMPILER_H

#define __pure			__attribute__((__pure__))
#define __read_mostly
#define __init
#define __exit
#define __net_init
#define __net_exit
#define __percpu
#define __force
#define __always_unused		__attribute__((__unused__))
#define __maybe_unused		__attribute__((__unused__))
#define __printf(a, b)		__attribute__((__format__(printf, a, b)))
#define __noreturn		__attribute__((__noreturn__))
#define likely(x)		__builtin_expect(!!(x), 1)
#define unlikely(x)		__builtin_expect(!!(x), 0)
#define barrier()		__asm__ __volatile__("" : : : "memory")

#define ___PASTE(a, b)		a##b
#define __PASTE(a, b)		___PASTE(a, b)
#define __UNIQUE_ID(prefix)	__PASTE(__PASTE(__UNIQUE_ID_, prefix), __COUNTER__)
#define __stringify_1(x)	#x
#define __stringify(x)		__stringify_1(x)

/* As in 6.1's compiler.h: evaluated after optimisation, like the kernel. */
#define is_signed_type(type)	(((type)(-1)) < (type)1)
#define statically_true(x)	(__builtin_constant_p(x) && (x))
#define __is_constexpr(x) \
	(sizeof(int) == sizeof(*(8 ? ((void *)((long)(x) * 0l)) : (int *)8)))

#define READ_ONCE(x)		(*(const volatile __typeof__(x) *)&(x))
/* Single-threaded tests: the builtin gives the kernel's return value. */
#define cmpxchg(ptr, old, new)	__sync_val_compare_and_swap(ptr, old, new)
#define WRITE_ONCE(x, val)	do { *(volatile __typeof__(x) *)&(x) = (val); } while (0)

#endif
