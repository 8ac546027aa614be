/* Private to src/core/phases: every phase's ops (pfs/phases.def), for the
 * registry, and what the families share. */
#ifndef PFS_PHASES_PRIVATE_H
#define PFS_PHASES_PRIVATE_H

#include "pfs/phase.h"

#define PFS_PHASE(ID, ops) extern const struct pfs_phase_ops pfs_ph_##ops;
#include "pfs/phases.def"
#undef PFS_PHASE

/* A hook's failure, through e->fail (detail formatted; fmt NULL: none). */
void pfs_phase_env_fail(struct pfs_phase_env *e, const char *op, const char *path, int err, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* data.c, before a phase that reads data (read, reread, seeks) with
 * --drop-caches: push this rank's files out of the page cache; the lowest
 * rank of each node also drops the whole cache when it may (root), and
 * says so in e->dropped. */
void pfs_phase_drop_caches(struct pfs_phase_env *e);

/* train.c, for train_feed.c (the training reads, pfs/train.h): the data
 * set and training cfg resolves to (0, or -1 with err set); the name of
 * data-set file f beside s's data file (DIR/pfsbench.ID.train.<f>). */
struct pfs_train;
struct pfs_stream;
int pfs_train_of(const struct pfs_config *cfg, struct pfs_train *t, char *err, size_t len);
void pfs_train_name(const struct pfs_stream *s, uint64_t f, char *out, size_t len);
/* Opens data-set file f (its name in path, PFS_PATH_MAX + 160 bytes) with
 * flags, O_DIRECT added by --direct where the backend has it, the open's
 * latency counted and the stream's first open noted: the backend's 0 or
 * -errno. */
struct pfs_fid;
int pfs_train_open(const struct pfs_phase_ctx *p, struct pfs_stream *s, uint64_t f, unsigned flags, char *path,
                   struct pfs_fid *got, void **fh);

/* train_feed.c: the train phase's timed run on one stream, and its work
 * (reads of -t or less over the epochs). */
void pfs_train_feed(const struct pfs_phase_ctx *p, struct pfs_stream *s);
uint64_t pfs_train_feed_work(const struct pfs_phase_ctx *p, int stream);

#endif
