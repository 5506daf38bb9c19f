// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's 6.1 tcp_cdg.c as impl_oracle, when the Makefile could
 * extract it from linux-source-6.1 (CDG_ORACLE_SRC); else a stub that the
 * oracle tests report as skipped.
 */
#define SHIM_IMPL	oracle
#define SHIM_IMPL_NAME	"oracle"
#ifdef CDG_ORACLE_SRC
int oracle_module_init(void);
void oracle_module_exit(void);
#include CDG_ORACLE_SRC
#include "impl_common.h"
#else
#include "impl.h"
const struct cdg_impl impl_oracle = { .name = "oracle", .available = false };
#endif
