/* Offsets, permutations, patterns, placement and reorder: pure functions.
 * malloc and calloc are wrapped (-Wl,--wrap=...) so that the placement
 * checks' tables can fail to be allocated. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pfs/config.h"
#include "pfs/core.h"

void *__real_malloc(size_t n);
void *__wrap_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__wrap_calloc(size_t n, size_t size);
static int alloc_left = -1; /* allocations that succeed before all fail; -1: all succeed */

void *__wrap_malloc(size_t n)
{
    if (alloc_left == 0)
        return NULL;
    alloc_left -= alloc_left > 0;
    return __real_malloc(n);
}

void *__wrap_calloc(size_t n, size_t size)
{
    if (alloc_left == 0)
        return NULL;
    alloc_left -= alloc_left > 0;
    return __real_calloc(n, size);
}

static void test_offsets(void **state)
{
    (void)state;
    const uint64_t t = 4096, b = 4 * t;
    /* file per process: j*t whatever the rank */
    for (uint64_t j = 0; j < 4; j++)
        assert_true(pfs_offset(0, PFS_LAYOUT_SEGMENTED, 1, 3, 4, b, t, j) == j * t);
    /* shared segmented: rank*b + j*t */
    assert_true(pfs_offset(1, PFS_LAYOUT_SEGMENTED, 1, 0, 4, b, t, 0) == 0);
    assert_true(pfs_offset(1, PFS_LAYOUT_SEGMENTED, 1, 2, 4, b, t, 3) == 2 * b + 3 * t);
    /* shared strided: (j*N + rank)*t */
    assert_true(pfs_offset(1, PFS_LAYOUT_STRIDED, 1, 2, 4, b, t, 3) == (3 * 4 + 2) * t);
    /* every byte of the shared file is covered exactly once, in both layouts */
    for (int layout = 0; layout < 2; layout++) {
        unsigned char seen[16] = {0};
        for (int r = 0; r < 4; r++)
            for (uint64_t j = 0; j < 4; j++) {
                uint64_t o = pfs_offset(1, layout, 1, r, 4, b, t, j) / t;
                assert_true(o < 16);
                seen[o]++;
            }
        for (int i = 0; i < 16; i++)
            assert_int_equal(seen[i], 1);
    }
}

/* IOR's segments (-s N with -b above -t) in a shared file: segment k of
 * rank r is at (k*P + r)*s, each written in transfers of t. */
static void test_offsets_segments(void **state)
{
    (void)state;
    /* P = 2, N = 3 segments of s = 64k in t = 16k: the block per rank is 192k. */
    const uint64_t t = 16384, s = 4 * t, b = 3 * s;
    static const uint64_t want[2][12] = {
        {0, 16384, 32768, 49152, 131072, 147456, 163840, 180224, 262144, 278528, 294912, 311296},
        {65536, 81920, 98304, 114688, 196608, 212992, 229376, 245760, 327680, 344064, 360448, 376832},
    };
    for (int r = 0; r < 2; r++)
        for (uint64_t j = 0; j < 12; j++)
            assert_int_equal(pfs_offset(1, PFS_LAYOUT_SEGMENTED, 3, r, 2, b, t, j), want[r][j]);
    /* P = 3, N = 2, s = 2t: transfer 2 of rank 1 opens segment 1 at (1*3 + 1)*s. */
    assert_int_equal(pfs_offset(1, PFS_LAYOUT_SEGMENTED, 2, 1, 3, 4 * 8, 8, 2), 4 * 16);
    assert_int_equal(pfs_offset(1, PFS_LAYOUT_SEGMENTED, 2, 2, 3, 4 * 8, 8, 3), 5 * 16 + 8);
    /* One transfer a segment is the strided layout; a file per process ignores segments. */
    for (uint64_t j = 0; j < 4; j++) {
        assert_int_equal(pfs_offset(1, PFS_LAYOUT_SEGMENTED, 4, 2, 3, 4 * 8, 8, j),
                         pfs_offset(1, PFS_LAYOUT_STRIDED, 1, 2, 3, 4 * 8, 8, j));
        assert_int_equal(pfs_offset(0, PFS_LAYOUT_SEGMENTED, 4, 2, 3, 4 * 8, 8, j), j * 8);
    }
    /* Every transfer of the file N*P*b once: P = 3, N = 4, 2 transfers a segment. */
    unsigned char seen[24] = {0};
    for (int r = 0; r < 3; r++)
        for (uint64_t j = 0; j < 8; j++) {
            uint64_t o = pfs_offset(1, PFS_LAYOUT_SEGMENTED, 4, r, 3, 8 * 8, 8, j) / 8;
            assert_true(o < 24);
            seen[o]++;
        }
    for (int i = 0; i < 24; i++)
        assert_int_equal(seen[i], 1);
}

/* from[] is a permutation without a fixed point; returns how many ranks
 * read from their own node, checked against what pfs_reorder_random says. */
static int reorder_checked(const int *node, int n, uint64_t seed, int *from)
{
    const int same = pfs_reorder_random(node, n, seed, from);
    int seen[64] = {0}, counted = 0;
    for (int r = 0; r < n; r++) {
        assert_true(from[r] >= 0 && from[r] < n);
        assert_int_not_equal(from[r], r);
        assert_int_equal(seen[from[r]]++, 0);
        counted += node[from[r]] == node[r];
    }
    assert_int_equal(same, counted);
    return same;
}

static void test_reorder_random(void **state)
{
    (void)state;
    /* Placements: round-robin 2 x 4, block 2 x 4, uneven 3+2+2, 3 nodes of 1,
     * 5 of 7 on one node, one node of 4. */
    static const int rr[] = {0, 1, 0, 1, 0, 1, 0, 1}, blk[] = {0, 0, 0, 0, 1, 1, 1, 1}, un[] = {0, 0, 0, 1, 1, 2, 2},
                     ones[] = {0, 1, 2}, big[] = {0, 0, 1, 0, 0, 2, 0}, one[] = {0, 0, 0, 0};
    int from[8], again[8];
    for (uint64_t seed = 0; seed < 200; seed++) {
        assert_int_equal(reorder_checked(rr, 8, seed, from), 0);
        assert_int_equal(reorder_checked(blk, 8, seed, from), 0);
        assert_int_equal(reorder_checked(un, 7, seed, from), 0);
        assert_int_equal(reorder_checked(ones, 3, seed, from), 0);
        /* 5 of 7 on node 0: at best 2 of them read node 1's and 2's ranks, 3 their own node's. */
        assert_int_equal(reorder_checked(big, 7, seed, from), 3);
        for (int r = 0; r < 7; r++)
            if (big[r] != 0)
                assert_int_equal(big[from[r]], 0);
        assert_int_equal(reorder_checked(one, 4, seed, from), 4);
    }
    /* The same seed, the same permutation; other seeds, other ones (of 8 ranks on 2 nodes
     * there are 576 with every reader on the other node). */
    reorder_checked(rr, 8, 42, from);
    reorder_checked(rr, 8, 42, again);
    assert_memory_equal(from, again, sizeof(from));
    int differ = 0;
    for (uint64_t seed = 1; seed < 20; seed++) {
        reorder_checked(rr, 8, 42 + seed, again);
        differ += memcmp(from, again, sizeof(from)) != 0;
    }
    assert_true(differ >= 15);
    /* A single rank reads its own data; two on one node read each other's. */
    assert_int_equal(pfs_reorder_random(one, 1, 7, from), -1);
    assert_int_equal(from[0], 0);
    assert_int_equal(reorder_checked(one, 2, 7, from), 2);
    assert_true(from[0] == 1 && from[1] == 0);
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

    /* --reorder-nodes N (IOR's -Q N): node (node(r) + N) mod nodes; 1 is the nearest other node */
    pfs_placement_nodes((const char(*)[PFS_HOST_MAX])hosts, 8, node); /* round-robin over 4 */
    assert_int_equal(pfs_reorder_shift_nodes(node, 8, 1), 1);
    assert_int_equal(pfs_reorder_shift_nodes(node, 8, 2), 2);
    assert_int_equal(pfs_reorder_shift_nodes(node, 8, 3), 3);
    assert_int_equal(pfs_reorder_shift_nodes(node, 8, 4), 0); /* back on its own node */
    assert_int_equal(pfs_reorder_shift_nodes(node, 8, 6), 2);
    pfs_placement_nodes((const char(*)[PFS_HOST_MAX])bh, 8, node); /* block, 2 per node */
    assert_int_equal(pfs_reorder_shift_nodes(node, 8, 2), 4);
    assert_int_equal(pfs_reorder_shift_nodes(node, 8, 3), 6);
    pfs_placement_nodes((const char(*)[PFS_HOST_MAX])uh, 8, node); /* uneven: no shift is 2 nodes on for all */
    assert_int_equal(pfs_reorder_shift_nodes(node, 8, 2), 0);
    char th[6][PFS_HOST_MAX] = {"p", "q", "r", "p", "q", "r"}; /* 3 nodes round-robin: 2 on is shift 2 */
    pfs_placement_nodes((const char(*)[PFS_HOST_MAX])th, 6, node);
    assert_int_equal(pfs_reorder_shift_nodes(node, 6, 2), 2);
    for (int r = 0; r < 6; r++)
        assert_int_equal(node[(r + 2) % 6], (node[r] + 2) % 3);

    /* one node: no shift can leave it */
    char oh[4][PFS_HOST_MAX] = {"o", "o", "o", "o"};
    assert_int_equal(pfs_placement_nodes((const char(*)[PFS_HOST_MAX])oh, 4, node), 1);
    assert_int_equal(pfs_reorder_shift(node, 4), 0);
}

/* ---- the placement functions against the straightforward ones they replace ---- */

static uint64_t rng_state;
static uint64_t rnd(void) { return pfs_mix64(rng_state++); }
static int rndi(int n) { return (int)(rnd() % (uint64_t)n); }

static int ref_nodes(const char (*hosts)[PFS_HOST_MAX], int nranks, int *node_of_rank)
{
    int nnodes = 0;
    for (int r = 0; r < nranks; r++) {
        node_of_rank[r] = -1;
        for (int q = 0; q < r; q++)
            if (strncmp(hosts[q], hosts[r], PFS_HOST_MAX) == 0) {
                node_of_rank[r] = node_of_rank[q];
                break;
            }
        if (node_of_rank[r] < 0)
            node_of_rank[r] = nnodes++;
    }
    return nnodes;
}

static int ref_even(const int *node_of_rank, int nranks, int nnodes)
{
    int first = 0;
    for (int n = 0; n < nnodes; n++) {
        int c = 0;
        for (int r = 0; r < nranks; r++)
            c += node_of_rank[r] == n;
        if (n == 0)
            first = c;
        else if (c != first)
            return 0;
    }
    return 1;
}

static int ref_round_robin(const int *node_of_rank, int nranks, int nnodes)
{
    for (int r = 0; r < nranks; r++)
        if (node_of_rank[r] != r % nnodes)
            return 0;
    return 1;
}

/* record.c's page-cache loop as it was */
static int ref_cache_node(const int *node_of_rank, int nranks, int nnodes, double per_rank, const double *mems,
                          double *data, double *mem)
{
    for (int n = 0; n < nnodes; n++) {
        double d = 0, m = 0;
        for (int r = 0; r < nranks; r++)
            if (node_of_rank[r] == n) {
                d += per_rank;
                m = mems[r];
            }
        if (d < 2 * m) {
            *data = d, *mem = m;
            return n;
        }
    }
    return -1;
}

enum { PL_RR, PL_BLOCK, PL_UNEVEN, PL_ONE, PL_EACH, PL_BLOCKS_UNEVEN, PL_KINDS };

/* A node label for each of n ranks on about k nodes, placed as kind says. */
static void place(int kind, int n, int k, int *label)
{
    int per = (n + k - 1) / k, b = 0, left = 0;
    for (int r = 0; r < n; r++) {
        switch (kind) {
        case PL_RR: label[r] = r % k; break;
        case PL_BLOCK: label[r] = r / per; break;
        case PL_UNEVEN: label[r] = rndi(k); break;
        case PL_ONE: label[r] = 0; break;
        case PL_EACH: label[r] = r; break;
        default:
            if (left == 0) {
                b = rndi(k);
                left = 1 + rndi(2 * per);
            }
            left--;
            label[r] = b;
        }
    }
}

static void test_placement_random(void **state)
{
    (void)state;
    enum { NMAX = 3000 };
    static char hosts[NMAX][PFS_HOST_MAX];
    static int label[NMAX], got[NMAX], want[NMAX], perm[NMAX];
    static double mems[NMAX];
    const int sizes[] = {1, 2, 3, 7, 64, 65, 129, 1000, NMAX};
    rng_state = 19;
    int cases = 0, warned = 0, uneven = 0;
    for (int kind = 0; kind < PL_KINDS; kind++)
        for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++)
            for (int trial = 0; trial < 6; trial++) {
                int n = sizes[si], k = 1 + rndi(n < 300 ? n : 300);
                if (trial == 0)
                    k = n; /* as many nodes as ranks */
                place(kind, n, k, label);
                /* names from a random permutation of the labels, so that first
                 * appearance is not label order; some of all 64 bytes (no NUL),
                 * some with bytes after the NUL that strncmp never reads */
                int nl = n > k ? n : k;
                for (int i = 0; i < nl; i++)
                    perm[i] = i;
                for (int i = nl - 1; i > 0; i--) {
                    int j = rndi(i + 1), x = perm[i];
                    perm[i] = perm[j], perm[j] = x;
                }
                int style = rndi(3);
                for (int r = 0; r < n; r++) {
                    memset(hosts[r], 0, PFS_HOST_MAX);
                    int id = perm[label[r]];
                    if (style == 0) {
                        snprintf(hosts[r], PFS_HOST_MAX, "node%04d", id);
                    } else if (style == 1) {
                        memset(hosts[r], 'x', PFS_HOST_MAX); /* 64 bytes, no NUL: differ in the last 4 */
                        char tail[16];
                        snprintf(tail, sizeof(tail), "%04d", id % 10000);
                        memcpy(hosts[r] + PFS_HOST_MAX - 4, tail, 4);
                    } else {
                        snprintf(hosts[r], PFS_HOST_MAX, "c%d.cluster", id);
                        hosts[r][PFS_HOST_MAX - 1] = (char)('a' + rndi(26)); /* after the NUL: ignored */
                    }
                }
                int nw = ref_nodes((const char(*)[PFS_HOST_MAX])hosts, n, want);
                int ng = pfs_placement_nodes((const char(*)[PFS_HOST_MAX])hosts, n, got);
                assert_int_equal(ng, nw);
                assert_memory_equal(got, want, sizeof(int) * (size_t)n);
                /* the checks on the numbering, and on the labels with empty nodes (k + 3) */
                for (int m = 0; m < 2; m++) {
                    const int *nd = m ? label : want;
                    int nn = m ? (kind == PL_EACH ? n : k) + rndi(4) : nw;
                    assert_int_equal(pfs_placement_is_even(nd, n, nn), ref_even(nd, n, nn));
                    assert_int_equal(pfs_placement_is_round_robin(nd, n, nn), ref_round_robin(nd, n, nn));
                    /* memory per rank from a few values (ties), the data around twice it */
                    double per = (double)(1 + rndi(8)) * 1048576.0;
                    for (int r = 0; r < n; r++)
                        mems[r] = (double)(1 + rndi(4)) * per * (double)(1 + rndi(n / nn + 2)) / 2;
                    double dw = -1, mw = -1, dg = -1, mg = -1;
                    int cw = ref_cache_node(nd, n, nn, per, mems, &dw, &mw);
                    int cg = pfs_placement_cache_node(nd, n, nn, per, mems, &dg, &mg);
                    assert_int_equal(cg, cw);
                    assert_memory_equal(&dg, &dw, sizeof(double));
                    assert_memory_equal(&mg, &mw, sizeof(double));
                    cases++;
                    warned += cw >= 0;
                    uneven += !ref_even(nd, n, nn);
                }
            }
    assert_true(cases > 500);
    assert_true(warned > 50 && warned < cases - 50); /* both outcomes tried */
    assert_true(uneven > 50 && uneven < cases - 50);
    /* nothing to number */
    assert_int_equal(pfs_placement_nodes((const char(*)[PFS_HOST_MAX])hosts, 0, got), 0);
    assert_true(pfs_placement_is_even(got, 0, 0));
    double d, m;
    assert_int_equal(pfs_placement_cache_node(got, 0, 0, 1, mems, &d, &m), -1);
}

/* Without memory for their tables the placement functions say so (-1, or
 * -2 for the page-cache rule, whose -1 means no node) instead of
 * answering by a second, quadratic way; with memory they answer again. */
static void test_placement_no_memory(void **state)
{
    (void)state;
    enum { N = 200 };
    static char hosts[N][PFS_HOST_MAX];
    static int node[N];
    static double mems[N];
    for (int r = 0; r < N; r++) {
        snprintf(hosts[r], PFS_HOST_MAX, "node%d", r); /* 200 names: the table of 64 grows */
        node[r] = r % 4;
        mems[r] = 1 << 30;
    }
    double data = -1, mem = -1;
    for (int left = 0; left < 2; left++) { /* the first table, then its growth */
        alloc_left = left;
        assert_int_equal(pfs_placement_nodes((const char(*)[PFS_HOST_MAX])hosts, N, node), -1);
    }
    alloc_left = 0;
    assert_int_equal(pfs_placement_is_even(node, N, 4), -1);
    assert_int_equal(pfs_placement_cache_node(node, N, 4, 1, mems, &data, &mem), -2);
    alloc_left = 1; /* the second of its two tables */
    assert_int_equal(pfs_placement_cache_node(node, N, 4, 1, mems, &data, &mem), -2);
    alloc_left = -1;
    assert_true(data == -1 && mem == -1);
    assert_int_equal(pfs_placement_nodes((const char(*)[PFS_HOST_MAX])hosts, N, node), N);
    for (int r = 0; r < N; r++)
        node[r] = r % 4;
    assert_int_equal(pfs_placement_is_even(node, N, 4), 1);
    assert_int_equal(pfs_placement_cache_node(node, N, 4, 1, mems, &data, &mem), 0);
    assert_true(data == 50 && mem == 1 << 30);
}

/* pfs_lines_add: a line each, counted; with once a line already there is
 * not written again; cut where the buffer ends; only counted without one. */
static void test_lines(void **state)
{
    (void)state;
    char buf[32];
    struct pfs_lines l = {buf, sizeof(buf), 0, 0, 1};
    pfs_lines_add(&l, "a %d", 1);
    pfs_lines_add(&l, "bb");
    pfs_lines_add(&l, "a %d", 1);
    pfs_lines_add(&l, "a 12");
    assert_string_equal(buf, "a 1\nbb\na 12\n");
    assert_int_equal(l.count, 4);
    pfs_lines_add(&l, "%s", "0123456789abcdefghijklmnopqrstuvwxyz");
    assert_int_equal(strlen(buf), sizeof(buf) - 1);
    assert_memory_equal(buf, "a 1\nbb\na 12\n0123456789abcdefghi", sizeof(buf) - 1);
    struct pfs_lines all = {buf, sizeof(buf), 0, 0, 0};
    pfs_lines_add(&all, "x");
    pfs_lines_add(&all, "x");
    assert_string_equal(buf, "x\nx\n");
    struct pfs_lines none = {NULL, 0, 0, 0, 1};
    pfs_lines_add(&none, "y");
    assert_int_equal(none.count, 1);
    char t[] = " \t key = v \n";
    assert_string_equal(pfs_trim(t), "key = v");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lines), cmocka_unit_test(test_offsets), cmocka_unit_test(test_offsets_segments), cmocka_unit_test(test_reorder_random), cmocka_unit_test(test_permute), cmocka_unit_test(test_pattern), cmocka_unit_test(test_pattern_any_size),
        cmocka_unit_test(test_random_fill), cmocka_unit_test(test_placement), cmocka_unit_test(test_placement_random), cmocka_unit_test(test_placement_no_memory),
    };
    return cmocka_run_group_tests_name("core", tests, NULL, NULL);
}
