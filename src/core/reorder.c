/* --reorder-seed: whose data each rank reads, a seeded permutation of the
 * ranks (IOR's -Z -X). Pure: rank 0 computes it from the placement. */
#include "pfs/core.h"

#include <stdlib.h>

/* A draw from [0, n), keyed by the seed and the draw's number (the modulo's
 * bias is below n / 2^64). */
static uint64_t draw(uint64_t seed, uint64_t i, uint64_t n)
{
    return pfs_mix64(seed ^ pfs_mix64(i + 1)) % n;
}

/* Fisher-Yates over v[0..n), draws numbered from *k on. */
static void shuffle(int *v, int n, uint64_t seed, uint64_t *k)
{
    for (int i = n - 1; i > 0; i--) {
        const int j = (int)draw(seed, (*k)++, (uint64_t)i + 1);
        const int t = v[i];
        v[i] = v[j], v[j] = t;
    }
}

/* The ranks in a seeded order, grouped by node: the nodes in a shuffled
 * order (the largest first when first_big), each node's ranks shuffled.
 * order[nranks]; returns the largest node's rank count. */
static int grouped(const int *node_of_rank, int nranks, int nnodes, uint64_t seed, int first_big, int *order,
                   int *nodes, int *count)
{
    uint64_t k = 0;
    int big = 0;
    for (int n = 0; n < nnodes; n++)
        nodes[n] = n, count[n] = 0;
    for (int r = 0; r < nranks; r++)
        count[node_of_rank[r]]++;
    shuffle(nodes, nnodes, seed, &k);
    for (int n = 1; n < nnodes; n++)
        big = count[nodes[n]] > count[nodes[big]] ? n : big;
    if (first_big) {
        const int t = nodes[0];
        nodes[0] = nodes[big], nodes[big] = t;
        big = 0;
    }
    const int most = count[nodes[big]];
    int at = 0;
    for (int n = 0; n < nnodes; n++) {
        const int start = at;
        for (int r = 0; r < nranks; r++)
            if (node_of_rank[r] == nodes[n])
                order[at++] = r;
        shuffle(order + start, at - start, seed, &k);
    }
    return most;
}

int pfs_reorder_random(const int *node_of_rank, int nranks, uint64_t seed, int *from)
{
    if (nranks < 2) {
        for (int r = 0; r < nranks; r++)
            from[r] = r;
        return nranks < 1 ? 0 : -1;
    }
    int nnodes = 0;
    for (int r = 0; r < nranks; r++)
        nnodes = node_of_rank[r] >= nnodes ? node_of_rank[r] + 1 : nnodes;
    int *order = malloc((size_t)nranks * sizeof(int)), *nodes = malloc((size_t)nnodes * 2 * sizeof(int));
    if (!order || !nodes) {
        free(order), free(nodes);
        return -2;
    }
    /* In the grouped order a node's ranks are one run of at most m places;
     * a shift k with m <= k <= n - m moves every place out of its own run,
     * onto another node's. Without such a k (a node holds over half the
     * ranks), the largest node first and k = n - m puts the most readers
     * on another node (every rank of the others, as many of the largest);
     * on one node any 1 <= k < n is a derangement. */
    const int m = grouped(node_of_rank, nranks, nnodes, seed, 0, order, nodes, nodes + nnodes);
    int k;
    if (2 * m <= nranks) {
        k = m + (int)draw(seed ^ 0x5A5A5A5AULL, 0, (uint64_t)(nranks - 2 * m + 1));
    } else if (m < nranks) {
        (void)grouped(node_of_rank, nranks, nnodes, seed, 1, order, nodes, nodes + nnodes);
        k = nranks - m;
    } else {
        k = 1 + (int)draw(seed ^ 0x5A5A5A5AULL, 0, (uint64_t)(nranks - 1));
    }
    int same = 0;
    for (int i = 0; i < nranks; i++) {
        from[order[i]] = order[(i + k) % nranks];
        same += node_of_rank[order[i]] == node_of_rank[from[order[i]]];
    }
    free(order), free(nodes);
    return same;
}
