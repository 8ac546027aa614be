/* --api rados: its options, in the core (the backend itself is a module,
 * libpfs_rados.so: rados.c). */
#include "rados.h"

#include <stddef.h>

#define OFF(f) offsetof(struct pfs_rados_opts, f)
#define CAP(f) sizeof(((struct pfs_rados_opts *)0)->f)

static const struct pfs_opt rows[] = {
    {"rados-pool", 0, PFS_OPT_STRING, OFF(pool), 0, 0, NULL, "POOL",
     "the pool the run's objects go in (required; it must exist)", .cap = CAP(pool)},
    {"rados-conf", 0, PFS_OPT_STRING, OFF(conf), 0, 0, NULL, "FILE",
     "the cluster's ceph.conf (default: librados's search: $CEPH_CONF, then /etc/ceph/ceph.conf ...)",
     .cap = CAP(conf)},
    {"rados-id", 0, PFS_OPT_STRING, OFF(id), 0, 0, NULL, "ID",
     "the client's id, as client.ID in the cluster's keyring (default: admin)", .cap = CAP(id)},
};

const struct pfs_backend_options pfs_rados_options = {rows, sizeof(rows) / sizeof(rows[0]),
                                                      sizeof(struct pfs_rados_opts)};
_Static_assert(sizeof(struct pfs_rados_opts) <= PFS_BACKEND_OPTS_MAX, "raise PFS_BACKEND_OPTS_MAX");

const struct pfs_backend_about pfs_about_rados = {PFS_RADOS_HELP, &pfs_rados_options};
