/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One CDG implementation compiled against the shim: ours (../../tcp_cdg.c,
 * unmodified) or the oracle (the 6.1 kernel's net/ipv4/tcp_cdg.c, extracted
 * into build/unit/ at test time).  Each is included from its own wrapper
 * translation unit (impl_ours.c, impl_oracle.c), so their statics stay
 * apart, and described by a struct cdg_impl.
 *
 * struct cdg_view is what tests may see of the private state, by meaning:
 * the layout of struct cdg is not a contract (spec section 3), so only the
 * wrappers know it.
 */
#ifndef _CDG_IMPL_H
#define _CDG_IMPL_H

#include <linux/kernel.h>
#include <net/tcp.h>

enum { CDG_S_UNKNOWN, CDG_S_NONFULL, CDG_S_FULL, CDG_S_BACKOFF };

struct cdg_view {
	s32 rtt_min, rtt_max;		/* this round */
	s32 prev_min, prev_max;		/* previous round */
	s32 gsum_min, gsum_max;		/* ring sums */
	const void *gradients;		/* the ring, NULL without */
	bool gfilled;
	u8 tail, state, delack;
	u32 rtt_seq, shadow_wnd;
	u16 backoff_cnt, sample_cnt;
	s32 delay_min;
	u32 last_ack, round_start;
};

struct cdg_impl {
	const char *name;		/* "ours" / "oracle": the param registry key */
	bool available;			/* false: the oracle could not be built */
	struct tcp_congestion_ops *ops;
	int (*module_init)(void);
	void (*module_exit)(void);
	u32 (*nexp)(u32 ux);		/* the module's static nexp_u32() */
	size_t priv_size;		/* sizeof(struct cdg) */
	const int *window;		/* the module's window */
	void (*view)(const struct sock *sk, struct cdg_view *v);
	/* Writes every field of v but the ring pointer. */
	void (*set)(struct sock *sk, const struct cdg_view *v);
	/* Ring entry i (0..window-1); false without a ring. */
	bool (*ring)(const struct sock *sk, int i, s32 *min, s32 *max);
};

extern const struct cdg_impl impl_ours, impl_oracle;

#endif
