// SPDX-License-Identifier: GPL-2.0
/*
 * tcp_sample - `ss -tin` and `tc -s qdisc` at a fixed rate, for the benchmark.
 *
 * Built statically on the host by scripts/vm/mkinitramfs.sh and run in the
 * guest by scripts/bench/guest/bench.sh.  Under QEMU TCG one exec of ss costs
 * 150-300 ms (dynamic loading of its libraries), so a shell loop cannot
 * sample at 10 Hz, and its CPU would disturb the flows it measures.  This
 * asks the kernel the same questions as ss -tin (inet_diag: TCP_INFO and
 * the congestion control's name) and tc -s qdisc (rtnetlink: the qdisc's
 * queue statistics), from one process, on an absolute schedule.
 *
 *   tcp_sample INTERVAL_MS SPORT_MIN SPORT_MAX NETNS... [-q NETNS DEV]
 *
 * NETNS are names under /run/netns (ip netns).  Output, per sample:
 *
 *   @ REALTIME
 *   tcp NETNS SRC:SPORT DST:DPORT cc=NAME k=v ...   (every TCP socket whose
 *                      source port is in [SPORT_MIN, SPORT_MAX])
 *   qdisc NETNS DEV kind=NAME backlog=BYTES qlen=PKTS drops=N pkts=N bytes=N
 *
 * tcp keys, units as in struct tcp_info: state, ca_state, rtt/rttvar/minrtt
 * (us, rtt is the smoothed srtt), cwnd/ssthresh/unacked/lost/retrans
 * (packets), total_retrans (segments retransmitted), acked/sent (bytes),
 * delivery_rate/pacing_rate (bytes/s).  Runs until SIGTERM or SIGINT.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <linux/gen_stats.h>
#include <linux/sock_diag.h>
#include <linux/tcp.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAXNS 8

static volatile sig_atomic_t stop;
static char rbuf[1 << 16];

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* A netlink socket created inside network namespace NAME. */
static int nl_in(const char *name, int proto)
{
	char path[256];
	int fd, s;

	snprintf(path, sizeof(path), "/run/netns/%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || setns(fd, CLONE_NEWNET)) {
		fprintf(stderr, "tcp_sample: netns %s: %s\n", name,
			strerror(errno));
		exit(1);
	}
	close(fd);
	s = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, proto);
	if (s < 0) {
		perror("tcp_sample: netlink");
		exit(1);
	}
	return s;
}

/* Send REQ and hand every reply message of the dump to CB. */
static void dump(int s, void *req, size_t len,
		 void (*cb)(struct nlmsghdr *, const char *, const void *),
		 const char *ns, const void *arg)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	struct nlmsghdr *h;
	ssize_t n;

	if (sendto(s, req, len, 0, (void *)&sa, sizeof(sa)) < 0)
		return;
	for (;;) {
		n = recv(s, rbuf, sizeof(rbuf), 0);
		if (n <= 0)
			return;
		for (h = (void *)rbuf; NLMSG_OK(h, n); h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_type == NLMSG_DONE ||
			    h->nlmsg_type == NLMSG_ERROR)
				return;
			cb(h, ns, arg);
		}
	}
}

static unsigned int sport_min, sport_max;

static void tcp_cb(struct nlmsghdr *h, const char *ns, const void *arg)
{
	struct inet_diag_msg *m = NLMSG_DATA(h);
	struct tcp_info ti;
	struct rtattr *a;
	char src[INET6_ADDRSTRLEN], dst[INET6_ADDRSTRLEN], cc[32] = "?";
	unsigned int sport = ntohs(m->id.idiag_sport);
	int len = h->nlmsg_len - NLMSG_LENGTH(sizeof(*m)), have = 0;

	(void)arg;
	if (sport < sport_min || sport > sport_max)
		return;
	memset(&ti, 0, sizeof(ti));
	for (a = (void *)(m + 1); RTA_OK(a, len); a = RTA_NEXT(a, len)) {
		if (a->rta_type == INET_DIAG_INFO) {
			size_t l = RTA_PAYLOAD(a);

			/* An older kernel's tcp_info is shorter: zeros. */
			memcpy(&ti, RTA_DATA(a), l < sizeof(ti) ? l : sizeof(ti));
			have = 1;
		} else if (a->rta_type == INET_DIAG_CONG) {
			snprintf(cc, sizeof(cc), "%.*s", (int)RTA_PAYLOAD(a),
				 (char *)RTA_DATA(a));
		}
	}
	if (!have)
		return;
	inet_ntop(m->idiag_family, m->id.idiag_src, src, sizeof(src));
	inet_ntop(m->idiag_family, m->id.idiag_dst, dst, sizeof(dst));
	printf("tcp %s %s:%u %s:%u cc=%s state=%u ca_state=%u rtt=%u rttvar=%u "
	       "minrtt=%u cwnd=%u ssthresh=%u unacked=%u lost=%u retrans=%u "
	       "total_retrans=%u acked=%llu sent=%llu delivery_rate=%llu "
	       "pacing_rate=%llu\n",
	       ns, src, sport, dst, ntohs(m->id.idiag_dport), cc, m->idiag_state,
	       ti.tcpi_ca_state, ti.tcpi_rtt, ti.tcpi_rttvar, ti.tcpi_min_rtt,
	       ti.tcpi_snd_cwnd, ti.tcpi_snd_ssthresh, ti.tcpi_unacked,
	       ti.tcpi_lost, ti.tcpi_retrans, ti.tcpi_total_retrans,
	       (unsigned long long)ti.tcpi_bytes_acked,
	       (unsigned long long)ti.tcpi_bytes_sent,
	       (unsigned long long)ti.tcpi_delivery_rate,
	       (unsigned long long)ti.tcpi_pacing_rate);
}

struct qdev {
	const char *ns, *dev;
	int ifindex, s;
};

static void qdisc_cb(struct nlmsghdr *h, const char *ns, const void *arg)
{
	const struct qdev *q = arg;
	struct tcmsg *t = NLMSG_DATA(h);
	struct rtattr *a, *b;
	int len = h->nlmsg_len - NLMSG_LENGTH(sizeof(*t)), blen;
	struct gnet_stats_queue gq = { 0 };
	struct gnet_stats_basic gb = { 0 };
	char kind[32] = "?";

	if (h->nlmsg_type != RTM_NEWQDISC || t->tcm_ifindex != q->ifindex ||
	    t->tcm_parent != TC_H_ROOT)
		return;
	for (a = (void *)((char *)t + NLMSG_ALIGN(sizeof(*t))); RTA_OK(a, len);
	     a = RTA_NEXT(a, len)) {
		if (a->rta_type == TCA_KIND)
			snprintf(kind, sizeof(kind), "%s", (char *)RTA_DATA(a));
		if (a->rta_type != TCA_STATS2)
			continue;
		blen = RTA_PAYLOAD(a);
		for (b = RTA_DATA(a); RTA_OK(b, blen); b = RTA_NEXT(b, blen)) {
			if (b->rta_type == TCA_STATS_QUEUE)
				memcpy(&gq, RTA_DATA(b), sizeof(gq));
			else if (b->rta_type == TCA_STATS_BASIC)
				memcpy(&gb, RTA_DATA(b), sizeof(gb));
		}
	}
	printf("qdisc %s %s kind=%s backlog=%u qlen=%u drops=%u pkts=%u bytes=%llu\n",
	       ns, q->dev, kind, gq.backlog, gq.qlen, gq.drops, gb.packets,
	       (unsigned long long)gb.bytes);
}

int main(int argc, char **argv)
{
	struct {
		struct nlmsghdr h;
		struct inet_diag_req_v2 r;
	} treq = {
		.h = { .nlmsg_len = sizeof(treq), .nlmsg_type = SOCK_DIAG_BY_FAMILY,
		       .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP },
		.r = { .sdiag_family = AF_INET, .sdiag_protocol = IPPROTO_TCP,
		       .idiag_states = ~(1U << 10),	/* all but LISTEN */
		       .idiag_ext = (1 << (INET_DIAG_INFO - 1)) |
				    (1 << (INET_DIAG_CONG - 1)) },
	};
	struct {
		struct nlmsghdr h;
		struct tcmsg t;
	} qreq = {
		.h = { .nlmsg_len = sizeof(qreq), .nlmsg_type = RTM_GETQDISC,
		       .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP },
		.t = { .tcm_family = AF_UNSPEC },
	};
	const char *ns[MAXNS];
	int tsock[MAXNS], nns = 0, nq = 0, i, ms;
	struct qdev q[MAXNS];
	struct timespec next, wall;

	if (argc < 5) {
		fprintf(stderr, "usage: tcp_sample INTERVAL_MS SPORT_MIN SPORT_MAX "
			"NETNS... [-q NETNS DEV]...\n");
		return 2;
	}
	ms = atoi(argv[1]);
	sport_min = atoi(argv[2]);
	sport_max = atoi(argv[3]);
	for (i = 4; i < argc; i++) {
		if (!strcmp(argv[i], "-q") && i + 2 < argc && nq < MAXNS) {
			q[nq].ns = argv[i + 1];
			q[nq].dev = argv[i + 2];
			q[nq].s = nl_in(q[nq].ns, NETLINK_ROUTE);
			/* if_nametoindex asks the namespace we are in now. */
			q[nq].ifindex = if_nametoindex(q[nq].dev);
			if (!q[nq].ifindex) {
				fprintf(stderr, "tcp_sample: no %s in %s\n",
					q[nq].dev, q[nq].ns);
				return 1;
			}
			nq++;
			i += 2;
		} else if (nns < MAXNS) {
			ns[nns] = argv[i];
			tsock[nns] = nl_in(argv[i], NETLINK_SOCK_DIAG);
			nns++;
		}
	}
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	setvbuf(stdout, NULL, _IOFBF, 1 << 16);

	clock_gettime(CLOCK_MONOTONIC, &next);
	while (!stop) {
		clock_gettime(CLOCK_REALTIME, &wall);
		printf("@ %lld.%06ld\n", (long long)wall.tv_sec,
		       wall.tv_nsec / 1000);
		for (i = 0; i < nns; i++)
			dump(tsock[i], &treq, sizeof(treq), tcp_cb, ns[i], NULL);
		for (i = 0; i < nq; i++)
			dump(q[i].s, &qreq, sizeof(qreq), qdisc_cb, q[i].ns, &q[i]);
		next.tv_nsec += ms * 1000000L;
		while (next.tv_nsec >= 1000000000L) {
			next.tv_nsec -= 1000000000L;
			next.tv_sec++;
		}
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next,
				       NULL) == EINTR && !stop)
			;
	}
	fflush(stdout);
	return 0;
}
