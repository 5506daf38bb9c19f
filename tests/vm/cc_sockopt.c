// SPDX-License-Identifier: GPL-2.0
/*
 * cc_sockopt - poke TCP_CONGESTION (and sysfs files) from the VM tests.
 *
 * Built statically on the host by scripts/vm/mkinitramfs.sh and run inside
 * the guest, so it must not depend on anything but the kernel.  Every mode
 * prints exactly one result line, "OK ..." or "ERR <ERRNO NAME> ...", so a
 * test can assert on the errno by name instead of on a translated message.
 *
 *   cc_sockopt get                 congestion control a new socket starts with
 *   cc_sockopt set NAME            setsockopt(TCP_CONGESTION) + getsockopt
 *   cc_sockopt hold NAME           as set, then keep the socket until a signal
 *   cc_sockopt write PATH VALUE    one write(2) of VALUE to PATH (sysfs)
 *   cc_sockopt finit KO PARAMS     finit_module(2) of an uncompressed .ko with
 *                                  PARAMS: the errno itself, where kmod's
 *                                  insmod rewords EINVAL ("Invalid parameters")
 *   cc_sockopt churn ADDR PORT NAME COUNT [PATH]
 *                                  socket life cycles that reach the CC's
 *                                  init/release in unusual orders: a listener
 *                                  with TCP_CONGESTION set, children that
 *                                  inherit it, CC switches on live sockets,
 *                                  connect(AF_UNSPEC) disconnects, closes of
 *                                  never-connected and half-open sockets.
 *                                  Connection i ends on close path i % 3
 *                                  (0: disconnect, 1: RST, 2: child switched
 *                                  to cubic), or every one on PATH: a leak
 *                                  on one path then shows alone.
 *   cc_sockopt sample PORT MS      every MS milliseconds, ask inet_diag for
 *                                  the established TCP sockets (IPv4 and 6)
 *                                  with destination PORT and print the one
 *                                  that has sent the most:
 *                                    T_MS SRTT_US CC TOTAL_RETRANS BYTES_ACKED
 *                                    CWND SSTHRESH CA_STATE
 *                                  Ends when such sockets were seen and are
 *                                  gone.  ss does the same, but one ss costs
 *                                  ~200 ms of a TCG guest (dynamic linking),
 *                                  which would cap sampling near 5 Hz.
 *
 * Exit status: 0 on OK, 1 on ERR, 2 on bad usage.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/tcp.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef SOL_TCP
#define SOL_TCP IPPROTO_TCP
#endif

#ifndef TCP_CA_NAME_MAX
#define TCP_CA_NAME_MAX 16
#endif

static const char *errname(int e)
{
	const char *n = strerrorname_np(e);

	return n ? n : "E?";
}

static int fail(const char *what)
{
	int e = errno;

	printf("ERR %s %s: %s\n", errname(e), what, strerror(e));
	return 1;
}

static int cc_get(int fd, char *buf)
{
	socklen_t len = TCP_CA_NAME_MAX;

	memset(buf, 0, TCP_CA_NAME_MAX + 1);
	return getsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, buf, &len);
}

static int cc_set(int fd, const char *name)
{
	return setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, name, strlen(name));
}

static int do_set(const char *name, int hold)
{
	char got[TCP_CA_NAME_MAX + 1];
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	if (fd < 0)
		return fail("socket");
	if (cc_set(fd, name))
		return fail("setsockopt(TCP_CONGESTION)");
	if (cc_get(fd, got))
		return fail("getsockopt(TCP_CONGESTION)");
	printf("OK %s\n", got);
	fflush(stdout);
	if (hold)
		for (;;)
			pause();	/* until the test kills us */
	return 0;
}

static int do_get(void)
{
	char got[TCP_CA_NAME_MAX + 1];
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	if (fd < 0)
		return fail("socket");
	if (cc_get(fd, got))
		return fail("getsockopt(TCP_CONGESTION)");
	printf("OK %s\n", got);
	return 0;
}

static int do_write(const char *path, const char *val)
{
	size_t len = strlen(val);
	ssize_t n;
	int fd = open(path, O_WRONLY);

	if (fd < 0)
		return fail("open");
	n = write(fd, val, len);
	if (n < 0)
		return fail("write");
	if (close(fd))
		return fail("close");
	printf("OK wrote %zd of %zu bytes\n", n, len);
	return 0;
}

static int do_finit(const char *ko, const char *params)
{
	int fd = open(ko, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return fail("open");
	if (syscall(SYS_finit_module, fd, params, 0))
		return fail("finit_module");
	printf("OK loaded %s\n", ko);
	return 0;
}

/* Fill in a sockaddr for ADDR (IPv4 or IPv6 literal) and PORT. */
static socklen_t mkaddr(struct sockaddr_storage *ss, const char *addr, int port)
{
	struct sockaddr_in *a4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, addr, &a4->sin_addr) == 1) {
		a4->sin_family = AF_INET;
		a4->sin_port = htons(port);
		return sizeof(*a4);
	}
	if (inet_pton(AF_INET6, addr, &a6->sin6_addr) == 1) {
		a6->sin6_family = AF_INET6;
		a6->sin6_port = htons(port);
		return sizeof(*a6);
	}
	return 0;
}

static int do_churn(const char *addr, int port, const char *name, int count,
		    int path)
{
	static const char data[4096];
	struct sockaddr_storage ss, unspec = { .ss_family = AF_UNSPEC };
	char got[TCP_CA_NAME_MAX + 1];
	socklen_t slen = mkaddr(&ss, addr, port);
	int one = 1, lfd, i;

	if (!slen) {
		fprintf(stderr, "churn: bad address '%s'\n", addr);
		return 2;
	}
	lfd = socket(ss.ss_family, SOCK_STREAM, 0);
	if (lfd < 0)
		return fail("socket");
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	/* CC set before listen(): every child inherits it from the listener. */
	if (cc_set(lfd, name))
		return fail("setsockopt(listener)");
	if (bind(lfd, (struct sockaddr *)&ss, slen))
		return fail("bind");
	if (listen(lfd, 16))
		return fail("listen");
	/* ... and set again on the listening socket itself. */
	if (cc_set(lfd, name))
		return fail("setsockopt(listening)");

	for (i = 0; i < count; i++) {
		int cfd = socket(ss.ss_family, SOCK_STREAM, 0), afd;

		if (cfd < 0)
			return fail("socket");
		if (cc_set(cfd, name))
			return fail("setsockopt(client)");
		if (connect(cfd, (struct sockaddr *)&ss, slen))
			return fail("connect");
		afd = accept(lfd, NULL, NULL);
		if (afd < 0)
			return fail("accept");
		if (cc_get(afd, got) || strcmp(got, name)) {
			printf("ERR EBADE child has cc '%s', want '%s'\n",
			       got, name);
			return 1;
		}
		if (write(cfd, data, sizeof(data)) < 0)
			return fail("write");
		/* Switch away and back on an established socket. */
		if (cc_set(cfd, "reno") || cc_set(cfd, name))
			return fail("setsockopt(switch)");
		switch (path < 0 ? i % 3 : path) {
		case 0:
			/* Disconnect (tcp_disconnect releases the CC), then
			 * set it again and close: CVE-2022-49775's path. */
			if (connect(cfd, (struct sockaddr *)&unspec,
				    sizeof(unspec)))
				return fail("connect(AF_UNSPEC)");
			cc_set(cfd, name);
			close(cfd);
			close(afd);
			break;
		case 1:
			/* Server closes first, with unread data: RST. */
			close(afd);
			close(cfd);
			break;
		default:
			/* Child switched to another CC before closing. */
			if (cc_set(afd, "cubic"))
				return fail("setsockopt(child)");
			shutdown(cfd, SHUT_WR);
			close(afd);
			close(cfd);
			break;
		}
	}
	/* A socket that had the CC set but never connected. */
	i = socket(ss.ss_family, SOCK_STREAM, 0);
	if (i < 0 || cc_set(i, name))
		return fail("setsockopt(unconnected)");
	close(i);
	close(lfd);
	printf("OK %d connections\n", count);
	return 0;
}

struct sample {
	int found;
	unsigned long long acked;
	unsigned int rtt_us, retrans, cwnd, ssthresh, ca_state;
	char cc[TCP_CA_NAME_MAX + 1];
};

/* One inet_diag dump for FAMILY; keep the busiest socket to PORT in *best. */
static int diag_dump(int nl, int family, int port, struct sample *best)
{
	struct {
		struct nlmsghdr nlh;
		struct inet_diag_req_v2 req;
	} msg = {
		.nlh = {
			.nlmsg_len = sizeof(msg),
			.nlmsg_type = SOCK_DIAG_BY_FAMILY,
			.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP,
		},
		.req = {
			.sdiag_family = family,
			.sdiag_protocol = IPPROTO_TCP,
			.idiag_states = 1 << 1,	/* TCP_ESTABLISHED */
			.idiag_ext = (1 << (INET_DIAG_INFO - 1)) |
				     (1 << (INET_DIAG_CONG - 1)),
		},
	};
	static char buf[65536];

	if (send(nl, &msg, sizeof(msg), 0) < 0)
		return -1;
	for (;;) {
		ssize_t n = recv(nl, buf, sizeof(buf), 0);
		struct nlmsghdr *h;

		if (n < 0)
			return -1;
		for (h = (struct nlmsghdr *)buf; NLMSG_OK(h, (size_t)n);
		     h = NLMSG_NEXT(h, n)) {
			struct inet_diag_msg *m = NLMSG_DATA(h);
			struct tcp_info *ti = NULL;
			const char *cc = "?";
			struct rtattr *a;
			int alen;

			if (h->nlmsg_type == NLMSG_DONE)
				return 0;
			if (h->nlmsg_type == NLMSG_ERROR) {
				errno = -((struct nlmsgerr *)m)->error;
				return -1;
			}
			if (ntohs(m->id.idiag_dport) != port)
				continue;
			alen = h->nlmsg_len - NLMSG_LENGTH(sizeof(*m));
			for (a = (struct rtattr *)(m + 1); RTA_OK(a, alen);
			     a = RTA_NEXT(a, alen)) {
				if (a->rta_type == INET_DIAG_INFO &&
				    RTA_PAYLOAD(a) >= (int)sizeof(*ti))
					ti = RTA_DATA(a);
				if (a->rta_type == INET_DIAG_CONG)
					cc = RTA_DATA(a);
			}
			if (!ti)
				continue;
			if (!best->found || ti->tcpi_bytes_acked > best->acked) {
				best->found = 1;
				best->acked = ti->tcpi_bytes_acked;
				best->rtt_us = ti->tcpi_rtt;
				best->retrans = ti->tcpi_total_retrans;
				best->cwnd = ti->tcpi_snd_cwnd;
				best->ssthresh = ti->tcpi_snd_ssthresh;
				best->ca_state = ti->tcpi_ca_state;
				snprintf(best->cc, sizeof(best->cc), "%s", cc);
			}
		}
	}
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int do_sample(int port, int ms)
{
	int nl = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	double t0 = now_ms();
	int seen = 0;

	if (nl < 0)
		return fail("socket(NETLINK_SOCK_DIAG)");
	struct timespec next;

	clock_gettime(CLOCK_MONOTONIC, &next);
	for (;;) {
		struct sample best = { 0 };

		if (diag_dump(nl, AF_INET, port, &best) ||
		    diag_dump(nl, AF_INET6, port, &best))
			return fail("inet_diag (tcp_diag loaded?)");
		if (best.found) {
			seen = 1;
			printf("%.0f %u %s %u %llu %u %u %u\n", now_ms() - t0,
			       best.rtt_us, best.cc, best.retrans, best.acked,
			       best.cwnd, best.ssthresh, best.ca_state);
		} else if (seen) {
			return 0;
		}
		/* A fixed period, however long the dump took. */
		next.tv_nsec += ms * 1000000L;
		while (next.tv_nsec >= 1000000000L) {
			next.tv_nsec -= 1000000000L;
			next.tv_sec++;
		}
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
	}
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 2 && !strcmp(argv[1], "get"))
		return do_get();
	if (argc == 3 && !strcmp(argv[1], "set"))
		return do_set(argv[2], 0);
	if (argc == 3 && !strcmp(argv[1], "hold"))
		return do_set(argv[2], 1);
	if (argc == 4 && !strcmp(argv[1], "write"))
		return do_write(argv[2], argv[3]);
	if (argc == 4 && !strcmp(argv[1], "finit"))
		return do_finit(argv[2], argv[3]);
	if (argc == 4 && !strcmp(argv[1], "sample"))
		return do_sample(atoi(argv[2]), atoi(argv[3]));
	if ((argc == 6 || argc == 7) && !strcmp(argv[1], "churn")) {
		int path = argc == 7 ? atoi(argv[6]) : -1;

		if (argc == 7 && (path < 0 || path > 2 ||
				  strspn(argv[6], "0123456789") != strlen(argv[6]))) {
			fprintf(stderr, "churn: PATH must be 0, 1 or 2\n");
			return 2;
		}
		return do_churn(argv[2], atoi(argv[3]), argv[4], atoi(argv[5]),
				path);
	}
	fprintf(stderr,
		"usage: %s get | set NAME | hold NAME | write PATH VALUE |\n"
		"       finit KO PARAMS |\n"
		"       churn ADDR PORT NAME COUNT [PATH] | sample PORT MS\n", argv[0]);
	return 2;
}
