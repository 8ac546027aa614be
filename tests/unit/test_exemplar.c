/* Tail exemplars (pfs/exemplar.h) against a brute-force sort of every
 * sample: random, increasing (every operation enters), decreasing, all
 * equal and few-valued (ties) orders, K from 1 to more than the samples;
 * merges of many streams in several tree shapes give the same K as one
 * sort of all; each kept entry carries its own fields. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pfs/exemplar.h"

#define NMAX 20000

/* xorshift64*: seeded, the same sample on every machine */
static uint64_t next(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * UINT64_C(2685821657736338717);
}

enum shape { RANDOM, INCREASING, DECREASING, EQUAL, FEW, SAWTOOTH, HUGE, NSHAPES };

static uint64_t duration(enum shape sh, uint64_t i, uint64_t n, uint64_t *s)
{
    switch (sh) {
    case RANDOM: return next(s) % 10000000;
    case INCREASING: return 1000 + i;          /* each one evicts the weakest */
    case DECREASING: return 1000 + (n - i);    /* only the first K enter */
    case EQUAL: return 4242;                   /* all tied: the first K win */
    case FEW: return 100 * (next(s) % 4);      /* ties everywhere, zeros too */
    case SAWTOOTH: return (i % 97) * 7 + (i / 97);
    case HUGE: return UINT64_MAX - next(s) % 3; /* the threshold's +1 would wrap */
    default: return 0;
    }
}

/* One sample as the brute force sees it. */
struct sample {
    uint64_t dur, seq, offset, start;
    int32_t rank, thread;
    uint32_t op;
};

/* The documented order: longest first, then lower rank, thread, seq. */
static int cmp_sample(const void *pa, const void *pb)
{
    const struct sample *a = pa, *b = pb;
    if (a->dur != b->dur)
        return a->dur > b->dur ? -1 : 1;
    if (a->rank != b->rank)
        return a->rank < b->rank ? -1 : 1;
    if (a->thread != b->thread)
        return a->thread < b->thread ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* got (sorted, n of them) is exactly the first n of want (sorted). */
static void same_as(const struct pfs_exemplar *got, unsigned n, const struct sample *want, unsigned nwant,
                    unsigned k, const char *what)
{
    unsigned expect = nwant < k ? nwant : k;
    if (n != expect)
        fail_msg("%s: kept %u, want %u", what, n, expect);
    for (unsigned i = 0; i < n; i++) {
        const struct pfs_exemplar *g = &got[i];
        const struct sample *w = &want[i];
        if (g->dur_ns != w->dur || g->seq != w->seq || g->rank != w->rank || g->thread != w->thread ||
            g->offset != w->offset || g->start_ns != w->start || g->op != w->op || g->length != w->offset / 2 + 1)
            fail_msg("%s: entry %u is dur %llu seq %llu rank %d, want dur %llu seq %llu rank %d", what, i,
                     (unsigned long long)g->dur_ns, (unsigned long long)g->seq, g->rank,
                     (unsigned long long)w->dur, (unsigned long long)w->seq, w->rank);
    }
}

/* Feeds n samples of a shape to one stream (rank, thread) through the
 * inline add; fills want[] with what the brute force sees. */
static void feed(struct pfs_exemplars *x, enum shape sh, unsigned n, uint64_t seed, int rank, int thread,
                 struct sample *want)
{
    uint64_t s = seed;
    for (unsigned i = 0; i < n; i++) {
        uint64_t d = duration(sh, i, n, &s);
        uint64_t off = next(&s) % (1u << 30);
        uint64_t start = 1000000 + 3 * (uint64_t)i;
        uint32_t op = (uint32_t)(i % 5);
        pfs_exemplar_add(x, op, off, off / 2 + 1, start, d);
        want[i] = (struct sample){d, i, off, start, rank, thread, op};
    }
}

static void test_one_stream_vs_sort(void **state)
{
    (void)state;
    static struct sample want[NMAX];
    static const unsigned ks[] = {1, 2, 3, 16, 63, 64};
    static const unsigned ns[] = {0, 1, 5, 64, 65, 1000, NMAX};
    struct pfs_exemplars x;
    struct pfs_exemplar got[PFS_EXEMPLAR_MAX];
    char what[96];
    for (int sh = 0; sh < NSHAPES; sh++)
        for (size_t a = 0; a < sizeof(ks) / sizeof(ks[0]); a++)
            for (size_t b = 0; b < sizeof(ns) / sizeof(ns[0]); b++) {
                pfs_exemplar_init(&x, ks[a]);
                feed(&x, (enum shape)sh, ns[b], 7 + sh * 31 + a, -1, -1, want);
                qsort(want, ns[b], sizeof(want[0]), cmp_sample);
                unsigned n = pfs_exemplar_sorted(&x, got);
                snprintf(what, sizeof(what), "shape %d k %u n %u", sh, ks[a], ns[b]);
                same_as(got, n, want, ns[b], ks[a], what);
                assert_int_equal(x.seen, ns[b]);
            }
}

static void test_threshold(void **state)
{
    (void)state;
    struct pfs_exemplars x;
    pfs_exemplar_init(&x, 4);
    assert_int_equal(x.thr, 0); /* not full: a zero duration still enters */
    pfs_exemplar_add(&x, 0, 0, 1, 0, 0);
    assert_int_equal(x.n, 1);
    for (uint64_t d = 10; d <= 40; d += 10)
        pfs_exemplar_add(&x, 0, d, 1, d, d);
    /* kept 40 30 20 10: the weakest is 10, so 10 (later, equal) and below are out */
    assert_int_equal(x.n, 4);
    assert_int_equal(x.thr, 11);
    struct pfs_exemplars before = x;
    pfs_exemplar_add(&x, 0, 99, 1, 99, 10);
    before.seen++;
    assert_memory_equal(&x, &before, sizeof(x)); /* only the count moved */
    pfs_exemplar_add(&x, 0, 99, 1, 99, 11);
    assert_int_equal(x.thr, 12);
    /* k 0 keeps none, even of the longest duration; k is clamped above */
    pfs_exemplar_init(&x, 0);
    assert_int_equal(x.k, 0);
    assert_true(x.thr == UINT64_MAX);
    pfs_exemplar_add(&x, 0, 1, 1, 1, 5);
    pfs_exemplar_add(&x, 0, 2, 1, 2, UINT64_MAX);
    assert_int_equal(x.n, 0);
    assert_int_equal(x.seen, 2);
    struct pfs_exemplars full;
    pfs_exemplar_init(&full, 4);
    pfs_exemplar_add(&full, 0, 3, 1, 3, 7);
    pfs_exemplar_merge(&x, &full);
    assert_int_equal(x.n, 0);
    pfs_exemplar_init(&x, 100000);
    assert_int_equal(x.k, PFS_EXEMPLAR_MAX);
}

static void test_tag(void **state)
{
    (void)state;
    struct pfs_exemplars x;
    struct sample want[8];
    pfs_exemplar_init(&x, 8);
    feed(&x, RANDOM, 8, 3, 5, 2, want);
    pfs_exemplar_tag(&x, 5, 2, 1, 9, NULL, NULL); /* no lookup: targets stay unknown */
    for (unsigned i = 0; i < x.n; i++) {
        assert_int_equal(x.e[i].rank, 5);
        assert_int_equal(x.e[i].thread, 2);
        assert_int_equal(x.e[i].host, 1);
        assert_int_equal(x.e[i].file, 9);
        assert_int_equal(x.e[i].target, -1);
    }
}

static int target_by_offset(void *arg, uint64_t off)
{
    return (int)(off >> 28) + *(int *)arg;
}

static void test_tag_target(void **state)
{
    (void)state;
    struct pfs_exemplars x;
    struct sample want[16];
    int base = 100;
    pfs_exemplar_init(&x, 16);
    feed(&x, RANDOM, 16, 11, 0, 0, want);
    x.e[3].target = 7; /* already known: kept */
    pfs_exemplar_tag(&x, 0, 0, 0, 0, target_by_offset, &base);
    for (unsigned i = 0; i < x.n; i++)
        assert_int_equal(x.e[i].target, i == 3 ? 7 : 100 + (int)(x.e[i].offset >> 28));
}

#define STREAMS 24

/* Streams of one job, each fed its own samples, merged in the given shape;
 * the result must be the first K of one sort of everything. */
static void merged_vs_sort(enum shape sh, unsigned k, unsigned per, int tree, uint64_t seed)
{
    static struct sample all[STREAMS * 2000];
    static struct pfs_exemplars xs[STREAMS];
    struct pfs_exemplar got[PFS_EXEMPLAR_MAX];
    char what[96];
    unsigned total = 0;
    for (int i = 0; i < STREAMS; i++) {
        int rank = i / 3, thread = i % 3;
        pfs_exemplar_init(&xs[i], k);
        feed(&xs[i], sh, per, seed + (uint64_t)i, rank, thread, all + total);
        pfs_exemplar_tag(&xs[i], rank, thread, rank / 4, i, NULL, NULL);
        total += per;
    }
    if (tree == 0) { /* a chain, 0 <- 1 <- 2 ... */
        for (int i = 1; i < STREAMS; i++)
            pfs_exemplar_merge(&xs[0], &xs[i]);
    } else if (tree == 1) { /* a binomial tree, as MPI_Reduce may do */
        for (int step = 1; step < STREAMS; step *= 2)
            for (int i = 0; i + step < STREAMS; i += 2 * step)
                pfs_exemplar_merge(&xs[i], &xs[i + step]);
    } else { /* backwards into the last, then copied to 0 */
        for (int i = STREAMS - 2; i >= 0; i--)
            pfs_exemplar_merge(&xs[STREAMS - 1], &xs[i]);
        xs[0] = xs[STREAMS - 1];
    }
    qsort(all, total, sizeof(all[0]), cmp_sample);
    unsigned n = pfs_exemplar_sorted(&xs[0], got);
    snprintf(what, sizeof(what), "merge shape %d k %u per %u tree %d", sh, k, per, tree);
    same_as(got, n, all, total, k, what);
    assert_int_equal(xs[0].seen, total);
}

static void test_merge_vs_sort(void **state)
{
    (void)state;
    for (int sh = 0; sh < NSHAPES; sh++)
        for (int tree = 0; tree < 3; tree++) {
            merged_vs_sort((enum shape)sh, 16, 2000, tree, 100 + sh);
            merged_vs_sort((enum shape)sh, 64, 3, tree, 200 + sh); /* K > all samples */
            merged_vs_sort((enum shape)sh, 1, 50, tree, 300 + sh);
        }
}

static void test_merge_other_k(void **state)
{
    (void)state;
    struct pfs_exemplars a, b;
    struct sample wa[40], wb[40];
    pfs_exemplar_init(&a, 4);
    pfs_exemplar_init(&b, 32);
    feed(&a, INCREASING, 40, 1, 0, 0, wa);
    feed(&b, INCREASING, 40, 1, 1, 0, wb); /* the same durations, a higher rank */
    pfs_exemplar_tag(&a, 0, 0, 0, 0, NULL, NULL);
    pfs_exemplar_tag(&b, 1, 0, 0, 1, NULL, NULL);
    pfs_exemplar_merge(&a, &b);
    struct pfs_exemplar got[4];
    assert_int_equal(pfs_exemplar_sorted(&a, got), 4);
    /* 1039 of rank 0, of rank 1, then 1038 of each: a kept only 4, b 32 */
    static const int rk[] = {0, 1, 0, 1};
    for (int i = 0; i < 4; i++) {
        assert_int_equal(got[i].dur_ns, 1039 - i / 2);
        assert_int_equal(got[i].rank, rk[i]);
    }
    assert_int_equal(a.seen, 80);
    /* merging an empty one changes nothing but the count */
    struct pfs_exemplars e, before = a;
    pfs_exemplar_init(&e, 16);
    pfs_exemplar_merge(&a, &e);
    assert_int_equal(a.n, before.n);
    for (unsigned i = 0; i < a.n; i++)
        assert_int_equal(a.e[i].dur_ns, before.e[i].dur_ns);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_stream_vs_sort),
        cmocka_unit_test(test_threshold),
        cmocka_unit_test(test_tag),
        cmocka_unit_test(test_tag_target),
        cmocka_unit_test(test_merge_vs_sort),
        cmocka_unit_test(test_merge_other_k),
    };
    return cmocka_run_group_tests_name("exemplar", tests, NULL, NULL);
}
