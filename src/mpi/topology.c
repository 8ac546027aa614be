/* Where the ranks are, where they may run, and what their clocks say. */
#define _GNU_SOURCE
#include "driver.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nodes.h"
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

/* ---- nodes ----
 *
 * A node is the ranks of one host name, as before, numbered in rank order
 * of first appearance (rank 0's node is node 0). The node communicator is
 * MPI_Comm_split_type(SHARED) (it splits by fake node too: the daemons of
 * tests/lib/fakenodes.sh are separate nodes to the runtime), checked
 * against the names: where a node's ranks name different hosts, or two
 * nodes one host, it is the split by name instead, so that the placement is
 * the one the names say. Its lowest rank leads it; the leaders have a
 * communicator of their own, where a leader's rank is its node's number. */

/* Local. A host name as a split colour (FNV-1a, >= 0). */
static int host_color(const char *h)
{
    uint32_t x = 2166136261u;
    for (int i = 0; i < PFS_HOST_MAX && h[i]; i++)
        x = (x ^ (unsigned char)h[i]) * 16777619u;
    return (int)(x & 0x7fffffff);
}

/* Collective over comm. The node communicator by name: the ranks whose
 * names hash alike, then, among them (one node unless two names collide),
 * by the first rank of each name. *nomem: this rank could not hold its
 * group's names (then the split is by hash alone). */
static void split_by_name(MPI_Comm comm, const char *host, MPI_Comm *node, int *nomem)
{
    MPI_Comm h;
    int n, me, rank;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_split(comm, host_color(host), rank, &h);
    MPI_Comm_size(h, &n);
    MPI_Comm_rank(h, &me);
    char(*names)[PFS_HOST_MAX] = malloc((size_t)n * PFS_HOST_MAX);
    int color = me, bad = !names, any = 0;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, h);
    if (!any) {
        MPI_Allgather(host, PFS_HOST_MAX, MPI_CHAR, names, PFS_HOST_MAX, MPI_CHAR, h);
        for (int q = 0; q < me; q++)
            if (strncmp(names[q], host, PFS_HOST_MAX) == 0) {
                color = q;
                break;
            }
    }
    *nomem = bad;
    MPI_Comm_split(h, color, rank, node);
    MPI_Comm_free(&h);
    free(names);
}

int drv_node_split(MPI_Comm comm, const char *host, int by_name, struct drv_nodes *n)
{
    int flags = 0, me, rank, nomem = 0;
    MPI_Comm_rank(comm, &rank);
    if (by_name)
        split_by_name(comm, host, &n->node_comm, &nomem);
    else
        MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &n->node_comm);
    flags |= nomem ? 8 : 0;
    MPI_Comm_rank(n->node_comm, &me);
    n->lowest = me == 0;
    char lead[PFS_HOST_MAX];
    memcpy(lead, host, sizeof(lead));
    MPI_Bcast(lead, PFS_HOST_MAX, MPI_CHAR, 0, n->node_comm);
    flags |= strncmp(lead, host, PFS_HOST_MAX) != 0;
    MPI_Comm_split(comm, n->lowest ? 0 : MPI_UNDEFINED, rank, &n->leaders);
    int nn[2] = {0, 0}; /* this node's number, the node count */
    if (n->lowest) {
        MPI_Comm_rank(n->leaders, &nn[0]);
        MPI_Comm_size(n->leaders, &nn[1]);
    }
    MPI_Bcast(nn, 2, MPI_INT, 0, n->node_comm);
    n->node = nn[0];
    n->nnodes = nn[1];
    return flags;
}

int drv_node_names_clash(const struct drv_nodes *n, const char *host, MPI_Comm comm)
{
    int rank, clash = 0;
    MPI_Comm_rank(comm, &rank);
    char(*names)[PFS_HOST_MAX] = NULL;
    if (n->lowest) {
        if (rank == 0 && !(names = calloc((size_t)n->nnodes, PFS_HOST_MAX)))
            clash = 8;
        int skip = clash; /* rank 0 without memory: no leader sends, so no gather into NULL */
        MPI_Bcast(&skip, 1, MPI_INT, 0, n->leaders);
        if (skip)
            return rank == 0 ? clash : 0;
        MPI_Gather(host, PFS_HOST_MAX, MPI_CHAR, names, PFS_HOST_MAX, MPI_CHAR, 0, n->leaders);
        for (int a = 0; names && a < n->nnodes && !clash; a++)
            for (int b = 0; b < a && !clash; b++)
                clash = strncmp(names[a], names[b], PFS_HOST_MAX) == 0 ? 2 : 0;
    }
    free(names);
    return clash;
}

void drv_node_free(struct drv_nodes *n)
{
    MPI_Comm_free(&n->node_comm);
    if (n->leaders != MPI_COMM_NULL)
        MPI_Comm_free(&n->leaders);
}

/* The first allocation that failed on this rank, for drv_topo_setup's caller. */
struct topo_err {
    const char *op;
    char *detail;
    size_t len;
};

static void topo_fail(struct topo_err *e, const char *op, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void topo_fail(struct topo_err *e, const char *op, const char *fmt, ...)
{
    if (e->op)
        return; /* the first: later ones are its consequences */
    e->op = op;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->detail, e->len, fmt, ap);
    va_end(ap);
}

/* Collective. The node and leader communicators (by shared memory, or by
 * name), this rank's node and the node count; rank 0: *names, each node's
 * host name. Returns this rank's flags: 1 its name is not its leader's,
 * 2 (rank 0) two nodes have one name, 4 (rank 0) no memory. */
static int build_nodes(struct drv_topo *t, int by_name, char (**names)[PFS_HOST_MAX], struct topo_err *e)
{
    struct drv_nodes n;
    int flags = drv_node_split(t->comm, t->host, by_name, &n);
    if (flags & 8)
        topo_fail(e, "allocate the host names of a node", "on %s", t->host);
    flags &= ~8;
    t->node_comm = n.node_comm;
    t->leaders = n.leaders;
    t->lowest_on_node = n.lowest;
    t->node = n.node;
    t->nnodes = n.nnodes;
    t->comms = 1;
    *names = NULL;
    if (!t->lowest_on_node)
        return flags;
    if (t->rank == 0 && !(*names = calloc((size_t)t->nnodes, PFS_HOST_MAX)))
        flags |= 4;
    /* Each node's name once, to rank 0 alone. */
    MPI_Gather(t->host, PFS_HOST_MAX, MPI_CHAR, flags & 4 ? NULL : *names, PFS_HOST_MAX, MPI_CHAR, 0, t->leaders);
    for (int a = 0; t->rank == 0 && *names && a < t->nnodes; a++)
        for (int b = 0; b < a; b++)
            if (strncmp((*names)[a], (*names)[b], PFS_HOST_MAX) == 0)
                flags |= 2;
    return flags;
}

/* Collective. Frees what build_nodes made. */
static void free_nodes(struct drv_topo *t)
{
    if (!t->comms)
        return;
    struct drv_nodes n = {.node_comm = t->node_comm, .leaders = t->leaders};
    drv_node_free(&n);
    t->node_comm = t->leaders = MPI_COMM_NULL;
    t->comms = 0;
}

/* Collective. The nodes, by shared memory where the names agree with it,
 * else by name. Returns -1 when rank 0 lacked memory (recorded). */
static int nodes_setup(struct drv_topo *t, char (**names)[PFS_HOST_MAX], struct topo_err *e)
{
    int flags = build_nodes(t, 0, names, e), any = 0;
    MPI_Allreduce(&flags, &any, 1, MPI_INT, MPI_BOR, t->comm);
    if (any & 3) {
        free_nodes(t);
        free(*names);
        flags = build_nodes(t, 1, names, e);
        MPI_Allreduce(&flags, &any, 1, MPI_INT, MPI_BOR, t->comm);
    }
    if (any & 4) {
        if (flags & 4)
            topo_fail(e, "allocate the host names", "%d nodes", t->nnodes);
        return -1;
    }
    return 0;
}

/* ---- clocks ----
 *
 * The ranks of a node share its clock, so only the leaders are measured,
 * in a tree over the leaders' communicator: in the step of distance d,
 * each leader i < d that knows its offset to rank 0 ping-pongs leader i+d,
 * so the pairs of a step run at once and log2(nodes) steps measure all.
 * Each pair keeps its round with the smallest round trip, as before; the
 * offset to rank 0 adds the path's, and so does its uncertainty. */

/* Leaders. This node's clock correction and its uncertainty against rank 0's. */
static void measure_clocks(MPI_Comm leaders, double *corr, double *unc)
{
    const int tag = PFS_TAG_CLOCK;
    int L, me;
    MPI_Comm_size(leaders, &L);
    MPI_Comm_rank(leaders, &me);
    double path[2] = {0, 0};
    for (int d = 1; d < L; d *= 2) {
        if (me < d && me + d < L) {
            const int peer = me + d;
            double t0[CLOCK_ROUNDS], tr[CLOCK_ROUNDS], t1[CLOCK_ROUNDS], k, u;
            for (int i = 0; i < CLOCK_ROUNDS; i++) {
                t0[i] = pfs_now();
                MPI_Send(&t0[i], 1, MPI_DOUBLE, peer, tag, leaders);
                MPI_Recv(&tr[i], 1, MPI_DOUBLE, peer, tag, leaders, MPI_STATUS_IGNORE);
                t1[i] = pfs_now();
            }
            pfs_clock_estimate(t0, tr, t1, CLOCK_ROUNDS, &k, &u);
            double its[2] = {path[0] + k, path[1] + u};
            MPI_Send(its, 2, MPI_DOUBLE, peer, tag, leaders);
        } else if (me >= d && me < 2 * d) {
            for (int i = 0; i < CLOCK_ROUNDS; i++) {
                double x;
                MPI_Recv(&x, 1, MPI_DOUBLE, me - d, tag, leaders, MPI_STATUS_IGNORE);
                x = pfs_now();
                MPI_Send(&x, 1, MPI_DOUBLE, me - d, tag, leaders);
            }
            MPI_Recv(path, 2, MPI_DOUBLE, me - d, tag, leaders, MPI_STATUS_IGNORE);
        }
    }
    /* A correction smaller than its own uncertainty is noise (an
     * oversubscribed node stretches the round trips): applying it would
     * skew short phases, so it is not applied. */
    *corr = fabs(path[0]) <= path[1] ? 0 : path[0];
    *unc = path[1];
}

/* ---- the set-up ---- */

/* Local, rank 0, --reorder-seed: whose data each rank reads (its own
 * table, kept for the results file), then each rank's pair (its source,
 * its reader) for the scatter. Returns how many read their own node's
 * (pfs_reorder_random), -2 without memory. */
static int seeded_sources(struct drv_topo *t, uint64_t seed)
{
    const int n = t->nranks;
    if (!(t->reads_from = calloc((size_t)n * 3, sizeof(int))))
        return -2;
    const int same = pfs_reorder_random(t->node_of_rank, n, seed, t->reads_from);
    if (same == -2) {
        free(t->reads_from);
        t->reads_from = NULL;
        return -2;
    }
    int *pairs = t->reads_from + n;
    for (int r = 0; r < n; r++) {
        pairs[2 * r] = t->reads_from[r];
        pairs[2 * t->reads_from[r] + 1] = r;
    }
    return same;
}

/* Collective, --reorder-seed: each rank's source and reader, from rank
 * 0's permutation (no other rank holds a table of all ranks). */
static void scatter_sources(struct drv_topo *t)
{
    int mine[2];
    MPI_Scatter(t->rank == 0 ? t->reads_from + t->nranks : NULL, 2, MPI_INT, mine, 2, MPI_INT, 0, t->comm);
    t->rd_from = mine[0];
    t->rd_to = mine[1];
}

/* Collective. Rank 0's tables: each rank's node, host, clock, memory, CPU
 * affinity and NUMA nodes, in one gather; then the reorder shift (from the
 * whole map, on rank 0) and rank 0's host name to every rank. Returns 1,
 * on every rank, when rank 0 lacked memory (recorded there). */
static int rank0_tables(struct drv_topo *t, const struct pfs_config *cfg, const char (*names)[PFS_HOST_MAX],
                        int bad, struct topo_err *e)
{
    struct fact {
        double mem, corr, unc;
        int node;
        struct pfs_affinity aff;
    } mine, *facts = NULL;
    if (t->rank == 0 && !bad && !(facts = calloc((size_t)t->nranks, sizeof(*facts))))
        bad = 1;
    memset(&mine, 0, sizeof(mine));
    mine.mem = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
    mine.corr = t->clock_corr;
    mine.unc = t->clock_unc;
    mine.node = t->node;
    affinity_read(&mine.aff);
    MPI_Gather(&mine, (int)sizeof(mine), MPI_BYTE, facts, (int)sizeof(mine), MPI_BYTE, 0, t->comm);
    struct {
        int shift, bad, same;
        char root[PFS_HOST_MAX];
    } b = {0, bad, 0, ""};
    const int seeded = cfg->reorder && cfg->reorder_seed >= 0;
    if (t->rank == 0 && facts) {
        for (int r = 0; r < t->nranks; r++) {
            t->node_of_rank[r] = facts[r].node;
            memcpy(t->hosts[r], names[facts[r].node], PFS_HOST_MAX);
            t->corr[r] = facts[r].corr;
            t->unc[r] = facts[r].unc;
            t->mems[r] = facts[r].mem;
            t->affinity[r] = facts[r].aff;
        }
        b.shift = cfg->reorder && !seeded ? pfs_reorder_shift_nodes(t->node_of_rank, t->nranks, cfg->reorder_nodes)
                                          : 0;
        if (seeded && !b.bad)
            b.bad = (b.same = seeded_sources(t, (uint64_t)cfg->reorder_seed)) == -2;
    }
    memcpy(b.root, t->host, sizeof(b.root));
    MPI_Bcast(&b, (int)sizeof(b), MPI_BYTE, 0, t->comm);
    t->shift = b.shift;
    t->reorder_same = b.same;
    t->reorder_away = seeded ? b.same == 0 : b.shift != 0;
    t->rd_from = (t->rank + b.shift) % t->nranks;
    t->rd_to = (t->rank - b.shift + t->nranks) % t->nranks;
    if (seeded && !b.bad)
        scatter_sources(t);
    memcpy(t->root_host, b.root, sizeof(t->root_host));
    free(facts);
    if (b.bad && t->rank == 0)
        topo_fail(e, "allocate the placement tables", "%d ranks", t->nranks);
    return b.bad;
}

void drv_topo_init(struct drv_topo *t)
{
    memset(t, 0, sizeof(*t));
    t->comm = t->node_comm = t->leaders = MPI_COMM_NULL;
    int hlen = 0;
    char pname[MPI_MAX_PROCESSOR_NAME];
    MPI_Get_processor_name(pname, &hlen);
    snprintf(t->host, sizeof(t->host), "%.*s", PFS_HOST_MAX - 1, pname);
}

/* No rank holds a table of all ranks but rank 0. */
int drv_topo_setup(struct drv_topo *t, MPI_Comm comm, const struct pfs_config *cfg, const char **op,
                   char *detail, size_t len)
{
    struct topo_err e = {NULL, detail, len};
    char(*names)[PFS_HOST_MAX] = NULL;
    t->comm = comm;
    MPI_Comm_rank(comm, &t->rank);
    MPI_Comm_size(comm, &t->nranks);
    int bad = nodes_setup(t, &names, &e) != 0;
    if (!bad) {
        double k[2] = {0, 0};
        if (t->lowest_on_node)
            measure_clocks(t->leaders, &k[0], &k[1]);
        MPI_Bcast(k, 2, MPI_DOUBLE, 0, t->node_comm);
        t->clock_corr = k[0];
        t->clock_unc = k[1];
        if (t->rank == 0) {
            const size_t n = (size_t)t->nranks;
            t->hosts = calloc(n, PFS_HOST_MAX);
            t->node_of_rank = calloc(n, sizeof(int));
            t->corr = calloc(n, sizeof(double));
            t->unc = calloc(n, sizeof(double));
            t->mems = calloc(n, sizeof(double));
            t->affinity = calloc(n, sizeof(*t->affinity));
            bad = !t->hosts || !t->node_of_rank || !t->corr || !t->unc || !t->mems || !t->affinity;
        }
        bad = rank0_tables(t, cfg, (const char(*)[PFS_HOST_MAX])names, bad, &e);
    }
    free(names);
    *op = e.op;
    return bad ? -1 : 0;
}

void drv_topo_fini(struct drv_topo *t)
{
    free_nodes(t);
    free(t->hosts);
    free(t->node_of_rank);
    free(t->corr);
    free(t->unc);
    free(t->mems);
    free(t->affinity);
    free(t->reads_from);
    t->reads_from = NULL;
    t->hosts = NULL;
    t->node_of_rank = NULL;
    t->corr = t->unc = t->mems = NULL;
    t->affinity = NULL;
}

/* Collective. The run's placement (drv_topo_setup over the run's
 * communicator), its failure this rank's. 0, or -1. */
int drv_topology_setup(struct ctx *c)
{
    const char *op = NULL;
    char detail[96] = "";
    int rc = drv_topo_setup(&c->topo, c->comm, &c->cfg, &op, detail, sizeof(detail));
    if (op)
        drv_set_fail(c, op, "", ENOMEM, "%s", detail);
    return rc;
}
