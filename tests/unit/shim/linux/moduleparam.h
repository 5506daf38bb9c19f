/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Module parameters.  Each module_param*() registers its kernel_param, at
 * program start, in a registry keyed by implementation (SHIM_IMPL_NAME) and
 * name, so a test can do what insmod and sysfs do:
 *   shim_param_load("ours", "window", "3")      parse_args() at load
 *   shim_param_write("ours", "backoff_beta", …) a write to sysfs
 *   shim_param_read("ours", "backoff_beta", buf)
 * The standard ops (param_ops_int/uint/bool) follow kernel/params.c.
 */
#ifndef _SHIM_LINUX_MODULEPARAM_H
#define _SHIM_LINUX_MODULEPARAM_H

#include <linux/kernel.h>

struct module;
struct kernel_param;

struct kernel_param_ops {
	unsigned int flags;
	int (*set)(const char *val, const struct kernel_param *kp);
	int (*get)(char *buffer, const struct kernel_param *kp);
	void (*free)(void *arg);
};

#define KERNEL_PARAM_OPS_FL_NOARG	(1 << 0)

struct kernel_param {
	const char *name;
	struct module *mod;
	const struct kernel_param_ops *ops;
	const u16 perm;
	s8 level;
	u8 flags;
	union {
		void *arg;
	};
};

void shim_param_register(const char *impl, const struct kernel_param *kp);

#define module_param_cb(_n, _ops, _arg, _perm)				\
	static const struct kernel_param __param_##_n = {		\
		.name = #_n, .mod = THIS_MODULE, .ops = (_ops),	\
		.perm = (_perm), .level = -1, .arg = (_arg) };		\
	static void __attribute__((constructor)) __param_reg_##_n(void)	\
	{ shim_param_register(SHIM_IMPL_NAME, &__param_##_n); }

/* The kernel's type check: module_param(x, int, …) needs an int x. */
#define __param_check(name, p, type) \
	static inline type __always_unused *__check_##name(void) { return (p); }
#define param_check_int(name, p)	__param_check(name, p, int)
#define param_check_uint(name, p)	__param_check(name, p, unsigned int)
#define param_check_bool(name, p)	__param_check(name, p, bool)

#define module_param_named(_n, _value, _type, _perm)			\
	param_check_##_type(_n, &(_value));				\
	module_param_cb(_n, &param_ops_##_type, &_value, _perm)
#define module_param(_n, _type, _perm) module_param_named(_n, _n, _type, _perm)

#define MODULE_PARM_DESC(name, desc)	\
	static const char __UNIQUE_ID(parmdesc)[] __always_unused = #name ":" desc

int param_set_int(const char *val, const struct kernel_param *kp);
int param_get_int(char *buffer, const struct kernel_param *kp);
int param_set_uint(const char *val, const struct kernel_param *kp);
int param_get_uint(char *buffer, const struct kernel_param *kp);
int param_set_bool(const char *val, const struct kernel_param *kp);
int param_get_bool(char *buffer, const struct kernel_param *kp);
extern const struct kernel_param_ops param_ops_int;
extern const struct kernel_param_ops param_ops_uint;
extern const struct kernel_param_ops param_ops_bool;

#endif
