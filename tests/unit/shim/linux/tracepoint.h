/* SPDX-License-Identifier: GPL-2.0 */
/*
 * TRACE_EVENT() becomes a static inline trace_<name>() that, when the
 * event is enabled (shim_trace_enable()), runs the event's TP_fast_assign
 * into its TP_STRUCT__entry and formats TP_printk with the kernel's format
 * rules (%pISpc, __print_symbolic), keeping the text for the tests.
 * Disabled, it costs a branch, like the kernel's static key.
 */
#ifndef _SHIM_LINUX_TRACEPOINT_H
#define _SHIM_LINUX_TRACEPOINT_H

#include <linux/kernel.h>

/* The kernel's entry header: it puts the fields at offset 8 (alignment). */
struct trace_entry {
	unsigned short type;
	unsigned char flags;
	unsigned char preempt_count;
	int pid;
};

struct shim_trace_sym {
	unsigned long mask;
	const char *name;
};

extern bool shim_trace_enabled;
void shim_trace_emit(const char *event, const char *fmt, ...);
const char *shim_trace_symbol(unsigned long val, const struct shim_trace_sym *syms);

#define TP_PROTO(args...)		args
#define TP_ARGS(args...)		args
#define TP_CONDITION(args...)		args
#define TP_STRUCT__entry(args...)	args
#define TP_fast_assign(args...)		args
#define TP_printk(fmt, args...)		fmt, ##args
#define __field(type, item)		type item;
#define __field_struct(type, item)	type item;
#define __array(type, item, len)	type item[len];
#define __print_symbolic(value, syms...)				\
	shim_trace_symbol((unsigned long)(value),			\
			  (const struct shim_trace_sym[]){ syms, { 0, NULL } })

#define DECLARE_EVENT_CLASS(cls, proto, args, tstruct, assign, print)	\
	struct shim_trace_entry_##cls { struct trace_entry ent; tstruct };	\
	static inline void __shim_trace_##cls(const char *__shim_ev, proto) \
	{								\
		struct shim_trace_entry_##cls __shim_e, *__entry = &__shim_e; \
		memset(&__shim_e, 0, sizeof(__shim_e));			\
		{ assign }						\
		shim_trace_emit(__shim_ev, print);			\
	}

#define DEFINE_EVENT(cls, name, proto, args)				\
	static inline bool trace_##name##_enabled(void)			\
	{ return shim_trace_enabled; }					\
	static inline void trace_##name(proto)				\
	{								\
		if (unlikely(shim_trace_enabled))			\
			__shim_trace_##cls(#name, args);		\
	}

#define TRACE_EVENT(name, proto, args, tstruct, assign, print)		\
	DECLARE_EVENT_CLASS(name, PARAMS(proto), PARAMS(args),		\
			    PARAMS(tstruct), PARAMS(assign), PARAMS(print)) \
	DEFINE_EVENT(name, name, PARAMS(proto), PARAMS(args))

#define PARAMS(args...) args

#endif
