/* The figures of a run, computed once on rank 0 from what it recorded
 * (struct pfs_run_data): per phase and repetition the aggregate, each
 * node's and each stream's bandwidth and rates, the stragglers, the CPU,
 * the latency summaries and the time series' intervals, the page cache and
 * the verdict on a repetition too short to measure; per phase the
 * statistics over the measured repetitions and their 95% interval. The
 * text, JSON, CSV, IOR- and mdtest-shaped reports and the results file
 * format these and compute nothing (fio's stat.c computes, its show_*
 * print). Pure and local: no MPI, no HDF5, no output. */
#ifndef PFS_FIGURES_H
#define PFS_FIGURES_H

#include <stddef.h>
#include <stdint.h>

#include "pfs/ci.h"
#include "pfs/core.h"
#include "pfs/knee.h"
#include "pfs/latency.h"
#include "pfs/pagecache.h"
#include "pfs/tgstats.h"

struct pfs_run_data;

/* --rate: an achieved rate more than this fraction below the offered is
 * warned of. */
#define PFS_RATE_SHORT 0.02

/* A phase's measured repetitions (warm-up left out) and the 95% confidence
 * interval of the mean of its figure: bandwidth in bytes/s for a data phase,
 * files/s for a metadata phase. target: 1 the interval is within --ci (at
 * least PFS_CI_MIN_REPS measured), 0 not, -1 no target (a fixed --reps). */
struct pfs_phase_ci {
    int measured, warmup, target;
    struct pfs_ci ci;
};

/* A latency histogram's summary (pfs_hist_summary): nearest-rank
 * percentiles within 1/128, min and max exact. A row of the results file's
 * latency_summary and node_latency_summary (pfs/schema.h). */
struct pfs_lat_sum {
    uint64_t count, sum_ns;
    double min_ns, p50_ns, p90_ns, p99_ns, p999_ns, max_ns, mean_ns;
};

/* CPU of one phase and repetition, from every stream's pfs_times: seconds
 * of user and system time summed over the streams, and bonnie++'s %CP:
 * (user + sys) / (phase seconds x streams) x 100, the average stream's
 * share of one CPU (0 when the phase took no time). */
struct pfs_cpu_fig {
    double user_s, sys_s, percent;
};

/* A warning is given, and a text line shown, from this fraction of a
 * node's bytes (resident before a read, dirty at the close of a write). */
#define PFS_PC_WARN_FRACTION 0.10
#define PFS_PC_SHOW_FRACTION 0.01

/* One side of the page cache (resident before a read, or dirty at the
 * close of a write) over the nodes that measured it. */
struct pfs_cache_side {
    int top, low;               /* the node with the highest and the lowest share (the first of
                                 * equals); -1 when no node measured any */
    double top_share, low_share; /* NaN with -1 */
    int above_warn;             /* nodes at PFS_PC_WARN_FRACTION or more */
};

/* What the page cache of a repetition calls for (pfs_report_cache_warning
 * words it): nothing; a file system in memory that was read; the node
 * whose bytes were most resident before a read, or most dirty at the
 * close, at PFS_PC_WARN_FRACTION or more. */
enum pfs_cache_call { PFS_CACHE_QUIET, PFS_CACHE_MEMFS, PFS_CACHE_RESIDENT, PFS_CACHE_DIRTY };

/* One of the job's slowest operations of a repetition (--exemplars), as
 * every output gives it: the schema's "exemplar" table. host and op point
 * into the run's data and static names. */
struct pfs_exemplar_row {
    int32_t rep, rank;
    const char *host;
    int32_t thread;
    const char *op;               /* the phase's name for its own operations, else open, fsync, close */
    int32_t file;                 /* the stream whose data file (-1: the shared one); metadata: whose files */
    uint64_t offset, length;      /* metadata: the file's number and its bytes */
    int32_t target;               /* the storage target: its row in the phase's target table; -1: none */
    const char *target_name;      /* its name ("" with -1) */
    double start;                 /* s since the epoch on rank 0's clock (as times' open_start) */
    uint64_t duration_ns;
};

/* One phase, one repetition. Arrays of nnodes ([K]) and nstreams ([N])
 * live in one block (mem). */
struct pfs_rep_figs {
    int valid;                    /* 0: not computed (no memory): the outputs leave it out */
    int warmup;                   /* 1: a warm-up repetition (the first --warmup), left out of the statistics */
    struct pfs_phase_stat s;      /* the aggregate (pfs_phase_reduce) */
    int stonewall;                /* the stonewall figures apply: -D, in a phase it stops, reached */
    /* With stonewall set: the transfers (files, in create) each stream
     * had done when it stopped (or ended, before the stonewall): fewest,
     * most (what the wear-out takes every stream to) and mean, mdtest's
     * "Continue stonewall hit min: max: avg:". 0 without. */
    uint64_t sw_stream_min, sw_stream_max;
    double sw_stream_mean;
    double value;                 /* the phase's figure: bandwidth (bytes/s), or rate in a metadata phase */
    long long find_matched;       /* a find's matches over all streams; -1: not a find, or not recorded */
    /* Per node [K]: its streams' bytes and operations over their own span. */
    uint64_t *node_bytes, *node_ops;
    double *node_seconds, *node_bw, *node_rate;
    const double *node_value;     /* node_rate in a metadata phase, else node_bw: what stragglers are judged by */
    int *node_straggler;          /* 1: below --straggler x the median node's node_value */
    int slow, fast, nstrag;       /* the first lowest and first highest node_value; how many stragglers */
    double *node_cpu_user, *node_cpu_sys; /* CPU seconds of the node's streams */
    double *stream_bw;            /* [N]: each stream's bytes / its own close_end - open_start */
    /* Over the streams (IOzone's per-process figures): stream_bw's sum
     * ("children see"), least, most and mean, and the fewest bytes a
     * stream moved ("min xfer"); 0 without streams. */
    double stream_bw_sum, stream_bw_min, stream_bw_max, stream_bw_mean;
    uint64_t stream_bytes_min;
    /* The stream with the longest span (close_end - open_start; the first
     * of them), and that span: a checkpoint's slowest rank. */
    int slow_stream;
    double slow_stream_s;
    /* A phase that feeds emulated accelerators (PFS_PHF_ACCEL; 0 in any
     * other, node_train_au too): from the streams' train_* figures, the
     * job's AU, percent (compute / (compute + stall) over every
     * accelerator), the lowest accelerator's, each node's [K]; compute and
     * stall seconds summed over the accelerators; samples handed over and
     * their rate over the phase's seconds; the batches by stall (under
     * 1 ms, 1-10 ms, 10-100 ms, 100 ms or more) and the longest stall;
     * train_pass 1 when train_au reaches the gate (--au-gate). */
    double train_au, train_au_min, train_compute_s, train_stall_s, train_samples_s, train_stall_max_s;
    uint64_t train_samples, train_stall_1ms, train_stall_10ms, train_stall_100ms, train_stall_more;
    int train_pass;
    int train_fed;                /* 1: the phase feeds emulated accelerators (the train_* figures apply) */
    /* The accelerators a rank ran (the most of any rank), the most on one
     * node (its ranks' summed) and, after --find-max-accelerators, the
     * trials of the search (0 without). */
    uint64_t train_accelerators, train_acc_node, train_trials;
    double *node_train_au;
    /* Client CPU seconds (every stream's user + system) per GiB moved;
     * 0 when no bytes moved. */
    double cpu_per_gib;
    struct pfs_cpu_fig cpu;
    /* The span's parts as IOR's "Results:" splits it (its reduction: the
     * latest end minus the earliest start over the streams, so they may
     * overlap and need not add up to s.seconds): open, open_start ..
     * open_end; the transfers, open_end .. xfer_end; fsync (-e) and close,
     * xfer_end .. close_end. Seconds. */
    double open_s, xfer_s, close_s;
    /* IOR's IOPS: s.ops / xfer_s, the transfers over the wr/rd part, not
     * over the whole span (ReduceIterResults' accessTime); 0 when xfer_s
     * is not positive. */
    double xfer_rate;
    /* Latency: lat NULL when not recorded (then the rest is 0). */
    const struct pfs_phase_lat *lat;
    struct pfs_lat_sum lat_sum[PFS_LAT_KINDS]; /* every stream, per kind */
    struct pfs_lat_sum *node_lat; /* [K]: the op kind per node (0 rows where not recorded) */
    int lat_slowest;              /* the node whose op p99 is largest (the first of equals); -1: none */
    double lat_slowest_p99;       /* its p99, ns (0 with -1) */
    double *ts_edge;              /* [lat->nint + 1]: interval i is [ts_edge[i], ts_edge[i + 1]) */
    struct pfs_exemplar_row *ex;  /* [nex]: the job's slowest operations, slowest first */
    unsigned nex;
    /* A data phase's storage targets (pfs/tgstats.h), as the phase's
     * target table holds them, with their slow flags (the stragglers'
     * rule: bandwidth over busy time below --straggler x the median
     * target's); ntg_known: rows not "unknown"; tg_dropped: targets left
     * out past PFS_TG_MAX. */
    struct pfs_tg_row *tg;        /* [ntg] */
    unsigned ntg, ntg_known;
    int tg_slow;
    uint64_t tg_dropped;
    /* The page cache: the run's figure and each node's [K]. */
    struct pfs_pc_fig cache, *node_cache;
    struct pfs_cache_side resident, dirty;
    int cache_call;               /* enum pfs_cache_call */
    int cache_unknown;            /* a read was probed and no stream's figure could be measured */
    /* --ceilings, a data phase: s.bandwidth as a percentage of the
     * clients' memory and network ceilings (NaN where there is none: a
     * metadata phase, no --ceilings, one node's network), and the binding
     * one (enum pfs_ceiling_kind; 0: none). */
    double ceil_mem_pct, ceil_net_pct;
    int ceil_binding;
    /* --rate (0 without): the job's offered rate, every stream's share
     * together, in operations/s and bytes/s (the achieved are s.rate and
     * s.bandwidth, over the phase's time); what the schedule offered for
     * the transfers made: s.ops over the streams' longest schedule (from
     * the first intended start in the measured span to the last, plus one
     * mean gap),
     * which for poisson arrivals carries their own spread (1 / sqrt(n) of
     * n arrivals) and for fixed ones is offered_ops; rate_short 1 when
     * s.rate fell below (1 - PFS_RATE_SHORT) x sched_ops; how late
     * transfers were submitted after their intended start, ns: the mean
     * over every transfer and the largest. */
    double offered_ops, offered_bytes, sched_ops;
    int rate_short;
    double lag_mean_ns, lag_max_ns;
    /* --rate-sweep: this repetition as a point of the latency-load curve
     * (offered: offered_ops, 0 for a closed-loop one; achieved: s.rate):
     * the response times' p50, p99 and p99.9 (ns), the op kind's where
     * nothing was paced (there the two are one). 0 without latencies. */
    double load_p50_ns, load_p99_ns, load_p999_ns;
    /* A phase that draws reads and writes (rwmix; 0 in others): each
     * direction's transfers and bytes, and their rates over the phase's
     * seconds (s.seconds: the same span as s.rate's, so the two rates add
     * up to s.rate). */
    int mixed;                    /* 1: the phase draws reads and writes (the mix_* figures apply) */
    uint64_t mix_read_ops, mix_write_ops, mix_read_bytes, mix_write_bytes;
    double mix_read_rate, mix_write_rate, mix_read_bw, mix_write_bw;
    /* Too short to measure (pfs_phase_skew). */
    struct pfs_phase_skew skew;
    int too_short;
    void *mem;
};

/* One phase: its repetitions' figures, and over the measured ones (the
 * warm-up left out) the statistics and the 95% interval. */
struct pfs_phase_figs {
    int meta;                     /* judged by rate (files/s), not bandwidth */
    int reps;                     /* repetitions with figures, the warm-up included */
    struct pfs_rep_figs *rep;     /* [the run's repetition slots] */
    struct pfs_phase_ci ci;       /* of the mean of value; kept up to date by pfs_figures_add */
    /* Set by pfs_figures_finish, over ci.measured values of rows ci.warmup .. reps-1: */
    struct pfs_stats bw, rate;    /* bandwidth (bytes/s) and rate (ops/s) */
    struct pfs_stats shown;       /* value in the report's unit: bandwidth / the unit's bytes/s, or rate */
    struct pfs_stats seconds;
    /* Over the measured repetitions with stonewall set (sw_reps of them):
     * their s.sw_ops, s.sw_bytes and s.sw_seconds summed, and sw_ops /
     * sw_seconds (mdtest's "File create (stonewall)" rows); IOR's summary
     * columns: Stonewall(s), the mean seconds to the stonewall
     * (sw_seconds / sw_reps), and Stonewall(MiB), which IOR fills with the
     * mean stream's bytes by the stonewall over those seconds, summed over
     * the repetitions (sw_bytes / nstreams / sw_seconds, bytes/s). 0 when
     * sw_reps is. */
    int sw_reps;
    uint64_t sw_ops, sw_bytes;
    double sw_seconds, sw_rate;
    double sw_mean_seconds, sw_stream_bw;
    uint64_t amount;              /* the last measured repetition's bytes, or operations (metadata) */
    unsigned cache_methods, dirty_methods; /* every repetition's, together */
    int any_lat;                  /* some repetition recorded latencies */
    int any_tg;                   /* some repetition kept per-target figures */
    /* Set by pfs_figures_finish: each kind's histograms merged over the
     * measured repetitions that recorded them (lat_reps of them), summed
     * exactly and summarized once (the text report's latency table). */
    struct pfs_lat_sum lat_all[PFS_LAT_KINDS];
    int lat_reps;
    /* Set by pfs_figures_finish, --ceilings, a data phase: bw.mean as a
     * percentage of the clients' memory and network ceilings (NaN where
     * there is none) and the binding one (enum pfs_ceiling_kind). */
    double ceil_mem_pct, ceil_net_pct;
    int ceil_binding;
    /* --rate-sweep (sweep 1): the knee of the curve of the repetitions'
     * load_p99_ns against their achieved rates (pfs/knee.h, where p99
     * leaves PFS_KNEE_FACTOR x its value at the lowest load for good). */
    int sweep;
    struct pfs_knee knee;
    /* --latency-target (target 1): the largest offered rate of the paced
     * repetitions that met it (0: none did) and its repetition (-1), and
     * how many rates the search tried. */
    int target;
    double target_rate;
    int target_rep, target_tried;
    int short_first, short_count; /* the first repetition too short to measure (-1: none), how many */
    int cache_first;              /* the first repetition whose page cache calls for a warning or could
                                   * not be measured (-1: none) */
};

struct pfs_figures {
    int nphases, slots, nnodes, nstreams;
    struct pfs_phase_figs *phase; /* [nphases]; NULL: not set up */
    int *node_rank;               /* [K]: the lowest rank of each node (it names the node); -1: none */
    uint64_t lat_top_ns;          /* the longest operation of any recorded phase (the text table's unit) */
};

/* Local. Sets f up for d's phases and repetition slots, nothing computed:
 * 0, or -1 without memory. */
int pfs_figures_init(struct pfs_figures *f, const struct pfs_run_data *d);

/* Local. The figures of repetition rep of phase p, recorded in d (its
 * times, latency, page cache), and the phase's interval over repetitions
 * 0 .. rep, which it then has figures for. 0, or -1 without memory (the
 * repetition is left invalid). */
int pfs_figures_add(struct pfs_figures *f, const struct pfs_run_data *d, int p, int rep);

/* Local. The statistics over each phase's measured repetitions (sorting:
 * once, at the end). */
void pfs_figures_finish(struct pfs_figures *f, const struct pfs_run_data *d);

/* Local. Frees what f holds and zeroes it. */
void pfs_figures_free(struct pfs_figures *f);

/* Local. Every figure of d, into d->fig (what was there freed first):
 * init, each recorded repetition (d->reps_done), finish. 0 or -1. */
int pfs_run_figures(struct pfs_run_data *d);

/* The figures of phase p, repetition rep (NULL when it has none or they
 * could not be computed). */
static inline const struct pfs_rep_figs *pfs_figs_rep(const struct pfs_figures *f, int p, int rep)
{
    if (!f->phase || p < 0 || p >= f->nphases || rep < 0 || rep >= f->phase[p].reps)
        return NULL;
    const struct pfs_rep_figs *r = &f->phase[p].rep[rep];
    return r->valid ? r : NULL;
}

/* The factor over the lowest load's p99 that marks the knee. */
#define PFS_KNEE_FACTOR 2.0

/* Local. Phase p's repetition rep as a point of the latency-load curve
 * (0), or -1 where it has no figures. */
int pfs_figs_load_point(const struct pfs_figures *f, int p, int rep, struct pfs_load_point *pt);

/* Local. The base of pfs_rate_at for phase p's repetition rep, from the
 * figures of the repetitions before it: --rate-sweep's, the first one's
 * ops/s; --latency-target's, the rate its search chose after them (0: the
 * search is done, or rep has no earlier figures). */
struct pfs_config;
double pfs_figs_rate_base(const struct pfs_figures *f, const struct pfs_config *cfg, int p, int rep);

/* --rate-sweep's percentages: the job's operations/s in phase p's first
 * (closed-loop) repetition, the base of the others' rates; 0 when it has
 * no figures. */
static inline double pfs_figs_sweep_base(const struct pfs_figures *f, int p)
{
    const struct pfs_rep_figs *r = pfs_figs_rep(f, p, 0);
    return r ? r->s.rate : 0;
}

/* The first of phase p's repetitions so far that was too short to measure; -1: none. */
static inline int pfs_figs_short_first(const struct pfs_figures *f, int p)
{
    return f->phase && p >= 0 && p < f->nphases ? f->phase[p].short_first : -1;
}

/* The repetitions phase p has figures for (0 when none). */
static inline int pfs_figs_reps(const struct pfs_figures *f, int p)
{
    return f->phase && p >= 0 && p < f->nphases ? f->phase[p].reps : 0;
}

#endif
