/* Where the ranks are, where they may run, and what their clocks say. */
#define _GNU_SOURCE
#include "driver.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pfs/affinity.h"

#define NUMA_DIR "/sys/devices/system/node"
#define NUMA_NODES_MAX 4096 /* node ids beyond are not listed */

/* Local. The members of set (setsize bytes) as a Linux list, "0-3,8", in
 * out; when it does not fit, cut after a whole entry and ended by ",...". */
static void list_format(const cpu_set_t *set, size_t setsize, char *out, size_t len)
{
    const int nbits = (int)(setsize * 8);
    size_t n = 0, fits = 0; /* fits: a prefix of whole entries that leaves room for ",..." */
    out[0] = '\0';
    for (int i = 0; i < nbits; i++) {
        if (!CPU_ISSET_S((size_t)i, setsize, set))
            continue;
        int j = i;
        while (j + 1 < nbits && CPU_ISSET_S((size_t)j + 1, setsize, set))
            j++;
        char e[32];
        int k = j == i ? snprintf(e, sizeof(e), "%s%d", n ? "," : "", i)
                       : snprintf(e, sizeof(e), "%s%d-%d", n ? "," : "", i, j);
        if (n + (size_t)k >= len) {
            snprintf(out + fits, len - fits, "%s", fits ? ",..." : "...");
            return;
        }
        memcpy(out + n, e, (size_t)k + 1);
        n += (size_t)k;
        if (n + 4 < len)
            fits = n;
        i = j;
    }
}

/* Local. Adds the members of a Linux list ("0-3,8-11\n") to set. */
static void list_parse(const char *s, cpu_set_t *set, size_t setsize)
{
    while (*s) {
        char *end;
        long a = strtol(s, &end, 10), b = a;
        if (end == s)
            return;
        if (*end == '-')
            b = strtol(end + 1, &end, 10);
        for (long i = a; i >= 0 && i <= b && (size_t)i < setsize * 8; i++)
            CPU_SET_S((size_t)i, setsize, set);
        s = *end == ',' ? end + 1 : "";
    }
}

/* Local. The NUMA nodes whose CPUs (NUMA_DIR/nodeN/cpulist) meet mine, as a
 * list in out; "" where the system has no NUMA information. */
static void numa_nodes(const cpu_set_t *mine, size_t setsize, char *out, size_t len)
{
    out[0] = '\0';
    DIR *dir = opendir(NUMA_DIR);
    const size_t nsize = CPU_ALLOC_SIZE(NUMA_NODES_MAX);
    cpu_set_t *nodes = CPU_ALLOC(NUMA_NODES_MAX), *cpus = CPU_ALLOC(setsize * 8);
    char *line = NULL;
    size_t cap = 0;
    int any = 0;
    if (dir && nodes && cpus) {
        CPU_ZERO_S(nsize, nodes);
        for (struct dirent *e; (e = readdir(dir)) != NULL;) {
            char *end = NULL, path[sizeof(NUMA_DIR) + 300];
            long id = strncmp(e->d_name, "node", 4) == 0 ? strtol(e->d_name + 4, &end, 10) : -1;
            if (id < 0 || id >= NUMA_NODES_MAX || end == e->d_name + 4 || *end)
                continue;
            snprintf(path, sizeof(path), NUMA_DIR "/%s/cpulist", e->d_name);
            FILE *f = fopen(path, "r");
            if (!f)
                continue;
            CPU_ZERO_S(setsize, cpus);
            if (getline(&line, &cap, f) > 0)
                list_parse(line, cpus, setsize);
            fclose(f);
            CPU_AND_S(setsize, cpus, cpus, mine);
            if (CPU_COUNT_S(setsize, cpus) > 0) {
                CPU_SET_S((size_t)id, nsize, nodes);
                any = 1;
            }
        }
    }
    if (any)
        list_format(nodes, nsize, out, len);
    free(line);
    if (dir)
        closedir(dir);
    if (nodes)
        CPU_FREE(nodes);
    if (cpus)
        CPU_FREE(cpus);
}

/* Local. This thread's (the main thread's, before any stream thread, which
 * inherits it) CPU affinity, its count and its NUMA nodes; a mask too large
 * for 1024 CPUs is read with a larger set. */
static void affinity_read(struct pfs_affinity *a)
{
    memset(a, 0, sizeof(*a));
    a->cpus = -1;
    for (int n = 1024; n <= (1 << 18); n *= 2) {
        cpu_set_t *set = CPU_ALLOC(n);
        size_t size = CPU_ALLOC_SIZE(n);
        if (!set)
            return;
        CPU_ZERO_S(size, set);
        int rc = sched_getaffinity(0, size, set), e = errno;
        if (rc == 0) {
            a->cpus = CPU_COUNT_S(size, set);
            list_format(set, size, a->cpu_affinity, sizeof(a->cpu_affinity));
            numa_nodes(set, size, a->numa_nodes, sizeof(a->numa_nodes));
        }
        CPU_FREE(set);
        if (rc == 0 || e != EINVAL)
            return;
    }
}

/* Collective. Measures each rank's clock against rank 0's with ping-pongs
 * and keeps the round with the smallest round trip. */
static void measure_clocks(struct ctx *c, double *corr, double *unc)
{
    const int tag = PFS_TAG_CLOCK;
    if (c->rank == 0) {
        corr[0] = unc[0] = 0;
        for (int r = 1; r < c->nranks; r++) {
            double t0[CLOCK_ROUNDS], tr[CLOCK_ROUNDS], t1[CLOCK_ROUNDS];
            for (int i = 0; i < CLOCK_ROUNDS; i++) {
                t0[i] = pfs_now();
                MPI_Send(&t0[i], 1, MPI_DOUBLE, r, tag, c->comm);
                MPI_Recv(&tr[i], 1, MPI_DOUBLE, r, tag, c->comm, MPI_STATUS_IGNORE);
                t1[i] = pfs_now();
            }
            pfs_clock_estimate(t0, tr, t1, CLOCK_ROUNDS, &corr[r], &unc[r]);
        }
    } else {
        for (int i = 0; i < CLOCK_ROUNDS; i++) {
            double x;
            MPI_Recv(&x, 1, MPI_DOUBLE, 0, tag, c->comm, MPI_STATUS_IGNORE);
            x = pfs_now();
            MPI_Send(&x, 1, MPI_DOUBLE, 0, tag, c->comm);
        }
    }
}

/* Collective. The real placement, from the processor names: nodes in rank
 * order of first appearance, the lowest rank of each node, the reorder
 * shift, clock corrections against rank 0, and (rank 0) each node's memory
 * for the cache warning and each rank's CPU affinity and NUMA nodes, in one
 * gather. 0, or -1 when an allocation failed (recorded). */
int drv_topology_setup(struct ctx *c)
{
    c->hosts = calloc((size_t)c->nranks, PFS_HOST_MAX);
    c->node_of_rank = calloc((size_t)c->nranks, sizeof(int));
    c->corr = calloc((size_t)c->nranks, sizeof(double));
    c->unc = calloc((size_t)c->nranks, sizeof(double));
    c->mems = c->rank == 0 ? calloc((size_t)c->nranks, sizeof(double)) : NULL;
    c->affinity = c->rank == 0 ? calloc((size_t)c->nranks, sizeof(*c->affinity)) : NULL;
    struct fact {
        double mem;
        struct pfs_affinity aff;
    } mine, *facts = c->rank == 0 ? calloc((size_t)c->nranks, sizeof(*facts)) : NULL;
    int bad = !c->hosts || !c->node_of_rank || !c->corr || !c->unc, any = 0;
    bad |= c->rank == 0 && (!c->mems || !c->affinity || !facts);
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, c->comm);
    if (any) {
        free(facts);
        if (bad)
            drv_set_fail(c, "allocate the placement tables", "", ENOMEM, "%d ranks", c->nranks);
        return -1;
    }
    MPI_Allgather(c->host, PFS_HOST_MAX, MPI_CHAR, c->hosts, PFS_HOST_MAX, MPI_CHAR, c->comm);
    c->nnodes = pfs_placement_nodes((const char(*)[PFS_HOST_MAX])c->hosts, c->nranks, c->node_of_rank);
    c->lowest_on_node = 1;
    for (int q = 0; q < c->rank; q++)
        if (c->node_of_rank[q] == c->node_of_rank[c->rank])
            c->lowest_on_node = 0;
    c->shift = c->cfg.reorder ? pfs_reorder_shift(c->node_of_rank, c->nranks) : 0;
    measure_clocks(c, c->corr, c->unc);
    /* A correction smaller than its own uncertainty is noise (ranks of one
     * node share a clock, and an oversubscribed node stretches the round
     * trips): applying it would skew short phases, so it is not applied. */
    for (int r = 0; r < c->nranks; r++)
        if (fabs(c->corr[r]) <= c->unc[r])
            c->corr[r] = 0;
    mine.mem = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
    affinity_read(&mine.aff);
    MPI_Gather(&mine, (int)sizeof(mine), MPI_BYTE, facts, (int)sizeof(mine), MPI_BYTE, 0, c->comm);
    for (int r = 0; c->rank == 0 && r < c->nranks; r++) {
        c->mems[r] = facts[r].mem;
        c->affinity[r] = facts[r].aff;
    }
    free(facts);
    return 0;
}
