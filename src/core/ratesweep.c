/* --rate-sweep's list and the rate each repetition runs at. */
#include "pfs/ratesweep.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pfs/config.h"
#include "pfs/sched.h"

/* One point, text[0..n): a percentage (into *pct = 1) or a rate. */
static int parse_point(const char *text, size_t n, struct pfs_sweep *sw, int i, char *err, size_t len)
{
    char buf[64], why[200];
    if (n == 0 || n >= sizeof(buf))
        return pfs_fail(err, len, "--rate-sweep point %d is %s; give rates or percentages separated by commas", i + 1,
                        n == 0 ? "empty" : "too long");
    memcpy(buf, text, n);
    buf[n] = '\0';
    const int pct = buf[n - 1] == '%';
    if (i > 0 && pct != sw->pct)
        return pfs_fail(err, len, "--rate-sweep mixes percentages and rates ('%s'); give all of one kind", buf);
    sw->pct = pct;
    if (pct) {
        char *end;
        buf[n - 1] = '\0';
        const double v = strtod(buf, &end);
        if (end == buf || *end || !(v > 0 && v <= 1000))
            return pfs_fail(err, len, "--rate-sweep point '%s%%' is not a percentage above 0 and at most 1000", buf);
        sw->val[i] = v;
        sw->unit = PFS_RATE_OPS;
        return 0;
    }
    int unit;
    if (pfs_rate_parse(buf, &sw->val[i], &unit, why, sizeof(why)) != 0)
        return pfs_fail(err, len, "--rate-sweep point %d: %s", i + 1, why);
    if (i > 0 && unit != sw->unit)
        return pfs_fail(err, len, "--rate-sweep mixes operations/s and bytes/s ('%s'); give every point in one", buf);
    sw->unit = unit;
    return 0;
}

int pfs_sweep_parse(const char *text, struct pfs_sweep *sw, char *err, size_t len)
{
    memset(sw, 0, sizeof(*sw));
    for (const char *p = text;; sw->n++) {
        const char *comma = strchr(p, ',');
        const size_t n = comma ? (size_t)(comma - p) : strlen(p);
        if (sw->n == PFS_SWEEP_MAX)
            return pfs_fail(err, len, "--rate-sweep has more than %d points", PFS_SWEEP_MAX);
        if (parse_point(p, n, sw, sw->n, err, len) != 0)
            return -1;
        if (!comma) {
            sw->n++;
            return 0;
        }
        p = comma + 1;
    }
}

int pfs_lat_goal_parse(const char *text, struct pfs_lat_goal *g, char *err, size_t len)
{
    static const struct {
        const char *name;
        int which;
    } pct[] = {{"p50=", PFS_P50}, {"p99=", PFS_P99}, {"p99.9=", PFS_P999}};
    static const struct {
        const char *unit;
        double ns;
    } units[] = {{"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}, {"", 1e9}};
    for (size_t i = 0; i < sizeof(pct) / sizeof(pct[0]); i++) {
        const size_t n = strlen(pct[i].name);
        if (strncmp(text, pct[i].name, n) != 0)
            continue;
        char *end;
        const double v = strtod(text + n, &end);
        for (size_t u = 0; end != text + n && u < sizeof(units) / sizeof(units[0]); u++)
            if (strcmp(end, units[u].unit) == 0 && v > 0 && isfinite(v)) {
                g->which = pct[i].which;
                g->target_ns = v * units[u].ns;
                return 0;
            }
        return pfs_fail(err, len, "--latency-target %s: the bound is not a duration above 0 (2ms, 500us, 0.01)",
                        text);
    }
    return pfs_fail(err, len, "--latency-target %s: give p50=, p99= or p99.9= and a bound, e.g. p99=2ms", text);
}

int pfs_target_step(const struct pfs_lat_goal *g, double peak, const struct pfs_load_point *pts, int n,
                    struct pfs_lat_step *out)
{
    if (!(peak > 0) || !isfinite(peak))
        return -1;
    const struct pfs_lat_target t = {.which = g->which, .target_ns = g->target_ns, .rate_max = peak,
                                     .rate_min = peak / 100, .tol = 0.05, .shortfall = 0.02,
                                     .max_runs = PFS_TARGET_RUNS};
    return pfs_lat_search(&t, pts, n, out);
}

int pfs_rate_needs_base(const struct pfs_config *cfg)
{
    struct pfs_sweep sw;
    char why[200];
    if (cfg->lat_target[0])
        return 1;
    return cfg->rate_sweep[0] && pfs_sweep_parse(cfg->rate_sweep, &sw, why, sizeof(why)) == 0 && sw.pct;
}

int pfs_rate_at(const struct pfs_config *cfg, double base, int rep, double *rate, int *unit, int *scope)
{
    char why[200];
    *scope = cfg->rate_scope;
    if (cfg->rate[0])
        return pfs_rate_parse(cfg->rate, rate, unit, why, sizeof(why)) == 0;
    if (cfg->lat_target[0]) { /* the closed-loop peak first, then the search's rates for the job */
        *rate = base, *unit = PFS_RATE_OPS, *scope = PFS_RATE_JOB;
        return rep > 0 && base > 0 && isfinite(base);
    }
    struct pfs_sweep sw;
    if (!cfg->rate_sweep[0] || pfs_sweep_parse(cfg->rate_sweep, &sw, why, sizeof(why)) != 0)
        return 0;
    const int i = rep - sw.pct;
    if (i < 0 || i >= sw.n)
        return 0;
    *unit = sw.unit;
    if (!sw.pct) {
        *rate = sw.val[i];
        return 1;
    }
    if (!(base > 0) || !isfinite(base))
        return 0;
    *rate = base * sw.val[i] / 100;
    *scope = PFS_RATE_JOB;
    return 1;
}
