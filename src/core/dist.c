/* Offset distributions: one at() per kind and placement, picked at init. */
#include "pfs/dist.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pfs/crand.h"

/* u in (0, 1), never 0: the quantile and the powers stay finite. */
static inline double unit_open(uint64_t key, uint64_t k)
{
    return ((double)(pfs_crand_u64(key, k) >> 11) + 0.5) * 0x1p-53;
}

/* A keyed bijection of [0, n): a balanced Feistel network over 2 x half
 * bits (one multiply per round, its high bits the round's output) with
 * cycle walking down to [0, n), fewer than 4 steps on average. Its own and
 * not pfs_permute's because the hot path pays for it on every draw: the
 * widths and round keys are set once at init, and the round function is one
 * multiply, not a SplitMix finaliser (a scrambled zipf draw: 27 ns, 58 ns
 * with pfs_permute). Hot blocks need only be spread, not hidden: 4 such
 * rounds do. */
static inline uint64_t scramble(const struct pfs_dist *d, uint64_t x)
{
    const unsigned h = d->half;
    const uint64_t mask = d->mask;
    do {
        uint64_t l = x >> h, r = x & mask;
        for (int i = 0; i < 4; i++) {
            const uint64_t f = ((r ^ d->rk[i]) * PFS_CRAND_GOLDEN) >> (64 - h);
            const uint64_t nl = r;
            r = l ^ f;
            l = nl;
        }
        x = (l << h) | r;
    } while (x >= d->n);
    return x;
}

/* Where value v of the rank space lands. Unscrambled: rotated by roff.
 * Scrambled: the bijection, rotated so that the hottest value (p0 its
 * image) lands at off. scr is a constant in each caller, so every (kind,
 * placement) pair is its own branch-free at(). */
static inline uint64_t place(const struct pfs_dist *d, uint64_t v, const int scr)
{
    const uint64_t n = d->n;
    if (!scr)
        return v + d->roff < n ? v + d->roff : v + d->roff - n;
    uint64_t p = scramble(d, v);
    p = p >= d->p0 ? p - d->p0 : p + n - d->p0;
    return p + d->off < n ? p + d->off : p + d->off - n;
}

uint64_t pfs_dist_place(const struct pfs_dist *d, uint64_t v)
{
    return d->scramble ? place(d, v, 1) : place(d, v, 0);
}

static uint64_t at_uniform(const struct pfs_dist *d, uint64_t k)
{
    return pfs_crand_below(d->key, k, d->n);
}

/* Gray et al.'s closed form: ranks 0 and 1 by their exact masses, the rest
 * from the inverse of an approximation of the zeta partial sums. */
static inline uint64_t rank_zipf(const struct pfs_dist *d, uint64_t k)
{
    const double u = unit_open(d->key, k);
    if (u < d->t1)
        return 0;
    if (u < d->t2)
        return 1;
    const double x = (double)d->n * pow(d->eta * u - d->eta + 1.0, d->alpha);
    return x < (double)d->n ? (uint64_t)x : d->n - 1;
}

static inline uint64_t rank_pareto(const struct pfs_dist *d, uint64_t k)
{
    const double x = (double)d->n * pow(unit_open(d->key, k), d->pow_);
    return x < (double)d->n ? (uint64_t)x : d->n - 1;
}

/* The normal's block before placement: wrapped at the ends. */
static inline uint64_t value_normal(const struct pfs_dist *d, uint64_t k)
{
    const double n = (double)d->n;
    double w = fmod(floor(d->mean + d->sigma * pfs_normal_quantile(unit_open(d->key, k))), n);
    if (w < 0)
        w += n;
    return w < n ? (uint64_t)w : 0;
}

#define PFS_DIST_AT(name, value, scr)                                                                              \
    static uint64_t name(const struct pfs_dist *d, uint64_t k)                                                     \
    {                                                                                                              \
        return place(d, value(d, k), scr);                                                                         \
    }
PFS_DIST_AT(at_zipf, rank_zipf, 0)
PFS_DIST_AT(at_zipf_scr, rank_zipf, 1)
PFS_DIST_AT(at_pareto, rank_pareto, 0)
PFS_DIST_AT(at_pareto_scr, rank_pareto, 1)
PFS_DIST_AT(at_normal, value_normal, 0)
PFS_DIST_AT(at_normal_scr, value_normal, 1)

double pfs_normal_quantile(double p)
{
    static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
                               1.383577518672690e+02,  -3.066479806614716e+01, 2.506628277459239e+00};
    static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                               6.680131188771972e+01,  -1.328068155288572e+01};
    static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                               -2.549732539343734e+00, 4.374664141464968e+00,  2.938163982698783e+00};
    static const double e[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                               3.754408661907416e+00};
    const double lo = 0.02425;
    if (p > lo && p < 1 - lo) {
        const double q = p - 0.5, r = q * q;
        return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
               (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
    }
    const double q = sqrt(-2 * log(p <= lo ? p : 1 - p));
    const double x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
                     ((((e[0] * q + e[1]) * q + e[2]) * q + e[3]) * q + 1);
    return p <= lo ? x : -x;
}

/* sum_{i=1..n} i^-theta: the first terms summed, the tail by Euler-Maclaurin
 * (integral, end points, first derivative term): within 1e-15 of a long
 * double sum of every term (theta 0.5-5, n 4096-10 M) at the cost of 1024
 * terms. fio sums at most 10 M terms, which shifts mass towards rank 0
 * above 10 M blocks. */
static double zeta_n(uint64_t n, double theta)
{
    const uint64_t m = n < 4096 ? n : 1024;
    double s = 0;
    for (uint64_t i = m; i >= 1; i--) /* smallest first */
        s += pow((double)i, -theta);
    if (m == n)
        return s;
    const double a = (double)m, b = (double)n;
    const double integral = (pow(b, 1 - theta) - pow(a, 1 - theta)) / (1 - theta);
    const double ends = 0.5 * (pow(b, -theta) - pow(a, -theta));
    const double d1 = (-theta * pow(b, -theta - 1) + theta * pow(a, -theta - 1)) / 12;
    return s + integral + ends + d1;
}

static void zipf_setup(struct pfs_dist *d, double theta)
{
    const double n = (double)d->n;
    d->zetan = zeta_n(d->n, theta);
    const double zeta2 = 1 + pow(0.5, theta);
    d->t1 = 1 / d->zetan;
    d->t2 = zeta2 / d->zetan;
    d->alpha = 1 / (1 - theta);
    /* n <= 2: the two exact ranks cover every u (t2 = 1). */
    d->eta = d->n > 2 ? (1 - pow(2 / n, 1 - theta)) / (1 - zeta2 / d->zetan) : 0;
}

static int bad(char *err, size_t len, const char *fmt, double v)
{
    snprintf(err, len, fmt, v);
    return -1;
}

static int check_spec(const struct pfs_dist_spec *sp, char *err, size_t len)
{
    const double v = sp->param;
    if (sp->kind == PFS_DIST_ZIPF && !(v > 0 && v <= 10 && v != 1))
        return bad(err, len, "zipf's theta must be above 0, at most 10 and not 1, not %g", v);
    if (sp->kind == PFS_DIST_PARETO && !(v > 0 && v < 1))
        return bad(err, len, "pareto's H must be between 0 and 1 (exclusive), not %g", v);
    if (sp->kind == PFS_DIST_NORMAL && !(v > 0 && v < 100))
        return bad(err, len, "normal's width must be above 0 and below 100 (percent of the range), not %g", v);
    if (sp->kind != PFS_DIST_UNIFORM && sp->center >= 0 && !(sp->center <= 1))
        return bad(err, len, "the center must be between 0 and 1, not %g", sp->center);
    if (sp->kind < PFS_DIST_UNIFORM || sp->kind > PFS_DIST_NORMAL)
        return bad(err, len, "no distribution of kind %g", sp->kind);
    return 0;
}

int pfs_dist_init(struct pfs_dist *d, const struct pfs_dist_spec *sp, uint64_t n, uint64_t seed, uint64_t stream,
                  char *err, size_t len)
{
    if (n < 1 || n > (UINT64_C(1) << 62))
        return bad(err, len, "a distribution needs 1 to 2^62 blocks, not %g", (double)n);
    if (check_spec(sp, err, len) != 0)
        return -1;
    *d = (struct pfs_dist){
        .n = n,
        .key = pfs_crand_key(seed, stream, PFS_CRAND_OFFSET),
        .pkey = pfs_crand_key(seed, 0, PFS_CRAND_PLACE),
        .scramble = sp->scramble != 0,
    };
    /* The Feistel's halves: 2 x half bits cover n - 1 (half >= 1: a shift
     * by 64 would be undefined). */
    unsigned bits = 0;
    while (bits < 64 && (n - 1) >> bits)
        bits++;
    d->half = bits < 2 ? 1 : (bits + 1) / 2;
    d->mask = (UINT64_C(1) << d->half) - 1;
    for (int i = 0; i < 4; i++)
        d->rk[i] = pfs_crand_u64(d->pkey, 1 + (uint64_t)i);
    const int given = sp->center >= 0, scr = d->scramble;
    const uint64_t at_center = given ? (uint64_t)floor(sp->center * (double)n) % n : 0;
    switch (sp->kind) {
    case PFS_DIST_UNIFORM:
        d->at = at_uniform;
        return 0;
    case PFS_DIST_ZIPF:
        zipf_setup(d, sp->param);
        d->at = scr ? at_zipf_scr : at_zipf;
        break;
    case PFS_DIST_PARETO:
        d->pow_ = log(sp->param) / log(1 - sp->param);
        d->at = scr ? at_pareto_scr : at_pareto;
        break;
    default: /* normal: its values are centred already; scrambled, the
              * centre's block stays where it is */
        d->mean = given ? sp->center * (double)n : 0.5 * (double)n;
        d->sigma = sp->param / 100 * (double)n;
        d->at = scr ? at_normal_scr : at_normal;
        d->off = (uint64_t)floor(d->mean) % n;
        d->p0 = scramble(d, d->off);
        return 0;
    }
    /* zipf, pareto: rank 0 is the hottest; it lands at the center, or
     * (scrambled, none given) where the seed says, as fio's lands where
     * its random state says. */
    d->p0 = scramble(d, 0);
    d->off = d->roff = given || !scr ? at_center : pfs_crand_below(d->pkey, 0, n);
    return 0;
}

/* One number of the spec string: all of [s, end) must be it. */
static int number(const char *s, const char *end, double *v)
{
    if (s == end)
        return -1;
    char buf[64];
    const size_t n = (size_t)(end - s);
    if (n >= sizeof(buf))
        return -1;
    memcpy(buf, s, n);
    buf[n] = '\0';
    char *e;
    errno = 0;
    *v = strtod(buf, &e);
    return *e || errno || !isfinite(*v) || buf[0] == ' ' ? -1 : 0;
}

int pfs_dist_parse(const char *s, struct pfs_dist_spec *sp, char *err, size_t len)
{
    static const struct {
        const char *name;
        int kind;
        const char *what;
    } kinds[] = {{"uniform", PFS_DIST_UNIFORM, ""}, {"random", PFS_DIST_UNIFORM, ""},
                 {"zipf", PFS_DIST_ZIPF, "zipf:THETA, e.g. zipf:1.2"}, {"pareto", PFS_DIST_PARETO, "pareto:H, e.g. pareto:0.2"},
                 {"normal", PFS_DIST_NORMAL, "normal:W (W: percent of the range), e.g. normal:5"}};
    *sp = (struct pfs_dist_spec){.kind = -1, .center = -1, .scramble = 1};
    const char *c1 = strchr(s, ':');
    const size_t nl = c1 ? (size_t)(c1 - s) : strlen(s);
    int i = 0;
    for (; i < (int)(sizeof(kinds) / sizeof(kinds[0])); i++)
        if (strlen(kinds[i].name) == nl && strncmp(s, kinds[i].name, nl) == 0)
            break;
    if (i == (int)(sizeof(kinds) / sizeof(kinds[0]))) {
        snprintf(err, len, "\"%s\": unknown distribution (uniform, zipf:THETA, pareto:H, normal:W; then :CENTER)", s);
        return -1;
    }
    sp->kind = kinds[i].kind;
    if (sp->kind == PFS_DIST_UNIFORM) {
        if (c1) {
            snprintf(err, len, "\"%s\": uniform takes no value", s);
            return -1;
        }
        return 0;
    }
    const char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
    if (!c1 || number(c1 + 1, c2 ? c2 : c1 + strlen(c1), &sp->param) != 0) {
        snprintf(err, len, "\"%s\": %s needs a number: %s", s, kinds[i].name, kinds[i].what);
        return -1;
    }
    if (c2 && (number(c2 + 1, c2 + strlen(c2), &sp->center) != 0 || sp->center < 0)) {
        snprintf(err, len, "\"%s\": the center after the second ':' must be a number from 0 to 1", s);
        return -1;
    }
    char why[160];
    if (check_spec(sp, why, sizeof(why)) != 0) {
        snprintf(err, len, "\"%s\": %s", s, why);
        return -1;
    }
    return 0;
}
