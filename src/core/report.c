/* The text report: the header, the placement table and the columns as the
 * run starts, a row per repetition as it ends, the summary at the end.
 * Every figure is the run's (d->fig, pfs/figures.h); units are printed
 * with every number. JSON and CSV are report_json.c and report_csv.c. */
#include "report_int.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pfs/backend.h"
#include "pfs/report_cache.h"
#include "pfs/report_ceil.h"
#include "pfs/report_mix.h"
#include "pfs/report_rate.h"
#include "report_lat.h"

/* The units' definitions, after the sizes: "; MiB/s = 2^20 bytes/s". */
static const char *units_def(int units)
{
    static const char *defs[] = {"2^20 bytes/s", "1024 bytes/s, the seeds' unit", "10^6 bytes/s", "10^9 bytes/s"};
    return defs[units & 3];
}

/* The target's file system: the mount's own type and source where the
 * mount table was read ("fuse.glusterfs, 127.0.0.1:/vol"), else statfs's
 * name; then its layout facts, when the file system gave any. */
static void report_fs(FILE *out, const struct pfs_run_data *d)
{
    char esc[4 * sizeof(d->fs.source) + 8];
    const struct pfs_fsinfo *fs = &d->fs;
    if (!fs->mount_type[0]) {
        fprintf(out, " (%s)\n", pfs_report_text_of(d->fstype, esc, sizeof(esc)));
    } else {
        fprintf(out, " (%s", pfs_report_text_of(fs->mount_type, esc, sizeof(esc)));
        /* A memory file system's "source" is a name, not a place. */
        if (fs->source[0] && strcmp(fs->source, "none") != 0 && strcmp(fs->source, fs->mount_type) != 0)
            fprintf(out, ", %s", pfs_report_text_of(fs->source, esc, sizeof(esc)));
        fputs(")\n", out);
    }
    if (fs->layout[0])
        fprintf(out, "fs layout    %s\n", pfs_report_text_of(fs->layout, esc, sizeof(esc)));
}

/* The header lines of the listed phases' own (the checkpoint's), each once. */
static void phase_lines(FILE *out, const struct pfs_run_data *d)
{
    const struct pfs_config *c = d->cfg;
    char line[512], last[512] = "";
    for (int i = 0; i < c->nphases; i++) {
        const struct pfs_phase_ops *o = pfs_phase_desc(c->phases[i]);
        if (o->header && o->header(c, d->nranks, line, sizeof(line)) && strcmp(line, last)) {
            fprintf(out, "%s\n", line);
            snprintf(last, sizeof(last), "%s", line);
        }
    }
}

void pfs_report_header(FILE *out, const struct pfs_run_data *d)
{
    const struct pfs_config *c = d->cfg;
    char t[32], b[32], tot[32], fs[32];
    pfs_format_size(c->transfer, t, sizeof(t));
    pfs_format_size(c->block, b, sizeof(b));
    pfs_format_size(c->total, tot, sizeof(tot));
    int per = d->nranks / d->nnodes;
    int has_data = 0, has_meta = 0;
    for (int i = 0; i < c->nphases; i++) {
        has_meta |= pfs_phase_is_meta(c->phases[i]);
        has_data |= !pfs_phase_is_meta(c->phases[i]);
    }
    char esc[4 * PFS_PATH_MAX + 8]; /* a text escape is at most 4 bytes per byte */
    fprintf(out, "pfsbench %s  run %s  %s\n", PFS_VERSION, pfs_report_text_of(d->run_id, esc, sizeof(esc)), d->start_iso);
    if (c->label[0])
        fprintf(out, "label        %s\n", pfs_report_text_of(c->label, esc, sizeof(esc)));
    fprintf(out, "ranks        %d on %d node%s (%s%d per node)", d->nranks, d->nnodes, d->nnodes == 1 ? "" : "s",
            d->nranks % d->nnodes ? "uneven, about " : "", per);
    if (pfs_report_threads(d) > 1)
        fprintf(out, ", %d threads per rank: %d streams", pfs_report_threads(d), pfs_run_nstreams(d));
    fprintf(out, "\ntarget       %s", pfs_report_text_of(c->dir, esc, sizeof(esc)));
    report_fs(out, d);
    if (has_data) {
        const struct pfs_backend *be = pfs_backend_at(c->api);
        char depth[32] = "";
        if (be && (be->caps & PFS_CAP_ASYNC))
            snprintf(depth, sizeof(depth), ", iodepth %d", c->iodepth);
        const char *osync = c->sync_mode == PFS_SYNC_DSYNC ? ", O_DSYNC" : c->sync_mode == PFS_SYNC_SYNC ? ", O_SYNC" : "";
        char segs[40] = "";
        if (c->segments > 1)
            snprintf(segs, sizeof(segs), ", %d segments", c->segments);
        /* --random-dist, --buffer-compress, --dedupe: said only when given */
        char skew[96] = "", content[64] = "";
        if (c->random_dist[0])
            snprintf(skew, sizeof(skew), ", random offsets drawn %s", c->random_dist);
        if (pfs_config_content(c))
            snprintf(content, sizeof(content), ", content %d%% compressible %d%% duplicate", c->buffer_compress,
                     c->dedupe);
        fprintf(out, "access       %s%s%s, api %s%s%s%s%s%s%s%s%s\n", c->shared ? "one shared file, " : "file per stream",
                c->shared ? (c->layout == PFS_LAYOUT_STRIDED ? "strided" : "segmented") : "", segs,
                pfs_backend_name(c->api), depth, c->collective ? " collective" : "",
                c->direct ? ", O_DIRECT" : "", osync, c->random ? ", random order" : ", sequential", skew,
                c->reorder ? (c->reorder_seed >= 0 ? ", reads reordered at random" : ", reads reordered") : "", content);
        if (pfs_phase_listed(c, PFS_PHASE_DATA, 0, PFS_PHF_OWN_FILES))
            fprintf(out, "sizes        transfer %s, block %s per %s, total %s; %s = %s\n", t, b,
                    pfs_report_threads(d) > 1 ? "stream" : "rank", tot, pfs_units_label(c->units), units_def(c->units));
        else /* only phases on files of their own (the checkpoint's): no block */
            fprintf(out, "sizes        transfer %s; %s = %s\n", t, pfs_units_label(c->units), units_def(c->units));
    }
    if (has_meta) {
        pfs_format_size(c->file_size, fs, sizeof(fs));
        char tree[160] = "";
        if (c->md_depth > 0)
            snprintf(tree, sizeof(tree), "; %s of depth %d, branch %d: %llu directories, files in %s",
                     c->dirs == PFS_DIRS_SHARED ? "one tree for all streams, made by stream 0," : "a tree per stream",
                     c->md_depth, c->md_branch, (unsigned long long)pfs_config_tree_dirs(c),
                     c->md_leaf_only ? "the leaves" : "every directory");
        fprintf(out, "metadata     %d files per stream of %s, %s, %s order%s%s\n", c->files,
                c->file_size ? fs : "0 bytes",
                c->dirs == PFS_DIRS_PER_RANK ? "a directory per stream" : "one shared directory",
                c->md_random ? "random" : "sequential", c->reorder ? ", stat and read-files reordered" : "", tree);
    }
    fprintf(out, "phases       ");
    for (int i = 0; i < c->nphases; i++)
        fprintf(out, "%s%s", i ? "," : "", pfs_phase_name(c->phases[i]));
    if (c->lat_target[0]) /* the search stops the run when done: cfg->reps is its most */
        fprintf(out, " x up to %d repetitions (a closed-loop one, then at most %d rates of --latency-target's search)",
                c->reps, c->reps - 1);
    else if (c->reps > 0)
        fprintf(out, " x %d repetition%s", c->reps, c->reps == 1 ? "" : "s");
    else
        fprintf(out, " x auto: until every phase's 95%% CI is within +-%g%% of its mean (%d to %d repetitions)",
                c->ci, PFS_CI_MIN_REPS, c->max_reps);
    if (c->warmup)
        fprintf(out, ", after %d warm-up (stored, not in the statistics)", c->warmup);
    fputc('\n', out);
    if (has_data && c->verbose) {
        char every[48] = "", start[64] = "open", xfers[112] = "transfers";
        if (c->fsync_every > 0)
            snprintf(every, sizeof(every), ", fsync every %d", c->fsync_every);
        if (c->ramp > 0)
            snprintf(start, sizeof(start), "ramp end (%g s after open)", c->ramp);
        if (c->runtime > 0)
            snprintf(xfers, sizeof(xfers), "transfers %s %g s%s, wrapping around the block (a write completes one pass)",
                     c->ramp > 0 ? "until" : "for", c->runtime, c->ramp > 0 ? " after open" : "");
        fprintf(out, "timed region %s .. %s%s .. %sclose, barrier before open and after close%s%s\n", start, xfers, every,
                c->fsync ? "fsync .. " : "", c->deadline > 0 ? ", stonewall" : "",
                c->ramp > 0 ? "; the ramp's transfers are not counted" : "");
    }
    if (c->deadline > 0) {
        int data = 0;
        const int create = pfs_phase_listed(c, PFS_PHASE_META, PFS_PHF_WEARS_OUT, 0); /* create's files */
        for (int k = 0; k < c->nphases; k++)
            data |= pfs_phase_has(c->phases[k], PFS_PHF_WEARS_OUT) && !pfs_phase_is_meta(c->phases[k]);
        fprintf(out, "stonewall    %g s, then wear-out to the largest %s count any stream reached\n", c->deadline,
                data && create ? "transfer (file, in create)" : create ? "file" : "transfer");
    }
    phase_lines(out, d);
    if (c->verify && c->bssplit[0])
        fprintf(out, "verify       every byte read (--bssplit: a transfer smaller than -t reads part of its slot); "
                     "pattern time taken out of the timed region\n");
    else if (c->verify)
        fprintf(out, "verify       every byte; pattern time taken out of the timed region\n");
    if (d->warnings) {
        const char *p = d->warnings;
        while (*p) {
            const char *nl = strchr(p, '\n');
            size_t n = nl ? (size_t)(nl - p) : strlen(p);
            fputs("warning      ", out);
            pfs_escape_write(out, PFS_ESC_TEXT, p, n);
            fputc('\n', out);
            p += n + (nl != NULL);
        }
    }
}

/* The rate column's name: the phases' units, each once ("MiB/s",
 * "files/s", "MiB/s|files/s"); 0 when no phase moves data (no IOPS
 * column: a metadata phase's rate is its operations per second). */
static int rate_head(const struct pfs_run_data *d, char *buf, size_t len)
{
    const struct pfs_config *c = d->cfg;
    int data = 0;
    size_t n = 0;
    buf[0] = '\0';
    for (int i = 0; i < c->nphases; i++) {
        const int meta = pfs_phase_is_meta(c->phases[i]);
        const char *u = meta ? pfs_phase_rate_unit(c->phases[i]) : pfs_units_label(c->units);
        data |= !meta;
        int seen = 0;
        for (int j = 0; j < i; j++)
            seen |= !strcmp(u, pfs_phase_is_meta(c->phases[j]) ? pfs_phase_rate_unit(c->phases[j])
                                                                : pfs_units_label(c->units));
        if (!seen && n < len)
            n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? "|" : "", u);
    }
    return data;
}

void pfs_report_columns(FILE *out, const struct pfs_run_data *d)
{
    char rate[64];
    const int data = rate_head(d, rate, sizeof(rate));
    fprintf(out, "\n%-10s %4s %14s %10s %10s %6s  %s\n", "phase", "rep", rate, data ? "IOPS" : "", "seconds", "util",
            "slowest / fastest node");
}

/* A list of at most max bytes (a cpulist) for a column of w characters:
 * whole entries, then ",..." (the results file has it in full); "-" for an
 * empty one; anything but digits, ',' '-' and '.' shown as '?'. */
static const char *list_cut(const char *s, size_t max, char *buf, size_t w)
{
    size_t n = strnlen(s, max - 1), k = 0;
    if (n == 0)
        s = "-", n = 1;
    if (n > w) {
        for (size_t i = 0; i + 4 <= w; i++)
            if (s[i] == ',')
                k = i;
    }
    snprintf(buf, w + 1, "%.*s%s", (int)(n > w ? k : n), s, n <= w ? "" : k ? ",..." : "...");
    for (char *p = buf; *p; p++)
        if (!strchr("0123456789,-.", *p))
            *p = '?';
    return buf;
}

void pfs_report_placement(FILE *out, const struct pfs_run_data *d)
{
    char h[4 * PFS_HOST_MAX + 8], cl[28], nn[PFS_NUMALIST_MAX + 1];
    /* Within 100 columns for a host of up to 24 characters. */
    fprintf(out, "placement (rank node host clock-correction-us +/-us%s)\n", d->affinity ? " cpus affinity numa" : "");
    for (int r = 0; r < d->nranks; r++) {
        fprintf(out, "  %5d %4d %-24s %10.1f %8.1f", r, d->node_of_rank[r], pfs_report_text_of(d->hosts[r], h, sizeof(h)),
                d->clock_corr ? d->clock_corr[r] * 1e6 : 0.0, d->clock_unc ? d->clock_unc[r] * 1e6 : 0.0);
        if (d->affinity) {
            const struct pfs_affinity *a = &d->affinity[r];
            fprintf(out, " %4d %-24s %s", (int)a->cpus, list_cut(a->cpu_affinity, sizeof(a->cpu_affinity), cl, 24),
                    list_cut(a->numa_nodes, sizeof(a->numa_nodes), nn, PFS_NUMALIST_MAX - 1));
        }
        fputc('\n', out);
    }
}

/* ---- a repetition's row ---- */

/* A train phase's lines: the accelerators' utilisation against the gate,
 * the lowest node's and accelerator's, samples/s, the stall distribution. */
static void train_lines(FILE *out, const struct pfs_run_data *d, const struct pfs_rep_figs *r)
{
    int low = 0;
    for (int n = 1; n < d->nnodes; n++)
        low = r->node_train_au[n] < r->node_train_au[low] ? n : low;
    fprintf(out, "%-10s %4s AU %.2f%%: %s the %g%% gate (lowest node %d %.2f%%, lowest accelerator %.2f%%); "
            "%.1f samples/s\n", "", "", r->train_au, r->train_pass ? "passes" : "FAILS", d->cfg->au_gate, low,
            d->nnodes > 0 ? r->node_train_au[low] : r->train_au, r->train_au_min, r->train_samples_s);
    fprintf(out, "%-10s %4s stalls: %llu batches < 1 ms, %llu 1-10 ms, %llu 10-100 ms, %llu >= 100 ms; longest "
            "%.4f s; compute %.3f s, stalled %.3f s over the accelerators\n", "", "",
            (unsigned long long)r->train_stall_1ms, (unsigned long long)r->train_stall_10ms,
            (unsigned long long)r->train_stall_100ms, (unsigned long long)r->train_stall_more, r->train_stall_max_s,
            r->train_compute_s, r->train_stall_s);
    if (r->train_trials)
        fprintf(out, "%-10s %4s most accelerators that keep the %g%% gate: %llu a rank, %llu on the fullest node "
                "(%llu trials); the figures above are of the run at that count\n", "", "", d->cfg->au_gate,
                (unsigned long long)r->train_accelerators, (unsigned long long)r->train_acc_node,
                (unsigned long long)r->train_trials);
}

void pfs_report_row(FILE *out, const struct pfs_run_data *d, int phase, int rep)
{
    const struct pfs_config *c = d->cfg;
    const struct pfs_rep_figs *r = pfs_figs_rep(&d->fig, phase, rep);
    if (!r)
        return;
    const struct pfs_phase_stat *s = &r->s;
    const int meta = pfs_phase_is_meta(c->phases[phase]);
    const double scale = meta ? 1.0 : pfs_units_scale(c->units), *v = r->node_value;
    const char *unit = meta ? pfs_phase_rate_unit(c->phases[phase]) : pfs_units_label(c->units);
    const char *warm = rep < c->warmup ? "  warm-up" : "";
    const char *mu = pfs_phase_rate_unit(c->phases[phase]);
    const char *tags = r->nstrag ? "  STRAGGLER" : "";
    const char *late = r->too_short && pfs_figs_short_first(&d->fig, phase) != rep ? "  too short" : "";
    /* A metadata phase's rate is its operations per second: no IOPS of its own. */
    if (meta)
        fprintf(out, "%-10s %4d %14.1f %10s %10.4f %6.3f  node %d %.1f / node %d %.1f %s%s%s%s\n",
                pfs_phase_name(c->phases[phase]), rep, s->rate, "-", s->seconds, s->utilization, r->slow, v[r->slow],
                r->fast, v[r->fast], mu, tags, late, warm);
    else
        fprintf(out, "%-10s %4d %14.2f %10.1f %10.4f %6.3f  node %d %.2f / node %d %.2f %s%s%s%s\n",
                pfs_phase_name(c->phases[phase]), rep, s->bandwidth / scale, s->rate, s->seconds, s->utilization,
                r->slow, v[r->slow] / scale, r->fast, v[r->fast] / scale, unit, tags, late, warm);
    if (r->find_matched >= 0)
        fprintf(out, "%-10s %4s %llu files examined, %lld matched (name *01*, %llu bytes, not older than the run's "
                "start)\n", "", "", (unsigned long long)s->ops, r->find_matched, (unsigned long long)c->file_size);
    if (pfs_phase_desc(c->phases[phase])->unit == PFS_UNIT_SEEKS) /* bonnie++'s figure: seeks/s */
        fprintf(out, "%-10s %4s %14.1f %10s  (%llu %s of %llu B, every 10th written back)\n", "", "", s->rate,
                pfs_phase_rate_unit(c->phases[phase]), (unsigned long long)s->ops, pfs_phase_unit_name(c->phases[phase]),
                (unsigned long long)c->transfer);
    if (pfs_phase_has(c->phases[phase], PFS_PHF_OWN_FILES) && s->seconds > 0)
        fprintf(out, "%-10s %4s slowest rank %d: %.4f s (%.0f%% of the phase's first open to last close)\n", "", "",
                r->slow_stream, r->slow_stream_s, 100.0 * r->slow_stream_s / s->seconds);
    if (pfs_phase_has(c->phases[phase], PFS_PHF_OWN_FILES))
        fprintf(out, "%-10s %4s client CPU %.3f s per GiB (user + system, every stream)\n", "", "", r->cpu_per_gib);
    if (r->train_fed)
        train_lines(out, d, r);
    if (s->sw_rate > 0 && meta)
        fprintf(out, "%-10s %4s %14.1f %10s  (up to the stonewall: %llu files)\n", "", "", s->sw_rate, mu,
                (unsigned long long)s->sw_ops);
    else if (s->sw_rate > 0)
        fprintf(out, "%-10s %4s %14.2f %10.1f  (up to the stonewall)\n", "", "", s->sw_bandwidth / scale,
                s->sw_rate);
    pfs_report_rate_row(out, d, phase, rep);
    pfs_report_mix_row(out, d, phase, rep);
    if (c->verbose) {
        pfs_report_ceiling_row(out, d, phase, rep);
        pfs_report_cache_row(out, d, phase, rep);
    }
    char h[4 * PFS_HOST_MAX + 8];
    for (int n = 0; n < d->nnodes; n++)
        if (r->node_straggler[n])
            fprintf(out, "           straggler: node %d (%s) %.2f %s, below %.2f x the median node\n", n,
                    pfs_report_text_of(pfs_report_node_host(d, n, 1), h, sizeof(h)), v[n] / scale, unit,
                    c->straggler);
    pfs_report_targets(out, d, phase, rep);
    /* Once per phase, at its first short repetition (later ones are tagged). */
    char w[640];
    if (pfs_figs_short_first(&d->fig, phase) == rep && pfs_report_short_phase(d, phase, rep, w, sizeof(w)))
        fprintf(out, "warning      %s\n", w);
}

/* ---- the summary ---- */

/* Below a phase's row, when there is more to say than its interval: the
 * interval in words, the warm-up left out and --reps auto's verdict (and
 * always with -v). */
static void summary_ci(FILE *out, const struct pfs_run_data *d, const struct pfs_phase_figs *pf)
{
    const struct pfs_phase_ci *pc = &pf->ci;
    if (!pc->warmup && pc->target < 0 && !d->cfg->verbose)
        return;
    fprintf(out, "%-10s mean %.2f ", "", pf->shown.mean);
    if (isfinite(pc->ci.pct))
        fprintf(out, "+-%.1f%% (95%% CI, %d reps)", pc->ci.pct, pc->measured);
    else
        fprintf(out, "+-n/a (95%% CI, %d rep%s)", pc->measured, pc->measured == 1 ? "" : "s");
    fprintf(out, ", median %.2f", pf->shown.median);
    if (pc->warmup)
        fprintf(out, "; %d warm-up left out", pc->warmup);
    if (pc->target >= 0)
        fprintf(out, "; target +-%g%% %s", d->cfg->ci, pc->target ? "met" : "not met");
    fputc('\n', out);
}

void pfs_report_summary(FILE *out, const struct pfs_run_data *d)
{
    char rate[64];
    rate_head(d, rate, sizeof(rate));
    fprintf(out, "summary over repetitions (aggregate %s; +-: the 95%% CI of the mean)\n", rate);
    /* 100 columns: figures up to 9,999,999.99, bytes up to 10^12 - 1. */
    fprintf(out, "%-10s %4s %10s %8s %10s %10s %10s %10s %7s %12s\n", "phase", "reps", "mean", "+-", "median", "min",
            "max", "stddev", "mean s", "bytes|files");
    for (int p = 0; d->fig.phase && p < d->nphases; p++) {
        const struct pfs_phase_figs *pf = &d->fig.phase[p];
        const struct pfs_stats *st = &pf->shown;
        const int n = pf->ci.measured;
        if (n == 0)
            continue;
        /* One repetition has no spread: its stddev and interval are n/a, not 0. */
        char sd[32] = "n/a", ci[32] = "n/a";
        if (n > 1)
            snprintf(sd, sizeof(sd), "%.2f", st->stddev);
        if (isfinite(pf->ci.ci.pct))
            snprintf(ci, sizeof(ci), "%.1f%%", pf->ci.ci.pct);
        fprintf(out, "%-10s %4d %10.2f %8s %10.2f %10.2f %10.2f %10s %7.4f %12llu\n",
                pfs_phase_name(d->cfg->phases[p]), n, st->mean, ci, st->median, st->min, st->max, sd,
                pf->seconds.mean, (unsigned long long)pf->amount);
        summary_ci(out, d, pf);
        pfs_report_ceiling_summary(out, d, p);
        const int kind = d->cfg->phases[p];
        if (pfs_phase_desc(kind)->unit == PFS_UNIT_SEEKS && d->cfg->transfer > 0) { /* bonnie++'s figure: each seek moves -t bytes */
            const double k = pfs_units_scale(d->cfg->units) / (double)d->cfg->transfer;
            fprintf(out, "%-10s mean %.1f %s, median %.1f %s\n", "", st->mean * k, pfs_phase_rate_unit(kind),
                    st->median * k, pfs_phase_rate_unit(kind));
        }
    }
}

void pfs_report_end(FILE *out, const struct pfs_run_data *d)
{
    if (!d->cfg->quiet)
        pfs_report_latency(out, d);
    fprintf(out, "%s", d->cfg->quiet ? "" : "\n");
    if (d->cfg->rate_sweep[0] || d->cfg->lat_target[0]) /* a mean over different loads says nothing: the curve */
        pfs_report_sweep(out, d);
    else
        pfs_report_summary(out, d);
}
