/* --api gfapi: its options, and where its volume is, in the core (the
 * backend itself is a module, libpfs_gfapi.so: gfapi.c). pfsbench makes the
 * run's directories (and removes its files) through the FUSE mount -d is
 * on, as for every backend, and moves the data through libgfapi in the
 * same places: so -d must be on a fuse.glusterfs mount, whose source in
 * /proc/self/mountinfo ("host:/volume[/subdir]") names the volume and the
 * server, unless --gfapi-volume and --gfapi-server say so (a volume other
 * than the mount's is refused: the files would not be where the run's
 * directories are). */
#define _GNU_SOURCE
#include "pfs/config.h"

#include "gfapi.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OFF(f) offsetof(struct pfs_gfapi_opts, f)
#define CAP(f) sizeof(((struct pfs_gfapi_opts *)0)->f)

static const struct pfs_opt rows[] = {
    {"gfapi-volume", 0, PFS_OPT_STRING, OFF(volume), 0, 0, NULL, "NAME",
     "the GlusterFS volume (default: the one mounted where -d is; another one is refused)", .cap = CAP(volume)},
    {"gfapi-server", 0, PFS_OPT_STRING, OFF(server), 0, 0, NULL, "HOST",
     "the server libgfapi asks for the volume's layout (default: the host of -d's mount)", .cap = CAP(server)},
    {"gfapi-port", 0, PFS_OPT_INT, OFF(port), 1, 65535, NULL, "PORT", "glusterd's port on the server (default 24007)",
     .def = "24007"},
    {"gfapi-log", 0, PFS_OPT_STRING, OFF(log), 0, 0, NULL, "FILE",
     "libgfapi's log file, made if absent (default: none, /dev/null)", .cap = CAP(log)},
    {"gfapi-log-level", 0, PFS_OPT_INT, OFF(log_level), 0, 9, NULL, "N",
     "libgfapi's log level, 0 (none) to 9 (trace) (default 4: errors)", .def = "4"},
};

const struct pfs_backend_options pfs_gfapi_options = {rows, sizeof(rows) / sizeof(rows[0]),
                                                      sizeof(struct pfs_gfapi_opts)};
_Static_assert(sizeof(struct pfs_gfapi_opts) <= PFS_BACKEND_OPTS_MAX, "raise PFS_BACKEND_OPTS_MAX");

const struct pfs_backend_about pfs_about_gfapi = {PFS_GFAPI_HELP, &pfs_gfapi_options};

/* mountinfo escapes space, tab, newline and backslash as \ooo. */
static void unescape(char *s)
{
    char *w = s;
    for (const char *r = s; *r; r++) {
        if (r[0] == '\\' && r[1] >= '0' && r[1] <= '7' && r[2] >= '0' && r[2] <= '7' && r[3] >= '0' && r[3] <= '7') {
            *w++ = (char)((r[1] - '0') * 64 + (r[2] - '0') * 8 + (r[3] - '0'));
            r += 3;
        } else {
            *w++ = *r;
        }
    }
    *w = '\0';
}

/* The length of mp when it is path or a directory above it, else 0. */
static size_t under(const char *path, const char *mp)
{
    size_t n = strlen(mp);
    if (strcmp(mp, "/") == 0)
        return 1;
    return strncmp(path, mp, n) == 0 && (path[n] == '/' || path[n] == '\0') ? n : 0;
}

struct mnt {
    char point[1024], type[64], source[256];
};

/* The mount path is on: the last (topmost) of the longest mount points above it. */
static int find_mount(const char *path, struct mnt *m)
{
    FILE *f = fopen("/proc/self/mountinfo", "re");
    if (!f)
        return -errno;
    char line[4096];
    size_t best = 0;
    while (fgets(line, sizeof(line), f)) {
        char point[1024], type[64], source[256];
        const char *dash = strstr(line, " - ");
        if (!dash || sscanf(line, "%*s %*s %*s %*s %1023s", point) != 1 ||
            sscanf(dash + 3, "%63s %255s", type, source) != 2)
            continue;
        unescape(point);
        unescape(source);
        size_t n = under(path, point);
        if (n && n >= best) {
            best = n;
            snprintf(m->point, sizeof(m->point), "%s", point);
            snprintf(m->type, sizeof(m->type), "%s", type);
            snprintf(m->source, sizeof(m->source), "%s", source);
        }
    }
    fclose(f);
    return best ? 0 : -ENOENT;
}

/* "host:/volume/sub" or "host:volume": host, volume and the subdirectory. */
static int split_source(const char *src, struct pfs_gfapi_target *t)
{
    const char *colon = strchr(src, ':');
    if (!colon || colon == src || (size_t)(colon - src) >= sizeof(t->server))
        return -1;
    snprintf(t->server, sizeof(t->server), "%.*s", (int)(colon - src), src);
    const char *v = colon + 1;
    while (*v == '/')
        v++;
    size_t n = strcspn(v, "/");
    if (!n || n >= sizeof(t->volume))
        return -1;
    snprintf(t->volume, sizeof(t->volume), "%.*s", (int)n, v);
    snprintf(t->subdir, sizeof(t->subdir), "%s", v + n);
    return 0;
}

int pfs_gfapi_target(const struct pfs_config *cfg, struct pfs_gfapi_target *t, char *err, size_t len)
{
    const struct pfs_gfapi_opts *o = pfs_config_backend_opts(cfg);
    char real[PATH_MAX];
    struct mnt m;
    memset(t, 0, sizeof(*t));
    if (!realpath(cfg->dir, real)) {
        snprintf(err, len, "--api gfapi: -d %.300s: %s", cfg->dir, strerror(errno));
        return -1;
    }
    int found = find_mount(real, &m) == 0;
    if (!found || strcmp(m.type, "fuse.glusterfs") != 0) {
        snprintf(err, len, "--api gfapi: -d %.300s is not on a GlusterFS FUSE mount (it is on %.60s at %.300s); "
                 "pfsbench makes the run's directories through the mount and moves the data through libgfapi "
                 "in the same place: mount the volume (mount -t glusterfs HOST:/VOLUME DIR) and give -d a "
                 "directory in it", cfg->dir, found ? m.type : "no mount known", found ? m.point : "?");
        return -1;
    }
    if (split_source(m.source, t) != 0) {
        snprintf(err, len, "--api gfapi: the mount at %.300s has source '%.200s', not HOST:/VOLUME", m.point, m.source);
        return -1;
    }
    if (o->volume[0] && strcmp(o->volume, t->volume) != 0) {
        snprintf(err, len, "--api gfapi: --gfapi-volume %s, but -d %.300s is on a mount of volume %s (%s): the "
                 "run's files must be where its directories are; give -d a directory on a mount of %s, or leave "
                 "--gfapi-volume out", o->volume, cfg->dir, t->volume, m.source, o->volume);
        return -1;
    }
    if (o->server[0])
        snprintf(t->server, sizeof(t->server), "%s", o->server);
    t->port = o->port ? o->port : 24007;
    snprintf(t->mount, sizeof(t->mount), "%s", m.point);
    return 0;
}

int pfs_gfapi_vpath(const struct pfs_gfapi_target *t, const char *fuse_path, char *out, size_t len)
{
    size_t n = under(fuse_path, t->mount);
    if (!n)
        return -1;
    const char *rest = strcmp(t->mount, "/") == 0 ? fuse_path : fuse_path + n;
    int w = snprintf(out, len, "%s%s", t->subdir, rest);
    if (w < 0 || (size_t)w >= len)
        return -1;
    if (!out[0])
        snprintf(out, len, "/");
    return 0;
}
