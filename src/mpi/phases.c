/* The phase loop: for each repetition and phase, prepare (untimed),
 * agree (the opening barrier), run the streams, agree (the closing
 * barrier), gather the times onto rank 0's clock. */
#define _GNU_SOURCE
#include "driver.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "pfs/pagecache.h"
#include "pfs/ratesweep.h"

/* How a stream's page cache is probed in a phase of this kind (reads:
 * before it; writes: after it), or why it is not: --direct bypasses the
 * cache, a backend without files has none, -e leaves nothing dirty to see. */
static int probe_kind(const struct ctx *c, int kind, int dirty)
{
    if (c->be->caps & PFS_CAP_NOFILES)
        return PFS_PC_NONE;
    if (dirty ? !pfs_phase_is_write(kind) || c->cfg.fsync : !pfs_phase_is_read(kind))
        return PFS_PC_NONE;
    return c->cfg.direct ? PFS_PC_BYPASSED : PFS_PC_CACHESTAT;
}

/* Local, untimed: stream s's file in this phase (the one it reads, or with
 * a phase that writes, its own: seeks read their own), probed. Returns the
 * method (PFS_PC_*). */
static int probe_stream(const struct ctx *c, const struct pfs_stream *s, int kind, int dirty, struct pfs_pc_count *n)
{
    const int wr = pfs_phase_is_write(kind);
    const struct pfs_pc_target t = {
        .path = wr ? s->path : s->rd_path,
        .expect = wr ? &s->fid : &s->rd_fid,
        .shared = c->cfg.shared,
        .layout = c->cfg.layout,
        .segments = (uint64_t)c->cfg.segments,
        .writer = wr ? s->id : s->rd_writer,
        .nstreams = c->nstreams,
        .block = c->cfg.block,
        .transfer = c->cfg.transfer,
        .xfers = c->data_xfers,
    };
    return pfs_pc_probe(&t, PFS_PC_USE_ALL, dirty, n);
}

/* Local, untimed, after the caches were dropped (--drop-caches): how much
 * of what each stream of this rank is about to read is in this node's page
 * cache. The probe opens the file as the phase will: on FUSE an open
 * without keep-cache empties the file's cache, and the figure then says
 * what the phase's own open will leave. */
static void probe_before(const struct ctx *c, int kind, struct pfs_times *pc)
{
    const int how = probe_kind(c, kind, 0);
    for (int i = 0; i < c->threads; i++) {
        struct pfs_pc_count n = {0, 0, 0};
        pc[i].cache_method = how == PFS_PC_CACHESTAT ? probe_stream(c, &c->streams[i], kind, 0, &n) : how;
        pc[i].cache_bytes = n.bytes;
        pc[i].cache_resident = n.resident;
    }
}

/* Local, untimed, once this rank's streams have closed their files: how
 * much of what each wrote is still dirty or under write-back (nothing is
 * with -e, which is not probed). Into the streams' times, gathered next. */
static void probe_after(struct ctx *c, int kind)
{
    const int how = probe_kind(c, kind, 1);
    for (int i = 0; i < c->threads; i++) {
        struct pfs_stream *s = &c->streams[i];
        struct pfs_pc_count n = {0, 0, 0};
        const int failed = s->fail.failed || (!c->cfg.shared && !s->created);
        s->t.dirty_method = how == PFS_PC_CACHESTAT ? (failed ? PFS_PC_UNKNOWN : probe_stream(c, s, kind, 1, &n)) : how;
        if (s->t.dirty_method == PFS_PC_CACHESTAT) {
            s->t.cache_bytes = n.bytes;
            s->t.cache_dirty = n.dirty;
        }
    }
}

/* A phase's hook failed: the rank's failure, named as its own. */
static void hook_fail(void *arg, const char *op, const char *path, int err, const char *detail)
{
    if (detail)
        drv_set_fail(arg, op, path, err, "%s", detail);
    else
        drv_set_fail(arg, op, path, err, NULL);
}

/* Local, under the watchdog: the untimed work before a phase. Returns 1
 * when this rank wrote drop_caches. Failures go to set_fail. */
static int prepare_phase(struct ctx *c, int kind, int rep, struct pfs_times *pc)
{
    char step[96];
    snprintf(step, sizeof(step), "the preparation of %s (repetition %d)", pfs_phase_name(kind), rep);
    pfs_watch_step(c->watch, step);
    if (*c->interrupted)
        drv_set_fail(c, "interrupted", "", 0, "signal %d (%s) between phases", (int)*c->interrupted, strsignal(*c->interrupted));
    /* The directories the run works in are still where it made them (a
     * change ends the run: mdfiles.c). */
    (void)drv_check_pins(c);
    /* The phase's own (its ops' before hook): a write empties the shared
     * file, a read drops the caches (--drop-caches), a create that repeats
     * without a delete clears the files of the last. */
    struct pfs_phase_env e = {
        .cfg = &c->cfg, .be = c->be, .bectx = c->bectx, .streams = c->streams, .nthreads = c->threads,
        .rank = c->rank, .lowest_on_node = c->topo.lowest_on_node, .dir_fd = c->files.dir.fd, .rep = rep,
        .fail = hook_fail, .arg = c,
    };
    pfs_phase_before(kind, &e);
    probe_before(c, kind, pc);
    pfs_watch_step(c->watch, NULL);
    return e.dropped;
}

/* The phase that makes the data files: their identities are new after it. */
static int makes_data_files(int kind)
{
    return !pfs_phase_is_meta(kind) && pfs_phase_has(kind, PFS_PHF_CREATES);
}

/* Collective, --rate-sweep's percentages or --latency-target, after each
 * repetition of a phase: the base of the next one's rate (rank 0's
 * figures, pfs_figs_rate_base, which the figures take again, so offered
 * rates are exact) to every rank. A percentage sweep whose first
 * repetition has no figure (too short to measure, its ramp outlasted)
 * has nothing to take them of: the run fails, named. The search answers
 * 0 when it is done: the run stops after this repetition (c->searched). */
static void rate_next(struct ctx *c, int p, int rep, double start, const char *where)
{
    const struct pfs_run_data *d = c->rec.d;
    double mine = c->rank == 0 && d ? pfs_figs_rate_base(&d->fig, &c->cfg, p, rep + 1) : 0, all = 0;
    drv_allreduce_watched(c, &mine, &all, 1, MPI_DOUBLE, MPI_MAX, start, where);
    c->rate_base[p] = all;
    if (c->cfg.lat_target[0])
        c->searched = !(all > 0);
    else if (!(all > 0) && c->rank == 0)
        drv_set_fail(c, "--rate-sweep", "", 0, "the first, closed-loop repetition of %s measured no rate to take the "
                     "percentages of (too short? give a larger -b or --runtime)", pfs_phase_name(c->cfg.phases[p]));
}

/* The opening agreement's figures: failed ranks and nodes whose caches
 * were dropped, summed; the last arrival (s since the epoch on rank 0's
 * clock), the latest. Doubles all: counts up to 2^53 stay exact. */
struct opening {
    double failed, drops, arrived;
};

static void opening_merge(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    const struct opening *a = in;
    struct opening *b = inout;
    for (int i = 0; i < *len; i++) {
        b[i].failed += a[i].failed;
        b[i].drops += a[i].drops;
        b[i].arrived = a[i].arrived > b[i].arrived ? a[i].arrived : b[i].arrived;
    }
}

/* Collective: the agreement that opens a phase. No rank leaves an
 * allreduce before every rank has entered it, so it is also the barrier
 * before the phase, and the last rank's arrival, which every rank learns
 * from it, precedes every rank's exit: the time series' grid starts there
 * on every rank (c->lat.grid), which each rank's own exit does not (their
 * skew was a node's whole shift against rank 0's grid). Returns 1 when a
 * rank failed before the phase. */
static int open_phase(struct ctx *c, int drops, struct opening *sum, const char *where)
{
    const struct opening mine = {c->fail.failed, drops, pfs_now() + c->topo.clock_corr};
    MPI_Datatype t;
    MPI_Op op;
    MPI_Type_contiguous(3, MPI_DOUBLE, &t);
    MPI_Type_commit(&t);
    MPI_Op_create(opening_merge, 1, &op);
    drv_allreduce_watched(c, &mine, sum, 1, t, op, pfs_now(), where);
    MPI_Op_free(&op);
    MPI_Type_free(&t);
    c->lat.grid = sum->arrived;
    return sum->failed != 0; /* NaN (an abandoned agreement's) too */
}

/* Collective. One phase of one repetition: untimed preparation, the
 * agreement that is also the opening barrier, the timed streams, the
 * agreement that closes it, the gather of times. Returns 1 when any rank
 * failed (named). */
static int run_phase(struct ctx *c, int p, int rep, int *dropped_notice)
{
    const struct pfs_config *cfg = &c->cfg;
    const int kind = cfg->phases[p];
    struct pfs_times pc[c->threads]; /* the page cache before the phase, per stream */
    int drops = prepare_phase(c, kind, rep, pc);
    char where[64];
    snprintf(where, sizeof(where), "the start of %s (repetition %d)", pfs_phase_name(kind), rep);
    struct opening sum;
    if (open_phase(c, drops, &sum, where)) {
        drv_report_failures(c);
        return 1;
    }
    if (c->rank == 0 && cfg->drop_caches && pfs_phase_is_read(kind) && !*dropped_notice && !cfg->quiet) {
        fprintf(cfg->format == PFS_FORMAT_TEXT ? drv_record_out(c) : stderr, "cache        before each read phase: fdatasync + "
                "posix_fadvise(DONTNEED) on every file; /proc/sys/vm/drop_caches written on %d of %d nodes\n",
                (int)sum.drops, c->topo.nnodes);
        *dropped_notice = 1;
    }
    double phase_start = pfs_now();
    snprintf(where, sizeof(where), "%s (repetition %d)", pfs_phase_name(kind), rep);
    c->cur_kind = kind;
    pfs_watch_step(c->watch, where);
    drv_run_streams(c, kind, rep, c->rate_base[p]);
    probe_after(c, kind);
    pfs_watch_step(c->watch, NULL);
    int failed = drv_agree_watched(c, phase_start, where);
    struct pfs_times mine[c->threads];
    for (int i = 0; i < c->threads; i++) {
        mine[i] = c->streams[i].t;
        mine[i].cache_method = pc[i].cache_method;
        mine[i].cache_resident = pc[i].cache_resident;
        if (pc[i].cache_method == PFS_PC_CACHESTAT || pc[i].cache_method == PFS_PC_MINCORE)
            mine[i].cache_bytes = pc[i].cache_bytes; /* the same file as after (seeks): one range */
    }
    drv_gather_watched(c, mine, (int)sizeof(struct pfs_times) * c->threads, c->rec.gathered, phase_start, where);
    const size_t slot = (size_t)p * (size_t)pfs_config_rep_slots(cfg) + (size_t)rep;
    struct pfs_phase_lat *lat = c->rank == 0 && c->rec.lat ? &c->rec.lat[slot] : NULL;
    drv_lat_collect(c, lat, failed, phase_start, where);
    drv_targets_collect(c, lat, kind, failed, phase_start, where);
    if (pfs_phase_has(kind, PFS_PHF_MATCHES)) {
        uint64_t mine_m = 0, all_m = 0;
        for (int i = 0; i < c->threads; i++)
            mine_m += c->streams[i].md_matched;
        drv_allreduce_watched(c, &mine_m, &all_m, 1, MPI_UINT64_T, MPI_SUM, phase_start, where);
        if (c->rank == 0)
            drv_record_find(&c->rec, slot, all_m);
    }
    drv_record_phase(c, p, rep, failed);
    if (!failed && pfs_rate_needs_base(cfg) && (rep == 0 || cfg->lat_target[0]))
        rate_next(c, p, rep, phase_start, where);
    if (!failed && makes_data_files(kind) && !cfg->shared)
        drv_exchange_fids(c, phase_start);
    if (!failed && makes_data_files(kind) && cfg->timeout > 0)
        drv_gather_known(c, phase_start);
    if (failed)
        drv_report_failures(c);
    return failed;
}

/* Collective, --reps auto: rank 0 judges the reduced figures (record.c)
 * and every rank follows its word, so all stop after the same repetition. */
static int stable_now(struct ctx *c, int rep)
{
    int mine = drv_record_stable(c, rep), all = 0;
    drv_allreduce_watched(c, &mine, &all, 1, MPI_INT, MPI_MAX, pfs_now(), "the decision to repeat the phases");
    return all;
}

/* Local: --rep-delay's sleep before a repetition, on every rank alike, left
 * out of every timed phase (each phase starts at its own barrier after it);
 * a signal cuts it short, as it cuts the run short. */
static void rep_delay(const struct ctx *c)
{
    const double s = c->cfg.rep_delay;
    struct timespec ts = {.tv_sec = (time_t)s, .tv_nsec = (long)((s - (double)(time_t)s) * 1e9)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR && !*c->interrupted)
        ;
}

/* Collective. Every repetition of the phase list (the warm-up ones first;
 * under --reps auto until every phase is stable or the cap; under
 * --latency-target until the search is done), until one fails;
 * --rep-delay's sleep between two. */
int drv_phases_run(struct ctx *c, int failed)
{
    int dropped_notice = 0;
    const int slots = pfs_config_rep_slots(&c->cfg);
    for (int rep = 0, stable = 0; rep < slots && !failed && !stable && !c->searched; rep++) {
        if (rep > 0 && c->cfg.rep_delay > 0)
            rep_delay(c);
        if (rep > 0 && c->cfg.file_per_rep) /* IOR's -m: this repetition's files */
            failed = drv_rep_files(c, rep);
        for (int p = 0; p < c->cfg.nphases && !failed; p++)
            failed = run_phase(c, p, rep, &dropped_notice);
        if (!failed && c->cfg.reps == 0 && rep >= c->cfg.warmup)
            stable = stable_now(c, rep);
    }
    /* What the kept files hold, beside them, once nothing writes them any more. */
    return failed ? failed : drv_keep_status(c);
}
