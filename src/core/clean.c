/* --clean: find what crashed runs left behind, by name alone. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pfs/config.h"
#include "pfs/clean.h"
#include "pfs/names.h"
#include "pfs/safefile.h"

/* The kinds of entry --clean looks for, by their names alone. */
static enum pfs_name_kind kind_of(const char *name)
{
    return pfs_name_parse(name, NULL);
}

/* An entry of DIR itself: its kind when it is one run_id names (any run's
 * when run_id is NULL or ""), else PFS_NAME_NONE. */
static enum pfs_name_kind top_kind(const char *name, const char *run_id)
{
    struct pfs_name n;
    const enum pfs_name_kind k = pfs_name_parse(name, &n);
    return !run_id || !run_id[0] || strcmp(n.run_id, run_id) == 0 ? k : PFS_NAME_NONE;
}

/* Walks a metadata directory of a crashed run (pfsbench.<id>.md, with f.*
 * files and s<stream>/ subdirectories of f.* files, and the --depth trees'
 * d.<stream>.<node>/ directories in either). Counts what is there;
 * with remove, removes it, but only when everything in it has pfsbench's
 * names: a directory holding anything else is left whole. Returns the
 * file count, or -1 when a foreign entry was found. */
static long md_walk(int dfd, int remove, int depth)
{
    DIR *dp = fdopendir(dup(dfd));
    if (!dp)
        return -1;
    long count = 0;
    struct dirent *e;
    rewinddir(dp);
    while ((e = readdir(dp)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        struct stat st;
        if (fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
            count = -1;
            break;
        }
        if (S_ISREG(st.st_mode) && kind_of(e->d_name) == PFS_NAME_MD_FILE) {
            count++;
            if (remove)
                unlinkat(dfd, e->d_name, 0);
        } else if (S_ISDIR(st.st_mode) && kind_of(e->d_name) == PFS_NAME_MD_SUBDIR &&
                   (e->d_name[0] == 'd' ? depth < 33 : depth == 0)) {
            /* s<stream> in the top only; the --depth tree's d.<stream>.<node> at most 32 deep under it */
            int sub = openat(dfd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            long c = sub >= 0 ? md_walk(sub, remove, depth + 1) : -1;
            if (sub >= 0)
                close(sub);
            if (c < 0) {
                count = -1;
                break;
            }
            count += c;
            if (remove)
                unlinkat(dfd, e->d_name, AT_REMOVEDIR);
        } else {
            count = -1;
            break;
        }
    }
    closedir(dp);
    return count;
}

/* A live run holds a flock on DIR/pfsbench.<id>.lock for its lifetime
 * (the lock crosses clients of the file systems that honour flock on a
 * regular file). Listing, --clean only looks: 1 when the lock is held, with
 * its content ("host pid") in owner. A lock file replaced between the open
 * and the flock (the flock then took an inode no name leads to) is looked
 * at again; one that keeps changing counts as live. */
static int probe_live(int dfd, const char *lock, char *owner, size_t len)
{
    for (int round = 0; round < 3; round++) {
        int fd = openat(dfd, lock, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
        if (fd < 0)
            return 0;
        struct stat st;
        int live = 0, same = 1;
        if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
            if (flock(fd, LOCK_SH | LOCK_NB) != 0) {
                live = errno == EWOULDBLOCK;
            } else {
                const struct pfs_fid id = {(uint64_t)st.st_dev, (uint64_t)st.st_ino};
                same = pfs_fid_check_at(dfd, lock, &id) == 0;
                flock(fd, LOCK_UN);
            }
        }
        if (live) {
            ssize_t n = pread(fd, owner, len - 1, 0);
            owner[n > 0 ? n : 0] = '\0';
            owner[strcspn(owner, "\n")] = '\0';
        }
        close(fd);
        if (live || same)
            return live;
    }
    snprintf(owner, len, "its lock file kept being replaced while --clean looked");
    return 1;
}

/* The lock of the run an entry belongs to, as --clean holds it while it
 * removes that entry: a run that starts with that id meanwhile is refused
 * (its lock is held) instead of having its new files removed. */
struct claim {
    struct pfs_lock lk;
    char name[PFS_RUN_ID_MAX + 32];
};

/* 1 when the run `name` belongs to is live (owner says who holds it). 0
 * when it is not; then, removing, its lock is held in cl (made when absent,
 * checked to be the file its name names) until release_run. Where the lock
 * file cannot be made (a file system out of space or inodes) the entry is
 * still removed, unheld, as before there was a lock to hold. */
static int claim_run(int dfd, const char *name, int remove, struct claim *cl, char *owner, size_t len)
{
    struct pfs_name n;
    cl->lk.fd = -1;
    cl->lk.made = 0;
    if (pfs_name_parse(name, &n) == PFS_NAME_NONE || !n.run_id[0] ||
        pfs_name_lock(cl->name, sizeof(cl->name), NULL, n.run_id) != 0)
        return 0;
    if (!remove)
        return probe_live(dfd, cl->name, owner, len);
    char mark[64];
    snprintf(mark, sizeof(mark), "pfsbench --clean %ld\n", (long)getpid());
    int rc = pfs_lock_take(dfd, cl->name, 1, mark, &cl->lk, owner, len);
    if (rc == PFS_ERR_UNSTABLE)
        snprintf(owner, len, "its lock file kept being replaced while --clean looked");
    return rc == PFS_ERR_BUSY || rc == PFS_ERR_UNSTABLE;
}

/* The claim goes; a lock file --clean made for it goes with it. */
static void release_run(int dfd, struct claim *cl)
{
    (void)pfs_lock_drop(dfd, cl->name, &cl->lk, cl->lk.made);
}

/* 1 when the entry is to be left alone: (without --any-owner) another
 * user's, or a live run's; says why. 0: with remove, cl holds its run's lock. */
static int hands_off(int dfd, const char *dir, const char *name, const struct stat *st, int any_owner, int remove,
                     struct claim *cl, FILE *out)
{
    char owner[128] = "";
    cl->lk.fd = -1;
    cl->lk.made = 0;
    if (!any_owner && st->st_uid != geteuid()) {
        fprintf(out, "skipped  %s/%s: owned by uid %u, not you; add --any-owner to include it\n", dir, name,
                (unsigned)st->st_uid);
        return 1;
    }
    if (claim_run(dfd, name, remove, cl, owner, sizeof(owner))) {
        fprintf(out, "skipped  %s/%s: in use by a live run (%s); left alone\n", dir, name, owner[0] ? owner : "?");
        return 1;
    }
    return 0;
}

/* The objects line of a run's lock file (PFS_LOCK_TOKEN_KEY): 1 with its
 * backend's name in api and the token, else 0. */
static int lock_objects(int dfd, const char *lock, char *api, size_t alen, uint64_t *token)
{
    char buf[256];
    int fd = openat(dfd, lock, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    ssize_t n = fd >= 0 ? pread(fd, buf, sizeof(buf) - 1, 0) : -1;
    if (fd >= 0)
        close(fd);
    buf[n > 0 ? n : 0] = '\0';
    const char *k = strstr(buf, "\n" PFS_LOCK_TOKEN_KEY " ");
    if (!k)
        return 0;
    k += strlen("\n" PFS_LOCK_TOKEN_KEY " ");
    const size_t w = strcspn(k, " \n");
    if (!w || w >= alen || k[w] != ' ')
        return 0;
    snprintf(api, alen, "%.*s", (int)w, k);
    char *end;
    *token = (uint64_t)strtoull(k + w + 1, &end, 16);
    return end == k + w + 17 && *end == '\n' && *token;
}

/* A dead run's objects (its lock held when removing): 1 when its lock is
 * to be kept, the proof of objects --clean did not remove. */
static int clean_objects(const struct pfs_clean_objects *objs, int dfd, const char *dir, const char *lock,
                         int remove, FILE *out, int *nobj, int *failed)
{
    struct pfs_name n;
    char api[32];
    uint64_t token = 0;
    if (pfs_name_parse(lock, &n) != PFS_NAME_LOCK || !lock_objects(dfd, lock, api, sizeof(api), &token))
        return 0;
    if (!objs || strcmp(objs->api, api) != 0) {
        fprintf(out, "kept     %s/%s: run %s's objects (--api %s) are looked at with --api %s and its options\n",
                dir, lock, n.run_id, api, api);
        return 1;
    }
    char err[256] = "";
    const int before = *failed;
    int got = objs->run(objs->arg, n.run_id, token, remove, out, failed, err, sizeof(err));
    if (got < 0) {
        fprintf(out, "FAILED   the objects of run %s: %s\n", n.run_id, err);
        (*failed)++;
    } else
        *nobj += got;
    if (got < 0 || *failed > before) {
        fprintf(out, "kept     %s/%s: its token proves the objects left\n", dir, lock);
        return 1;
    }
    return 0;
}

/* The second pass: a run's lock file, once nothing of its run is live,
 * after its objects (objs); removed while --clean holds it, and only while
 * its name still names the inode held (a run that made a new one since
 * keeps it), and while none of its marked objects failed to go. */
static int clean_locks(DIR *dp, int dfd, const char *dir, const char *run_id, int remove, int any_owner,
                       const struct pfs_clean_objects *objs, FILE *out, int *nobj, int *failed)
{
    int found = 0;
    struct dirent *e;
    rewinddir(dp);
    while ((e = readdir(dp)) != NULL) {
        struct stat st;
        char owner[128] = "", why[200];
        if (top_kind(e->d_name, run_id) != PFS_NAME_LOCK ||
            fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
            continue;
        if (!any_owner && st.st_uid != geteuid()) {
            fprintf(out, "skipped  %s/%s: owned by uid %u, not you; add --any-owner to include it\n", dir, e->d_name,
                    (unsigned)st.st_uid);
            continue;
        }
        struct pfs_lock lk = {-1, 0, {0, 0}};
        int rc = remove ? pfs_lock_take(dfd, e->d_name, 1, NULL, &lk, owner, sizeof(owner))
                        : probe_live(dfd, e->d_name, owner, sizeof(owner)) ? PFS_ERR_BUSY : 0;
        if (rc == PFS_ERR_BUSY || rc == PFS_ERR_UNSTABLE) {
            fprintf(out, "skipped  %s/%s: in use by a live run (%s); left alone\n", dir, e->d_name,
                    rc == PFS_ERR_BUSY && owner[0] ? owner : "?");
            continue;
        }
        found++;
        if (clean_objects(objs, dfd, dir, e->d_name, remove, out, nobj, failed)) {
            (void)pfs_lock_drop(dfd, e->d_name, &lk, 0);
            found--;
        } else if (!remove)
            fprintf(out, "leftover %s/%s (the lock of a run that ended without removing it)\n", dir, e->d_name);
        else if (rc == 0 && (rc = pfs_lock_drop(dfd, e->d_name, &lk, 1)) >= 0)
            fprintf(out, "removed  %s/%s\n", dir, e->d_name);
        else {
            fprintf(out, "FAILED   %s/%s: %s\n", dir, e->d_name,
                    pfs_safefile_why(rc, NULL, why, sizeof(why)) ? why : strerror(-rc));
            (*failed)++;
        }
    }
    return found;
}

/* A crashed run's metadata directory (its run's lock held): looked at,
 * and with remove emptied and removed, unless it holds anything pfsbench
 * does not make (then it is left whole). */
static void clean_md_top(int dfd, const char *dir, const char *name, int remove, FILE *out, int *found, int *failed)
{
    int sub = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    /* Look before removing anything: a directory with a foreign entry is left whole. */
    long files = sub >= 0 ? md_walk(sub, 0, 0) : -1;
    if (files >= 0 && remove)
        files = md_walk(sub, 1, 0);
    if (sub >= 0)
        close(sub);
    if (files < 0) {
        fprintf(out, "skipped  %s/%s/: holds files pfsbench does not make; left alone\n", dir, name);
        return;
    }
    (*found)++;
    if (remove && unlinkat(dfd, name, AT_REMOVEDIR) == 0)
        fprintf(out, "removed  %s/%s/ (%ld small files)\n", dir, name, files);
    else if (remove) {
        fprintf(out, "FAILED   %s/%s/: %s\n", dir, name, strerror(errno));
        (*failed)++;
    } else
        fprintf(out, "leftover %s/%s/ (%ld small files)\n", dir, name, files);
}

int pfs_clean(const char *dir, const char *run_id, int remove, int any_owner, FILE *out, char *err, size_t errlen)
{
    return pfs_clean_with(dir, run_id, remove, any_owner, NULL, out, err, errlen);
}

int pfs_clean_with(const char *dir, const char *run_id, int remove, int any_owner,
                   const struct pfs_clean_objects *objs, FILE *out, char *err, size_t errlen)
{
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0) {
        snprintf(err, errlen, "cannot open directory '%s': %s", dir, strerror(errno));
        return -1;
    }
    DIR *dp = fdopendir(dfd);
    if (!dp) {
        snprintf(err, errlen, "cannot read directory '%s': %s", dir, strerror(errno));
        close(dfd);
        return -1;
    }
    int found = 0, failed = 0;
    unsigned long long bytes = 0;
    struct dirent *e;
    while ((e = readdir(dp)) != NULL) {
        struct stat st;
        const enum pfs_name_kind kind = top_kind(e->d_name, run_id);
        if (kind == PFS_NAME_MD_TOP && fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
            S_ISDIR(st.st_mode)) {
            struct claim cl;
            if (hands_off(dfd, dir, e->d_name, &st, any_owner, remove, &cl, out))
                continue;
            clean_md_top(dfd, dir, e->d_name, remove, out, &found, &failed);
            release_run(dfd, &cl);
            continue;
        }
        if (kind != PFS_NAME_DATA && kind != PFS_NAME_SHARED && kind != PFS_NAME_KEPT && kind != PFS_NAME_CKPT &&
            kind != PFS_NAME_TRAIN)
            continue;
        /* Regular files only, never through a link: a planted link named
         * like ours is not ours. */
        struct claim cl;
        if (fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode) ||
            hands_off(dfd, dir, e->d_name, &st, any_owner, remove, &cl, out))
            continue;
        found++;
        bytes += (unsigned long long)st.st_size;
        if (remove) {
            if (unlinkat(dfd, e->d_name, 0) == 0)
                fprintf(out, "removed  %s/%s (%lld bytes)\n", dir, e->d_name, (long long)st.st_size);
            else {
                fprintf(out, "FAILED   %s/%s: %s\n", dir, e->d_name, strerror(errno));
                failed++;
            }
        } else {
            fprintf(out, "leftover %s/%s (%lld bytes)\n", dir, e->d_name, (long long)st.st_size);
        }
        release_run(dfd, &cl);
    }
    int nobj = 0;
    found += clean_locks(dp, dfd, dir, run_id, remove, any_owner, objs, out, &nobj, &failed);
    closedir(dp);
    fprintf(out, "%d pfsbench file%s, %llu bytes%s\n", found, found == 1 ? "" : "s", bytes,
            remove ? " removed" : (found ? "; add --yes to remove them" : ""));
    if (objs)
        fprintf(out, "%d pfsbench object%s marked with its run's token%s\n", nobj, nobj == 1 ? "" : "s",
                remove ? ", removed" : (nobj ? "; add --yes to remove them" : ""));
    if (failed) {
        snprintf(err, errlen, "%d file%s%s could not be removed", failed, failed == 1 ? "" : "s",
                 objs ? (failed == 1 ? " or object" : " or objects") : "");
        return -1;
    }
    return found + nobj;
}
