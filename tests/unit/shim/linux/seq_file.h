/* SPDX-License-Identifier: GPL-2.0 */
/* seq_file into a fixed buffer; seq_printf() knows the kernel's %p forms. */
#ifndef _SHIM_LINUX_SEQ_FILE_H
#define _SHIM_LINUX_SEQ_FILE_H

#include <linux/kernel.h>

struct seq_file {
	char *buf;
	size_t size;
	size_t count;
	void *private;
};

void seq_printf(struct seq_file *m, const char *fmt, ...);
void seq_puts(struct seq_file *m, const char *s);
void seq_putc(struct seq_file *m, char c);

#endif
