/* SPDX-License-Identifier: GPL-2.0 */
/* Shim: <linux/limits.h> is part of the shim's <linux/kernel.h>. */
#include <linux/kernel.h>
