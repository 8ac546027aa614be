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

static int all_digits(const char *p)
{
    if (!*p)
        return 0;
    for (; *p; p++)
        if (*p < '0' || *p > '9')
            return 0;
    return 1;
}

/* A small file of a metadata phase: f.<stream>.<index>. */
static int is_md_file(const char *name)
{
    if (strncmp(name, "f.", 2) != 0)
        return 0;
    const char *dot = strchr(name + 2, '.');
    if (!dot)
        return 0;
    char stream[32];
    size_t n = (size_t)(dot - (name + 2));
    if (n == 0 || n >= sizeof(stream))
        return 0;
    memcpy(stream, name + 2, n);
    stream[n] = '\0';
    return all_digits(stream) && all_digits(dot + 1);
}

/* Walks a metadata directory of a crashed run (pfsbench.<id>.md, with f.*
 * files and s<stream>/ subdirectories of f.* files). Counts what is there;
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
        if (S_ISREG(st.st_mode) && is_md_file(e->d_name)) {
            count++;
            if (remove)
                unlinkat(dfd, e->d_name, 0);
        } else if (S_ISDIR(st.st_mode) && depth == 0 && e->d_name[0] == 's' && all_digits(e->d_name + 1)) {
            int sub = openat(dfd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            long c = sub >= 0 ? md_walk(sub, remove, 1) : -1;
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

static int is_md_dir_name(const char *name)
{
    size_t n = strlen(name);
    if (n < 13 || strcmp(name + n - 3, ".md") != 0 || strncmp(name, "pfsbench.", 9) != 0)
        return 0;
    for (const char *p = name + 9; p < name + n - 3; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '-' || *p == '_'))
            return 0;
    return 1;
}

/* A live run holds a flock on DIR/pfsbench.<id>.lock for its lifetime
 * (the lock crosses clients of the file systems that honour flock on a
 * regular file). 1 when the run that named `name` is live, with the lock's
 * content ("host pid") in owner. */
static int run_is_live(int dfd, const char *name, char *owner, size_t len)
{
    const char *id = name + 9, *dot = strrchr(id, '.');
    char lock[300];
    if (!dot || (size_t)(dot - id) >= sizeof(lock) - 20)
        return 0;
    snprintf(lock, sizeof(lock), "pfsbench.%.*s.lock", (int)(dot - id), id);
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

static int is_lock_name(const char *name)
{
    size_t n = strlen(name);
    return n > 5 && strcmp(name + n - 5, ".lock") == 0;
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
        if (!is_lock_name(e->d_name) || !pfs_is_leftover_name(e->d_name) ||
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
        if (is_md_dir_name(e->d_name) && fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
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
        if (!pfs_is_leftover_name(e->d_name) || is_lock_name(e->d_name))
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
