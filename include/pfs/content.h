/* What a write puts in its buffer: data that compresses by a given
 * percentage and deduplicates by a given percentage (fio's
 * buffer_compress_percentage and dedupe_percentage), every byte a pure
 * function of (seed, generation, writer, file offset) so that --verify
 * regenerates and checks all of it, as it checks the plain pattern.
 *
 * The byte at file offset x: x lies in dedupe unit x / unit, at position
 * p = x % unit. A duplicate unit takes the bytes of its source unit at the
 * same position; every other unit is its own source. Within each chunk of
 * a unit (chunk bytes, from its start) the first chunk x (100 - compress) /
 * 100 bytes (rounded down) are the source's bytes of the pattern (pfs/core.h:
 * pfs_pattern_word of the source's offset), the rest zeros, as fio fills a
 * buffer_compress_chunk with random data and then zeros. With compress 0
 * and dedupe 0, and generation 0, the bytes are exactly pfs_pattern_fill's:
 * the plain pattern is this generator's default.
 *
 * Which units are duplicates: the units are taken in groups of 100 (unit
 * indices 100j .. 100j+99); in each group exactly dedupe of them, chosen by
 * a seeded permutation of the group, repeat one unit of the group that is
 * not a duplicate (at dedupe 100, all 100 repeat one of them). A
 * deduplicating store keeps exactly 100 - dedupe of every whole group's
 * units (1 at 100). Positions in a group follow an affine permutation (a
 * multiplier prime to 100 and a shift, drawn per group): cheap to invert, so
 * a unit's source is found in O(1) from its offset alone.
 *
 * writer is the file's key: the writer's number for a file per process (two
 * files never share content by accident), one value for a shared file (a
 * unit's content must not depend on which rank writes it, or duplicates
 * written by two ranks would differ). generation tells apart the contents
 * of successive writes over the same offsets (0: the first).
 *
 * Local and pure; fill and check are picked once at init. */
#ifndef PFS_CONTENT_H
#define PFS_CONTENT_H

#include <stddef.h>
#include <stdint.h>

struct pfs_content_spec {
    int compress;       /* percent of each chunk that is zeros, 0..99 (fio takes 100, all zeros:
                         * nothing left for --verify to tell apart) */
    int dedupe;         /* percent of units that repeat another, 0..100 */
    uint64_t unit;      /* dedupe unit, bytes (a multiple of 8; fio's: the I/O size) */
    uint64_t chunk;     /* compression chunk, bytes (a multiple of 8 dividing unit; 0: 512, fio's) */
};

struct pfs_content {
    void (*fill)(const struct pfs_content *ct, void *buf, size_t len, int writer, uint64_t off);
    uint64_t (*check)(const struct pfs_content *ct, const void *buf, size_t len, int writer, uint64_t off,
                      size_t *first_at, uint64_t *expected, uint64_t *found);
    uint64_t seed;      /* the pattern's seed, generation mixed in */
    uint64_t dkey;      /* the groups' permutations */
    uint64_t unit, chunk;
    uint64_t head;      /* pattern bytes at the head of each chunk */
    int dedupe;
};

/* Local. 0, or -1 with one message in err. */
int pfs_content_init(struct pfs_content *ct, const struct pfs_content_spec *sp, uint64_t seed, uint64_t generation,
                     char *err, size_t len);

/* Local and pure. Fills buf with the content of file offsets [off, off+len). */
static inline void pfs_content_fill(const struct pfs_content *ct, void *buf, size_t len, int writer, uint64_t off)
{
    ct->fill(ct, buf, len, writer, off);
}

/* Local and pure. As pfs_pattern_check: the number of 8-byte words of the
 * file (partial at buf's ends) with a byte unlike the content, the first
 * differing byte's index in buf, the expected word and the found one (the
 * expected with buf's bytes laid over it). */
static inline uint64_t pfs_content_check(const struct pfs_content *ct, const void *buf, size_t len, int writer,
                                         uint64_t off, size_t *first_at, uint64_t *expected, uint64_t *found)
{
    return ct->check(ct, buf, len, writer, off, first_at, expected, found);
}

/* Local. The content of a run's data files: compress and dedupe percent
 * (--buffer-compress, --dedupe) with a dedupe unit of one transfer and
 * chunks of 512 bytes (the transfer, when smaller), generation 0 (a
 * rewrite writes the bytes the write wrote, as the plain pattern does). At
 * 0 and 0 exactly the plain pattern of seed. 0, or -1 with one message in
 * err for a transfer the content cannot be cut in. */
int pfs_content_run(struct pfs_content *ct, int compress, int dedupe, uint64_t transfer, uint64_t seed, char *err,
                    size_t len);

/* Local and pure. The unit whose bytes unit u repeats (u itself for one
 * that is not a duplicate). */
uint64_t pfs_content_source(const struct pfs_content *ct, uint64_t u);

#endif
