/* SPDX-License-Identifier: GPL-2.0 */
/*
 * module_init/module_exit define SHIM_IMPL##_module_init/_exit, so two
 * implementations compiled into one test binary each keep their own entry
 * points; MODULE_*() strings are recorded per implementation (shim_modinfo).
 * Each implementation is its own struct module (THIS_MODULE), whose state
 * follows load_module(): COMING while its arguments are parsed
 * (shim_param_load()) and its init runs, LIVE after a successful init,
 * GOING during its exit, UNFORMED when not loaded.
 */
#ifndef _SHIM_LINUX_MODULE_H
#define _SHIM_LINUX_MODULE_H

#include <linux/kernel.h>
#include <linux/moduleparam.h>

enum module_state {
	MODULE_STATE_LIVE,
	MODULE_STATE_COMING,
	MODULE_STATE_GOING,
	MODULE_STATE_UNFORMED,
};

struct module {
	const char *name;
	enum module_state state;
};

extern struct module shim_this_module;	/* code outside the implementations */

#ifdef SHIM_IMPL
extern struct module __PASTE(SHIM_IMPL, _this_module);
#define THIS_MODULE (&__PASTE(SHIM_IMPL, _this_module))
#define module_init(fn)							\
	struct module __PASTE(SHIM_IMPL, _this_module) = {		\
		.name = "tcp_cdg", .state = MODULE_STATE_UNFORMED };	\
	int __PASTE(SHIM_IMPL, _module_init)(void)			\
	{								\
		int err;						\
		THIS_MODULE->state = MODULE_STATE_COMING;		\
		err = fn();						\
		THIS_MODULE->state = err ? MODULE_STATE_UNFORMED :	\
					   MODULE_STATE_LIVE;		\
		return err;						\
	}
#define module_exit(fn)							\
	void __PASTE(SHIM_IMPL, _module_exit)(void)			\
	{								\
		THIS_MODULE->state = MODULE_STATE_GOING;		\
		fn();							\
		THIS_MODULE->state = MODULE_STATE_UNFORMED;		\
	}
#else
#define THIS_MODULE (&shim_this_module)
#endif

void shim_modinfo_register(const char *impl, const char *tag, const char *val);
#define __SHIM_MODINFO(tag, val, id)					\
	static void __attribute__((constructor)) id(void)		\
	{ shim_modinfo_register(SHIM_IMPL_NAME, tag, val); }
#define MODULE_INFO(tag, val) __SHIM_MODINFO(#tag, val, __UNIQUE_ID(modinfo_))
#define MODULE_LICENSE(l)	MODULE_INFO(license, l)
#define MODULE_AUTHOR(a)	MODULE_INFO(author, a)
#define MODULE_DESCRIPTION(d)	MODULE_INFO(description, d)
#define MODULE_VERSION(v)	MODULE_INFO(version, v)
#define MODULE_ALIAS(a)		MODULE_INFO(alias, a)

#endif
