/* Training reads' arithmetic (src/core/train.c): every sample read exactly
 * once per epoch over the ranks, whatever the rank count; the order the
 * same from the same seed and another from another seed or epoch; where
 * a sample lies; the presets' shapes; the AU model by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

#include <cmocka.h>

#include "pfs/train.h"

/* For each world size, the ranks' shares of an epoch's permutation cover
 * every sample once, and no share differs from another by more than one. */
static void test_every_sample_once(void **state)
{
    (void)state;
    const uint64_t ns[] = {1, 7, 32, 64, 1000, 4099};
    for (size_t k = 0; k < sizeof(ns) / sizeof(ns[0]); k++) {
        const uint64_t n = ns[k];
        uint64_t *perm = malloc(n * sizeof(*perm));
        unsigned char *seen = malloc(n);
        assert_non_null(perm);
        assert_non_null(seen);
        for (int w = 1; w <= 9; w++)
            for (int e = 0; e < 3; e++) {
                pfs_train_shuffle(perm, n, 42, e);
                memset(seen, 0, n);
                uint64_t next = 0, lo = UINT64_MAX, hi = 0;
                for (int r = 0; r < w; r++) {
                    uint64_t first, count;
                    pfs_train_share(n, w, r, &first, &count);
                    assert_int_equal(first, next); /* contiguous, in rank order */
                    next = first + count;
                    lo = count < lo ? count : lo;
                    hi = count > hi ? count : hi;
                    for (uint64_t i = first; i < first + count; i++) {
                        assert_true(perm[i] < n);
                        assert_int_equal(seen[perm[i]], 0);
                        seen[perm[i]] = 1;
                    }
                }
                assert_int_equal(next, n);
                assert_true(hi - lo <= 1);
                for (uint64_t i = 0; i < n; i++)
                    assert_int_equal(seen[i], 1);
            }
        free(perm);
        free(seen);
    }
}

/* Shares by hand: 10 over 4 ranks are 3, 3, 2, 2. */
static void test_share_by_hand(void **state)
{
    (void)state;
    const uint64_t want_first[] = {0, 3, 6, 8}, want_count[] = {3, 3, 2, 2};
    for (int r = 0; r < 4; r++) {
        uint64_t first, count;
        pfs_train_share(10, 4, r, &first, &count);
        assert_int_equal(first, want_first[r]);
        assert_int_equal(count, want_count[r]);
    }
    assert_int_equal(pfs_train_batches(3, 2), 2);
    assert_int_equal(pfs_train_batches(8, 4), 2);
    assert_int_equal(pfs_train_batches(0, 4), 0);
}

/* The same seed and epoch give the same order; another seed or epoch
 * another; and it is not the identity. */
static void test_reproducible(void **state)
{
    (void)state;
    enum { N = 256 };
    uint64_t a[N], b[N];
    pfs_train_shuffle(a, N, 7, 1);
    pfs_train_shuffle(b, N, 7, 1);
    assert_memory_equal(a, b, sizeof(a));
    pfs_train_shuffle(b, N, 8, 1);
    assert_memory_not_equal(a, b, sizeof(a));
    pfs_train_shuffle(b, N, 7, 2);
    assert_memory_not_equal(a, b, sizeof(a));
    int fixed = 0;
    for (int i = 0; i < N; i++)
        fixed += a[i] == (uint64_t)i;
    assert_true(fixed < 16); /* about 1 expected */
    /* Pinned: a change of the order changes every kept run's reads. */
    uint64_t p[5];
    pfs_train_shuffle(p, 5, 1, 0);
    uint64_t sum = 0;
    for (int i = 0; i < 5; i++)
        sum += p[i];
    assert_int_equal(sum, 10);
}

static void test_where(void **state)
{
    (void)state;
    struct pfs_train t;
    assert_int_equal(pfs_train_preset("tiny-records", &t), 0);
    uint64_t f, off;
    pfs_train_where(&t, 0, &f, &off);
    assert_int_equal(f, 0);
    assert_int_equal(off, 0);
    pfs_train_where(&t, 17, &f, &off); /* 16 records a file: file 1, record 1 */
    assert_int_equal(f, 1);
    assert_int_equal(off, 16384);
    pfs_train_where(&t, 63, &f, &off);
    assert_int_equal(f, 3);
    assert_int_equal(off, 15 * 16384);
}

/* MLPerf Storage's H100 workloads (configs/dlio/workload/<name>_h100.yaml). */
static void test_presets(void **state)
{
    (void)state;
    struct pfs_train t;
    assert_int_equal(pfs_train_preset("unet3d", &t), 0);
    assert_int_equal(t.files, 168);
    assert_int_equal(t.sample, 146600628);
    assert_int_equal(t.batch, 7);
    assert_true(t.compute_s == 0.323 && t.gate == 90);
    assert_int_equal(pfs_train_preset("resnet50", &t), 0);
    assert_int_equal(pfs_train_samples(&t), 1024 * 1251);
    assert_int_equal(t.batch, 400);
    assert_int_equal(pfs_train_preset("cosmoflow", &t), 0);
    assert_int_equal(pfs_train_bytes(&t), 524288ull * 2828486);
    assert_true(t.gate == 70);
    assert_int_equal(pfs_train_preset("nope", &t), -1);
    int n = 0;
    while (pfs_train_preset_name(n))
        n++;
    assert_int_equal(n, 6);
    const struct pfs_train big = {UINT64_MAX / 2, 3, 1, 1, 0, 1, 0};
    assert_int_equal(pfs_train_samples(&big), UINT64_MAX);
    assert_int_equal(pfs_train_bytes(&big), UINT64_MAX);
}

/* AU by hand: 16 batches of 20 ms reads and 10 ms compute end at 330 ms,
 * 160 of compute: 48.48%; storage fast enough (1 ms reads): 160/161. */
static void test_au_model(void **state)
{
    (void)state;
    assert_true(fabs(pfs_train_au_model(16, 0.020, 0.010) - 100.0 * 160 / 330) < 1e-9);
    assert_true(fabs(pfs_train_au_model(16, 0.001, 0.010) - 100.0 * 160 / 161) < 1e-9);
    assert_true(pfs_train_au(0, 0) == 100.0);
    assert_true(pfs_train_au(3, 1) == 75.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_sample_once), cmocka_unit_test(test_share_by_hand),
        cmocka_unit_test(test_reproducible),      cmocka_unit_test(test_where),
        cmocka_unit_test(test_presets),           cmocka_unit_test(test_au_model),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
