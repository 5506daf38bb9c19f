// SPDX-License-Identifier: GPL-2.0
/*
 * Network namespaces, pernet subsystems (net/core/net_namespace.c) and
 * procfs entries.  The kernel's own memory here (namespaces, net_generic
 * storage, proc entries) is not counted in shim_mem: only what a module
 * allocates is.
 */
#include <stdio.h>
#include <stdlib.h>

#include <linux/proc_fs.h>
#include <net/netns/generic.h>

#include "shim.h"

struct proc_dir_entry {
	char name[64];
	struct proc_dir_entry *parent;
	int (*show)(struct seq_file *, void *);
	void *data;
	struct net *net;
	bool is_dir;
	struct proc_dir_entry *next;
};

static struct proc_dir_entry *entries;
static int nfiles;
static long proc_fail_left;

static struct proc_dir_entry init_proc_net = { .name = "net" };
static struct proc_dir_entry init_proc_stat = { .name = "stat", .is_dir = true };
struct net init_net = {
	.shim_id = 0, .proc_net = &init_proc_net, .proc_net_stat = &init_proc_stat,
};

#define MAX_NETS 16
static struct net *nets[MAX_NETS] = { &init_net };
static int nnets = 1;
static int next_net_id = 1;

static struct pernet_operations *pernet[SHIM_MAX_PERNET];
static int npernet;
static unsigned int next_gen_id = 1;

void *shim_net_generic(const struct net *net, unsigned int id)
{
	if (id == 0 || id > SHIM_MAX_PERNET || !net->gen[id]) {
		fprintf(stderr, "shim: net_generic(net %d, id %u) not registered\n",
			net->shim_id, id);
		abort();
	}
	return net->gen[id];
}

int shim_pernet_registered(void)
{
	return npernet;
}

static int ops_init(struct pernet_operations *ops, struct net *net)
{
	int err;

	if (ops->id && ops->size) {
		net->gen[*ops->id] = calloc(1, ops->size);
		if (!net->gen[*ops->id])
			return -ENOMEM;
	}
	err = ops->init ? ops->init(net) : 0;
	if (err && ops->id && ops->size) {
		free(net->gen[*ops->id]);
		net->gen[*ops->id] = NULL;
	}
	return err;
}

static void ops_exit_only(struct pernet_operations *ops, struct net *net)
{
	if (ops->pre_exit)
		ops->pre_exit(net);
	if (ops->exit)
		ops->exit(net);
}

static void ops_free(struct pernet_operations *ops, struct net *net)
{
	if (ops->id && ops->size) {
		free(net->gen[*ops->id]);
		net->gen[*ops->id] = NULL;
	}
}

static void ops_exit(struct pernet_operations *ops, struct net *net)
{
	ops_exit_only(ops, net);
	ops_free(ops, net);
}

int register_pernet_subsys(struct pernet_operations *ops)
{
	int i, err;

	if (npernet == SHIM_MAX_PERNET)
		return -ENOSPC;
	if (ops->id)
		*ops->id = next_gen_id++;
	for (i = 0; i < nnets; i++) {
		err = ops_init(ops, nets[i]);
		if (err) {
			while (i-- > 0)
				ops_exit(ops, nets[i]);
			return err;
		}
	}
	pernet[npernet++] = ops;
	return 0;
}

void unregister_pernet_subsys(struct pernet_operations *ops)
{
	int i, j;

	for (j = 0; j < npernet && pernet[j] != ops; j++)
		;
	if (j == npernet) {
		shim_warn(__FILE__, __LINE__, "unregister_pernet_subsys of unknown ops");
		return;
	}
	for (i = 0; i < nnets; i++)
		ops_exit(ops, nets[i]);
	memmove(pernet + j, pernet + j + 1, (npernet - j - 1) * sizeof(pernet[0]));
	npernet--;
}

struct net *shim_net_new(void)
{
	struct net *net;
	int i;

	if (nnets == MAX_NETS)
		return NULL;
	net = calloc(1, sizeof(*net));
	net->shim_id = next_net_id++;
	net->proc_net = calloc(1, sizeof(*net->proc_net));
	net->proc_net_stat = calloc(1, sizeof(*net->proc_net_stat));
	strcpy(net->proc_net->name, "net");
	strcpy(net->proc_net_stat->name, "stat");
	net->proc_net_stat->is_dir = true;
	for (i = 0; i < npernet; i++) {
		if (ops_init(pernet[i], net)) {
			while (i-- > 0)
				ops_exit(pernet[i], net);
			free(net->proc_net);
			free(net->proc_net_stat);
			free(net);
			return NULL;
		}
	}
	nets[nnets++] = net;
	return net;
}

void shim_net_free(struct net *net)
{
	struct proc_dir_entry *e;
	int i;

	/* cleanup_net(): every exit, the last registered first, then frees. */
	for (i = npernet; i-- > 0;)
		ops_exit_only(pernet[i], net);
	for (i = npernet; i-- > 0;)
		ops_free(pernet[i], net);
	for (e = entries; e; e = e->next)
		if (e->parent == net->proc_net || e->parent == net->proc_net_stat)
			shim_warn(__FILE__, __LINE__, "proc entry left in a dead namespace");
	for (i = 0; i < nnets && nets[i] != net; i++)
		;
	if (i < nnets)
		nets[i] = nets[--nnets];
	free(net->proc_net);
	free(net->proc_net_stat);
	free(net);
}

/* ---- procfs ---- */

void shim_proc_fail(long n)
{
	proc_fail_left = n;
}

int shim_proc_entries(void)
{
	return nfiles;
}

static struct proc_dir_entry *find(const char *name, struct proc_dir_entry *parent)
{
	struct proc_dir_entry *e;

	for (e = entries; e; e = e->next)
		if (e->parent == parent && !strcmp(e->name, name))
			return e;
	return NULL;
}

static struct proc_dir_entry *create(const char *name, struct proc_dir_entry *parent,
				     int (*show)(struct seq_file *, void *), void *data)
{
	struct proc_dir_entry *e;

	if (proc_fail_left) {
		if (proc_fail_left > 0)
			proc_fail_left--;
		return NULL;
	}
	if (!parent)
		parent = &init_proc_net;
	if (find(name, parent)) {
		shim_warn(__FILE__, __LINE__, "proc_dir_entry already registered");
		return NULL;
	}
	e = calloc(1, sizeof(*e));
	snprintf(e->name, sizeof(e->name), "%s", name);
	e->parent = parent;
	e->show = show;
	e->data = data;
	e->next = entries;
	entries = e;
	nfiles++;
	return e;
}

struct proc_dir_entry *proc_create_net_single(const char *name, umode_t mode,
		struct proc_dir_entry *parent,
		int (*show)(struct seq_file *, void *), void *data)
{
	(void)mode;
	return create(name, parent, show, data);
}

struct proc_dir_entry *proc_create_single_data(const char *name, umode_t mode,
		struct proc_dir_entry *parent,
		int (*show)(struct seq_file *, void *), void *data)
{
	(void)mode;
	return create(name, parent, show, data);
}

struct proc_dir_entry *proc_mkdir(const char *name, struct proc_dir_entry *parent)
{
	struct proc_dir_entry *e = create(name, parent, NULL, NULL);

	if (e)
		e->is_dir = true;
	return e;
}

static void unlink_entry(struct proc_dir_entry *victim)
{
	struct proc_dir_entry **pp;

	for (pp = &entries; *pp; pp = &(*pp)->next) {
		if (*pp == victim) {
			*pp = victim->next;
			free(victim);
			nfiles--;
			return;
		}
	}
}

void remove_proc_entry(const char *name, struct proc_dir_entry *parent)
{
	struct proc_dir_entry *e = find(name, parent ? parent : &init_proc_net);

	if (!e) {
		shim_warn(__FILE__, __LINE__, "remove_proc_entry: no such entry");
		return;
	}
	unlink_entry(e);
}

void proc_remove(struct proc_dir_entry *de)
{
	if (de)
		unlink_entry(de);
}

int shim_proc_read(struct net *net, const char *path, char *buf, size_t size)
{
	struct proc_dir_entry *parent = net->proc_net, *e;
	struct seq_file m = { buf, size, 0, net };

	if (!strncmp(path, "stat/", 5)) {
		parent = net->proc_net_stat;
		path += 5;
	}
	e = find(path, parent);
	if (!e || !e->show)
		return -ENOENT;
	buf[0] = '\0';
	/* single_open(file, show, net): private is the namespace. */
	e->show(&m, (void *)1);
	return (int)m.count;
}

long shim_proc_value(const char *text, const char *key)
{
	size_t n = strlen(key);
	const char *p;

	for (p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, key, n) && p[n] == ' ')
			return strtol(p + n + 1, NULL, 10);
	return -1;
}
