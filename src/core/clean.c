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
        if (!pfs_is_leftover_name(e->d_name))
            continue;
        struct stat st;
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
