/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _SHIM_LINUX_SEQ_FILE_NET_H
#define _SHIM_LINUX_SEQ_FILE_NET_H
#include <linux/seq_file.h>
struct net;
/* proc_create_net_single(): single_open(file, show, net). */
static inline struct net *seq_file_single_net(struct seq_file *seq)
{
	return (struct net *)seq->private;
}
static inline struct net *seq_file_net(struct seq_file *seq)
{
	return (struct net *)seq->private;
}
#endif
