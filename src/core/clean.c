/* --clean: find what crashed runs left behind, by name alone. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pfs/config.h"
#include "pfs/clean.h"
#include "pfs/names.h"

/* The kinds of entry --clean looks for, by their names alone. */
static enum pfs_name_kind kind_of(const char *name)
{
    return pfs_name_parse(name, NULL);
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
 * regular file). 1 when the run that named `name` is live, with the lock's
 * content ("host pid") in owner. */
static int run_is_live(int dfd, const char *name, char *owner, size_t len)
{
    struct pfs_name n;
    char lock[PFS_RUN_ID_MAX + 32];
    if (pfs_name_parse(name, &n) == PFS_NAME_NONE || !n.run_id[0] ||
        pfs_name_lock(lock, sizeof(lock), NULL, n.run_id) != 0)
        return 0;
    int fd = openat(dfd, lock, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return 0;
    struct stat st;
    int live = 0;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
        if (flock(fd, LOCK_SH | LOCK_NB) != 0)
            live = errno == EWOULDBLOCK;
        else
            flock(fd, LOCK_UN);
    }
    if (live) {
        ssize_t n = pread(fd, owner, len - 1, 0);
        owner[n > 0 ? n : 0] = '\0';
        owner[strcspn(owner, "\n")] = '\0';
    }
    close(fd);
    return live;
}

/* 1 when the entry is to be left alone: a live run's, or (without
 * --any-owner) another user's. Says why. */
static int hands_off(int dfd, const char *dir, const char *name, const struct stat *st, int any_owner, FILE *out)
{
    char owner[128] = "";
    if (run_is_live(dfd, name, owner, sizeof(owner))) {
        fprintf(out, "skipped  %s/%s: in use by a live run (%s); left alone\n", dir, name, owner[0] ? owner : "?");
        return 1;
    }
    if (!any_owner && st->st_uid != geteuid()) {
        fprintf(out, "skipped  %s/%s: owned by uid %u, not you; add --any-owner to include it\n", dir, name,
                (unsigned)st->st_uid);
        return 1;
    }
    return 0;
}

/* The second pass: a run's lock file, once nothing of its run is live. */
static int clean_locks(DIR *dp, int dfd, const char *dir, int remove, int any_owner, FILE *out, int *failed)
{
    int found = 0;
    struct dirent *e;
    rewinddir(dp);
    while ((e = readdir(dp)) != NULL) {
        struct stat st;
        if (kind_of(e->d_name) != PFS_NAME_LOCK ||
            fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode) ||
            hands_off(dfd, dir, e->d_name, &st, any_owner, out))
            continue;
        found++;
        if (!remove)
            fprintf(out, "leftover %s/%s (the lock of a run that ended without removing it)\n", dir, e->d_name);
        else if (unlinkat(dfd, e->d_name, 0) == 0)
            fprintf(out, "removed  %s/%s\n", dir, e->d_name);
        else {
            fprintf(out, "FAILED   %s/%s: %s\n", dir, e->d_name, strerror(errno));
            (*failed)++;
        }
    }
    return found;
}

int pfs_clean(const char *dir, int remove, int any_owner, FILE *out, char *err, size_t errlen)
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
        const enum pfs_name_kind kind = kind_of(e->d_name);
        if (kind == PFS_NAME_MD_TOP && fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
            S_ISDIR(st.st_mode)) {
            if (hands_off(dfd, dir, e->d_name, &st, any_owner, out))
                continue;
            int sub = openat(dfd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            /* Look before removing anything: a directory with a foreign
             * entry is left whole. */
            long files = sub >= 0 ? md_walk(sub, 0, 0) : -1;
            if (files >= 0 && remove)
                files = md_walk(sub, 1, 0);
            if (sub >= 0)
                close(sub);
            if (files < 0) {
                fprintf(out, "skipped  %s/%s/: holds files pfsbench does not make; left alone\n", dir, e->d_name);
                continue;
            }
            found++;
            if (remove && unlinkat(dfd, e->d_name, AT_REMOVEDIR) == 0)
                fprintf(out, "removed  %s/%s/ (%ld small files)\n", dir, e->d_name, files);
            else if (remove) {
                fprintf(out, "FAILED   %s/%s/: %s\n", dir, e->d_name, strerror(errno));
                failed++;
            } else
                fprintf(out, "leftover %s/%s/ (%ld small files)\n", dir, e->d_name, files);
            continue;
        }
        if (kind != PFS_NAME_DATA && kind != PFS_NAME_SHARED && kind != PFS_NAME_KEPT)
            continue;
        /* Regular files only, never through a link: a planted link named
         * like ours is not ours. */
        if (fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
            continue;
        if (hands_off(dfd, dir, e->d_name, &st, any_owner, out))
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
    }
    found += clean_locks(dp, dfd, dir, remove, any_owner, out, &failed);
    closedir(dp);
    fprintf(out, "%d pfsbench file%s, %llu bytes%s\n", found, found == 1 ? "" : "s", bytes,
            remove ? " removed" : (found ? "; add --yes to remove them" : ""));
    if (failed) {
        snprintf(err, errlen, "%d file%s could not be removed", failed, failed == 1 ? "" : "s");
        return -1;
    }
    return found;
}
