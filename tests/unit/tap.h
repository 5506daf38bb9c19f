/* SPDX-License-Identifier: GPL-2.0 */
/*
 * TAP output: one "ok N - name" / "not ok N - name" line per result on
 * stdout; diagnostics as "# " lines.  run.sh numbers them across binaries.
 */
#ifndef _CDG_TAP_H
#define _CDG_TAP_H

#include <stdbool.h>

bool tap_ok(bool ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void tap_skip(const char *reason, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void tap_diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints the plan; the exit status of a test binary (0 unless it crashed). */
int tap_done(void);

#endif
