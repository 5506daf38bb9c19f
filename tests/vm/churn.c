// SPDX-License-Identifier: GPL-2.0
/*
 * churn: many TCP connections for the stress tests (tests/vm/stress_*.sh).
 *
 *   churn serve PORT [CLOSE_AFTER]
 *	poll-based sink: accepts any number of connections, reads and drops
 *	what they send, closes a connection at EOF or once it has received
 *	CLOSE_AFTER bytes (so that TIME_WAIT lands on the server, not on the
 *	client's ephemeral ports).  Runs until killed.
 *   churn short ADDR PORT N BYTES CC
 *	N connections one after the other: socket, TCP_CONGESTION=CC,
 *	connect, send BYTES, wait for the server's close, close.
 *   churn bulk ADDR PORT N SECONDS CC [SWITCH_MS]
 *	N concurrent connections sending for SECONDS.  With SWITCH_MS, every
 *	SWITCH_MS each socket changes congestion control along
 *	CC -> cubic -> CC -> ... while it sends.
 *
 * Prints one line of "key value" pairs on stdout; exits 1 on any error.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static char buf[65536];

static void die(const char *what)
{
	fprintf(stderr, "churn: %s: %s\n", what, strerror(errno));
	exit(1);
}

static long num(const char *s, const char *what)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < 0) {
		fprintf(stderr, "churn: bad %s '%s'\n", what, s);
		exit(2);
	}
	return v;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static struct sockaddr_in addr_of(const char *ip, const char *port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };

	sa.sin_port = htons(num(port, "port"));
	if (inet_pton(AF_INET, ip, &sa.sin_addr) != 1) {
		fprintf(stderr, "churn: bad IPv4 address '%s'\n", ip);
		exit(2);
	}
	return sa;
}

static int set_cc(int fd, const char *cc)
{
	return setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, cc, strlen(cc));
}

static __attribute__((noreturn)) void serve(const char *port, long close_after)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	int one = 1, lfd, cap = 1024, n = 1, i;
	struct pollfd *pfd = calloc(cap, sizeof(*pfd));
	long *got = calloc(cap, sizeof(*got));

	if (!pfd || !got)
		die("calloc");
	sa.sin_port = htons(num(port, "port"));
	lfd = socket(AF_INET, SOCK_STREAM, 0);
	if (lfd < 0)
		die("socket");
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) || listen(lfd, 4096))
		die("bind/listen");
	pfd[0] = (struct pollfd){ .fd = lfd, .events = POLLIN };
	for (;;) {
		if (poll(pfd, n, -1) < 0)
			die("poll");
		for (i = n - 1; i >= 1; i--) {
			ssize_t r;

			if (!pfd[i].revents)
				continue;
			r = read(pfd[i].fd, buf, sizeof(buf));
			if (r > 0)
				got[i] += r;
			if (r > 0 && !(close_after && got[i] >= close_after))
				continue;
			if (r < 0 && errno == EAGAIN)
				continue;
			close(pfd[i].fd);
			pfd[i] = pfd[--n];
			got[i] = got[n];
		}
		if (pfd[0].revents) {
			int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK);

			if (fd < 0)
				continue;
			if (n == cap) {
				cap *= 2;
				pfd = realloc(pfd, cap * sizeof(*pfd));
				got = realloc(got, cap * sizeof(*got));
				if (!pfd || !got)
					die("realloc");
			}
			pfd[n] = (struct pollfd){ .fd = fd, .events = POLLIN };
			got[n++] = 0;
		}
	}
}

static int shortconns(const char *ip, const char *port, long count,
		      long bytes, const char *cc)
{
	struct sockaddr_in sa = addr_of(ip, port);
	long i, done = 0, errors = 0;
	double t0 = now();

	for (i = 0; i < count; i++) {
		int fd = socket(AF_INET, SOCK_STREAM, 0);
		long left = bytes;

		if (fd < 0)
			die("socket");
		if (set_cc(fd, cc) ||
		    connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
			if (errors++ < 3)
				fprintf(stderr, "churn: connection %ld: %s\n",
					i, strerror(errno));
			close(fd);
			continue;
		}
		while (left > 0) {
			ssize_t w = send(fd, buf, left < (long)sizeof(buf) ?
					 left : (long)sizeof(buf), MSG_NOSIGNAL);
			if (w <= 0)
				break;
			left -= w;
		}
		/* The server closes once it has it all: wait for that. */
		while (read(fd, buf, sizeof(buf)) > 0)
			;
		close(fd);
		if (left == 0)
			done++;
		else
			errors++;
	}
	printf("connections %ld done %ld errors %ld seconds %.1f\n",
	       count, done, errors, now() - t0);
	return errors ? 1 : 0;
}

/*
 * With CHURN_FAIL_SWITCHES=1 in the environment, bulk marks itself for fault
 * injection (/proc/self/make-it-fail, failslab's task-filter) only while it
 * switches congestion control: the allocations a switch makes, among them
 * cdg's ring, are the ones failslab may fail; connect and send are spared.
 */
static void make_it_fail(int on)
{
	static int wanted = -1;
	int fd;

	if (wanted < 0) {
		const char *e = getenv("CHURN_FAIL_SWITCHES");

		wanted = e && !strcmp(e, "1");
	}
	if (!wanted)
		return;
	fd = open("/proc/self/make-it-fail", O_WRONLY);
	if (fd < 0 || write(fd, on ? "1" : "0", 1) != 1)
		die("/proc/self/make-it-fail");
	close(fd);
}

static int bulk(const char *ip, const char *port, long count, long secs,
		const char *cc, long switch_ms)
{
	struct sockaddr_in sa = addr_of(ip, port);
	struct pollfd *pfd = calloc(count, sizeof(*pfd));
	long *sent = calloc(count, sizeof(*sent));
	long i, errors = 0, switches = 0, to_cc = 0, progressed = 0, minb = -1;
	double t0, next_switch, end;
	long long total = 0;
	int phase = 0;

	if (!pfd || !sent)
		die("calloc");
	for (i = 0; i < count; i++) {
		int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);

		if (fd < 0)
			die("socket");
		if (set_cc(fd, cc))
			die("setsockopt TCP_CONGESTION");
		if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) &&
		    errno != EINPROGRESS)
			die("connect");
		pfd[i] = (struct pollfd){ .fd = fd, .events = POLLOUT };
	}
	t0 = now();
	end = t0 + secs;
	next_switch = t0 + switch_ms / 1000.0;
	while (now() < end) {
		if (poll(pfd, count, 50) < 0)
			die("poll");
		for (i = 0; i < count; i++) {
			ssize_t w;

			if (!(pfd[i].revents & POLLOUT) || pfd[i].fd < 0)
				continue;
			w = send(pfd[i].fd, buf, sizeof(buf), MSG_NOSIGNAL);
			if (w > 0) {
				sent[i] += w;
			} else if (errno != EAGAIN) {
				if (errors++ < 3)
					fprintf(stderr, "churn: conn %ld: %s\n",
						i, strerror(errno));
				close(pfd[i].fd);
				pfd[i].fd = -1;
			}
		}
		if (switch_ms && now() >= next_switch) {
			const char *to = (phase ^= 1) ? "cubic" : cc;

			make_it_fail(1);
			for (i = 0; i < count; i++) {
				if (pfd[i].fd < 0)
					continue;
				if (set_cc(pfd[i].fd, to)) {
					if (errors++ < 3)
						fprintf(stderr, "churn: switch to %s: %s\n",
							to, strerror(errno));
				} else {
					switches++;
					to_cc += !phase;
				}
			}
			make_it_fail(0);
			next_switch += switch_ms / 1000.0;
		}
	}
	for (i = 0; i < count; i++) {
		if (sent[i] > 0)
			progressed++;
		if (minb < 0 || sent[i] < minb)
			minb = sent[i];
		total += sent[i];
		if (pfd[i].fd >= 0)
			close(pfd[i].fd);
	}
	printf("connections %ld progressed %ld min_bytes %ld total_bytes %lld switches %ld to_cc %ld errors %ld\n",
	       count, progressed, minb, total, switches, to_cc, errors);
	return errors ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc >= 3 && !strcmp(argv[1], "serve"))
		serve(argv[2], argc > 3 ? num(argv[3], "CLOSE_AFTER") : 0);
	if (argc == 7 && !strcmp(argv[1], "short"))
		return shortconns(argv[2], argv[3], num(argv[4], "N"),
				  num(argv[5], "BYTES"), argv[6]);
	if ((argc == 7 || argc == 8) && !strcmp(argv[1], "bulk"))
		return bulk(argv[2], argv[3], num(argv[4], "N"),
			    num(argv[5], "SECONDS"), argv[6],
			    argc == 8 ? num(argv[7], "SWITCH_MS") : 0);
	fprintf(stderr, "usage: churn serve PORT [CLOSE_AFTER] | short ADDR PORT N BYTES CC | bulk ADDR PORT N SECONDS CC [SWITCH_MS]\n");
	return 2;
}
