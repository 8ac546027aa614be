/* Leftovers of crashed runs. Local. */
#ifndef PFS_CLEAN_H
#define PFS_CLEAN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* A run's lock file holds "host pid"; a run whose backend's data are
 * objects (rados) adds a line of this key, the backend's name and the
 * run's token (16 hex digits), with which it marks each object it makes:
 * --clean removes only objects so marked, and keeps such a lock unless
 * --api names that backend. */
#define PFS_LOCK_TOKEN_KEY "objects"

/* The objects of a backend whose data are not files in dir (--api rados),
 * which --clean looks at for each run whose lock file it finds and no run
 * holds: run lists (with remove removes) the objects named as run_id's
 * data, those marked with token alone, says in out what it did with each, adds to *failed
 * the removals that failed and returns how many it found marked, or -1
 * with err (then the lock is kept, as it is when a removal failed). */
struct pfs_clean_objects {
    const char *api; /* the backend's name, as the lock's line says it */
    int (*run)(void *arg, const char *run_id, uint64_t token, int remove, FILE *out, int *failed, char *err,
               size_t errlen);
    void *arg;
};

/* Lists in out (and removes when remove is set) the regular files in dir
 * whose names pfsbench makes, except those of a live run (its lock file is
 * held) and, unless any_owner, those of other users; with run_id (not NULL
 * or "") only that run's. Returns the count found, or -1 with err. */
int pfs_clean(const char *dir, const char *run_id, int remove, int any_owner, FILE *out, char *err, size_t errlen);
/* The same, and with objs (NULL: none) each dead run's objects. */
int pfs_clean_with(const char *dir, const char *run_id, int remove, int any_owner,
                   const struct pfs_clean_objects *objs, FILE *out, char *err, size_t errlen);

#endif
