/* Interference of a concurrent group (`interference = 1`): a section's
 * figures at the end of a run, its together run's ratios to its run
 * alone, the QoS verdict, and the text lines. concurrent.c runs the rounds
 * and exchanges the figures among the group's leaders; the arithmetic is
 * pfs/interfere.h's. */
#include "driver.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pfs/interfere.h"

/* record.c's kind of call, kept beside the figures it records. */
void drv_record_interference(struct record *r, const char *mode, const struct drv_ifr_fig *f)
{
    struct pfs_run_data *d = r->d;
    if (!d)
        return;
    d->ifr_mode = mode;
    if (!f)
        return;
    for (int p = 0; p < PFS_MAX_PHASES; p++) {
        d->ifr_bw_ratio[p] = f->bw_ratio[p];
        d->ifr_p99_ratio[p] = f->p99_ratio[p];
    }
    d->ifr_jain = f->jain;
    d->ifr_jain_n = f->jain_n;
    d->ifr_qos = f->qos;
    d->ifr_qos_pass = f->qos_pass;
    snprintf(d->ifr_qos_why, sizeof(d->ifr_qos_why), "%s", f->qos_why);
}

void drv_ifr_capture(struct ctx *c, struct drv_ifr_sum *s)
{
    struct pfs_run_data *d = c->rec.d;
    s->n = 0;
    if (!d || !d->fig.phase)
        return;
    pfs_figures_finish(&d->fig, d); /* again at the record's end: it computes the same */
    for (int p = 0; p < c->cfg.nphases && p < PFS_MAX_PHASES; p++) {
        const struct pfs_phase_figs *pf = &d->fig.phase[p];
        const int measured = pf->reps - pf->ci.warmup > 0;
        const struct pfs_lat_sum *op = &pf->lat_all[PFS_LAT_OP];
        s->bw[p] = measured ? (pf->meta ? pf->rate.mean : pf->bw.mean) : NAN;
        s->p99[p] = measured && pf->lat_reps > 0 && op->count > 0 ? op->p99_ns : NAN;
    }
    s->n = c->cfg.nphases < PFS_MAX_PHASES ? c->cfg.nphases : PFS_MAX_PHASES;
}

double drv_ifr_ratios(const struct drv_ifr_sum *alone, const struct drv_ifr_sum *tog, const int *phases,
                      const char *qos, struct drv_ifr_fig *f)
{
    for (int p = 0; p < PFS_MAX_PHASES; p++)
        f->bw_ratio[p] = f->p99_ratio[p] = NAN;
    const int same = alone && alone->n == tog->n; /* the same section, the same phases */
    for (int p = 0; same && p < tog->n; p++) {
        f->bw_ratio[p] = pfs_interf_ratio(tog->bw[p], alone->bw[p]);
        f->p99_ratio[p] = pfs_interf_ratio(tog->p99[p], alone->p99[p]);
    }
    f->jain = NAN;
    f->jain_n = 0;
    f->qos = qos ? qos : "";
    f->qos_pass = -1;
    f->qos_why[0] = '\0';
    struct pfs_qos q;
    char err[160];
    const char *names[PFS_MAX_PHASES];
    for (int p = 0; p < tog->n; p++)
        names[p] = pfs_phase_name(phases[p]);
    if (f->qos[0] && pfs_qos_parse(f->qos, &q, err, sizeof(err)) == 0) /* the job file's parser took it */
        f->qos_pass = pfs_qos_check(&q, f->bw_ratio, tog->p99, names, tog->n, f->qos_why, sizeof(f->qos_why));
    return pfs_interf_mean(f->bw_ratio, tog->n);
}

/* "812.3 MiB/s" in the report's unit (a metadata phase: ops/s). */
static void fig_text(const struct ctx *c, int p, double v, char *out, size_t len)
{
    const int meta = c->rec.d && c->rec.d->fig.phase && c->rec.d->fig.phase[p].meta;
    if (isnan(v))
        snprintf(out, len, "none");
    else if (meta)
        snprintf(out, len, "%.1f ops/s", v);
    else
        snprintf(out, len, "%.1f %s", v / pfs_units_scale(c->cfg.units), pfs_units_label(c->cfg.units));
}

void drv_ifr_print(struct ctx *c, const char *tag, const struct drv_ifr_sum *alone, const struct drv_ifr_sum *tog,
                   const struct drv_ifr_fig *f)
{
    FILE *out = c->cfg.format == PFS_FORMAT_TEXT ? drv_record_out(c) : stderr;
    const char *sec = c->job && c->job->section ? c->job->section : "";
    if (tog->n == 0)
        fprintf(out, "interference %s [%s]: no ratio: the together run ran no phase\n", tag, sec);
    for (int p = 0; p < tog->n; p++) {
        const char *name = pfs_phase_name(c->cfg.phases[p]);
        if (!alone || alone->n != tog->n || isnan(f->bw_ratio[p])) {
            fprintf(out, "interference %s [%s] %s: no ratio: %s\n", tag, sec, name,
                    !alone || alone->n == 0 ? "the run alone ran no phase" : "a run measured no repetition");
            continue;
        }
        char a[64], t[64];
        fig_text(c, p, alone->bw[p], a, sizeof(a));
        fig_text(c, p, tog->bw[p], t, sizeof(t));
        fprintf(out, "interference %s [%s] %s: bandwidth together/alone %.3f (%s of %s)", tag, sec, name,
                f->bw_ratio[p], t, a);
        if (isnan(f->p99_ratio[p]))
            fprintf(out, ", op p99: no ratio\n");
        else
            fprintf(out, ", op p99 together/alone %.3f (%.3f ms of %.3f ms)\n", f->p99_ratio[p], tog->p99[p] / 1e6,
                    alone->p99[p] / 1e6);
    }
    if (f->jain_n > 0)
        fprintf(out, "interference %s: Jain's fairness index %.4f over %d section%s (their mean bandwidth ratios)\n",
                tag, f->jain, f->jain_n, f->jain_n == 1 ? "" : "s");
    else
        fprintf(out, "interference %s: Jain's fairness index: none (no section has a ratio)\n", tag);
    if (f->qos[0])
        fprintf(out, "qos          [%s] %s: %s%s%s%s\n", sec, f->qos,
                f->qos_pass == 1 ? "pass" : f->qos_pass == 0 ? "FAIL" : "unknown", f->qos_why[0] ? " (" : "",
                f->qos_why, f->qos_why[0] ? ")" : "");
}
