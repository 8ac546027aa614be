/* The IOR-shaped and mdtest-shaped reports (--format ior, --format mdtest;
 * the defaults of `pfsbench ior` and `pfsbench mdtest`): IOR's "Results:"
 * table, its "Max Write:"/"Max Read:" lines and "Summary of all tests:",
 * and mdtest's "SUMMARY rate:" and "SUMMARY time:" tables with its
 * stonewall lines, in those tools' column widths and decimals, so that a
 * grep or IO500's scripts written for them read these. Every number is one
 * of the run's figures (d->fig); nothing is computed here but unit
 * changes. Where pfsbench has no figure for a column, it is printed as IOR
 * prints a missing one ("-", "NA"); docs/usage.md ("Front-ends") lists
 * those columns. */
#include "report_int.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "pfs/backend.h"
#include "pfs/phase.h"

#define IOR_MB 1000000.0

/* IOR's number in a 10-wide left-justified field: 6 decimals below 1, 2
 * below 3600, none above; a missing one (negative, or not finite) "-". */
static void ior_num(FILE *out, double v, const char *after)
{
    if (!isfinite(v) || v < 0)
        fprintf(out, "   -      %s", after);
    else
        fprintf(out, "%-10.*f%s", v < 1 ? 6 : v < 3600 ? 2 : 0, v, after);
}

/* The phases IOR reports, by the name -p gives them: write and read
 * (pfsbench's rewrite and reread are runs of the same kind, so named). */
static const char *ior_access(int phase)
{
    static const char *const data[] = {"write", "read", "rewrite", "reread"};
    const char *n = pfs_phase_name(phase);
    for (size_t i = 0; i < sizeof(data) / sizeof(data[0]); i++)
        if (strcmp(n, data[i]) == 0)
            return data[i];
    return NULL;
}

static int is_phase(int phase, const char *name)
{
    return strcmp(pfs_phase_name(phase), name) == 0;
}

/* IOR's -a name: the backend's, in capitals (POSIX, MPIIO, ...). */
static void ior_api_name(const struct pfs_config *c, char *buf, size_t len)
{
    const char *n = pfs_backend_name(c->api);
    size_t i = 0;
    for (; n && n[i] && i + 1 < len; i++)
        buf[i] = (char)toupper((unsigned char)n[i]);
    buf[i] = '\0';
}

/* IOR's -A: the label's "refnum=N" (what `pfsbench ior -A N` sets), else 0. */
static long ior_refnum(const struct pfs_config *c)
{
    const char *p = strstr(c->label, "refnum=");
    return p ? strtol(p + 7, NULL, 10) : 0;
}

/* IOR's sizes in its header: "%.2f GiB|MiB|KiB" or "N bytes". */
static void ior_human(FILE *out, const char *key, uint64_t b)
{
    const double v = (double)b;
    if (b >= (1ULL << 30))
        fprintf(out, "%-20s: %.2f GiB\n", key, v / (1ULL << 30));
    else if (b >= (1ULL << 20))
        fprintf(out, "%-20s: %.2f MiB\n", key, v / (1ULL << 20));
    else if (b >= 1024)
        fprintf(out, "%-20s: %.2f KiB\n", key, v / 1024);
    else
        fprintf(out, "%-20s: %llu bytes\n", key, (unsigned long long)b);
}

/* IOR's -s: --segments; a shared file's strided layout is IOR's -s b/t
 * -b t (segments of one transfer, as `pfsbench ior` translates -b = -t). */
static uint64_t ior_segcnt(const struct pfs_config *c)
{
    if (c->shared && c->layout == PFS_LAYOUT_STRIDED && c->transfer > 0)
        return c->block / c->transfer;
    return (uint64_t)(c->segments > 1 ? c->segments : 1);
}

/* IOR's -b: a segment's share of the block (pfsbench's block per stream is
 * IOR's -s x -b). */
static uint64_t ior_block(const struct pfs_config *c)
{
    return c->block / ior_segcnt(c);
}

/* IOR's -Z (pfsbench's -C with --reorder-seed): its reorderTasksRandom. */
static int ior_reordrand(const struct pfs_config *c)
{
    return c->reorder && c->reorder_seed >= 0;
}

/* IOR's "ordering inter file" and the lines after it, in its wording:
 * -C "constant task offset", -Z "random task offset" and its -X seed,
 * each with its -Q "task offset". */
static void ior_inter_file(FILE *out, const struct pfs_config *c)
{
    if (!c->reorder) {
        fprintf(out, "%-20s: %s\n", "ordering inter file", "no tasks offsets");
        return;
    }
    fprintf(out, "%-20s: %s\n", "ordering inter file",
            ior_reordrand(c) ? "random task offset" : "constant task offset");
    fprintf(out, "%-20s: %d\n", "task offset", c->reorder_nodes);
    if (ior_reordrand(c))
        fprintf(out, "%-20s: %d\n", "reorder random seed", c->reorder_seed);
}

static void ior_header(FILE *out, const struct pfs_run_data *d, const char *api)
{
    const struct pfs_config *c = d->cfg;
    char esc[1024];
    const int n = pfs_run_nstreams(d);
    fprintf(out, "pfsbench-%s: IOR-shaped report of run %s\n", PFS_VERSION,
            pfs_report_text_of(d->run_id, esc, sizeof(esc)));
    fprintf(out, "%-20s: %s\n", "Began", d->start_iso);
    fprintf(out, "%-20s: %s\n", "Command line", pfs_report_text_of(d->cmdline ? d->cmdline : "", esc, sizeof(esc)));
    fprintf(out, "%-20s: Linux %s\n", "Machine", d->hosts ? pfs_report_text_of(d->hosts[0], esc, sizeof(esc)) : "");
    fprintf(out, "%-20s: %d\n", "TestID", 0);
    fprintf(out, "%-20s: %s\n", "StartTime", d->start_iso);
    fprintf(out, "%-20s: %s\n", "Path", pfs_report_text_of(c->dir, esc, sizeof(esc)));
    fprintf(out, "\nOptions: \n");
    fprintf(out, "%-20s: %s\n", "api", api);
    fprintf(out, "%-20s: %s\n", "access", c->shared ? "single-shared-file" : "file-per-process");
    fprintf(out, "%-20s: %s\n", "type", c->collective ? "collective" : "independent");
    fprintf(out, "%-20s: %s\n", "ordering in a file", c->random ? "random" : "sequential");
    ior_inter_file(out, c);
    fprintf(out, "%-20s: %d\n", "tasks", n);
    fprintf(out, "%-20s: %d\n", "clients per node", d->nnodes > 0 ? n / d->nnodes : n);
    fprintf(out, "%-20s: %d\n", "repetitions", d->reps);
    ior_human(out, "xfersize", c->transfer);
    ior_human(out, "blocksize", ior_block(c));
    ior_human(out, "aggregate filesize", c->block * (uint64_t)n);
}

/* One row of "Results:": a phase's repetition. bw is the bytes over the
 * phase's time (open to close, IOR's totalTime), IOPS the transfers over
 * wr/rd(s) (xfer_rate, IOR's accessTime), Latency the mean of the op
 * latency when recorded (-l); open, wr/rd and close the parts of the span
 * IOR's way (each from its earliest start to its latest end over the
 * streams), with fsync (-e) in close, where IOR has it in wr/rd; total(s)
 * the phase's time. */
static void ior_row(FILE *out, const struct pfs_run_data *d, const char *access, int rep, const struct pfs_rep_figs *r)
{
    const struct pfs_config *c = d->cfg;
    const struct pfs_lat_sum *l = &r->lat_sum[PFS_LAT_OP];
    fprintf(out, "%-10s", access);
    ior_num(out, r->s.bandwidth / PFS_MIB, " ");
    ior_num(out, r->xfer_rate, " ");
    ior_num(out, r->lat && l->count ? l->mean_ns / 1e9 : -1, "  ");
    ior_num(out, (double)ior_block(c) / 1024, " ");
    ior_num(out, (double)c->transfer / 1024, " ");
    ior_num(out, r->open_s, " ");
    ior_num(out, r->xfer_s, " ");
    ior_num(out, r->close_s, " ");
    ior_num(out, r->s.seconds, " ");
    fprintf(out, "%-4d\n", rep);
}

/* A standard deviation of one measured repetition is no figure (NaN); IOR
 * and mdtest print 0 there (their population deviation of one value). */
static double sd_or_0(double sd)
{
    return isfinite(sd) ? sd : 0;
}

/* One line of "Summary of all tests:" for phase p, over its measured
 * repetitions (the figures' statistics; the standard deviation is the
 * sample's, IOR's the population's). Stonewall(s) and Stonewall(MiB) as
 * IOR fills them (with -D and its wear-out, pfsbench's only kind), over
 * the repetitions the stonewall stopped: the mean seconds to it, and the
 * mean stream's MiB by then over those seconds (IOR's: a MiB/s despite
 * the name); NA when it stopped none. */
static void ior_summary_line(FILE *out, const struct pfs_run_data *d, int p, const char *access, const char *api)
{
    const struct pfs_config *c = d->cfg;
    const struct pfs_phase_figs *pf = &d->fig.phase[p];
    const int n = pfs_run_nstreams(d);
    fprintf(out, "%-9s ", access);
    fprintf(out, "%10.2f %10.2f %10.2f %10.2f ", pf->bw.max / PFS_MIB, pf->bw.min / PFS_MIB, pf->bw.mean / PFS_MIB,
            sd_or_0(pf->bw.stddev) / PFS_MIB);
    fprintf(out, "%10.2f %10.2f %10.2f %10.2f ", pf->rate.max, pf->rate.min, pf->rate.mean, sd_or_0(pf->rate.stddev));
    fprintf(out, "%10.5f ", pf->seconds.mean);
    if (pf->sw_reps > 0)
        fprintf(out, "%10.2f %13.2f ", pf->sw_mean_seconds, pf->sw_stream_bw / PFS_MIB);
    else
        fprintf(out, "%10s %13s ", "NA", "NA");
    fprintf(out, "%5d %6d %3d %4d %3d %5d %8d %9d %4d %6llu ", 0, n, d->nnodes > 0 ? n / d->nnodes : n, pf->bw.n,
            !c->shared, c->reorder && !ior_reordrand(c), c->reorder ? c->reorder_nodes : 1, ior_reordrand(c),
            ior_reordrand(c) ? c->reorder_seed : 0, (unsigned long long)ior_segcnt(c));
    fprintf(out, "%8llu %8llu %9.1f %3s %6ld\n", (unsigned long long)ior_block(c), (unsigned long long)c->transfer,
            (double)pf->amount / PFS_MIB, api, ior_refnum(c));
}

void pfs_report_ior(FILE *out, const struct pfs_run_data *d)
{
    char api[32];
    ior_api_name(d->cfg, api, sizeof(api));
    ior_header(out, d, api);
    fprintf(out, "\nResults: \n\n");
    fprintf(out, "access    bw(MiB/s)  IOPS       Latency(s)  block(KiB) xfer(KiB)  open(s)    wr/rd(s)   close(s)   "
                 "total(s)   iter\n");
    fprintf(out, "------    ---------  ----       ----------  ---------- ---------  --------   --------   --------   "
                 "--------   ----\n");
    const int reps = d->reps > 0 ? d->reps : 1;
    for (int rep = 0; rep < reps; rep++) /* IOR's order: each iteration's phases */
        for (int p = 0; p < d->nphases; p++) {
            const struct pfs_rep_figs *r = pfs_figs_rep(&d->fig, p, rep);
            const char *a = ior_access(d->cfg->phases[p]);
            if (a && r)
                ior_row(out, d, a, rep, r);
        }
    for (int p = 0; p < d->nphases; p++) {
        const struct pfs_phase_figs *pf = &d->fig.phase[p];
        if (is_phase(d->cfg->phases[p], "write") && pf->bw.n > 0)
            fprintf(out, "Max Write: %.2f MiB/sec (%.2f MB/sec)\n", pf->bw.max / PFS_MIB, pf->bw.max / IOR_MB);
        else if (is_phase(d->cfg->phases[p], "read") && pf->bw.n > 0)
            fprintf(out, "Max Read:  %.2f MiB/sec (%.2f MB/sec)\n", pf->bw.max / PFS_MIB, pf->bw.max / IOR_MB);
    }
    fprintf(out, "\nSummary of all tests:\n");
    fprintf(out, "%-9s %10s %10s %10s %10s %10s %10s %10s %10s %10s", "Operation", "Max(MiB)", "Min(MiB)", "Mean(MiB)",
            "StdDev", "Max(OPs)", "Min(OPs)", "Mean(OPs)", "StdDev", "Mean(s)");
    fprintf(out, " Stonewall(s) Stonewall(MiB) Test# #Tasks tPN reps fPP reord reordoff reordrand seed segcnt ");
    fprintf(out, "%8s %8s %9s %5s RefNum\n", " blksiz", "xsize", "aggs(MiB)", "API");
    for (int p = 0; p < d->nphases; p++) {
        const char *a = ior_access(d->cfg->phases[p]);
        if (a && d->fig.phase && d->fig.phase[p].bw.n > 0)
            ior_summary_line(out, d, p, a, api);
    }
    fprintf(out, "%-20s: %s\n", "Finished", d->end_iso);
}

/* mdtest's row names (padded to its column) and the section each is in:
 * 0 directories (-D), 1 files, 2 the tree. */
static const struct {
    const char *phase;
    int section;
    const char *name;
} md_rows[] = {
    {"mkdir", 0, "Directory creation"}, {"stat-dirs", 0, "Directory stat"}, {"rmdir", 0, "Directory removal"},
    {"create", 1, "File creation"},     {"stat", 1, "File stat"},           {"read-files", 1, "File read"},
    {"delete", 1, "File removal"},      {"mkdir", 2, "Tree creation"},      {"rmdir", 2, "Tree removal"},
};

static int md_phase_index(const struct pfs_run_data *d, const char *name)
{
    for (int p = 0; p < d->nphases; p++)
        if (is_phase(d->cfg->phases[p], name))
            return p;
    return -1;
}

/* Which sections mdtest would print: files when a file phase ran; the
 * directories when none did and the run is not the tree alone (mkdir and
 * rmdir of a --depth tree: mdtest's -n 0). The tree's rows always. */
static void md_sections(const struct pfs_config *c, int *files, int *dirs)
{
    *files = 0;
    int stat_dirs = 0;
    for (int p = 0; p < c->nphases; p++) {
        for (size_t i = 0; i < sizeof(md_rows) / sizeof(md_rows[0]); i++)
            *files |= md_rows[i].section == 1 && is_phase(c->phases[p], md_rows[i].phase);
        stat_dirs |= is_phase(c->phases[p], "stat-dirs");
    }
    *dirs = !*files && (stat_dirs || c->md_depth == 0);
}

/* Whether the mdtest-shaped tables have a row with the figures of a phase
 * of this kind (md_table's choice): mkdir and rmdir always (the tree's, or
 * the directories'), the file rows' phases, stat-dirs with the directories. */
static int md_shows(const struct pfs_config *c, int kind)
{
    int files, dirs;
    md_sections(c, &files, &dirs);
    for (size_t i = 0; i < sizeof(md_rows) / sizeof(md_rows[0]); i++)
        if (is_phase(kind, md_rows[i].phase) &&
            (md_rows[i].section == 2 || (md_rows[i].section == 1 && files) || (md_rows[i].section == 0 && dirs)))
            return 1;
    return 0;
}

size_t pfs_report_unshown(const struct pfs_config *c, char *buf, size_t len)
{
    size_t n = 0;
    if (len)
        buf[0] = '\0';
    if (c->format != PFS_FORMAT_IOR && c->format != PFS_FORMAT_MDTEST)
        return 0;
    for (int p = 0; p < c->nphases; p++) {
        const int k = c->phases[p];
        int seen = 0; /* listings of this phase before this one */
        for (int q = 0; q < p; q++)
            seen += c->phases[q] == k;
        /* IOR's table has a row per listing; mdtest's a row per phase, the
         * first listing's: a later one is named once, "(listed again)". */
        const int skip = c->format == PFS_FORMAT_IOR ? seen || ior_access(k) != NULL
                         : seen                      ? seen > 1 || !md_shows(c, k)
                                                     : md_shows(c, k);
        if (skip)
            continue;
        const int w = snprintf(buf + n, n < len ? len - n : 0, "%s%s%s", n ? ", " : "", pfs_phase_name(k),
                               seen ? " (listed again)" : "");
        n += w > 0 ? (size_t)w : 0;
    }
    return n;
}

/* mdtest's row for a create the stonewall stopped, after the file rows:
 * over those repetitions, the files made by the stonewall / the seconds to
 * it, or those seconds, summed (mdtest's "Mean" there is that sum). */
static void md_stonewall_row(FILE *out, const struct pfs_run_data *d, int time)
{
    const int p = md_phase_index(d, "create");
    if (p < 0 || !d->fig.phase || d->fig.phase[p].sw_reps == 0)
        return;
    const struct pfs_phase_figs *pf = &d->fig.phase[p];
    fprintf(out, "   %-26s: %14s %14s %14.3f %14s\n", "File create (stonewall)", "NA", "NA",
            time ? pf->sw_seconds : pf->sw_rate, "NA");
}

/* One table: rates (files/s, the figures' rate) or times (the phase's
 * seconds) over the measured repetitions; a phase not run is 0, as mdtest
 * prints it. */
static void md_table(FILE *out, const struct pfs_run_data *d, int time, int iters)
{
    int files, dirs;
    md_sections(d->cfg, &files, &dirs);
    fprintf(out, "\nSUMMARY %s: (of %d iterations)\n", time ? "time" : "rate", iters);
    fprintf(out, "   Operation                      Max            Min           Mean        Std Dev\n");
    fprintf(out, "   ---------                      ---            ---           ----        -------\n");
    for (size_t i = 0; i < sizeof(md_rows) / sizeof(md_rows[0]); i++) {
        const int sec = md_rows[i].section;
        if (sec == 2 && i > 0 && md_rows[i - 1].section == 1 && files)
            md_stonewall_row(out, d, time);
        if ((sec == 0 && !dirs) || (sec == 1 && !files))
            continue;
        const int tree_of_dirs = sec == 2 && dirs; /* -D: mkdir and rmdir are the directories' rows */
        const int p = tree_of_dirs ? -1 : md_phase_index(d, md_rows[i].phase);
        struct pfs_stats s = {0};
        if (p >= 0 && d->fig.phase && d->fig.phase[p].rate.n > 0)
            s = time ? d->fig.phase[p].seconds : d->fig.phase[p].rate;
        char name[32];
        snprintf(name, sizeof(name), "%-26s:", md_rows[i].name);
        fprintf(out, "   %s %14.3f %14.3f %14.3f %14.3f\n", name, s.max, s.min, s.mean, sd_or_0(s.stddev));
    }
}

/* mdtest's line for each iteration whose create the stonewall stopped
 * (the measured repetitions): the files the streams had made then, fewest,
 * most (the wear-out's count) and mean. */
static void md_stonewall_lines(FILE *out, const struct pfs_run_data *d)
{
    const int p = md_phase_index(d, "create");
    for (int rep = 0; p >= 0 && rep < pfs_figs_reps(&d->fig, p); rep++) {
        const struct pfs_rep_figs *r = pfs_figs_rep(&d->fig, p, rep);
        if (r && r->stonewall && !r->warmup)
            fprintf(out, "Continue stonewall hit min: %llu max: %llu avg: %.1f \n",
                    (unsigned long long)r->sw_stream_min, (unsigned long long)r->sw_stream_max, r->sw_stream_mean);
    }
}

void pfs_report_mdtest(FILE *out, const struct pfs_run_data *d)
{
    char esc[1024];
    int iters = 0;
    for (int p = 0; p < d->nphases && d->fig.phase; p++)
        iters = d->fig.phase[p].rate.n > iters ? d->fig.phase[p].rate.n : iters;
    fprintf(out, "-- started at %s --\n\n", d->start_iso);
    fprintf(out, "pfsbench-%s (mdtest-shaped report of run %s) was launched with %d total task(s) on %d node(s)\n",
            PFS_VERSION, pfs_report_text_of(d->run_id, esc, sizeof(esc)), pfs_run_nstreams(d), d->nnodes);
    fprintf(out, "Command line used: %s\n", pfs_report_text_of(d->cmdline ? d->cmdline : "", esc, sizeof(esc)));
    fprintf(out, "Path: %s\n", pfs_report_text_of(d->cfg->dir, esc, sizeof(esc)));
    md_stonewall_lines(out, d);
    md_table(out, d, 0, iters);
    md_table(out, d, 1, iters);
    fprintf(out, "-- finished at %s --\n", d->end_iso);
}
