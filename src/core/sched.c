/* Arrival schedules: one next() per kind, picked at init. */
#include "pfs/sched.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pfs/crand.h"
#include "pfs/units.h"

/* The period in 32.32 fixed point, accumulated exactly: the k-th arrival is
 * t0 + round(k x period) whatever k, with no drift from a rounded float sum
 * and the same integers on every machine. */
static uint64_t next_fixed(struct pfs_sched *s)
{
    const uint64_t t = s->t;
    s->frac += s->per_frac;
    s->t += s->per_ns + (s->frac >> 32);
    s->frac &= 0xFFFFFFFFu;
    s->k++;
    return t;
}

/* Inversion of the exponential: -ln(1 - u) with u in [0, 1) is finite. The
 * sum runs in double ns from t0 (exact to well under a ns for days of
 * arrivals) and in one order, so every run gets the same integers. */
static uint64_t next_poisson(struct pfs_sched *s)
{
    s->acc += -log1p(-pfs_crand_unit(s->key, s->k++)) * s->mean_ns;
    return s->t0 + (uint64_t)llround(s->acc);
}

int pfs_sched_init(struct pfs_sched *s, double rate, int kind, uint64_t seed, uint64_t stream, uint64_t t0_ns)
{
    if (!(rate > 0) || !isfinite(rate) || (kind != PFS_ARR_FIXED && kind != PFS_ARR_POISSON))
        return -1;
    const double period = 1e9 / rate;
    /* The fixed point needs a period of at least one unit and below 2^63 ns. */
    if (period * 4294967296.0 < 1.0 || period >= 9.2e18)
        return -1;
    *s = (struct pfs_sched){.t0 = t0_ns, .t = t0_ns, .mean_ns = period};
    if (kind == PFS_ARR_POISSON) {
        s->next = next_poisson;
        s->key = pfs_crand_key(seed, stream, PFS_CRAND_ARRIVAL);
        return 0;
    }
    s->next = next_fixed;
    const double whole = floor(period);
    s->per_ns = (uint64_t)whole;
    s->per_frac = (uint64_t)llround((period - whole) * 4294967296.0);
    if (s->per_frac >> 32) { /* the fraction rounded up to a whole ns */
        s->per_ns++;
        s->per_frac = 0;
    }
    s->frac = 1u << 31; /* half a ns: the sum rounds to nearest */
    return 0;
}

int pfs_rate_share(double rate, int unit, int scope, int kind, double mean_bytes, int nstreams, int stream,
                   struct pfs_rate_share *out)
{
    if (!(rate > 0) || !isfinite(rate) || nstreams < 1 || stream < 0 || stream >= nstreams)
        return -1;
    double ops = rate;
    if (unit == PFS_RATE_BYTES) {
        if (!(mean_bytes > 0) || !isfinite(mean_bytes))
            return -1;
        ops /= mean_bytes;
    }
    if (scope == PFS_RATE_JOB)
        ops /= nstreams;
    out->ops = ops;
    out->offset_ns = kind == PFS_ARR_FIXED ? (uint64_t)llround(1e9 / ops * stream / nstreams) : 0;
    return 0;
}

int pfs_rate_parse(const char *text, double *rate, int *unit, char *err, size_t len)
{
    char buf[64];
    size_t n = strlen(text);
    if (n >= 2 && strcmp(text + n - 2, "/s") == 0)
        n -= 2;
    if (n == 0 || n >= sizeof(buf)) {
        snprintf(err, len, "'%s' is not a rate: give operations per second (500) or bytes per second (200MiB)", text);
        return -1;
    }
    memcpy(buf, text, n);
    buf[n] = '\0';
    char *end;
    errno = 0;
    const double ops = strtod(buf, &end);
    if (end != buf && *end == '\0') {
        if (errno || !(ops > 0) || !isfinite(ops)) {
            snprintf(err, len, "'%s' is not a rate above 0 operations per second", text);
            return -1;
        }
        *rate = ops;
        *unit = PFS_RATE_OPS;
        return 0;
    }
    uint64_t bytes = 0;
    char why[128];
    if (pfs_size_parse(buf, &(struct pfs_size_syntax){.plain = 1}, &bytes, why, sizeof(why)) != 0) {
        snprintf(err, len, "'%s' is not a rate: %s (give operations per second, 500, or bytes per second, 200MiB)",
                 text, why);
        return -1;
    }
    *rate = (double)bytes;
    *unit = PFS_RATE_BYTES;
    return 0;
}
