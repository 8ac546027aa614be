/* NFS: the server of the mount ("server:/export", "[fe80::1]:/export"),
 * from the mount table. pNFS layouts are not asked for: the server the
 * client mounted is the one target. */
#include "pfs/targets.h"

#include <stdio.h>
#include <string.h>

int pfs_nfs_parse_source(const char *source, struct pfs_layout *out, char *err, size_t errlen)
{
    const char *host = source, *end;
    size_t n;
    if (source[0] == '[') { /* an IPv6 address in brackets */
        end = strchr(source, ']');
        if (!end || end[1] != ':') {
            snprintf(err, errlen, "NFS mount source '%.80s' is not [ADDRESS]:/EXPORT", source);
            return -1;
        }
        host = source + 1;
        n = (size_t)(end - host);
    } else {
        end = strchr(source, ':');
        if (!end) {
            snprintf(err, errlen, "NFS mount source '%.80s' is not SERVER:/EXPORT", source);
            return -1;
        }
        n = (size_t)(end - source);
    }
    if (n == 0 || n >= PFS_TARGET_NAME) {
        snprintf(err, errlen, "NFS mount source '%.80s' names no server", source);
        return -1;
    }
    char name[PFS_TARGET_NAME];
    snprintf(name, sizeof(name), "%.*s", (int)n, host);
    if (pfs_layout_whole(out, name) != 0)
        return -2;
    snprintf(out->detail, sizeof(out->detail), "server %s", source);
    return 0;
}

static int nfs_layout(struct pfs_targets *t, int fd, const char *path, struct pfs_layout *out, char *why,
                      size_t len)
{
    (void)fd;
    char err[256];
    int rc = pfs_nfs_parse_source(t->fs.source, out, err, sizeof(err));
    if (rc == -1)
        snprintf(why, len, "%s: %s", path, err);
    return rc;
}

const struct pfs_target_provider pfs_target_nfs = {
    .name = "nfs",
    .types = "nfs nfs4",
    .command = NULL,
    .layout = nfs_layout,
};
