/* Counter-based random numbers: the k-th draw of a keyed sequence is a pure
 * function of (key, k), so any draw can be made again anywhere (another
 * rank, a later check, a rerun) without replaying the ones before it, and
 * two streams never share state. The sequence of a key is SplitMix64's
 * (a Weyl sequence through a 64-bit finaliser), which passes BigCrush.
 * Local and pure; header-only so the hot paths inline it. */
#ifndef PFS_CRAND_H
#define PFS_CRAND_H

#include <stdint.h>

#define PFS_CRAND_GOLDEN 0x9E3779B97F4A7C15ULL

/* What a draw is for: each purpose has its own sequence, so adding draws of
 * one kind (a size per transfer) never moves those of another (offsets). */
enum pfs_crand_purpose {
    PFS_CRAND_ARRIVAL = 1,
    PFS_CRAND_OFFSET,
    PFS_CRAND_MIX,
    PFS_CRAND_SIZE,
    PFS_CRAND_DEDUPE,
    PFS_CRAND_PLACE,
    PFS_CRAND_TRAIN,  /* an epoch's order of the training samples (pfs/train.h) */
};

/* The SplitMix64 finaliser: the same function as pfs_mix64 without its
 * leading add, inlined. */
static inline uint64_t pfs_crand_fin(uint64_t x)
{
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    return x ^ (x >> 31);
}

/* Local. The key of one sequence: the run's seed, the stream, the purpose. */
static inline uint64_t pfs_crand_key(uint64_t seed, uint64_t stream, unsigned purpose)
{
    uint64_t k = pfs_crand_fin(seed + PFS_CRAND_GOLDEN * ((uint64_t)purpose + 1));
    return pfs_crand_fin(k ^ pfs_crand_fin(stream + 0x632BE59BD9B4E019ULL));
}

/* Local. Draw k of the sequence of key: 64 uniform bits. */
static inline uint64_t pfs_crand_u64(uint64_t key, uint64_t k)
{
    return pfs_crand_fin(key + (k + 1) * PFS_CRAND_GOLDEN);
}

/* Local. Draw k as a double in [0, 1), 53 bits. */
static inline double pfs_crand_unit(uint64_t key, uint64_t k)
{
    return (double)(pfs_crand_u64(key, k) >> 11) * 0x1p-53;
}

/* Local. Draw k as an integer in [0, n): the high half of a 64x64 product
 * (bias below n / 2^64, no division). */
static inline uint64_t pfs_crand_below(uint64_t key, uint64_t k, uint64_t n)
{
    return (uint64_t)(((unsigned __int128)pfs_crand_u64(key, k) * n) >> 64);
}

#endif
