/* SPDX-License-Identifier: GPL-2.0 */
/* GFP flags: distinct bits so a test can check what was asked for. */
#ifndef _SHIM_LINUX_GFP_H
#define _SHIM_LINUX_GFP_H
#define __GFP_HIGH		0x20u
#define __GFP_IO		0x40u
#define __GFP_FS		0x80u
#define __GFP_NOWARN		0x2000u
#define __GFP_ZERO		0x100u
#define __GFP_KSWAPD_RECLAIM	0x800u
#define __GFP_DIRECT_RECLAIM	0x400u
#define GFP_NOWAIT		(__GFP_KSWAPD_RECLAIM)
#define GFP_ATOMIC		(__GFP_HIGH | __GFP_KSWAPD_RECLAIM)
#define GFP_KERNEL		(__GFP_DIRECT_RECLAIM | __GFP_KSWAPD_RECLAIM | __GFP_IO | __GFP_FS)
#endif
