/* The report: text as the run goes, or JSON or CSV at its end. Every figure
 * comes from pfs_phase_reduce/pfs_node_reduce over the recorded times;
 * units are printed with every number. */
#include "pfs/report.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pfs/backend.h"
#include "pfs/cmdline.h"
#include "pfs/report_cache.h"
#include "report_lat.h"

/* ---- strings from outside, made safe for each output ---- */

/* Where escaped text goes: a FILE, or a buffer that keeps only whole
 * pieces (a character or an escape), so a cut never splits one. */
struct sink {
    FILE *f;
    char *buf;
    size_t len, n, whole;
    int full;
};

static void sput(struct sink *k, const char *p, size_t m)
{
    if (k->f) {
        fwrite(p, 1, m, k->f);
    } else if (!k->full && k->n + m < k->len) {
        memcpy(k->buf + k->n, p, m);
        k->whole = k->n + m;
    } else {
        k->full = 1;
    }
    k->n += m;
}

static void sputf(struct sink *k, const char *fmt, unsigned v)
{
    char x[16];
    int m = snprintf(x, sizeof(x), fmt, v);
    sput(k, x, (size_t)m);
}

/* CSV quotes only when a reader would otherwise split or trim the field. */
static int csv_needs_quotes(const char *s, size_t n)
{
    if (n > 0 && (s[0] == ' ' || s[n - 1] == ' '))
        return 1;
    for (size_t i = 0; i < n; i++)
        if (s[i] == ',' || s[i] == '"' || s[i] == '\r' || s[i] == '\n')
            return 1;
    return 0;
}

/* One well-formed character cp of k bytes at p, in the output's syntax. */
static void esc_char(struct sink *k, enum pfs_esc how, const char *p, size_t m, unsigned cp)
{
    const char *shortform = cp == '\n' ? "\\n" : cp == '\t' ? "\\t" : cp == '\r' ? "\\r" : NULL;
    if (how == PFS_ESC_CSV) {
        sput(k, cp == '"' ? "\"\"" : p, cp == '"' ? 2 : m);
    } else if (how == PFS_ESC_JSON && (cp == '"' || cp == '\\')) {
        sput(k, cp == '"' ? "\\\"" : "\\\\", 2);
    } else if (how == PFS_ESC_TEXT && cp == '\\') {
        sput(k, "\\\\", 2);
    } else if (pfs_utf8_printable(cp)) {
        sput(k, p, m);
    } else if (shortform) {
        sput(k, shortform, 2);
    } else if (how == PFS_ESC_TEXT && cp < 0x80) {
        sputf(k, "\\x%02x", cp);
    } else {
        sputf(k, "\\u%04x", cp); /* every code point that is not printable is below U+10000 */
    }
}

static void escape(struct sink *k, enum pfs_esc how, const char *s, size_t n)
{
    s = s ? s : "";
    n = strnlen(s, n);
    int quote = how == PFS_ESC_JSON || (how == PFS_ESC_CSV && csv_needs_quotes(s, n));
    if (quote)
        sput(k, "\"", 1);
    for (size_t i = 0; i < n;) {
        unsigned cp = 0;
        size_t m = pfs_utf8_seq(s + i, n - i, &cp);
        if (m > 0) {
            esc_char(k, how, s + i, m, cp);
            i += m;
            continue;
        }
        /* Not UTF-8: the text shows every byte; JSON and CSV say U+FFFD once
         * per maximal subpart, as every other decoder does, and the text
         * after it still reads. */
        size_t bad = pfs_utf8_bad(s + i, n - i);
        if (how == PFS_ESC_TEXT)
            for (size_t j = 0; j < bad; j++)
                sputf(k, "\\x%02x", (unsigned char)s[i + j]);
        else
            sput(k, "\xef\xbf\xbd", 3); /* U+FFFD */
        i += bad;
    }
    if (quote)
        sput(k, "\"", 1);
}

size_t pfs_escape(enum pfs_esc how, const char *s, size_t n, char *out, size_t len)
{
    struct sink k = {NULL, out, len, 0, 0, 0};
    escape(&k, how, s, n);
    if (len > 0)
        out[k.whole] = '\0';
    return k.n;
}

void pfs_escape_write(FILE *out, enum pfs_esc how, const char *s, size_t n)
{
    struct sink k = {out, NULL, 0, 0, 0, 0};
    escape(&k, how, s, n);
}

/* For the text report's fixed-width columns: s escaped into buf. */
static const char *text_of(const char *s, char *buf, size_t len)
{
    pfs_escape(PFS_ESC_TEXT, s, SIZE_MAX, buf, len);
    return buf;
}

/* Appends a warning line. The list is bounded: the last line that fits is
 * the note that more were left out, never a line cut in the middle. */
void pfs_run_warn(struct pfs_run_data *d, const char *fmt, ...)
{
    char line[sizeof(d->warnings)];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    pfs_warn_append(d->warnings, sizeof(d->warnings), line);
}

static int threads_of(const struct pfs_run_data *d)
{
    return d->threads > 0 ? d->threads : 1;
}

/* The second column: the seeds' KB/s, or MiB/s when KB/s is the first. */
static const char *alt_label(int units)
{
    return units == PFS_UNITS_KB ? "MiB/s" : "KB/s";
}

static double alt_scale(int units)
{
    return units == PFS_UNITS_KB ? PFS_MIB : 1024.0;
}

/* The target's file system: the mount's own type and source where the
 * mount table was read ("fuse.glusterfs, 127.0.0.1:/vol"), else statfs's
 * name; then its layout facts, when the file system gave any. */
static void report_fs(FILE *out, const struct pfs_run_data *d)
{
    char esc[4 * sizeof(d->fs.source) + 8];
    const struct pfs_fsinfo *fs = &d->fs;
    if (!fs->mount_type[0]) {
        fprintf(out, " (%s)\n", text_of(d->fstype, esc, sizeof(esc)));
    } else {
        fprintf(out, " (%s", text_of(fs->mount_type, esc, sizeof(esc)));
        /* A memory file system's "source" is a name, not a place. */
        if (fs->source[0] && strcmp(fs->source, "none") != 0 && strcmp(fs->source, fs->mount_type) != 0)
            fprintf(out, ", %s", text_of(fs->source, esc, sizeof(esc)));
        fputs(")\n", out);
    }
    if (fs->layout[0])
        fprintf(out, "fs layout    %s\n", text_of(fs->layout, esc, sizeof(esc)));
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
    fprintf(out, "pfsbench %s  run %s  %s\n", PFS_VERSION, text_of(d->run_id, esc, sizeof(esc)), d->start_iso);
    fprintf(out, "ranks        %d on %d node%s (%s%d per node)", d->nranks, d->nnodes, d->nnodes == 1 ? "" : "s",
            d->nranks % d->nnodes ? "uneven, about " : "", per);
    if (threads_of(d) > 1)
        fprintf(out, ", %d threads per rank: %d streams", threads_of(d), pfs_run_nstreams(d));
    fprintf(out, "\ntarget       %s", text_of(c->dir, esc, sizeof(esc)));
    report_fs(out, d);
    if (has_data) {
        const struct pfs_backend *be = pfs_backend_at(c->api);
        char depth[32] = "";
        if (be && (be->caps & PFS_CAP_ASYNC))
            snprintf(depth, sizeof(depth), ", iodepth %d", c->iodepth);
        const char *osync = c->sync_mode == PFS_SYNC_DSYNC ? ", O_DSYNC" : c->sync_mode == PFS_SYNC_SYNC ? ", O_SYNC" : "";
        fprintf(out, "access       %s%s, api %s%s%s%s%s%s%s\n", c->shared ? "one shared file, " : "file per stream",
                c->shared ? (c->layout == PFS_LAYOUT_STRIDED ? "strided" : "segmented") : "",
                pfs_backend_name(c->api), depth, c->collective ? " collective" : "",
                c->direct ? ", O_DIRECT" : "", osync, c->random ? ", random order" : ", sequential",
                c->reorder ? ", reads reordered" : "");
        fprintf(out, "sizes        transfer %s, block %s per %s, total %s\n", t, b,
                threads_of(d) > 1 ? "stream" : "rank", tot);
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
    if (c->reps > 0)
        fprintf(out, " x %d repetition%s", c->reps, c->reps == 1 ? "" : "s");
    else
        fprintf(out, " x auto: until every phase's 95%% CI is within +-%g%% of its mean (%d to %d repetitions)",
                c->ci, PFS_CI_MIN_REPS, c->max_reps);
    if (c->warmup)
        fprintf(out, ", after %d warm-up (stored, not in the statistics)", c->warmup);
    fputc('\n', out);
    if (has_data) {
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
    if (c->verify)
        fprintf(out, "verify       every byte; pattern time taken out of the timed region\n");
    static const char *defs[] = {"2^20 bytes/s", "1024 bytes/s, the seeds' unit", "10^6 bytes/s", "10^9 bytes/s"};
    fprintf(out, "units        %s = %s; %s = %s%s\n", pfs_units_label(c->units), defs[c->units & 3],
            alt_label(c->units), c->units == PFS_UNITS_KB ? defs[0] : defs[1],
            has_meta ? "; files/s for metadata phases" : "");
    if (d->warnings[0]) {
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

void pfs_report_columns(FILE *out, const struct pfs_run_data *d)
{
    int u = d->cfg->units;
    fprintf(out, "\n%-10s %4s %12s %14s %10s %6s  %s\n", "phase", "rep", pfs_units_label(u), alt_label(u), "seconds",
            "util", "slowest / fastest node");
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
        fprintf(out, "  %5d %4d %-24s %10.1f %8.1f", r, d->node_of_rank[r], text_of(d->hosts[r], h, sizeof(h)),
                d->clock_corr ? d->clock_corr[r] * 1e6 : 0.0, d->clock_unc ? d->clock_unc[r] * 1e6 : 0.0);
        if (d->affinity) {
            const struct pfs_affinity *a = &d->affinity[r];
            fprintf(out, " %4d %-24s %s", (int)a->cpus, list_cut(a->cpu_affinity, sizeof(a->cpu_affinity), cl, 24),
                    list_cut(a->numa_nodes, sizeof(a->numa_nodes), nn, PFS_NUMALIST_MAX - 1));
        }
        fputc('\n', out);
    }
}

static int first_rank_on(const struct pfs_run_data *d, int node)
{
    for (int r = 0; r < d->nranks; r++)
        if (d->node_of_rank[r] == node)
            return r;
    return 0;
}

/* Per-node figures of one phase and repetition: bandwidth for a data phase,
 * files/s for a metadata phase; the straggler flags go with them. */
struct node_view {
    double *val;
    int *flag;
    int slow, fast, nstrag;
};

static int node_view(const struct pfs_run_data *d, int phase, int rep, struct node_view *v)
{
    int nn = d->nnodes, ns = pfs_run_nstreams(d);
    const int *nodes = pfs_run_stream_nodes(d);
    const struct pfs_times *t = pfs_run_times(d, phase, rep);
    v->val = calloc((size_t)nn, sizeof(double));
    v->flag = calloc((size_t)nn, sizeof(int));
    uint64_t *nb = calloc((size_t)nn, sizeof(uint64_t));
    double *nsec = calloc((size_t)nn, sizeof(double));
    if (!v->val || !v->flag || !nb || !nsec) {
        free(v->val), free(v->flag), free(nb), free(nsec);
        return -1;
    }
    if (pfs_phase_is_meta(d->cfg->phases[phase]))
        pfs_node_rates(t, nodes, ns, nn, v->val);
    else
        pfs_node_reduce(t, nodes, ns, nn, nb, nsec, v->val);
    free(nb), free(nsec);
    v->slow = v->fast = 0;
    for (int n = 1; n < nn; n++) {
        if (v->val[n] < v->val[v->slow])
            v->slow = n;
        if (v->val[n] > v->val[v->fast])
            v->fast = n;
    }
    v->nstrag = pfs_stragglers(v->val, nn, d->cfg->straggler, v->flag);
    return 0;
}

/* The files a find phase's repetition matched (IO500's criteria); -1 for
 * any other phase, or when not recorded. */
static long long find_matched(const struct pfs_run_data *d, int p, int rep)
{
    if (!pfs_phase_has(d->cfg->phases[p], PFS_PHF_MATCHES) || !d->find_matched)
        return -1;
    return (long long)d->find_matched[(size_t)p * (size_t)d->reps + (size_t)rep];
}

void pfs_report_row(FILE *out, const struct pfs_run_data *d, int phase, int rep)
{
    const struct pfs_config *c = d->cfg;
    const int meta = pfs_phase_is_meta(c->phases[phase]);
    struct pfs_phase_stat s;
    pfs_phase_reduce(pfs_run_times(d, phase, rep), pfs_run_nstreams(d), &s);
    struct node_view v;
    if (node_view(d, phase, rep, &v) != 0)
        return;
    const double scale = meta ? 1.0 : pfs_units_scale(c->units);
    const char *unit = meta ? pfs_phase_rate_unit(c->phases[phase]) : pfs_units_label(c->units);
    const char *warm = rep < c->warmup ? "  warm-up" : "";
    const char *mu = pfs_phase_rate_unit(c->phases[phase]);
    if (meta)
        fprintf(out, "%-10s %4d %12.1f %14s %10.4f %6.3f  node %d %.1f / node %d %.1f %s%s%s\n",
                pfs_phase_name(c->phases[phase]), rep, s.rate, mu, s.seconds, s.utilization, v.slow,
                v.val[v.slow], v.fast, v.val[v.fast], mu, v.nstrag ? "  STRAGGLER" : "", warm);
    else
        fprintf(out, "%-10s %4d %12.2f %14.0f %10.4f %6.3f  node %d %.2f / node %d %.2f %s%s%s\n",
                pfs_phase_name(c->phases[phase]), rep, s.bandwidth / scale, s.bandwidth / alt_scale(c->units),
                s.seconds, s.utilization, v.slow, v.val[v.slow] / scale, v.fast, v.val[v.fast] / scale, unit,
                v.nstrag ? "  STRAGGLER" : "", warm);
    if (find_matched(d, phase, rep) >= 0)
        fprintf(out, "%-10s %4s %llu files examined, %lld matched (name *01*, %llu bytes, not older than the run's "
                "start)\n", "", "", (unsigned long long)s.ops, find_matched(d, phase, rep),
                (unsigned long long)c->file_size);
    if (pfs_phase_desc(c->phases[phase])->unit == PFS_UNIT_SEEKS) /* bonnie++'s figure: seeks/s */
        fprintf(out, "%-10s %4s %12.1f %14s  (%llu %s of %llu B, every 10th written back)\n", "", "", s.rate,
                pfs_phase_rate_unit(c->phases[phase]), (unsigned long long)s.ops, pfs_phase_unit_name(c->phases[phase]),
                (unsigned long long)c->transfer);
    if (s.sw_rate > 0 && meta)
        fprintf(out, "%-10s %4s %12.1f %14s  (up to the stonewall: %llu files)\n", "", "", s.sw_rate, mu,
                (unsigned long long)s.sw_ops);
    else if (s.sw_rate > 0)
        fprintf(out, "%-10s %4s %12.2f %14.0f  (up to the stonewall)\n", "", "", s.sw_bandwidth / scale,
                s.sw_bandwidth / alt_scale(c->units));
    pfs_report_cache_row(out, d, phase, rep);
    char h[4 * PFS_HOST_MAX + 8];
    for (int n = 0; n < d->nnodes; n++)
        if (v.flag[n])
            fprintf(out, "           straggler: node %d (%s) %.2f %s, below %.2f x the median node\n", n,
                    text_of(d->hosts[first_rank_on(d, n)], h, sizeof(h)), v.val[n] / scale, unit, c->straggler);
    free(v.val), free(v.flag);
    char w[640];
    if (pfs_report_short_phase(d, phase, rep, w, sizeof(w)))
        fprintf(out, "warning      %s\n", w);
}

/* The figure a phase is judged by, per measured repetition (the warm-up
 * ones left out), in the report's unit; returns how many. */
static int phase_series(const struct pfs_run_data *d, int p, double *val, double *sec, uint64_t *bytes)
{
    const int meta = pfs_phase_is_meta(d->cfg->phases[p]);
    const double scale = pfs_units_scale(d->cfg->units);
    const int w = pfs_run_warmup(d, p);
    for (int rep = w; rep < d->reps_done[p]; rep++) {
        struct pfs_phase_stat s;
        pfs_phase_reduce(pfs_run_times(d, p, rep), pfs_run_nstreams(d), &s);
        val[rep - w] = meta ? s.rate : s.bandwidth / scale;
        sec[rep - w] = s.seconds;
        *bytes = meta ? s.ops : s.bytes;
    }
    return d->reps_done[p] - w;
}

/* The interval beside the mean and median: "mean 812.30 +-2.1% (95% CI, 7
 * reps), median 810.00", the warm-up left out and --reps auto's verdict. */
static void summary_ci(FILE *out, const struct pfs_run_data *d, int p, const struct pfs_stats *st)
{
    struct pfs_phase_ci pc;
    pfs_run_phase_ci(d, p, &pc);
    fprintf(out, "%-10s mean %.2f ", "", st->mean);
    if (isfinite(pc.ci.pct))
        fprintf(out, "+-%.1f%% (95%% CI, %d reps)", pc.ci.pct, pc.measured);
    else
        fprintf(out, "+-n/a (95%% CI, %d rep%s)", pc.measured, pc.measured == 1 ? "" : "s");
    fprintf(out, ", median %.2f", st->median);
    if (pc.warmup)
        fprintf(out, "; %d warm-up left out", pc.warmup);
    if (pc.target >= 0)
        fprintf(out, "; target +-%g%% %s", d->cfg->ci, pc.target ? "met" : "not met");
    fputc('\n', out);
}

void pfs_report_summary(FILE *out, const struct pfs_run_data *d)
{
    const char *u = pfs_units_label(d->cfg->units);
    fprintf(out, "\nsummary over repetitions (aggregate %s; files/s for metadata phases)\n", u);
    /* 100 columns: min .. stddev up to 99,999,999.99, bytes up to 10^14 - 1. */
    fprintf(out, "%-10s %4s %11s %11s %11s %11s %11s %9s %14s\n", "phase", "reps", "min", "max", "mean", "median",
            "stddev", "mean s", "bytes|files");
    double *val = malloc(sizeof(double) * (size_t)(d->reps > 0 ? d->reps : 1));
    double *sec = malloc(sizeof(double) * (size_t)(d->reps > 0 ? d->reps : 1));
    if (!val || !sec) {
        free(val), free(sec);
        return;
    }
    for (int p = 0; p < d->nphases; p++) {
        uint64_t amount = 0;
        int n = phase_series(d, p, val, sec, &amount);
        if (n == 0)
            continue;
        struct pfs_stats st, ss;
        pfs_stats_compute(val, n, &st);
        pfs_stats_compute(sec, n, &ss);
        /* One repetition has no spread: its stddev is n/a, not 0. */
        char sd[32] = "n/a";
        if (n > 1)
            snprintf(sd, sizeof(sd), "%.2f", st.stddev);
        fprintf(out, "%-10s %4d %11.2f %11.2f %11.2f %11.2f %11s %9.4f %14llu\n",
                pfs_phase_name(d->cfg->phases[p]), n, st.min, st.max, st.mean, st.median, sd, ss.mean,
                (unsigned long long)amount);
        summary_ci(out, d, p, &st);
        const int kind = d->cfg->phases[p];
        if (pfs_phase_desc(kind)->unit == PFS_UNIT_SEEKS && d->cfg->transfer > 0) { /* bonnie++'s figure: each seek moves -t bytes */
            const double k = pfs_units_scale(d->cfg->units) / (double)d->cfg->transfer;
            fprintf(out, "%-10s mean %.1f %s, median %.1f %s\n", "", st.mean * k, pfs_phase_rate_unit(kind),
                    st.median * k, pfs_phase_rate_unit(kind));
        }
    }
    free(val), free(sec);
    pfs_report_latency(out, d);
}

/* ---- JSON ---- */

static void json_str(FILE *out, const char *s)
{
    pfs_escape_write(out, PFS_ESC_JSON, s, SIZE_MAX);
}

/* JSON has no NaN or infinity: a figure that is not finite becomes null. */
static void json_num(FILE *out, double v)
{
    if (isfinite(v))
        fprintf(out, "%.17g", v);
    else
        fputs("null", out);
}

/* A string that is absent (NULL: not a job, not a concurrent group) is null. */
static void json_str_or_null(FILE *out, const char *s)
{
    if (s)
        json_str(out, s);
    else
        fputs("null", out);
}

/* A figure that is absent when it is 0 (a size not given, a block size not known) is null. */
static void json_u64_or_null(FILE *out, uint64_t v)
{
    if (v)
        fprintf(out, "%llu", (unsigned long long)v);
    else
        fputs("null", out);
}

/* The stonewall bandwidth exists only under -D in the phases it applies to. */
static int has_stonewall(const struct pfs_run_data *d, int phase, const struct pfs_phase_stat *s)
{
    return d->cfg->deadline > 0 && pfs_phase_has(d->cfg->phases[phase], PFS_PHF_STONEWALL) && s->sw_rate > 0;
}

/* The configuration object: every option describe writes, typed as its table row says. */
struct json_cfg {
    FILE *out;
    int n;
};

static int json_field_sep(void *arg, const struct pfs_field *f)
{
    struct json_cfg *j = arg;
    fputs(j->n++ ? ",\n    " : "\n    ", j->out);
    json_str(j->out, f->key);
    fputs(": ", j->out);
    switch (f->type) {
    case PFS_FIELD_INT:
        fprintf(j->out, "%lld", f->i);
        break;
    case PFS_FIELD_U64:
        fprintf(j->out, "%llu", (unsigned long long)f->u);
        break;
    case PFS_FIELD_DBL:
        json_num(j->out, f->d);
        break;
    default:
        json_str(j->out, f->s);
    }
    return 0;
}

/* A phase's statistics over its measured repetitions (val, n of them, in
 * the report's unit) and the 95% interval of the mean (null for one). */
static void json_phase_summary(FILE *out, const struct pfs_run_data *d, int p, const double *val, int n)
{
    const int meta = pfs_phase_is_meta(d->cfg->phases[p]);
    const double scale = meta ? 1.0 : pfs_units_scale(d->cfg->units);
    struct pfs_stats st;
    pfs_stats_compute(val, n, &st);
    struct pfs_phase_ci pc;
    pfs_run_phase_ci(d, p, &pc);
    fprintf(out, ",\n     \"summary\": {\"unit\": ");
    json_str(out, !meta ? pfs_units_label(d->cfg->units) : pfs_phase_rate_unit(d->cfg->phases[p]));
    fprintf(out, ", \"reps\": %d, \"warmup\": %d", pc.measured, pc.warmup);
    const double sv[] = {st.min, st.max, st.mean, st.median, n > 1 ? st.stddev : NAN, /* one: null */
                         pc.ci.half / scale, pc.ci.pct};
    const char *sk[] = {"min", "max", "mean", "median", "stddev", "ci95_half_width", "ci95_percent"};
    for (int i = 0; i < 7; i++) {
        fprintf(out, ", \"%s\": ", sk[i]);
        json_num(out, sv[i]);
    }
    fprintf(out, ", \"target_met\": %s}", pc.target < 0 ? "null" : pc.target ? "true" : "false");
}

void pfs_report_json(FILE *out, const struct pfs_run_data *d)
{
    const struct pfs_config *c = d->cfg;
    const double scale = pfs_units_scale(c->units);
    const struct {
        const char *key, *val;
    } head[] = {
        {"pfsbench", PFS_VERSION}, {"run_id", d->run_id}, {"status", d->status},   {"error", d->error},
        {"start_time", d->start_iso}, {"end_time", d->end_iso}, {"label", c->label}, {"dir", c->dir},
        {"fs_type", d->fstype}, {"fs_mount_type", d->fs.mount_type}, {"fs_source", d->fs.source},
        {"fs_mount_point", d->fs.mount_point}, {"fs_options", d->fs.options}, {"fs_layout", d->fs.layout},
        {"command_line", d->cmdline},
    };
    for (size_t i = 0; i < sizeof(head) / sizeof(head[0]); i++) {
        fprintf(out, "%s\n  \"%s\": ", i ? "," : "{", head[i].key);
        json_str(out, head[i].val);
    }
    fputs(",\n  \"fs_block_size\": ", out);
    json_u64_or_null(out, d->fs.block_size);
    const struct {
        const char *key, *val;
    } job[] = {
        {"job_file", d->job_path}, {"job_section", d->job_section}, {"job_text", d->job_text},
        {"concurrent_group", d->conc_tag}, {"concurrent_sections", d->conc_tag ? d->conc_sections : NULL},
    };
    for (size_t i = 0; i < sizeof(job) / sizeof(job[0]); i++) {
        fprintf(out, ",\n  \"%s\": ", job[i].key);
        json_str_or_null(out, job[i].val);
    }
    fputs(",\n  \"config\": {", out);
    struct json_cfg jc = {out, 0};
    pfs_config_fields(c, json_field_sep, &jc);
    fputs("\n  }", out);
    fprintf(out, ",\n  \"ranks\": %d,\n  \"nodes\": %d,\n  \"threads\": %d,\n  \"streams\": %d,\n", d->nranks,
            d->nnodes, threads_of(d), pfs_run_nstreams(d));
    fprintf(out, "  \"transfer\": %llu,\n  \"block\": %llu,\n  \"total\": ", (unsigned long long)c->transfer,
            (unsigned long long)c->block);
    json_u64_or_null(out, c->total); /* null: --total not given */
    fputs(",\n  \"kept_transfers\": ", out); /* what each stream's kept file holds (pfsbench.ID.kept); null: none */
    json_u64_or_null(out, d->kept ? d->kept_xfers : 0);
    fputs(",\n", out);
    fprintf(out, "  \"units\": ");
    json_str(out, pfs_units_label(c->units));
    fprintf(out, ",\n  \"unit_bytes_per_s\": %.0f,\n  \"warnings\": [", scale);
    const char *w = d->warnings;
    int first = 1;
    while (*w) {
        const char *nl = strchr(w, '\n');
        size_t n = nl ? (size_t)(nl - w) : strlen(w);
        fputs(first ? "" : ", ", out);
        pfs_escape_write(out, PFS_ESC_JSON, w, n);
        first = 0;
        w += n + (nl != NULL);
    }
    fprintf(out, "],\n  \"phases\": [");
    double *val = malloc(sizeof(double) * (size_t)(d->reps > 0 ? d->reps : 1));
    double *sec = malloc(sizeof(double) * (size_t)(d->reps > 0 ? d->reps : 1));
    for (int p = 0; p < d->nphases && val && sec; p++) {
        const int meta = pfs_phase_is_meta(c->phases[p]);
        fprintf(out, "%s\n    {\"phase\": ", p ? "," : "");
        json_str(out, pfs_phase_name(c->phases[p]));
        fprintf(out, ", \"index\": %d, \"kind\": \"%s\", \"repetitions\": [", p, meta ? "metadata" : "data");
        for (int rep = 0; rep < d->reps_done[p]; rep++) {
            struct pfs_phase_stat s;
            pfs_phase_reduce(pfs_run_times(d, p, rep), pfs_run_nstreams(d), &s);
            struct node_view v;
            if (node_view(d, p, rep, &v) != 0)
                break;
            fprintf(out, "%s\n      {\"rep\": %d, \"warmup\": %s, \"bytes\": %llu, \"ops\": %llu", rep ? "," : "", rep,
                    rep < c->warmup ? "true" : "false", (unsigned long long)s.bytes, (unsigned long long)s.ops);
            const struct {
                const char *key;
                double val;
            } fig[] = {
                {"seconds", s.seconds},         {"bandwidth_bytes_per_s", s.bandwidth},
                {"bandwidth", s.bandwidth / scale}, {"ops_per_s", s.rate},
                {"utilization", s.utilization},
                {"stonewall_bandwidth_bytes_per_s", has_stonewall(d, p, &s) ? s.sw_bandwidth : NAN},
                {"stonewall_ops_per_s", has_stonewall(d, p, &s) ? s.sw_rate : NAN},
            };
            for (size_t i = 0; i < sizeof(fig) / sizeof(fig[0]); i++) {
                fprintf(out, ", \"%s\": ", fig[i].key);
                json_num(out, fig[i].val);
            }
            if (find_matched(d, p, rep) >= 0)
                fprintf(out, ", \"find_examined\": %llu, \"find_matched\": %lld", (unsigned long long)s.ops,
                        find_matched(d, p, rep));
            pfs_report_lat_json(out, d, p, rep);
            fprintf(out, ", \"nodes\": [");
            for (int n = 0; n < d->nnodes; n++) {
                fprintf(out, "%s{\"node\": %d, \"host\": ", n ? ", " : "", n);
                json_str(out, d->hosts[first_rank_on(d, n)]);
                fprintf(out, meta ? ", \"ops_per_s\": " : ", \"bandwidth_bytes_per_s\": ");
                json_num(out, v.val[n]);
                fprintf(out, ", \"straggler\": %s}", v.flag[n] ? "true" : "false");
            }
            fputc(']', out);
            pfs_report_cache_json(out, d, p, rep);
            fputc('}', out);
            free(v.val), free(v.flag);
        }
        fprintf(out, "]");
        uint64_t amount = 0;
        int n = phase_series(d, p, val, sec, &amount);
        if (n > 0)
            json_phase_summary(out, d, p, val, n);
        fprintf(out, "}");
    }
    free(val), free(sec);
    fprintf(out, "\n  ]\n}\n");
}

/* ---- CSV ---- */

static void csv_str(FILE *out, const char *s)
{
    pfs_escape_write(out, PFS_ESC_CSV, s, SIZE_MAX);
}

/* The describe keys that are columns already (transfer, block, label). */
static int csv_has_column(const char *key)
{
    return !strcmp(key, "transfer") || !strcmp(key, "block") || !strcmp(key, "label");
}

static int csv_field_head(void *arg, const struct pfs_field *f)
{
    if (!csv_has_column(f->key)) {
        fputc(',', (FILE *)arg);
        csv_str(arg, f->key);
    }
    return 0;
}

/* A configuration value as describe writes it (sizes in bytes, seconds as %g). */
static int csv_field(void *arg, const struct pfs_field *f)
{
    if (!csv_has_column(f->key)) {
        fputc(',', (FILE *)arg);
        csv_str(arg, f->s);
    }
    return 0;
}

/* The last columns of a row: is_warmup, then its phase's interval (empty where there is none). */
static void csv_ci(FILE *out, const struct pfs_run_data *d, int p, int rep)
{
    struct pfs_phase_ci pc;
    pfs_run_phase_ci(d, p, &pc);
    fprintf(out, ",%d,%d,", rep < d->cfg->warmup, pc.measured);
    if (isfinite(pc.ci.half))
        fprintf(out, "%.9g", pc.ci.half);
    fputc(',', out);
    if (isfinite(pc.ci.pct))
        fprintf(out, "%.6g", pc.ci.pct);
    fputc(',', out);
    if (pc.target >= 0)
        fprintf(out, "%d", pc.target);
}

void pfs_report_csv(FILE *out, const struct pfs_run_data *d)
{
    const struct pfs_config *c = d->cfg;
    const double scale = pfs_units_scale(c->units);
    char ucol[32];
    snprintf(ucol, sizeof(ucol), "bandwidth_%s", pfs_units_label(c->units));
    for (char *p = ucol; *p; p++)
        if (*p == '/')
            *p = 'p';
    fprintf(out, "run_id,label,status,phase,rep,ranks,nodes,threads,transfer,block,bytes,ops,seconds,"
                 "bandwidth_bytes_per_s,%s,KBps,ops_per_s,utilization,stonewall_bandwidth_bytes_per_s,"
                 "fs_type,fs_mount_type,fs_source,fs_options,fs_layout", ucol);
    pfs_report_lat_csv_head(out); /* new columns go at the end: old readers keep their indices */
    /* Then what reproduces the run: its command line, times, job section,
     * and every option describe writes (those not already a column). */
    fputs(",start_time,end_time,command_line,job_file,job_section,concurrent_group", out);
    pfs_config_fields(c, csv_field_head, out);
    /* After the options: a repetition's warm-up flag, its phase's interval
     * (bytes/s, files/s in a metadata phase; empty for one measured rep). */
    fputs(",is_warmup,reps_measured,ci95_half_width,ci95_percent,target_met", out);
    fputs(",find_matched", out); /* a find's matches (its ops: the files examined); empty for other phases */
    pfs_report_cache_csv_head(out);
    fputc('\n', out);
    for (int p = 0; p < d->nphases; p++)
        for (int rep = 0; rep < d->reps_done[p]; rep++) {
            struct pfs_phase_stat s;
            pfs_phase_reduce(pfs_run_times(d, p, rep), pfs_run_nstreams(d), &s);
            csv_str(out, d->run_id);
            fputc(',', out);
            csv_str(out, c->label);
            fputc(',', out);
            csv_str(out, d->status);
            fprintf(out, ",%s,%d,%d,%d,%d,%llu,%llu,%llu,%llu,%.9g,%.9g,%.9g,%.9g,%.9g,%.6f,",
                    pfs_phase_name(c->phases[p]), rep, d->nranks, d->nnodes, threads_of(d),
                    (unsigned long long)c->transfer, (unsigned long long)c->block, (unsigned long long)s.bytes,
                    (unsigned long long)s.ops, s.seconds, s.bandwidth, s.bandwidth / scale, s.bandwidth / 1024.0,
                    s.rate, s.utilization);
            if (has_stonewall(d, p, &s)) /* empty: no stonewall (-D) in this phase */
                fprintf(out, "%.9g", s.sw_bandwidth);
            const char *fsf[] = {d->fstype, d->fs.mount_type, d->fs.source, d->fs.options, d->fs.layout};
            for (size_t i = 0; i < sizeof(fsf) / sizeof(fsf[0]); i++) {
                fputc(',', out);
                csv_str(out, fsf[i]);
            }
            pfs_report_lat_csv(out, d, p, rep);
            const char *more[] = {d->start_iso, d->end_iso, d->cmdline, d->job_path, d->job_section, d->conc_tag};
            for (size_t i = 0; i < sizeof(more) / sizeof(more[0]); i++) {
                fputc(',', out);
                csv_str(out, more[i]);
            }
            pfs_config_fields(c, csv_field, out);
            csv_ci(out, d, p, rep);
            fputc(',', out);
            if (find_matched(d, p, rep) >= 0)
                fprintf(out, "%lld", find_matched(d, p, rep));
            pfs_report_cache_csv(out, d, p, rep);
            fputc('\n', out);
        }
}
