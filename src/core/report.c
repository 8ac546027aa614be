/* The text report. Every figure comes from pfs_phase_reduce/pfs_node_reduce
 * over the recorded times; units are printed with every number. */
#include "pfs/report.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void pfs_run_warn(struct pfs_run_data *d, const char *fmt, ...)
{
    size_t n = strlen(d->warnings);
    if (n + 2 >= sizeof(d->warnings))
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->warnings + n, sizeof(d->warnings) - n - 1, fmt, ap);
    va_end(ap);
    strncat(d->warnings, "\n", sizeof(d->warnings) - strlen(d->warnings) - 1);
}

void pfs_report_header(FILE *out, const struct pfs_run_data *d)
{
    const struct pfs_config *c = d->cfg;
    char t[32], b[32], tot[32];
    pfs_format_size(c->transfer, t, sizeof(t));
    pfs_format_size(c->block, b, sizeof(b));
    pfs_format_size(c->total, tot, sizeof(tot));
    int per = d->nranks / d->nnodes;
    fprintf(out, "pfsbench %s  run %s  %s\n", PFS_VERSION, d->run_id, d->start_iso);
    fprintf(out, "ranks        %d on %d node%s (%s%d per node)\n", d->nranks, d->nnodes,
            d->nnodes == 1 ? "" : "s", d->nranks % d->nnodes ? "uneven, about " : "", per);
    fprintf(out, "target       %s (%s)\n", c->dir, d->fstype);
    fprintf(out, "access       %s%s, api %s%s%s%s%s\n",
            c->shared ? "one shared file, " : "file per process",
            c->shared ? (c->layout == PFS_LAYOUT_STRIDED ? "strided" : "segmented") : "",
            c->api == PFS_API_MPIIO ? "mpiio" : "posix", c->collective ? " collective" : "",
            c->direct ? ", O_DIRECT" : "", c->random ? ", random order" : ", sequential",
            c->reorder ? ", reads reordered" : "");
    fprintf(out, "sizes        transfer %s, block %s per rank, total %s\n", t, b, tot);
    fprintf(out, "phases       ");
    for (int i = 0; i < c->nphases; i++)
        fprintf(out, "%s%s", i ? "," : "", pfs_phase_name(c->phases[i]));
    fprintf(out, " x %d repetition%s\n", c->reps, c->reps == 1 ? "" : "s");
    fprintf(out, "timed region open .. %s%sclose, barrier before open and after close%s\n",
            "transfers .. ", c->fsync ? "fsync .. " : "",
            c->deadline > 0 ? ", stonewall" : "");
    if (c->deadline > 0)
        fprintf(out, "stonewall    %g s, then wear-out to the largest transfer count\n", c->deadline);
    if (c->verify)
        fprintf(out, "verify       every byte; pattern time taken out of the timed region\n");
    fprintf(out, "units        MiB/s = 2^20 bytes/s; KB/s = 1024 bytes/s (the seeds' unit)\n");
    if (d->warnings[0]) {
        const char *p = d->warnings;
        while (*p) {
            const char *nl = strchr(p, '\n');
            int n = nl ? (int)(nl - p) : (int)strlen(p);
            fprintf(out, "warning      %.*s\n", n, p);
            p += n + (nl != NULL);
        }
    }
}

void pfs_report_columns(FILE *out)
{
    fprintf(out, "\n%-8s %4s %12s %14s %10s %6s  %s\n", "phase", "rep", "MiB/s", "KB/s", "seconds",
            "util", "slowest / fastest node (MiB/s)");
}

void pfs_report_placement(FILE *out, const struct pfs_run_data *d)
{
    fprintf(out, "placement (rank node host clock-correction-us +/-us)\n");
    for (int r = 0; r < d->nranks; r++)
        fprintf(out, "  %5d %4d %-24s %10.1f %8.1f\n", r, d->node_of_rank[r], d->hosts[r],
                d->clock_corr ? d->clock_corr[r] * 1e6 : 0.0, d->clock_unc ? d->clock_unc[r] * 1e6 : 0.0);
}

static int first_rank_on(const struct pfs_run_data *d, int node)
{
    for (int r = 0; r < d->nranks; r++)
        if (d->node_of_rank[r] == node)
            return r;
    return 0;
}

void pfs_report_row(FILE *out, const struct pfs_run_data *d, int phase, int rep)
{
    const struct pfs_times *t = pfs_run_times(d, phase, rep);
    struct pfs_phase_stat s;
    pfs_phase_reduce(t, d->nranks, &s);
    int nn = d->nnodes;
    uint64_t *nb = calloc((size_t)nn, sizeof(*nb));
    double *ns = calloc((size_t)nn, sizeof(*ns)), *nbw = calloc((size_t)nn, sizeof(*nbw));
    int *flag = calloc((size_t)nn, sizeof(*flag));
    if (!nb || !ns || !nbw || !flag) {
        free(nb), free(ns), free(nbw), free(flag);
        return;
    }
    pfs_node_reduce(t, d->node_of_rank, d->nranks, nn, nb, ns, nbw);
    int slow = 0, fast = 0;
    for (int n = 1; n < nn; n++) {
        if (nbw[n] < nbw[slow])
            slow = n;
        if (nbw[n] > nbw[fast])
            fast = n;
    }
    int nstrag = pfs_stragglers(nbw, nn, d->cfg->straggler, flag);
    fprintf(out, "%-8s %4d %12.2f %14.0f %10.4f %6.3f  node %d %.2f / node %d %.2f%s\n",
            pfs_phase_name(d->cfg->phases[phase]), rep, s.bandwidth / PFS_MIB, s.bandwidth / 1024.0,
            s.seconds, s.utilization, slow, nbw[slow] / PFS_MIB, fast, nbw[fast] / PFS_MIB,
            nstrag ? "  STRAGGLER" : "");
    if (s.sw_bandwidth > 0)
        fprintf(out, "%-8s %4s %12.2f %14.0f  (up to the stonewall)\n", "", "", s.sw_bandwidth / PFS_MIB,
                s.sw_bandwidth / 1024.0);
    for (int n = 0; n < nn; n++)
        if (flag[n])
            fprintf(out, "         straggler: node %d (%s) %.2f MiB/s, below %.2f x the median node\n", n,
                    d->hosts[first_rank_on(d, n)],
                    nbw[n] / PFS_MIB, d->cfg->straggler);
    free(nb), free(ns), free(nbw), free(flag);
}

void pfs_report_summary(FILE *out, const struct pfs_run_data *d)
{
    fprintf(out, "\nsummary over repetitions (aggregate bandwidth)\n");
    fprintf(out, "%-8s %4s %12s %12s %12s %12s %12s %10s %14s\n", "phase", "reps", "min MiB/s", "max MiB/s",
            "mean MiB/s", "median MiB/s", "stddev MiB/s", "mean s", "bytes/rep");
    double *bw = malloc(sizeof(double) * (size_t)(d->reps > 0 ? d->reps : 1));
    double *sec = malloc(sizeof(double) * (size_t)(d->reps > 0 ? d->reps : 1));
    if (!bw || !sec) {
        free(bw), free(sec);
        return;
    }
    for (int p = 0; p < d->nphases; p++) {
        int n = d->reps_done[p];
        if (n == 0)
            continue;
        uint64_t bytes = 0;
        for (int rep = 0; rep < n; rep++) {
            struct pfs_phase_stat s;
            pfs_phase_reduce(pfs_run_times(d, p, rep), d->nranks, &s);
            bw[rep] = s.bandwidth / PFS_MIB;
            sec[rep] = s.seconds;
            bytes = s.bytes;
        }
        struct pfs_stats st, ss;
        pfs_stats_compute(bw, n, &st);
        pfs_stats_compute(sec, n, &ss);
        fprintf(out, "%-8s %4d %12.2f %12.2f %12.2f %12.2f %12.2f %10.4f %14llu\n",
                pfs_phase_name(d->cfg->phases[p]), n, st.min, st.max, st.mean, st.median, st.stddev,
                ss.mean, (unsigned long long)bytes);
    }
    free(bw), free(sec);
}
