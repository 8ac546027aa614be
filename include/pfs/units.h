/* Sizes and durations as people type them: the one parser of both, for
 * the option table (--block 64MiB, --runtime 2m), the front-ends' sizes
 * (IOR's -b 1g) and the fio keys of a job file (bs = 4k). Pure, local.
 *
 * A size is a whole number, then an optional unit:
 *   (none), B            bytes (a front-end may say a bare number is KiB)
 *   k m g t              1024-based, any case (4k = 4096; IOR's front-end takes p too)
 *   KiB MiB GiB TiB      1024-based, any case, B optional (4Ki, 4kib)
 *   KB MB GB TB, kB      1000-based (SI: 4KB = 4000)
 * "kb", "Mb", "gb" ... are refused as ambiguous (fio, IOR and elbencho read
 * 4kb as 4096, SI as 4000; Mb is also a megabit): the message says which
 * to write. PFS_SIZE_KB_BINARY reads KB, kb ... as 1024-based instead,
 * as IOR, mdtest, IOzone and fio (its default kb_base=1024) do. */
#ifndef PFS_UNITS_H
#define PFS_UNITS_H

#include <stddef.h>
#include <stdint.h>

/* The largest size: offsets are off_t, keep every size well inside it. */
#define PFS_SIZE_MAX ((uint64_t)INT64_MAX / 2)

enum pfs_size_flags {
    PFS_SIZE_ZERO = 1,       /* 0 is a size (--file-size 0) */
    PFS_SIZE_KB_BINARY = 2,  /* KB, kb, MB ... are 1024-based (IOR's, IOzone's, fio's reading) */
    PFS_SIZE_NO_IEC = 4,     /* refuse KiB, MiB ...: fio (kb_base=1024) reads them 1000-based */
};

/* The syntax one caller takes. */
struct pfs_size_syntax {
    unsigned flags;          /* enum pfs_size_flags */
    uint64_t plain;          /* bytes a bare number counts (1; IOzone's -s, -r: 1024) */
    const char *letters;     /* the unit letters taken, 1024^1 first ("kmg" for IOzone); NULL: "kmgt" */
};

/* Local. Parses s as syntax says into *out: 0, or -1 with why (a phrase
 * such as "unknown unit 'x'", "larger than 4 EiB", without the value)
 * written to why[len] when why is not NULL. */
int pfs_size_parse(const char *s, const struct pfs_size_syntax *syntax, uint64_t *out, char *why, size_t len);

/* Local. pfsbench's own sizes: pfs_size_parse with no flags, plain bytes,
 * every letter. Zero is refused. 0 or -1. */
int pfs_parse_size(const char *s, uint64_t *out);

/* Local. The size word at s (up to a blank or the end), as a file
 * system's tool prints it ("Chunksize: 512K"): 1024-based, k, m, g; 0 when
 * it is none. For parsers of other programs' output. */
uint64_t pfs_size_word(const char *s);

/* The one-line summary of pfsbench's size syntax (--help, messages). */
#define PFS_SIZE_HELP                                                                                                  \
    "a whole number of bytes with an optional unit: k, m, g, t or KiB, MiB, GiB, TiB (1024-based), KB, MB, GB, TB "  \
    "(1000-based), e.g. 4m or 64MiB"

/* Local. A duration: a number (fractions allowed: 0.5, 1.5m), then an
 * optional unit, any case: none or s (seconds), ms, m or min (minutes), h,
 * d. Negative, empty, non-finite and trailing words are refused. 0, or -1
 * with why as pfs_size_parse. */
int pfs_parse_duration(const char *s, double *secs, char *why, size_t len);

#define PFS_DURATION_HELP "seconds, or a number with s, ms, m, h or d (e.g. 90, 1.5m, 2h)"

#endif
