/* A stream's --depth/--branch tree: the names of its directories and
 * files, its directories held open (opened beneath the stream's
 * directory, never through a link, as many as the descriptor limit
 * allows), their check and removal, and the check of a kept run's tree. */
#define _GNU_SOURCE
#include "pfs/stream.h"
#include "pfs/safefile.h"
#include "stream_mark.h"
#include "stream_tree.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

void pfs_md_path(char *out, size_t len, const char *dir, int stream, uint64_t i)
{
    snprintf(out, len, "%s/f.%d.%" PRIu64, dir, stream, i);
}

uint64_t pfs_md_tree_dirs(const struct pfs_config *cfg) { return pfs_config_tree_dirs(cfg); }

/* The leaves: the last branch^depth nodes (node 0 alone with depth 0). */
uint64_t pfs_md_file_node(const struct pfs_config *cfg, uint64_t i)
{
    const uint64_t n = pfs_md_tree_dirs(cfg);
    if (!cfg->md_leaf_only || cfg->md_depth == 0)
        return i % (n + 1);
    uint64_t leaves = 1;
    for (int k = 0; k < cfg->md_depth; k++)
        leaves *= (uint64_t)cfg->md_branch;
    return n - leaves + 1 + i % leaves;
}

int pfs_md_tree_owner(const struct pfs_config *cfg, int stream)
{
    return cfg->md_depth > 0 && cfg->dirs == PFS_DIRS_SHARED ? 0 : stream;
}

int pfs_md_node_path(char *out, size_t len, const struct pfs_config *cfg, const char *dir, int stream, uint64_t node)
{
    stream = pfs_md_tree_owner(cfg, stream);
    uint64_t chain[64];
    int depth = 0;
    const uint64_t b = (uint64_t)(cfg->md_branch > 0 ? cfg->md_branch : 1);
    for (uint64_t j = node; j > 0 && depth < 64; j = (j - 1) / b)
        chain[depth++] = j;
    int n = snprintf(out, len, "%s", dir ? dir : "");
    for (int k = depth - 1; k >= 0 && n >= 0 && (size_t)n < len; k--)
        n += snprintf(out + n, len - (size_t)n, "%sd.%d.%" PRIu64, dir || k < depth - 1 ? "/" : "", stream, chain[k]);
    return n >= 0 && (size_t)n < len ? 0 : -1;
}

int pfs_md_file_path(char *out, size_t len, const struct pfs_config *cfg, const char *dir, int stream, uint64_t i)
{
    if (pfs_md_node_path(out, len, cfg, dir, stream, pfs_md_file_node(cfg, i)) != 0)
        return -1;
    size_t n = strlen(out);
    int m = snprintf(out + n, len - n, "%sf.%d.%" PRIu64, n ? "/" : "", stream, i);
    return m >= 0 && (size_t)m < len - n ? 0 : -1;
}

/* How many of a tree's directories a stream may hold open: within the
 * descriptor limit, leaving 256 to MPI and the run, for two trees per
 * stream (its own, and with -C the one it reads). */
static uint64_t nodes_cap(const struct pfs_config *cfg)
{
    struct rlimit rl;
    const uint64_t n = pfs_md_tree_dirs(cfg), threads = (uint64_t)(cfg->threads > 0 ? cfg->threads : 1);
    if (n == 0 || getrlimit(RLIMIT_NOFILE, &rl) != 0)
        return 0;
    const uint64_t lim = rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > (1u << 20) ? (1u << 20) : (uint64_t)rl.rlim_cur;
    const uint64_t budget = lim > 256 ? (lim - 256) / (2 * threads) : 0;
    return n < budget ? n : budget;
}

static void nodes_ready(const struct pfs_config *cfg, struct pfs_md_nodes *nc)
{
    if (nc->ready)
        return;
    nc->ready = 1;
    nc->cap = nodes_cap(cfg);
    nc->fd = nc->cap ? malloc(nc->cap * sizeof(*nc->fd)) : NULL;
    nc->id = nc->cap ? calloc(nc->cap, sizeof(*nc->id)) : NULL;
    if (!nc->fd || !nc->id) {
        free(nc->fd), free(nc->id);
        nc->fd = NULL, nc->id = NULL, nc->cap = 0;
        return;
    }
    for (uint64_t j = 0; j < nc->cap; j++)
        nc->fd[j] = -1;
}

void pfs_md_nodes_free(struct pfs_md_nodes *nc)
{
    for (uint64_t j = 0; nc->fd && j < nc->cap; j++)
        if (nc->fd[j] >= 0)
            close(nc->fd[j]);
    free(nc->fd), free(nc->id);
    *nc = (struct pfs_md_nodes){0};
}

/* Node j's own name in its parent. */
static void node_leaf(const struct pfs_config *cfg, int stream, uint64_t j, char *leaf, size_t len)
{
    snprintf(leaf, len, "d.%d.%" PRIu64, pfs_md_tree_owner(cfg, stream), j);
}

static uint64_t parent_of(const struct pfs_config *cfg, uint64_t j)
{
    return (j - 1) / (uint64_t)(cfg->md_branch > 0 ? cfg->md_branch : 1);
}

/* The directory an item's name is in, as a descriptor: base itself for the
 * top of the tree (node 0); a node held open in nc (opened beneath its
 * parent on first use, never through a link, its identity kept); else
 * node's directory opened beneath base for this call (the caller closes
 * it: *own). base < 0 (a backend whose small files are not files) is
 * passed on as it is. 0 or a negative errno / PFS_ERR_OUTSIDE. */
int pfs_md_node_at(struct pfs_md_nodes *nc, int base, const struct pfs_config *cfg, int stream, uint64_t node,
                   int *fd, int *own)
{
    *fd = base;
    *own = 0;
    if (node == 0 || base < 0)
        return 0;
    if (nc)
        nodes_ready(cfg, nc);
    if (nc && node <= nc->cap) {
        if (nc->fd[node - 1] < 0) {
            int pfd, pown, rc = pfs_md_node_at(nc, base, cfg, stream, parent_of(cfg, node), &pfd, &pown);
            char leaf[64];
            node_leaf(cfg, stream, node, leaf, sizeof(leaf));
            int f = rc < 0 ? rc : pfs_open_beneath(pfd, leaf, O_PATH | O_DIRECTORY, 0);
            struct stat st;
            if (f >= 0 && fstat(f, &st) != 0) {
                close(f);
                f = -errno;
            }
            if (f < 0)
                return f;
            nc->fd[node - 1] = f;
            nc->id[node - 1] = (struct pfs_fid){(uint64_t)st.st_dev, (uint64_t)st.st_ino};
        }
        *fd = nc->fd[node - 1];
        return 0;
    }
    char rel[MD_PATH_LEN];
    if (pfs_md_node_path(rel, sizeof(rel), cfg, NULL, stream, node) != 0)
        return -ENAMETOOLONG;
    int f = pfs_open_beneath(base, rel, O_PATH | O_DIRECTORY, 0);
    if (f < 0)
        return f;
    *fd = f;
    *own = 1;
    return 0;
}

/* Node j is gone (rmdir): its descriptor goes too. */
void pfs_md_node_gone(struct pfs_md_nodes *nc, uint64_t j)
{
    if (nc && nc->fd && j >= 1 && j <= nc->cap && nc->fd[j - 1] >= 0) {
        close(nc->fd[j - 1]);
        nc->fd[j - 1] = -1;
    }
}

/* Item k of a phase (a file, or with dirs a tree node): the descriptor of
 * its directory (node_fd) and its own name there. */
int pfs_md_item_at(struct pfs_md_nodes *nc, int base, const struct pfs_config *cfg, int dirs, int stream, uint64_t k,
                   int *fd, int *own, char *leaf, size_t len)
{
    if (dirs)
        node_leaf(cfg, stream, k, leaf, len);
    else
        snprintf(leaf, len, "f.%d.%" PRIu64, stream, k);
    return pfs_md_node_at(nc, base, cfg, stream, dirs ? parent_of(cfg, k) : pfs_md_file_node(cfg, k), fd, own);
}

/* The full name of item k under dir, for messages. */
void pfs_md_item_name(char *out, size_t len, const struct pfs_config *cfg, int dirs, const char *dir, int stream,
                      uint64_t k)
{
    int rc = dirs ? pfs_md_node_path(out, len, cfg, dir, stream, k) : pfs_md_file_path(out, len, cfg, dir, stream, k);
    if (rc != 0)
        snprintf(out, len, "%s", dir);
}


int pfs_stream_meta_rmtree_with(const struct pfs_backend *be, void *bectx, const struct pfs_config *cfg,
                                struct pfs_stream *s)
{
    if (!s->md_tree_made)
        return 0;
    const struct pfs_backend *md = pfs_backend_md(be, &bectx);
    struct pfs_md_nodes *nc = &s->md_nodes;
    /* Nodes 1 .. md_tree_made are this run's own (made in that order, removed from the top), deepest first;
     * one held open goes only while its name still names it. */
    mark(s, "remove the tree's directories");
    int rc = 0;
    while (s->md_tree_made && !rc) {
        const uint64_t j = s->md_tree_made;
        char leaf[64];
        int fd, own;
        __atomic_store_n(&s->md_at, j, __ATOMIC_RELAXED);
        if ((rc = pfs_md_item_at(nc, s->md_fd, cfg, 1, s->id, j, &fd, &own, leaf, sizeof(leaf))) == 0) {
            const int held = pfs_stream_meta_node_fd(s, j);
            if (held >= 0)
                rc = pfs_dir_still(fd, leaf, 0, &(struct pfs_dir){held, nc->id[j - 1]});
            if (rc == 0)
                rc = md->md_rmdir(bectx, fd, leaf);
        }
        if (own)
            close(fd);
        if (rc == 0 || rc == -ENOENT) {
            pfs_md_node_gone(nc, j);
            s->md_tree_made--, rc = 0;
        }
        __atomic_store_n(&s->work, s->work + 1, __ATOMIC_RELAXED);
    }
    mark(s, NULL);
    return rc;
}

int pfs_stream_meta_node_fd(const struct pfs_stream *s, uint64_t node)
{
    const struct pfs_md_nodes *nc = &s->md_nodes;
    return nc->fd && node >= 1 && node <= nc->cap ? nc->fd[node - 1] : -1;
}

int pfs_stream_meta_pins(const struct pfs_config *cfg, const struct pfs_stream *s, char *path, size_t len,
                         const char **now)
{
    const struct pfs_md_nodes *nc = &s->md_nodes;
    for (uint64_t j = 1; nc->fd && j <= nc->cap; j++) {
        if (nc->fd[j - 1] < 0)
            continue;
        const uint64_t up = parent_of(cfg, j);
        const int pfd = up ? pfs_stream_meta_node_fd(s, up) : s->md_fd;
        char leaf[64];
        node_leaf(cfg, s->id, j, leaf, sizeof(leaf));
        if (pfd >= 0 && pfs_dir_still(pfd, leaf, 0, &(struct pfs_dir){nc->fd[j - 1], nc->id[j - 1]}) != 0) {
            pfs_md_item_name(path, len, cfg, 1, s->md_dir, s->id, j);
            *now = pfs_dir_now(pfd, leaf, 0);
            return 1;
        }
    }
    return 0;
}

void pfs_stream_meta_unpin(struct pfs_stream *s)
{
    pfs_md_nodes_free(&s->md_nodes);
}

/* One kept item, as lstat saw it: the type it must have; a directory this
 * user's and writable by no one else (pfsbench makes them 0755). */
static int probe_st(const struct stat *st, const char *path, mode_t type, char *why, size_t len)
{
    if ((st->st_mode & S_IFMT) != type) {
        snprintf(why, len, "%s: not a %s", path, type == S_IFDIR ? "directory" : "regular file");
        return -1;
    }
    if (type == S_IFDIR && st->st_uid != geteuid()) {
        snprintf(why, len, "%s: owned by uid %u, not this user's: pfsbench works only on its own kept runs", path,
                 (unsigned)st->st_uid);
        return -1;
    }
    if (type == S_IFDIR && (st->st_mode & 022)) { /* pfsbench makes them 0755: someone opened them since */
        snprintf(why, len, "%s: writable by its group or others (mode %04o), so not only pfsbench's names can be in "
                 "it", path, (unsigned)(st->st_mode & 07777));
        return -1;
    }
    return 0;
}

int pfs_stream_meta_dir_ok(int fd, const char *path, char *why, size_t len)
{
    struct stat st;
    if (fstat(fd, &st) != 0)
        return snprintf(why, len, "%s: %s", path, strerror(errno)), -1;
    return probe_st(&st, path, S_IFDIR, why, len);
}

/* Item k of the kept tree (a node with dirs, else a file), looked at
 * through dirfd, never through a link: 0, 1 (absent: errno ENOENT in why),
 * -1 (why set). */
static int probe_item(const struct pfs_config *cfg, int dirfd, const char *dir, int stream, int dirs, uint64_t k,
                      char *why, size_t len)
{
    char path[MD_PATH_LEN], leaf[64];
    pfs_md_item_name(path, sizeof(path), cfg, dirs, dir, stream, k);
    int fd, own, rc = pfs_md_item_at(NULL, dirfd, cfg, dirs, stream, k, &fd, &own, leaf, sizeof(leaf));
    struct stat st;
    if (rc == 0 && fstatat(fd, leaf, &st, AT_SYMLINK_NOFOLLOW) != 0)
        rc = -errno;
    if (own)
        close(fd);
    if (rc < 0) {
        char w[200];
        snprintf(why, len, "%s: %s", path, pfs_safefile_why(rc, path, w, sizeof(w)) ? w : strerror(-rc));
        return rc == -ENOENT ? 1 : -1;
    }
    return probe_st(&st, path, dirs ? S_IFDIR : S_IFREG, why, len);
}

int pfs_stream_meta_probe(const struct pfs_config *cfg, int dirfd, const char *dir, int stream, unsigned kept,
                          char *why, size_t len)
{
    if (pfs_stream_meta_dir_ok(dirfd, dir, why, len) != 0)
        return -1;
    const uint64_t ndirs = pfs_md_tree_dirs(cfg), nfiles = (uint64_t)cfg->files;
    /* Every directory of the tree, each opened beneath the stream's
     * directory (a planted link is refused on the way anyway): the owner of
     * a shared tree walks it all, the other streams look at its first and
     * last. */
    const int owner = pfs_md_tree_owner(cfg, stream) == stream;
    for (uint64_t j = 1; (kept & PFS_MD_KEPT_TREE) && j <= ndirs; j = owner || j == ndirs ? j + 1 : ndirs)
        if (probe_item(cfg, dirfd, dir, stream, 1, j, why, len) != 0)
            return -1;
    const uint64_t files[3] = {0, nfiles - 1, nfiles}; /* the first, the last, and one past it */
    for (int k = 0; (kept & PFS_MD_KEPT_FILES) && k < 3; k++) {
        int rc = probe_item(cfg, dirfd, dir, stream, 0, files[k], why, len);
        if (k == 2 && rc < 0)
            return -1;
        if (k == 2 && rc == 0) {
            char path[MD_PATH_LEN];
            pfs_md_item_name(path, sizeof(path), cfg, 0, dir, stream, files[k]);
            return snprintf(why, len, "%s is there: the kept run made more than -n %d files per stream", path,
                            cfg->files), -1;
        }
        if (k < 2 && rc != 0)
            return -1;
    }
    return 0;
}
