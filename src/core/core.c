/* Offsets, permutations, patterns, placement: pure functions. */
#include "pfs/core.h"

#include <string.h>

uint64_t pfs_offset(int shared, int layout, int rank, int nranks, uint64_t block,
                    uint64_t transfer, uint64_t j)
{
    if (!shared)
        return j * transfer;
    if (layout == 1 /* PFS_LAYOUT_STRIDED */)
        return (j * (uint64_t)nranks + (uint64_t)rank) * transfer;
    return (uint64_t)rank * block + j * transfer;
}

uint64_t pfs_mix64(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ULL;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    return x ^ (x >> 31);
}

/* A balanced Feistel network over 2*half bits with cycle walking: a
 * bijection of [0, 2^(2*half)) restricted to [0, n). Expected walk length
 * is below 4 because the domain is less than 4n. */
uint64_t pfs_permute(uint64_t i, uint64_t n, uint64_t seed)
{
    if (n <= 1)
        return 0;
    int bits = 0;
    while (bits < 64 && (n - 1) >> bits)
        bits++;
    int half = (bits + 1) / 2;
    uint64_t mask = (half >= 32) ? 0xFFFFFFFFULL : ((1ULL << half) - 1);
    uint64_t x = i;
    do {
        uint64_t l = (x >> half) & mask, r = x & mask;
        for (int round = 0; round < 4; round++) {
            uint64_t f = pfs_mix64(r ^ (seed + (uint64_t)round * 0x632BE59BD9B4E019ULL)) & mask;
            uint64_t nl = r;
            r = l ^ f;
            l = nl;
        }
        x = (l << half) | r;
    } while (x >= n);
    return x;
}

/* The pattern is defined per byte: the byte at file offset x is byte x % 8
 * of the word for x - x % 8. So any transfer size and any offset (47,008 B,
 * 12 B, 1 B) is written and checked exactly, every byte of it. */
static inline uint64_t word_at(uint64_t seed, int writer, uint64_t x)
{
    return pfs_pattern_word(seed, writer, x & ~(uint64_t)7);
}

void pfs_pattern_fill(void *buf, size_t len, uint64_t seed, int writer, uint64_t off)
{
    unsigned char *b = buf;
    size_t i = 0;
    for (; i < len && ((off + i) & 7); i++) {
        uint64_t w = word_at(seed, writer, off + i);
        b[i] = ((const unsigned char *)&w)[(off + i) & 7];
    }
    for (; i + 8 <= len; i += 8) {
        uint64_t w = pfs_pattern_word(seed, writer, off + i);
        memcpy(b + i, &w, 8);
    }
    for (; i < len; i++) {
        uint64_t w = word_at(seed, writer, off + i);
        b[i] = ((const unsigned char *)&w)[(off + i) & 7];
    }
}

/* One unit of the check: the bytes of buf[i, i+n) against the word they
 * belong to; n is 8 in the middle, less at the ends of a transfer. */
static int unit_bad(const unsigned char *b, size_t i, size_t n, uint64_t seed, int writer, uint64_t off,
                    uint64_t *bad, size_t *first_at, uint64_t *expected, uint64_t *found)
{
    uint64_t e = word_at(seed, writer, off + i);
    const unsigned char *pe = (const unsigned char *)&e;
    size_t k = (off + i) & 7;
    if (memcmp(b + i, pe + k, n) == 0)
        return 0;
    if (!*bad) {
        /* name the first differing byte, not just its word */
        size_t j = 0;
        while (j < n && b[i + j] == pe[k + j])
            j++;
        uint64_t f = e;
        memcpy((unsigned char *)&f + k, b + i, n);
        *first_at = i + j;
        *expected = e;
        *found = f;
    }
    (*bad)++;
    return 1;
}

uint64_t pfs_pattern_check(const void *buf, size_t len, uint64_t seed, int writer, uint64_t off,
                           size_t *first_at, uint64_t *expected, uint64_t *found)
{
    const unsigned char *b = buf;
    uint64_t bad = 0;
    size_t i = 0;
    size_t head = (size_t)((8 - (off & 7)) & 7);
    if (head > len)
        head = len;
    if (head) {
        unit_bad(b, 0, head, seed, writer, off, &bad, first_at, expected, found);
        i = head;
    }
    for (; i + 8 <= len; i += 8) {
        uint64_t w, e = pfs_pattern_word(seed, writer, off + i);
        memcpy(&w, b + i, 8);
        if (w != e)
            unit_bad(b, i, 8, seed, writer, off, &bad, first_at, expected, found);
    }
    if (i < len)
        unit_bad(b, i, len - i, seed, writer, off, &bad, first_at, expected, found);
    return bad;
}

void pfs_random_fill(void *buf, size_t len, uint64_t seed)
{
    unsigned char *p = buf;
    uint64_t s = seed;
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        uint64_t v = pfs_mix64(s++);
        memcpy(p + i, &v, 8);
    }
    if (i < len) {
        uint64_t v = pfs_mix64(s);
        memcpy(p + i, &v, len - i);
    }
}

int pfs_placement_nodes(const char (*hosts)[PFS_HOST_MAX], int nranks, int *node_of_rank)
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

int pfs_placement_is_round_robin(const int *node_of_rank, int nranks, int nnodes)
{
    for (int r = 0; r < nranks; r++)
        if (node_of_rank[r] != r % nnodes)
            return 0;
    return 1;
}

int pfs_placement_is_even(const int *node_of_rank, int nranks, int nnodes)
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

int pfs_reorder_shift(const int *node_of_rank, int nranks)
{
    for (int s = 1; s < nranks; s++) {
        int ok = 1;
        for (int r = 0; r < nranks && ok; r++)
            ok = node_of_rank[(r + s) % nranks] != node_of_rank[r];
        if (ok)
            return s;
    }
    return 0;
}
