/* Acting only on this run's files: pfs_open_own, pfs_unlink_own and
 * pfs_fid_check_path against real files, links and FIFOs in a temp dir. */
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
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "pfs/safefile.h"

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
    /* a directory too */
    assert_int_equal(pfs_open_own(d->path, O_RDONLY, 0, NULL, NULL), PFS_ERR_NOTREG);
    /* and an existing name is never taken over by a create */
    assert_int_equal(pfs_open_own(f, O_WRONLY | O_CREAT | O_EXCL, 0644, NULL, NULL), -EEXIST);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_symlink_swap, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rename_over, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fifo, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
