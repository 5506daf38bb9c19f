/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-CPU data: SHIM_NR_CPUS copies SHIM_PCPU_STRIDE bytes apart in one
 * allocation.  this_cpu_*() touch the copy of shim_cpu, which a test (or
 * the simulated sender, per ACK) may change, so sums over
 * for_each_possible_cpu() are really exercised.
 */
#ifndef _SHIM_LINUX_PERCPU_H
#define _SHIM_LINUX_PERCPU_H

#include <linux/kernel.h>
#include <linux/cpumask.h>

#define SHIM_PCPU_STRIDE	4096

extern int shim_cpu;

void *__alloc_percpu(size_t size, size_t align);
void free_percpu(void *p);

#define alloc_percpu(type) \
	((type *)__alloc_percpu(sizeof(type), __alignof__(type)))
#define alloc_percpu_gfp(type, gfp)	alloc_percpu(type)
#define per_cpu_ptr(ptr, cpu) \
	((__typeof__(ptr))((char *)(ptr) + (size_t)(cpu) * SHIM_PCPU_STRIDE))
#define this_cpu_ptr(ptr)	per_cpu_ptr(ptr, shim_cpu)
#define raw_cpu_ptr(ptr)	this_cpu_ptr(ptr)
#define this_cpu_add(pcp, v)	((void)(*this_cpu_ptr(&(pcp)) += (v)))
#define this_cpu_inc(pcp)	this_cpu_add(pcp, 1)
#define this_cpu_dec(pcp)	this_cpu_add(pcp, -1)
#define this_cpu_read(pcp)	(*this_cpu_ptr(&(pcp)))
#define __this_cpu_add(pcp, v)	this_cpu_add(pcp, v)
#define __this_cpu_inc(pcp)	this_cpu_inc(pcp)
#define raw_cpu_inc(pcp)	this_cpu_inc(pcp)

#endif
