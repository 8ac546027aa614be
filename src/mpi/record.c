/* Rank 0's record of the run: the run's warnings, the report, the results
 * file (through the results writer, results_module.c). */
#define _GNU_SOURCE
#include "driver.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pfs/clock.h"
#include "pfs/cmdline.h"
#include "pfs/fsinfo.h"
#include "pfs/report_ceil.h"
#include "pfs/report_iozone.h"
#include "pfs/results.h"

void drv_iso_time(char *buf, size_t len)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* Local, rank 0, the watchdog fired: record the run as failed with msg as
 * its cause, unless this rank had failed first (a create refused with
 * EEXIST, say): then that failure is the cause and msg what followed. */
void drv_record_watchdog(struct ctx *c, const char *msg)
{
    struct record *r = &c->rec;
    if (!r->d || r->in_results)
        return; /* the append itself stalled: a second writer would not help */
    /* The main thread's watchdog and this rank's stall thread may both fire: one record. */
    if (__atomic_exchange_n(&r->recorded, 1, __ATOMIC_ACQ_REL))
        return;
    drv_collect_failure(c);
    r->d->status = "failed";
    if (c->fail.failed) {
        char first[800];
        drv_format_failure(&c->fail, first, sizeof(first));
        snprintf(r->d->error, sizeof(r->d->error), "%s; then the watchdog: %s", first, msg);
    } else {
        snprintf(r->d->error, sizeof(r->d->error), "%s", msg);
    }
    drv_iso_time(r->d->end_iso, sizeof(r->d->end_iso));
    pfs_figures_finish(&r->d->fig, r->d);
    char name[64], err[PFS_ERRLEN];
    if (!c->cfg.no_results && drv_results_append(c, r->d, name, sizeof(name), err, sizeof(err)) == 0)
        fprintf(stderr, "pfsbench: the run is recorded in %s %s (failed)\n", c->cfg.results, name);
    else if (!c->cfg.no_results)
        fprintf(stderr, "pfsbench: error: results file %s: %s\n", c->cfg.results, err);
}

/* Collective. The longest call any rank was blocked in (past --stall-warn
 * seconds, with or without --timeout) becomes a warning of the run: rank,
 * host, call, seconds, and how many ranks had one. */
void drv_note_stalls(struct ctx *c)
{
    struct pfs_run_data *d = c->rec.d;
    char desc[512] = "";
    struct {
        double s;
        int rank;
    } mine = {pfs_watch_longest(c->watch, desc, sizeof(desc)), c->rank}, top;
    int had = mine.s > 0, nhad = 0;
    MPI_Allreduce(&mine, &top, 1, MPI_DOUBLE_INT, MPI_MAXLOC, c->comm);
    MPI_Reduce(&had, &nhad, 1, MPI_INT, MPI_SUM, 0, c->comm);
    if (top.s <= 0)
        return;
    if (top.rank != 0 && c->rank == top.rank)
        MPI_Send(desc, (int)sizeof(desc), MPI_CHAR, 0, PFS_TAG_STALL, c->comm);
    else if (top.rank != 0 && c->rank == 0)
        MPI_Recv(desc, (int)sizeof(desc), MPI_CHAR, top.rank, PFS_TAG_STALL, c->comm, MPI_STATUS_IGNORE);
    if (c->rank != 0)
        return;
    desc[sizeof(desc) - 1] = '\0';
    char w[900], more[96] = "";
    if (nhad > 1)
        snprintf(more, sizeof(more), " (%d ranks had calls blocked over %g s)", nhad, c->cfg.stall_warn);
    snprintf(w, sizeof(w), "long-blocked call: rank %d on %s was blocked %.1f s in %s%s", top.rank,
             c->topo.hosts[top.rank], top.s, desc, more);
    pfs_run_warn(d, "%s", w);
    if (!c->cfg.quiet)
        fprintf(c->cfg.format == PFS_FORMAT_TEXT ? drv_record_out(c) : stderr, "warning      %s\n", w);
}

/* Local, rank 0: the warnings that placement and sizes call for. */
/* --reorder-seed: what the permutation could do with this placement. */
static void seeded_warning(const struct drv_topo *t, int seed, struct pfs_run_data *d)
{
    if (t->reorder_same < 0)
        pfs_run_warn(d, "--reorder-seed with one rank: it reads its own data, which may come from cache");
    else if (t->reorder_same == 0)
        pfs_run_warn(d, "reorder: rank r reads the data of a rank on another node, a permutation of seed %d "
                     "(reads_from_rank in the results file)", seed);
    else if (t->nnodes == 1)
        pfs_run_warn(d, "--reorder-seed %d on one node: each rank reads another rank's data, of its own node, which "
                     "may come from cache", seed);
    else
        pfs_run_warn(d, "--reorder-seed %d: %d of %d ranks read data of their own node (a node holds more than half "
                     "the ranks), which may come from cache", seed, t->reorder_same, t->nranks);
}

static void placement_warnings(const struct drv_topo *t, const struct pfs_config *cfg, struct pfs_run_data *d)
{
    for (int i = 0; i < cfg->nhints; i++)
        if (pfs_hint_known(cfg->hints[i]) == 0)
            pfs_run_warn(d, "hint '%s' is not one pfsbench knows; passed to MPI-IO unchecked", cfg->hints[i]);
    const int even = pfs_placement_is_even(t->node_of_rank, t->nranks, t->nnodes);
    if (even < 0)
        pfs_run_warn(d, "no memory to count the ranks of each node: an uneven placement, if any, is not reported");
    else if (!even)
        pfs_run_warn(d, "uneven placement: nodes hold different rank counts; per-node bandwidths are not comparable");
    if (d->round_robin_asked && !pfs_placement_is_round_robin(t->node_of_rank, t->nranks, t->nnodes))
        pfs_run_warn(d, "round-robin placement was asked for, but rank r is not on node r mod %d", t->nnodes);
    if (cfg->reorder && cfg->reorder_seed >= 0)
        seeded_warning(t, cfg->reorder_seed, d);
    else if (cfg->reorder && t->shift == 0 && t->nnodes > 1 && cfg->reorder_nodes > 1)
        pfs_run_warn(d, "--reorder-nodes %d: no shift puts every rank's read %d nodes on (uneven placement over %d "
                     "nodes, or %d a multiple of them): every rank reads its own node's data, which may come from "
                     "cache", cfg->reorder_nodes, cfg->reorder_nodes, t->nnodes, cfg->reorder_nodes);
    else if (cfg->reorder && t->shift == 0)
        pfs_run_warn(d, "--reorder on one node: every rank reads its own node's data, which may come from cache");
    else if (cfg->reorder && cfg->reorder_nodes > 1)
        pfs_run_warn(d, "reorder: rank r reads the data of rank (r+%d) mod %d, %d nodes on", t->shift, t->nranks,
                     cfg->reorder_nodes);
    else if (cfg->reorder)
        pfs_run_warn(d, "reorder: rank r reads the data of rank (r+%d) mod %d, on another node", t->shift, t->nranks);
}

FILE *drv_record_out(struct ctx *c)
{
    return c->rec.out ? c->rec.out : stdout;
}

/* Rank 0, a section of a concurrent group: its whole text report at once,
 * headed by the section's name, the group and the label, in one write. */
static void record_out_flush(struct record *r)
{
    if (!r->out || r->out == stdout)
        return;
    fclose(r->out);
    r->out = NULL;
    char sec[4 * 128 + 8], tag[4 * 128 + 8], label[4 * 128 + 8];
    pfs_escape(PFS_ESC_TEXT, r->section, SIZE_MAX, sec, sizeof(sec));
    pfs_escape(PFS_ESC_TEXT, r->tag, SIZE_MAX, tag, sizeof(tag));
    pfs_escape(PFS_ESC_TEXT, r->label, SIZE_MAX, label, sizeof(label));
    char *all = NULL;
    size_t n = 0;
    FILE *m = open_memstream(&all, &n);
    if (m) {
        fprintf(m, "\n== section %s (concurrent = %s%s%s)%s%s ==\n", sec, tag, r->round ? ", " : "",
                r->round ? r->round : "", label[0] ? ", label " : "", label);
        fwrite(r->outbuf, 1, r->outlen, m);
        fclose(m);
    }
    if (all) {
        fwrite(all, 1, n, stdout);
    } else { /* no memory for one piece: the heading, then the report */
        fprintf(stdout, "\n== section %s (concurrent = %s) ==\n", sec, tag);
        fwrite(r->outbuf, 1, r->outlen, stdout);
    }
    fflush(stdout);
    free(all);
    free(r->outbuf);
    r->outbuf = NULL;
    r->outlen = 0;
}

/* Local, rank 0 (nothing elsewhere): the record of the run, its warnings,
 * and the report's header. Failures (memory) are recorded. */
void drv_record_begin(struct ctx *c, int argc, char **argv)
{
    struct record *r = &c->rec;
    const struct pfs_config *cfg = &c->cfg;
    if (c->rank != 0 || !c->topo.hosts || !c->topo.node_of_rank || !c->topo.mems)
        return; /* the topology could not be set up: no record (the failure is named) */
    int ml = 0;
    MPI_Get_library_version(r->mpiver, &ml);
    for (char *p = r->mpiver; *p; p++)
        if (*p == '\n')
            *p = ' ';
    pfs_cmdline_join(argc, argv, r->cmdline, sizeof(r->cmdline));
    const size_t slots = (size_t)pfs_config_rep_slots(cfg);
    r->nphases = cfg->nphases;
    r->slots = (int)slots;
    r->times = calloc((size_t)cfg->nphases * slots * (size_t)c->nstreams, sizeof(*r->times));
    r->gathered = calloc((size_t)c->nstreams, sizeof(*r->gathered));
    r->reps_done = calloc((size_t)cfg->nphases, sizeof(int));
    r->lat = calloc((size_t)cfg->nphases * slots, sizeof(*r->lat));
    r->find_matched = calloc((size_t)cfg->nphases * slots, sizeof(*r->find_matched));
    if (!r->times || !r->gathered || !r->reps_done || !r->lat || !r->find_matched) {
        drv_set_fail(c, "allocate the run's records", "", ENOMEM, NULL);
        return;
    }
    struct pfs_run_data *d = r->d = &r->data;
    r->out = stdout;
    if (c->job && c->job->concurrent && cfg->format == PFS_FORMAT_TEXT) {
        FILE *m = open_memstream(&r->outbuf, &r->outlen);
        r->out = m ? m : stdout; /* no memory for it: straight out, interleaved */
        r->section = c->job->section;
        r->tag = c->job->concurrent->tag;
        r->label = cfg->label;
        r->round = c->job->concurrent->interference == 1 ? "alone"
                 : c->job->concurrent->interference == 2 ? "together" : NULL;
    }
    d->cfg = cfg;
    snprintf(d->run_id, sizeof(d->run_id), "%s", c->files.run_id);
    d->seed = c->seed;
    snprintf(d->start_iso, sizeof(d->start_iso), "%s", r->start_iso);
    d->status = "complete";
    d->cmdline = r->cmdline;
    d->mpi_version = r->mpiver;
    pfs_run_clock_describe(d->clock, sizeof(d->clock));
    pfs_fs_type(cfg->dir, d->fstype, sizeof(d->fstype));
    pfs_fs_describe(cfg->dir, &d->fs);
    d->nranks = c->nranks;
    d->nnodes = c->topo.nnodes;
    d->hosts = (const char(*)[PFS_HOST_MAX])c->topo.hosts;
    d->node_of_rank = c->topo.node_of_rank;
    d->threads = c->threads;
    d->nstreams = c->nstreams;
    d->node_of_stream = c->node_of_stream;
    d->clock_corr = c->topo.corr;
    d->clock_unc = c->topo.unc;
    d->affinity = c->topo.affinity;
    d->reorder_shift = c->topo.shift;
    d->reads_from = c->topo.reads_from;
    d->nphases = cfg->nphases;
    d->reps = (int)slots;
    d->times = r->times;
    d->reps_done = r->reps_done;
    if (c->job) {
        d->job_path = c->job->path;
        d->job_text = c->job->text;
        d->job_section = c->job->section;
    }
    d->lat = r->lat;
    d->find_matched = r->find_matched;
    if (pfs_figures_init(&d->fig, d) != 0) {
        drv_set_fail(c, "allocate the run's figures", "", ENOMEM, NULL);
        return;
    }
    const char *rr = getenv("PFSBENCH_PLACEMENT");
    d->round_robin_asked = rr && strcmp(rr, "round-robin") == 0;
    for (const char *w = cfg->warnings; *w; w += strcspn(w, "\n") + 1) /* the parser's, printed on stderr */
        pfs_run_warn(d, "%.*s", (int)strcspn(w, "\n"), w);
    placement_warnings(&c->topo, cfg, d);
    char mdw[512];
    if (pfs_meta_cache_warning(cfg->phases, cfg->nphases, c->topo.reorder_away, d->fs.mount_type,
                               c->be ? c->be->client : NULL, mdw, sizeof(mdw)))
        pfs_run_warn(d, "%s", mdw);
    if (!cfg->quiet && cfg->format == PFS_FORMAT_TEXT) {
        pfs_report_header(r->out, d);
        if (cfg->verbose)
            pfs_report_placement(r->out, d);
        fflush(r->out);
    }
}

void drv_record_columns(struct record *r)
{
    const struct pfs_run_data *d = r->d;
    if (d && !d->cfg->quiet && d->cfg->format == PFS_FORMAT_TEXT) {
        pfs_report_columns(r->out, d);
        fflush(r->out);
    }
}

void drv_record_ceilings(struct record *r, struct pfs_ceilings *ce)
{
    if (!r->d || !ce) {
        if (ce)
            free(ce->node);
        free(ce);
        return;
    }
    r->ceil = ce;
    r->d->ceil = ce;
    if (!r->d->cfg->quiet && r->d->cfg->format == PFS_FORMAT_TEXT)
        pfs_report_ceilings(r->out, r->d);
}

/* Rank 0. --ramp: a stream that completed no transfer after its ramp has
 * no figures (0 transfers in an empty span at its close). Some such
 * streams: the run warns how many, the others are the measurement. All
 * of them: there is no measurement, and a 0 MiB/s row would read as one;
 * how fast the work goes is not known before the run (only a single
 * transfer per stream is refused up front), so the repetition is not
 * counted and the run fails, named: the next agreement stops it, or, after
 * the last phase, drv_record_end. Returns 1 in that case. */
static int ramp_outlasted(struct ctx *c, const struct pfs_times *dst, int p, int rep)
{
    const struct pfs_config *cfg = &c->cfg;
    if (cfg->ramp <= 0 || pfs_phase_is_meta(cfg->phases[p]))
        return 0;
    int empty = 0;
    for (int s = 0; s < c->nstreams; s++)
        empty += dst[s].xfers == 0;
    if (!empty)
        return 0;
    if (empty == c->nstreams) {
        char op[64];
        snprintf(op, sizeof(op), "measure %s (repetition %d)", pfs_phase_name(cfg->phases[p]), rep);
        drv_set_fail(c, op, "", 0, "--ramp %g s outlasted the work of every stream: no transfer completed after it, so "
                     "nothing was measured (not recorded as 0 MiB/s); give a larger -b or --runtime", cfg->ramp);
        return 1;
    }
    char w[256];
    snprintf(w, sizeof(w), "%s rep %d: --ramp %g s outlasted the work of %d of %d streams: they add nothing to the "
             "figures", pfs_phase_name(cfg->phases[p]), rep, cfg->ramp, empty, c->nstreams);
    pfs_run_warn(c->rec.d, "%s", w);
    if (!cfg->quiet)
        fprintf(stderr, "pfsbench: warning: %s\n", w);
    return 0;
}

/* Local, rank 0, after the gather of a phase: every stream's times go onto
 * rank 0's clock; a repetition that did not fail counts and is shown. */
void drv_record_phase(struct ctx *c, int p, int rep, int failed)
{
    struct record *r = &c->rec;
    if (c->rank != 0 || !r->d)
        return;
    const struct pfs_config *cfg = &c->cfg;
    struct pfs_times *dst = r->times + ((size_t)p * (size_t)r->d->reps + (size_t)rep) * (size_t)c->nstreams;
    for (int s = 0; s < c->nstreams; s++) {
        double k = c->topo.corr[s / c->threads];
        dst[s] = r->gathered[s];
        dst[s].open_start += k;
        dst[s].open_end += k;
        dst[s].xfer_end += k;
        dst[s].close_end += k;
        if (dst[s].sw_end > 0)
            dst[s].sw_end += k;
    }
    /* A failed repetition's times stay out of the statistics; the error
     * message says what happened to it. */
    if (failed || ramp_outlasted(c, dst, p, rep))
        return;
    /* Its figures first: whoever reads reps_done (the watchdog's record
     * too) finds them. Without memory for them the row is left out, the
     * times are still recorded. */
    pfs_figures_add(&r->d->fig, r->d, p, rep);
    r->reps_done[p] = rep + 1;
    if (!cfg->quiet && cfg->format == PFS_FORMAT_TEXT)
        pfs_report_row(r->out, r->d, p, rep);
    drv_record_warn_phase(c, p, rep);
    fflush(r->out);
}

/* Local, rank 0 (0 elsewhere), --reps auto, after repetition rep of the
 * whole list: 1 when every phase's 95% interval is within --ci. At the
 * cap (the last slot) without that, the run warns, naming the phases. */
int drv_record_stable(struct ctx *c, int rep)
{
    struct pfs_run_data *d = c->rec.d;
    const struct pfs_config *cfg = &c->cfg;
    if (c->rank != 0 || !d || !d->fig.phase)
        return 0;
    char miss[PFS_WARNLEN] = "";
    size_t k = 0;
    int stable = 1, measured = 0;
    for (int p = 0; p < cfg->nphases; p++) {
        const struct pfs_phase_ci pc = d->fig.phase[p].ci;
        measured = pc.measured;
        if (pc.target == 1)
            continue;
        stable = 0;
        if (k < sizeof(miss))
            k += (size_t)snprintf(miss + k, sizeof(miss) - k, isfinite(pc.ci.pct) ? "%s%s +-%.1f%%" : "%s%s n/a",
                                  k ? ", " : "", pfs_phase_name(cfg->phases[p]), pc.ci.pct);
    }
    FILE *msg = cfg->format == PFS_FORMAT_TEXT ? drv_record_out(c) : stderr;
    if (stable && !cfg->quiet)
        fprintf(msg, "repetitions  stable: every phase's 95%% CI within +-%g%% of its mean after %d measured\n", cfg->ci,
                measured);
    if (stable || rep + 1 < d->reps)
        return stable;
    char w[PFS_WARNLEN + 160];
    snprintf(w, sizeof(w), "--reps auto stopped at --max-reps %d without the target: the 95%% CI of the mean is "
             "%s, not within +-%g%%", cfg->max_reps, miss, cfg->ci);
    pfs_run_warn(d, "%s", w);
    if (!cfg->quiet)
        fprintf(msg, "warning      %s\n", w);
    return 0;
}

/* Collective. The end of the record: status, the summary (text, JSON or
 * CSV), the results file; returns the exit status, the same on every rank. */
int drv_record_end(struct ctx *c, int failed)
{
    struct record *r = &c->rec;
    const struct pfs_config *cfg = &c->cfg;
    struct pfs_run_data *d = r->d;
    int rc = failed ? PFS_EXIT_IO : PFS_EXIT_OK;
    if (c->rank == 0 && d && d->interrupt_signal)
        rc = 128 + d->interrupt_signal; /* 130 for SIGINT, 143 for SIGTERM, as a shell reports them */
    if (c->rank == 0 && d && !failed && c->fail.failed) {
        /* Rank 0's own failure after the last agreement (a last
         * repetition that measured nothing): named here, as an agreement
         * would have named it. */
        char msg[1024];
        drv_format_failure(&c->fail, msg, sizeof(msg));
        fprintf(stderr, "pfsbench: error: %s\n", msg);
        snprintf(d->error, sizeof(d->error), "%s", msg);
        failed = 1;
        rc = PFS_EXIT_IO;
    }
    if (c->rank == 0 && d) {
        if (failed && !d->interrupt_signal)
            d->status = "failed";
        drv_iso_time(d->end_iso, sizeof(d->end_iso));
        pfs_figures_finish(&d->fig, d); /* the statistics over repetitions, once */
        /* Phases too short to measure: with the run's warnings (the text
         * report said so under their rows; JSON and CSV own stdout). */
        pfs_run_short_warnings(d, !cfg->quiet && cfg->format != PFS_FORMAT_TEXT ? stderr : NULL);
        /* What was measured before a failure still counts: show it. */
        int any = 0;
        for (int p = 0; p < cfg->nphases; p++)
            any |= r->reps_done[p] > 0;
        /* JSON, CSV, IOR's and mdtest's shapes own stdout: messages go to stderr. */
        FILE *msg = cfg->format == PFS_FORMAT_TEXT ? drv_record_out(c) : stderr;
        const char *id = c->files.run_id;
        if (cfg->format == PFS_FORMAT_JSON || cfg->format == PFS_FORMAT_CSV)
            drv_report_out(c, d); /* inside a job: one document for all its runs (survive.c) */
        else if (any && cfg->format == PFS_FORMAT_IOR)
            pfs_report_ior(stdout, d);
        else if (any && cfg->format == PFS_FORMAT_MDTEST)
            pfs_report_mdtest(stdout, d);
        else if (any)
            pfs_report_end(msg, d); /* the latency table (not with -q), the summary last */
        if (cfg->iozone_lines && cfg->format == PFS_FORMAT_TEXT && any)
            pfs_report_iozone(msg, d); /* pfsbench iozone -t N: IOzone's lines, after the report */
        /* The kept files' line even with -q: a scripted write-then-read reads its run id there. */
        if (cfg->keep && d->kept && cfg->file_name[0])
            fprintf(msg, "kept data files %s%s, %llu transfers of %llu bytes in each stream's file or segment (read "
                    "them again with -p read --file-name %s)\n", cfg->file_name, cfg->shared && !cfg->file_per_rep ? "" : ".*",
                    (unsigned long long)d->kept_xfers, (unsigned long long)cfg->transfer, cfg->file_name);
        else if (cfg->keep && d->kept)
            fprintf(msg, "kept data files %s/pfsbench.%s.*, %llu transfers of %llu bytes in each stream's file or "
                    "segment, as pfsbench.%s.kept says (read them again with --run-id %s)\n", cfg->dir, id,
                    (unsigned long long)d->kept_xfers, (unsigned long long)cfg->transfer, id, id);
        else if (cfg->keep && (c->writes || !c->has_meta) && !cfg->file_name[0]) /* not the user's files */
            fprintf(msg, "kept data files %s/pfsbench.%s.* (read them again with --run-id %s)\n", cfg->dir, id, id);
        if (cfg->keep && c->has_meta)
            fprintf(msg, "kept metadata %s/ (work on it again with --run-id %s -n %llu, e.g. -p stat,delete%s)\n",
                    c->files.md_top, id, (unsigned long long)c->md_files, cfg->md_depth ? ",rmdir" : "");
        if (!cfg->no_results) {
            char name[64], err[PFS_ERRLEN];
            r->in_results = 1;
            pfs_watch_step(c->watch, "the results append");
            int arc = drv_results_append(c, d, name, sizeof(name), err, sizeof(err));
            pfs_watch_step(c->watch, NULL);
            r->in_results = 0;
            if (arc != 0) {
                fprintf(stderr, "pfsbench: error: results file %s: %s\n", cfg->results, err);
                rc = PFS_EXIT_IO;
            } else if (!cfg->quiet) {
                fprintf(msg, "results      %s %s (%s)\n", cfg->results, name, d->status);
            }
        }
        record_out_flush(&c->rec);
        fflush(stdout);
    } else if (c->rank == 0) {
        rc = PFS_EXIT_IO; /* no record could be made (no memory): said on stderr */
    }
    MPI_Bcast(&rc, 1, MPI_INT, 0, c->comm);
    return rc;
}

/* Local. */
void drv_record_init(struct record *r)
{
    drv_iso_time(r->start_iso, sizeof(r->start_iso));
}

void drv_record_fini(struct record *r)
{
    if (r->out && r->out != stdout) /* a run that ended before its record's end */
        record_out_flush(r);
    free(r->times);
    free(r->gathered);
    free(r->find_matched);
    /* Only the repetitions that ran (and the one a failure stopped) hold
     * latency: -i 1000000 under a signal must not walk a million slots. */
    for (int p = 0; r->lat && r->reps_done && p < r->nphases; p++)
        for (int rep = 0; rep < r->slots && rep <= r->reps_done[p]; rep++)
            pfs_lat_free(&r->lat[(size_t)p * (size_t)r->slots + (size_t)rep]);
    free(r->reps_done);
    free(r->lat);
    if (r->ceil)
        free(r->ceil->node);
    free(r->ceil);
    pfs_run_release(&r->data);
}

void drv_record_find(struct record *r, size_t slot, uint64_t matched)
{
    if (r->find_matched)
        r->find_matched[slot] = matched;
}

void drv_record_kept(struct record *r, uint64_t xfers)
{
    if (r->d)
        r->d->kept_xfers = xfers, r->d->kept = 1;
}

int drv_record_reported(struct record *r)
{
    return __atomic_exchange_n(&r->reported, 1, __ATOMIC_ACQ_REL);
}

void drv_record_warn(struct record *r, const char *fmt, ...)
{
    if (!r->d)
        return;
    va_list ap;
    va_start(ap, fmt);
    pfs_run_vwarn(r->d, fmt, ap);
    va_end(ap);
}

void drv_record_interrupted(struct record *r, int sig)
{
    if (r->d && sig) {
        r->d->status = "interrupted";
        r->d->interrupt_signal = sig;
    }
}

void drv_record_cause(struct record *r, const char *first, int count)
{
    struct pfs_run_data *d = r->d;
    if (!d)
        return;
    if (first && !d->error[0])
        snprintf(d->error, sizeof(d->error), "%s", first);
    if (count > 1) {
        size_t n = strlen(d->error);
        snprintf(d->error + n, sizeof(d->error) - n, " (the first of %d ranks that failed)", count);
    }
}

void drv_record_window(struct record *r, const char *tag, const char *sections, double corr, double start,
                       double overlap, double span)
{
    struct pfs_run_data *d = r->d;
    if (!d)
        return;
    d->conc_tag = tag;
    d->conc_sections = sections;
    d->conc_clock_corr = corr;
    d->conc_start = start;
    d->conc_overlap_s = overlap;
    d->conc_span_s = span;
}
