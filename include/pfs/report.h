/* What a run measured, as rank 0 holds it, and the text report made from it.
 * Pure: the results writer and the report both read this one structure. */
#ifndef PFS_REPORT_H
#define PFS_REPORT_H

#include <stdarg.h>
#include <stdio.h>

#include "pfs/affinity.h"
#include "pfs/ceiling.h"
#include "pfs/ci.h"
#include "pfs/config.h"
#include "pfs/core.h"
#include "pfs/figures.h"
#include "pfs/fsinfo.h"
#include "pfs/latency.h"

struct pfs_run_data {
    const struct pfs_config *cfg;
    char run_id[64];
    uint64_t seed;
    char start_iso[32], end_iso[32];
    const char *status;     /* "complete", "failed", "interrupted" */
    const char *cmdline;
    const char *mpi_version;
    char clock[160];                   /* rank 0's clock in words (pfs_run_clock_describe) */
    char fstype[32];                   /* statfs's name ("fuse" for any FUSE file system) */
    struct pfs_fsinfo fs;              /* the mount's real type, source, options, layout (pfs_fs_describe);
                                        * all empty when not filled */
    int nranks, nnodes;
    const char (*hosts)[PFS_HOST_MAX]; /* nranks */
    const int *node_of_rank;           /* nranks */
    const double *clock_corr;          /* nranks: seconds added to put a rank on rank 0's clock */
    const double *clock_unc;           /* nranks */
    const struct pfs_affinity *affinity; /* nranks: CPU affinity and NUMA nodes (pfs/affinity.h); NULL: not recorded */
    int threads;                       /* per rank; 0 is read as 1 */
    int nstreams;                      /* ranks x threads; 0 is read as nranks */
    const int *node_of_stream;         /* nstreams; NULL is read as node_of_rank */
    int reorder_shift;                 /* 0: no reorder */
    const int *reads_from;             /* --reorder-seed: whose data each rank read; NULL: (r + reorder_shift) mod n */
    int round_robin_asked;             /* the launcher asked for round-robin */
    int nphases, reps;                 /* reps: the repetitions' slots, pfs_config_rep_slots (warm-up included) */
    const struct pfs_times *times;     /* [(phase * reps + rep) * nstreams + stream] */
    const int *reps_done;              /* nphases: repetitions recorded, warm-up included (reps 0 .. cfg->warmup-1) */
    /* [phase * reps + rep]: latency histograms, time series and CPU
     * (pfs/latency.h); NULL, or an entry with valid 0, when not recorded. */
    const struct pfs_phase_lat *lat;
    /* [phase * reps + rep]: the files a find phase matched over all streams
     * (IO500's criteria; its ops are the files examined); NULL: none recorded. */
    const uint64_t *find_matched;
    /* A section of a job file (-f): the file as given, its whole text and
     * the section's name; all NULL for a plain run. */
    const char *job_path, *job_text, *job_section;
    /* A section of a concurrent group: the group's tag and sections, and
     * the window in which all of them were running their phases, on the
     * job's rank 0 clock (this run's rank 0 adds conc_clock_corr to its own
     * times to get there). conc_tag NULL: ran alone. */
    const char *conc_tag, *conc_sections;
    double conc_clock_corr, conc_start, conc_overlap_s, conc_span_s;
    /* A section of a group with `interference = 1` (pfs/interfere.h):
     * ifr_mode "alone" or "together" (NULL: neither). The together run's
     * per phase ratios to the alone run (bandwidth, the rate in a metadata
     * phase; op p99), NaN where either run has no figure; Jain's index over
     * the group's sections (NaN: none had a ratio) and how many it is
     * over; the section's qos ("" none) and its verdict on the together
     * run (1 pass, 0 fail, -1 unknown: a figure missing) with why. */
    const char *ifr_mode;
    double ifr_bw_ratio[PFS_MAX_PHASES], ifr_p99_ratio[PFS_MAX_PHASES];
    double ifr_jain;
    int ifr_jain_n;
    const char *ifr_qos;
    int ifr_qos_pass;
    char ifr_qos_why[160];
    /* The run's warnings (pfs_run_warn), each line ending in a newline;
     * NULL: none. Grows as they come: no warning is dropped. */
    char *warnings;
    char error[1024];                  /* the failure, when status is not complete */
    int interrupt_signal;              /* the signal that interrupted the run, 0 when none */
    /* The data files this run kept (-k), described in DIR/pfsbench.ID.kept
     * (pfs/kept.h): kept 1 and the transfers each stream's file holds. */
    int kept;
    uint64_t kept_xfers;
    /* Every figure of the run, computed once (pfs/figures.h): as rank 0
     * records each repetition (pfs_figures_add), its statistics at the end
     * (pfs_figures_finish), or all at once (pfs_run_figures). Every output
     * reads them. */
    struct pfs_figures fig;
    /* --ceilings: each node's memory-copy and network rates, measured
     * before the phases (pfs/ceiling.h); NULL: not measured. */
    const struct pfs_ceilings *ceil;
};

/* The unit of timing is the stream (rank x thread); with one thread per
 * rank, streams are ranks. */
static inline int pfs_run_nstreams(const struct pfs_run_data *d)
{
    return d->nstreams > 0 ? d->nstreams : d->nranks;
}

static inline const int *pfs_run_stream_nodes(const struct pfs_run_data *d)
{
    return d->node_of_stream ? d->node_of_stream : d->node_of_rank;
}

static inline const struct pfs_phase_lat *pfs_run_lat(const struct pfs_run_data *d, int phase, int rep)
{
    const struct pfs_phase_lat *l = d->lat ? &d->lat[(size_t)phase * (size_t)d->reps + (size_t)rep] : NULL;
    return l && l->valid ? l : NULL;
}

static inline const struct pfs_times *pfs_run_times(const struct pfs_run_data *d, int phase, int rep)
{
    return d->times + ((size_t)phase * (size_t)d->reps + (size_t)rep) * (size_t)pfs_run_nstreams(d);
}

/* The warm-up repetitions among the recorded ones of phase p: cfg->warmup, or fewer when fewer were recorded. */
static inline int pfs_run_warmup(const struct pfs_run_data *d, int phase)
{
    int w = d->cfg->warmup, n = d->reps_done[phase];
    return w < n ? w : n;
}

/* Local. Appends a warning line to d->warnings (the caller prints it).
 * Without memory for it, it goes to stderr alone, said to be unrecorded. */
void pfs_run_warn(struct pfs_run_data *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* pfs_run_warn with its arguments in a va_list. */
void pfs_run_vwarn(struct pfs_run_data *d, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));

/* Local. Frees what the run data owns (its warnings and figures); what its
 * pointers lend (times, hosts, ...) stays the caller's. */
void pfs_run_release(struct pfs_run_data *d);

/* Local (report_lat.c). A repetition too short to measure (pfs_phase_skew):
 * 1 with the warning's text in buf ("stat rep 0: too short to measure:
 * ..."), 0 when it is not. The text report prints it under the row. */
int pfs_report_short_phase(const struct pfs_run_data *d, int phase, int rep, char *buf, size_t len);
/* Local (report_lat.c). One warning per phase with such repetitions (the
 * first of them, and how many there were) into the run's warnings; each
 * also on msg when msg is not NULL. */
void pfs_run_short_warnings(struct pfs_run_data *d, FILE *msg);

/* Local. The text report, in parts so rank 0 can print rows as they come:
 * the header (with -v the timed region), the placement (-v), the
 * columns, a row per repetition (MiB/s and IOPS, or files/s; with -v its
 * page cache), the summary over repetitions (a row per phase; the
 * interval in words with -v, a warm-up or --reps auto). */
void pfs_report_header(FILE *out, const struct pfs_run_data *d);
void pfs_report_columns(FILE *out, const struct pfs_run_data *d);
void pfs_report_placement(FILE *out, const struct pfs_run_data *d);
void pfs_report_row(FILE *out, const struct pfs_run_data *d, int phase, int rep);
void pfs_report_summary(FILE *out, const struct pfs_run_data *d);
/* Local (report_lat.c). The latency table, before the summary: a row per
 * phase of its operation over its measured repetitions merged (nearest-
 * rank percentiles within 1/128, each row in the unit of its median); with
 * -v also open, fsync and close, and a table per repetition (each kind,
 * %CPU, the slowest node by p99, CPU seconds). Nothing when no phase
 * recorded latencies. At most 100 columns. */
void pfs_report_latency(FILE *out, const struct pfs_run_data *d);
/* Local. The end of the text report: the latency table (not with -q), then
 * the summary, last. */
void pfs_report_end(FILE *out, const struct pfs_run_data *d);

/* Local. The whole run as one JSON document or as CSV rows (one per phase
 * and repetition), for --format; nothing else goes to that stream. */
void pfs_report_json(FILE *out, const struct pfs_run_data *d);
void pfs_report_csv(FILE *out, const struct pfs_run_data *d);

/* Local (report_ior.c). The run in IOR's and mdtest's shapes (--format
 * ior, --format mdtest): their results tables and summaries, from the
 * figures, printed once at the end of the run. */
void pfs_report_ior(FILE *out, const struct pfs_run_data *d);
void pfs_report_mdtest(FILE *out, const struct pfs_run_data *d);
/* Local and pure. The phases of c that its --format ior or mdtest has no
 * row for (IOR's: all but write, read, rewrite and reread; mdtest's: the
 * data phases, find, stat-dirs beside file phases, and a phase's second
 * listing, "create (listed again)": its rows are the first's), ", "-joined
 * into buf, each once; like snprintf (0: none, or another format). */
size_t pfs_report_unshown(const struct pfs_config *c, char *buf, size_t len);

/* How a string from outside (a path, a label, a host name, a message, the
 * command line) is written into each output. Whatever its bytes, the output
 * stays well-formed UTF-8 and parses:
 * - JSON: a whole string literal, quotes included; " and \ escaped, the C0
 *   and C1 controls, DEL, U+2028/2029 and the bidirectional controls as
 *   \uXXXX (\n, \r, \t short); each byte that is not part of well-formed
 *   UTF-8 becomes U+FFFD.
 * - CSV: one field (RFC 4180), quoted when it holds , " CR LF or a leading
 *   or trailing space, " doubled; bytes that are not UTF-8 become U+FFFD.
 * - TEXT: for a terminal: what a terminal would act on (controls, ESC
 *   sequences, bidirectional overrides) shown visibly as \xNN (below 0x80),
 *   \uXXXX, \n, \t, \r; a byte that is not UTF-8 as \xNN (0x80..0xFF,
 *   so never confused with a control); a backslash as \\. */
enum pfs_esc { PFS_ESC_JSON, PFS_ESC_CSV, PFS_ESC_TEXT };

/* Local. Escapes at most n bytes of s (fewer when a NUL comes first; SIZE_MAX
 * for the whole string; s NULL is read as ""). pfs_escape writes into out
 * like snprintf: returns the length the whole needs, writes at most len
 * bytes with the NUL, and cuts only between whole characters or escapes. */
size_t pfs_escape(enum pfs_esc how, const char *s, size_t n, char *out, size_t len);
void pfs_escape_write(FILE *out, enum pfs_esc how, const char *s, size_t n);

#define PFS_MIB (1024.0 * 1024.0)

#endif
