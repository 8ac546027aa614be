/* A kept run's status: DIR/pfsbench.ID.kept, beside the data files of a
 * run that wrote them and kept them (-k), as IOR's stonewall status file.
 * Rank 0 makes it with O_EXCL once the run's phases are done. It says what
 * every stream's file (or segment of the shared file) holds, so that a later
 * run over them (--run-id ID) reads exactly that: after a stonewall (-D) the
 * wear-out leaves every stream the same count of transfers, fewer than -b
 * holds. The text, one "key value" a line after the first:
 *
 *     pfsbench kept run, format 1
 *     run_id ID
 *     streams 4
 *     ranks 2
 *     threads 2
 *     shared 0
 *     layout segmented
 *     transfer 65536
 *     block 1048576
 *     transfers 12
 *
 * Data files written with --buffer-compress or --dedupe say so in two more
 * lines (a status without them: 0 and 0, the plain pattern):
 *
 *     buffer_compress 50
 *     dedupe 25
 *
 * A run that creates small files (-p create) and keeps them says how many
 * every stream made in two more lines: after a stonewall (-D) the wear-out
 * leaves every stream the same count, fewer than -n asked:
 *
 *     files_asked 100000
 *     files 189
 *
 * Either part may be missing, never both: a run with metadata phases only
 * has no shared ... transfers lines (streams, ranks and threads it has),
 * one without a create no files lines. Format 1 readers skip the files
 * lines. Pure parts (format, parse, check) and the two file operations;
 * MPI-free. */
#ifndef PFS_KEPT_H
#define PFS_KEPT_H

#include <stddef.h>
#include <stdint.h>

#include "pfs/config.h"
#include "pfs/safefile.h"

struct pfs_kept {
    int streams, ranks, threads;
    int shared, layout;         /* --shared; PFS_LAYOUT_* */
    uint64_t transfer, block;   /* -t, -b of the run that kept them */
    uint64_t xfers;             /* transfers every stream's file (or segment) holds */
    int segments;               /* --segments (a status without the line: 1) */
    /* The small files (0, 0: no files lines; then transfer is not 0). */
    uint64_t files_asked;       /* -n of the run that created them */
    uint64_t files;             /* small files every stream created: -n, or the wear-out's count */
    /* The data files' content (lines only when either is not 0). */
    int compress, dedupe;       /* --buffer-compress, --dedupe of the run that wrote them */
};

/* Local. The status as text (the format above) into buf, like snprintf. */
int pfs_kept_format(const struct pfs_kept *k, const char *run_id, char *buf, size_t len);

/* Local. Parses a status text; 0, or -1 with what is wrong in err. */
int pfs_kept_parse(const char *text, struct pfs_kept *k, char *err, size_t len);

/* Local. 1 when the run's data phases start from files an earlier run
 * kept: --run-id is given and the first data phase is not a write. */
int pfs_kept_reads(const struct pfs_config *cfg);

/* Local. Whether a run of nranks ranks with cfg reads exactly what k says
 * the kept files hold: the same streams (ranks x threads), --shared, -t (or,
 * a file per stream, a -t that divides it: the same bytes in smaller pieces),
 * and -b (or, where -b moves no offset: a file per stream or the strided
 * layout, -b equal to what each stream holds); with --verify, the content
 * they were written with (and its -t, with --dedupe: the unit). 0 with the transfers each
 * stream reads in *xfers, or -1 with the refusal, naming the kept run's
 * shape and what to give, in err. */
int pfs_kept_check(const struct pfs_config *cfg, int nranks, const struct pfs_kept *k, const char *run_id,
                   uint64_t *xfers, char *err, size_t len);

/* Local. Whether a run of nranks ranks with cfg works on the small files k
 * says every stream created: the same streams, and -n either the kept
 * run's -n or what every stream holds. 0 with the files each stream works
 * on in *files (k's count; cfg's -n when k has no files lines: a status
 * of data files only), or -1 with the refusal, naming what to give. */
int pfs_kept_md_check(const struct pfs_config *cfg, int nranks, const struct pfs_kept *k, const char *run_id,
                      uint64_t *files, char *err, size_t len);

/* Local. Makes DIR/pfsbench.ID.kept (O_EXCL: one already there is not
 * touched, made relative to at, the descriptor of DIR) holding k, and syncs it. 0 with its identity in *fid, or -1 with
 * err; a file it made and could not fill is removed. */
int pfs_kept_write(int at, const char *dir, const char *run_id, const struct pfs_kept *k, struct pfs_fid *fid,
                   char *err, size_t len);

/* Local. Reads DIR/pfsbench.ID.kept (a regular file, never through a link)
 * into k, and its identity into *fid when fid is not NULL. 0, or -1 with err: when it is not there, err says whether the run
 * id left anything else in DIR (data files of a run that failed or did not
 * keep them, or nothing: an unknown run id). */
int pfs_kept_read(const char *dir, const char *run_id, struct pfs_kept *k, struct pfs_fid *fid, char *err,
                  size_t len);

#endif
