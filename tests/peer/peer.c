// SPDX-License-Identifier: GPL-2.0
/*
 * peer - a scripted TCP receiver on a tun device, for testing a congestion
 * control inside the real kernel (tests/peer/README, tests/vm/peer.sh).
 *
 *   peer [-6] [-v] [-c CC] SCRIPT
 *
 * The program owns both ends of one connection.  It creates a tun device
 * (cdgpeer0, IFF_TUN | IFF_NO_PI), gives it 10.77.0.1/24 and fd77::1/64
 * (with `ip`), and connects a TCP socket with TCP_CONGESTION CC (default
 * "cdg") to the fake remote 10.77.0.2 (fd77::2 with -6) port 8000.  The
 * remote is this program: it reads the SYN from the tun device and answers
 * it (MSS 1460, SACK permitted, window scale 7, timestamps), then the
 * socket's side writes data as fast as the socket takes it, and the remote
 * side reads every data segment and acknowledges it when the script says.
 *
 * The remote is a receiver model: a segment is "delivered" at a time the
 * script chooses (or dropped, never delivered), and each delivery sends
 * one ACK: cumulative up to the in-order data, SACK blocks (at most 3,
 * the newest first) for what is beyond a hole, the TSval of the delivered
 * segment as TSecr, ECE when asked.  Unless a round says "ack K", every
 * ACK acknowledges one segment (pkts_acked == 1).  GSO is
 * turned off on the device, so every segment is its own skb, with its
 * own send time.
 *
 * Script: one command per line, '#' starts a comment.  Times in us.
 *
 *   param NAME VALUE     write /sys/module/tcp_cdg/parameters/NAME
 *   sysctl NAME VALUE    write /proc/sys/NAME (dots as in sysctl(8));
 *                        the old value is written back at exit
 *   connect [R]          handshake, the SYN-ACK sent R us (default 0)
 *                        after the SYN was read; the socket starts sending.
 *                        The SYN-ACK's RTT is the first RTT sample the
 *                        congestion control gets (pkts_acked before init)
 *   round R [R2] [drop I,J,..] [ece I,J,..] [late US I,J,..] [ack K]
 *                        one round: the flight is every segment seen and
 *                        not yet scheduled when the round starts; segment
 *                        i of the n in the flight is delivered R (ramp:
 *                        R + (R2 - R) * i / (n - 1)) after the peer read
 *                        it.  drop: the segments with these indexes (0 is
 *                        the first; I-J a range; "all": every one) are
 *                        lost; ece: the
 *                        ACKs of these segments carry ECE (the SYN-ACK
 *                        accepts ECN when the SYN asks for it: sysctl
 *                        net.ipv4.tcp_ecn 1); late: these segments are
 *                        delivered US later (reordered, not lost); ack K:
 *                        one ACK per K deliveries (and one after the
 *                        round's last), so that an ACK covers K segments.
 *                        Segments the socket sends while the round runs
 *                        belong to the next round.  The round ends after
 *                        its last delivery.
 *   rounds N R [STEP]    N rounds, the k-th (from 0) with R + k * STEP
 *   idle US R [STEP]     no more data written: rounds at R (R + STEP, ...)
 *                        until everything is acknowledged, then US of
 *                        silence, then data again (an idle restart when
 *                        US is longer than the RTO)
 *   window BYTES         the receive window the following ACKs advertise
 *                        (default and maximum 65535 << 7): a cap on the
 *                        flight, so that cwnd stops growing (the socket is
 *                        no longer cwnd limited) while rounds go on
 *   expect EXPR OP EXPR  a TAP line: ok if the comparison holds; OP is one
 *                        of == != < <= > >=
 *   info                 print TCP_INFO as a "# " line
 *
 * Expressions are names and integers joined by + - * /, evaluated strictly
 * left to right (no precedence: "a + b / 2" is (a + b) / 2).  Names:
 *   cwnd ssthresh ca_state unacked sacked lost retrans total_retrans rtt
 *                        TCP_INFO of the socket now
 *   pre_S.FIELD post_S.FIELD
 *                        the same just before / just after the ACK that
 *                        last moved the socket into CA state S (0 if never)
 *   n_S                  how many times the socket entered state S
 *   acks                 how many ACKs the peer sent (handshake excluded)
 *   open disorder cwr recovery loss   CA state numbers; inf: 2147483647
 * where S is one of open, disorder, cwr, recovery, loss.  The CA state is
 * read after every ACK the peer sends (and at every expect).
 *
 * Output: TAP-like lines, "ok - LINE" or "not ok - LINE" per expect (with
 * "# " diagnostics); a script or setup error is one "not ok" line.  Exit
 * status 0 when every expect held, 1 otherwise, 2 on a usage error.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/ethtool.h>
#include <linux/if_tun.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define TUN_NAME	"cdgpeer0"
#define PORT		8000
#define PEER_MSS	1460
#define PEER_WSCALE	7
#define MAX_SACK	3
#define MAX_OOO		64
#define NSTATES		5
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#ifndef TH_ECE
#define TH_ECE		0x40
#define TH_CWR		0x80
#endif

enum seg_state { SEG_NEW, SEG_SCHEDULED, SEG_DROPPED, SEG_DELIVERED };

struct seg {
	uint32_t seq, end;	/* [seq, end) */
	uint32_t tsval;
	uint64_t seen_ns;	/* when the peer read it */
	uint64_t due_ns;	/* when it is delivered */
	int state;
	int ece;		/* its ACK carries ECE */
};

struct range {
	uint32_t start, end;
};

static const char *const state_names[NSTATES] = {
	"open", "disorder", "cwr", "recovery", "loss"
};

static int ipv6, verbose, tun_fd = -1, sock_fd = -1;
static const char *cc_name = "cdg";
static int failed, nexpect;

/* The connection as the remote sees it. */
static uint32_t peer_isn = 0x10000000, peer_seq;	/* our sequence */
static uint16_t local_port;			/* the socket's port */
static uint32_t rcv_nxt, ts_recent;
static uint32_t rcv_wnd = 65535U << PEER_WSCALE;	/* advertised, bytes */
static struct range ooo[MAX_OOO];		/* out-of-order ranges */
static int nooo;
static uint32_t last_block_seq;			/* newest SACK block */

static struct seg *segs;
static size_t nsegs, segs_cap;

static struct tcp_info cur;
static struct tcp_info pre_state[NSTATES], post_state[NSTATES];
static int n_enter[NSTATES];
static long nacks;				/* ACKs the peer sent after the handshake */
static int fill_off;				/* idle: the socket gets no data */

static uint64_t t0_ns;
static char wbuf[32 * 65536];

/* --- helpers ---------------------------------------------------------------- */

/* Close the socket with a RST: no orphan left holding the module. */
static void sock_abort(void)
{
	struct linger lg = { .l_onoff = 1, .l_linger = 0 };

	if (sock_fd < 0)
		return;
	setsockopt(sock_fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	close(sock_fd);
	sock_fd = -1;
}

static void fatal(const char *fmt, ...)
{
	va_list ap;

	printf("not ok - peer: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	sock_abort();
	exit(1);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int before(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) < 0;
}

static void run(const char *fmt, ...)
{
	char cmd[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	if (system(cmd) != 0)
		fatal("'%s' failed", cmd);
}

static void write_file(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY);

	if (fd < 0 || write(fd, val, strlen(val)) < 0)
		fatal("write %s to %s: %s", val, path, strerror(errno));
	close(fd);
}

/*
 * The sysctls a script wrote get their old values back at exit, so that
 * the next script (tests/vm/peer.sh runs them all in one guest) starts
 * from the defaults.
 */
#define MAX_SYSCTL	8
static struct {
	char path[256];
	char old[64];
} sysctl_saved[MAX_SYSCTL];
static int nsysctl;

static void sysctl_restore(void)
{
	int fd;

	while (nsysctl > 0) {
		nsysctl--;
		fd = open(sysctl_saved[nsysctl].path, O_WRONLY);
		if (fd < 0)
			continue;
		if (write(fd, sysctl_saved[nsysctl].old,
			  strlen(sysctl_saved[nsysctl].old)) < 0)
			fprintf(stderr, "peer: cannot restore %s\n",
				sysctl_saved[nsysctl].path);
		close(fd);
	}
}

static void sysctl_write(const char *path, const char *val)
{
	ssize_t n;
	int fd;

	if (nsysctl == MAX_SYSCTL)
		fatal("more than %d sysctl lines", MAX_SYSCTL);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		fatal("%s: %s", path, strerror(errno));
	n = read(fd, sysctl_saved[nsysctl].old,
		 sizeof(sysctl_saved[nsysctl].old) - 1);
	close(fd);
	if (n <= 0)
		fatal("read %s: %s", path, strerror(errno));
	sysctl_saved[nsysctl].old[n] = 0;
	snprintf(sysctl_saved[nsysctl].path, sizeof(sysctl_saved[0].path),
		 "%s", path);
	if (nsysctl++ == 0)
		atexit(sysctl_restore);
	write_file(path, val);
}

/* --- tun and packets ------------------------------------------------------ */

static void tun_open(void)
{
	struct ethtool_value ev = { .cmd = ETHTOOL_SGSO, .data = 0 };
	struct ifreq ifr;
	int s;

	tun_fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK);
	if (tun_fd < 0)
		fatal("open /dev/net/tun: %s", strerror(errno));
	memset(&ifr, 0, sizeof(ifr));
	ifr.ifr_flags = IFF_TUN | IFF_NO_PI;
	strcpy(ifr.ifr_name, TUN_NAME);
	if (ioctl(tun_fd, TUNSETIFF, &ifr) < 0)
		fatal("TUNSETIFF: %s", strerror(errno));

	/* One segment per skb: each has its own send time stamp. */
	s = socket(AF_INET, SOCK_DGRAM, 0);
	ifr.ifr_data = (void *)&ev;
	if (s < 0 || ioctl(s, SIOCETHTOOL, &ifr) < 0)
		fprintf(stderr, "peer: cannot turn GSO off: %s\n", strerror(errno));
	if (s >= 0)
		close(s);

	run("ip link set dev %s mtu 1500 up", TUN_NAME);
	run("ip addr add 10.77.0.1/24 dev %s", TUN_NAME);
	run("ip -6 addr add fd77::1/64 dev %s nodad", TUN_NAME);
}

static uint32_t csum_add(uint32_t sum, const void *data, size_t len)
{
	const uint8_t *p = data;

	while (len > 1) {
		sum += (p[0] << 8) | p[1];
		p += 2;
		len -= 2;
	}
	if (len)
		sum += p[0] << 8;
	return sum;
}

static uint16_t csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return htons(~sum & 0xffff);
}

static void addr_bytes(int local, uint8_t *a)
{
	if (ipv6) {
		static const uint8_t pfx[] = { 0xfd, 0x77 };

		memset(a, 0, 16);
		memcpy(a, pfx, 2);
		a[15] = local ? 1 : 2;
	} else {
		a[0] = 10;
		a[1] = 77;
		a[2] = 0;
		a[3] = local ? 1 : 2;
	}
}

/*
 * Send one segment from the remote to the socket: flags, ack, the options
 * given (already padded to a multiple of 4).
 */
static void send_segment(uint8_t flags, uint32_t ack, uint16_t win,
			 const uint8_t *opt, size_t optlen)
{
	uint8_t pkt[128], src[16], dst[16], *tcp;
	size_t iplen = ipv6 ? 40 : 20, alen = ipv6 ? 16 : 4;
	size_t tcplen = 20 + optlen;
	uint32_t sum;

	memset(pkt, 0, sizeof(pkt));
	addr_bytes(0, src);
	addr_bytes(1, dst);
	if (ipv6) {
		pkt[0] = 0x60;
		pkt[4] = tcplen >> 8;
		pkt[5] = tcplen & 0xff;
		pkt[6] = IPPROTO_TCP;
		pkt[7] = 64;
		memcpy(pkt + 8, src, 16);
		memcpy(pkt + 24, dst, 16);
	} else {
		uint16_t c;

		pkt[0] = 0x45;
		pkt[2] = (iplen + tcplen) >> 8;
		pkt[3] = (iplen + tcplen) & 0xff;
		pkt[6] = 0x40;		/* DF */
		pkt[8] = 64;
		pkt[9] = IPPROTO_TCP;
		memcpy(pkt + 12, src, 4);
		memcpy(pkt + 16, dst, 4);
		c = csum_fold(csum_add(0, pkt, 20));
		memcpy(pkt + 10, &c, 2);
	}
	tcp = pkt + iplen;
	*(uint16_t *)(tcp + 0) = htons(PORT);
	*(uint16_t *)(tcp + 2) = htons(local_port);
	*(uint32_t *)(tcp + 4) = htonl(peer_seq);
	*(uint32_t *)(tcp + 8) = htonl(ack);
	tcp[12] = (tcplen / 4) << 4;
	tcp[13] = flags;
	*(uint16_t *)(tcp + 14) = htons(win);
	memcpy(tcp + 20, opt, optlen);

	/* Pseudo-header: addresses, protocol, length. */
	sum = csum_add(0, src, alen);
	sum = csum_add(sum, dst, alen);
	sum += IPPROTO_TCP + tcplen;
	sum = csum_add(sum, tcp, tcplen);
	{
		uint16_t c = csum_fold(sum);

		memcpy(tcp + 16, &c, 2);
	}
	if (write(tun_fd, pkt, iplen + tcplen) < 0)
		fatal("write to tun: %s", strerror(errno));
}

static uint32_t peer_tsval(void)
{
	return (now_ns() - t0_ns) / 1000000 + 1;
}

static size_t put_ts(uint8_t *o, uint32_t ecr)
{
	uint32_t v = htonl(peer_tsval()), e = htonl(ecr);

	o[0] = 1;
	o[1] = 1;
	o[2] = 8;
	o[3] = 10;
	memcpy(o + 4, &v, 4);
	memcpy(o + 8, &e, 4);
	return 12;
}

/* Parsed TCP segment from the socket. */
struct rx {
	uint8_t flags;
	uint32_t seq, ack, len, tsval;
	uint16_t sport;
};

static int parse(const uint8_t *p, ssize_t n, struct rx *rx)
{
	const uint8_t *tcp, *o;
	size_t iplen, doff, i;
	ssize_t total;

	if (n < 20)
		return -1;
	if ((p[0] >> 4) == 6) {
		if (!ipv6 || n < 60 || p[6] != IPPROTO_TCP)
			return -1;
		iplen = 40;
		total = 40 + ((p[4] << 8) | p[5]);
	} else if ((p[0] >> 4) == 4) {
		if (ipv6 || p[9] != IPPROTO_TCP)
			return -1;
		iplen = (p[0] & 15) * 4;
		total = (p[2] << 8) | p[3];
	} else {
		return -1;
	}
	if (total > n || total < (ssize_t)iplen + 20)
		return -1;
	tcp = p + iplen;
	if (ntohs(*(uint16_t *)(tcp + 2)) != PORT)
		return -1;
	doff = (tcp[12] >> 4) * 4;
	rx->sport = ntohs(*(uint16_t *)tcp);
	rx->seq = ntohl(*(uint32_t *)(tcp + 4));
	rx->ack = ntohl(*(uint32_t *)(tcp + 8));
	rx->flags = tcp[13];
	rx->len = total - iplen - doff;
	rx->tsval = 0;
	o = tcp + 20;
	for (i = 0; i + 20 < doff;) {
		if (o[i] == 0)
			break;
		if (o[i] == 1) {
			i++;
			continue;
		}
		if (i + 1 + 20 >= doff || o[i + 1] < 2)
			break;
		if (o[i] == 8 && o[i + 1] == 10)
			rx->tsval = ntohl(*(uint32_t *)(o + i + 2));
		i += o[i + 1];
	}
	return 0;
}

static void seg_add(const struct rx *rx)
{
	struct seg *s;

	if (nsegs == segs_cap) {
		segs_cap = segs_cap ? 2 * segs_cap : 4096;
		segs = realloc(segs, segs_cap * sizeof(*segs));
		if (!segs)
			fatal("out of memory");
	}
	s = &segs[nsegs++];
	s->seq = rx->seq;
	s->end = rx->seq + rx->len;
	s->tsval = rx->tsval;
	s->seen_ns = now_ns();
	s->state = SEG_NEW;
	if (verbose > 2)
		printf("# seg %u..%u (%u)\n", rx->seq, rx->seq + rx->len, rx->len);
}

/* Read every packet the tun device holds; data segments are queued. */
static void tun_drain(void)
{
	uint8_t pkt[65536];
	struct rx rx;
	ssize_t n;

	for (;;) {
		n = read(tun_fd, pkt, sizeof(pkt));
		if (n < 0) {
			if (errno == EAGAIN)
				return;
			fatal("read tun: %s", strerror(errno));
		}
		if (parse(pkt, n, &rx) || rx.sport != local_port)
			continue;
		if (rx.flags & (TH_SYN | TH_RST))
			fatal("unexpected %s from the socket",
			      rx.flags & TH_SYN ? "SYN" : "RST");
		if (rx.len)
			seg_add(&rx);
	}
}

/* Wait until t (CLOCK_MONOTONIC ns), reading the tun device meanwhile. */
static void wait_until(uint64_t t)
{
	struct pollfd pfd = { .fd = tun_fd, .events = POLLIN };
	struct timespec ts;
	uint64_t now;

	for (;;) {
		tun_drain();
		now = now_ns();
		if (now >= t)
			return;
		ts.tv_sec = (t - now) / 1000000000ULL;
		ts.tv_nsec = (t - now) % 1000000000ULL;
		if (ppoll(&pfd, 1, &ts, NULL) < 0 && errno != EINTR)
			fatal("ppoll: %s", strerror(errno));
	}
}

/* --- the socket under test ---------------------------------------------- */

/*
 * Keep enough data queued that the socket is never application limited,
 * but not much more: every byte copied costs the guest time (virtual
 * time runs with the guest's instructions), and a fill right after the
 * handshake would delay the peer's reading of the first segments.
 */
static void sock_fill(void)
{
	struct tcp_info ti;
	socklen_t len = sizeof(ti);
	int unsent;
	long want;

	if (fill_off)
		return;
	if (getsockopt(sock_fd, IPPROTO_TCP, TCP_INFO, &ti, &len) < 0)
		fatal("TCP_INFO: %s", strerror(errno));
	want = 4L * (ti.tcpi_snd_cwnd + 16) * ti.tcpi_snd_mss;
	for (;;) {
		if (ioctl(sock_fd, SIOCOUTQNSD, &unsent) < 0)
			fatal("SIOCOUTQNSD: %s", strerror(errno));
		if (unsent >= want)
			return;
		/* Whole segments: no short segment in the middle. */
		if (send(sock_fd, wbuf, 32 * ti.tcpi_snd_mss, MSG_DONTWAIT) < 0) {
			if (errno == EAGAIN)
				return;
			fatal("send: %s", strerror(errno));
		}
	}
}

static void info_read(struct tcp_info *ti)
{
	socklen_t len = sizeof(*ti);

	memset(ti, 0, sizeof(*ti));
	if (getsockopt(sock_fd, IPPROTO_TCP, TCP_INFO, ti, &len) < 0)
		fatal("TCP_INFO: %s", strerror(errno));
}

static void info_print(const char *what, const struct tcp_info *ti)
{
	printf("# %s t=%.3fms cwnd %u ssthresh %u ca_state %s unacked %u sacked %u lost %u retrans %u rtt %u\n",
	       what, (now_ns() - t0_ns) / 1e6, ti->tcpi_snd_cwnd,
	       ti->tcpi_snd_ssthresh,
	       ti->tcpi_ca_state < NSTATES ? state_names[ti->tcpi_ca_state] : "?",
	       ti->tcpi_unacked, ti->tcpi_sacked, ti->tcpi_lost,
	       ti->tcpi_total_retrans, ti->tcpi_rtt);
}

/* Read TCP_INFO; note a change of CA state with the reading before it. */
static void info_update(void)
{
	struct tcp_info prev = cur;

	info_read(&cur);
	if (cur.tcpi_ca_state != prev.tcpi_ca_state &&
	    cur.tcpi_ca_state < NSTATES) {
		n_enter[cur.tcpi_ca_state]++;
		pre_state[cur.tcpi_ca_state] = prev;
		post_state[cur.tcpi_ca_state] = cur;
		if (verbose)
			info_print(state_names[cur.tcpi_ca_state], &cur);
	}
}

static void do_connect(long synack_us)
{
	uint8_t opt[40], pkt[65536];
	struct sockaddr_storage ss;
	struct pollfd pfd;
	struct rx rx;
	socklen_t len;
	uint64_t until;
	size_t o = 0;
	int one = 1, big = 16 << 20, err = 0, ecn;
	ssize_t n;

	memset(&ss, 0, sizeof(ss));
	if (ipv6) {
		struct sockaddr_in6 *a = (void *)&ss;

		a->sin6_family = AF_INET6;
		a->sin6_port = htons(PORT);
		inet_pton(AF_INET6, "fd77::2", &a->sin6_addr);
		len = sizeof(*a);
	} else {
		struct sockaddr_in *a = (void *)&ss;

		a->sin_family = AF_INET;
		a->sin_port = htons(PORT);
		inet_pton(AF_INET, "10.77.0.2", &a->sin_addr);
		len = sizeof(*a);
	}
	sock_fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK, 0);
	if (sock_fd < 0)
		fatal("socket: %s", strerror(errno));
	if (setsockopt(sock_fd, IPPROTO_TCP, TCP_CONGESTION, cc_name,
		       strlen(cc_name)) < 0)
		fatal("TCP_CONGESTION %s: %s", cc_name, strerror(errno));
	setsockopt(sock_fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (setsockopt(sock_fd, SOL_SOCKET, SO_SNDBUFFORCE, &big, sizeof(big)) < 0)
		fatal("SO_SNDBUFFORCE: %s", strerror(errno));
	if (connect(sock_fd, (void *)&ss, len) == 0 || errno != EINPROGRESS)
		fatal("connect: %s", strerror(errno));

	/* The SYN. */
	until = now_ns() + 5000000000ULL;
	for (;;) {
		if (now_ns() > until)
			fatal("no SYN on %s", TUN_NAME);
		n = read(tun_fd, pkt, sizeof(pkt));
		if (n < 0) {
			struct pollfd tp = { .fd = tun_fd, .events = POLLIN };

			if (errno != EAGAIN)
				fatal("read tun: %s", strerror(errno));
			poll(&tp, 1, 100);
			continue;
		}
		if (!parse(pkt, n, &rx) && (rx.flags & TH_SYN))
			break;
	}
	local_port = rx.sport;
	/* The SYN-ACK's RTT is the socket's first RTT sample, CC's too. */
	wait_until(now_ns() + (uint64_t)synack_us * 1000);
	rcv_nxt = rx.seq + 1;
	ts_recent = rx.tsval;
	peer_seq = peer_isn;

	/* SYN-ACK: MSS, SACK permitted, timestamps, window scale. */
	opt[o++] = 2;
	opt[o++] = 4;
	opt[o++] = PEER_MSS >> 8;
	opt[o++] = PEER_MSS & 0xff;
	opt[o++] = 4;
	opt[o++] = 2;
	{
		uint32_t v = htonl(peer_tsval()), e = htonl(ts_recent);

		opt[o++] = 8;
		opt[o++] = 10;
		memcpy(opt + o, &v, 4);
		memcpy(opt + o + 4, &e, 4);
		o += 8;
	}
	opt[o++] = 1;
	opt[o++] = 3;
	opt[o++] = 3;
	opt[o++] = PEER_WSCALE;
	/* ECN: accept what the SYN asks for (ECE and CWR set). */
	ecn = (rx.flags & (TH_ECE | TH_CWR)) == (TH_ECE | TH_CWR);
	send_segment(TH_SYN | TH_ACK | (ecn ? TH_ECE : 0), rcv_nxt, 65535, opt, o);
	peer_seq++;

	pfd.fd = sock_fd;
	pfd.events = POLLOUT;
	if (poll(&pfd, 1, 5000) != 1)
		fatal("the handshake did not complete");
	len = sizeof(err);
	getsockopt(sock_fd, SOL_SOCKET, SO_ERROR, &err, &len);
	if (err)
		fatal("connect: %s", strerror(err));
	info_read(&cur);
	sock_fill();
	tun_drain();
}

/* --- the receiver model ------------------------------------------------------ */

static void ooo_add(uint32_t s, uint32_t e)
{
	int i, j;

	last_block_seq = s;
	for (i = 0; i < nooo; i++) {
		/* Overlapping or adjacent: merge. */
		if (!before(e, ooo[i].start) && !before(ooo[i].end, s)) {
			if (before(ooo[i].start, s))
				s = ooo[i].start;
			if (before(e, ooo[i].end))
				e = ooo[i].end;
			last_block_seq = s;
			for (j = i; j < nooo - 1; j++)
				ooo[j] = ooo[j + 1];
			nooo--;
			i = -1;
		}
	}
	if (nooo == MAX_OOO)
		fatal("too many holes");
	ooo[nooo].start = s;
	ooo[nooo].end = e;
	nooo++;
	last_block_seq = s;
}

/* Advance rcv_nxt over the out-of-order ranges it reaches. */
static void ooo_pull(void)
{
	int i, moved = 1;

	while (moved) {
		moved = 0;
		for (i = 0; i < nooo; i++) {
			if (before(rcv_nxt, ooo[i].start))
				continue;
			if (before(rcv_nxt, ooo[i].end))
				rcv_nxt = ooo[i].end;
			ooo[i] = ooo[--nooo];
			moved = 1;
			break;
		}
	}
}

/* The receiver takes segment s in: rcv_nxt, the out-of-order ranges. */
static void deliver(struct seg *s)
{
	s->state = SEG_DELIVERED;
	if (!before(rcv_nxt, s->seq)) {
		if (before(rcv_nxt, s->end))
			rcv_nxt = s->end;
		ooo_pull();
	} else {
		ooo_add(s->seq, s->end);
	}
	ts_recent = s->tsval;
}

/* One ACK for what the receiver holds now; ECE if ece. */
static void send_ack(int ece)
{
	uint8_t opt[40];
	size_t o;
	int i, nb = 0;

	o = put_ts(opt, ts_recent);
	if (nooo) {
		uint8_t *len;

		opt[o] = 1;		/* NOP NOP SACK: 4-byte aligned */
		opt[o + 1] = 1;
		o += 2;
		opt[o++] = 5;
		len = opt + o;
		opt[o++] = 2;
		/* The block with the newest segment first, then the others. */
		for (i = -1; i < nooo && nb < MAX_SACK; i++) {
			const struct range *r;
			uint32_t v;

			if (i < 0) {
				int k;

				for (k = 0; k < nooo; k++)
					if (ooo[k].start == last_block_seq)
						break;
				if (k == nooo)
					continue;
				r = &ooo[k];
			} else {
				r = &ooo[i];
				if (r->start == last_block_seq)
					continue;
			}
			v = htonl(r->start);
			memcpy(opt + o, &v, 4);
			v = htonl(r->end);
			memcpy(opt + o + 4, &v, 4);
			o += 8;
			nb++;
		}
		*len = 2 + 8 * nb;
	}
	send_segment(TH_ACK | (ece ? TH_ECE : 0), rcv_nxt,
		     rcv_wnd >> PEER_WSCALE, opt, o);
	nacks++;
	info_update();
	if (verbose > 1)
		info_print("ack", &cur);
	sock_fill();
}

/* --- rounds ---------------------------------------------------------------- */

/* Is idx in the list: "I,J,K-L" ("all": every index)? */
static int in_list(const char *list, size_t idx)
{
	char buf[256], *tok, *save, *dash;

	if (!list)
		return 0;
	if (!strcmp(list, "all"))
		return 1;
	snprintf(buf, sizeof(buf), "%s", list);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		dash = strchr(tok, '-');
		if (dash ? (size_t)atol(tok) <= idx && idx <= (size_t)atol(dash + 1)
			 : (size_t)atol(tok) == idx)
			return 1;
	}
	return 0;
}

/* A round as the script gives it (see the top of the file). */
struct round {
	long r1, r2;		/* delivery delay ramp, us */
	const char *drops;	/* indexes lost */
	const char *eces;	/* indexes whose ACK carries ECE */
	const char *lates;	/* indexes delivered late_us later */
	long late_us;
	long ack_every;		/* one ACK per this many deliveries */
};

static void do_round(const struct round *rd)
{
	size_t i, first = nsegs, n = 0, k;
	uint64_t until = now_ns() + 3000000000ULL;
	long ndeliv = 0;
	int ece = 0;

	/* The flight: every segment not scheduled yet (wait for one). */
	for (;;) {
		tun_drain();
		for (i = 0; i < nsegs; i++)
			if (segs[i].state == SEG_NEW)
				break;
		if (i < nsegs)
			break;
		if (now_ns() > until)
			fatal("round: the socket sent nothing for 3 s");
		wait_until(now_ns() + 1000000);
	}
	first = i;
	for (i = first; i < nsegs; i++)
		if (segs[i].state == SEG_NEW)
			n++;
	for (i = first, k = 0; i < nsegs; i++) {
		struct seg *s = &segs[i];
		long r;

		if (s->state != SEG_NEW)
			continue;
		r = n > 1 ? rd->r1 + (rd->r2 - rd->r1) * (long)k / (long)(n - 1) : rd->r1;
		if (in_list(rd->lates, k))
			r += rd->late_us;
		s->due_ns = s->seen_ns + (uint64_t)r * 1000;
		s->state = in_list(rd->drops, k) ? SEG_DROPPED : SEG_SCHEDULED;
		s->ece = in_list(rd->eces, k);
		k++;
	}
	if (verbose)
		printf("# round: %zu segments, rtt %ld..%ld us%s%s\n", n, rd->r1,
		       rd->r2, rd->drops ? ", drop " : "",
		       rd->drops ? rd->drops : "");
	for (;;) {
		size_t next = nsegs;
		int more = 0;

		for (i = first; i < nsegs; i++)
			if (segs[i].state == SEG_SCHEDULED &&
			    (next == nsegs || segs[i].due_ns < segs[next].due_ns))
				next = i;
		if (next == nsegs)
			break;
		/* An index, not a pointer: tun_drain() may move segs[]. */
		wait_until(segs[next].due_ns);
		deliver(&segs[next]);
		ece |= segs[next].ece;
		for (i = first; i < nsegs && !more; i++)
			more = segs[i].state == SEG_SCHEDULED;
		/* An ACK every ack_every deliveries, and after the last. */
		if (++ndeliv % rd->ack_every == 0 || !more) {
			send_ack(ece);
			ece = 0;
		}
	}
}

/*
 * idle US R [STEP]: stop writing to the socket, run rounds at R us (R +
 * STEP, R + 2 STEP ...) until it has nothing unacknowledged and nothing
 * unsent, stay silent for US, and
 * write again: the first segment after an idle period longer than the
 * RTO restarts the window (CA_EVENT_CWND_RESTART).
 */
static void do_idle(long us, long r, long step)
{
	struct round rd = { .r1 = r, .r2 = r, .ack_every = 1 };
	int outq;

	fill_off = 1;
	for (;;) {
		tun_drain();
		if (ioctl(sock_fd, SIOCOUTQ, &outq) < 0)
			fatal("SIOCOUTQ: %s", strerror(errno));
		if (outq == 0)
			break;
		do_round(&rd);
		rd.r1 += step;
		rd.r2 += step;
	}
	wait_until(now_ns() + (uint64_t)us * 1000);
	fill_off = 0;
	sock_fill();
	tun_drain();
}

/* --- expressions and expectations ------------------------------------------ */

static int state_index(const char *s, size_t len)
{
	int i;

	for (i = 0; i < NSTATES; i++)
		if (strlen(state_names[i]) == len && !strncmp(s, state_names[i], len))
			return i;
	return -1;
}

static int field(const struct tcp_info *ti, const char *f, long *v)
{
	if (!strcmp(f, "cwnd"))
		*v = ti->tcpi_snd_cwnd;
	else if (!strcmp(f, "ssthresh"))
		*v = ti->tcpi_snd_ssthresh;
	else if (!strcmp(f, "ca_state"))
		*v = ti->tcpi_ca_state;
	else if (!strcmp(f, "unacked"))
		*v = ti->tcpi_unacked;
	else if (!strcmp(f, "sacked"))
		*v = ti->tcpi_sacked;
	else if (!strcmp(f, "lost"))
		*v = ti->tcpi_lost;
	else if (!strcmp(f, "retrans"))
		*v = ti->tcpi_retrans;
	else if (!strcmp(f, "total_retrans"))
		*v = ti->tcpi_total_retrans;
	else if (!strcmp(f, "rtt"))
		*v = ti->tcpi_rtt;
	else
		return -1;
	return 0;
}

static int atom(const char *t, long *v)
{
	const char *dot;
	char *end;
	int s;

	if (isdigit((unsigned char)t[0])) {
		*v = strtol(t, &end, 0);
		return *end ? -1 : 0;
	}
	if (!strcmp(t, "acks")) {
		*v = nacks;
		return 0;
	}
	if (!strcmp(t, "inf")) {
		*v = 2147483647L;
		return 0;
	}
	s = state_index(t, strlen(t));
	if (s >= 0) {
		*v = s;
		return 0;
	}
	if (!strncmp(t, "n_", 2)) {
		s = state_index(t + 2, strlen(t + 2));
		if (s < 0)
			return -1;
		*v = n_enter[s];
		return 0;
	}
	dot = strchr(t, '.');
	if (dot && (!strncmp(t, "pre_", 4) || !strncmp(t, "post_", 5))) {
		int pre = t[1] == 'r';
		const char *sn = t + (pre ? 4 : 5);

		s = state_index(sn, dot - sn);
		if (s < 0)
			return -1;
		return field(pre ? &pre_state[s] : &post_state[s], dot + 1, v);
	}
	return field(&cur, t, v);
}

/* Evaluate tokens tok[0..n) strictly left to right. */
static int eval(char **tok, int n, long *v)
{
	long x;
	int i;

	if (n < 1 || atom(tok[0], v))
		return -1;
	for (i = 1; i + 1 < n; i += 2) {
		if (atom(tok[i + 1], &x) || strlen(tok[i]) != 1)
			return -1;
		switch (tok[i][0]) {
		case '+':
			*v += x;
			break;
		case '-':
			*v -= x;
			break;
		case '*':
			*v *= x;
			break;
		case '/':
			if (!x)
				return -1;
			*v /= x;
			break;
		default:
			return -1;
		}
	}
	return i == n ? 0 : -1;
}

static void do_expect(char **tok, int n, const char *line, int lineno)
{
	static const char *const ops[] = { "==", "!=", "<=", ">=", "<", ">" };
	long a, b;
	int i, op = -1, ok = 0;

	for (i = 0; i < n && op < 0; i++) {
		size_t k;

		for (k = 0; k < ARRAY_SIZE(ops); k++)
			if (!strcmp(tok[i], ops[k])) {
				op = k;
				break;
			}
	}
	i--;
	if (op < 0 || eval(tok, i, &a) || eval(tok + i + 1, n - i - 1, &b))
		fatal("line %d: bad expect: %s", lineno, line);
	switch (op) {
	case 0:
		ok = a == b;
		break;
	case 1:
		ok = a != b;
		break;
	case 2:
		ok = a <= b;
		break;
	case 3:
		ok = a >= b;
		break;
	case 4:
		ok = a < b;
		break;
	case 5:
		ok = a > b;
		break;
	}
	nexpect++;
	printf("%sok - line %d: %s\n", ok ? "" : "not ", lineno, line);
	if (!ok) {
		failed++;
		printf("# left %ld, right %ld\n", a, b);
		info_print("now", &cur);
	}
	fflush(stdout);
}

/* --- the script -------------------------------------------------------------- */

static void run_script(FILE *f)
{
	char line[512], text[512], *tok[32], *save, *p;
	int n, lineno = 0, connected = 0;

	while (fgets(line, sizeof(line), f)) {
		lineno++;
		p = strchr(line, '#');
		if (p)
			*p = 0;
		for (p = line + strlen(line); p > line && isspace((unsigned char)p[-1]);)
			*--p = 0;
		for (p = line; isspace((unsigned char)*p); p++)
			;
		snprintf(text, sizeof(text), "%s", p);
		n = 0;
		for (p = strtok_r(p, " \t", &save); p && n < 32;
		     p = strtok_r(NULL, " \t", &save))
			tok[n++] = p;
		if (!n)
			continue;
		if (strcmp(tok[0], "param") && strcmp(tok[0], "sysctl") &&
		    strcmp(tok[0], "window") && strcmp(tok[0], "connect") &&
		    !connected)
			fatal("line %d: '%s' before connect", lineno, tok[0]);

		if (!strcmp(tok[0], "param") && n == 3) {
			char path[256];

			snprintf(path, sizeof(path),
				 "/sys/module/tcp_cdg/parameters/%s", tok[1]);
			write_file(path, tok[2]);
		} else if (!strcmp(tok[0], "sysctl") && n == 3) {
			char path[256];

			snprintf(path, sizeof(path), "/proc/sys/%s", tok[1]);
			for (p = path + 10; *p; p++)
				if (*p == '.')
					*p = '/';
			sysctl_write(path, tok[2]);
		} else if (!strcmp(tok[0], "connect") && n <= 2) {
			do_connect(n == 2 ? atol(tok[1]) : 0);
			connected = 1;
		} else if (!strcmp(tok[0], "round") && n >= 2) {
			struct round rd = { .ack_every = 1 };
			int i = 2;

			rd.r1 = atol(tok[1]);
			rd.r2 = rd.r1;
			if (n > 2 && isdigit((unsigned char)tok[2][0]))
				rd.r2 = atol(tok[i++]);
			for (; i < n; i++) {
				if (!strcmp(tok[i], "drop") && i + 1 < n) {
					rd.drops = tok[++i];
				} else if (!strcmp(tok[i], "ece") && i + 1 < n) {
					rd.eces = tok[++i];
				} else if (!strcmp(tok[i], "late") && i + 2 < n) {
					rd.late_us = atol(tok[++i]);
					rd.lates = tok[++i];
				} else if (!strcmp(tok[i], "ack") && i + 1 < n &&
					   atol(tok[i + 1]) > 0) {
					rd.ack_every = atol(tok[++i]);
				} else {
					fatal("line %d: bad round: %s", lineno, text);
				}
			}
			do_round(&rd);
		} else if (!strcmp(tok[0], "rounds") && (n == 3 || n == 4)) {
			struct round rd = { .ack_every = 1 };
			long k, cnt = atol(tok[1]), r = atol(tok[2]);
			long step = n == 4 ? atol(tok[3]) : 0;

			for (k = 0; k < cnt; k++) {
				rd.r1 = r + k * step;
				rd.r2 = rd.r1;
				do_round(&rd);
			}
		} else if (!strcmp(tok[0], "idle") && (n == 3 || n == 4)) {
			do_idle(atol(tok[1]), atol(tok[2]), n == 4 ? atol(tok[3]) : 0);
		} else if (!strcmp(tok[0], "window") && n == 2) {
			rcv_wnd = strtoul(tok[1], NULL, 0);
			if (rcv_wnd > 65535U << PEER_WSCALE)
				fatal("line %d: window above %u", lineno,
				      65535U << PEER_WSCALE);
		} else if (!strcmp(tok[0], "expect")) {
			info_update();
			do_expect(tok + 1, n - 1, text, lineno);
		} else if (!strcmp(tok[0], "info") && n == 1) {
			info_update();
			info_print("info", &cur);
		} else {
			fatal("line %d: cannot parse: %s", lineno, text);
		}
		fflush(stdout);
	}
}

int main(int argc, char **argv)
{
	FILE *f;
	int c;

	while ((c = getopt(argc, argv, "6vc:")) != -1) {
		switch (c) {
		case '6':
			ipv6 = 1;
			break;
		case 'v':
			verbose++;
			break;
		case 'c':
			cc_name = optarg;
			break;
		default:
			goto usage;
		}
	}
	if (optind != argc - 1)
		goto usage;
	f = fopen(argv[optind], "r");
	if (!f)
		fatal("%s: %s", argv[optind], strerror(errno));
	setvbuf(stdout, NULL, _IOLBF, 0);
	memset(wbuf, 'x', sizeof(wbuf));
	t0_ns = now_ns();
	tun_open();
	run_script(f);
	fclose(f);
	if (!nexpect)
		fatal("the script has no expect");
	sock_abort();
	return failed ? 1 : 0;
usage:
	fprintf(stderr, "usage: peer [-6] [-v] [-c CC] SCRIPT\n");
	return 2;
}
