/* SPDX-License-Identifier: GPL-2.0 */
/*
 * procfs as a registry of entries (parent, name, show, data).  Tests read a
 * file with shim_proc_read(net, "stat/tcp_cdg", …), which runs its show()
 * as single_open_net() would.  Registering a name twice or removing one
 * that is not there WARNs, as in the kernel.
 */
#ifndef _SHIM_LINUX_PROC_FS_H
#define _SHIM_LINUX_PROC_FS_H

#include <linux/kernel.h>
#include <linux/seq_file.h>
#include <linux/seq_file_net.h>

struct proc_dir_entry;
typedef unsigned int umode_t;

struct proc_dir_entry *proc_create_net_single(const char *name, umode_t mode,
		struct proc_dir_entry *parent,
		int (*show)(struct seq_file *, void *), void *data);
struct proc_dir_entry *proc_create_single_data(const char *name, umode_t mode,
		struct proc_dir_entry *parent,
		int (*show)(struct seq_file *, void *), void *data);
struct proc_dir_entry *proc_mkdir(const char *name, struct proc_dir_entry *parent);
void remove_proc_entry(const char *name, struct proc_dir_entry *parent);
void proc_remove(struct proc_dir_entry *de);

#endif
