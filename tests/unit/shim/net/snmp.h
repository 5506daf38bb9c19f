/* SPDX-License-Identifier: GPL-2.0 */
/* The LINUX_MIB counters CDG and the model touch, per struct net. */
#ifndef _SHIM_NET_SNMP_H
#define _SHIM_NET_SNMP_H

enum {
	LINUX_MIB_NUM = 0,
	LINUX_MIB_TCPHYSTARTTRAINDETECT,
	LINUX_MIB_TCPHYSTARTTRAINCWND,
	LINUX_MIB_TCPHYSTARTDELAYDETECT,
	LINUX_MIB_TCPHYSTARTDELAYCWND,
	LINUX_MIB_TCPSACKRECOVERY,
	LINUX_MIB_TCPFULLUNDO,
	LINUX_MIB_TCPDSACKUNDO,
	LINUX_MIB_TCPLOSSUNDO,
	LINUX_MIB_TCPTIMEOUTS,
	__LINUX_MIB_MAX
};

#define NET_ADD_STATS(net, field, adnd)	((void)((net)->mib[field] += (adnd)))
#define NET_INC_STATS(net, field)	NET_ADD_STATS(net, field, 1)
#define __NET_ADD_STATS(net, field, adnd) NET_ADD_STATS(net, field, adnd)
#define __NET_INC_STATS(net, field)	NET_INC_STATS(net, field)

#endif
