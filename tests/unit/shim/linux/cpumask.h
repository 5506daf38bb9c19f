/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _SHIM_LINUX_CPUMASK_H
#define _SHIM_LINUX_CPUMASK_H
#define SHIM_NR_CPUS 4
#define nr_cpu_ids SHIM_NR_CPUS
#define for_each_possible_cpu(cpu) for ((cpu) = 0; (cpu) < SHIM_NR_CPUS; (cpu)++)
#define for_each_online_cpu(cpu) for_each_possible_cpu(cpu)
#endif
