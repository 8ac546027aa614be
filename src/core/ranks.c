/* The points of a rank sweep and the order in which it takes ranks
 * (pfs/jobfile.h: --ranks, and a job's concurrent groups). Local. */
#include "pfs/jobfile.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_int(const void *a, const void *b) { return (*(const int *)a > *(const int *)b) - (*(const int *)a < *(const int *)b); }

int pfs_ranks_points(const char *spec, int nranks, int *pts, int max, char *err, size_t len)
{
    int n = 0;
    if (strcmp(spec, "pow2") == 0 || strcmp(spec, "all") == 0) {
        const int all = spec[0] == 'a';
        for (int k = 1; k <= nranks && n < max; k = all ? k + 1 : 2 * k)
            pts[n++] = k;
        if (!all && pts[n - 1] != nranks && n < max)
            pts[n++] = nranks;
        return n;
    }
    for (const char *p = spec; *p;) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p || (*end && *end != ',') || v < 1 || v > nranks) {
            snprintf(err, len, "--ranks %s: give pow2, all, or a comma list of counts from 1 to %d (the job's ranks)", spec,
                     nranks);
            return -1;
        }
        if (n == max) {
            snprintf(err, len, "--ranks %s: more than %d points", spec, max);
            return -1;
        }
        pts[n++] = (int)v;
        p = *end ? end + 1 : end;
    }
    if (!n) {
        snprintf(err, len, "--ranks: empty list");
        return -1;
    }
    qsort(pts, (size_t)n, sizeof(int), cmp_int);
    int u = 0;
    for (int i = 0; i < n; i++)
        if (!u || pts[u - 1] != pts[i])
            pts[u++] = pts[i];
    return u;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Each rank's key is (its place among its node's ranks, its node, itself):
 * sorted, the first rank of every node comes first, in node order. */
int pfs_ranks_round_robin(const int *node_of_rank, int nranks, int nnodes, int *order)
{
    int *seen = calloc((size_t)(nnodes > 0 ? nnodes : 1), sizeof(int));
    uint64_t *key = malloc(sizeof(uint64_t) * (size_t)(nranks > 0 ? nranks : 1));
    if (!seen || !key) {
        free(seen);
        free(key);
        return -1;
    }
    for (int r = 0; r < nranks; r++) {
        int node = node_of_rank[r];
        uint64_t place = (uint64_t)seen[node]++;
        key[r] = place << 42 | (uint64_t)node << 21 | (uint64_t)r; /* ranks and nodes below 2^21 */
    }
    qsort(key, (size_t)nranks, sizeof(uint64_t), cmp_u64);
    for (int r = 0; r < nranks; r++)
        order[r] = (int)(key[r] & ((1u << 21) - 1));
    free(seen);
    free(key);
    return 0;
}
