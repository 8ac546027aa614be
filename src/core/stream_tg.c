/* A stream's storage targets (pfs/stream_tg.h): each data file's layout,
 * found once through its own read-only descriptor, and the attribution
 * table its transfers feed. */
#define _GNU_SOURCE
#include "pfs/stream_tg.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

void pfs_stream_tg_init(struct pfs_stream_tg *g, const struct pfs_fsinfo *fs, const char *host, int nofiles)
{
    memset(g, 0, sizeof(*g));
    pfs_targets_init(&g->ctx, fs, host);
    pfs_layout_init(&g->lay[0], "");
    pfs_layout_init(&g->lay[1], "");
    pfs_tg_init(&g->acc);
    g->cur = -1;
    g->nofiles = nofiles;
}

void pfs_stream_tg_free(struct pfs_stream_tg *g)
{
    pfs_layout_free(&g->lay[0]);
    pfs_layout_free(&g->lay[1]);
    pfs_tg_free(&g->acc);
}

/* The first reason targets were unknown, kept for pfs_targets_note. */
static void note(struct pfs_stream_tg *g, const char *why)
{
    if (g->ctx.noted)
        return;
    snprintf(g->ctx.note, sizeof(g->ctx.note), "%s", why);
    g->ctx.noted = 1;
}

/* The layout of path into l: through a descriptor of its own (the
 * backend's handle is opaque), read-only, no link followed. */
static int find(struct pfs_stream_tg *g, int dir_fd, const char *path, struct pfs_layout *l)
{
    if (g->nofiles) {
        pfs_layout_free(l);
        snprintf(l->provider, sizeof(l->provider), "unknown");
        /* Not a provider's failure: nothing to say (the null backend's
         * every run would warn). */
        pfs_layout_unknown(l, "the backend keeps no files");
        return 0;
    }
    int fd = openat(dir_fd >= 0 ? dir_fd : AT_FDCWD, path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0) {
        pfs_layout_free(l);
        pfs_layout_unknown(l, "the data file could not be opened to read its layout");
        note(g, "storage targets unknown: a data file could not be opened to read its layout");
        return 0;
    }
    int rc = pfs_targets_layout(&g->ctx, fd, path, l);
    close(fd);
    return rc < 0 ? -1 : 0;
}

int pfs_stream_tg_open(struct pfs_stream_tg *g, int dir_fd, const char *path, int wr)
{
    const int i = wr ? 0 : 1;
    struct pfs_layout *l = &g->lay[i];
    g->cur = -1;
    g->acc.l = NULL;
    g->acc.single = -1;
    if (strcmp(g->key[i], path) != 0 || l->pending) {
        if (find(g, dir_fd, path, l) != 0) {
            g->key[i][0] = '\0';
            return -1;
        }
        snprintf(g->key[i], sizeof(g->key[i]), "%s", path);
    }
    if (pfs_tg_use(&g->acc, l) != 0 && g->acc.single < 0 && !g->acc.l)
        return -1;
    g->cur = i;
    return 0;
}

int pfs_stream_tg_target_of(void *arg, uint64_t off)
{
    const struct pfs_stream_tg *g = arg;
    if (g->cur < 0)
        return -1;
    const struct pfs_layout *l = &g->lay[g->cur];
    if (l->ntargets == 0)
        return pfs_tg_hash("unknown");
    int t = pfs_layout_target_at(l, off);
    return t < 0 ? -1 : pfs_tg_hash(l->targets[t].name);
}
