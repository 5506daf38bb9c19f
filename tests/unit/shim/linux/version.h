/* SPDX-License-Identifier: GPL-2.0 */
/* The shim models Debian's 6.1 (6.1.192 in linux-source-6.1). */
#ifndef _SHIM_LINUX_VERSION_H
#define _SHIM_LINUX_VERSION_H
#define KERNEL_VERSION(a, b, c) (((a) << 16) + ((b) << 8) + ((c) > 255 ? 255 : (c)))
#define LINUX_VERSION_CODE KERNEL_VERSION(6, 1, 192)
#endif
