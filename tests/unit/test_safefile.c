/* Acting only on this run's files: pfs_open_own, pfs_unlink_own and
 * pfs_fid_check_path against real files, links and FIFOs in a temp dir;
 * the directories held open (pfs_dir_*), names resolved beneath them
 * (pfs_open_beneath, with openat2 and, syscall wrapped to say ENOSYS as an
 * older kernel does, component by component), and the run's lock. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "pfs/safefile.h"

/* -Wl,--wrap=syscall (tests/CMakeLists.txt): openat2 as the kernel has it,
 * or, when no_openat2 is set, ENOSYS as a kernel before 5.6 answers. */
static int no_openat2;
long __real_syscall(long n, ...);
long __wrap_syscall(long n, ...)
{
    va_list ap;
    va_start(ap, n);
    long a = va_arg(ap, long), b = va_arg(ap, long), c = va_arg(ap, long), d = va_arg(ap, long);
    va_end(ap);
    if (n == SYS_openat2 && no_openat2) {
        errno = ENOSYS;
        return -1;
    }
    return __real_syscall(n, a, b, c, d);
}

struct dir {
    char path[256];
};

static int setup(void **state)
{
    struct dir *d = calloc(1, sizeof(*d));
    snprintf(d->path, sizeof(d->path), "/tmp/pfs-safefile.XXXXXX");
    if (!mkdtemp(d->path))
        return -1;
    *state = d;
    return 0;
}

static int teardown(void **state)
{
    struct dir *d = *state;
    char cmd[300];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", d->path);
    if (system(cmd) != 0)
        return -1;
    free(d);
    return 0;
}

static void put(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static off_t size_of(const char *path)
{
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    return st.st_size;
}

/* A file this run made, then replaced by a link to a victim: every
 * operation refuses, and the victim keeps its bytes. */
static void test_symlink_swap(void **state)
{
    struct dir *d = *state;
    char f[300], victim[300], aside[300];
    snprintf(f, sizeof(f), "%s/pfsbench.x.0", d->path);
    snprintf(victim, sizeof(victim), "%s/victim", d->path);
    snprintf(aside, sizeof(aside), "%s/aside", d->path);
    struct pfs_fid id;
    int fd = pfs_open_own(f, O_WRONLY | O_CREAT | O_EXCL, 0644, NULL, &id);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "ours", 4), 4);
    close(fd);
    assert_true(pfs_fid_known(&id));
    put(victim, "precious");
    assert_int_equal(rename(f, aside), 0);
    assert_int_equal(symlink(victim, f), 0);
    assert_int_equal(pfs_open_own(f, O_WRONLY | O_TRUNC, 0, &id, NULL), PFS_ERR_REPLACED);
    assert_int_equal(pfs_open_own(f, O_RDONLY, 0, &id, NULL), PFS_ERR_REPLACED);
    assert_int_equal(pfs_fid_check_path(f, &id), PFS_ERR_REPLACED);
    assert_int_equal(pfs_unlink_own(f, &id), PFS_ERR_REPLACED);
    assert_int_equal(size_of(victim), 8);
    /* unknown identity (a kept file): a link is still never followed */
    assert_int_equal(pfs_open_own(f, O_RDONLY, 0, NULL, NULL), PFS_ERR_NOTREG);
}

/* Another regular file renamed over ours: O_TRUNC must not empty it. */
static void test_rename_over(void **state)
{
    struct dir *d = *state;
    char f[300], other[300];
    snprintf(f, sizeof(f), "%s/pfsbench.y.0", d->path);
    snprintf(other, sizeof(other), "%s/other", d->path);
    struct pfs_fid id;
    int fd = pfs_open_own(f, O_WRONLY | O_CREAT | O_EXCL, 0644, NULL, &id);
    assert_true(fd >= 0);
    close(fd);
    put(other, "someone else's");
    assert_int_equal(rename(other, f), 0);
    assert_int_equal(pfs_open_own(f, O_WRONLY | O_TRUNC, 0, &id, NULL), PFS_ERR_REPLACED);
    assert_int_equal(size_of(f), 14);
    assert_int_equal(pfs_unlink_own(f, &id), PFS_ERR_REPLACED);
    assert_int_equal(access(f, F_OK), 0);
    /* the real one: opened, truncated, removed */
    struct pfs_fid now;
    fd = pfs_open_own(f, O_WRONLY | O_TRUNC, 0, NULL, &now);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(size_of(f), 0);
    assert_int_equal(pfs_unlink_own(f, &now), 0);
    assert_int_equal(pfs_unlink_own(f, &now), 1);
}

/* A FIFO in place of a data file: refused at once, for reading and
 * writing, never blocking (the test would hang otherwise). */
static void test_fifo(void **state)
{
    struct dir *d = *state;
    char f[300], why[200];
    snprintf(f, sizeof(f), "%s/pfsbench.z.0", d->path);
    assert_int_equal(mkfifo(f, 0644), 0);
    assert_int_equal(pfs_open_own(f, O_RDONLY, 0, NULL, NULL), PFS_ERR_NOTREG);
    assert_int_equal(pfs_open_own(f, O_WRONLY, 0, NULL, NULL), PFS_ERR_NOTREG);
    assert_non_null(pfs_safefile_why(PFS_ERR_NOTREG, f, why, sizeof(why)));
    assert_non_null(strstr(why, "a FIFO"));
    assert_null(pfs_safefile_why(-ENOENT, f, why, sizeof(why)));
    /* the reasons that need no look at the file, each its own line */
    static const struct {
        int code;
        const char *why;
    } said[] = {
        {PFS_ERR_REPLACED, "no longer the file this run created (replaced by another process since); pfsbench "
                           "leaves it alone"},
        {PFS_ERR_BUSY, "locked by another process"},
        {PFS_ERR_UNSTABLE, "removed or replaced by another process each time pfsbench locked it"},
        {PFS_ERR_OUTSIDE, "a directory on its way is a symbolic link or another file system, not one this run made: "
                          "pfsbench does not follow it"},
    };
    for (size_t i = 0; i < sizeof(said) / sizeof(said[0]); i++) {
        assert_ptr_equal(pfs_safefile_why(said[i].code, NULL, why, sizeof(why)), why);
        assert_string_equal(why, said[i].why);
    }
    assert_non_null(pfs_safefile_why(PFS_ERR_BUSY, NULL, why, 10));
    assert_string_equal(why, "locked by"); /* cut to the buffer, terminated */
    /* a directory too */
    assert_int_equal(pfs_open_own(d->path, O_RDONLY, 0, NULL, NULL), PFS_ERR_NOTREG);
    /* and an existing name is never taken over by a create */
    assert_int_equal(pfs_open_own(f, O_WRONLY | O_CREAT | O_EXCL, 0644, NULL, NULL), -EEXIST);
}

/* A directory made, then moved away and a link put in its place: the
 * descriptor still reaches the one made, its name does not; removal by the
 * name refuses the link. */
static void test_dir_swapped(void **state)
{
    struct dir *d = *state;
    char moved[300], victim[300], where[300];
    snprintf(moved, sizeof(moved), "%s/moved", d->path);
    snprintf(victim, sizeof(victim), "%s/victim", d->path);
    struct pfs_dir top, md;
    assert_int_equal(pfs_dir_open(AT_FDCWD, d->path, 1, &top), 0);
    assert_int_equal(pfs_dir_make(top.fd, "pfsbench.x.md", &md), 0);
    assert_int_equal(pfs_dir_make(top.fd, "pfsbench.x.md", &(struct pfs_dir){-1, {0, 0}}), -EEXIST);
    assert_int_equal(pfs_dir_still(top.fd, "pfsbench.x.md", 0, &md), 0);
    assert_int_equal(mkdir(victim, 0755), 0);
    assert_int_equal(renameat(top.fd, "pfsbench.x.md", AT_FDCWD, moved), 0);
    assert_int_equal(symlinkat(victim, top.fd, "pfsbench.x.md"), 0);
    assert_int_equal(pfs_dir_still(top.fd, "pfsbench.x.md", 0, &md), PFS_ERR_REPLACED);
    assert_int_equal(pfs_dir_still(top.fd, "pfsbench.x.md", 1, &md), PFS_ERR_REPLACED);
    assert_int_equal(pfs_dir_remove(top.fd, "pfsbench.x.md", &md), PFS_ERR_REPLACED);
    assert_true(md.fd >= 0);
    /* what the run makes through its descriptor lands in the one it made */
    int fd = openat(md.fd, "f.0.0", O_WRONLY | O_CREAT | O_EXCL, 0644);
    assert_true(fd >= 0);
    close(fd);
    char f[320];
    snprintf(f, sizeof(f), "%s/f.0.0", moved);
    assert_int_equal(access(f, F_OK), 0);
    assert_int_equal(pfs_dir_where(md.fd, where, sizeof(where)), 0);
    assert_string_equal(where, moved);
    pfs_dir_close(&md);
    /* a link never opens as a directory of the run, unless followed (-d) */
    assert_int_equal(pfs_dir_open(top.fd, "pfsbench.x.md", 0, &md), -ENOTDIR);
    assert_int_equal(pfs_dir_open(top.fd, "pfsbench.x.md", 1, &md), 0);
    pfs_dir_close(&md);
    pfs_dir_close(&top);
}

/* A tree d.0.1/d.0.3 beside a link d.0.2 to a victim's directory: names
 * beneath the tree open, names through the link or ".." never do, and
 * nothing is made behind the link. */
static void beneath_cases(const char *base)
{
    char victim[300], sub[320];
    snprintf(victim, sizeof(victim), "%s/victim", base);
    assert_int_equal(mkdir(victim, 0755), 0);
    put(strcat(strcpy(sub, victim), "/f.0.1"), "precious");
    int at = open(base, O_RDONLY | O_DIRECTORY);
    assert_true(at >= 0);
    assert_int_equal(mkdirat(at, "d.0.1", 0755), 0);
    assert_int_equal(mkdirat(at, "d.0.1/d.0.3", 0755), 0);
    assert_int_equal(symlinkat(victim, at, "d.0.2"), 0);
    int fd = pfs_open_beneath(at, "d.0.1/d.0.3", O_PATH | O_DIRECTORY, 0);
    assert_true(fd >= 0);
    close(fd);
    fd = pfs_open_beneath(at, "d.0.1/f.0.4", O_WRONLY | O_CREAT | O_EXCL, 0644);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(pfs_open_beneath(at, "d.0.1/f.0.4", O_WRONLY | O_CREAT | O_EXCL, 0644), -EEXIST);
    /* a link on the way, or as the last component; "..": never */
    assert_int_equal(pfs_open_beneath(at, "d.0.2", O_PATH | O_DIRECTORY, 0), PFS_ERR_OUTSIDE);
    assert_int_equal(pfs_open_beneath(at, "d.0.2/f.0.1", O_RDONLY, 0), PFS_ERR_OUTSIDE);
    assert_int_equal(pfs_open_beneath(at, "d.0.2/f.0.7", O_WRONLY | O_CREAT | O_EXCL, 0644), PFS_ERR_OUTSIDE);
    assert_int_equal(pfs_open_beneath(at, "d.0.1/../d.0.2", O_PATH, 0), PFS_ERR_OUTSIDE);
    assert_int_equal(pfs_open_beneath(at, "d.0.9/f.0.1", O_RDONLY, 0), -ENOENT);
    snprintf(sub, sizeof(sub), "%s/f.0.7", victim);
    assert_int_equal(access(sub, F_OK), -1);
    assert_int_equal(size_of(strcat(strcpy(sub, victim), "/f.0.1")), 8);
    close(at);
}

static void test_beneath(void **state)
{
    struct dir *d = *state;
    no_openat2 = 0;
    beneath_cases(d->path);
}

/* The same, where the kernel has no openat2: component by component. */
static void test_beneath_without_openat2(void **state)
{
    struct dir *d = *state;
    no_openat2 = 1;
    beneath_cases(d->path);
    no_openat2 = 0;
}

/* The lock: made and written when absent; busy when another open file
 * description holds it (never removed then, made or not); dropped with its
 * file only while the name still names the inode locked. */
static void test_lock(void **state)
{
    struct dir *d = *state;
    int at = open(d->path, O_RDONLY | O_DIRECTORY);
    assert_true(at >= 0);
    struct pfs_lock a, b;
    char holder[64];
    assert_int_equal(pfs_lock_take(at, "pfsbench.x.lock", 1, "host 42\n", &a, holder, sizeof(holder)), 0);
    assert_int_equal(a.made, 1);
    assert_int_equal(pfs_lock_take(at, "pfsbench.x.lock", 2, "other 7\n", &b, holder, sizeof(holder)), PFS_ERR_BUSY);
    assert_string_equal(holder, "host 42");
    assert_int_equal(faccessat(at, "pfsbench.x.lock", F_OK, 0), 0);
    /* replaced under the holder: its drop leaves the new file alone */
    assert_int_equal(renameat(at, "pfsbench.x.lock", at, "aside"), 0);
    int fd = openat(at, "pfsbench.x.lock", O_WRONLY | O_CREAT | O_EXCL, 0644);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(pfs_lock_drop(at, "pfsbench.x.lock", &a, 1), PFS_ERR_REPLACED);
    assert_int_equal(faccessat(at, "pfsbench.x.lock", F_OK, 0), 0);
    /* a lock file that is there (stale): taken, not made, dropped without removal */
    assert_int_equal(pfs_lock_take(at, "pfsbench.x.lock", 1, "host 43\n", &b, NULL, 0), 0);
    assert_int_equal(b.made, 0);
    assert_int_equal(pfs_lock_drop(at, "pfsbench.x.lock", &b, b.made), 0);
    assert_int_equal(faccessat(at, "pfsbench.x.lock", F_OK, 0), 0);
    /* removal while held */
    assert_int_equal(pfs_lock_take(at, "pfsbench.x.lock", 1, NULL, &b, NULL, 0), 0);
    assert_int_equal(pfs_lock_drop(at, "pfsbench.x.lock", &b, 1), 0);
    assert_int_equal(faccessat(at, "pfsbench.x.lock", F_OK, 0), -1);
    /* something else under the name: refused, left as it is */
    assert_int_equal(mkfifoat(at, "pfsbench.y.lock", 0644), 0);
    assert_int_equal(pfs_lock_take(at, "pfsbench.y.lock", 1, NULL, &b, NULL, 0), PFS_ERR_NOTREG);
    assert_int_equal(symlinkat("aside", at, "pfsbench.z.lock"), 0);
    assert_int_equal(pfs_lock_take(at, "pfsbench.z.lock", 1, NULL, &b, NULL, 0), PFS_ERR_NOTREG);
    close(at);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_dir_swapped, setup, teardown),
        cmocka_unit_test_setup_teardown(test_beneath, setup, teardown),
        cmocka_unit_test_setup_teardown(test_beneath_without_openat2, setup, teardown),
        cmocka_unit_test_setup_teardown(test_lock, setup, teardown),
        cmocka_unit_test_setup_teardown(test_symlink_swap, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rename_over, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fifo, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
