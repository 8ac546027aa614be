/* Skewed random offsets and per-operation mixes.
 *
 * Offsets: a block index in [0, n) per draw, drawn uniform, zipf(theta),
 * pareto(h) or normal(width), with fio's random_distribution names:
 *  - zipf:THETA[:CENTER]: rank r (0 the hottest) by Gray et al.'s generator
 *    ("Quickly generating billion-record synthetic databases", SIGMOD 1994),
 *    the one fio uses, so the hit distribution is fio's: the two hottest
 *    ranks exact, the rest from the generator's closed form (for theta 1.2
 *    over 256 Ki blocks the top tenth of the ranks takes 95.6% of the hits,
 *    the exact law's 95.3%). theta in (0, 10], not 1 (the form divides by
 *    1 - theta; fio refuses 1 too).
 *  - pareto:H[:CENTER]: r = floor(n x u^(ln H / ln(1 - H))), u uniform in
 *    [0, 1): the hottest fraction H of the blocks takes 1 - H of the hits
 *    (pareto:0.2 is the 80/20 rule), as fio's. H in (0, 1).
 *  - normal:W[:CENTER]: a normal of standard deviation W percent of the n
 *    blocks around CENTER (0.5 unless given), wrapped at the ends; W in
 *    (0, 100). This is what fio documents ("a normal deviation ... between
 *    0 and 100"); fio itself averages 12 uniform draws (a spread of n/12
 *    whatever W, widened by a uniform +-W/2) instead.
 *  - uniform (or random): every block alike.
 * CENTER in [0, 1] puts the hottest block at floor(CENTER x n). Scrambled
 * (fio's only behaviour for offsets: it hashes every rank), the other hot
 * blocks are spread over the range by a keyed permutation, so a hot set is
 * not one contiguous region; the hottest block stays at the center, which
 * without one is drawn from the seed (fio: from its random state).
 * Unscrambled, rank r of zipf and pareto is the block (CENTER x n + r) mod n
 * (CENTER 0 unless given) and a normal's hot region is contiguous.
 * Placement (the permutation, the drawn center) is keyed by the seed alone,
 * so every stream of a run has the same hot blocks; the draws are keyed by
 * (seed, stream) and the k-th is a pure function of (seed, stream, k).
 *
 * Mixes: a category per operation (read or write; a transfer size) with
 * integer percentages, drawn so that every 100 consecutive operations of a
 * stream hold each category exactly its percentage of times, in a seeded
 * order (a uniformly random arrangement of the 100). fio draws each
 * operation independently; here a short phase gets the mix it asked for, to
 * the operation.
 *
 * Local and pure; next() is the hot path: one indirect call, no allocation. */
#ifndef PFS_DIST_H
#define PFS_DIST_H

#include <stddef.h>
#include <stdint.h>

enum pfs_dist_kind { PFS_DIST_UNIFORM, PFS_DIST_ZIPF, PFS_DIST_PARETO, PFS_DIST_NORMAL };

struct pfs_dist_spec {
    int kind;          /* enum pfs_dist_kind */
    double param;      /* zipf: theta; pareto: H; normal: W (percent) */
    double center;     /* [0, 1]; negative: the default */
    int scramble;      /* spread the hot blocks over the range (fio's only way) */
};

struct pfs_dist {
    uint64_t (*at)(const struct pfs_dist *d, uint64_t k); /* draw k: its block */
    uint64_t k;                 /* draws handed out by next() */
    uint64_t n;
    uint64_t key;               /* the draws' sequence: (seed, stream) */
    uint64_t pkey;              /* the permutation's key: the seed */
    uint64_t off;               /* scrambled: where the hottest block lands */
    uint64_t p0;                /* scrambled: the permutation's image of the hottest value */
    uint64_t roff;              /* unscrambled: the rotation of the values */
    int scramble;
    unsigned half;              /* scrambled: the permutation's half width, bits */
    uint64_t mask, rk[4];       /* scrambled: its half mask and round keys */
    double zetan, t1, t2, eta, alpha; /* zipf */
    double pow_;                /* pareto */
    double mean, sigma;         /* normal, in blocks */
};

/* Local. Parses "uniform", "random", "zipf:THETA[:CENTER]",
 * "pareto:H[:CENTER]" or "normal:W[:CENTER]" into spec (scramble on). 0,
 * or -1 with one message in err. */
int pfs_dist_parse(const char *s, struct pfs_dist_spec *spec, char *err, size_t len);

/* Local. Sets d up for n blocks (n >= 1). 0, or -1 with err set for a
 * spec out of range. */
int pfs_dist_init(struct pfs_dist *d, const struct pfs_dist_spec *spec, uint64_t n, uint64_t seed, uint64_t stream,
                  char *err, size_t len);

/* Local and pure. Draw k's block, whatever was drawn before. */
static inline uint64_t pfs_dist_at(const struct pfs_dist *d, uint64_t k)
{
    return d->at(d, k);
}

/* Local. The next draw's block; advances. */
static inline uint64_t pfs_dist_next(struct pfs_dist *d)
{
    return d->at(d, d->k++);
}

/* Local and pure. The block where rank v lands (zipf, pareto: rank 0 the
 * hottest; normal: v the block it would be unscrambled): a bijection of
 * [0, n). What a report needs to say where the hot blocks are. */
uint64_t pfs_dist_place(const struct pfs_dist *d, uint64_t v);

/* Local and pure. The standard normal quantile of p in (0, 1) (Acklam's
 * rational approximation, relative error below 1.2e-9). */
double pfs_normal_quantile(double p);

/* ---- mixes ---- */

#define PFS_MIX_MAX 64 /* categories (fio's bssplit allows 64 sizes) */
#define PFS_MIX_READ 1 /* pfs_mix_rw's values */
#define PFS_MIX_WRITE 0

struct pfs_mix {
    uint64_t key;               /* the draws' sequence: (seed, stream) */
    uint64_t k;                 /* operations drawn */
    int n;                      /* categories */
    int left;                   /* operations left in the current 100 */
    unsigned purpose;           /* its sequence's purpose (pfs/crand.h): direction or size */
    uint8_t pct[PFS_MIX_MAX];   /* each category's share, summing to 100 */
    uint8_t rem[PFS_MIX_MAX];   /* left of each in the current 100 */
    uint64_t val[PFS_MIX_MAX];  /* what each stands for: a size, or PFS_MIX_READ/WRITE */
};

/* Local. A read/write mix with read_pct (0..100) percent reads. 0, or -1
 * for a percentage out of range. */
int pfs_mix_rw(struct pfs_mix *m, int read_pct, uint64_t seed, uint64_t stream);

/* Local. Parses fio's bssplit syntax, "SIZE/PCT:SIZE/PCT:...": sizes as
 * pfs_parse_size takes them (4k, 1m), integer percentages that add up to
 * 100; sizes without a percentage ("4k/50:1k/:32k") share what is left
 * evenly, the first of them one point more each where it does not divide.
 * One list for all directions (no comma). Sets m's categories (keyed when
 * pfs_mix_key is called); 0, or -1 with one message in err. */
int pfs_bssplit_parse(const char *s, struct pfs_mix *m, char *err, size_t len);

/* Local. Keys a parsed mix's draws to (seed, stream) and starts it over. */
void pfs_mix_key(struct pfs_mix *m, uint64_t seed, uint64_t stream);

/* Local. The next operation's value; advances. O(categories). */
uint64_t pfs_mix_next(struct pfs_mix *m);

/* Local and pure. Operation k's value, whatever was drawn before (replays
 * k's hundred: O(100 x categories)). */
uint64_t pfs_mix_at(const struct pfs_mix *m, uint64_t k);

/* Local and pure. The mean value: the mean transfer size of a size mix. */
double pfs_mix_mean(const struct pfs_mix *m);

/* Local. 1 when --bssplit sizes phase kind's transfers: the data phases
 * over a block a write laid out (rewrite, read, reread, rwmix, seeks), not
 * the write that lays it out in -t, nor the checkpoint's or training's. */
int pfs_phase_sized(int kind);

/* Local. The mean transfer size of phase kind (-1: any it sizes):
 * --bssplit's mean where it applies, else -t (what a rate in bytes/s is
 * paced by). */
struct pfs_config;
double pfs_config_xfer_mean(const struct pfs_config *cfg, int kind);

/* Local. --bssplit against -t (each size at most -t: a transfer is drawn
 * at the start of its -t slot) and, align above 1 (--direct), the
 * alignment each size needs: 0, or -1 with one message in err. */
int pfs_bssplit_check(const struct pfs_config *cfg, unsigned align, char *err, size_t len);

#endif
