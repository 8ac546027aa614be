/* --api cephfs's private declarations: its options (cephfs_options.c, in
 * the core: the parser, --help and describe need them in every run) for the
 * module (cephfs.c, libpfs_cephfs.so, which only a run choosing it loads,
 * so that no other run maps libcephfs and what it brings). Private to
 * src/backends. */
#ifndef PFS_BACKEND_CEPHFS_H
#define PFS_BACKEND_CEPHFS_H

#include "pfs/backend.h"

/* What the option table fills (at most PFS_BACKEND_OPTS_MAX bytes). */
struct pfs_cephfs_opts {
    char conf[168]; /* --cephfs-conf: "" = libcephfs's search ($CEPH_CONF, /etc/ceph/ceph.conf ...) */
    char id[32];    /* --cephfs-id: the client's id ("" = admin: client.admin) */
    char root[56];  /* --cephfs-root: the directory of the file system the client mounts ("/") */
};

#define PFS_CEPHFS_HELP "CephFS through libcephfs (ceph_ll_write/ceph_ll_read, no FUSE or kernel client), " \
                        "in the directories -d names on a CephFS mount (a module)"

extern const struct pfs_backend_options pfs_cephfs_options;

#endif
