// SPDX-License-Identifier: GPL-2.0
/*
 * tcp_fct - flow completion times of short TCP transfers, for the benchmark.
 *
 * Built statically on the host by scripts/vm/mkinitramfs.sh and run in the
 * guest by scripts/bench/guest/bench.sh.  iperf3 cannot time a short transfer
 * (its sender stops the clock when the data is in the socket buffer), so
 * this times one request/response exchange per transfer instead:
 *
 *   tcp_fct serve PORT
 *	on the sender: accept connections; each sends "CC SIZE\n", gets its
 *	socket switched to congestion control CC and SIZE bytes back, then
 *	the server closes it.
 *   tcp_fct get ADDR PORT CC SIZE COUNT GAP_MS
 *	on the receiver: COUNT transfers one after the other, GAP_MS apart;
 *	for each prints "fct SIZE BYTES MS START" where MS runs from
 *	connect() to the server's FIN (handshake + request + data), BYTES is
 *	what arrived and START the wall-clock second the transfer began.
 *
 * Exit status: 0 when every transfer completed, 1 otherwise, 2 on usage.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static char buf[65536];

static double now(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void timeouts(int fd, int secs)
{
	struct timeval tv = { .tv_sec = secs };

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

/* One connection on the server: read the request, switch CC, send. */
static int serve_one(int c)
{
	char req[64], cc[17];
	long long size, n;
	ssize_t r;
	size_t got = 0;

	timeouts(c, 30);
	while (got < sizeof(req) - 1 && !memchr(req, '\n', got)) {
		r = read(c, req + got, sizeof(req) - 1 - got);
		if (r <= 0)
			return 1;
		got += r;
	}
	req[got] = 0;
	if (sscanf(req, "%16s %lld", cc, &size) != 2 || size < 0)
		return 1;
	if (setsockopt(c, IPPROTO_TCP, TCP_CONGESTION, cc, strlen(cc))) {
		fprintf(stderr, "tcp_fct: TCP_CONGESTION %s: %s\n", cc,
			strerror(errno));
		return 1;
	}
	for (n = 0; n < size; n += r) {
		r = write(c, buf, size - n < (long long)sizeof(buf) ?
			  size - n : (long long)sizeof(buf));
		if (r <= 0)
			return 1;
	}
	return 0;
}

static int serve(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons(port) };
	int one = 1, s, c;

	signal(SIGCHLD, SIG_IGN);	/* no zombies */
	s = socket(AF_INET, SOCK_STREAM, 0);
	setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (s < 0 || bind(s, (void *)&a, sizeof(a)) || listen(s, 16)) {
		perror("tcp_fct: listen");
		return 1;
	}
	for (;;) {
		c = accept(s, NULL, NULL);
		if (c < 0) {
			if (errno == EINTR)
				continue;
			perror("tcp_fct: accept");
			return 1;
		}
		/* A child per transfer: a stuck client never blocks the next. */
		if (fork() == 0) {
			close(s);
			_exit(serve_one(c));
		}
		close(c);
	}
}

static int get(const char *addr, int port, const char *cc, long long size,
	       int count, int gap_ms)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons(port) };
	int i, fd, bad = 0;
	char req[64];
	long long bytes;
	double t0, wall;
	ssize_t r;

	if (inet_pton(AF_INET, addr, &a.sin_addr) != 1) {
		fprintf(stderr, "tcp_fct: bad address %s\n", addr);
		return 2;
	}
	snprintf(req, sizeof(req), "%s %lld\n", cc, size);
	for (i = 0; i < count; i++) {
		if (i)
			usleep(gap_ms * 1000);
		wall = now(CLOCK_REALTIME);
		t0 = now(CLOCK_MONOTONIC);
		bytes = 0;
		fd = socket(AF_INET, SOCK_STREAM, 0);
		timeouts(fd, 30);
		if (connect(fd, (void *)&a, sizeof(a)) ||
		    write(fd, req, strlen(req)) != (ssize_t)strlen(req)) {
			fprintf(stderr, "tcp_fct: %s:%d: %s\n", addr, port,
				strerror(errno));
			close(fd);
			bad = 1;
			continue;
		}
		while ((r = read(fd, buf, sizeof(buf))) > 0)
			bytes += r;
		printf("fct %lld %lld %.3f %.6f\n", size, bytes,
		       (now(CLOCK_MONOTONIC) - t0) * 1e3, wall);
		fflush(stdout);
		if (r < 0 || bytes != size)
			bad = 1;
		close(fd);
	}
	return bad;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "serve"))
		return serve(atoi(argv[2]));
	if (argc == 8 && !strcmp(argv[1], "get"))
		return get(argv[2], atoi(argv[3]), argv[4], atoll(argv[5]),
			   atoi(argv[6]), atoi(argv[7]));
	fprintf(stderr, "usage: tcp_fct serve PORT\n"
		"       tcp_fct get ADDR PORT CC SIZE COUNT GAP_MS\n");
	return 2;
}
