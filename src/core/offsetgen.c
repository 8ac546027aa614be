/* Offset generators: one next() per order, picked once at init. */
#include "pfs/offsetgen.h"
#include "pfs/core.h"

static uint64_t next_sequential(struct pfs_offgen *g)
{
    uint64_t off = g->cur;
    g->cur += g->stride;
    g->j++;
    return off;
}

static uint64_t next_random(struct pfs_offgen *g)
{
    return g->base + pfs_permute(g->j++, g->n, g->seed) * g->stride;
}

/* A draw of n per transfer, keyed by the seed and j: independent of how many
 * were handed out before (a wear-out or a wrap needs no state). The modulo's
 * bias is below n / 2^64. */
static uint64_t next_uniform(struct pfs_offgen *g)
{
    const uint64_t h = pfs_mix64(g->seed ^ (g->j++ * 0x9E3779B97F4A7C15ULL));
    return g->base + (g->n ? h % g->n : 0) * g->stride;
}

/* --runtime: the same, starting over at the block's first transfer after its
 * last. One more compare per transfer, only in a time-based phase. */
static uint64_t next_sequential_wrap(struct pfs_offgen *g)
{
    if (g->j == g->n) {
        g->j = 0;
        g->cur = g->base;
        g->pass++;
    }
    return next_sequential(g);
}

/* Each pass a new permutation of the block (its key mixed once per pass), so
 * a long run does not replay one order: every pass still covers the block
 * once. */
static uint64_t next_random_wrap(struct pfs_offgen *g)
{
    if (g->j == g->n) {
        g->j = 0;
        g->pass++;
        g->seed = pfs_mix64(g->seed + g->pass);
    }
    return next_random(g);
}

void pfs_offgen_init(struct pfs_offgen *g, const struct pfs_offgen_spec *sp)
{
    /* pfs_offset at k = 0 and k = 1 gives base and stride for every layout. */
    uint64_t o0 = pfs_offset(sp->shared, sp->layout, sp->stream, sp->nstreams, sp->block, sp->transfer, 0);
    uint64_t o1 = pfs_offset(sp->shared, sp->layout, sp->stream, sp->nstreams, sp->block, sp->transfer, 1);
    *g = (struct pfs_offgen){
        .next = sp->order == PFS_ORDER_UNIFORM  ? next_uniform
                : sp->order == PFS_ORDER_RANDOM ? (sp->wrap ? next_random_wrap : next_random)
                                                : (sp->wrap ? next_sequential_wrap : next_sequential),
        .base = o0,
        .stride = o1 - o0,
        .n = sp->nxfers,
        .seed = sp->seed,
        .cur = o0,
    };
}

void pfs_offgen_seek(struct pfs_offgen *g, uint64_t j)
{
    if ((g->next == next_sequential_wrap || g->next == next_random_wrap) && g->n > 0)
        j %= g->n;
    g->j = j;
    g->cur = g->base + j * g->stride;
}
