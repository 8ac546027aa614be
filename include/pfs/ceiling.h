/* Ceilings: how fast a client could move data at all, so that a phase's
 * bandwidth can be read as a share of it. Measured before the phases,
 * untimed: a node's memory-copy rate on one core and on all of them (here,
 * MPI-free), and the network rate between nodes (src/mpi/ceiling.c, which
 * fills struct pfs_net_ceiling). MiB/s are 2^20 bytes per second. */
#ifndef PFS_CEILING_H
#define PFS_CEILING_H

#include <stddef.h>
#include <stdint.h>

/* ---- memory ---- */

/* Local. One thread's memcpy rate for transfer-sized copies over a
 * pre-faulted region walked sequentially (bench/bench_memcpy.c's shape):
 * into = memcpy(region + off, buf, t), the write direction (a page-cache
 * write); from = memcpy(buf, region + off, t), the read direction. The
 * medians over reps passes, MiB/s. Returns 0, or -1 (no memory; errno). */
int pfs_memcpy_rate(size_t region, size_t transfer, int reps, double *into, double *from);

struct pfs_mem_ceiling {
    double one_into, one_from; /* one core, MiB/s */
    double all_into, all_from; /* all cores at once: their bytes over the span from the first start to the
                                * last end of each pass, MiB/s */
    int threads;               /* the copies at once (the node's online CPUs unless asked) */
    int pinned;                /* threads each bound to a CPU of their own */
    size_t region, transfer;   /* each thread's region, and the copy size */
};

/* Local. The node's memory ceiling: one core (the calling thread), then
 * threads copies at once (0: one per online CPU), each thread pinned to
 * its own CPU where the system allows it (a rank bound to one core would
 * otherwise stack them). Each thread's region is 32 MiB, less when that
 * would take over an eighth of the machine's memory. Takes about a
 * second on a loaded 2-core machine. Returns 0, or -1 with err set. */
int pfs_ceiling_memory(int threads, struct pfs_mem_ceiling *out, char *err, size_t errlen);

/* Local, pure. The CPUs of a list like /sys/devices/system/cpu/online's
 * ("0-3,8,10-11"), into cpus (room for max). Returns how many, or -1 when
 * the text is not such a list. */
int pfs_cpu_list_parse(const char *text, int *cpus, int max);

/* ---- network (measured by src/mpi/ceiling.c) ---- */

struct pfs_net_node {
    char host[64]; /* the node's name (its lowest rank's) */
    double secs;   /* its exchange: from the common start to its last send and receive done */
    double mibs;   /* its bytes sent (as many were received) / secs */
};

struct pfs_net_ceiling {
    int nnodes;              /* nodes that took part: 1 gives no figure */
    uint64_t bytes_per_node; /* each node's bytes sent, and received */
    size_t message;          /* bytes per message */
    double job_mibs;         /* all nodes' bytes sent / the longest node's time */
    double min_mibs, median_mibs, max_mibs;
    int slowest;             /* the node of min_mibs */
    struct pfs_net_node *node; /* nnodes of them, by lowest rank; rank 0 only (NULL elsewhere) */
};

/* Local, pure. Node `node` of nnodes sends to `to` and receives from `from`
 * at once: the next node and the previous one, round the ring (two nodes
 * exchange with each other; one node with itself). */
void pfs_ceiling_ring(int node, int nnodes, int *to, int *from);

/* Local, pure. c's figures from its nodes' seconds (c->node[i].secs, and
 * c->bytes_per_node): each node's rate, the job's, min, median, max and
 * the slowest node. */
void pfs_ceiling_net_figures(struct pfs_net_ceiling *c);

/* Local. Frees c->node. */
void pfs_net_ceiling_free(struct pfs_net_ceiling *c);

/* ---- the run's ceilings (--ceilings), as rank 0 records them ---- */

#define PFS_CEIL_HOST 64

/* One node's ceilings, bytes/s. A copy rate is the two directions
 * together: twice the bytes over the time of one pass each way
 * (pfs_ceiling_copy_rate), so that a write (into memory) and a read (out
 * of it) are read against the same figure. */
struct pfs_ceiling_node {
    char host[PFS_CEIL_HOST];
    double memcpy_one;  /* one core */
    double memcpy_all;  /* every core of the node at once */
    double network;     /* bytes it sent to the next node (and as many received from the previous) / its seconds;
                         * NaN with one node */
};

/* The clients' ceilings: each the sum over the nodes of each node's rate
 * (nodes work side by side), bytes/s. */
struct pfs_ceilings {
    int nnodes;
    struct pfs_ceiling_node *node; /* [nnodes], by node number */
    double memory;                 /* sum of memcpy_all */
    double network;                /* sum of network; NaN with one node (no network between clients) */
};

/* Which ceiling binds a phase (the lower one; memory when equal). */
enum pfs_ceiling_kind { PFS_CEIL_NONE = 0, PFS_CEIL_MEMORY = 1, PFS_CEIL_NETWORK = 2 };

/* Local, pure. Twice the bytes over the time of a pass each way, from the
 * two rates: 2 / (1 / into + 1 / from); 0 when either is not positive. */
double pfs_ceiling_copy_rate(double into, double from);

/* Local, pure. c's sums from its nodes' rates (in node order). */
void pfs_ceilings_sum(struct pfs_ceilings *c);

/* Local, pure. A bandwidth (bytes/s) as percentages of c's ceilings
 * (100 * bw / ceiling; NaN where the ceiling is not there or not
 * positive), and the binding one: the lower ceiling. */
int pfs_ceilings_share(const struct pfs_ceilings *c, double bw, double *mem_pct, double *net_pct);

#endif
