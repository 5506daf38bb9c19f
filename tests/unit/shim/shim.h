/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The test-facing side of the kernel shim: what tests use to control and
 * observe the fake kernel (allocation failures and leaks, the random
 * stream, captured printk, the parameter registry, namespaces and proc).
 * Kernel code never includes this.
 */
#ifndef _SHIM_SHIM_H
#define _SHIM_SHIM_H

#include <linux/kernel.h>
#include <linux/moduleparam.h>
#include <linux/proc_fs.h>
#include <net/net_namespace.h>
#include <net/tcp.h>

/* ---- memory (mem.c) ---- */
struct shim_mem_stats {
	long live;		/* allocations not yet freed */
	long allocs;		/* successful allocations */
	long failed;		/* allocations made to fail */
	long bad_frees;		/* kfree of a pointer not allocated here */
	gfp_t last_gfp;		/* flags of the last kmalloc-family call */
	size_t last_size;
	long freed_writes;	/* freed per-CPU areas written to since */
};
extern struct shim_mem_stats shim_mem;
/*
 * free_percpu() poisons the area and keeps the last few freed ones: this
 * checks they are still all poison (adding any that are not to
 * freed_writes, as it does for one that leaves the quarantine), and
 * returns freed_writes.  A write into freed counters is seen without
 * AddressSanitizer too.
 */
long shim_mem_check_freed(void);
/* Make the next n allocations fail (-1: all until reset). */
void shim_mem_fail(long n);
bool shim_mem_is_live(const void *p);

/* ---- random (random.c) ---- */
struct shim_rng {
	u64 s[4];		/* xoshiro256** */
	u64 draws;		/* get_random_u32() calls */
	bool forced;		/* next draws return forced_val */
	u32 forced_val;
};
void shim_rng_seed(struct shim_rng *r, u64 seed);
u32 shim_rng_next(struct shim_rng *r);
/* get_random_u32() reads from this stream. */
extern struct shim_rng *shim_rng_current;

/* ---- printk and WARN (printk.c) ---- */
#define SHIM_LOG_MAX 64
struct shim_log_entry {
	char impl[16];
	char level[8];
	char text[256];
};
extern struct shim_log_entry shim_log[SHIM_LOG_MAX];
extern int shim_log_count;		/* entries in shim_log (saturates) */
extern long shim_warnings;		/* WARN_ON()s that fired */
void shim_log_clear(void);
/* The last message of impl (NULL: any) containing needle, or NULL. */
const char *shim_log_find(const char *impl, const char *needle);
/* vsnprintf with the kernel's %pI4/%pI6c/%pISpc; returns scnprintf's. */
int shim_kvsnprintf(char *buf, size_t size, const char *fmt, va_list ap);

/* ---- parameters and module info (params.c) ---- */
/* As at load (parse_args): calls the set op whatever the permission. */
int shim_param_load(const char *impl, const char *name, const char *val);
/* As a write to /sys/module/.../parameters/NAME: -EACCES when read-only. */
int shim_param_write(const char *impl, const char *name, const char *val);
/* Reads the value as sysfs shows it into buf (PAGE_SIZE); <0 on error. */
int shim_param_read(const char *impl, const char *name, char *buf);
const struct kernel_param *shim_param_find(const char *impl, const char *name);
const char *shim_modinfo(const char *impl, const char *tag);

/* ---- namespaces and proc (net.c) ---- */
struct net *shim_net_new(void);		/* NULL if a pernet init failed */
void shim_net_free(struct net *net);
int shim_pernet_registered(void);	/* subsystems registered now */
int shim_proc_entries(void);		/* proc files registered now */
/* Read /proc/net/<path> of net ("stat/tcp_cdg"); length or -ENOENT. */
int shim_proc_read(struct net *net, const char *path, char *buf, size_t size);
/* The value of "name value" line `key` in a proc text, or -1. */
long shim_proc_value(const char *text, const char *key);
void shim_proc_fail(long n);		/* next n proc creations fail */

/* ---- congestion control (tcp_cong.c) ---- */
int shim_cc_registered(void);		/* ops registered now */
extern long shim_cc_bad_unregisters;	/* unregister of an unknown ops */
/* tcp_input.c's, for the model: PRR start, ssthresh() from the CC. */
void tcp_init_cwnd_reduction(struct sock *sk);
/* Lifecycle as tcp_cong.c: init/cleanup/reinit (setsockopt). */
void shim_cc_init(struct sock *sk, const struct tcp_congestion_ops *ops);
void shim_cc_cleanup(struct sock *sk);
void shim_cc_reinit(struct sock *sk, const struct tcp_congestion_ops *ops);

/* ---- tracepoints (trace.c) ---- */
void shim_trace_enable(bool on);
long shim_trace_count(const char *event);	/* NULL: all events */
const char *shim_trace_last(const char *event);	/* its last text or NULL */
void shim_trace_clear(void);

#endif
