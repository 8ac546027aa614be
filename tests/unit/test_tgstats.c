/* Per-target figures (pfs/tgstats.h): a transfer's bytes split over the
 * stripes it spans, each stripe's to its primary; an operation, the
 * latency and the busy time once per target touched; tables of different
 * target sets merged by name in any order; the PFS_TG_MAX bound and its
 * count of what it left out; the slow flag by the stragglers' rule. */
#define _GNU_SOURCE
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pfs/tgstats.h"

#define MIB (1ull << 20)

/* A RAID0 layout of n stripes of 1 MiB over targets named names[]. */
static void raid0(struct pfs_layout *l, const char *const *names, uint32_t n)
{
    pfs_layout_init(l, "lustre");
    uint32_t slots[8];
    for (uint32_t i = 0; i < n; i++)
        slots[i] = (uint32_t)pfs_layout_target(l, names[i], (int64_t)i);
    struct pfs_layout_comp c = {.start = 0, .end = PFS_LAYOUT_EOF, .kind = PFS_COMP_RAID0, .count = n,
                                .unit = MIB, .width = 1};
    assert_int_equal(pfs_layout_add_comp(l, &c, slots, n), 0);
    l->known = 1;
}

static const struct pfs_tg_stat *find(const struct pfs_tg_acc *a, const char *name)
{
    for (uint32_t i = 0; i < a->n; i++)
        if (strcmp(a->s[i].name, name) == 0)
            return &a->s[i];
    return NULL;
}

static void test_split_over_stripes(void **state)
{
    (void)state;
    static const char *const names[] = {"OST0000", "OST0001", "OST0002", "OST0003"};
    struct pfs_layout l;
    struct pfs_tg_acc a;
    raid0(&l, names, 4);
    pfs_tg_init(&a);
    assert_int_equal(pfs_tg_use(&a, &l), 0);
    assert_int_equal(a.single, -1);
    /* 2 MiB from 0.5 MiB: 0.5 on OST0, 1 on OST1, 0.5 on OST2. */
    pfs_tg_add(&a, MIB / 2, 2 * MIB, 1000);
    /* 8 MiB from 0: two whole stripe rounds, 2 MiB on each. */
    pfs_tg_add(&a, 0, 8 * MIB, 5000);
    assert_int_equal(find(&a, "OST0000")->bytes, MIB / 2 + 2 * MIB);
    assert_int_equal(find(&a, "OST0001")->bytes, MIB + 2 * MIB);
    assert_int_equal(find(&a, "OST0002")->bytes, MIB / 2 + 2 * MIB);
    assert_int_equal(find(&a, "OST0003")->bytes, 2 * MIB);
    assert_int_equal(find(&a, "OST0001")->h.count, 2);
    assert_int_equal(find(&a, "OST0003")->h.count, 1); /* one transfer, however many of its stripes */
    assert_int_equal(find(&a, "OST0000")->h.sum_ns, 6000);
    assert_int_equal(find(&a, "OST0003")->h.count, 1);
    assert_int_equal(find(&a, "OST0003")->h.max_ns, 5000);
    /* More pieces than one round holds: 40 stripes of 1 MiB, 10 on each. */
    pfs_tg_reset(&a);
    pfs_tg_add(&a, 0, 40 * MIB, 7);
    uint64_t sum = 0;
    for (uint32_t i = 0; i < a.n; i++) {
        assert_int_equal(a.s[i].bytes, 10 * MIB);
        assert_int_equal(a.s[i].h.count, 1);
        sum += a.s[i].bytes;
    }
    assert_int_equal(sum, 40 * MIB);
    pfs_tg_free(&a);
    pfs_layout_free(&l);
}

static void test_single_and_unknown(void **state)
{
    (void)state;
    struct pfs_layout l;
    struct pfs_tg_acc a;
    pfs_layout_init(&l, "glusterfs");
    assert_int_equal(pfs_layout_whole(&l, "vm:/bricks/b2"), 0);
    pfs_tg_init(&a);
    assert_int_equal(pfs_tg_use(&a, &l), 0);
    assert_true(a.single >= 0);
    pfs_tg_add(&a, 123, 4096, 10);
    pfs_tg_add(&a, 0, 4096, 30);
    assert_int_equal(find(&a, "vm:/bricks/b2")->bytes, 8192);
    assert_int_equal(find(&a, "vm:/bricks/b2")->h.sum_ns, 40);
    pfs_layout_unknown(&l, "no provider");
    assert_int_equal(pfs_tg_use(&a, &l), 0);
    pfs_tg_add(&a, 0, 100, 1);
    assert_int_equal(find(&a, "unknown")->bytes, 100);
    assert_int_equal(find(&a, "vm:/bricks/b2")->bytes, 8192); /* an earlier file's figures stay */
    pfs_tg_free(&a);
    pfs_layout_free(&l);
}

/* The deferred single-target path against the per-transfer one over the
 * same transfers: a's target fed by pfs_tg_add one by one, b's once by
 * pfs_tg_add_all from a stream's own figures (a histogram of every
 * transfer's latency, the bytes each moved: a short one's part, a failed
 * one's none), a --ramp cut (both reset) in the middle, on an earlier
 * file's entry that holds figures already. Equal to the byte and bucket. */
static void test_add_all_as_per_transfer(void **state)
{
    (void)state;
    struct pfs_layout old, l;
    struct pfs_tg_acc a, b;
    pfs_layout_init(&old, "local");
    pfs_layout_init(&l, "local");
    assert_int_equal(pfs_layout_whole(&old, "node0:sdb"), 0);
    assert_int_equal(pfs_layout_whole(&l, "node0:sda"), 0);
    pfs_tg_init(&a), pfs_tg_init(&b);
    assert_int_equal(pfs_tg_use(&a, &old), 0);
    assert_int_equal(pfs_tg_use(&b, &old), 0);
    pfs_tg_add(&a, 0, 4096, 777);
    pfs_tg_add(&b, 0, 4096, 777);
    assert_int_equal(pfs_tg_use(&a, &l), 0);
    assert_int_equal(pfs_tg_use(&b, &l), 0);
    struct pfs_hist *h = malloc(sizeof(*h));
    assert_non_null(h);
    uint64_t bytes = 0, x = 0x9e3779b97f4a7c15ull;
    for (int round = 0; round < 2; round++) {
        pfs_hist_reset(h);
        bytes = 0;
        for (uint64_t k = 0; k < 5000; k++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            const uint64_t lat = (x >> 20) % (1ull << (10 + k % 28)); /* 0 ns .. 2^37 ns */
            const int64_t res = k % 97 == 5 ? -5 : k % 89 == 3 ? (int64_t)(x % 4096) : 4096;
            const uint64_t moved = res > 0 ? (uint64_t)res : 0;
            pfs_tg_add(&a, k * 4096, moved, lat);
            pfs_hist_add(h, lat);
            bytes += moved;
        }
        if (round == 0) { /* the ramp's cut: all of it dropped, on both */
            pfs_tg_reset(&a);
            pfs_tg_reset(&b);
        }
    }
    assert_int_equal(pfs_tg_add_all(&b, bytes, h), 0);
    assert_int_equal(a.n, b.n);
    for (uint32_t i = 0; i < a.n; i++) {
        assert_string_equal(a.s[i].name, b.s[i].name);
        assert_int_equal(a.s[i].bytes, b.s[i].bytes);
        assert_memory_equal(&a.s[i].h, &b.s[i].h, sizeof(a.s[i].h));
    }
    assert_int_equal(find(&b, "node0:sda")->h.count, 5000);
    /* A striped file has no single target: nothing added. */
    static const char *const names[] = {"OST0000", "OST0001"};
    struct pfs_layout s;
    raid0(&s, names, 2);
    assert_int_equal(pfs_tg_use(&b, &s), 0);
    assert_int_equal(pfs_tg_add_all(&b, bytes, h), -1);
    assert_int_equal(find(&b, "OST0000")->h.count, 0);
    free(h);
    pfs_tg_free(&a), pfs_tg_free(&b);
    pfs_layout_free(&old), pfs_layout_free(&l), pfs_layout_free(&s);
}

/* Two ranks' tables, different targets in different orders, merged in
 * both orders: the same figures per name. */
static void test_merge_by_name(void **state)
{
    (void)state;
    struct pfs_tg_acc x, y, m1, m2;
    pfs_tg_init(&x), pfs_tg_init(&y), pfs_tg_init(&m1), pfs_tg_init(&m2);
    static const char *const nx[] = {"b1", "b2"}, *const ny[] = {"b3", "b1"};
    struct pfs_layout lx, ly;
    raid0(&lx, nx, 2);
    raid0(&ly, ny, 2);
    assert_int_equal(pfs_tg_use(&x, &lx), 0);
    assert_int_equal(pfs_tg_use(&y, &ly), 0);
    pfs_tg_add(&x, 0, 2 * MIB, 100);   /* b1 1 MiB, b2 1 MiB */
    pfs_tg_add(&y, 0, 3 * MIB, 900);   /* b3 2 MiB, b1 1 MiB */
    assert_int_equal(pfs_tg_merge(&m1, x.s, x.n), 0);
    assert_int_equal(pfs_tg_merge(&m1, y.s, y.n), 0);
    assert_int_equal(pfs_tg_merge(&m2, y.s, y.n), 0);
    assert_int_equal(pfs_tg_merge(&m2, x.s, x.n), 0);
    assert_int_equal(m1.n, 3);
    assert_int_equal(m2.n, 3);
    static const char *const all[] = {"b1", "b2", "b3"};
    for (int i = 0; i < 3; i++) {
        const struct pfs_tg_stat *a = find(&m1, all[i]), *b = find(&m2, all[i]);
        assert_non_null(a);
        assert_non_null(b);
        assert_int_equal(a->bytes, b->bytes);
        assert_int_equal(a->h.count, b->h.count);
        assert_int_equal(a->h.sum_ns, b->h.sum_ns);
        assert_memory_equal(a->h.b, b->h.b, sizeof(a->h.b));
    }
    assert_int_equal(find(&m1, "b1")->bytes, 2 * MIB);
    assert_int_equal(find(&m1, "b1")->h.count, 2);
    assert_int_equal(find(&m1, "b1")->h.max_ns, 900);
    assert_int_equal(find(&m1, "b1")->h.min_ns, 100);
    pfs_tg_free(&x), pfs_tg_free(&y), pfs_tg_free(&m1), pfs_tg_free(&m2);
    pfs_layout_free(&lx), pfs_layout_free(&ly);
}

/* PFS_TG_MAX targets at most; the rest counted, and a merge adds them up. */
static void test_bound(void **state)
{
    (void)state;
    struct pfs_tg_acc a, m;
    pfs_tg_init(&a), pfs_tg_init(&m);
    char name[32];
    for (int i = 0; i < PFS_TG_MAX + 5; i++) {
        snprintf(name, sizeof(name), "t%04d", i);
        int e = pfs_tg_entry(&a, name);
        assert_true(i < PFS_TG_MAX ? e == i : e == -1);
    }
    assert_int_equal(a.n, PFS_TG_MAX);
    assert_int_equal(a.dropped, 5);
    assert_int_equal(pfs_tg_entry(&a, "t0007"), 7); /* a known name still has its row */
    struct pfs_tg_stat extra;
    memset(&extra, 0, sizeof(extra));
    snprintf(extra.name, sizeof(extra.name), "another");
    pfs_hist_reset(&extra.h);
    assert_int_equal(pfs_tg_merge(&m, a.s, a.n), 0);
    assert_int_equal(pfs_tg_merge(&m, &extra, 1), 0);
    assert_int_equal(m.n, PFS_TG_MAX);
    assert_int_equal(m.dropped, 1);
    pfs_tg_free(&a), pfs_tg_free(&m);
}

/* Three bricks, one at a third of the others' speed: flagged, with its
 * ratios to the median target; "unknown" is not judged. */
static void test_rows_slow(void **state)
{
    (void)state;
    struct pfs_tg_acc a;
    pfs_tg_init(&a);
    static const char *const names[] = {"b1", "b2", "b3", "unknown"};
    const uint64_t lat[] = {1000000, 3000000, 1100000, 9000000};
    for (int i = 0; i < 4; i++) {
        int e = pfs_tg_entry(&a, names[i]);
        for (int k = 0; k < 100; k++) {
            a.s[e].bytes += MIB;
            pfs_hist_add(&a.s[e].h, lat[i]);
        }
    }
    struct pfs_tg_row rows[4];
    assert_int_equal(pfs_tg_rows(a.s, a.n, 0.8, rows), 1);
    assert_int_equal(rows[1].slow, 1);
    assert_int_equal(rows[0].slow, 0);
    assert_int_equal(rows[2].slow, 0);
    assert_int_equal(rows[3].slow, 0);
    assert_true(isnan(rows[3].p99_ratio));
    assert_true(fabs(rows[1].p99_ratio - 3000000.0 / 1100000.0) < 0.03);
    assert_true(fabs(rows[1].busy_s - 0.3) < 1e-9);
    assert_true(fabs(rows[1].bandwidth - 100.0 * MIB / 0.3) < 1);
    assert_true(fabs(rows[1].bw_ratio - 1.1 / 3.0) < 1e-6);
    /* One target alone is never slow. */
    assert_int_equal(pfs_tg_rows(a.s, 1, 0.8, rows), 0);
    pfs_tg_free(&a);
}

static void test_hash(void **state)
{
    (void)state;
    assert_true(pfs_tg_hash("vm:/bricks/b1") >= 0);
    assert_true(pfs_tg_hash("") >= 0);
    assert_int_not_equal(pfs_tg_hash("vm:/bricks/b1"), pfs_tg_hash("vm:/bricks/b2"));
    assert_int_equal(pfs_tg_hash("OST0003"), pfs_tg_hash("OST0003"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_split_over_stripes), cmocka_unit_test(test_single_and_unknown),
        cmocka_unit_test(test_merge_by_name),      cmocka_unit_test(test_bound),
        cmocka_unit_test(test_rows_slow),          cmocka_unit_test(test_hash),
        cmocka_unit_test(test_add_all_as_per_transfer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
