/* Offsets, permutations, patterns, placement and reorder: pure functions. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pfs/config.h"
#include "pfs/core.h"

static void test_offsets(void **state)
{
    (void)state;
    const uint64_t t = 4096, b = 4 * t;
    /* file per process: j*t whatever the rank */
    for (uint64_t j = 0; j < 4; j++)
        assert_true(pfs_offset(0, PFS_LAYOUT_SEGMENTED, 3, 4, b, t, j) == j * t);
    /* shared segmented: rank*b + j*t */
    assert_true(pfs_offset(1, PFS_LAYOUT_SEGMENTED, 0, 4, b, t, 0) == 0);
    assert_true(pfs_offset(1, PFS_LAYOUT_SEGMENTED, 2, 4, b, t, 3) == 2 * b + 3 * t);
    /* shared strided: (j*N + rank)*t */
    assert_true(pfs_offset(1, PFS_LAYOUT_STRIDED, 2, 4, b, t, 3) == (3 * 4 + 2) * t);
    /* every byte of the shared file is covered exactly once, in both layouts */
    for (int layout = 0; layout < 2; layout++) {
        unsigned char seen[16] = {0};
        for (int r = 0; r < 4; r++)
            for (uint64_t j = 0; j < 4; j++) {
                uint64_t o = pfs_offset(1, layout, r, 4, b, t, j) / t;
                assert_true(o < 16);
                seen[o]++;
            }
        for (int i = 0; i < 16; i++)
            assert_int_equal(seen[i], 1);
    }
}

/* Every byte is checked whatever the transfer: 1, 3, 12 and 47,008 bytes at
 * offsets that are not multiples of 8; a zeroed or one-byte-changed buffer
 * is caught, and pieces written with one transfer size check with another. */
static void test_pattern_any_size(void **state)
{
    (void)state;
    static const size_t sizes[] = {1, 3, 7, 12, 47008};
    static unsigned char buf[47008 + 16], whole[3 * 47008];
    size_t at;
    uint64_t e, f;
    for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
        size_t len = sizes[k];
        for (uint64_t j = 0; j < 3; j++) {
            uint64_t off = 5 + j * len;
            pfs_pattern_fill(buf, len, 7, 2, off);
            assert_true(pfs_pattern_check(buf, len, 7, 2, off, &at, &e, &f) == 0);
            memset(buf, 0, len);
            assert_true(pfs_pattern_check(buf, len, 7, 2, off, &at, &e, &f) >= 1);
            pfs_pattern_fill(buf, len, 7, 2, off);
            buf[len - 1] ^= 0x40; /* the last byte, in the tail past the last whole word */
            assert_true(pfs_pattern_check(buf, len, 7, 2, off, &at, &e, &f) == 1);
            assert_int_equal(at, len - 1);
        }
    }
    /* written as one piece, checked in pieces of another size */
    pfs_pattern_fill(whole, sizeof(whole), 11, 0, 0);
    for (size_t off = 0; off + 12 <= sizeof(whole); off += 12)
        assert_true(pfs_pattern_check(whole + off, 12, 11, 0, off, &at, &e, &f) == 0);
}

static void test_permute(void **state)
{
    (void)state;
    static const uint64_t sizes[] = {1, 2, 3, 7, 16, 100, 1000, 4097};
    for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
        uint64_t n = sizes[k];
        unsigned char *seen = calloc(n, 1);
        uint64_t moved = 0;
        for (uint64_t i = 0; i < n; i++) {
            uint64_t p = pfs_permute(i, n, 12345);
            assert_true(p < n);
            seen[p]++;
            moved += p != i;
        }
        for (uint64_t i = 0; i < n; i++)
            assert_int_equal(seen[i], 1);
        if (n >= 16)
            assert_true(moved > n / 2); /* it really shuffles */
        free(seen);
    }
    /* seeded: another seed, another order; the same seed, the same order */
    int differ = 0;
    for (uint64_t i = 0; i < 64; i++) {
        differ += pfs_permute(i, 64, 1) != pfs_permute(i, 64, 2);
        assert_true(pfs_permute(i, 64, 7) == pfs_permute(i, 64, 7));
    }
    assert_true(differ > 0);
}

static void test_pattern(void **state)
{
    (void)state;
    uint64_t buf[512];
    pfs_pattern_fill(buf, sizeof(buf), 42, 3, 8192);
    size_t at;
    uint64_t e, f;
    assert_true(pfs_pattern_check(buf, sizeof(buf), 42, 3, 8192, &at, &e, &f) == 0);
    /* wrong writer, wrong offset, wrong seed all fail on every word */
    assert_true(pfs_pattern_check(buf, sizeof(buf), 42, 4, 8192, &at, &e, &f) == 512);
    assert_true(pfs_pattern_check(buf, sizeof(buf), 42, 3, 8192 + 4096, &at, &e, &f) == 512);
    assert_true(pfs_pattern_check(buf, sizeof(buf), 43, 3, 8192, &at, &e, &f) == 512);
    /* one flipped byte is found at its byte offset */
    ((unsigned char *)buf)[1001] ^= 0x40;
    assert_true(pfs_pattern_check(buf, sizeof(buf), 42, 3, 8192, &at, &e, &f) == 1);
    assert_int_equal(at, 1001);
    assert_true(e != f);
    /* a fill at an offset matches the same region of a larger fill */
    uint64_t big[1024], part[256];
    pfs_pattern_fill(big, sizeof(big), 9, 0, 0);
    pfs_pattern_fill(part, sizeof(part), 9, 0, 2048);
    assert_memory_equal(part, big + 256, sizeof(part));
}

static void test_random_fill(void **state)
{
    (void)state;
    unsigned char a[4099], b[4099];
    pfs_random_fill(a, sizeof(a), 1);
    pfs_random_fill(b, sizeof(b), 1);
    assert_memory_equal(a, b, sizeof(a));
    /* never zeros, and no byte value dominates: incompressible */
    int counts[256] = {0};
    for (size_t i = 0; i < sizeof(a); i++)
        counts[a[i]]++;
    for (int v = 0; v < 256; v++)
        assert_true(counts[v] < 64);
}

static void test_placement(void **state)
{
    (void)state;
    char hosts[8][PFS_HOST_MAX] = {"n1", "n2", "n3", "n4", "n1", "n2", "n3", "n4"};
    int node[8];
    assert_int_equal(pfs_placement_nodes((const char(*)[PFS_HOST_MAX])hosts, 8, node), 4);
    for (int r = 0; r < 8; r++)
        assert_int_equal(node[r], r % 4);
    assert_true(pfs_placement_is_round_robin(node, 8, 4));
    assert_true(pfs_placement_is_even(node, 8, 4));
    assert_int_equal(pfs_reorder_shift(node, 8), 1);

    /* block placement: numbered by first appearance, shift = ranks per node */
    char bh[8][PFS_HOST_MAX] = {"b", "b", "a", "a", "c", "c", "d", "d"};
    assert_int_equal(pfs_placement_nodes((const char(*)[PFS_HOST_MAX])bh, 8, node), 4);
    assert_int_equal(node[0], 0);
    assert_int_equal(node[2], 1);
    assert_int_equal(node[7], 3);
    assert_false(pfs_placement_is_round_robin(node, 8, 4));
    assert_true(pfs_placement_is_even(node, 8, 4));
    assert_int_equal(pfs_reorder_shift(node, 8), 2);

    /* uneven: 3 nodes, 8 ranks round-robin */
    char uh[8][PFS_HOST_MAX] = {"x", "y", "z", "x", "y", "z", "x", "y"};
    pfs_placement_nodes((const char(*)[PFS_HOST_MAX])uh, 8, node);
    assert_true(pfs_placement_is_round_robin(node, 8, 3));
    assert_false(pfs_placement_is_even(node, 8, 3));
    int s = pfs_reorder_shift(node, 8);
    assert_true(s > 0);
    for (int r = 0; r < 8; r++)
        assert_int_not_equal(node[r], node[(r + s) % 8]);

    /* one node: no shift can leave it */
    char oh[4][PFS_HOST_MAX] = {"o", "o", "o", "o"};
    assert_int_equal(pfs_placement_nodes((const char(*)[PFS_HOST_MAX])oh, 4, node), 1);
    assert_int_equal(pfs_reorder_shift(node, 4), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_offsets), cmocka_unit_test(test_permute), cmocka_unit_test(test_pattern), cmocka_unit_test(test_pattern_any_size),
        cmocka_unit_test(test_random_fill), cmocka_unit_test(test_placement),
    };
    return cmocka_run_group_tests_name("core", tests, NULL, NULL);
}
