/* IOzone's throughput-mode lines from the run's figures (pfs/report_iozone.h).
 * IOzone prints them tab-aligned, as here, e.g.
 *	Children see throughput for  2 initial writers 	=  123456.78 kB/sec */
#include <string.h>

#include "pfs/phase.h"
#include "pfs/report_iozone.h"

#define KB 1024.0

void pfs_report_iozone_block(FILE *out, const char *test, int procs, const struct pfs_rep_figs *r)
{
    /* IOzone pads its test names with tabs so that "=" lines up. */
    const char *pad = strlen(test) < 8 ? " \t\t" : " \t";
    fprintf(out, "\tChildren see throughput for %2d %s%s= %10.2f kB/sec\n", procs, test, pad, r->stream_bw_sum / KB);
    fprintf(out, "\tParent sees throughput for %2d %s%s= %10.2f kB/sec\n", procs, test, pad, r->s.bandwidth / KB);
    fprintf(out, "\tMin throughput per process \t\t\t= %10.2f kB/sec \n", r->stream_bw_min / KB);
    fprintf(out, "\tMax throughput per process \t\t\t= %10.2f kB/sec\n", r->stream_bw_max / KB);
    fprintf(out, "\tAvg throughput per process \t\t\t= %10.2f kB/sec\n", r->stream_bw_mean / KB);
    fprintf(out, "\tMin xfer \t\t\t\t\t= %10.2f kB\n", (double)r->stream_bytes_min / KB);
}

const char *pfs_report_iozone_test(const struct pfs_run_data *d, int p)
{
    const struct pfs_phase_ops *ops = pfs_phase_desc(d->cfg->phases[p]);
    return ops ? ops->iozone : NULL;
}

void pfs_report_iozone(FILE *out, const struct pfs_run_data *d)
{
    for (int p = 0; p < d->nphases; p++) {
        const char *test = pfs_report_iozone_test(d, p);
        for (int rep = 0; test && rep < pfs_figs_reps(&d->fig, p); rep++) {
            const struct pfs_rep_figs *r = pfs_figs_rep(&d->fig, p, rep);
            if (!r || r->warmup)
                continue;
            fputc('\n', out);
            pfs_report_iozone_block(out, test, pfs_run_nstreams(d), r);
        }
    }
}
