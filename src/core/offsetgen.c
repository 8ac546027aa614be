/* Offset generators: one next() per order, picked once at init. */
#include "pfs/offsetgen.h"
#include "pfs/config.h"
#include "pfs/core.h"

/* Transfer k's offset: a division only when the block has segments. */
static inline uint64_t offset_of(const struct pfs_offgen *g, uint64_t k)
{
    if (g->seg_n == UINT64_MAX)
        return g->base + k * g->stride;
    return g->base + k / g->seg_n * g->seg_stride + k % g->seg_n * g->stride;
}

static uint64_t next_sequential(struct pfs_offgen *g)
{
    uint64_t off = g->cur;
    g->cur += g->stride;
    g->j++;
    return off;
}

/* In segments: an add per transfer, a segment's step after its last. */
static uint64_t next_segments(struct pfs_offgen *g)
{
    uint64_t off = g->cur;
    g->j++;
    if (--g->seg_left) {
        g->cur += g->stride;
    } else {
        g->seg_left = g->seg_n;
        g->cur = offset_of(g, g->j);
    }
    return off;
}

static uint64_t next_random(struct pfs_offgen *g)
{
    return offset_of(g, pfs_permute(g->j++, g->n, g->seed));
}

/* A draw of n per transfer, keyed by the seed and j: independent of how many
 * were handed out before (a wear-out or a wrap needs no state). The modulo's
 * bias is below n / 2^64. */
static uint64_t next_uniform(struct pfs_offgen *g)
{
    const uint64_t h = pfs_mix64(g->seed ^ (g->j++ * 0x9E3779B97F4A7C15ULL));
    return offset_of(g, g->n ? h % g->n : 0);
}

/* --runtime: the same, starting over at the block's first transfer after its
 * last. One more compare per transfer, only in a time-based phase. */
static uint64_t next_sequential_wrap(struct pfs_offgen *g)
{
    if (g->j == g->n) {
        g->j = 0;
        g->cur = g->base;
        g->seg_left = g->seg_n;
        g->pass++;
    }
    return g->seg_n == UINT64_MAX ? next_sequential(g) : next_segments(g);
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

/* --random-dist, uniform order (seeks): index k as the distribution draws
 * it. */
static uint64_t next_dist(struct pfs_offgen *g)
{
    g->j++;
    return offset_of(g, pfs_dist_next(&g->dist));
}

/* --random-dist, random order: the drawn place in the permutation the write
 * laid the block out in, so a draw below dist_n is a transfer it made. */
static uint64_t next_dist_perm(struct pfs_offgen *g)
{
    g->j++;
    return offset_of(g, pfs_permute(pfs_dist_next(&g->dist), g->n, g->seed));
}

/* Which next() serves the order; sequential in segments steps between them. */
static uint64_t (*pick(const struct pfs_offgen_spec *sp, int segments))(struct pfs_offgen *)
{
    if (sp->order == PFS_ORDER_UNIFORM)
        return next_uniform;
    if (sp->order == PFS_ORDER_RANDOM)
        return sp->wrap ? next_random_wrap : next_random;
    if (sp->wrap)
        return next_sequential_wrap;
    return segments ? next_segments : next_sequential;
}

void pfs_offgen_init(struct pfs_offgen *g, const struct pfs_offgen_spec *sp)
{
    /* pfs_offset at k = 0 and k = 1 gives base and stride for every layout;
     * in segments, at k = m the next segment's start. */
    const uint64_t segs = sp->segments > 1 ? sp->segments : 1;
    const uint64_t per = sp->transfer ? sp->block / segs / sp->transfer : 0;
    const int in_segs = sp->shared && sp->layout == PFS_LAYOUT_SEGMENTED && segs > 1 && per > 0;
    uint64_t o0 = pfs_offset(sp->shared, sp->layout, segs, sp->stream, sp->nstreams, sp->block, sp->transfer, 0);
    uint64_t o1 = pfs_offset(sp->shared, sp->layout, segs, sp->stream, sp->nstreams, sp->block, sp->transfer, 1);
    uint64_t om = in_segs ? pfs_offset(1, sp->layout, segs, sp->stream, sp->nstreams, sp->block, sp->transfer, per) : 0;
    *g = (struct pfs_offgen){
        .next = pick(sp, in_segs),
        .base = o0,
        .stride = per == 1 && in_segs ? 0 : o1 - o0,
        .seg_n = in_segs ? per : UINT64_MAX,
        .seg_stride = om - o0,
        .seg_left = in_segs ? per : UINT64_MAX,
        .n = sp->nxfers,
        .seed = sp->seed,
        .cur = o0,
    };
    if (sp->dist && sp->order != PFS_ORDER_SEQUENTIAL && sp->dist_n > 0) {
        char err[160];
        const uint64_t n = sp->order == PFS_ORDER_RANDOM && sp->dist_n > sp->nxfers ? sp->nxfers : sp->dist_n;
        if (pfs_dist_init(&g->dist, sp->dist, n, sp->dist_seed, sp->dist_stream, err, sizeof(err)) == 0)
            g->next = sp->order == PFS_ORDER_RANDOM ? next_dist_perm : next_dist;
    }
}

void pfs_offgen_seek(struct pfs_offgen *g, uint64_t j)
{
    if ((g->next == next_sequential_wrap || g->next == next_random_wrap) && g->n > 0)
        j %= g->n;
    g->j = j;
    g->dist.k = j;
    g->cur = offset_of(g, j);
    g->seg_left = g->seg_n == UINT64_MAX ? UINT64_MAX : g->seg_n - j % g->seg_n;
}
