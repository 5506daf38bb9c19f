/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace shim of <linux/kernel.h> and what it pulls in: limits, BIT(),
 * kstrto*(), scnprintf(), printk/pr_*() (captured, see shim.h), WARN_ON().
 * Test code only: never compiled into the module.
 */
#ifndef _SHIM_LINUX_KERNEL_H
#define _SHIM_LINUX_KERNEL_H

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <string.h>

#include <linux/types.h>
#include <linux/compiler.h>
#include <linux/build_bug.h>
#include <linux/minmax.h>
#include <linux/math.h>
#include <linux/log2.h>

#ifndef SHIM_IMPL_NAME
#define SHIM_IMPL_NAME "shim"
#endif

#define CONFIG_IPV6 1
#define IS_ENABLED(option) (option)

#define U8_MAX		((u8)~0U)
#define U16_MAX		((u16)~0U)
#define U32_MAX		((u32)~0U)
#define U64_MAX		((u64)~0ULL)
#define S32_MAX		((s32)(U32_MAX >> 1))
#define S32_MIN		((s32)(-S32_MAX - 1))
#define U32_C(x)	x ## U
#define BIT(nr)		(1UL << (nr))
#define PAGE_SIZE	4096UL
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define sizeof_field(TYPE, MEMBER) sizeof((((TYPE *)0)->MEMBER))
#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))

/* lib/kstrtox.c semantics: base 0 detects 0x/0, one trailing '\n' is ok. */
int kstrtoull(const char *s, unsigned int base, unsigned long long *res);
int kstrtoll(const char *s, unsigned int base, long long *res);
int kstrtouint(const char *s, unsigned int base, unsigned int *res);
int kstrtoint(const char *s, unsigned int base, int *res);
int kstrtobool(const char *s, bool *res);

int scnprintf(char *buf, size_t size, const char *fmt, ...) __printf(3, 4);

/* printk: every message is kept for the tests (shim_log_*). */
void shim_printk(const char *impl, const char *level, const char *fmt, ...)
	__printf(3, 4);
#ifndef pr_fmt
#define pr_fmt(fmt) fmt
#endif
#define pr_err(fmt, ...)    shim_printk(SHIM_IMPL_NAME, "err", pr_fmt(fmt), ##__VA_ARGS__)
#define pr_warn(fmt, ...)   shim_printk(SHIM_IMPL_NAME, "warn", pr_fmt(fmt), ##__VA_ARGS__)
#define pr_notice(fmt, ...) shim_printk(SHIM_IMPL_NAME, "notice", pr_fmt(fmt), ##__VA_ARGS__)
#define pr_info(fmt, ...)   shim_printk(SHIM_IMPL_NAME, "info", pr_fmt(fmt), ##__VA_ARGS__)
#define pr_debug(fmt, ...)  do { } while (0)

/* A WARN is a test failure: it is counted and logged (shim_warnings). */
void shim_warn(const char *file, int line, const char *cond);
#define WARN_ON(cond) ({						\
	bool __w = !!(cond);						\
	if (unlikely(__w))						\
		shim_warn(__FILE__, __LINE__, #cond);			\
	__w; })
#define WARN_ON_ONCE(cond)	WARN_ON(cond)

#endif
