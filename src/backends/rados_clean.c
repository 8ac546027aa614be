/* --api rados's --clean: see rados_clean.h. Listing and removal by one
 * client, with the pool's objects named as the dead run's data collected
 * before any is removed. */
#include "rados_clean.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pfs/names.h"

/* --clean, one object named as a dead run's data: 1 when it carries token
 * (RUN_XATTR), listed or removed by one write op that compares the mark
 * first; 0 when it does not (named, left alone) or is gone. */
static int clean_one(rados_ioctx_t io, const char *pool, const char *oid, uint64_t token, int remove, FILE *out,
                     int *nfailed)
{
    uint64_t size = 0;
    time_t mtime;
    char mark[17] = "", want[17];
    snprintf(want, sizeof(want), "%016" PRIx64, token);
    int rc = rados_stat(io, oid, &size, &mtime);
    int n = rc < 0 ? rc : rados_getxattr(io, oid, RUN_XATTR, mark, 16);
    if (rc == -ENOENT)
        return 0;
    mark[n == 16 ? 16 : 0] = '\0';
    const char *why = n < 0 && n != -ENODATA ? strerror(-n)
                    : n != 16               ? "it has no " RUN_XATTR " mark: not made by a pfsbench run"
                    : strcmp(mark, want)    ? "its " RUN_XATTR " mark is another run's than the lock file names"
                                            : NULL;
    if (why) {
        fprintf(out, "skipped  object %s in pool %s: %s; left alone\n", oid, pool, why);
        return 0;
    }
    if (!remove) {
        fprintf(out, "leftover object %s in pool %s (%" PRIu64 " bytes)\n", oid, pool, size);
        return 1;
    }
    rados_write_op_t op = rados_create_write_op();
    if (!op)
        rc = -ENOMEM;
    else {
        rados_write_op_cmpxattr(op, RUN_XATTR, LIBRADOS_CMPXATTR_OP_EQ, want, 16);
        rados_write_op_remove(op);
        rc = rados_write_op_operate(op, io, oid, NULL, 0);
        rados_release_write_op(op);
    }
    if (rc == 0)
        fprintf(out, "removed  object %s in pool %s (%" PRIu64 " bytes)\n", oid, pool, size);
    else if (rc == -ECANCELED || rc == -ENODATA || rc == -ENOENT)
        fprintf(out, "skipped  object %s in pool %s: %s since it was looked at; left alone\n", oid, pool,
                rc == -ENOENT ? "removed" : "changed");
    else {
        fprintf(out, "FAILED   object %s in pool %s: remove: %s\n", oid, pool, strerror(-rc));
        (*nfailed)++;
    }
    return rc == 0;
}

int pfs_rados_clean(rados_ioctx_t io, const char *pool, const char *run_id, uint64_t token, int remove, FILE *out,
                    int *nfailed, char *err, size_t len)
{
    rados_list_ctx_t lc;
    int rc = rados_nobjects_list_open(io, &lc);
    if (rc < 0) {
        snprintf(err, len, "pool %s: rados_nobjects_list_open: %s", pool, strerror(-rc));
        return -1;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    const char *entry, *key, *nspace;
    while ((rc = rados_nobjects_list_next(lc, &entry, &key, &nspace)) == 0) {
        struct pfs_name nm;
        const enum pfs_name_kind k = pfs_name_parse(entry, &nm);
        if ((k != PFS_NAME_DATA && k != PFS_NAME_SHARED) || strcmp(nm.run_id, run_id) != 0)
            continue;
        if (n == cap) {
            char **more = realloc(names, (cap = cap ? 2 * cap : 16) * sizeof(*names));
            if (!more) {
                rc = -ENOMEM;
                break;
            }
            names = more;
        }
        const size_t len1 = strlen(entry) + 1;
        if (!(names[n] = malloc(len1))) {
            rc = -ENOMEM;
            break;
        }
        memcpy(names[n++], entry, len1);
    }
    rados_nobjects_list_close(lc);
    int found = rc == -ENOENT ? 0 : -1;
    if (found < 0)
        snprintf(err, len, "pool %s: listing its objects: %s", pool, strerror(-rc));
    for (size_t i = 0; i < n; i++) {
        if (found >= 0)
            found += clean_one(io, pool, names[i], token, remove, out, nfailed);
        free(names[i]);
    }
    free(names);
    return found;
}
