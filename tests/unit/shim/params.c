// SPDX-License-Identifier: GPL-2.0
/*
 * The module parameter registry and the standard ops of kernel/params.c.
 * Unknown implementations or names are reported on stderr and answered
 * -ENOENT, as parse_args() answers an unknown parameter.
 */
#include <stdio.h>

#include <linux/module.h>

#include "shim.h"

struct module shim_this_module = { .name = "tcp_cdg" };

#define MAX_PARAMS 64
static struct {
	const char *impl;
	const struct kernel_param *kp;
} params[MAX_PARAMS];
static int nparams;

#define MAX_MODINFO 32
static struct {
	const char *impl, *tag, *val;
} modinfo[MAX_MODINFO];
static int nmodinfo;

void shim_param_register(const char *impl, const struct kernel_param *kp)
{
	if (nparams == MAX_PARAMS) {
		fprintf(stderr, "shim: too many module parameters\n");
		return;
	}
	params[nparams].impl = impl;
	params[nparams++].kp = kp;
}

const struct kernel_param *shim_param_find(const char *impl, const char *name)
{
	int i;

	for (i = 0; i < nparams; i++)
		if (!strcmp(params[i].impl, impl) && !strcmp(params[i].kp->name, name))
			return params[i].kp;
	return NULL;
}

static const struct kernel_param *lookup(const char *impl, const char *name)
{
	const struct kernel_param *kp = shim_param_find(impl, name);

	if (!kp)
		fprintf(stderr, "shim: implementation '%s' has no parameter '%s'\n",
			impl, name);
	return kp;
}

int shim_param_load(const char *impl, const char *name, const char *val)
{
	const struct kernel_param *kp = lookup(impl, name);
	enum module_state was;
	int err;

	if (!kp)
		return -ENOENT;
	if (!kp->mod)
		return kp->ops->set(val, kp);
	/* load_module() parses the arguments of a module that is COMING. */
	was = kp->mod->state;
	kp->mod->state = MODULE_STATE_COMING;
	err = kp->ops->set(val, kp);
	kp->mod->state = was;
	return err;
}

int shim_param_write(const char *impl, const char *name, const char *val)
{
	const struct kernel_param *kp = lookup(impl, name);

	if (!kp)
		return -ENOENT;
	/* add_sysfs_param(): no store method without a write bit. */
	if (!(kp->perm & 0222))
		return -EACCES;
	return kp->ops->set(val, kp);
}

int shim_param_read(const char *impl, const char *name, char *buf)
{
	const struct kernel_param *kp = lookup(impl, name);

	if (!kp)
		return -ENOENT;
	if (!kp->ops->get)
		return -EPERM;
	return kp->ops->get(buf, kp);
}

void shim_modinfo_register(const char *impl, const char *tag, const char *val)
{
	if (nmodinfo < MAX_MODINFO) {
		modinfo[nmodinfo].impl = impl;
		modinfo[nmodinfo].tag = tag;
		modinfo[nmodinfo++].val = val;
	}
}

const char *shim_modinfo(const char *impl, const char *tag)
{
	int i;

	for (i = 0; i < nmodinfo; i++)
		if (!strcmp(modinfo[i].impl, impl) && !strcmp(modinfo[i].tag, tag))
			return modinfo[i].val;
	return NULL;
}

/* ---- kernel/params.c STANDARD_PARAM_DEF and bool ---- */

int param_set_int(const char *val, const struct kernel_param *kp)
{
	return kstrtoint(val, 0, (int *)kp->arg);
}

int param_get_int(char *buffer, const struct kernel_param *kp)
{
	return scnprintf(buffer, PAGE_SIZE, "%i\n", *(int *)kp->arg);
}

int param_set_uint(const char *val, const struct kernel_param *kp)
{
	return kstrtouint(val, 0, (unsigned int *)kp->arg);
}

int param_get_uint(char *buffer, const struct kernel_param *kp)
{
	return scnprintf(buffer, PAGE_SIZE, "%u\n", *(unsigned int *)kp->arg);
}

int param_set_bool(const char *val, const struct kernel_param *kp)
{
	if (!val)
		val = "1";
	return kstrtobool(val, kp->arg);
}

int param_get_bool(char *buffer, const struct kernel_param *kp)
{
	return sprintf(buffer, "%c\n", *(bool *)kp->arg ? 'Y' : 'N');
}

const struct kernel_param_ops param_ops_int = {
	.set = param_set_int, .get = param_get_int,
};
const struct kernel_param_ops param_ops_uint = {
	.set = param_set_uint, .get = param_get_uint,
};
const struct kernel_param_ops param_ops_bool = {
	.flags = KERNEL_PARAM_OPS_FL_NOARG,
	.set = param_set_bool, .get = param_get_bool,
};
