/* Tail exemplars (pfs/exemplar.h): a bounded min-heap of the K slowest
 * operations, whose root is the weakest kept, so that the hot path needs
 * one compare with a threshold and the slow path O(log K). */
#include "pfs/exemplar.h"

#include <stdlib.h>
#include <string.h>

/* The order on keys, and so on entries: slowest first, ties by rank,
 * thread and sequence. */
static int key_cmp(const struct pfs_exemplar_key *a, const struct pfs_exemplar_key *b)
{
    if (a->dur_ns != b->dur_ns)
        return a->dur_ns > b->dur_ns ? -1 : 1;
    if (a->rank != b->rank)
        return a->rank < b->rank ? -1 : 1;
    if (a->thread != b->thread)
        return a->thread < b->thread ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static struct pfs_exemplar_key key_of(const struct pfs_exemplar *e, uint32_t slot)
{
    return (struct pfs_exemplar_key){e->dur_ns, e->seq, e->rank, e->thread, slot, 0};
}

int pfs_exemplar_cmp(const struct pfs_exemplar *a, const struct pfs_exemplar *b)
{
    const struct pfs_exemplar_key ka = key_of(a, 0), kb = key_of(b, 0);
    return key_cmp(&ka, &kb);
}

/* The threshold the inline add compares with: nothing below the weakest
 * kept can enter once k are kept; an equal duration cannot either, as it
 * comes later in the same stream. At UINT64_MAX the +1 would wrap: the
 * slow path then decides. */
static void set_threshold(struct pfs_exemplars *x)
{
    if (x->k == 0)
        x->thr = UINT64_MAX; /* off: only a duration of UINT64_MAX reaches the slow path, which keeps none */
    else if (x->n < x->k)
        x->thr = 0;
    else
        x->thr = x->h[0].dur_ns == UINT64_MAX ? UINT64_MAX : x->h[0].dur_ns + 1;
}

void pfs_exemplar_init(struct pfs_exemplars *x, unsigned k)
{
    memset(x, 0, sizeof(*x));
    x->k = k > PFS_EXEMPLAR_MAX ? PFS_EXEMPLAR_MAX : k;
    set_threshold(x);
}

/* Heap order: a parent ranks after (is weaker than) its children. Both
 * sifts move a hole and write the key once. */
static void sift_up(struct pfs_exemplar_key *h, unsigned i, struct pfs_exemplar_key k)
{
    while (i > 0) {
        unsigned p = (i - 1) / 2;
        if (key_cmp(&k, &h[p]) <= 0)
            break;
        h[i] = h[p];
        i = p;
    }
    h[i] = k;
}

static void sift_down(struct pfs_exemplar_key *h, unsigned n, unsigned i, struct pfs_exemplar_key k)
{
    for (;;) {
        unsigned l = 2 * i + 1, r = l + 1, m = l;
        if (l >= n)
            break;
        if (r < n && key_cmp(&h[r], &h[l]) > 0)
            m = r;
        if (key_cmp(&h[m], &k) <= 0)
            break;
        h[i] = h[m];
        i = m;
    }
    h[i] = k;
}

/* Keeps c if it ranks before the weakest kept (or there is room). */
static void offer(struct pfs_exemplars *x, const struct pfs_exemplar *c)
{
    if (x->k == 0)
        return;
    if (x->n < x->k) {
        x->e[x->n] = *c;
        sift_up(x->h, x->n, key_of(c, x->n));
        x->n++;
    } else if (pfs_exemplar_cmp(c, &x->e[x->h[0].slot]) < 0) {
        uint32_t slot = x->h[0].slot;
        x->e[slot] = *c;
        sift_down(x->h, x->n, 0, key_of(c, slot));
    }
}

void pfs_exemplar_insert(struct pfs_exemplars *x, uint32_t op, uint64_t offset, uint64_t length, uint64_t start_ns,
                         uint64_t dur_ns, uint64_t seq)
{
    const struct pfs_exemplar c = {
        .dur_ns = dur_ns, .start_ns = start_ns, .offset = offset, .length = length, .seq = seq, .op = op,
        .rank = -1, .thread = -1, .host = -1, .file = -1, .target = -1,
    };
    offer(x, &c);
    set_threshold(x);
}

void pfs_exemplar_tag(struct pfs_exemplars *x, int rank, int thread, int host, int file,
                      int (*target_of)(void *arg, uint64_t offset), void *arg)
{
    for (unsigned i = 0; i < x->n; i++) {
        struct pfs_exemplar *e = &x->e[i];
        e->rank = rank, e->thread = thread, e->host = host, e->file = file;
        if (e->target < 0 && target_of)
            e->target = target_of(arg, e->offset);
    }
    /* The keys see rank and thread too: equal for all, so the heap order
     * holds as it was. */
    for (unsigned i = 0; i < x->n; i++)
        x->h[i].rank = rank, x->h[i].thread = thread;
}

static int cmp_sort(const void *a, const void *b)
{
    return pfs_exemplar_cmp(a, b);
}

unsigned pfs_exemplar_sorted(const struct pfs_exemplars *x, struct pfs_exemplar *out)
{
    memcpy(out, x->e, x->n * sizeof(*out));
    qsort(out, x->n, sizeof(*out), cmp_sort);
    return x->n;
}

void pfs_exemplar_merge(struct pfs_exemplars *dst, const struct pfs_exemplars *src)
{
    /* Both sides sorted, the first k of the union kept. Keys listed
     * weakest first make a valid heap (every parent precedes its
     * children). Not on the hot path. */
    struct pfs_exemplar all[2 * PFS_EXEMPLAR_MAX];
    unsigned n = pfs_exemplar_sorted(dst, all);
    unsigned m = src->n <= PFS_EXEMPLAR_MAX ? src->n : PFS_EXEMPLAR_MAX;
    memcpy(all + n, src->e, m * sizeof(all[0]));
    qsort(all, n + m, sizeof(all[0]), cmp_sort);
    unsigned keep = n + m < dst->k ? n + m : dst->k;
    for (unsigned i = 0; i < keep; i++) {
        dst->e[i] = all[i];
        dst->h[keep - 1 - i] = key_of(&all[i], i);
    }
    dst->n = keep;
    dst->seen += src->seen;
    set_threshold(dst);
}
