/* --api rados's private declarations: its options (rados_options.c, in the
 * core: the parser, --help and describe need them in every run) for the
 * module (rados.c, libpfs_rados.so, which only a run choosing it loads, so
 * that no other run maps librados and what it brings). Private to
 * src/backends. */
#ifndef PFS_BACKEND_RADOS_H
#define PFS_BACKEND_RADOS_H

#include "pfs/backend.h"

/* What the option table fills (at most PFS_BACKEND_OPTS_MAX bytes). */
struct pfs_rados_opts {
    char pool[56];  /* --rados-pool: required */
    char conf[168]; /* --rados-conf: "" = librados's search ($CEPH_CONF, /etc/ceph/ceph.conf ...) */
    char id[32];    /* --rados-id: the client's id ("" = admin: client.admin) */
};

#define PFS_RADOS_HELP "Ceph RADOS through librados: one object per stream (or one shared object) in --rados-pool, " \
                       "--iodepth with its aio calls (a module)"

extern const struct pfs_backend_options pfs_rados_options;

#endif
