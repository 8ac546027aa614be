/* Where a rank may run: its CPU affinity and NUMA node(s), as recorded in
 * the placement provenance. Pure: a fixed-size record per rank, gathered to
 * rank 0 with the other topology facts. */
#ifndef PFS_AFFINITY_H
#define PFS_AFFINITY_H

#include <stdint.h>

#define PFS_CPULIST_MAX 48  /* "0-3,8": sched_getaffinity as a Linux cpulist */
#define PFS_NUMALIST_MAX 12 /* "0" or "0-1": the NUMA nodes of those CPUs */

/* 64 bytes. A list longer than its field is cut after a whole entry and ends
 * in ",..." (the count stays exact). Stream threads (-T) and the backend's
 * helpers inherit the rank's affinity: what is recorded is theirs too. */
struct pfs_affinity {
    char cpu_affinity[PFS_CPULIST_MAX]; /* "" when sched_getaffinity failed */
    char numa_nodes[PFS_NUMALIST_MAX];  /* "" where the system has no NUMA information */
    int32_t cpus;                       /* CPUs in the mask; -1 when it could not be read */
};

#endif
