/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmalloc family over calloc, with failure injection and a count of what
 * is outstanding (shim_mem_*), so every test can assert "no leak".
 */
#ifndef _SHIM_LINUX_SLAB_H
#define _SHIM_LINUX_SLAB_H

#include <linux/gfp.h>
#include <linux/types.h>

void *kcalloc(size_t n, size_t size, gfp_t flags);
void *kmalloc(size_t size, gfp_t flags);
void *kzalloc(size_t size, gfp_t flags);
void kfree(const void *p);

#endif
