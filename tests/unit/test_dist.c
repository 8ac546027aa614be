/* Offset distributions and mixes (src/core/dist.c, src/core/mix.c): the
 * per-decile hit counts of a seeded zipf, exactly, and against the
 * generator's own probabilities; pareto's and normal's shapes; that
 * scrambling moves blocks without changing their hit counts; the mixes'
 * exact hundreds; reproducibility; and the parsers' messages. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pfs/dist.h"

#define NB 262144u    /* blocks: 1 GiB of 4 KiB, as the fio comparison */
#define DRAWS 1000000u

static struct pfs_dist make(const char *spec, int scramble, uint64_t n, uint64_t seed, uint64_t stream)
{
    struct pfs_dist_spec sp;
    char err[256];
    if (pfs_dist_parse(spec, &sp, err, sizeof(err)) != 0)
        fail_msg("%s", err);
    sp.scramble = scramble;
    struct pfs_dist d;
    if (pfs_dist_init(&d, &sp, n, seed, stream, err, sizeof(err)) != 0)
        fail_msg("%s", err);
    return d;
}

/* Hits per block of DRAWS draws (calloc'd: the caller frees). */
static uint32_t *hits(struct pfs_dist *d)
{
    uint32_t *h = calloc(d->n, sizeof(*h));
    assert_non_null(h);
    for (uint64_t k = 0; k < DRAWS; k++) {
        const uint64_t b = pfs_dist_next(d);
        assert_true(b < d->n);
        h[b]++;
    }
    return h;
}

static void deciles(const uint32_t *h, uint64_t n, uint64_t *dec)
{
    memset(dec, 0, 10 * sizeof(*dec));
    for (uint64_t b = 0; b < n; b++)
        dec[b * 10 / n] += h[b];
}

/* Gray's generator's probability that rank < m (m >= 0), from its closed
 * form, computed here independently of src/core/dist.c's constants. */
static double gray_cdf(double m, double n, double theta, double zetan)
{
    if (m <= 0)
        return 0;
    const double t1 = 1 / zetan, t2 = (1 + pow(0.5, theta)) / zetan;
    if (m <= 1)
        return t1;
    const double alpha = 1 / (1 - theta), eta = (1 - pow(2 / n, 1 - theta)) / (1 - (1 + pow(0.5, theta)) / zetan);
    /* rank = floor(n (eta u - eta + 1)^alpha) < m  <=>  u < 1 - ((m / n)^(1 / alpha) - 1) / (-eta), theta > 1 */
    double u = 1 - (pow(m / n, 1 / alpha) - 1) / -eta;
    if (u < t2)
        u = t2;
    return u > 1 ? 1 : u;
}

static void test_zipf_deciles(void **state)
{
    (void)state;
    struct pfs_dist d = make("zipf:1.2:0", 0, NB, 1, 0);
    uint32_t *h = hits(&d);
    uint64_t dec[10];
    deciles(h, NB, dec);
    print_message("zipf:1.2, %u blocks, %u draws, hits per decile:", NB, DRAWS);
    for (int i = 0; i < 10; i++)
        print_message(" %llu", (unsigned long long)dec[i]);
    print_message("\n");
    /* Exactly these for seed 1, stream 0, on every run. */
    static const uint64_t want[10] = {955674, 15436, 8238, 5457, 3919, 3115, 2576, 2215, 1724, 1646};
    for (int i = 0; i < 10; i++)
        assert_true(dec[i] == want[i]);
    /* And each within 5 standard errors of the generator's probability. */
    double zetan = 0;
    for (uint64_t i = NB; i >= 1; i--)
        zetan += pow((double)i, -1.2);
    assert_true(fabs(d.zetan / zetan - 1) < 1e-13); /* the tail by Euler-Maclaurin */
    for (int i = 0; i < 10; i++) {
        const double p = gray_cdf((double)(i + 1) * NB / 10, NB, 1.2, zetan) - gray_cdf((double)i * NB / 10, NB, 1.2, zetan);
        const double sd = sqrt(DRAWS * p * (1 - p));
        if (fabs((double)dec[i] - DRAWS * p) > 5 * sd)
            fail_msg("decile %d: %llu hits, expected %.0f +- %.0f", i, (unsigned long long)dec[i], DRAWS * p, 5 * sd);
    }
    /* The two hottest ranks by the exact law: 1/zetan and 2^-1.2/zetan. */
    assert_true(fabs(h[0] - DRAWS / zetan) < 5 * sqrt(DRAWS / zetan));
    assert_true(fabs(h[1] - DRAWS * pow(2, -1.2) / zetan) < 5 * sqrt(DRAWS * pow(2, -1.2) / zetan));
    free(h);
}

static int cmp_u32(const void *a, const void *b)
{
    const uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x < y) - (x > y);
}

/* Scrambling is a bijection of the blocks: the same draws give the same hit
 * counts, moved; the hottest block stays at the center. */
static void test_scramble(void **state)
{
    (void)state;
    static const char *specs[] = {"zipf:0.8:0.25", "pareto:0.2:0.5", "normal:3:0.7", "zipf:2"};
    for (size_t s = 0; s < sizeof(specs) / sizeof(specs[0]); s++) {
        struct pfs_dist a = make(specs[s], 0, 100003, 9, 2), b = make(specs[s], 1, 100003, 9, 2);
        uint32_t *ha = hits(&a), *hb = hits(&b);
        uint64_t moved = 0, hot_a = 0, hot_b = 0;
        for (uint64_t i = 0; i < a.n; i++) {
            moved += ha[i] != hb[i];
            hot_a = ha[i] > ha[hot_a] ? i : hot_a;
            hot_b = hb[i] > hb[hot_b] ? i : hot_b;
        }
        assert_true(moved > a.n / 100);
        const char *c = strchr(strchr(specs[s], ':') + 1, ':');
        if (c) { /* a center given: its block keeps its place and its hits */
            const uint64_t m = (uint64_t)(atof(c + 1) * (double)a.n);
            assert_true(ha[m] == hb[m]);
            if (specs[s][0] != 'n') /* zipf's and pareto's rank 0 is far the hottest: there */
                assert_true(hot_a == m && hot_b == m);
        }
        qsort(ha, a.n, sizeof(*ha), cmp_u32);
        qsort(hb, b.n, sizeof(*hb), cmp_u32);
        assert_memory_equal(ha, hb, a.n * sizeof(*ha));
        free(ha);
        free(hb);
    }
    /* zipf's hottest block at floor(center x n), scrambled or not. */
    struct pfs_dist z = make("zipf:1.2:0.25", 1, NB, 3, 0);
    uint32_t *hz = hits(&z);
    uint64_t hot = 0;
    for (uint64_t i = 0; i < NB; i++)
        hot = hz[i] > hz[hot] ? i : hot;
    assert_true(hot == NB / 4);
    free(hz);
}

/* The placement is a bijection of the blocks for every n, and puts rank 0
 * at the center. */
static void test_place_bijection(void **state)
{
    (void)state;
    const uint64_t ns[] = {1, 2, 3, 4, 5, 1000, 1024, 4097, 100003, 262144};
    for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++) {
        for (int scr = 0; scr < 2; scr++) {
            struct pfs_dist d = make("pareto:0.3:0.6", scr, ns[i], 21, 0);
            uint8_t *seen = calloc(ns[i], 1);
            assert_non_null(seen);
            for (uint64_t v = 0; v < ns[i]; v++) {
                const uint64_t b = pfs_dist_place(&d, v);
                assert_true(b < ns[i] && !seen[b]);
                seen[b] = 1;
            }
            free(seen);
            assert_true(pfs_dist_place(&d, 0) == (uint64_t)(0.6 * (double)ns[i]));
        }
    }
}

static void test_pareto_normal_uniform(void **state)
{
    (void)state;
    /* pareto:0.2: the hottest 20% of the blocks take 80% of the hits. */
    struct pfs_dist p = make("pareto:0.2:0", 0, NB, 5, 1);
    uint32_t *h = hits(&p);
    uint64_t top = 0;
    for (uint64_t b = 0; b < NB / 5; b++)
        top += h[b];
    assert_true(fabs((double)top / DRAWS - 0.8) < 5 * sqrt(0.16 / DRAWS));
    free(h);
    /* normal:5 around 0.5: 68.27% within one sd (13107.2 blocks), 95.45% within two. */
    struct pfs_dist n = make("normal:5", 0, NB, 5, 1);
    h = hits(&n);
    uint64_t in1 = 0, in2 = 0;
    for (uint64_t b = 0; b < NB; b++) {
        const double z = fabs(((double)b + 0.5 - NB / 2.0) / (0.05 * NB));
        in1 += z < 1 ? h[b] : 0;
        in2 += z < 2 ? h[b] : 0;
    }
    assert_true(fabs((double)in1 / DRAWS - 0.682689) < 5 * sqrt(0.2167 / DRAWS) + 1.0 / 13107);
    assert_true(fabs((double)in2 / DRAWS - 0.954500) < 5 * sqrt(0.0434 / DRAWS) + 1.0 / 13107);
    free(h);
    /* uniform: a tenth per decile. */
    struct pfs_dist u = make("uniform", 1, NB, 5, 1);
    h = hits(&u);
    uint64_t dec[10];
    deciles(h, NB, dec);
    for (int i = 0; i < 10; i++)
        assert_true(fabs((double)dec[i] - DRAWS / 10.0) < 5 * sqrt(DRAWS * 0.09));
    free(h);
    /* The quantile against known values. */
    assert_float_equal(pfs_normal_quantile(0.5), 0, 1e-12);
    assert_float_equal(pfs_normal_quantile(0.975), 1.959963984540054, 3e-9);
    assert_float_equal(pfs_normal_quantile(0.001), -3.090232306167813, 4e-9);
    assert_float_equal(pfs_normal_quantile(1e-12), -7.034483825446340, 1e-8);
    const double tail = 0x1p-20; /* 1 - tail is exact: the upper branch mirrors the lower */
    assert_float_equal(pfs_normal_quantile(1 - tail), -pfs_normal_quantile(tail), 1e-12);
}

static void test_reproducible(void **state)
{
    (void)state;
    static const char *specs[] = {"uniform", "zipf:1.2", "pareto:0.3", "normal:10"};
    for (size_t s = 0; s < sizeof(specs) / sizeof(specs[0]); s++) {
        struct pfs_dist a = make(specs[s], 1, 1000003, 77, 4), b = make(specs[s], 1, 1000003, 77, 4);
        struct pfs_dist other = make(specs[s], 1, 1000003, 77, 5);
        int same = 0;
        for (uint64_t k = 0; k < 100000; k++) {
            const uint64_t x = pfs_dist_next(&a);
            assert_true(x == pfs_dist_next(&b));
            assert_true(x == pfs_dist_at(&b, k));
            same += x == pfs_dist_next(&other);
        }
        /* Another stream draws other blocks (zipf and pareto share their
         * hottest ones, so some coincide). */
        assert_true(same < 100000 / 4);
        /* Out of order: draw k alone is what the k-th next() gave. */
        assert_true(pfs_dist_at(&a, 5) == pfs_dist_at(&b, 5));
    }
    /* Every stream has the same hot blocks: the placement is the seed's. */
    struct pfs_dist s0 = make("zipf:1.5", 1, NB, 11, 0), s1 = make("zipf:1.5", 1, NB, 11, 1);
    assert_true(s0.off == s1.off && s0.p0 == s1.p0);
    /* n = 1 and 2. */
    struct pfs_dist one = make("zipf:1.2", 1, 1, 1, 0), two = make("zipf:0.5", 0, 2, 1, 0);
    uint64_t c2[2] = {0, 0};
    for (int k = 0; k < 10000; k++) {
        assert_true(pfs_dist_next(&one) == 0);
        c2[pfs_dist_next(&two)]++;
    }
    /* P(0) = 1 / (1 + 2^-0.5) = 0.5858 */
    assert_true(fabs(c2[0] / 10000.0 - 1 / (1 + pow(2, -0.5))) < 5 * sqrt(0.2426 / 10000));
}

static void test_parse(void **state)
{
    (void)state;
    struct pfs_dist_spec sp;
    char err[256];
    assert_int_equal(pfs_dist_parse("zipf:1.2", &sp, err, sizeof(err)), 0);
    assert_true(sp.kind == PFS_DIST_ZIPF && sp.param == 1.2 && sp.center < 0 && sp.scramble);
    assert_int_equal(pfs_dist_parse("pareto:0.2:0.25", &sp, err, sizeof(err)), 0);
    assert_true(sp.kind == PFS_DIST_PARETO && sp.param == 0.2 && sp.center == 0.25);
    assert_int_equal(pfs_dist_parse("normal:5:1", &sp, err, sizeof(err)), 0);
    assert_int_equal(pfs_dist_parse("random", &sp, err, sizeof(err)), 0);
    assert_true(sp.kind == PFS_DIST_UNIFORM);
    static const struct {
        const char *in, *msg;
    } bad[] = {
        {"zipf", "\"zipf\": zipf needs a number: zipf:THETA, e.g. zipf:1.2"},
        {"zipf:1", "\"zipf:1\": zipf's theta must be above 0, at most 10 and not 1, not 1"},
        {"zipf:x", "\"zipf:x\": zipf needs a number: zipf:THETA, e.g. zipf:1.2"},
        {"zipf:1.2:1.5", "\"zipf:1.2:1.5\": the center must be between 0 and 1, not 1.5"},
        {"zipf:1.2:", "\"zipf:1.2:\": the center after the second ':' must be a number from 0 to 1"},
        {"pareto:1", "\"pareto:1\": pareto's H must be between 0 and 1 (exclusive), not 1"},
        {"normal:0", "\"normal:0\": normal's width must be above 0 and below 100 (percent of the range), not 0"},
        {"uniform:3", "\"uniform:3\": uniform takes no value"},
        {"gauss:3", "\"gauss:3\": unknown distribution (uniform, zipf:THETA, pareto:H, normal:W; then :CENTER)"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        assert_int_equal(pfs_dist_parse(bad[i].in, &sp, err, sizeof(err)), -1);
        assert_string_equal(err, bad[i].msg);
    }
    struct pfs_dist d;
    sp = (struct pfs_dist_spec){.kind = PFS_DIST_UNIFORM, .center = -1};
    assert_int_equal(pfs_dist_init(&d, &sp, 0, 1, 0, err, sizeof(err)), -1);
}

static void test_rwmix(void **state)
{
    (void)state;
    struct pfs_mix m, again;
    assert_int_equal(pfs_mix_rw(&m, 70, 8, 3), 0);
    pfs_mix_rw(&again, 70, 8, 3);
    uint64_t reads = 0, changed = 0;
    uint8_t first[100];
    for (uint64_t k = 0; k < 1000000; k++) {
        const uint64_t v = pfs_mix_next(&m);
        assert_true(v == PFS_MIX_READ || v == PFS_MIX_WRITE);
        assert_true(v == pfs_mix_next(&again));
        if (k % 9973 == 0)
            assert_true(v == pfs_mix_at(&m, k));
        reads += v == PFS_MIX_READ;
        if (k < 100)
            first[k] = (uint8_t)v;
        else
            changed += first[k % 100] != v;
        if (k % 100 == 99) { /* every hundred: exactly 70 reads */
            assert_true(reads == (k + 1) / 100 * 70);
        }
    }
    assert_true(changed > 100000); /* the order is drawn again each hundred */
    assert_int_equal(pfs_mix_rw(&m, -1, 1, 0), -1);
    assert_int_equal(pfs_mix_rw(&m, 101, 1, 0), -1);
    pfs_mix_rw(&m, 0, 1, 0);
    for (int k = 0; k < 300; k++)
        assert_true(pfs_mix_next(&m) == PFS_MIX_WRITE);
    pfs_mix_rw(&m, 100, 1, 0);
    for (int k = 0; k < 300; k++)
        assert_true(pfs_mix_next(&m) == PFS_MIX_READ);
}

static void test_bssplit(void **state)
{
    (void)state;
    struct pfs_mix m;
    char err[256];
    assert_int_equal(pfs_bssplit_parse("4k/50:64k/30:1m/20", &m, err, sizeof(err)), 0);
    assert_int_equal(m.n, 3);
    assert_true(m.val[0] == 4096 && m.val[1] == 65536 && m.val[2] == 1048576);
    assert_true(m.pct[0] == 50 && m.pct[1] == 30 && m.pct[2] == 20);
    assert_float_equal(pfs_mix_mean(&m), 0.5 * 4096 + 0.3 * 65536 + 0.2 * 1048576, 1e-6);
    pfs_mix_key(&m, 1, 0);
    uint64_t c[3] = {0, 0, 0};
    for (int k = 0; k < 100000; k++) {
        const uint64_t v = pfs_mix_next(&m);
        c[v == 4096 ? 0 : v == 65536 ? 1 : 2]++;
        if (k % 100 == 99)
            assert_true(c[0] == (uint64_t)(k + 1) / 2 && c[1] * 10 == (uint64_t)(k + 1) * 3);
    }
    assert_int_equal(pfs_bssplit_parse("4k/50:1k/:32k/", &m, err, sizeof(err)), 0);
    assert_true(m.pct[0] == 50 && m.pct[1] == 25 && m.pct[2] == 25);
    assert_int_equal(pfs_bssplit_parse("4k:8k:16k", &m, err, sizeof(err)), 0);
    assert_true(m.pct[0] == 34 && m.pct[1] == 33 && m.pct[2] == 33);
    assert_int_equal(pfs_bssplit_parse("8k", &m, err, sizeof(err)), 0);
    assert_true(m.n == 1 && m.pct[0] == 100);
    assert_int_equal(pfs_bssplit_parse("4k/100:8k/0", &m, err, sizeof(err)), 0);
    static const struct {
        const char *in, *msg;
    } bad[] = {
        {"", "bssplit: empty; give SIZE/PCT:SIZE/PCT..., e.g. 4k/50:64k/30:1m/20"},
        {"4k/50:64k/60", "bssplit \"4k/50:64k/60\": the percentages add up to 110, not 100"},
        {"4k/50:64k/30", "bssplit \"4k/50:64k/30\": the percentages add up to 80, not 100"},
        {"4k/50:64k/60:1m", "bssplit \"4k/50:64k/60:1m\": the percentages add up to 110, not 100"},
        {"4x/50:8k/50", "bssplit \"4x/50:8k/50\": \"4x/50\" is not SIZE/PCT (a size such as 4k or 1m, a whole percentage)"},
        {"4k/50::1m/50", "bssplit \"4k/50::1m/50\": \"\" is not SIZE/PCT (a size such as 4k or 1m, a whole percentage)"},
        {"0/100", "bssplit \"0/100\": \"0/100\" is not SIZE/PCT (a size such as 4k or 1m, a whole percentage)"},
        {"4k/12.5:8k", "bssplit \"4k/12.5:8k\": \"4k/12.5\": the percentage must be a whole number from 0 to 100"},
        {"4k/101", "bssplit \"4k/101\": \"4k/101\": the percentage must be a whole number from 0 to 100"},
        {"4k/50:8k/50,16k/100", "bssplit \"4k/50:8k/50,16k/100\": one list for reads and writes alike, without a comma"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        assert_int_equal(pfs_bssplit_parse(bad[i].in, &m, err, sizeof(err)), -1);
        assert_string_equal(err, bad[i].msg);
    }
    char many[65 * 6 + 1] = "";
    for (int i = 0; i < 65; i++)
        strcat(many, i ? ":1k/1" : "1k/1");
    assert_int_equal(pfs_bssplit_parse(many, &m, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "more than 64 sizes"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_zipf_deciles),
        cmocka_unit_test(test_scramble),
        cmocka_unit_test(test_place_bijection),
        cmocka_unit_test(test_pareto_normal_uniform),
        cmocka_unit_test(test_reproducible),
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_rwmix),
        cmocka_unit_test(test_bssplit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
