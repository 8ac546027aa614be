/* GlusterFS: the bricks that hold a file, from the glusterfs.pathinfo
 * virtual attribute the FUSE client answers (readable without root; the
 * trusted. one is the same text for root). Each brick appears as
 * <POSIX(BRICK):HOST:PATH-ON-BRICK>, nested in the translators above it:
 *
 *   (<DISTRIBUTE:v-dht> <POSIX(/b3):vm:/b3/f01>)
 *   (<DISTRIBUTE:v-dht> (<REPLICATE:v-replicate-1> <POSIX(/r3):vm:/r3/g> <POSIX(/r4):vm:/r4/g>))
 *
 * A file is whole on its one brick, or on every brick of its replica or
 * disperse set: one component, every brick holding every byte (a disperse
 * set's bricks each hold a fragment of every stripe). GlusterFS numbers
 * no brick a client can read: a brick's index is -1, its name the key. */
#include "pfs/targets.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The set's kind, from the innermost translator label naming one. */
static const char *set_kind(const char *text)
{
    if (strstr(text, "<EC:") || strstr(text, "<DISPERSE:"))
        return "disperse";
    if (strstr(text, "<REPLICATE:") || strstr(text, "<AFR:"))
        return "replicate";
    return "distribute";
}

int pfs_gluster_parse_pathinfo(const char *text, struct pfs_layout *out, char *err, size_t errlen)
{
    uint32_t slots[256];
    uint32_t n = 0;
    static const char tag[] = "<POSIX(";
    for (const char *p = strstr(text, tag); p; p = strstr(p, tag)) {
        const char *brick = p + strlen(tag);
        const char *close = strstr(brick, "):");
        const char *end = close ? strchr(close, '>') : NULL;
        if (!close || !end || close == brick || brick[0] != '/') {
            snprintf(err, errlen, "a brick entry of '%.120s' is not <POSIX(BRICK):HOST:PATH>", text);
            return -1;
        }
        size_t blen = (size_t)(close - brick);
        /* HOST:PATH, where PATH begins with the brick: the host is what
         * precedes ":BRICK" (a host may be an IPv6 address, with colons). */
        const char *host = close + 2, *at = NULL;
        for (const char *q = host; q + 1 + blen <= end; q++)
            if (q[0] == ':' && strncmp(q + 1, brick, blen) == 0) {
                at = q;
                break;
            }
        if (!at || at == host) {
            snprintf(err, errlen, "a brick entry of '%.120s' has no HOST:BRICK", text);
            return -1;
        }
        char name[PFS_TARGET_NAME];
        if (snprintf(name, sizeof(name), "%.*s:%.*s", (int)(at - host), host, (int)blen, brick) >=
            (int)sizeof(name)) {
            snprintf(err, errlen, "brick name %.*s... longer than %d bytes", 40, host, PFS_TARGET_NAME - 1);
            return -1;
        }
        int t = pfs_layout_target(out, name, -1);
        if (t < 0)
            return -2;
        if (n == sizeof(slots) / sizeof(slots[0])) {
            snprintf(err, errlen, "more than %u bricks in one pathinfo", n);
            return -1;
        }
        slots[n++] = (uint32_t)t;
        p = end;
    }
    if (n == 0) {
        snprintf(err, errlen, "no brick in '%.120s'", text);
        return -1;
    }
    const struct pfs_layout_comp c = {.start = 0, .end = PFS_LAYOUT_EOF, .kind = PFS_COMP_WHOLE, .count = 1,
                                      .width = n};
    if (pfs_layout_add_comp(out, &c, slots, n) != 0)
        return -2;
    snprintf(out->detail, sizeof(out->detail), "%s, %u brick%s", set_kind(text), n, n == 1 ? "" : "s");
    return 0;
}

static int gluster_layout(struct pfs_targets *t, int fd, const char *path, struct pfs_layout *out, char *why,
                          size_t len)
{
    (void)t;
    size_t n = 0;
    char *text = pfs_targets_xattr(fd, "glusterfs.pathinfo", &n);
    int e = errno;
    if (!text && geteuid() == 0)
        text = pfs_targets_xattr(fd, "trusted.glusterfs.pathinfo", &n);
    if (!text) {
        /* GlusterFS 10.3 answers ENOMEM for a file of a disperse volume. */
        snprintf(why, len, "reading glusterfs.pathinfo of %s: %s", path, strerror(e));
        return -1;
    }
    char err[256];
    int rc = pfs_gluster_parse_pathinfo(text, out, err, sizeof(err));
    free(text);
    if (rc == -1)
        snprintf(why, len, "glusterfs.pathinfo of %s: %s", path, err);
    return rc;
}

const struct pfs_target_provider pfs_target_gluster = {
    .name = "glusterfs",
    .types = "fuse.glusterfs glusterfs",
    .command = NULL,
    .layout = gluster_layout,
};
