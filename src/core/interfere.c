/* Interference figures and QoS targets (pfs/interfere.h). */
#include "pfs/interfere.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "5ms" and the like: ns, or -1. */
static double duration_ns(const char *s)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || !(v > 0) || !isfinite(v))
        return -1;
    static const struct { const char *u; double ns; } unit[] = {{"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}};
    for (size_t i = 0; i < sizeof(unit) / sizeof(unit[0]); i++)
        if (strcmp(end, unit[i].u) == 0)
            return v * unit[i].ns;
    return -1;
}

/* One term of a qos, in t (NUL-terminated). 0 or -1. */
static int qos_term(const char *t, struct pfs_qos *q, char *err, size_t len)
{
    if (strncmp(t, "bw>=", 4) == 0) {
        char *end;
        double p = strtod(t + 4, &end);
        if (q->has_bw || end == t + 4 || strcmp(end, "%") != 0 || !(p > 0) || p > 1000) {
            snprintf(err, len, "'%s': %s", t, q->has_bw ? "bw given twice" : "bw>=P% wants a percentage above 0");
            return -1;
        }
        q->has_bw = 1;
        q->bw_min = p / 100;
        return 0;
    }
    if (strncmp(t, "p99<", 4) == 0) {
        double ns = duration_ns(t + 4);
        if (q->has_p99 || ns <= 0) {
            snprintf(err, len, "'%s': %s", t, q->has_p99 ? "p99 given twice" : "p99<D wants a duration (5ms, 200us)");
            return -1;
        }
        q->has_p99 = 1;
        q->p99_max_ns = ns;
        return 0;
    }
    snprintf(err, len, "'%s': a target is bw>=P%% or p99<DURATION", t);
    return -1;
}

int pfs_qos_parse(const char *s, struct pfs_qos *q, char *err, size_t len)
{
    *q = (struct pfs_qos){0};
    char buf[128];
    if (!s || !*s || strlen(s) >= sizeof(buf)) {
        snprintf(err, len, "'%s': want targets such as bw>=95%%,p99<5ms", s ? s : "");
        return -1;
    }
    memcpy(buf, s, strlen(s) + 1);
    for (char *t = buf; t;) {
        char *comma = strchr(t, ',');
        if (comma)
            *comma = '\0';
        if (qos_term(t, q, err, len) != 0)
            return -1;
        t = comma ? comma + 1 : NULL;
    }
    return 0;
}

double pfs_interf_ratio(double together, double alone)
{
    if (!isfinite(together) || !isfinite(alone) || !(together > 0) || !(alone > 0))
        return NAN;
    return together / alone;
}

double pfs_interf_mean(const double *x, int n)
{
    double sum = 0;
    int m = 0;
    for (int i = 0; i < n; i++)
        if (!isnan(x[i]))
            sum += x[i], m++;
    return m ? sum / m : NAN;
}

double pfs_jain(const double *x, int n, int *used)
{
    double s = 0, s2 = 0;
    int m = 0;
    for (int i = 0; i < n; i++)
        if (!isnan(x[i]))
            s += x[i], s2 += x[i] * x[i], m++;
    if (used)
        *used = m;
    return m && s2 > 0 ? s * s / (m * s2) : NAN;
}

int pfs_qos_check(const struct pfs_qos *q, const double *bw_ratio, const double *p99_ns, const char *const *names,
                  int n, char *why, size_t len)
{
    char miss[128] = "no phase ran", ph[32];
    int failed = 0, missing = n == 0;
    why[0] = '\0';
    for (int p = 0; p < n && !failed; p++) {
        if (names)
            snprintf(ph, sizeof(ph), "%.31s", names[p]);
        else
            snprintf(ph, sizeof(ph), "phase %d", p);
        if ((q->has_bw && isnan(bw_ratio[p])) || (q->has_p99 && isnan(p99_ns[p]))) {
            if (!missing)
                snprintf(miss, sizeof(miss), "%s: no %s", ph,
                         q->has_bw && isnan(bw_ratio[p]) ? "bandwidth ratio" : "p99");
            missing = 1;
        } else if (q->has_bw && bw_ratio[p] < q->bw_min) {
            snprintf(why, len, "%s: bandwidth %.1f%% of alone, below %.1f%%", ph, bw_ratio[p] * 100,
                     q->bw_min * 100);
            failed = 1;
        } else if (q->has_p99 && !(p99_ns[p] < q->p99_max_ns)) {
            snprintf(why, len, "%s: p99 %.3f ms, not below %.3f ms", ph, p99_ns[p] / 1e6, q->p99_max_ns / 1e6);
            failed = 1;
        }
    }
    if (failed)
        return 0;
    if (missing)
        snprintf(why, len, "%s", miss);
    return missing ? -1 : 1;
}
