/* Latency and time, as rank 0 holds them after a phase: the histograms of
 * every operation, merged over streams and per node, the time series per
 * interval, and the CPU the streams used. Filled by the MPI layer
 * (src/mpi/latency.c: per node first, then rank 0), summarized by the
 * run's figures (pfs/figures.h: the slowest node by p99 there), which the
 * reports and the results writer format. Pure: no MPI, no HDF5.
 *
 * Every data transfer (or metadata file operation) of a stream is timed
 * from its submission to its completion (a closed loop reads one clock per
 * transfer: the end of one is the start of the next) and counted into the
 * stream's histograms (pfs/hist.h); open, fsync and close of a data file
 * are operations of their own. */
#ifndef PFS_LATENCY_H
#define PFS_LATENCY_H

#include <stdint.h>

#include "pfs/exemplar.h"
#include "pfs/hist.h"

struct pfs_tg_stat; /* pfs/tgstats.h */

/* The operations a phase times. A data phase: each transfer (OP), each
 * file's open, fsync and close; FSYNC holds every fsync of a write phase,
 * those after every N transfers (--fsync-every N) and -e's at close (a
 * stream of n transfers: n / N of the first, 1 of the second). A metadata
 * phase: each file's operation (OP: create, stat, open+read+close, unlink);
 * the others stay empty. RESP, with --rate (pfs/sched.h): each transfer's
 * response time, from its intended start to its completion (OP is then
 * its service time, from its actual submission); empty without --rate.
 * READ and WRITE, in a phase that draws reads and writes (rwmix): each
 * direction's transfers alone (OP holds both); empty in any other phase.
 * Results files of versions before RESP have the first four kinds, before
 * READ and WRITE the first five (the phase group's latency_kinds says). */
enum { PFS_LAT_OP, PFS_LAT_OPEN, PFS_LAT_FSYNC, PFS_LAT_CLOSE, PFS_LAT_RESP, PFS_LAT_READ, PFS_LAT_WRITE, PFS_LAT_KINDS };

/* The names the report and the results file give them ("op" is the
 * phase's own: "write", "read", "create" ... in the report). */
static inline const char *pfs_lat_kind_name(int k)
{
    static const char *const n[PFS_LAT_KINDS] = {"op", "open", "fsync", "close", "response", "read", "write"};
    return k >= 0 && k < PFS_LAT_KINDS ? n[k] : "?";
}

/* One node's figures in one interval: what the node's streams completed
 * then, and the interval's latency summary (from the coarse histogram of
 * pfs/hist.h: within 12.5%; max exact). */
struct pfs_node_tslot {
    uint64_t bytes, ops;
    double p50_ns, p99_ns, max_ns; /* 0 when the node completed nothing in the interval */
};

/* One phase and repetition. */
struct pfs_phase_lat {
    int valid;                              /* 0: not recorded (a failed phase) */
    struct pfs_hist *run;                   /* [PFS_LAT_KINDS]: merged over every stream (allocated:
                                             * a run of a million repetitions keeps this struct small) */
    int nnodes;
    struct pfs_hist *node_op;               /* [nnodes]: the OP histogram of each node's streams */
    /* Time series, fitted to the phase (pfs_ts_clip): interval i runs
     * from pfs_lat_edge(l, i) to pfs_lat_edge(l, i + 1) on rank 0's clock:
     * the first from the phase's start (the first open of any stream),
     * the last to its end (the last close), the others on the grid t0 +
     * (first + i) dt (t0: where the last rank arrived at the phase's start
     * agreement, on rank 0's clock, which every rank learns from it; each
     * rank places its completions from its own exit plus how long after t0
     * that was). dt is --interval, or a power-of-two multiple of it when
     * the phase outlasted the cap. */
    double t0, dt, base_dt;
    double start, end;                      /* the phase's span, as pfs_phase_reduce takes it */
    uint32_t first;                         /* the grid index of interval 0 */
    uint32_t nint;
    struct pfs_tslot *run_ts;               /* [nint]: every stream, with the coarse histogram */
    struct pfs_node_tslot *node_ts;         /* [nint * nnodes]: [interval][node] */
    /* The job's slowest operations (--exemplars), slowest first: op is the
     * PFS_LAT_* kind, start_ns ns since the epoch on rank 0's clock (its
     * rank's realtime plus its clock correction, as the times'), host the
     * node. */
    struct pfs_exemplar *ex;                /* [nex] */
    unsigned nex;
    /* A data phase's storage targets (pfs/tgstats.h), merged by name over
     * every stream; an exemplar's target is the row here. NULL: none kept.
     * tg_dropped: targets left out past PFS_TG_MAX. */
    struct pfs_tg_stat *tg;                 /* [ntg] */
    unsigned ntg;
    uint64_t tg_dropped;
};

static inline const struct pfs_node_tslot *pfs_lat_node_ts(const struct pfs_phase_lat *l, uint32_t i, int node)
{
    return &l->node_ts[(uint64_t)i * (uint64_t)l->nnodes + (uint64_t)node];
}

/* Edge i (0 .. nint) of the time series: interval i is [edge i, edge i+1). */
static inline double pfs_lat_edge(const struct pfs_phase_lat *l, uint32_t i)
{
    return pfs_ts_edge(l->t0, l->dt, l->first, l->nint, l->start, l->end, i);
}

/* CPU seconds (user, system) of each node's streams, from each stream's
 * pfs_times (getrusage per thread over its phase): arrays of nnodes. */
struct pfs_times;
void pfs_node_cpu(const struct pfs_times *t, const int *node_of_stream, int nstreams, int nnodes, double *user,
                  double *sys);

/* Frees what the arrays hold (the struct itself is the caller's). */
void pfs_lat_free(struct pfs_phase_lat *l);

#endif
