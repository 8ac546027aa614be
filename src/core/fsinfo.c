/* What file system a directory is on: statfs's magic, the mount table's
 * type, source and options, and the layout facts a file system's own tool
 * gives cheaply. Nothing here is guessed: what is not known stays empty. */
#define _GNU_SOURCE
#include "pfs/fsinfo.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/vfs.h>
#include <sys/xattr.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pfs/config.h"
#include "pfs/units.h"

static const struct {
    unsigned long magic;
    const char *name;
} fs_names[] = {
    {0xEF53, "ext4"},          {0x01021994, "tmpfs"},      {0x58465342, "xfs"},
    {0x9123683E, "btrfs"},     {0x6969, "nfs"},            {0x0BD00BD0, "lustre"},
    {0x47504653, "gpfs"},      {0x19830326, "beegfs"},     {0x20030528, "pvfs2"},
    {0x00C36400, "ceph"},      {0x794C7630, "overlayfs"},  {0x65735546, "fuse"},
    {0x2FC12FC1, "zfs"},       {0x5346544E, "ntfs"},       {0xFF534D42, "cifs"},
    {0x73717368, "squashfs"},  {0x858458F6, "ramfs"},      {0x6A656A63, "fakeowner"},
};

const char *pfs_fs_name(unsigned long magic)
{
    for (size_t i = 0; i < sizeof(fs_names) / sizeof(fs_names[0]); i++)
        if (fs_names[i].magic == magic)
            return fs_names[i].name;
    return NULL;
}

void pfs_fs_type(const char *path, char *buf, size_t len)
{
    struct statfs sf;
    if (statfs(path, &sf) != 0) {
        snprintf(buf, len, "unknown");
        return;
    }
    const char *n = pfs_fs_name((unsigned long)sf.f_type);
    if (n)
        snprintf(buf, len, "%s", n);
    else
        snprintf(buf, len, "0x%lx", (unsigned long)sf.f_type);
}

/* ---- the mount table ---- */

/* One field of a mountinfo line, n bytes at s, with the kernel's octal
 * escapes (\040 space, \011 tab, \012 newline, \134 backslash) undone. */
static void unescape_field(const char *s, size_t n, char *out, size_t len)
{
    size_t o = 0;
    for (size_t i = 0; i < n && o + 1 < len; i++) {
        if (s[i] == '\\' && i + 3 < n && s[i + 1] >= '0' && s[i + 1] <= '3' && s[i + 2] >= '0' && s[i + 2] <= '7' &&
            s[i + 3] >= '0' && s[i + 3] <= '7') {
            out[o++] = (char)((s[i + 1] - '0') * 64 + (s[i + 2] - '0') * 8 + (s[i + 3] - '0'));
            i += 3;
        } else {
            out[o++] = s[i];
        }
    }
    if (len > 0)
        out[o] = '\0';
}

/* Appends each comma-separated option of more that opts does not already
 * name; opts holds len bytes. */
static void merge_options(char *opts, size_t len, const char *more)
{
    while (*more) {
        size_t n = strcspn(more, ",");
        int seen = 0;
        for (const char *p = opts; *p && !seen;) {
            size_t m = strcspn(p, ",");
            seen = m == n && strncmp(p, more, n) == 0;
            p += m + (p[m] == ',');
        }
        size_t have = strlen(opts);
        if (!seen && n > 0 && have + n + 2 < len) {
            if (have)
                opts[have++] = ',';
            memcpy(opts + have, more, n);
            opts[have + n] = '\0';
        }
        more += n + (more[n] == ',');
    }
}

int pfs_mountinfo_parse(const char *line, char *mount_point, size_t mplen, char *type, size_t typelen,
                        char *source, size_t srclen, char *options, size_t optlen)
{
    /* id parent major:minor root mount-point options [optional...] - type source super-options */
    const char *f[64];
    size_t flen[64];
    int nf = 0;
    for (const char *p = line; *p && nf < 64;) {
        while (*p == ' ')
            p++;
        if (!*p || *p == '\n')
            break;
        f[nf] = p;
        flen[nf] = strcspn(p, " \n");
        p += flen[nf++];
    }
    int dash = -1;
    for (int i = 6; i < nf && dash < 0; i++)
        if (flen[i] == 1 && f[i][0] == '-')
            dash = i;
    if (nf < 7 || dash < 0 || dash + 2 >= nf || f[4][0] != '/')
        return -1;
    char super[1024];
    unescape_field(f[4], flen[4], mount_point, mplen);
    unescape_field(f[dash + 1], flen[dash + 1], type, typelen);
    unescape_field(f[dash + 2], flen[dash + 2], source, srclen);
    unescape_field(f[5], flen[5], options, optlen);
    super[0] = '\0';
    if (dash + 3 < nf)
        unescape_field(f[dash + 3], flen[dash + 3], super, sizeof(super));
    merge_options(options, optlen, super);
    return 0;
}

/* Whether path lies on mount point mp: mp is path, or a whole-component
 * prefix of it ("/mnt/g" is not a prefix of "/mnt/gl"). */
static size_t under_mount(const char *path, const char *mp)
{
    size_t n = strlen(mp);
    if (n == 1 && mp[0] == '/')
        return 1;
    if (strncmp(path, mp, n) != 0 || (path[n] != '\0' && path[n] != '/'))
        return 0;
    return n;
}

/* The absolute, resolved path of dir. A directory that does not exist
 * (yet) is on the mount of its nearest existing ancestor: that one is
 * resolved and the rest appended as written. */
static void resolved(const char *dir, char *out, size_t len)
{
    char head[PATH_MAX];
    dir = dir && dir[0] ? dir : ".";
    if (snprintf(head, sizeof(head), "%s", dir) >= (int)sizeof(head)) {
        snprintf(out, len, "%s", dir);
        return;
    }
    const char *tail = ""; /* the part that does not exist, from its '/' */
    for (;;) {
        char *r = realpath(head[0] ? head : ".", NULL);
        if (r) {
            snprintf(out, len, "%s%s%s", strcmp(r, "/") == 0 && tail[0] == '/' ? "" : r,
                     tail[0] && tail[0] != '/' ? "/" : "", tail);
            free(r);
            return;
        }
        char *slash = strrchr(head, '/');
        if (!slash) { /* relative: the rest is under the working directory */
            tail = dir;
            head[0] = '\0';
            continue;
        }
        tail = dir + (slash - head);
        slash[slash == head] = '\0'; /* "/x" leaves "/" */
    }
}

int pfs_fs_mountinfo(const char *mountinfo, const char *dir, struct pfs_fsinfo *out)
{
    memset(out, 0, sizeof(*out));
    struct statfs sf;
    if (dir && statfs(dir, &sf) == 0)
        out->block_size = (unsigned long)sf.f_bsize;
    char path[PATH_MAX];
    resolved(dir, path, sizeof(path));
    FILE *f = fopen(mountinfo, "re");
    if (!f)
        return -1;
    char *line = NULL;
    size_t cap = 0, best = 0;
    struct pfs_fsinfo cur;
    while (getline(&line, &cap, f) > 0) {
        if (pfs_mountinfo_parse(line, cur.mount_point, sizeof(cur.mount_point), cur.mount_type,
                                sizeof(cur.mount_type), cur.source, sizeof(cur.source), cur.options,
                                sizeof(cur.options)) != 0)
            continue;
        /* A later mount on the same point hides the earlier one: >=. */
        size_t n = under_mount(path, cur.mount_point);
        if (n > 0 && n >= best) {
            best = n;
            memcpy(out->mount_point, cur.mount_point, sizeof(out->mount_point));
            memcpy(out->mount_type, cur.mount_type, sizeof(out->mount_type));
            memcpy(out->source, cur.source, sizeof(out->source));
            memcpy(out->options, cur.options, sizeof(out->options));
        }
    }
    free(line);
    fclose(f);
    return best > 0 ? 0 : -1;
}

/* ---- layout facts from the file system's own tools ---- */

/* Whether prog is an executable file in a directory of PATH. */
static int on_path(const char *prog)
{
    const char *path = getenv("PATH");
    char buf[PATH_MAX];
    while (path && *path) {
        size_t n = strcspn(path, ":");
        if (n > 0 && snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, path, prog) < (int)sizeof(buf) &&
            access(buf, X_OK) == 0)
            return 1;
        path += n + (path[n] == ':');
    }
    return 0;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Runs argv (no shell; stderr to /dev/null) and keeps at most len - 1
 * bytes of its stdout in buf. A program still running after limit_s is
 * killed. Returns its exit status, or -1 (not run, killed, or signalled). */
static int capture(char *const argv[], char *buf, size_t len, double limit_s)
{
    int p[2];
    buf[0] = '\0';
    if (pipe2(p, O_CLOEXEC) != 0)
        return -1;
    pid_t pid = fork();
    if (pid < 0) {
        close(p[0]), close(p[1]);
        return -1;
    }
    if (pid == 0) {
        int null = open("/dev/null", O_RDWR);
        dup2(p[1], 1);
        if (null >= 0)
            dup2(null, 2), dup2(null, 0);
        execvp(argv[0], argv);
        _exit(127);
    }
    close(p[1]);
    size_t n = 0;
    const double end = now_s() + limit_s;
    int killed = 0;
    for (;;) {
        double left = end - now_s();
        struct pollfd pfd = {p[0], POLLIN, 0};
        int r = left > 0 ? poll(&pfd, 1, (int)(left * 1000) + 1) : 0;
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            kill(pid, SIGKILL);
            killed = 1;
            break;
        }
        char tmp[512];
        ssize_t m = read(p[0], tmp, sizeof(tmp));
        if (m < 0 && errno == EINTR)
            continue;
        if (m <= 0)
            break;
        size_t keep = (size_t)m < len - 1 - n ? (size_t)m : len - 1 - n;
        memcpy(buf + n, tmp, keep);
        n += keep;
    }
    buf[n] = '\0';
    close(p[0]);
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    return killed || !WIFEXITED(st) ? -1 : WEXITSTATUS(st);
}

/* The integer after key (and optional spaces) in text, as text, or NULL. */
static const char *value_after(const char *text, const char *key, char *val, size_t len)
{
    const char *p = strstr(text, key);
    if (!p)
        return NULL;
    p += strlen(key);
    p += strspn(p, " \t\r\n");
    size_t n = strspn(p, "-0123456789");
    if (n == 0 || n >= len)
        return NULL;
    memcpy(val, p, n);
    val[n] = '\0';
    return p + n;
}

void pfs_lustre_layout(const char *out, char *buf, size_t len)
{
    /* Several fields at once print as "stripe_count:  4 stripe_size:   1048576"
     * (lmm_stripe_count: ... with -v); some versions print bare numbers,
     * one a line, in the order asked (-c, then -S). */
    char count[32], size[32];
    buf[0] = '\0';
    if (!value_after(out, "stripe_count:", count, sizeof(count)) ||
        !value_after(out, "stripe_size:", size, sizeof(size))) {
        const char *p = out;
        while (*p && !isdigit((unsigned char)*p) && *p != '-')
            p++;
        if (!(p = value_after(p, "", count, sizeof(count))) || !value_after(p, "", size, sizeof(size)))
            return;
        /* Bare numbers only: anything else on the lines is not this format. */
        for (const char *q = out; *q; q++)
            if (!isdigit((unsigned char)*q) && !isspace((unsigned char)*q) && *q != '-')
                return;
    }
    snprintf(buf, len, "stripe_count=%s stripe_size=%s", count, size);
}

void pfs_beegfs_layout(const char *out, char *buf, size_t len)
{
    /* + Chunksize: 512K
     * + Number of storage targets: desired: 4 */
    buf[0] = '\0';
    const char *c = strstr(out, "Chunksize:");
    if (!c)
        return;
    c += strlen("Chunksize:");
    while (*c == ' ')
        c++;
    unsigned long long chunk = pfs_size_word(c);
    if (chunk == 0)
        return;
    char targets[32];
    if (value_after(out, "storage targets: desired:", targets, sizeof(targets)))
        snprintf(buf, len, "chunk_size=%llu storage_targets=%s", chunk, targets);
    else
        snprintf(buf, len, "chunk_size=%llu", chunk);
}

/* The value of key in text, JSON ("key": 1, "key": "x") or key=value
 * ("key=1 other=..."): digits, or a name up to a quote, space or comma. */
static const char *field(const char *text, const char *key, int digits, char *val, size_t len)
{
    size_t k = strlen(key);
    for (const char *p = strstr(text, key); p; p = strstr(p + 1, key)) {
        const char *q = p + k;
        if (p > text && (isalnum((unsigned char)p[-1]) || p[-1] == '_'))
            continue; /* "pool" inside "pool_namespace" or a longer key */
        q += *q == '"';
        if (*q != ':' && *q != '=')
            continue;
        q += 1 + strspn(q + 1, " \t\"");
        size_t n = digits ? strspn(q, "0123456789") : strcspn(q, "\", \t\r\n}");
        if (n == 0 || n >= len)
            return NULL;
        memcpy(val, q, n);
        val[n] = '\0';
        return val;
    }
    return NULL;
}

void pfs_ceph_layout(const char *xattr, char *buf, size_t len)
{
    /* ceph.dir.layout.json: {"stripe_unit": 4194304, "stripe_count": 1,
     * "object_size": 4194304, "pool_name": "cephfs_data", ...};
     * ceph.dir.layout: "stripe_unit=4194304 stripe_count=1
     * object_size=4194304 pool=cephfs_data". */
    char su[32], sc[32], os[32], pool[128];
    buf[0] = '\0';
    if (!field(xattr, "stripe_unit", 1, su, sizeof(su)) || !field(xattr, "stripe_count", 1, sc, sizeof(sc)) ||
        !field(xattr, "object_size", 1, os, sizeof(os)))
        return;
    if (field(xattr, "pool_name", 0, pool, sizeof(pool)) || field(xattr, "pool", 0, pool, sizeof(pool)))
        snprintf(buf, len, "stripe_unit=%s stripe_count=%s object_size=%s pool=%s", su, sc, os, pool);
    else
        snprintf(buf, len, "stripe_unit=%s stripe_count=%s object_size=%s", su, sc, os);
}

/* CephFS's layout for new files in dir: ceph.dir.layout.json (Ceph 16 on)
 * gives the one a directory inherits; ceph.dir.layout only the one set on
 * the directory itself, so that is looked for up to the mount point. A
 * directory that does not exist yet inherits its parent's. */
static void ceph_layout(const char *dir, const char *mount_point, char *buf, size_t len)
{
    static const char *const keys[] = {"ceph.dir.layout.json", "ceph.dir.layout"};
    char path[PATH_MAX], text[512];
    resolved(dir, path, sizeof(path));
    for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
        const char *key = keys[k];
        char p[PATH_MAX];
        snprintf(p, sizeof(p), "%s", path);
        for (;;) {
            ssize_t n = getxattr(p, key, text, sizeof(text) - 1);
            if (n > 0) {
                text[n] = '\0';
                pfs_ceph_layout(text, buf, len);
                return;
            }
            char *slash = strrchr(p, '/');
            if (strcmp(p, mount_point) == 0 || !slash || slash == p)
                break;
            *slash = '\0';
        }
    }
}

int pfs_fs_describe(const char *dir, struct pfs_fsinfo *out)
{
    int rc = pfs_fs_mountinfo("/proc/self/mountinfo", dir, out);
    const char *t = out->mount_type;
    char text[4096];
    if (strcmp(t, "lustre") == 0 && on_path("lfs")) {
        char *argv[] = {"lfs", "getstripe", "-d", "-c", "-S", (char *)dir, NULL};
        if (capture(argv, text, sizeof(text), 3.0) == 0)
            pfs_lustre_layout(text, out->layout, sizeof(out->layout));
    } else if (strcmp(t, "gpfs") == 0 && out->block_size > 0) {
        /* GPFS reports its file-system block size as f_bsize; mmlsfs would
         * ask the cluster's configuration server, not cheap. */
        snprintf(out->layout, sizeof(out->layout), "block_size=%lu", out->block_size);
    } else if (strcmp(t, "beegfs") == 0 && on_path("beegfs-ctl")) {
        char *argv[] = {"beegfs-ctl", "--getentryinfo", (char *)dir, NULL};
        if (capture(argv, text, sizeof(text), 3.0) == 0)
            pfs_beegfs_layout(text, out->layout, sizeof(out->layout));
    } else if (strcmp(t, "ceph") == 0 || strcmp(t, "fuse.ceph-fuse") == 0) {
        ceph_layout(dir, out->mount_point, out->layout, sizeof(out->layout));
    }
    return rc;
}

/* ---- metadata rates a client's cache may have answered ---- */

/* File systems on a local disk or in memory: stat after create is answered
 * from memory there too, and no other client could answer differently. */
static int is_local(const char *type)
{
    static const char *local[] = {"ext2", "ext3", "ext4", "xfs", "btrfs", "tmpfs", "ramfs", "zfs", "overlay",
                                  "f2fs", "jfs", "reiserfs", "vfat", "exfat", "ntfs", "ntfs3", "bcachefs",
                                  "hugetlbfs", "squashfs"};
    for (size_t i = 0; i < sizeof(local) / sizeof(local[0]); i++)
        if (strcmp(type, local[i]) == 0)
            return 1;
    return 0;
}

int pfs_meta_cache_warning(const int *phases, int nphases, int other_node, const char *mount_type,
                           const char *client, char *buf, size_t len)
{
    /* The phases -C moves to another node's client (stat, read-files),
     * after the one that makes the files; one that reads them meets the
     * page cache too. */
    int created = 0, pages = 0;
    unsigned long long after = 0; /* a bit per phase */
    if (len > 0)
        buf[0] = '\0';
    for (int i = 0; i < nphases; i++) {
        const int k = phases[i];
        if (!pfs_phase_is_meta(k))
            continue;
        created |= pfs_phase_has(k, PFS_PHF_CREATES) && !pfs_phase_has(k, PFS_PHF_DIRS);
        if (created && pfs_phase_has(k, PFS_PHF_OTHERS)) {
            after |= 1ull << k;
            pages |= pfs_phase_has(k, PFS_PHF_READS);
        }
    }
    if (other_node || !after || !mount_type || !mount_type[0] || is_local(mount_type))
        return 0;
    char names[96];
    size_t n = 0;
    names[0] = '\0';
    for (int k = 0; pfs_phase_desc(k) && n < sizeof(names); k++)
        if (after & (1ull << k))
            n += (size_t)snprintf(names + n, sizeof(names) - n, "%s%s", n ? " and " : "", pfs_phase_name(k));
    const int fuse = !client && strncmp(mount_type, "fuse", 4) == 0;
    snprintf(buf, len,
             "%s rates may be cache hits of this client: the files were created through the same %s client, "
             "whose attribute%s caches can answer without asking the servers%s; use -C across two or more "
             "nodes (-C reads on another node's client)",
             names, client ? client : mount_type, pages ? ", entry and page" : " and entry",
             fuse ? " (FUSE keeps attributes and entries 1 s by default)" : "");
    return 1;
}

/* ---- the helpers, for the target providers (src/core/target_*.c) ---- */

int pfs_fs_on_path(const char *prog)
{
    return on_path(prog);
}

int pfs_fs_run(char *const argv[], char *buf, size_t len, double limit_s)
{
    return capture(argv, buf, len, limit_s);
}
