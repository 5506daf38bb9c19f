/* SPDX-License-Identifier: GPL-2.0 */
#include <netinet/in.h>
#include <sys/socket.h>
