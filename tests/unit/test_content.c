/* Compressible and deduplicable contents (src/core/content.c): the plain
 * pattern unchanged at 0/0; compressibility by zlib (or, without it, by the
 * zeros); duplicates that repeat exactly; and the check, which must name
 * the first wrong byte as pfs_pattern_check does. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#ifdef PFS_HAVE_ZLIB
#include <zlib.h>
#endif

#include "pfs/content.h"
#include "pfs/core.h"

static struct pfs_content make(int compress, int dedupe, uint64_t unit, uint64_t seed, uint64_t gen)
{
    struct pfs_content ct;
    char err[256];
    const struct pfs_content_spec sp = {.compress = compress, .dedupe = dedupe, .unit = unit};
    if (pfs_content_init(&ct, &sp, seed, gen, err, sizeof(err)) != 0)
        fail_msg("%s", err);
    return ct;
}

static void test_plain_is_pattern(void **state)
{
    (void)state;
    struct pfs_content ct = make(0, 0, 4096, 0xabcdef, 0);
    unsigned char a[5000], b[5000];
    const uint64_t offs[] = {0, 1, 7, 4093, 1ull << 40, 123456789};
    const size_t lens[] = {1, 12, 4096, 4999, 47};
    for (size_t i = 0; i < sizeof(offs) / sizeof(offs[0]); i++)
        for (size_t j = 0; j < sizeof(lens) / sizeof(lens[0]); j++) {
            pfs_content_fill(&ct, a, lens[j], 5, offs[i]);
            pfs_pattern_fill(b, lens[j], 0xabcdef, 5, offs[i]);
            assert_memory_equal(a, b, lens[j]);
        }
    /* Generation 1 is other data. */
    struct pfs_content g1 = make(0, 0, 4096, 0xabcdef, 1);
    pfs_content_fill(&g1, a, 4096, 5, 0);
    pfs_pattern_fill(b, 4096, 0xabcdef, 5, 0);
    assert_true(memcmp(a, b, 4096) != 0);
}

/* The compressed size of len bytes over len, by zlib at its default level,
 * or the fraction of bytes that are not zero. */
static double ratio(const unsigned char *buf, size_t len)
{
#ifdef PFS_HAVE_ZLIB
    uLongf out = compressBound(len);
    unsigned char *z = malloc(out);
    assert_non_null(z);
    assert_int_equal(compress2(z, &out, buf, len, Z_DEFAULT_COMPRESSION), Z_OK);
    free(z);
    return (double)out / (double)len;
#else
    size_t nz = 0;
    for (size_t i = 0; i < len; i++)
        nz += buf[i] != 0;
    return (double)nz / (double)len;
#endif
}

static void test_compressible(void **state)
{
    (void)state;
    const size_t len = 4u << 20;
    unsigned char *buf = malloc(len);
    assert_non_null(buf);
    const int pcts[] = {0, 25, 50, 70, 90, 99};
    for (size_t i = 0; i < sizeof(pcts) / sizeof(pcts[0]); i++) {
        struct pfs_content ct = make(pcts[i], 0, 1u << 20, 42, 0);
        pfs_content_fill(&ct, buf, len, 0, 0);
        /* The shape, exactly: each 512-byte chunk's tail is zeros. */
        const size_t head = 512 * (size_t)(100 - pcts[i]) / 100;
        for (size_t c = 0; c < len; c += 512) {
            for (size_t k = head; k < 512; k++)
                assert_int_equal(buf[c + k], 0);
        }
        const double r = ratio(buf, len), want = (100 - pcts[i]) / 100.0;
        print_message("compress %d%%: compressed to %.4f of the size (%s)\n", pcts[i], r,
#ifdef PFS_HAVE_ZLIB
                      "zlib"
#else
                      "non-zero bytes"
#endif
        );
        /* Random bytes do not compress (deflate adds ~0.1%); a zero run costs
         * a few bytes per chunk (< 1.5% of 512). */
        assert_true(r > want - 0.01 && r < want + 0.02);
    }
    free(buf);
}

static int cmp_u64(const void *a, const void *b)
{
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* 100 groups of 100 units: count each unit's twins by its content. */
static void test_dedupe_exact(void **state)
{
    (void)state;
    const uint64_t unit = 512, nu = 10000;
    unsigned char *buf = malloc(unit * nu);
    assert_non_null(buf);
    const int pcts[] = {0, 1, 30, 75, 99, 100};
    for (size_t i = 0; i < sizeof(pcts) / sizeof(pcts[0]); i++) {
        struct pfs_content ct = make(50, pcts[i], unit, 1234, 2);
        pfs_content_fill(&ct, buf, unit * nu, 7, 0);
        uint64_t dups = 0;
        for (uint64_t g = 0; g < nu / 100; g++) {
            uint64_t in_group = 0;
            for (uint64_t u = g * 100; u < g * 100 + 100; u++) {
                const uint64_t s = pfs_content_source(&ct, u);
                assert_true(s / 100 == g); /* a source in the same group */
                assert_true(pfs_content_source(&ct, s) == s); /* that is its own */
                if (s != u) {
                    in_group++;
                    assert_memory_equal(buf + u * unit, buf + s * unit, unit);
                }
            }
            /* exactly dedupe of every hundred (99 at 100: one is the source) */
            assert_true(in_group == (uint64_t)(pcts[i] < 100 ? pcts[i] : 99));
            dups += in_group;
        }
        /* And no other unit repeats another: their first 8 bytes (pattern,
         * a different word per source) are distinct. */
        uint64_t *key = malloc(nu * sizeof(*key));
        assert_non_null(key);
        for (uint64_t u = 0; u < nu; u++)
            memcpy(&key[u], buf + u * unit, 8);
        qsort(key, nu, sizeof(*key), cmp_u64);
        uint64_t distinct = 1;
        for (uint64_t u = 1; u < nu; u++)
            distinct += key[u] != key[u - 1];
        free(key);
        print_message("dedupe %d%%: %llu of %llu units repeat another, %llu distinct\n", pcts[i],
                      (unsigned long long)dups, (unsigned long long)nu, (unsigned long long)distinct);
        assert_true(distinct == nu - dups);
    }
    free(buf);
}

static void test_check(void **state)
{
    (void)state;
    const int modes[][2] = {{0, 0}, {60, 0}, {0, 40}, {60, 40}};
    unsigned char buf[20000], ref[20000];
    for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
        struct pfs_content ct = make(modes[m][0], modes[m][1], 1024, 99, 1);
        const uint64_t off = 100003; /* not aligned to anything */
        const size_t len = 12345;
        pfs_content_fill(&ct, buf, len, 2, off);
        size_t at = 0;
        uint64_t e = 0, f = 0;
        assert_true(pfs_content_check(&ct, buf, len, 2, off, &at, &e, &f) == 0);
        /* The other writer's content is another file's: nearly every word differs. */
        assert_true(pfs_content_check(&ct, buf, len, 3, off, &at, &e, &f) > (uint64_t)len / 8 / 4);
        /* Two wrong bytes: two words, the first named with its word. */
        memcpy(ref, buf, len);
        buf[5001] ^= 0x10;
        buf[9000] ^= 0x01;
        assert_true(pfs_content_check(&ct, buf, len, 2, off, &at, &e, &f) == 2);
        assert_true(at == 5001);
        const uint64_t w0 = (off + 5001) & ~(uint64_t)7;
        uint64_t want;
        pfs_content_fill(&ct, &want, 8, 2, w0);
        assert_true(e == want);
        assert_true((e ^ f) == (uint64_t)0x10 << (8 * ((off + 5001) & 7)));
        /* A wrong first byte, at a partial word. */
        memcpy(buf, ref, len);
        buf[0] ^= 0xff;
        assert_true(pfs_content_check(&ct, buf, len, 2, off, &at, &e, &f) == 1);
        assert_true(at == 0);
        assert_true((e ^ f) == (uint64_t)0xff << (8 * (off & 7)));
    }
}

static void test_refusals(void **state)
{
    (void)state;
    struct pfs_content ct;
    char err[256];
    struct pfs_content_spec sp = {.compress = 100, .unit = 4096};
    assert_int_equal(pfs_content_init(&ct, &sp, 1, 0, err, sizeof(err)), -1);
    assert_string_equal(err, "the compressible percentage must be from 0 to 99, not 100");
    sp = (struct pfs_content_spec){.dedupe = 101, .unit = 4096};
    assert_int_equal(pfs_content_init(&ct, &sp, 1, 0, err, sizeof(err)), -1);
    assert_string_equal(err, "the dedupe percentage must be from 0 to 100, not 101");
    sp = (struct pfs_content_spec){.compress = 50, .unit = 1000};
    assert_int_equal(pfs_content_init(&ct, &sp, 1, 0, err, sizeof(err)), -1);
    assert_string_equal(err, "the dedupe unit (1000 bytes) must be a multiple of 8 and, with compression, of the chunk (512)");
    sp = (struct pfs_content_spec){.compress = 99, .unit = 64, .chunk = 64};
    assert_int_equal(pfs_content_init(&ct, &sp, 1, 0, err, sizeof(err)), -1);
    assert_string_equal(err, "a chunk of 64 bytes at 99% compressible holds no pattern byte to verify");
    sp = (struct pfs_content_spec){.dedupe = 50, .unit = 1000}; /* no compression: any multiple of 8 */
    assert_int_equal(pfs_content_init(&ct, &sp, 1, 0, err, sizeof(err)), 0);
}

/* A run's content (pfs_content_run): at 0/0 the plain pattern of the
 * seed, whatever the transfer; a unit of one transfer; chunks of 512
 * bytes, or the transfer when smaller; refused where it cannot cut it. */
static void test_run_content(void **state)
{
    (void)state;
    struct pfs_content ct;
    char err[256];
    unsigned char a[8192], b[8192];
    static const uint64_t odd[] = {1, 100, 4097, 1048576};
    for (size_t i = 0; i < sizeof(odd) / sizeof(odd[0]); i++) {
        assert_int_equal(pfs_content_run(&ct, 0, 0, odd[i], 77, err, sizeof(err)), 0);
        pfs_content_fill(&ct, a, 1000, 3, 12345);
        pfs_pattern_fill(b, 1000, 77, 3, 12345);
        assert_memory_equal(a, b, 1000);
    }
    assert_int_equal(pfs_content_run(&ct, 50, 0, 4096, 77, err, sizeof(err)), 0);
    assert_true(ct.unit == 4096 && ct.chunk == 512 && ct.head == 256);
    assert_int_equal(pfs_content_run(&ct, 50, 10, 256, 77, err, sizeof(err)), 0);
    assert_true(ct.unit == 256 && ct.chunk == 256 && ct.head == 128);
    assert_int_equal(pfs_content_run(&ct, 0, 30, 8192, 77, err, sizeof(err)), 0);
    assert_true(ct.unit == 8192 && ct.head == 8192 && ct.dedupe == 30);
    assert_int_equal(pfs_content_run(&ct, 50, 0, 1000, 77, err, sizeof(err)), -1);
    assert_int_equal(pfs_content_run(&ct, 0, 50, 100, 77, err, sizeof(err)), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plain_is_pattern), cmocka_unit_test(test_compressible),
        cmocka_unit_test(test_dedupe_exact),     cmocka_unit_test(test_check),
        cmocka_unit_test(test_refusals),         cmocka_unit_test(test_run_content),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
