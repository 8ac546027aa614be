/* The knee of a latency-load curve and the latency-target search. */
#include "pfs/knee.h"

#include <math.h>
#include <stdlib.h>

double pfs_load_pct(const struct pfs_load_point *p, int which)
{
    return which == PFS_P50 ? p->p50 : which == PFS_P999 ? p->p999 : p->p99;
}

/* Offered load, a closed-loop point (0) above every open-loop one. */
static double load_of(const struct pfs_load_point *p)
{
    return p->offered > 0 ? p->offered : INFINITY;
}

/* Insertion sort of the indices by offered load: a sweep has a handful of
 * points, often in order already. */
static void order(const struct pfs_load_point *pts, int n, int *idx)
{
    for (int i = 0; i < n; i++) {
        int j = i;
        for (; j > 0 && load_of(&pts[idx[j - 1]]) > load_of(&pts[i]); j--)
            idx[j] = idx[j - 1];
        idx[j] = i;
    }
}

int pfs_knee_find(const struct pfs_load_point *pts, int n, int which, double factor, struct pfs_knee *out)
{
    if (n < 1 || n > PFS_KNEE_MAX || !(factor > 1))
        return -1;
    int idx[PFS_KNEE_MAX];
    order(pts, n, idx);
    *out = (struct pfs_knee){.index = -1, .above = -1, .saturated = -1};
    out->base = pfs_load_pct(&pts[idx[0]], which);
    const double lim = factor * out->base;
    for (int i = 0; i < n; i++) {
        const struct pfs_load_point *p = &pts[idx[i]];
        if (p->offered > 0 && p->achieved < 0.98 * p->offered) {
            out->saturated = idx[i];
            break;
        }
    }
    /* The run above the limit that reaches the top of the curve. */
    int first = n;
    while (first > 0 && pfs_load_pct(&pts[idx[first - 1]], which) > lim)
        first--;
    if (first == n || first == 0) /* never left, or never within (no low-load value to leave) */
        return 0;
    const struct pfs_load_point *a = &pts[idx[first - 1]], *b = &pts[idx[first]];
    const double ya = pfs_load_pct(a, which), yb = pfs_load_pct(b, which);
    out->found = 1;
    out->index = idx[first - 1];
    out->above = idx[first];
    out->rate = a->achieved + (b->achieved - a->achieved) * (lim - ya) / (yb - ya);
    return 0;
}

static int meets(const struct pfs_lat_target *t, const struct pfs_load_point *p)
{
    return p->offered > 0 && p->achieved >= (1 - t->shortfall) * p->offered &&
           pfs_load_pct(p, t->which) <= t->target_ns;
}

int pfs_lat_search(const struct pfs_lat_target *t, const struct pfs_load_point *pts, int n, struct pfs_lat_step *out)
{
    if (n < 0 || n > PFS_KNEE_MAX || !(t->target_ns > 0) || !(t->rate_max > 0) || !(t->rate_min > 0) ||
        t->rate_min > t->rate_max || !(t->tol > 0 && t->tol < 1) || !(t->shortfall >= 0 && t->shortfall < 1) ||
        t->max_runs < 1)
        return -1;
    *out = (struct pfs_lat_step){.best_index = -1};
    /* hi: the lowest rate that failed; lo: the highest below it that met. */
    double hi = INFINITY;
    for (int i = 0; i < n; i++)
        if (pts[i].offered > 0 && !meets(t, &pts[i]) && pts[i].offered < hi)
            hi = pts[i].offered;
    for (int i = 0; i < n; i++)
        if (meets(t, &pts[i]) && pts[i].offered < hi && pts[i].offered > out->best) {
            out->best = pts[i].offered;
            out->best_index = i;
        }
    const double lo = out->best;
    if (n >= t->max_runs)
        return 0;
    if (isinf(hi)) { /* nothing failed yet: the ceiling first */
        if (lo >= t->rate_max * (1 - t->tol))
            return 0;
        out->next = t->rate_max;
        return 1;
    }
    if (lo == 0 && hi <= t->rate_min)
        return 0; /* even the lowest rate worth running fails */
    if (hi - lo <= t->tol * hi)
        return 0;
    out->next = 0.5 * (lo + hi);
    if (out->next < t->rate_min)
        out->next = t->rate_min;
    return 1;
}
