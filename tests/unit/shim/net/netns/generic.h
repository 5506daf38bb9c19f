/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _SHIM_NET_NETNS_GENERIC_H
#define _SHIM_NET_NETNS_GENERIC_H
#include <net/net_namespace.h>
void *shim_net_generic(const struct net *net, unsigned int id);
#define net_generic(net, id) shim_net_generic(net, id)
#endif
