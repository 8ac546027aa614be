/* Private to the metadata loop (stream_meta.c) and the metadata phases
 * (src/core/phases/files.c, tree.c): the loop visits a phase's items
 * (files, or the --depth tree's directories), each resolved beneath a
 * directory held open, and the phase says what it does with each. */
#ifndef PFS_STREAM_MD_H
#define PFS_STREAM_MD_H

#include "pfs/stream.h"

struct pfs_md_step;

/* What one metadata phase of a stream works with, set once. */
struct pfs_md_walk {
    const struct pfs_phase_ctx *p;
    struct pfs_stream *s;
    const struct pfs_md_step *step;
    const struct pfs_backend *md; /* the backend's small-file calls, or the POSIX ones */
    void *mdctx;
    const char *dir;  /* its name, for messages */
    int base;         /* its descriptor: every name is resolved from it */
    struct pfs_md_nodes *nodes; /* its tree's directories held open */
    int owner;        /* whose files or tree (another stream's with -C) */
    int dirs;         /* the items are tree nodes (PFS_PHF_DIRS) */
    uint64_t seed;
    uint64_t last;    /* the clock at the end of the last item (pfs_now_ns) */
};

/* What a metadata phase does (the i-th item visited is file or node k). */
struct pfs_md_step {
    /* Its call on the item, name leaf in directory fd: 0 or a negative
     * errno (PFS_ERR_*); r->step names the call that failed. */
    int (*call)(const struct pfs_md_walk *w, uint64_t i, int fd, const char *leaf, struct pfs_md_res *r);
    /* Optional: after a call that worked, its checks and counts. */
    void (*done)(const struct pfs_md_walk *w, uint64_t k, const struct pfs_md_res *r);
    /* Optional: the item of step i (NULL: file i, or its place in --order random's permutation). */
    uint64_t (*item)(const struct pfs_md_walk *w, uint64_t i);
    /* Optional: the phase walks on its own instead (find), inside the same timing. */
    void (*walk)(struct pfs_md_walk *w);
};

/* Runs one timed metadata phase on stream s: its work's items in turn (or
 * st->walk), stopped at the stonewall and worn out under -D where the
 * phase's flags say so; fills s->t and, on failure, s->fail. */
void pfs_md_run(const struct pfs_phase_ctx *p, struct pfs_stream *s, const struct pfs_md_step *st);

/* A metadata call's failure on s (rc a negative errno or PFS_ERR_*), in
 * the backend's words when it has them. */
void pfs_md_fail(struct pfs_stream *s, const char *step, uint64_t off, const char *path, int rc);

/* Item k of w's phase is wrong (no errno): named by its path. */
void pfs_md_item_fail(const struct pfs_md_walk *w, uint64_t k, const char *op, uint64_t off, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

#endif
