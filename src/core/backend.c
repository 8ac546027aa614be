/* What every backend shares: the check that its flags and pointers agree,
 * and the refusals its flags imply. */
#include "pfs/backend.h"
#include "pfs/config.h"

#include <stdio.h>

int pfs_backend_valid(const struct pfs_backend *be, char *err, size_t len)
{
    const char *name = be && be->name ? be->name : "(unnamed)";
    const char *missing = NULL;
    if (!be || !be->name || !be->name[0])
        missing = "name";
    else if (!be->open || !be->pwrite || !be->pread || !be->fsync || !be->close)
        missing = "open, pwrite, pread, fsync and close";
    else if ((be->caps & PFS_CAP_ASYNC) && (!be->submit || !be->reap))
        missing = "submit and reap (PFS_CAP_ASYNC)";
    else if ((be->caps & PFS_CAP_META) && (!be->md_create || !be->md_stat || !be->md_read || !be->md_unlink))
        missing = "md_create, md_stat, md_read and md_unlink (PFS_CAP_META)";
    else if (!be->fini != !be->init)
        missing = "init and fini together";
    if (!missing)
        return 0;
    snprintf(err, len, "backend %s lacks %s", name, missing);
    return -1;
}

int pfs_backend_check(const struct pfs_backend *be, const struct pfs_config *cfg, char *err, size_t len)
{
    /* The backend's own words first: they name its alternatives. */
    if (be->check && be->check(cfg, err, len) != 0)
        return -1;
    if (cfg->direct && !(be->caps & PFS_CAP_DIRECT)) {
        snprintf(err, len, "--direct is not available with --api %s", be->name);
        return -1;
    }
    if (cfg->collective && !(be->caps & PFS_CAP_COLLECTIVE)) {
        snprintf(err, len, "--collective is not available with --api %s", be->name);
        return -1;
    }
    if (cfg->threads > 1 && !(be->caps & PFS_CAP_THREADS)) {
        snprintf(err, len, "--threads is not available with --api %s; use ranks instead", be->name);
        return -1;
    }
    return 0;
}
