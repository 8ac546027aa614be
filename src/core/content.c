/* Compressible and deduplicable contents over the verification pattern. */
#include "pfs/content.h"

#include <stdio.h>
#include <string.h>

#include "pfs/core.h"
#include "pfs/crand.h"

/* The 40 residues prime to 100 and their inverses modulo 100. */
static const uint8_t unit_mul[40] = {1,  3,  7,  9,  11, 13, 17, 19, 21, 23, 27, 29, 31, 33, 37, 39, 41, 43, 47, 49,
                                     51, 53, 57, 59, 61, 63, 67, 69, 71, 73, 77, 79, 81, 83, 87, 89, 91, 93, 97, 99};
static const uint8_t unit_inv[40] = {1,  67, 43, 89, 91, 77, 53, 79, 81, 87, 63, 69, 71, 97, 73, 59, 61, 7,  83, 49,
                                     51, 17, 93, 39, 41, 27, 3,  29, 31, 37, 13, 19, 21, 47, 23, 9,  11, 57, 33, 99};

uint64_t pfs_content_source(const struct pfs_content *ct, uint64_t u)
{
    const uint64_t g = u / 100, i = u % 100;
    const uint64_t h = pfs_crand_u64(ct->dkey, g);
    const unsigned m = (unsigned)(h % 40), b = (unsigned)((h >> 8) % 100);
    const unsigned rank = (unsigned)((unit_mul[m] * i + b) % 100);
    if (rank >= (unsigned)ct->dedupe)
        return u;
    /* The unit of rank dedupe (the first that is not a duplicate; rank 0
     * at 100, where every unit is one). */
    const unsigned r = ct->dedupe < 100 ? (unsigned)ct->dedupe : 0;
    return g * 100 + (unsigned)(((r + 100 - b) * unit_inv[m]) % 100);
}

static void fill_plain(const struct pfs_content *ct, void *buf, size_t len, int writer, uint64_t off)
{
    pfs_pattern_fill(buf, len, ct->seed, writer, off);
}

static uint64_t check_plain(const struct pfs_content *ct, const void *buf, size_t len, int writer, uint64_t off,
                            size_t *first_at, uint64_t *expected, uint64_t *found)
{
    return pfs_pattern_check(buf, len, ct->seed, writer, off, first_at, expected, found);
}

/* One segment at a time: a chunk's pattern head or zero tail, never across
 * a unit's end (chunks divide units), so one source offset serves it. */
static void fill_mixed(const struct pfs_content *ct, void *buf, size_t len, int writer, uint64_t off)
{
    unsigned char *b = buf;
    size_t i = 0;
    while (i < len) {
        const uint64_t x = off + i;
        const uint64_t u = x / ct->unit, p = x % ct->unit, q = p % ct->chunk;
        size_t n = (size_t)(q < ct->head ? ct->head - q : ct->chunk - q);
        if (n > len - i)
            n = len - i;
        if (q < ct->head) {
            const uint64_t s = ct->dedupe ? pfs_content_source(ct, u) : u;
            pfs_pattern_fill(b + i, n, ct->seed, writer, s * ct->unit + p);
        } else {
            memset(b + i, 0, n);
        }
        i += n;
    }
}

/* Counts and names mismatches between got and want, which hold the same
 * file offsets [off, off+n): one per 8-byte word of the file. base is
 * got's index in the caller's buffer. */
static uint64_t compare(const unsigned char *got, const unsigned char *want, size_t n, uint64_t off, size_t base,
                        uint64_t bad_before, size_t *first_at, unsigned char *first_word, size_t *word_at)
{
    uint64_t bad = 0;
    for (size_t i = 0; i < n;) {
        size_t w = 8 - (size_t)((off + i) & 7);
        if (w > n - i)
            w = n - i;
        if (memcmp(got + i, want + i, w) != 0) {
            if (!bad_before && !bad) {
                size_t j = 0;
                while (got[i + j] == want[i + j])
                    j++;
                *first_at = base + i + j;
                *word_at = base + i;
                memcpy(first_word, got + i, w);
            }
            bad++;
        }
        i += w;
    }
    return bad;
}

/* The content regenerated a block at a time and compared; a block that
 * matches (the usual case) costs one memcmp. */
static uint64_t check_mixed(const struct pfs_content *ct, const void *buf, size_t len, int writer, uint64_t off,
                            size_t *first_at, uint64_t *expected, uint64_t *found)
{
    const unsigned char *b = buf;
    unsigned char want[4096], fw[8];
    size_t word_at = 0;
    uint64_t bad = 0;
    for (size_t i = 0; i < len;) {
        size_t n = len - i < sizeof(want) ? len - i : sizeof(want);
        fill_mixed(ct, want, n, writer, off + i);
        if (memcmp(b + i, want, n) != 0)
            bad += compare(b + i, want, n, off + i, i, bad, first_at, fw, &word_at);
        i += n;
    }
    if (bad) {
        /* The whole file word of the first mismatch, buf's bytes laid over. */
        const uint64_t x = off + word_at, w0 = x & ~(uint64_t)7;
        uint64_t e;
        fill_mixed(ct, &e, 8, writer, w0);
        uint64_t f = e;
        size_t k = (size_t)(x - w0), m = 8 - k;
        if (m > len - word_at)
            m = len - word_at;
        memcpy((unsigned char *)&f + k, fw, m);
        *expected = e;
        *found = f;
    }
    return bad;
}

int pfs_content_init(struct pfs_content *ct, const struct pfs_content_spec *sp, uint64_t seed, uint64_t generation,
                     char *err, size_t len)
{
    const uint64_t chunk = sp->chunk ? sp->chunk : 512;
    if (sp->compress < 0 || sp->compress > 99) {
        snprintf(err, len, "the compressible percentage must be from 0 to 99, not %d", sp->compress);
        return -1;
    }
    if (sp->dedupe < 0 || sp->dedupe > 100) {
        snprintf(err, len, "the dedupe percentage must be from 0 to 100, not %d", sp->dedupe);
        return -1;
    }
    if (sp->unit == 0 || sp->unit % 8 || chunk % 8 || (sp->compress && sp->unit % chunk)) {
        snprintf(err, len, "the dedupe unit (%llu bytes) must be a multiple of 8 and, with compression, of the chunk (%llu)",
                 (unsigned long long)sp->unit, (unsigned long long)chunk);
        return -1;
    }
    if (sp->compress && chunk * (uint64_t)(100 - sp->compress) / 100 == 0) {
        snprintf(err, len, "a chunk of %llu bytes at %d%% compressible holds no pattern byte to verify",
                 (unsigned long long)chunk, sp->compress);
        return -1;
    }
    /* Generation 0 is the plain pattern's seed itself. */
    const uint64_t s = generation ? seed ^ pfs_mix64(generation) : seed;
    *ct = (struct pfs_content){
        .seed = s,
        .dkey = pfs_crand_key(s, 0, PFS_CRAND_DEDUPE),
        .unit = sp->unit,
        .chunk = sp->compress ? chunk : sp->unit,
        .dedupe = sp->dedupe,
    };
    /* As fio: the chunk's random head rounded down. */
    ct->head = ct->chunk * (uint64_t)(100 - sp->compress) / 100;
    const int plain = sp->compress == 0 && sp->dedupe == 0;
    ct->fill = plain ? fill_plain : fill_mixed;
    ct->check = plain ? check_plain : check_mixed;
    return 0;
}

int pfs_content_run(struct pfs_content *ct, int compress, int dedupe, uint64_t transfer, uint64_t seed, char *err,
                    size_t len)
{
    const struct pfs_content_spec sp = {
        .compress = compress,
        .dedupe = dedupe,
        .unit = compress || dedupe ? transfer : 8, /* the plain pattern has no unit */
        .chunk = compress && transfer < 512 ? transfer : 512,
    };
    return pfs_content_init(ct, &sp, seed, 0, err, len);
}
