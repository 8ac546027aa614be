/* A stream's storage targets in its data phases: the layout of each data
 * file it opens, found once (pfs/targets.h) right after the open, and
 * the per-target figures its transfers are attributed to (pfs/tgstats.h).
 * Local, MPI-free; one per stream, used by its own thread alone. */
#ifndef PFS_STREAM_TG_H
#define PFS_STREAM_TG_H

#include <stdint.h>

#include "pfs/config.h"
#include "pfs/targets.h"
#include "pfs/tgstats.h"

struct pfs_stream_tg {
    struct pfs_targets ctx;
    /* The layouts of the file it writes (0) and the one it reads (1), and
     * the path each was found for ("": none yet). A layout with pending
     * components is found again at the next open. */
    struct pfs_layout lay[2];
    char key[2][PFS_PATH_MAX + 128];
    int cur;     /* the layout of the phase under way: 0, 1; -1 none */
    int nofiles; /* the backend makes no files: every target "unknown" */
    struct pfs_tg_acc acc;
};

/* Local. fs: the data directory's mount (pfs_fs_mountinfo); host: this
 * node's name; nofiles: the backend keeps no files (PFS_CAP_NOFILES). */
void pfs_stream_tg_init(struct pfs_stream_tg *g, const struct pfs_fsinfo *fs, const char *host, int nofiles);
void pfs_stream_tg_free(struct pfs_stream_tg *g);

/* Local, outside the timed region (the caller takes its time out of the
 * stream's span): the layout of the data file at path (dir_fd: the
 * directory it is named in, or -1), found the first time this path is
 * opened, and the attribution of what follows through it. wr: the file
 * the stream writes (else the one it reads). Returns -1 when memory ran
 * out (then nothing is attributed), else 0. */
int pfs_stream_tg_open(struct pfs_stream_tg *g, int dir_fd, const char *path, int wr);

/* Local. For pfs_exemplar_tag: the number (pfs_tg_hash) of the target
 * holding byte off of the phase's file; -1 when none is known. arg: the
 * struct pfs_stream_tg. */
int pfs_stream_tg_target_of(void *arg, uint64_t off);

#endif
