// SPDX-License-Identifier: GPL-2.0
/* Our module, unmodified (CDG_SRC, ../../tcp_cdg.c), as impl_ours. */
#define SHIM_IMPL	ours
#define SHIM_IMPL_NAME	"ours"
int ours_module_init(void);
void ours_module_exit(void);
#include CDG_SRC
#include "impl_common.h"
