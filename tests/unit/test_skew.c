/* --random-dist through the offset generator (src/core/offsetgen.c): the
 * offsets a stream hands out are the distribution's draws, placed in the
 * permutation the write laid the block out in (random order) or as drawn
 * (uniform order, the seeks phase); their per-decile hit counts over a
 * known block count, exactly; a stonewall-cut block drawn only where the
 * write reached; seeking; and without a distribution, --random still a
 * permutation. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pfs/core.h"
#include "pfs/dist.h"
#include "pfs/offsetgen.h"

#define NB 10000u  /* blocks of the stream's file */
#define XF 4096u   /* bytes per transfer */
#define DRAWS 200000u
#define WSEED 0x5eedULL /* the write's permutation key */
#define RSEED 42u       /* the run's seed */

static struct pfs_dist_spec parse(const char *s)
{
    struct pfs_dist_spec sp;
    char err[256];
    if (pfs_dist_parse(s, &sp, err, sizeof(err)) != 0)
        fail_msg("%s", err);
    return sp;
}

/* A file per stream (stream 1 of 2): transfer k at k x XF. */
static struct pfs_offgen gen(int order, const struct pfs_dist_spec *sp, uint64_t dist_n)
{
    const struct pfs_offgen_spec os = {
        .order = order, .stream = 1, .nstreams = 2, .block = (uint64_t)NB * XF, .transfer = XF, .nxfers = NB,
        .seed = WSEED, .dist = sp, .dist_n = dist_n, .dist_seed = RSEED, .dist_stream = 1,
    };
    struct pfs_offgen g;
    pfs_offgen_init(&g, &os);
    return g;
}

static int cmp_desc(const void *a, const void *b)
{
    const uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x < y) - (x > y);
}

/* Hits per tenth of the file, and per tenth of its blocks ranked by hits. */
static void tenths(uint32_t *h, uint64_t *pos, uint64_t *hot)
{
    memset(pos, 0, 10 * sizeof(*pos));
    memset(hot, 0, 10 * sizeof(*hot));
    for (uint64_t b = 0; b < NB; b++)
        pos[b * 10 / NB] += h[b];
    qsort(h, NB, sizeof(*h), cmp_desc);
    for (uint64_t b = 0; b < NB; b++)
        hot[b * 10 / NB] += h[b];
}

/* zipf:1.2 in random order: each offset is the write's permutation of the
 * draw, so the file sees the distribution's hit counts (ranked, exactly its
 * own), moved to the write's places; the per-tenth counts are fixed. */
static void test_zipf_offsets(void **state)
{
    (void)state;
    const struct pfs_dist_spec sp = parse("zipf:1.2");
    struct pfs_offgen g = gen(PFS_ORDER_RANDOM, &sp, NB);
    struct pfs_dist d;
    char err[256];
    assert_int_equal(pfs_dist_init(&d, &sp, NB, RSEED, 1, err, sizeof(err)), 0);
    uint32_t *h = calloc(NB, sizeof(*h)), *own = calloc(NB, sizeof(*own));
    assert_non_null(h);
    assert_non_null(own);
    for (uint64_t k = 0; k < DRAWS; k++) {
        const uint64_t off = pfs_offgen_next(&g), v = pfs_dist_at(&d, k);
        assert_true(off == pfs_permute(v, NB, WSEED) * XF);
        h[off / XF]++;
        own[v]++;
    }
    uint64_t pos[10], hot[10], opos[10], ohot[10];
    tenths(h, pos, hot);
    tenths(own, opos, ohot);
    print_message("zipf:1.2 over %u blocks, %u draws: per tenth of the file", NB, DRAWS);
    for (int i = 0; i < 10; i++)
        print_message(" %llu", (unsigned long long)pos[i]);
    print_message("; ranked");
    for (int i = 0; i < 10; i++)
        print_message(" %llu", (unsigned long long)hot[i]);
    print_message("\n");
    /* Exactly these for run seed 42, stream 1, write key 0x5eed, on every run. */
    static const uint64_t want_pos[10] = {15107, 6885, 14965, 28458, 21051, 8508, 22198, 57812, 12129, 12887};
    static const uint64_t want_hot[10] = {182143, 6828, 3685, 2559, 2000, 1170, 1000, 615, 0, 0};
    for (int i = 0; i < 10; i++) {
        assert_true(pos[i] == want_pos[i]);
        assert_true(hot[i] == want_hot[i]);
        assert_true(hot[i] == ohot[i]); /* the distribution's own shape */
    }
    assert_true(hot[0] > DRAWS * 9 / 10); /* the hot tenth takes most: a permutation would give a tenth */
    free(h);
    free(own);
}

/* A write the stonewall cut after 300 transfers wrote the first 300 of its
 * permutation: the draws land there only, and on most of them. */
static void test_cut_block(void **state)
{
    (void)state;
    const struct pfs_dist_spec sp = parse("pareto:0.2");
    struct pfs_offgen g = gen(PFS_ORDER_RANDOM, &sp, 300);
    unsigned char *written = calloc(NB, 1), *seen = calloc(NB, 1);
    assert_non_null(written);
    assert_non_null(seen);
    for (uint64_t i = 0; i < 300; i++)
        written[pfs_permute(i, NB, WSEED)] = 1;
    unsigned distinct = 0;
    for (uint64_t k = 0; k < 20000; k++) {
        const uint64_t b = pfs_offgen_next(&g) / XF;
        assert_true(b < NB && written[b]);
        distinct += !seen[b];
        seen[b] = 1;
    }
    assert_true(distinct > 150 && distinct <= 300);
    free(written);
    free(seen);
}

/* Uniform order (the seeks phase): the draw is the transfer; seeking makes
 * draw j the next; the same spec draws the same, another seed not. */
static void test_uniform_order_and_seek(void **state)
{
    (void)state;
    const struct pfs_dist_spec sp = parse("normal:5:0.5");
    struct pfs_offgen g = gen(PFS_ORDER_UNIFORM, &sp, NB), again = gen(PFS_ORDER_UNIFORM, &sp, NB);
    struct pfs_dist d;
    char err[256];
    assert_int_equal(pfs_dist_init(&d, &sp, NB, RSEED, 1, err, sizeof(err)), 0);
    for (uint64_t k = 0; k < 5000; k++) {
        const uint64_t off = pfs_offgen_next(&g);
        assert_true(off == pfs_dist_at(&d, k) * XF);
        assert_true(off == pfs_offgen_next(&again));
    }
    pfs_offgen_seek(&g, 123);
    assert_true(pfs_offgen_next(&g) == pfs_dist_at(&d, 123) * XF);
    assert_true(g.j == 124);
    const struct pfs_offgen_spec other = {
        .order = PFS_ORDER_UNIFORM, .stream = 1, .nstreams = 2, .block = (uint64_t)NB * XF, .transfer = XF,
        .nxfers = NB, .seed = WSEED, .dist = &sp, .dist_n = NB, .dist_seed = RSEED + 1, .dist_stream = 1,
    };
    struct pfs_offgen o;
    pfs_offgen_init(&o, &other);
    pfs_offgen_seek(&g, 0);
    unsigned same = 0;
    for (int k = 0; k < 1000; k++)
        same += pfs_offgen_next(&g) == pfs_offgen_next(&o);
    assert_true(same < 100);
}

/* Without a distribution (or with nothing to draw from) --random stays
 * today's permutation: every block once per pass. */
static void test_no_dist_is_permutation(void **state)
{
    (void)state;
    const struct pfs_dist_spec sp = parse("zipf:1.2");
    struct pfs_offgen plain = gen(PFS_ORDER_RANDOM, NULL, 0), empty = gen(PFS_ORDER_RANDOM, &sp, 0);
    unsigned char *seen = calloc(NB, 1);
    assert_non_null(seen);
    for (uint64_t k = 0; k < NB; k++) {
        const uint64_t off = pfs_offgen_next(&plain);
        assert_true(off == pfs_permute(k, NB, WSEED) * XF);
        assert_true(off == pfs_offgen_next(&empty));
        assert_false(seen[off / XF]);
        seen[off / XF] = 1;
    }
    free(seen);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_zipf_offsets),
        cmocka_unit_test(test_cut_block),
        cmocka_unit_test(test_uniform_order_and_seek),
        cmocka_unit_test(test_no_dist_is_permutation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
