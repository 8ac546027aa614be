/* --stonewall-file (pfs/swfile.h): IOR's stoneWallingStatusFile, parsed
 * here and nowhere else. */
#define _GNU_SOURCE
#include "pfs/swfile.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pfs/config.h"
#include "pfs/names.h"

#define SWFILE_MOST (UINT64_C(1) << 62)

static int is_space(char ch)
{
    return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r';
}

int pfs_swfile_parse(const char *text, size_t n, uint64_t *count, char *err, size_t len)
{
    size_t i = 0;
    uint64_t v = 0;
    while (i < n && is_space(text[i]))
        i++;
    const size_t first = i;
    for (; i < n && text[i] >= '0' && text[i] <= '9'; i++) {
        v = v * 10 + (uint64_t)(text[i] - '0');
        if (v > SWFILE_MOST)
            return pfs_fail(err, len, "the stonewall status file's count is over 2^62 transfers");
    }
    if (i == first)
        return pfs_fail(err, len, "the stonewall status file holds no count (IOR's format: one decimal number)");
    while (i < n && is_space(text[i]))
        i++;
    if (i < n)
        return pfs_fail(err, len, "the stonewall status file holds more than one decimal number (byte %zu is 0x%02x)",
                        i, (unsigned)(unsigned char)text[i]);
    if (v == 0)
        return pfs_fail(err, len, "the stonewall status file's count is 0: the write it records reached no transfer");
    *count = v;
    return 0;
}

int pfs_swfile_format(char *buf, size_t blen, uint64_t count)
{
    const int n = snprintf(buf, blen, "%" PRIu64 "\n", count);
    return n < 0 || (size_t)n >= blen ? -1 : n;
}

int pfs_swfile_read(const char *path, uint64_t *count, char *err, size_t len)
{
    char text[PFS_SWFILE_MAX + 1], why[256];
    struct stat st;
    const int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return pfs_fail(err, len, "--stonewall-file %s: %s; a read-only run reads the count a stonewalled write "
                        "recorded there", path, strerror(errno));
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > PFS_SWFILE_MAX) {
        close(fd);
        return pfs_fail(err, len, "--stonewall-file %s: not a regular file of at most %d bytes", path, PFS_SWFILE_MAX);
    }
    const ssize_t n = read(fd, text, sizeof(text));
    const int e = errno;
    close(fd);
    if (n < 0)
        return pfs_fail(err, len, "--stonewall-file %s: %s", path, strerror(e));
    if (n > PFS_SWFILE_MAX)
        return pfs_fail(err, len, "--stonewall-file %s: grew over %d bytes while read", path, PFS_SWFILE_MAX);
    if (pfs_swfile_parse(text, (size_t)n, count, why, sizeof(why)) != 0)
        return pfs_fail(err, len, "--stonewall-file %s: %s", path, why);
    return 0;
}

int pfs_swfile_absent(const char *path, char *err, size_t len)
{
    struct stat st;
    if (lstat(path, &st) == 0)
        return pfs_fail(err, len, "--stonewall-file %s is already there: a write run records its stonewall in a new "
                        "file and never writes over one; remove it first, or name another", path);
    return 0;
}

int pfs_swfile_write(const char *path, uint64_t count, char *err, size_t len)
{
    char dir[PFS_PATH_MAX], base[PFS_PATH_MAX], text[PFS_SWFILE_MAX];
    const int n = pfs_swfile_format(text, sizeof(text), count);
    if (n < 0 || pfs_name_split(path, dir, sizeof(dir), base, sizeof(base)) != 0)
        return pfs_fail(err, len, "--stonewall-file %s: not the path of a file", path);
    const int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0)
        return pfs_fail(err, len, "--stonewall-file %s: its directory %s: %s", path, dir, strerror(errno));
    const int fd = openat(dfd, base, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) {
        const int e = errno;
        close(dfd);
        return pfs_fail(err, len, "--stonewall-file %s: %s%s", path, strerror(e),
                        e == EEXIST ? " (it appeared during the run; pfsbench never writes over a file)" : "");
    }
    const int ok = write(fd, text, (size_t)n) == n && fsync(fd) == 0;
    const int e = errno;
    if (close(fd) != 0 || !ok) {
        (void)unlinkat(dfd, base, 0);
        close(dfd);
        return pfs_fail(err, len, "--stonewall-file %s: write: %s", path, strerror(ok ? errno : e));
    }
    close(dfd);
    return 0;
}
