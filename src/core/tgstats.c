/* Per-target figures (pfs/tgstats.h): a stream's table, attributed per
 * transfer through its file's layout, merged by name, judged by the
 * stragglers' rule. */
#include "pfs/tgstats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pfs/core.h"

void pfs_tg_init(struct pfs_tg_acc *a)
{
    memset(a, 0, sizeof(*a));
    a->single = -1;
}

void pfs_tg_free(struct pfs_tg_acc *a)
{
    free(a->s);
    free(a->map);
    pfs_tg_init(a);
}

static void stat_empty(struct pfs_tg_stat *t)
{
    t->bytes = 0;
    pfs_hist_reset(&t->h);
}

void pfs_tg_reset(struct pfs_tg_acc *a)
{
    for (uint32_t i = 0; i < a->n; i++)
        stat_empty(&a->s[i]);
    a->dropped = 0;
}

int pfs_tg_entry(struct pfs_tg_acc *a, const char *name)
{
    for (uint32_t i = 0; i < a->n; i++)
        if (strcmp(a->s[i].name, name) == 0)
            return (int)i;
    if (a->n >= PFS_TG_MAX) {
        a->dropped++;
        return -1;
    }
    if (a->n == a->cap) {
        uint32_t want = a->cap ? 2 * a->cap : 4;
        struct pfs_tg_stat *q = realloc(a->s, want * sizeof(*q));
        if (!q)
            return -1;
        a->s = q;
        a->cap = want;
    }
    struct pfs_tg_stat *t = &a->s[a->n];
    snprintf(t->name, sizeof(t->name), "%s", name);
    stat_empty(t);
    return (int)a->n++;
}

int pfs_tg_use(struct pfs_tg_acc *a, const struct pfs_layout *l)
{
    a->l = NULL;
    a->single = -1;
    if (l->ntargets > a->nmap) {
        uint32_t *m = realloc(a->map, l->ntargets * sizeof(*m));
        if (!m)
            return -1;
        a->map = m;
        a->nmap = l->ntargets;
    }
    int rc = 0, fallback = -1;
    for (uint32_t i = 0; i < l->ntargets; i++) {
        int e = pfs_tg_entry(a, l->targets[i].name);
        if (e < 0) {
            if (fallback < 0)
                fallback = pfs_tg_entry(a, "unknown");
            if (fallback < 0)
                return -1;
            e = fallback;
            rc = -1;
        }
        a->map[i] = (uint32_t)e;
    }
    if (l->ntargets == 0) { /* no target at all: every byte "unknown" */
        int e = pfs_tg_entry(a, "unknown");
        if (e < 0)
            return -1;
        a->single = e;
        return rc;
    }
    a->l = l;
    a->single = l->ntargets == 1 ? (int)a->map[0] : -1;
    return rc;
}

/* One round of up to PFS_TG_PIECES pieces: bytes to each piece's primary,
 * an operation, the latency and the busy time once to each target touched. */
static void add_pieces(struct pfs_tg_acc *a, const struct pfs_layout_piece *pc, int np, uint64_t lat_ns,
                       uint32_t *seen, int *nseen)
{
    for (int i = 0; i < np; i++) {
        if (!pc[i].nt)
            continue; /* not allocated yet (a Lustre component the writes had not reached at the lookup) */
        const uint32_t e = a->map[pc[i].t[0]];
        a->s[e].bytes += pc[i].len;
        int j = 0;
        while (j < *nseen && seen[j] != e)
            j++;
        if (j < *nseen || *nseen >= PFS_TG_PIECES)
            continue;
        seen[(*nseen)++] = e;
        pfs_hist_add(&a->s[e].h, lat_ns);
    }
}

void pfs_tg_add_split(struct pfs_tg_acc *a, uint64_t off, uint64_t len, uint64_t lat_ns)
{
    if (!a->l)
        return;
    struct pfs_layout_piece pc[PFS_TG_PIECES];
    uint32_t seen[PFS_TG_PIECES];
    int nseen = 0;
    while (len > 0) {
        int np = pfs_layout_split(a->l, off, len, pc, PFS_TG_PIECES);
        if (np <= 0)
            return;
        const int got = np < PFS_TG_PIECES ? np : PFS_TG_PIECES;
        add_pieces(a, pc, got, lat_ns, seen, &nseen);
        if (np <= PFS_TG_PIECES)
            return;
        /* More pieces than fit: go on after the last one attributed. */
        const uint64_t end = pc[got - 1].off + pc[got - 1].len;
        if (end <= off || end - off >= len)
            return;
        len -= end - off;
        off = end;
    }
}

int pfs_tg_add_all(struct pfs_tg_acc *a, uint64_t bytes, const struct pfs_hist *h)
{
    if (a->single < 0)
        return -1;
    struct pfs_tg_stat *t = &a->s[a->single];
    t->bytes += bytes;
    pfs_hist_merge(&t->h, h);
    return 0;
}

int pfs_tg_merge(struct pfs_tg_acc *dst, const struct pfs_tg_stat *src, uint32_t n)
{
    int rc = 0;
    for (uint32_t i = 0; i < n; i++) {
        const uint32_t full = dst->n >= PFS_TG_MAX;
        int e = pfs_tg_entry(dst, src[i].name);
        if (e < 0) {
            rc = full ? rc : -1;
            continue;
        }
        struct pfs_tg_stat *t = &dst->s[e];
        t->bytes += src[i].bytes;
        pfs_hist_merge(&t->h, &src[i].h);
    }
    return rc;
}

int32_t pfs_tg_hash(const char *name)
{
    uint32_t h = 2166136261u;
    for (const unsigned char *p = (const unsigned char *)name; *p; p++)
        h = (h ^ *p) * 16777619u;
    return (int32_t)(h & 0x7fffffffu);
}

static int cmp_double(const void *x, const void *y)
{
    const double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(*v), cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int pfs_tg_rows(const struct pfs_tg_stat *s, uint32_t n, double frac, struct pfs_tg_row *out)
{
    double *bw = calloc(n ? n : 1, sizeof(*bw)), *p99 = calloc(n ? n : 1, sizeof(*p99));
    int *flag = calloc(n ? n : 1, sizeof(*flag));
    uint32_t *idx = calloc(n ? n : 1, sizeof(*idx));
    if (!bw || !p99 || !flag || !idx) {
        free(bw), free(p99), free(flag), free(idx);
        return -1;
    }
    int judged = 0;
    for (uint32_t i = 0; i < n; i++) {
        const struct pfs_tg_stat *t = &s[i];
        out[i] = (struct pfs_tg_row){
            .name = t->name, .bytes = t->bytes, .ops = t->h.count, .busy_s = 1e-9 * (double)t->h.sum_ns,
            .p50_ns = t->h.count ? pfs_hist_quantile(&t->h, 0.5) : 0,
            .p99_ns = t->h.count ? pfs_hist_quantile(&t->h, 0.99) : 0,
            .max_ns = t->h.count ? (double)t->h.max_ns : 0,
            .p99_ratio = NAN, .bw_ratio = NAN,
        };
        out[i].bandwidth = t->h.sum_ns ? (double)t->bytes / out[i].busy_s : 0;
        if (t->bytes && t->h.sum_ns && strcmp(t->name, "unknown") != 0) {
            bw[judged] = out[i].bandwidth;
            p99[judged] = out[i].p99_ns;
            idx[judged++] = i;
        }
    }
    /* The stragglers' rule over the judged targets' bandwidths. */
    int nflag = pfs_stragglers(bw, judged, frac, flag);
    for (int j = 0; j < judged; j++)
        out[idx[j]].slow = flag[j];
    if (judged > 0) {
        const double mbw = median(bw, judged), mp99 = median(p99, judged);
        for (int j = 0; j < judged; j++) {
            struct pfs_tg_row *r = &out[idx[j]];
            r->bw_ratio = mbw > 0 ? r->bandwidth / mbw : NAN;
            r->p99_ratio = mp99 > 0 ? r->p99_ns / mp99 : NAN;
        }
    }
    free(bw), free(p99), free(flag), free(idx);
    return nflag;
}
