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

#endif
