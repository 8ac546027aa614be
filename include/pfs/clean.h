/* Leftovers of crashed runs. Local. */
#ifndef PFS_CLEAN_H
#define PFS_CLEAN_H

#include <stddef.h>
#include <stdio.h>

/* Lists in out (and removes when remove is set) the regular files in dir
 * whose names pfsbench makes, except those of a live run (its lock file is
 * held) and, unless any_owner, those of other users; with run_id (not NULL
 * or "") only that run's. Returns the count found, or -1 with err. */
int pfs_clean(const char *dir, const char *run_id, int remove, int any_owner, FILE *out, char *err, size_t errlen);

#endif
