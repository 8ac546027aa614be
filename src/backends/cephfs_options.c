/* --api cephfs: its options, in the core (the backend itself is a module,
 * libpfs_cephfs.so: cephfs.c). */
#include "cephfs.h"

#include <stddef.h>

#define OFF(f) offsetof(struct pfs_cephfs_opts, f)
#define CAP(f) sizeof(((struct pfs_cephfs_opts *)0)->f)

static const struct pfs_opt rows[] = {
    {"cephfs-conf", 0, PFS_OPT_STRING, OFF(conf), 0, 0, NULL, "FILE",
     "the cluster's ceph.conf (default: libcephfs's search: $CEPH_CONF, then /etc/ceph/ceph.conf ...)",
     .cap = CAP(conf)},
    {"cephfs-id", 0, PFS_OPT_STRING, OFF(id), 0, 0, NULL, "ID",
     "the client's id, as client.ID in the cluster's keyring (default: admin)", .cap = CAP(id)},
    {"cephfs-root", 0, PFS_OPT_STRING, OFF(root), 0, 0, NULL, "PATH",
     "the directory of the file system the client mounts, one its caps allow (default: /)", .def = "/",
     .cap = CAP(root)},
};

const struct pfs_backend_options pfs_cephfs_options = {rows, sizeof(rows) / sizeof(rows[0]),
                                                       sizeof(struct pfs_cephfs_opts)};
_Static_assert(sizeof(struct pfs_cephfs_opts) <= PFS_BACKEND_OPTS_MAX, "raise PFS_BACKEND_OPTS_MAX");

const struct pfs_backend_about pfs_about_cephfs = {PFS_CEPHFS_HELP, &pfs_cephfs_options};
