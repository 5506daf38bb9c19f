/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Network namespaces: init_net plus any a test creates (shim_net_new()).
 * register_pernet_subsys() allocates .size bytes per namespace for .id
 * and calls .init on every live namespace, unwinding on failure; new
 * namespaces get every registered subsystem.  A namespace going away runs
 * every .exit, the last registered first, and only then frees their
 * net_generic() storage (cleanup_net()).  As in net/core.
 */
#ifndef _SHIM_NET_NET_NAMESPACE_H
#define _SHIM_NET_NET_NAMESPACE_H

#include <linux/kernel.h>
#include <net/snmp.h>

#define SHIM_MAX_PERNET 8

struct proc_dir_entry;

struct net {
	int shim_id;				/* 0 is init_net */
	struct proc_dir_entry *proc_net;	/* /proc/net */
	struct proc_dir_entry *proc_net_stat;	/* /proc/net/stat */
	void *gen[SHIM_MAX_PERNET + 1];		/* net_generic(), by id */
	unsigned long mib[__LINUX_MIB_MAX];	/* NET_INC_STATS() */
};

extern struct net init_net;

static inline bool net_eq(const struct net *a, const struct net *b)
{
	return a == b;
}

struct pernet_operations {
	struct list_head list;
	int (*init)(struct net *net);
	void (*pre_exit)(struct net *net);
	void (*exit)(struct net *net);
	void (*exit_batch)(struct list_head *net_exit_list);
	unsigned int *id;
	size_t size;
};

int register_pernet_subsys(struct pernet_operations *ops);
void unregister_pernet_subsys(struct pernet_operations *ops);

#endif
