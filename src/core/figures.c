/* The run's figures (pfs/figures.h): set up once, a repetition added as
 * rank 0 records it (the text row, the page-cache warning and --reps
 * auto's verdict read it at once), the statistics over repetitions at the
 * end. Every output reads them; none computes. */
#include "figures_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pfs/config.h"
#include "pfs/ratesweep.h"

int pfs_figures_init(struct pfs_figures *f, const struct pfs_run_data *d)
{
    memset(f, 0, sizeof(*f));
    f->nphases = d->nphases;
    f->slots = d->reps;
    f->nnodes = d->nnodes;
    f->nstreams = pfs_run_nstreams(d);
    const size_t P = (size_t)(f->nphases > 0 ? f->nphases : 1), K = (size_t)(f->nnodes > 0 ? f->nnodes : 1);
    f->phase = calloc(P, sizeof(*f->phase));
    f->node_rank = malloc(K * sizeof(*f->node_rank));
    if (!f->phase || !f->node_rank) {
        pfs_figures_free(f);
        return -1;
    }
    for (int p = 0; p < f->nphases; p++) {
        struct pfs_phase_figs *pf = &f->phase[p];
        pf->meta = pfs_phase_is_meta(d->cfg->phases[p]);
        pf->short_first = pf->cache_first = -1;
        pf->rep = calloc((size_t)(f->slots > 0 ? f->slots : 1), sizeof(*pf->rep));
        if (!pf->rep) {
            pfs_figures_free(f);
            return -1;
        }
    }
    for (size_t n = 0; n < K; n++)
        f->node_rank[n] = -1;
    for (int r = d->nranks - 1; d->node_of_rank && r >= 0; r--) /* the lowest rank of a node names it */
        if (d->node_of_rank[r] >= 0 && d->node_of_rank[r] < f->nnodes)
            f->node_rank[d->node_of_rank[r]] = r;
    return 0;
}

/* The 95% interval of the mean of the measured repetitions' figure, and
 * --reps auto's verdict on it. */
static void phase_ci(struct pfs_phase_figs *pf, const struct pfs_run_data *d)
{
    struct pfs_phase_ci *out = &pf->ci;
    out->warmup = d->cfg->warmup < pf->reps ? d->cfg->warmup : pf->reps;
    out->measured = pf->reps - out->warmup;
    out->target = -1;
    double *v = malloc(sizeof(double) * (size_t)(out->measured > 0 ? out->measured : 1));
    if (!v) {
        pfs_ci95(NULL, 0, &out->ci);
        out->measured = 0;
        return;
    }
    for (int i = 0; i < out->measured; i++)
        v[i] = pf->rep[out->warmup + i].value;
    pfs_ci95(v, out->measured, &out->ci);
    free(v);
    if (d->cfg->reps == 0)
        out->target = pfs_ci_met(&out->ci, d->cfg->ci);
}

int pfs_figures_add(struct pfs_figures *f, const struct pfs_run_data *d, int p, int rep)
{
    if (!f->phase || p < 0 || p >= f->nphases || rep < 0 || rep >= f->slots)
        return -1;
    struct pfs_phase_figs *pf = &f->phase[p];
    struct pfs_rep_figs *r = &pf->rep[rep];
    free(r->mem);
    int rc = pfs_figs_rep_compute(r, f, d, p, rep);
    if (rep >= pf->reps)
        pf->reps = rep + 1;
    if (rc == 0) {
        pf->cache_methods |= r->cache.methods;
        pf->dirty_methods |= r->cache.dirty_methods;
        pf->any_lat |= r->lat != NULL;
        pf->any_tg |= r->tg != NULL;
        for (int k = 0; r->lat && k < PFS_LAT_KINDS; k++)
            if (r->lat->run[k].count && r->lat->run[k].max_ns > f->lat_top_ns)
                f->lat_top_ns = r->lat->run[k].max_ns;
        if (r->too_short && pf->short_count++ == 0)
            pf->short_first = rep;
        if ((r->cache_call != PFS_CACHE_QUIET || r->cache_unknown) && pf->cache_first < 0)
            pf->cache_first = rep;
    }
    phase_ci(pf, d);
    return rc;
}

/* The statistics of the values at v[0], v[stride], ... (n of them), each
 * divided by div. */
static void stats_of(const struct pfs_rep_figs *r, int n, size_t field, double div, struct pfs_stats *out)
{
    double *v = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
    if (!v) {
        memset(out, 0, sizeof(*out));
        return;
    }
    for (int i = 0; i < n; i++)
        v[i] = *(const double *)((const char *)&r[i] + field) / div;
    pfs_stats_compute(v, n, out);
    free(v);
}

/* Each kind's latency over the n measured repetitions at r: their
 * histograms merged (exact) into h, then summarized; the percentiles are
 * the operations', not an average of the repetitions' percentiles. */
static void lat_merged(struct pfs_phase_figs *pf, const struct pfs_rep_figs *r, int n, struct pfs_hist *h)
{
    memset(pf->lat_all, 0, sizeof(pf->lat_all));
    pf->lat_reps = 0;
    for (int i = 0; i < n; i++)
        pf->lat_reps += r[i].lat != NULL;
    if (!h || pf->lat_reps == 0)
        return;
    for (int k = 0; k < PFS_LAT_KINDS; k++) {
        pfs_hist_reset(h);
        for (int i = 0; i < n; i++)
            if (r[i].lat)
                pfs_hist_merge(h, &r[i].lat->run[k]);
        pfs_figs_lat_summary(h, &pf->lat_all[k]);
    }
}

/* The stonewall's figures over the n measured repetitions r of a phase
 * with ns streams (pfs_phase_figs' sw_*). */
static void stonewall_of(struct pfs_phase_figs *pf, const struct pfs_rep_figs *r, int n, int ns)
{
    pf->sw_reps = 0, pf->sw_ops = pf->sw_bytes = 0, pf->sw_seconds = 0;
    for (int i = 0; i < n; i++)
        if (r[i].stonewall) {
            pf->sw_reps++, pf->sw_ops += r[i].s.sw_ops, pf->sw_bytes += r[i].s.sw_bytes;
            pf->sw_seconds += r[i].s.sw_seconds;
        }
    const int ok = pf->sw_seconds > 0 && ns > 0;
    pf->sw_rate = ok ? (double)pf->sw_ops / pf->sw_seconds : 0;
    pf->sw_mean_seconds = pf->sw_reps > 0 ? pf->sw_seconds / pf->sw_reps : 0;
    pf->sw_stream_bw = ok ? (double)pf->sw_bytes / ns / pf->sw_seconds : 0;
}

int pfs_figs_load_point(const struct pfs_figures *f, int p, int rep, struct pfs_load_point *pt)
{
    const struct pfs_rep_figs *r = pfs_figs_rep(f, p, rep);
    if (!r)
        return -1;
    *pt = (struct pfs_load_point){.offered = r->offered_ops, .achieved = r->s.rate, .p50 = r->load_p50_ns,
                                  .p99 = r->load_p99_ns, .p999 = r->load_p999_ns};
    return 0;
}

double pfs_figs_rate_base(const struct pfs_figures *f, const struct pfs_config *cfg, int p, int rep)
{
    const double peak = pfs_figs_sweep_base(f, p);
    struct pfs_lat_goal g;
    struct pfs_load_point pts[PFS_TARGET_RUNS];
    struct pfs_lat_step st;
    char why[200];
    int n = 0;
    if (!cfg->lat_target[0])
        return peak;
    if (rep < 1 || rep > PFS_TARGET_RUNS || pfs_lat_goal_parse(cfg->lat_target, &g, why, sizeof(why)) != 0)
        return 0;
    for (int r = 1; r < rep; r++)
        if (pfs_figs_load_point(f, p, r, &pts[n++]) != 0)
            return 0;
    return pfs_target_step(&g, peak, pts, n, &st) == 1 ? st.next : 0;
}

/* --latency-target: the search's answer over every paced repetition. */
static void target_of(struct pfs_phase_figs *pf, const struct pfs_figures *f, int p, const struct pfs_run_data *d)
{
    struct pfs_lat_goal g;
    struct pfs_load_point pts[PFS_TARGET_RUNS];
    struct pfs_lat_step st = {.best_index = -1};
    char why[200];
    int n = 0;
    pf->target = d->cfg->lat_target[0] && !pf->meta;
    pf->target_rate = 0, pf->target_rep = -1, pf->target_tried = 0;
    if (!pf->target || pfs_lat_goal_parse(d->cfg->lat_target, &g, why, sizeof(why)) != 0)
        return;
    for (int r = 1; r < pf->reps && n < PFS_TARGET_RUNS; r++)
        if (pfs_figs_load_point(f, p, r, &pts[n]) == 0)
            n++;
    if (n > 0 && pfs_target_step(&g, pfs_figs_sweep_base(f, p), pts, n, &st) >= 0 && st.best_index >= 0) {
        pf->target_rate = st.best;
        pf->target_rep = st.best_index + 1;
    }
    pf->target_tried = n;
}

/* --rate-sweep: the knee of a data phase's curve over its paced
 * repetitions with latencies (a closed-loop first one is no load point:
 * its times are from submission, and it would sort above every rate),
 * its indices turned back into repetitions. */
static void knee_of(struct pfs_phase_figs *pf, const struct pfs_figures *f, int p, const struct pfs_run_data *d)
{
    struct pfs_load_point pts[PFS_KNEE_MAX];
    int rep_of[PFS_KNEE_MAX], n = 0;
    pf->knee = (struct pfs_knee){.index = -1, .above = -1, .saturated = -1};
    pf->sweep = (d->cfg->rate_sweep[0] || d->cfg->lat_target[0]) && !pf->meta;
    for (int rep = 0; pf->sweep && rep < pf->reps && n < PFS_KNEE_MAX; rep++)
        if (pfs_figs_load_point(f, p, rep, &pts[n]) == 0 && pts[n].offered > 0 && pts[n].p99 > 0)
            rep_of[n++] = rep;
    if (n < 2 || pfs_knee_find(pts, n, PFS_P99, PFS_KNEE_FACTOR, &pf->knee) != 0)
        return;
    struct pfs_knee *k = &pf->knee;
    k->index = k->index >= 0 ? rep_of[k->index] : -1;
    k->above = k->above >= 0 ? rep_of[k->above] : -1;
    k->saturated = k->saturated >= 0 ? rep_of[k->saturated] : -1;
}

void pfs_figures_finish(struct pfs_figures *f, const struct pfs_run_data *d)
{
    const double scale = pfs_units_scale(d->cfg->units);
    struct pfs_hist *h = malloc(sizeof(*h)); /* 18 KB: one for every phase; NULL: no merged latency */
    for (int p = 0; f->phase && p < f->nphases; p++) {
        struct pfs_phase_figs *pf = &f->phase[p];
        const int w = pf->ci.warmup, n = pf->reps - w;
        const struct pfs_rep_figs *r = pf->rep + w;
        stats_of(r, n, offsetof(struct pfs_rep_figs, s.bandwidth), 1.0, &pf->bw);
        stats_of(r, n, offsetof(struct pfs_rep_figs, s.rate), 1.0, &pf->rate);
        stats_of(r, n, offsetof(struct pfs_rep_figs, s.seconds), 1.0, &pf->seconds);
        /* The report's unit: the values divided first, as it prints them. */
        if (pf->meta)
            pf->shown = pf->rate;
        else
            stats_of(r, n, offsetof(struct pfs_rep_figs, s.bandwidth), scale, &pf->shown);
        pf->amount = n > 0 ? (pf->meta ? r[n - 1].s.ops : r[n - 1].s.bytes) : 0;
        stonewall_of(pf, r, n, pfs_run_nstreams(d));
        pf->ceil_binding = pfs_ceilings_share(pf->meta || n == 0 ? NULL : d->ceil, pf->bw.mean, &pf->ceil_mem_pct,
                                              &pf->ceil_net_pct);
        lat_merged(pf, r, n, h);
        knee_of(pf, f, p, d);
        target_of(pf, f, p, d);
    }
    free(h);
}

void pfs_figures_free(struct pfs_figures *f)
{
    for (int p = 0; f->phase && p < f->nphases; p++) {
        for (int rep = 0; f->phase[p].rep && rep < f->phase[p].reps; rep++)
            free(f->phase[p].rep[rep].mem); /* the slots above reps were never touched */
        free(f->phase[p].rep);
    }
    free(f->phase);
    free(f->node_rank);
    memset(f, 0, sizeof(*f));
}

int pfs_run_figures(struct pfs_run_data *d)
{
    struct pfs_figures *f = &d->fig;
    pfs_figures_free(f);
    if (pfs_figures_init(f, d) != 0)
        return -1;
    int rc = 0;
    for (int p = 0; p < d->nphases; p++)
        for (int rep = 0; rep < d->reps_done[p]; rep++)
            rc |= pfs_figures_add(f, d, p, rep);
    pfs_figures_finish(f, d);
    return rc;
}
