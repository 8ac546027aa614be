/* --api gfapi's private declarations: its options and where the volume is
 * (gfapi_target.c, in the core: the parser, --help and describe need the
 * options in every run), for the module (gfapi.c, libpfs_gfapi.so, which
 * only a run choosing it loads, so that no other run maps libgfapi and the
 * 14 libraries it brings). Private to src/backends. */
#ifndef PFS_BACKEND_GFAPI_H
#define PFS_BACKEND_GFAPI_H

#include <stddef.h>
#include <stdint.h>

#include "pfs/backend.h"

struct pfs_config;

/* What the option table fills (at most PFS_BACKEND_OPTS_MAX bytes). */
struct pfs_gfapi_opts {
    char volume[64];  /* --gfapi-volume: "" = the mount's */
    char server[96];  /* --gfapi-server: "" = the mount's host */
    char log[80];     /* --gfapi-log: libgfapi's log file; "" = /dev/null */
    int port;         /* --gfapi-port: glusterd's, 24007 */
    int log_level;    /* --gfapi-log-level: 0 (none) to 9 (trace) */
};

#define PFS_GFAPI_HELP "GlusterFS through libgfapi (glfs_pwrite/glfs_pread, no FUSE), on the volume -d is a FUSE mount of (a module)"

extern const struct pfs_backend_options pfs_gfapi_options;

/* Where the run's files are: the volume, the server that gives its volfile,
 * and the FUSE mount -d is on, which maps a directory the run holds open
 * (through that mount) to its path inside the volume. */
struct pfs_gfapi_target {
    char volume[64];
    char server[96];
    int port;
    char mount[1024];  /* the mount point, as /proc/self/mountinfo says */
    char subdir[1024]; /* the part of the volume mounted there: "" = its root */
};

/* Local. Finds the fuse.glusterfs mount cfg->dir is on and what the
 * options say of it: 0, or -1 with one sentence in err (not on such a
 * mount, or another volume than --gfapi-volume). */
int pfs_gfapi_target(const struct pfs_config *cfg, struct pfs_gfapi_target *t, char *err, size_t len);

/* Local. The path inside the volume of fuse_path (a name under t->mount,
 * as /proc/self/fd reads a held directory): 0, or -1 when it is not under
 * the mount. */
int pfs_gfapi_vpath(const struct pfs_gfapi_target *t, const char *fuse_path, char *out, size_t len);

#endif
