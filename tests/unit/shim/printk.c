// SPDX-License-Identifier: GPL-2.0
/*
 * printk capture, WARN counting, lib/kstrtox.c semantics, scnprintf(),
 * seq_file, and a vsnprintf that understands the kernel's %pI forms used by
 * the tracepoints.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>

#include <linux/in.h>
#include <linux/seq_file.h>

#include "shim.h"

struct shim_log_entry shim_log[SHIM_LOG_MAX];
int shim_log_count;
long shim_warnings;

void shim_log_clear(void)
{
	shim_log_count = 0;
}

void shim_printk(const char *impl, const char *level, const char *fmt, ...)
{
	struct shim_log_entry *e;
	va_list ap;

	if (shim_log_count == SHIM_LOG_MAX) {
		memmove(shim_log, shim_log + 1, sizeof(shim_log) - sizeof(shim_log[0]));
		shim_log_count--;
	}
	e = &shim_log[shim_log_count++];
	snprintf(e->impl, sizeof(e->impl), "%s", impl);
	snprintf(e->level, sizeof(e->level), "%s", level);
	va_start(ap, fmt);
	vsnprintf(e->text, sizeof(e->text), fmt, ap);
	va_end(ap);
	e->text[strcspn(e->text, "\n")] = '\0';	/* one line, no newline */
	if (getenv("SHIM_VERBOSE"))
		fprintf(stderr, "# printk %s/%s: %s\n", impl, level, e->text);
}

const char *shim_log_find(const char *impl, const char *needle)
{
	int i;

	for (i = shim_log_count; i-- > 0;) {
		if (impl && strcmp(shim_log[i].impl, impl))
			continue;
		if (strstr(shim_log[i].text, needle))
			return shim_log[i].text;
	}
	return NULL;
}

void shim_warn(const char *file, int line, const char *cond)
{
	shim_warnings++;
	fprintf(stderr, "# WARNING: %s:%d: %s\n", file, line, cond);
}

/* ---- lib/kstrtox.c ---- */

static const char *fixup_radix(const char *s, unsigned int *base)
{
	if (*base == 0) {
		if (s[0] == '0') {
			if (tolower((unsigned char)s[1]) == 'x' &&
			    isxdigit((unsigned char)s[2]))
				*base = 16;
			else
				*base = 8;
		} else {
			*base = 10;
		}
	}
	if (*base == 16 && s[0] == '0' && tolower((unsigned char)s[1]) == 'x')
		s += 2;
	return s;
}

static int parse_ull(const char *s, unsigned int base, unsigned long long *res)
{
	unsigned long long r = 0;
	bool overflow = false;
	int n = 0;

	s = fixup_radix(s, &base);
	for (;; s++, n++) {
		unsigned int c = (unsigned char)*s, lc = c | 0x20, v;

		if (c >= '0' && c <= '9')
			v = c - '0';
		else if (lc >= 'a' && lc <= 'f')
			v = lc - 'a' + 10;
		else
			break;
		if (v >= base)
			break;
		if (r > (ULLONG_MAX - v) / base)
			overflow = true;
		r = r * base + v;
	}
	if (overflow)
		return -ERANGE;
	if (n == 0)
		return -EINVAL;
	if (*s == '\n')
		s++;
	if (*s)
		return -EINVAL;
	*res = r;
	return 0;
}

int kstrtoull(const char *s, unsigned int base, unsigned long long *res)
{
	if (s[0] == '+')
		s++;
	return parse_ull(s, base, res);
}

int kstrtoll(const char *s, unsigned int base, long long *res)
{
	unsigned long long tmp;
	int rv;

	if (s[0] == '-') {
		rv = parse_ull(s + 1, base, &tmp);
		if (rv < 0)
			return rv;
		if ((long long)-tmp > 0)
			return -ERANGE;
		*res = -tmp;
	} else {
		rv = kstrtoull(s, base, &tmp);
		if (rv < 0)
			return rv;
		if ((long long)tmp < 0)
			return -ERANGE;
		*res = tmp;
	}
	return 0;
}

int kstrtouint(const char *s, unsigned int base, unsigned int *res)
{
	unsigned long long tmp;
	int rv = kstrtoull(s, base, &tmp);

	if (rv < 0)
		return rv;
	if (tmp != (unsigned int)tmp)
		return -ERANGE;
	*res = tmp;
	return 0;
}

int kstrtoint(const char *s, unsigned int base, int *res)
{
	long long tmp;
	int rv = kstrtoll(s, base, &tmp);

	if (rv < 0)
		return rv;
	if (tmp != (int)tmp)
		return -ERANGE;
	*res = tmp;
	return 0;
}

int kstrtobool(const char *s, bool *res)
{
	if (!s)
		return -EINVAL;
	switch (s[0]) {
	case 'y': case 'Y': case 't': case 'T': case '1':
		*res = true;
		return 0;
	case 'n': case 'N': case 'f': case 'F': case '0':
		*res = false;
		return 0;
	case 'o': case 'O':
		if (s[1] == 'n' || s[1] == 'N') {
			*res = true;
			return 0;
		}
		if (s[1] == 'f' || s[1] == 'F') {
			*res = false;
			return 0;
		}
		break;
	}
	return -EINVAL;
}

/* ---- formatting ---- */

/* %pI4, %pI6(c), %pIS[p][c]: addresses the way the kernel prints them. */
static int fmt_ip(char *out, size_t n, const char *ext, const void *p)
{
	char a[INET6_ADDRSTRLEN];
	bool port = strchr(ext + 2, 'p') != NULL;
	const struct sockaddr *sa = p;

	if (!p)
		return snprintf(out, n, "(null)");
	if (ext[1] == '4') {
		inet_ntop(AF_INET, p, a, sizeof(a));
		return snprintf(out, n, "%s", a);
	}
	if (ext[1] == '6') {
		inet_ntop(AF_INET6, p, a, sizeof(a));
		return snprintf(out, n, "%s", a);
	}
	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *s4 = p;

		inet_ntop(AF_INET, &s4->sin_addr, a, sizeof(a));
		return port ? snprintf(out, n, "%s:%u", a, ntohs(s4->sin_port)) :
			      snprintf(out, n, "%s", a);
	}
	if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *s6 = p;

		inet_ntop(AF_INET6, &s6->sin6_addr, a, sizeof(a));
		return port ? snprintf(out, n, "[%s]:%u", a, ntohs(s6->sin6_port)) :
			      snprintf(out, n, "%s", a);
	}
	return snprintf(out, n, "(einval)");
}

int shim_kvsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	size_t len = 0;
	char tmp[512];

#define PUT(str, n) do {						\
		size_t __n = (n);					\
		if (len + 1 < size) {					\
			size_t __c = __n < size - 1 - len ? __n : size - 1 - len; \
			memcpy(buf + len, str, __c);			\
		}							\
		len += __n;						\
	} while (0)

	while (*fmt) {
		char spec[32], lenmod[3] = "";
		const char *start = fmt;
		int k = 0, w;

		if (*fmt != '%') {
			PUT(fmt, 1);
			fmt++;
			continue;
		}
		spec[k++] = *fmt++;
		while (strchr("-+ #0", *fmt) && k < 8)
			spec[k++] = *fmt++;
		if (*fmt == '*') {
			k += snprintf(spec + k, sizeof(spec) - k, "%d", va_arg(ap, int));
			fmt++;
		}
		while (isdigit((unsigned char)*fmt) && k < 16)
			spec[k++] = *fmt++;
		if (*fmt == '.') {
			spec[k++] = *fmt++;
			if (*fmt == '*') {
				k += snprintf(spec + k, sizeof(spec) - k, "%d", va_arg(ap, int));
				fmt++;
			}
			while (isdigit((unsigned char)*fmt) && k < 24)
				spec[k++] = *fmt++;
		}
		while (strchr("hlzjt", *fmt) && *fmt && strlen(lenmod) < 2) {
			lenmod[strlen(lenmod)] = *fmt;
			spec[k++] = *fmt++;
		}
		spec[k++] = *fmt;
		spec[k] = '\0';
		switch (*fmt) {
		case 'd': case 'i':
			if (!strcmp(lenmod, "ll"))
				w = snprintf(tmp, sizeof(tmp), spec, va_arg(ap, long long));
			else if (lenmod[0] == 'l' || lenmod[0] == 'z' || lenmod[0] == 'j' || lenmod[0] == 't')
				w = snprintf(tmp, sizeof(tmp), spec, va_arg(ap, long));
			else
				w = snprintf(tmp, sizeof(tmp), spec, va_arg(ap, int));
			break;
		case 'u': case 'x': case 'X': case 'o':
			if (!strcmp(lenmod, "ll"))
				w = snprintf(tmp, sizeof(tmp), spec, va_arg(ap, unsigned long long));
			else if (lenmod[0] == 'l' || lenmod[0] == 'z' || lenmod[0] == 'j' || lenmod[0] == 't')
				w = snprintf(tmp, sizeof(tmp), spec, va_arg(ap, unsigned long));
			else
				w = snprintf(tmp, sizeof(tmp), spec, va_arg(ap, unsigned int));
			break;
		case 'c':
			w = snprintf(tmp, sizeof(tmp), spec, va_arg(ap, int));
			break;
		case 's':
			w = snprintf(tmp, sizeof(tmp), spec, va_arg(ap, const char *));
			break;
		case '%':
			w = snprintf(tmp, sizeof(tmp), "%%");
			break;
		case 'p': {
			const void *p = va_arg(ap, const void *);
			char ext[16];
			int e = 0;

			while (isalnum((unsigned char)fmt[1]) && e < 15)
				ext[e++] = *++fmt;
			ext[e] = '\0';
			if (ext[0] == 'I')
				w = fmt_ip(tmp, sizeof(tmp), ext, p);
			else
				w = snprintf(tmp, sizeof(tmp), "%p", p);
			break;
		}
		default:
			/* Unknown conversion: print it literally, consume nothing. */
			w = (int)(fmt - start + 1);
			snprintf(tmp, sizeof(tmp), "%.*s", w, start);
			break;
		}
		if (*fmt)
			fmt++;
		if (w > (int)sizeof(tmp) - 1)
			w = sizeof(tmp) - 1;
		if (w > 0)
			PUT(tmp, (size_t)w);
	}
	if (size)
		buf[len < size ? len : size - 1] = '\0';
#undef PUT
	return (int)len;
}

int scnprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	if (n < 0 || size == 0)
		return 0;
	return (size_t)n < size ? n : (int)size - 1;
}

void seq_printf(struct seq_file *m, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = shim_kvsnprintf(m->buf + m->count, m->size - m->count, fmt, ap);
	va_end(ap);
	/* Like the kernel: an overflow marks the buffer full. */
	m->count = m->count + n < m->size ? m->count + n : m->size - 1;
}

void seq_puts(struct seq_file *m, const char *s)
{
	seq_printf(m, "%s", s);
}

void seq_putc(struct seq_file *m, char c)
{
	seq_printf(m, "%c", c);
}
