/* A phase's group of the results file: its attributes (the statistics and
 * the interval over repetitions, the page-cache methods), the raw times,
 * and every per-repetition, per-node and per-stream dataset the schema's
 * tables list (pfs/schema.h), each gathered from the run's figures
 * (pfs/figures.h) as the table says; the latency histograms and time
 * series are latency_h5.c's. */
#include "latency_h5.h"
#include "results_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Whether the phase's group holds a dataset written when w. */
static int applies(enum pfs_sch_when w, const struct pfs_run_data *d, int p)
{
    const struct pfs_phase_figs *pf = &d->fig.phase[p];
    const struct pfs_pc_fig seen = {.methods = pf->cache_methods, .dirty_methods = pf->dirty_methods};
    switch (w) {
    case PFS_SCH_ALWAYS: return 1;
    case PFS_SCH_META: return pf->meta;
    case PFS_SCH_FIND: return pfs_phase_has(d->cfg->phases[p], PFS_PHF_MATCHES) && d->find_matched;
    case PFS_SCH_RESIDENT: return pfs_pc_has_resident(&seen);
    case PFS_SCH_DIRTY: return pfs_pc_has_dirty(&seen);
    case PFS_SCH_LATENCY: return pf->any_lat;
    case PFS_SCH_CEILING: return d->ceil && !pf->meta;
    case PFS_SCH_RATE: return (d->cfg->rate[0] || d->cfg->rate_sweep[0] || d->cfg->lat_target[0]) && !pf->meta;
    case PFS_SCH_TRAIN: return pfs_phase_has(d->cfg->phases[p], PFS_PHF_ACCEL);
    case PFS_SCH_SWEEP: return pf->sweep;
    case PFS_SCH_TARGET: return pf->target;
    case PFS_SCH_TARGETS: return pf->any_tg;
    case PFS_SCH_MIX: return pfs_phase_has(d->cfg->phases[p], PFS_PHF_MIXES);
    }
    return 0;
}

/* --latency-target: the goal and the search's answer. */
static int write_target(hid_t g, const struct pfs_run_data *d, const struct pfs_phase_figs *pf)
{
    return pfs_res_attr_str(g, "latency_target", d->cfg->lat_target) |
           pfs_res_attr_f64(g, "target_rate", pf->target_rep >= 0 ? pf->target_rate : NAN) |
           pfs_res_attr_i64(g, "target_rep", pf->target_rep);
}

/* --rate-sweep (or --latency-target): the knee of the phase's curve
 * (pfs_phase_figs.knee), and the search's answer. */
static int write_knee(hid_t g, const struct pfs_run_data *d, const struct pfs_phase_figs *pf)
{
    const struct pfs_knee *k = &pf->knee;
    if (!pf->sweep)
        return 0;
    return pfs_res_attr_i64(g, "knee_found", k->found) | pfs_res_attr_f64(g, "knee_rate", k->found ? k->rate : NAN) |
           pfs_res_attr_i64(g, "knee_below_rep", k->index) | pfs_res_attr_i64(g, "knee_above_rep", k->above) |
           pfs_res_attr_f64(g, "knee_base_p99", k->base) | pfs_res_attr_i64(g, "knee_saturated_rep", k->saturated) |
           (pf->target ? write_target(g, d, pf) : 0);
}

/* Field f of every repetition's figures, [R], [R][K] or [R][N] as its
 * table says, into buf (zeros where a repetition has none). */
static void gather(const struct pfs_sch_field *f, const struct pfs_phase_figs *pf, size_t per, char *buf)
{
    const size_t size = pfs_sch_type_size(f->type);
    for (int rep = 0; rep < pf->reps; rep++) {
        const struct pfs_rep_figs *r = &pf->rep[rep];
        char *out = buf + (size_t)rep * per * size;
        if (!r->valid)
            continue;
        if (f->from == PFS_SCH_REP) {
            memcpy(out, (const char *)r + f->offset, size);
            continue;
        }
        const char *a = *(const char *const *)((const char *)r + f->offset);
        for (size_t i = 0; i < per; i++)
            memcpy(out + i * size, a + i * f->stride + f->sub, size);
    }
}

/* Every dataset of table name that the figures hold and the phase has. */
static int write_figures(hid_t g, const struct pfs_run_data *d, int p, const char *name)
{
    const struct pfs_sch_table *t = pfs_schema_table(name);
    const struct pfs_phase_figs *pf = &d->fig.phase[p];
    int rc = 0;
    for (size_t i = 0; i < t->n; i++) {
        const struct pfs_sch_field *f = &t->field[i];
        if (f->from == PFS_SCH_OWN || f->from == PFS_SCH_MEMBER || !applies(f->when, d, p))
            continue;
        const size_t per = f->from == PFS_SCH_REP ? 1 : f->from == PFS_SCH_REP_NODE ? (size_t)d->nnodes
                                                                                      : (size_t)pfs_run_nstreams(d);
        char *buf = calloc((size_t)pf->reps * per, pfs_sch_type_size(f->type));
        if (!buf)
            return -1;
        gather(f, pf, per, buf);
        const hsize_t dims[2] = {(hsize_t)pf->reps, (hsize_t)per};
        rc |= pfs_res_write_array(g, f->name, pfs_res_native(f->type), f->from == PFS_SCH_REP ? 1 : 2, dims, buf,
                                  f->units ? f->units : f->unit);
        free(buf);
    }
    return rc;
}

/* The raw per-stream timings: [rep][stream], in memory already laid out so
 * (stream = rank x threads + thread; with one thread, the rank). */
static int write_times(hid_t g, const struct pfs_run_data *d, int p)
{
    const struct pfs_sch_table *t = pfs_schema_table("times");
    hid_t tt = pfs_res_compound(t, t->size, NULL, NULL);
    hsize_t dims[2] = {(hsize_t)d->fig.phase[p].reps, (hsize_t)pfs_run_nstreams(d)};
    int rc = pfs_res_write_array(g, "times", tt, 2, dims, pfs_run_times(d, p, 0), t->units);
    H5Tclose(tt);
    return rc;
}

/* The statistics st of n measured values, as attributes PREFIX_min ..
 * PREFIX_stddev. What n cannot give is NaN, never 0 (as the text report
 * prints n/a and JSON null): the stddev of one value, everything of none
 * (a run that failed during its warm-up). */
static int write_stats(hid_t g, const char *prefix, const struct pfs_stats *st, int n)
{
    const char *key[5] = {"min", "max", "mean", "median", "stddev"};
    const double val[5] = {n < 1 ? NAN : st->min, n < 1 ? NAN : st->max, n < 1 ? NAN : st->mean,
                           n < 1 ? NAN : st->median, n < 2 ? NAN : st->stddev};
    int rc = 0;
    for (int i = 0; i < 5; i++) {
        char name[64];
        snprintf(name, sizeof(name), "%s_%s", prefix, key[i]);
        rc |= pfs_res_attr_f64(g, name, val[i]);
    }
    return rc;
}

/* Min .. stddev over the measured repetitions (the warm-up left out), and
 * the 95% interval of the mean of the phase's figure (bandwidth, rate in a
 * metadata phase). */
static int write_phase_stats(hid_t g, const struct pfs_run_data *d, const struct pfs_phase_figs *pf)
{
    const struct pfs_phase_ci *pc = &pf->ci;
    const int n = pf->reps - pc->warmup;
    int rc = 0;
    if (pf->meta)
        rc |= write_stats(g, "rate", &pf->rate, n);
    rc |= write_stats(g, "bandwidth", &pf->bw, n);
    rc |= pfs_res_attr_str(g, "bandwidth_units", "bytes/s; stddev is the sample standard deviation (n-1), NaN for "
                           "one measured repetition (all five NaN for none)");
    rc |= pfs_res_attr_i64(g, "warmup", pc->warmup);
    rc |= pfs_res_attr_i64(g, "reps_measured", pc->measured);
    rc |= pfs_res_attr_f64(g, "ci95_half_width", pc->ci.half);
    rc |= pfs_res_attr_f64(g, "ci95_percent", pc->ci.pct);
    rc |= pfs_res_attr_f64(g, "ci_target_percent", d->cfg->reps == 0 ? d->cfg->ci : NAN);
    rc |= pfs_res_attr_i64(g, "ci_target_met", pc->target);
    rc |= pfs_res_attr_str(g, "ci95_units", pf->meta
                           ? "half_width: files/s (of the rate); percent: of its mean; NaN: one measured repetition"
                           : "half_width: bytes/s (of the bandwidth); percent: of its mean; NaN: one measured repetition");
    return rc;
}

/* A find phase: the files it matched per repetition (its ops are those
 * it examined), and the criteria in words. */
static int write_find(hid_t g, const struct pfs_run_data *d, int p)
{
    if (!applies(PFS_SCH_FIND, d, p))
        return 0;
    const struct pfs_phase_figs *pf = &d->fig.phase[p];
    long long *m = calloc((size_t)pf->reps, sizeof(*m));
    if (!m)
        return -1;
    for (int rep = 0; rep < pf->reps; rep++)
        m[rep] = pf->rep[rep].valid ? pf->rep[rep].find_matched : 0;
    char crit[160];
    snprintf(crit, sizeof(crit), "name contains 01, a regular file of %llu bytes, modified at or after the run's start",
             (unsigned long long)d->cfg->file_size);
    const hsize_t R = (hsize_t)pf->reps;
    const struct pfs_sch_field *f = pfs_schema_field(pfs_schema_table("phase_datasets"), "find_matched");
    int rc = pfs_res_write_typed(g, f->name, pfs_res_native(f->type), H5T_NATIVE_LLONG, 1, &R, m, f->units);
    free(m);
    rc |= pfs_res_attr_str(g, "find_criteria", crit);
    return rc;
}

/* How the page cache was probed, over every repetition ("" when not). */
static int write_cache_methods(hid_t g, const struct pfs_phase_figs *pf)
{
    char how[64], dhow[64];
    pfs_pc_methods_name(pf->cache_methods, how, sizeof(how));
    pfs_pc_methods_name(pf->dirty_methods, dhow, sizeof(dhow));
    return pfs_res_attr_str(g, "cache_method", how) | pfs_res_attr_str(g, "cache_dirty_method", dhow);
}

int pfs_res_write_phase(hid_t phases, const struct pfs_run_data *d, int p)
{
    const struct pfs_config *cfg = d->cfg;
    const struct pfs_phase_figs *pf = &d->fig.phase[p];
    char name[48];
    snprintf(name, sizeof(name), "%02d_%s", p, pfs_phase_name(cfg->phases[p]));
    hid_t g = H5Gcreate2(phases, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0)
        return -1;
    int rc = 0;
    rc |= pfs_res_attr_str(g, "phase", pfs_phase_name(cfg->phases[p]));
    rc |= pfs_res_attr_i64(g, "index", p);
    rc |= pfs_res_attr_i64(g, "repetitions", pf->reps);
    rc |= pfs_res_attr_str(g, "kind", pf->meta ? "metadata" : "data");
    /* A together run of an interference group: this phase against the section's run alone. */
    const int together = d->ifr_mode && strcmp(d->ifr_mode, "together") == 0;
    rc |= pfs_res_attr_f64(g, "interference_bw_ratio", together ? d->ifr_bw_ratio[p] : NAN);
    rc |= pfs_res_attr_f64(g, "interference_p99_ratio", together ? d->ifr_p99_ratio[p] : NAN);
    if (pf->reps > 0) {
        rc |= write_times(g, d, p);
        rc |= write_figures(g, d, p, "phase_datasets");
        rc |= write_figures(g, d, p, "latency_datasets");
        rc |= write_phase_stats(g, d, pf);
        rc |= write_find(g, d, p);
        rc |= pfs_res_write_latency(g, d, p);
        rc |= write_cache_methods(g, pf);
        rc |= write_knee(g, d, pf);
    }
    H5Gclose(g);
    return rc;
}
