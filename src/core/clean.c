/* --clean: find what crashed runs left behind, by name alone. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
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

int pfs_clean(const char *dir, int remove, FILE *out, char *err, size_t errlen)
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
        if (!pfs_is_leftover_name(e->d_name))
            continue;
        /* Regular files only, never through a link: a planted link named
         * like ours is not ours. */
        if (fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
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
    closedir(dp);
    fprintf(out, "%d pfsbench file%s, %llu bytes%s\n", found, found == 1 ? "" : "s", bytes,
            remove ? " removed" : (found ? "; add --yes to remove them" : ""));
    if (failed) {
        snprintf(err, errlen, "%d file%s could not be removed", failed, failed == 1 ? "" : "s");
        return -1;
    }
    return found;
}
