/* SPDX-License-Identifier: GPL-2.0 */
/*
 * module_init/module_exit define SHIM_IMPL##_module_init/_exit, so two
 * implementations compiled into one test binary each keep their own entry
 * points; MODULE_*() strings are recorded per implementation (shim_modinfo).
 */
#ifndef _SHIM_LINUX_MODULE_H
#define _SHIM_LINUX_MODULE_H

#include <linux/kernel.h>
#include <linux/moduleparam.h>

struct module {
	const char *name;
};

extern struct module shim_this_module;
#define THIS_MODULE (&shim_this_module)

#ifdef SHIM_IMPL
#define module_init(fn) \
	int __PASTE(SHIM_IMPL, _module_init)(void) { return fn(); }
#define module_exit(fn) \
	void __PASTE(SHIM_IMPL, _module_exit)(void) { fn(); }
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
