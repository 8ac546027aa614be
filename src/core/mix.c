/* Per-operation mixes: exact per hundred, in a seeded order. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "pfs/config.h"
#include "pfs/crand.h"
#include "pfs/phase.h"
#include "pfs/dist.h"
#include "pfs/units.h"

/* Sequential selection: of what is left of this hundred, category i comes
 * next with probability rem[i] / left. Every arrangement of the hundred's
 * multiset is equally likely, and the hundred ends with every rem at 0. */
static int pick(const struct pfs_mix *m, uint8_t *rem, int left, uint64_t k)
{
    uint64_t x = pfs_crand_below(m->key, k, (uint64_t)left);
    int i = 0;
    while (x >= rem[i])
        x -= rem[i++];
    rem[i]--;
    return i;
}

uint64_t pfs_mix_next(struct pfs_mix *m)
{
    if (m->left == 0) {
        memcpy(m->rem, m->pct, sizeof(m->rem));
        m->left = 100;
    }
    const int i = pick(m, m->rem, m->left--, m->k++);
    return m->val[i];
}

uint64_t pfs_mix_at(const struct pfs_mix *m, uint64_t k)
{
    uint8_t rem[PFS_MIX_MAX];
    memcpy(rem, m->pct, sizeof(rem));
    const uint64_t first = k - k % 100;
    int i = 0, left = 100;
    for (uint64_t j = first; j <= k; j++)
        i = pick(m, rem, left--, j);
    return m->val[i];
}

double pfs_mix_mean(const struct pfs_mix *m)
{
    double s = 0;
    for (int i = 0; i < m->n; i++)
        s += (double)m->pct[i] * (double)m->val[i];
    return s / 100;
}

void pfs_mix_key(struct pfs_mix *m, uint64_t seed, uint64_t stream)
{
    m->key = pfs_crand_key(seed, stream, m->purpose);
    m->k = 0;
    m->left = 0;
}

int pfs_mix_rw(struct pfs_mix *m, int read_pct, uint64_t seed, uint64_t stream)
{
    if (read_pct < 0 || read_pct > 100)
        return -1;
    memset(m, 0, sizeof(*m));
    m->n = 2;
    m->purpose = PFS_CRAND_MIX;
    m->pct[0] = (uint8_t)read_pct;
    m->pct[1] = (uint8_t)(100 - read_pct);
    m->val[0] = PFS_MIX_READ;
    m->val[1] = PFS_MIX_WRITE;
    pfs_mix_key(m, seed, stream);
    return 0;
}

/* One message: the list (its first 60 characters), then what is wrong. */
static int __attribute__((format(printf, 4, 5))) fail(char *err, size_t len, const char *s, const char *fmt, ...)
{
    const int long_ = strlen(s) > 60;
    int n = snprintf(err, len, "bssplit \"%.*s%s\": ", long_ ? 57 : 60, s, long_ ? "..." : "");
    if (n < 0 || (size_t)n >= len)
        return -1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err + n, len - (size_t)n, fmt, ap);
    va_end(ap);
    return -1;
}

/* One entry, "SIZE", "SIZE/" or "SIZE/PCT" in [s, end); pct -1: none given. */
static int entry(const char *s, const char *end, uint64_t *size, int *pct)
{
    char buf[64];
    const size_t n = (size_t)(end - s);
    if (n == 0 || n >= sizeof(buf))
        return -1;
    memcpy(buf, s, n);
    buf[n] = '\0';
    char *slash = strchr(buf, '/');
    *pct = -1;
    if (slash) {
        *slash = '\0';
        const char *p = slash + 1;
        if (*p) {
            int v = 0;
            for (; *p >= '0' && *p <= '9' && v <= 100; p++)
                v = v * 10 + (*p - '0');
            if (*p || v > 100)
                return -2;
            *pct = v;
        }
    }
    return pfs_parse_size(buf, size) == 0 ? 0 : -1;
}

/* Gives the entries without a percentage what is left of 100, evenly. */
static int fill_missing(struct pfs_mix *m, const int *given, int sum, const char *s, char *err, size_t len)
{
    int missing = 0;
    for (int i = 0; i < m->n; i++)
        missing += given[i] < 0;
    if (sum > 100 || (missing == 0 && sum != 100))
        return fail(err, len, s, "the percentages add up to %d, not 100", sum);
    const int share = missing ? (100 - sum) / missing : 0;
    int extra = missing ? (100 - sum) % missing : 0;
    for (int i = 0; i < m->n; i++) {
        if (given[i] >= 0)
            m->pct[i] = (uint8_t)given[i];
        else
            m->pct[i] = (uint8_t)(share + (extra-- > 0));
    }
    return 0;
}

int pfs_bssplit_parse(const char *s, struct pfs_mix *m, char *err, size_t len)
{
    memset(m, 0, sizeof(*m));
    m->purpose = PFS_CRAND_SIZE;
    if (!s || !*s) {
        snprintf(err, len, "bssplit: empty; give SIZE/PCT:SIZE/PCT..., e.g. 4k/50:64k/30:1m/20");
        return -1;
    }
    if (strchr(s, ','))
        return fail(err, len, s, "one list for reads and writes alike, without a comma");
    int given[PFS_MIX_MAX], sum = 0;
    for (const char *p = s;;) {
        const char *end = strchr(p, ':');
        if (!end)
            end = p + strlen(p);
        if (m->n == PFS_MIX_MAX)
            return fail(err, len, s, "more than %d sizes", PFS_MIX_MAX);
        const int rc = entry(p, end, &m->val[m->n], &given[m->n]);
        if (rc != 0)
            return fail(err, len, s,
                        rc == -2 ? "\"%.*s\": the percentage must be a whole number from 0 to 100"
                                 : "\"%.*s\" is not SIZE/PCT (a size such as 4k or 1m, a whole percentage)",
                        (int)(end - p > 40 ? 40 : end - p), p);
        if (given[m->n] > 0)
            sum += given[m->n];
        m->n++;
        if (!*end)
            break;
        p = end + 1;
    }
    return fill_missing(m, given, sum, s, err, len);
}

int pfs_phase_sized(int kind)
{
    return !pfs_phase_is_meta(kind) && !pfs_phase_has(kind, PFS_PHF_CREATES) && !pfs_phase_has(kind, PFS_PHF_OWN_FILES);
}

double pfs_config_xfer_mean(const struct pfs_config *cfg, int kind)
{
    struct pfs_mix m;
    char why[200];
    if (!cfg->bssplit[0] || (kind >= 0 && !pfs_phase_sized(kind)) ||
        pfs_bssplit_parse(cfg->bssplit, &m, why, sizeof(why)) != 0)
        return (double)cfg->transfer;
    return pfs_mix_mean(&m);
}

int pfs_bssplit_check(const struct pfs_config *cfg, unsigned align, char *err, size_t len)
{
    struct pfs_mix m;
    if (!cfg->bssplit[0])
        return 0;
    if (pfs_bssplit_parse(cfg->bssplit, &m, err, len) != 0)
        return -1;
    for (int i = 0; i < m.n; i++) {
        if (m.val[i] > cfg->transfer || m.val[i] == 0) {
            snprintf(err, len, "--bssplit %s: %llu bytes %s; each transfer is drawn at the start of its -t slot "
                     "(-t %llu), so give every size from 1 byte to -t, or a larger -t (without -t it is the largest "
                     "size; fio ignores bs with bssplit)", cfg->bssplit,
                     (unsigned long long)m.val[i], m.val[i] ? "is larger than -t" : "is no size",
                     (unsigned long long)cfg->transfer);
            return -1;
        }
        if (align > 1 && m.val[i] % align) {
            snprintf(err, len, "--bssplit %s with --direct: %llu bytes is not a multiple of %u bytes, the alignment "
                     "O_DIRECT needs here", cfg->bssplit, (unsigned long long)m.val[i], align);
            return -1;
        }
    }
    return 0;
}
