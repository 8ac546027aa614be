/* The backends (src/backends) in a plain process: the one mapping of
 * pfsbench's open flags to open(2)'s, held against the flags each backend
 * that opens with the POSIX calls really opened its file with (read back
 * from /proc/self/fdinfo). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "pfs/backend.h"
#include "pfs/config.h"

/* ---- a temp directory per test ---- */

struct dir {
    char path[64];
    int fd;
};

static int dir_setup(void **state)
{
    struct dir *d = calloc(1, sizeof(*d));
    assert_non_null(d);
    snprintf(d->path, sizeof(d->path), "/tmp/pfs-test-backends-XXXXXX");
    assert_non_null(mkdtemp(d->path));
    d->fd = open(d->path, O_RDONLY | O_DIRECTORY);
    assert_true(d->fd >= 0);
    *state = d;
    return 0;
}

static int dir_teardown(void **state)
{
    struct dir *d = *state;
    DIR *dh = opendir(d->path);
    for (struct dirent *e; dh && (e = readdir(dh));)
        if (e->d_name[0] != '.')
            unlinkat(d->fd, e->d_name, 0);
    if (dh)
        closedir(dh);
    close(d->fd);
    rmdir(d->path);
    free(d);
    return 0;
}

/* ---- the open-flag mapping ---- */

static void test_open_flags_table(void **state)
{
    (void)state;
    static const struct {
        unsigned in;
        int want;
    } rows[] = {
        {PFS_OPEN_READ, O_RDONLY},
        {PFS_OPEN_WRITE, O_WRONLY},
        {PFS_OPEN_READ | PFS_OPEN_WRITE, O_RDWR},
        {PFS_OPEN_WRITE | PFS_OPEN_CREATE, O_WRONLY | O_CREAT | O_EXCL},
        {PFS_OPEN_WRITE | PFS_OPEN_TRUNC, O_WRONLY | O_TRUNC},
        {PFS_OPEN_READ | PFS_OPEN_DIRECT, O_RDONLY | O_DIRECT},
        {PFS_OPEN_WRITE | PFS_OPEN_DSYNC, O_WRONLY | O_DSYNC},
        {PFS_OPEN_WRITE | PFS_OPEN_SYNC, O_WRONLY | O_SYNC},
        {PFS_OPEN_WRITE | PFS_OPEN_SYNC | PFS_OPEN_DSYNC, O_WRONLY | O_SYNC}, /* O_SYNC includes O_DSYNC */
        {PFS_OPEN_READ | PFS_OPEN_SHARED, O_RDONLY},
        {PFS_OPEN_WRITE | PFS_OPEN_CREATE | PFS_OPEN_DIRECT | PFS_OPEN_DSYNC | PFS_OPEN_SHARED,
         O_WRONLY | O_CREAT | O_EXCL | O_DIRECT | O_DSYNC},
    };
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
        assert_int_equal(pfs_open_flags(rows[i].in), rows[i].want);
}

/* The status flags of the open descriptor of name in d (fdinfo's octal
 * "flags:"), or -1 when this process holds none. */
static int flags_of_open(const struct dir *d, const char *name)
{
    char want[256], link[256], path[300];
    snprintf(want, sizeof(want), "%s/%s", d->path, name);
    DIR *dh = opendir("/proc/self/fd");
    int flags = -1;
    for (struct dirent *e; dh && flags < 0 && (e = readdir(dh));) {
        snprintf(path, sizeof(path), "/proc/self/fd/%s", e->d_name);
        ssize_t n = readlink(path, link, sizeof(link) - 1);
        if (n <= 0)
            continue;
        link[n] = '\0';
        if (strcmp(link, want) != 0)
            continue;
        snprintf(path, sizeof(path), "/proc/self/fdinfo/%s", e->d_name);
        FILE *f = fopen(path, "r");
        char line[128];
        while (f && fgets(line, sizeof(line), f))
            if (sscanf(line, "flags: %o", (unsigned *)&flags) == 1)
                break;
        if (f)
            fclose(f);
    }
    if (dh)
        closedir(dh);
    return flags;
}

/* What open(2)'s status flags keep of a mapping: the access mode and the
 * synchronous and direct flags (O_CREAT, O_EXCL and O_TRUNC act at open). */
#define KEPT (O_ACCMODE | O_SYNC | O_DSYNC | O_DIRECT)

/* Each backend that opens with the POSIX calls opens as the mapping says:
 * a write opened O_DSYNC or O_SYNC (--sync) where it takes them, a read
 * read-only; mmap's write read-write (its shared mapping needs it). */
static void test_backends_open_as_mapped(void **state)
{
    struct dir *d = *state;
    static const char *const names[] = {"posix", "uring", "stdio", "mmap", "aio"};
    static unsigned char page[4096];
    struct pfs_config cfg;
    pfs_config_defaults(&cfg);
    cfg.block = cfg.transfer = sizeof(page);
    int tried = 0;
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        const struct pfs_backend *be = pfs_backend_find(names[i]);
        if (!be) /* a backend this build has not (its build switch) */
            continue;
        char err[256];
        void *ctx = NULL;
        assert_int_equal(pfs_backend_init(be, &ctx, &cfg, NULL, err, sizeof(err)), 0);
        unsigned sync = (be->caps & PFS_CAP_OSYNC) ? PFS_OPEN_DSYNC : 0;
        const struct {
            unsigned flags;
        } opens[] = {{PFS_OPEN_WRITE | PFS_OPEN_CREATE | sync}, {PFS_OPEN_READ}, {PFS_OPEN_READ | PFS_OPEN_WRITE | PFS_OPEN_SYNC}};
        struct pfs_fid made = {0, 0};
        for (size_t k = 0; k < 3; k++) {
            unsigned fl = opens[k].flags;
            if ((fl & PFS_OPEN_SYNC) && !(be->caps & PFS_CAP_OSYNC))
                continue;
            void *fh = NULL;
            assert_int_equal(be->open(ctx, d->fd, names[i], fl, k ? &made : NULL, k ? NULL : &made, &fh), 0);
            int want = pfs_open_flags(strcmp(names[i], "mmap") == 0 && (fl & PFS_OPEN_WRITE) ? fl | PFS_OPEN_READ : fl);
            int got = flags_of_open(d, names[i]);
            if ((got & KEPT) != (want & KEPT))
                fail_msg("--api %s, open flags 0x%x: opened 0%o, the mapping says 0%o", names[i], fl, got & KEPT,
                         want & KEPT);
            if (k == 0) /* a write leaves the file the size later reads need */
                assert_int_equal(be->pwrite(fh, page, sizeof(page), 0), (int64_t)sizeof(page));
            assert_int_equal(be->close(fh), 0);
        }
        pfs_backend_fini(be, ctx);
        tried++;
    }
    assert_true(tried >= 3); /* posix, stdio and mmap are always built */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_open_flags_table),
        cmocka_unit_test_setup_teardown(test_backends_open_as_mapped, dir_setup, dir_teardown),
    };
    return cmocka_run_group_tests_name("backends", tests, NULL, NULL);
}
