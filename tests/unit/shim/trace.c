// SPDX-License-Identifier: GPL-2.0
/* Tracepoint output: a count per event and the text of the last one. */
#include <stdio.h>

#include <linux/tracepoint.h>

#include "shim.h"

bool shim_trace_enabled;

#define MAX_EVENTS 16
static struct {
	const char *name;
	long count;
	char last[512];
} events[MAX_EVENTS];
static int nevents;

void shim_trace_enable(bool on)
{
	shim_trace_enabled = on;
}

void shim_trace_clear(void)
{
	nevents = 0;
}

void shim_trace_emit(const char *event, const char *fmt, ...)
{
	va_list ap;
	int i;

	for (i = 0; i < nevents && strcmp(events[i].name, event); i++)
		;
	if (i == nevents) {
		if (nevents == MAX_EVENTS)
			return;
		events[nevents].name = event;
		events[nevents++].count = 0;
	}
	events[i].count++;
	va_start(ap, fmt);
	shim_kvsnprintf(events[i].last, sizeof(events[i].last), fmt, ap);
	va_end(ap);
}

long shim_trace_count(const char *event)
{
	long n = 0;
	int i;

	for (i = 0; i < nevents; i++)
		if (!event || !strcmp(events[i].name, event))
			n += events[i].count;
	return n;
}

const char *shim_trace_last(const char *event)
{
	int i;

	for (i = 0; i < nevents; i++)
		if (!strcmp(events[i].name, event))
			return events[i].last;
	return NULL;
}

const char *shim_trace_symbol(unsigned long val, const struct shim_trace_sym *syms)
{
	static char unknown[24];

	for (; syms->name; syms++)
		if (syms->mask == val)
			return syms->name;
	snprintf(unknown, sizeof(unknown), "0x%lx", val);
	return unknown;
}
