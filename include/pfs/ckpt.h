/* Checkpoints as training frameworks shard them: the shards of a model's
 * weights and optimizer state over tensor (TP) x pipeline (PP) x data (DP)
 * parallel ranks, which rank writes which shard, where each lands in the
 * files, and the exact byte ranges each rank of another world reads to
 * restore its own part (N to M resharding).
 *
 * The model. Its parameters are units in order: the first stage's extra
 * (the embedding), `layers` equal transformer layers, the last stage's
 * extra (the output head and final norm). PP splits the layers into
 * contiguous stages (the first layers % PP stages get one more, as DLIO
 * does); TP splits every unit into TP contiguous slices (slice t of n
 * parameters is [t*n/TP, (t+1)*n/TP), floors, so none is lost). A
 * model-parallel shard (pp, tp) holds slice tp of every unit of stage pp,
 * in unit order: its "local" parameter space. A checkpoint has two parts,
 * each over every parameter: the weights (wbytes per parameter: 2 for
 * bf16/fp16) and the optimizer state (obytes: 12 for mixed-precision Adam,
 * the fp32 master weights and both moments; 0 for none). Gradients are
 * never saved, so ZeRO stage 2 (gradients sharded) writes what stage 1
 * writes.
 *
 * ZeRO over DP (DeepSpeed; DLIO, which MLPerf Storage runs, does the same):
 * stage 0 keeps both parts replicated on the DP ranks; stage >= 1 splits
 * the optimizer state of each model-parallel shard into DP contiguous
 * pieces of its local space, stage 3 the weights too. A replicated part is
 * written once, by DP rank 0 (DeepSpeed's mp_rank_XX_model_states, DLIO's
 * model_states); a split one by each DP rank, its own piece. Ranks are
 * numbered tp + TP * (pp + PP * dp), tensor-parallel fastest (DLIO's order).
 *
 * Shards, in index order: the weights' then the optimizer's; within a part
 * model-parallel shard m = pp * TP + tp, then the DP piece. Their bytes,
 * in that order, are the checkpoint's canonical image; the layouts cut it
 * into files:
 *   PER_SHARD  one file per shard (file = shard index), offset 0: DLIO and
 *              DeepSpeed's model_states / optim_states files
 *   PER_RANK   one file per writing rank (file = rank), its weights shard
 *              then its optimizer shard: torch.distributed.checkpoint's
 *              __RANK_0.distcp; a rank that writes nothing has no file
 *   SHARED     one file (file 0), the whole image: N-1 (MPI-IO, HDF5)
 *
 * Restore onto a world of M ranks with its own TP' x PP' x DP' and ZeRO
 * stage: a reader needs, of each part, the local range its own shard would
 * hold: its DP' piece where that part is split in the new world, else the
 * whole model-parallel shard, which its DP' replicas need alike. Who reads
 * a replicated part is the policy:
 *   SPREAD  each replica reads its DP' piece of it (Megatron's fully
 *           parallel load; the pieces would then be exchanged over the
 *           network): every byte of the checkpoint is read exactly once,
 *           by all ranks, and M == N with the same degrees reads exactly
 *           what each rank wrote when the parts were split alike
 *   LEADER  DP' rank 0 reads it all, the others none (DLIO's restore, and
 *           Megatron's two-stage load, which broadcasts it): every byte
 *           exactly once, by fewer ranks
 *   EACH    every replica reads its own copy: what a restore without a
 *           broadcast costs; bytes replicated D' ways are read D' times
 * A reader's ranges come from an iterator, one maximal contiguous range of
 * one written shard at a time, O(1) work and no memory per range.
 *
 * Local and pure: no I/O, no MPI, no allocation. */
#ifndef PFS_CKPT_H
#define PFS_CKPT_H

#include <stddef.h>
#include <stdint.h>

enum pfs_ckpt_part { PFS_CKPT_WEIGHTS, PFS_CKPT_OPTIM };
enum pfs_ckpt_layout { PFS_CKPT_PER_SHARD, PFS_CKPT_PER_RANK, PFS_CKPT_SHARED };
enum pfs_ckpt_policy { PFS_CKPT_SPREAD, PFS_CKPT_LEADER, PFS_CKPT_EACH };

#define PFS_CKPT_RANKS_MAX (1 << 24) /* ranks of one world */
#define PFS_CKPT_BPP_MAX 64          /* bytes per parameter of one part */

struct pfs_ckpt_model {
    uint64_t layers;       /* transformer layers, split over PP */
    uint64_t layer_params; /* parameters of one layer */
    uint64_t first_params; /* on the first stage: the embedding */
    uint64_t last_params;  /* on the last stage: the output head, the final norm */
    unsigned wbytes;       /* bytes per parameter of the weights */
    unsigned obytes;       /* bytes per parameter of the optimizer state; 0: none */
};

struct pfs_ckpt_par {
    int tp, pp, dp;
    int zero; /* ZeRO stage, 0..3 */
};

struct pfs_ckpt {
    struct pfs_ckpt_model m;
    struct pfs_ckpt_par par;
    int layout; /* enum pfs_ckpt_layout */
};

/* One shard: what it holds, who writes it, where it lands. */
struct pfs_ckpt_shard {
    int part;                  /* enum pfs_ckpt_part */
    int pp, tp;                /* its model-parallel shard */
    int piece;                 /* its DP piece; -1: the whole shard (replicated part) */
    int writer;                /* the rank that writes it */
    uint64_t unit_lo, unit_hi; /* the units of its stage: 0 the embedding, layers + 1 the head */
    uint64_t lo, hi;           /* its parameters, in the model-parallel shard's local space */
    uint64_t bytes;
    uint64_t file, offset; /* where its first byte lands */
};

/* One range a reader reads. */
struct pfs_ckpt_range {
    uint64_t file, offset, len; /* bytes of the written checkpoint */
    uint64_t shard;             /* the written shard they are in */
    uint64_t soff;              /* and their offset in it */
    int part;                   /* enum pfs_ckpt_part */
    uint64_t dst;               /* their offset in the reader's own bytes of that part */
};

/* A reader's walk over the written checkpoint. Set up by
 * pfs_ckpt_reader_init; the fields are its state. */
struct pfs_ckpt_reader {
    struct pfs_ckpt w;       /* the written checkpoint */
    struct pfs_ckpt_par r;   /* the readers' world */
    int t, s, d;             /* this reader's tp, pp, dp in it */
    uint64_t need_lo[2], need_hi[2]; /* per part, its range of its local space */
    uint64_t bytes;          /* all it reads */
    int part;                /* the part being walked; 2: done */
    uint64_t q;              /* the next local position */
    uint64_t u, e, e_end;    /* its unit, element, and the end of its slice there */
    int have;                /* pend holds a range not handed out yet */
    struct pfs_ckpt_range pend;
};

/* Local and pure. The named checkpoint (model, degrees, the PER_SHARD
 * layout): llama3-8b, llama3-70b, llama3-405b, llama3-1t (MLPerf Storage
 * v2.0's four, with its degrees and ZeRO stages), and scaled-down ones for
 * tests: tiny (4 ranks, 4.3 MiB), tiny-zero3 (4 ranks), small (8 ranks,
 * 127 MiB). 0, or -1 for an unknown name. */
int pfs_ckpt_preset(const char *name, struct pfs_ckpt *out);

/* Local and pure. Preset i's name, NULL past the last. */
const char *pfs_ckpt_preset_name(int i);

/* Local and pure. 0, or -1 with one sentence in err: degrees out of range,
 * more stages than layers, a shard or DP piece without a parameter, a size
 * past 2^63 bytes. */
int pfs_ckpt_check(const struct pfs_ckpt *c, char *err, size_t len);

/* Local and pure. The parameters; the checkpoint's bytes; the ranks of a
 * world. */
uint64_t pfs_ckpt_params(const struct pfs_ckpt_model *m);
uint64_t pfs_ckpt_bytes(const struct pfs_ckpt_model *m);
int pfs_ckpt_world(const struct pfs_ckpt_par *p);

/* Local and pure (of a checked checkpoint). The number of shards; shard
 * i (< that number). */
uint64_t pfs_ckpt_nshards(const struct pfs_ckpt *c);
void pfs_ckpt_shard(const struct pfs_ckpt *c, uint64_t i, struct pfs_ckpt_shard *out);

/* Local and pure. The shards rank writes (at most 2: weights, then
 * optimizer), their indices in idx; the count. */
int pfs_ckpt_rank_shards(const struct pfs_ckpt *c, int rank, uint64_t idx[2]);

/* Local and pure. How many files the layout makes (PER_RANK: the world,
 * some of them empty) and the bytes of file f. */
uint64_t pfs_ckpt_nfiles(const struct pfs_ckpt *c);
uint64_t pfs_ckpt_file_bytes(const struct pfs_ckpt *c, uint64_t f);

/* Local and pure. Sets rd up to walk what rank (of the world r, checked
 * with w's model) reads of the checkpoint w under policy. 0, or -1 with a
 * sentence in err for a world, rank or policy out of range. */
int pfs_ckpt_reader_init(struct pfs_ckpt_reader *rd, const struct pfs_ckpt *w, const struct pfs_ckpt_par *r,
                         int policy, int rank, char *err, size_t len);

/* Local. The next range, in the reader's own order (its weights, then its
 * optimizer state, each from its first byte); 1, or 0 when none is left.
 * Consecutive ranges are never one contiguous piece of one shard. */
int pfs_ckpt_reader_next(struct pfs_ckpt_reader *rd, struct pfs_ckpt_range *out);

#endif
