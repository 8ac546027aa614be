/* The MPI-free core: offsets, placement, timing reductions, statistics,
 * clock offsets, data patterns. Every function here is local and pure
 * (no I/O, no MPI), so cmocka tests it in a plain process. */
#ifndef PFS_CORE_H
#define PFS_CORE_H

#include <stddef.h>
#include <stdint.h>

#define PFS_HOST_MAX 64

/* ---- offsets ---- */

/* Byte offset of transfer j (0-based) of a rank in the file it accesses.
 * File per process: j*t. Shared segmented: rank*b + j*t. Shared strided:
 * (j*nranks + rank)*t. Shared segmented in S > 1 segments (IOR's -s, the
 * rank's block cut in S pieces of s = b/S, each m = s/t transfers):
 * ((j/m)*nranks + rank)*s + (j%m)*t. segments 0 or 1: one segment. */
uint64_t pfs_offset(int shared, int layout, uint64_t segments, int rank, int nranks, uint64_t block,
                    uint64_t transfer, uint64_t j);

/* A bijection of [0, n) keyed by seed: the order --random visits transfers.
 * Needs no memory, so it scales to any transfer count. */
uint64_t pfs_permute(uint64_t i, uint64_t n, uint64_t seed);

/* 64-bit mixer (splitmix64 finaliser). */
uint64_t pfs_mix64(uint64_t x);

/* ---- verification pattern ---- */

/* The 8-byte word stored at file offset off (a multiple of 8) by writer. */
static inline uint64_t pfs_pattern_word(uint64_t seed, int writer, uint64_t off)
{
    return pfs_mix64(seed ^ ((uint64_t)(unsigned)writer << 40) ^ (off * 0x9E3779B97F4A7C15ULL));
}
/* Fills buf with the pattern bytes for [off, off+len): any length, any offset. */
void pfs_pattern_fill(void *buf, size_t len, uint64_t seed, int writer, uint64_t off);
/* Checks every byte of buf against the pattern; returns the number of
 * mismatching words (8-byte units of the file, partial at the ends of buf)
 * and the first differing byte's offset within buf, with the expected and
 * found word (found: the expected word with buf's bytes laid over it). */
uint64_t pfs_pattern_check(const void *buf, size_t len, uint64_t seed, int writer, uint64_t off,
                           size_t *first_at, uint64_t *expected, uint64_t *found);
/* Fills buf with incompressible pseudo-random bytes. */
void pfs_random_fill(void *buf, size_t len, uint64_t seed);

/* ---- placement ---- */

/* Numbers nodes in rank order of first appearance of their host name.
 * hosts: nranks strings of PFS_HOST_MAX bytes (compared as strncmp does, up
 * to the first NUL or PFS_HOST_MAX bytes). Writes node_of_rank[nranks];
 * returns the node count, or -1 when the hash table of the names (O(nranks))
 * cannot be allocated. */
int pfs_placement_nodes(const char (*hosts)[PFS_HOST_MAX], int nranks, int *node_of_rank);

/* 1 when rank r sits on node r mod nnodes (round-robin, as --map-by node). */
int pfs_placement_is_round_robin(const int *node_of_rank, int nranks, int nnodes);
/* 1 when every node holds the same number of ranks, 0 when not, -1 when
 * the table of counts (nnodes) cannot be allocated. */
int pfs_placement_is_even(const int *node_of_rank, int nranks, int nnodes);

/* The page-cache rule (data under twice a node's memory may be read back
 * from its page cache): the first node n, in node order, whose data, per_rank
 * added once for each of its ranks, is below twice its memory, mems[] of its
 * highest rank (0 for a node without ranks). Returns n and sets *data and
 * *mem, -1 when no node is, or -2 when its two tables of nnodes cannot be
 * allocated. One pass: O(nranks + nnodes). */
int pfs_placement_cache_node(const int *node_of_rank, int nranks, int nnodes, double per_rank,
                             const double *mems, double *data, double *mem);

/* The shift s used by --reorder: rank r reads what rank (r+s) mod n wrote.
 * The smallest s >= 1 that puts every reader on another node than its
 * writer (1 for round-robin, ranks-per-node for block placement); 0 when
 * none exists (one node), and then reads may come from cache. */
int pfs_reorder_shift(const int *node_of_rank, int nranks);

/* The shift for --reorder-nodes N (IOR's -Q N): the smallest s >= 1 with
 * which every rank r reads from node (node(r) + N) mod nodes, nodes
 * numbered by first appearance in rank order (N x ranks per node for block
 * placement, N for round-robin); 0 when none exists (uneven placement, or
 * N a multiple of the node count: every rank would read its own node).
 * N <= 1 is pfs_reorder_shift. Local. */
int pfs_reorder_shift_nodes(const int *node_of_rank, int nranks, int nodes_away);

/* --reorder-seed S (IOR's -Z -X S): rank r reads what rank from[r] wrote,
 * from[] a permutation of the ranks keyed by seed and the placement, the
 * same wherever it is computed. A derangement (no rank reads its own data)
 * for two ranks or more; when no node holds more than half the ranks,
 * every rank reads a rank's of another node; else as many as can (every
 * rank of the smaller nodes and as many of the largest); on one node
 * another rank's of the same node. Returns how many ranks read their own
 * node's data (0: every reader on another node; -1 for a single rank,
 * which reads its own; -2 without memory). from[nranks]. Local. */
int pfs_reorder_random(const int *node_of_rank, int nranks, uint64_t seed, int *from);

/* ---- timing ---- */

/* What one rank records for one phase and repetition, on rank 0's clock. */
struct pfs_times {
    double open_start, open_end, xfer_end, close_end;
    double sw_end;          /* when the rank stopped issuing at the stonewall (0: no stonewall hit) */
    double verify_s;        /* seconds spent filling/checking the pattern, already taken out of the ends */
    uint64_t bytes, xfers;
    uint64_t sw_bytes;      /* bytes done when the rank stopped at the stonewall */
    uint64_t sw_xfers;      /* transfers (files in a metadata phase) done then */
    uint64_t errors;        /* verification mismatches (words) */
    uint64_t rd_bytes, rd_xfers; /* a phase that draws reads and writes (rwmix): its reads' (the writes are
                                  * the rest of bytes and xfers); 0 in any other */
    double cpu_user, cpu_sys; /* CPU seconds of the stream's thread over the phase (getrusage RUSAGE_THREAD) */
    /* The page cache (pfs/pagecache.h), probed outside the timed region:
     * cache_bytes of the file the stream reads or wrote; before a phase that
     * reads, cache_resident of them were in its node's page cache; after a
     * phase that writes (without -e), cache_dirty were dirty or under
     * write-back. The methods say how (PFS_PC_*; 0: not probed). */
    uint64_t cache_bytes, cache_resident, cache_dirty;
    int32_t cache_method, dirty_method;
    /* --rate: how late transfers were submitted after their intended
     * start (ns; the sum and the largest, over xfers transfers), and the
     * intended starts of the first transfer issued in the measured span
     * (after --ramp) and of the last, ns after the phase's start (the
     * schedule's, the same on every run of the same seed); 0 without. */
    uint64_t lag_sum_ns, lag_max_ns, due_first_ns, due_last_ns;
    /* A phase that emulates accelerators (train, PFS_PHF_ACCEL; 0 in any
     * other): seconds its accelerators computed and stalled waiting for
     * data, summed over them; the lowest accelerator's AU, percent;
     * samples and batches handed to them; the batches by their stall:
     * under 1 ms, 1-10 ms, 10-100 ms, 100 ms or more; the longest stall. */
    double train_compute_s, train_stall_s, train_au_min;
    uint64_t train_samples, train_batches;
    uint64_t train_stall_1ms, train_stall_10ms, train_stall_100ms, train_stall_more;
    double train_stall_max_s;
    uint64_t train_accelerators; /* the rank's accelerators in the run recorded (after a search: the count found) */
    uint64_t train_trials;       /* --find-max-accelerators: the trials before it; 0 without */
};

struct pfs_phase_stat {
    double seconds;         /* max(close_end) - min(open_start) */
    double bandwidth;       /* bytes / seconds, bytes/s */
    double rate;            /* operations (transfers, or files in a metadata phase) / seconds */
    uint64_t ops;
    double utilization;     /* sum of busy / (ranks x seconds) */
    double sw_bandwidth;    /* stonewall bandwidth, 0 when no stonewall */
    double sw_rate;         /* operations done by then / that time (files/s in create), 0 when no stonewall */
    uint64_t sw_ops;        /* operations done when the last rank stopped at the stonewall */
    double sw_seconds;      /* from the first open to that stop (sw_ops / sw_rate), 0 when no stonewall */
    uint64_t sw_bytes;      /* bytes done then (sw_bandwidth x sw_seconds), 0 when no stonewall */
    uint64_t bytes;
};

/* Aggregate over ranks. */
void pfs_phase_reduce(const struct pfs_times *t, int nranks, struct pfs_phase_stat *out);

/* One node's streams: min(open_start), max(close_end), bytes, operations
 * and stream count; start = end = 0 for a node without streams. */
struct pfs_node_span {
    double start, end;
    uint64_t bytes, ops;
    int streams;
};
/* All nodes' spans in one pass over the streams (O(nranks + nnodes));
 * streams whose node is outside [0, nnodes) count nowhere. out[nnodes]. */
void pfs_node_spans(const struct pfs_times *t, const int *node_of_rank, int nranks, int nnodes,
                    struct pfs_node_span *out);

/* Per node: bytes of the node's ranks / their own span. Arrays of nnodes.
 * pfs_node_reduce and pfs_node_rates make one pass each into a table of
 * nnodes spans (pfs_node_spans): 0, or -1 when the table cannot be
 * allocated (the arrays are then left as they were). */
int pfs_node_reduce(const struct pfs_times *t, const int *node_of_rank, int nranks, int nnodes,
                    uint64_t *bytes, double *seconds, double *bandwidth);

/* Per node: operations of the node's ranks / their own span (files/s in a
 * metadata phase). Array of nnodes. 0, or -1 without memory (as above). */
int pfs_node_rates(const struct pfs_times *t, const int *node_of_rank, int nranks, int nnodes, double *rate);

/* A phase too short to measure: one whose time is within PFS_SKEW_FACTOR
 * times the spread of its streams' starts (the opening agreement's exit
 * skew, and the threads' start), or whose aggregate rate is below
 * PFS_SKEW_NODE_FRAC of its slowest node's own (its bytes or operations over
 * its own span): the nodes ran one after another more than together, and
 * the aggregate measures the skew. */
#define PFS_SKEW_FACTOR 10.0
#define PFS_SKEW_NODE_FRAC 0.5
struct pfs_phase_skew {
    double seconds;             /* the phase's time (pfs_phase_reduce) */
    double start_skew;          /* max - min of the streams' open_start */
    double end_skew;            /* max - min of their close_end (the work's imbalance too: reported, not judged) */
    double aggregate;           /* bytes/s, or operations/s (meta) */
    double node_min, node_max;  /* the nodes' own rates, among those that did any work */
    int slowest;                /* the node of node_min; -1 when no node did any */
    int near_skew;              /* seconds < PFS_SKEW_FACTOR x start_skew */
    int below_nodes;            /* aggregate < PFS_SKEW_NODE_FRAC x node_min */
};
/* Fills out for one phase's streams (t[nstreams], node_of_stream[nstreams];
 * meta: rates are operations, else bytes); returns near_skew || below_nodes,
 * or -1 when its nnodes spans cannot be allocated. */
int pfs_phase_skew(const struct pfs_times *t, const int *node_of_stream, int nstreams, int nnodes, int meta,
                   struct pfs_phase_skew *out);
/* The same from the phase's reduction s (pfs_phase_reduce) and its nodes'
 * spans sp[nnodes] (pfs_node_spans; NULL: only near_skew is judged), for a
 * caller that has them already. */
int pfs_phase_skew_of(const struct pfs_times *t, int nstreams, const struct pfs_phase_stat *s,
                      const struct pfs_node_span *sp, int nnodes, int meta, struct pfs_phase_skew *out);

/* Marks nodes whose bandwidth is below frac x median. Returns the count. */
int pfs_stragglers(const double *bw, int nnodes, double frac, int *flag);

struct pfs_stats {
    double min, max, mean, median, stddev; /* stddev: sample (n-1); 0 for n=1 */
    int n;
};
void pfs_stats_compute(const double *v, int n, struct pfs_stats *out);

/* Local. The mean of v[0..n) and, in *m2, the sum of squared deviations
 * from it (Welford's one pass: stable for long runs of similar values). */
double pfs_mean_m2(const double *v, int n, double *m2);

/* ---- clocks ---- */

/* Offset of a remote clock to the local one from ping-pong rounds: local
 * send time t0[i], remote time tr[i], local receive time t1[i]. Keeps the
 * round with the smallest round trip: offset = tr - (t0+t1)/2, uncertainty =
 * (t1-t0)/2. remote + offset_to_local = local: returns -offset so that adding
 * it to a remote timestamp puts it on the local clock. Returns the index
 * used, or -1 when n < 1. */
int pfs_clock_estimate(const double *t0, const double *tr, const double *t1, int n,
                       double *correction, double *uncertainty);

/* Lines of text told at once, one a line (a job file's or an IOR script's
 * every mistake): count counts every line added; with once, a line already
 * there is not written again. buf NULL (or len 0): only counted. */
struct pfs_lines {
    char *buf;
    size_t len, used;
    int count, once;
};

/* Local. s without its leading white space, its trailing cut off in place. */
char *pfs_trim(char *s);

/* Local. A copy of s in memory of pfsbench's own malloc (NULL when out of
 * memory). pfsbench calls neither strdup nor vasprintf: the sanitizer runs
 * suppress leaks allocated inside those (Open MPI's), tests/sanitizers/lsan.supp. */
char *pfs_strdup(const char *s);

/* Local. Adds one line (fmt, without its newline), as far as it fits. */
void pfs_lines_add(struct pfs_lines *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
