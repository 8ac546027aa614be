/* Offsets, permutations, patterns, placement: pure functions. */
#include "pfs/core.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint64_t pfs_offset(int shared, int layout, uint64_t segments, int rank, int nranks, uint64_t block,
                    uint64_t transfer, uint64_t j)
{
    if (!shared)
        return j * transfer;
    if (layout == 1 /* PFS_LAYOUT_STRIDED */)
        return (j * (uint64_t)nranks + (uint64_t)rank) * transfer;
    if (segments <= 1 || transfer == 0)
        return (uint64_t)rank * block + j * transfer;
    /* IOR's segments: segment k of every rank, then segment k+1. */
    const uint64_t seg = block / segments, per = seg / transfer ? seg / transfer : 1;
    return (j / per * (uint64_t)nranks + (uint64_t)rank) * seg + j % per * transfer;
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

/* The names as strncmp(.., PFS_HOST_MAX) sees them: up to the first NUL or
 * PFS_HOST_MAX bytes. FNV-1a, 64 bits. */
static uint64_t host_hash(const char *h)
{
    uint64_t x = 0xCBF29CE484222325ULL;
    for (int i = 0; i < PFS_HOST_MAX && h[i]; i++)
        x = (x ^ (unsigned char)h[i]) * 0x100000001B3ULL;
    return x;
}

/* One slot of the name table: the first rank with the name (-1: empty) and its hash. */
struct host_slot {
    uint64_t hash;
    int rank;
};

/* Places (hash, rank) in a table of cap slots (a power of 2) known not to hold the name. */
static void slot_put(struct host_slot *tab, size_t cap, uint64_t hash, int rank)
{
    size_t i = (size_t)pfs_mix64(hash) & (cap - 1);
    while (tab[i].rank >= 0)
        i = (i + 1) & (cap - 1);
    tab[i].hash = hash;
    tab[i].rank = rank;
}

/* Open addressing, linear probing, at most half full: the table grows with
 * the node count (16 B per slot), not with the ranks. */
int pfs_placement_nodes(const char (*hosts)[PFS_HOST_MAX], int nranks, int *node_of_rank)
{
    size_t cap = 64;
    struct host_slot *tab = malloc(cap * sizeof(*tab));
    if (!tab)
        return -1;
    for (size_t i = 0; i < cap; i++)
        tab[i].rank = -1;
    int nnodes = 0;
    for (int r = 0; r < nranks; r++) {
        uint64_t h = host_hash(hosts[r]);
        size_t i = (size_t)pfs_mix64(h) & (cap - 1);
        for (; tab[i].rank >= 0; i = (i + 1) & (cap - 1))
            if (tab[i].hash == h && strncmp(hosts[tab[i].rank], hosts[r], PFS_HOST_MAX) == 0)
                break;
        if (tab[i].rank >= 0) {
            node_of_rank[r] = node_of_rank[tab[i].rank];
            continue;
        }
        node_of_rank[r] = nnodes++;
        tab[i].hash = h;
        tab[i].rank = r;
        if ((size_t)nnodes * 2 > cap) {
            size_t ncap = cap * 2;
            struct host_slot *nt = malloc(ncap * sizeof(*nt));
            if (!nt) {
                free(tab);
                return -1;
            }
            for (size_t j = 0; j < ncap; j++)
                nt[j].rank = -1;
            for (size_t j = 0; j < cap; j++)
                if (tab[j].rank >= 0)
                    slot_put(nt, ncap, tab[j].hash, tab[j].rank);
            free(tab);
            tab = nt;
            cap = ncap;
        }
    }
    free(tab);
    return nnodes;
}

int pfs_placement_is_round_robin(const int *node_of_rank, int nranks, int nnodes)
{
    for (int r = 0; r < nranks; r++)
        if (node_of_rank[r] != r % nnodes)
            return 0;
    return 1;
}

/* Ranks whose node is outside [0, nnodes) count for no node. */
int pfs_placement_is_even(const int *node_of_rank, int nranks, int nnodes)
{
    if (nnodes < 2)
        return 1;
    int *count = calloc((size_t)nnodes, sizeof(int));
    if (!count)
        return -1;
    for (int r = 0; r < nranks; r++)
        if (node_of_rank[r] >= 0 && node_of_rank[r] < nnodes)
            count[node_of_rank[r]]++;
    int even = 1;
    for (int n = 1; n < nnodes && even; n++)
        even = count[n] == count[0];
    free(count);
    return even;
}

int pfs_placement_cache_node(const int *node_of_rank, int nranks, int nnodes, double per_rank,
                             const double *mems, double *data, double *mem)
{
    if (nnodes < 1)
        return -1;
    double *sum = calloc((size_t)nnodes, sizeof(double));
    int *last = malloc((size_t)nnodes * sizeof(int));
    if (!sum || !last) {
        free(sum), free(last);
        return -2;
    }
    for (int n = 0; n < nnodes; n++)
        last[n] = -1;
    /* each node's additions in rank order, as a scan of its ranks would make them */
    for (int r = 0; r < nranks; r++) {
        int n = node_of_rank[r];
        if (n < 0 || n >= nnodes)
            continue;
        sum[n] += per_rank;
        last[n] = r;
    }
    int found = -1;
    for (int n = 0; n < nnodes && found < 0; n++) {
        double m = last[n] >= 0 ? mems[last[n]] : 0;
        if (sum[n] < 2 * m) {
            *data = sum[n], *mem = m;
            found = n;
        }
    }
    free(sum), free(last);
    return found;
}

int pfs_reorder_shift_nodes(const int *node_of_rank, int nranks, int nodes_away)
{
    if (nodes_away <= 1)
        return pfs_reorder_shift(node_of_rank, nranks);
    int nnodes = 0;
    for (int r = 0; r < nranks; r++)
        nnodes = node_of_rank[r] >= nnodes ? node_of_rank[r] + 1 : nnodes;
    if (nnodes < 2 || nodes_away % nnodes == 0)
        return 0;
    for (int s = 1; s < nranks; s++) {
        int ok = 1;
        for (int r = 0; r < nranks && ok; r++)
            ok = node_of_rank[(r + s) % nranks] == (node_of_rank[r] + nodes_away) % nnodes;
        if (ok)
            return s;
    }
    return 0;
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

void pfs_lines_add(struct pfs_lines *l, const char *fmt, ...)
{
    l->count++;
    if (!l->buf || l->used + 1 >= l->len)
        return;
    const size_t start = l->used, room = l->len - start;
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(l->buf + start, room, fmt, ap);
    va_end(ap);
    const size_t n = w <= 0 ? 0 : (size_t)w < room ? (size_t)w : room - 1;
    for (size_t p = 0; l->once && p < start; p += strcspn(l->buf + p, "\n") + 1)
        if (strcspn(l->buf + p, "\n") == n && strncmp(l->buf + p, l->buf + start, n) == 0) {
            l->buf[start] = '\0';
            return;
        }
    l->used += n;
    if (l->used + 1 < l->len)
        l->buf[l->used++] = '\n', l->buf[l->used] = '\0';
}

char *pfs_strdup(const char *s)
{
    const size_t n = strlen(s) + 1;
    char *copy = malloc(n);
    return copy ? memcpy(copy, s, n) : NULL;
}

char *pfs_trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
    return s;
}
