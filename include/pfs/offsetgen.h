/* Where each transfer of a stream goes (elbencho's OffsetGenerator): one
 * "next offset" interface over every access order and layout, so that one
 * transfer loop serves them all. Set up once per phase; next() is the hot
 * path (an add for sequential order, a keyed permutation for random).
 * Local and pure: no I/O, no MPI. */
#ifndef PFS_OFFSETGEN_H
#define PFS_OFFSETGEN_H

#include <stdint.h>

#include "pfs/dist.h"

/* UNIFORM: each transfer at a uniformly drawn index, with replacement (the
 * seeks phase: bonnie++'s random seeks; a transfer may come twice, or never). */
enum pfs_order { PFS_ORDER_SEQUENTIAL, PFS_ORDER_RANDOM, PFS_ORDER_UNIFORM };

/* Every layout is affine in the transfer's index k within a segment of the
 * stream's own transfers: offset = base + (k / m) * seg_stride + (k % m) *
 * stride, m transfers per segment (see pfs_offset in pfs/core.h; one
 * segment: m is UINT64_MAX and the offset base + k * stride). The order
 * decides which k the j-th transfer issued gets. */
struct pfs_offgen {
    uint64_t (*next)(struct pfs_offgen *g); /* the offset of transfer j, then j++ */
    uint64_t j;                             /* transfers handed out so far */
    uint64_t base, stride;
    uint64_t seg_n, seg_stride;             /* m transfers per segment, and a segment's step */
    uint64_t seg_left;                      /* sequential in segments: transfers left in this one */
    uint64_t n;                             /* random: the permutation's domain (the block's transfers) */
    uint64_t seed;                          /* random: its key */
    uint64_t cur;                           /* sequential: the next offset */
    uint64_t pass;                          /* wrap: passes over the block completed */
    struct pfs_dist dist;                   /* --random-dist: the draws (next_dist*) */
};

struct pfs_offgen_spec {
    int order;          /* enum pfs_order */
    int shared;         /* one file for all streams */
    int layout;         /* enum pfs_shared_layout (shared only) */
    uint64_t segments;  /* --segments (shared segmented only; 0 or 1: one) */
    int stream;         /* whose transfers: the writer's number */
    int nstreams;
    uint64_t block;     /* bytes per stream */
    uint64_t transfer;  /* bytes per transfer */
    uint64_t nxfers;    /* transfers in a full block */
    uint64_t seed;      /* random order's key */
    int wrap;           /* --runtime: after the block's last transfer, start again at its first (j
                         * back to 0; random order: a new permutation per pass); 0: j runs on */
    /* --random-dist (NULL: none): random and uniform orders draw each
     * transfer from this distribution over dist_n transfers, with
     * replacement (wrap does nothing: the draws have no end). Uniform
     * order: index k of the block as drawn. Random order: the k-th of the
     * block's permutation (the key seed, as the write that laid the block
     * out drew it), so with dist_n below nxfers (a write the stonewall cut)
     * only transfers that write made are drawn. The distribution's hot
     * blocks are keyed by dist_seed (the run's), its draws by (dist_seed,
     * dist_stream). */
    const struct pfs_dist_spec *dist;
    uint64_t dist_n;
    uint64_t dist_seed, dist_stream;
};

/* Local. Sets g up to hand out transfer 0 first. A distribution that does
 * not start (dist_n 0: nothing to draw from) leaves the order's own. */
void pfs_offgen_init(struct pfs_offgen *g, const struct pfs_offgen_spec *spec);

/* Local. Makes the next call hand out transfer j (j <= n for random; a
 * wrapping generator takes j modulo n, in the current pass). */
void pfs_offgen_seek(struct pfs_offgen *g, uint64_t j);

/* Local. The offset of the next transfer; advances. */
static inline uint64_t pfs_offgen_next(struct pfs_offgen *g)
{
    return g->next(g);
}

#endif
