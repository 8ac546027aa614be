/* --api rados's --clean (pfs/clean.h): the objects a dead run left in the
 * pool, proven by the mark (RUN_XATTR) its objects carry, the token its
 * lock file names. Private to the module (rados.c, rados_clean.c). */
#ifndef PFS_BACKEND_RADOS_CLEAN_H
#define PFS_BACKEND_RADOS_CLEAN_H

#include <rados/librados.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define RUN_XATTR "pfsbench.run" /* the run's token, set by the object's exclusive create */

/* Local. The objects in io's pool named as run_id's data, listed first,
 * then each looked at alone: one marked with token listed (remove: removed
 * by one write op that compares the mark first), any other named and left.
 * Says in out what it did with each, adds the failed removals to *failed;
 * returns how many it found marked, or -1 with err (the listing failed). */
int pfs_rados_clean(rados_ioctx_t io, const char *pool, const char *run_id, uint64_t token, int remove, FILE *out,
                    int *failed, char *err, size_t len);

#endif
