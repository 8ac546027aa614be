/* --stonewall-file's format (IOR's stoneWallingStatusFile): the parser on
 * IOR's and pfsbench's own files and on hostile ones, and the file's
 * creation (never over a file) and reading, on real files. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "pfs/swfile.h"

static int parse(const char *text, size_t n, uint64_t *count)
{
    char err[256];
    *count = 777;
    return pfs_swfile_parse(text, n, count, err, sizeof(err));
}

static void test_parse_good(void **state)
{
    (void)state;
    uint64_t n;
    assert_int_equal(parse("279", 3, &n), 0); /* IOR's "%lld", no newline */
    assert_int_equal(n, 279);
    assert_int_equal(parse("279\n", 4, &n), 0); /* pfsbench's */
    assert_int_equal(n, 279);
    assert_int_equal(parse(" \t42 \r\n", 7, &n), 0);
    assert_int_equal(n, 42);
    assert_int_equal(parse("4611686018427387904", 19, &n), 0); /* 2^62, the most */
    assert_int_equal(n, UINT64_C(1) << 62);
    assert_int_equal(parse("123456", 2, &n), 0); /* only the n bytes given */
    assert_int_equal(n, 12);
}

static void test_parse_hostile(void **state)
{
    (void)state;
    static const char *const bad[] = {"",    " \n",  "-5",   "+5",   "0",    "00\n", "12abc", "1 2",
                                      "0x10", "1e3", "1.5",  "abc",  "4611686018427387905",
                                      "99999999999999999999999999"};
    uint64_t n;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        assert_int_equal(parse(bad[i], strlen(bad[i]), &n), -1);
        assert_int_equal(n, 777); /* untouched */
    }
    assert_int_equal(parse("1\0" "2", 3, &n), -1); /* a NUL inside */
    assert_int_equal(parse("12\0", 3, &n), -1);
    char err[256];
    assert_int_equal(pfs_swfile_parse("7 8", 3, &n, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "more than one decimal number"));
}

static void test_format(void **state)
{
    (void)state;
    char buf[PFS_SWFILE_MAX];
    uint64_t n;
    assert_int_equal(pfs_swfile_format(buf, sizeof(buf), 279), 4);
    assert_string_equal(buf, "279\n");
    assert_int_equal(parse(buf, strlen(buf), &n), 0);
    assert_int_equal(n, 279);
    assert_int_equal(pfs_swfile_format(buf, 4, 279), -1); /* no room for the NUL */
}

static void test_files(void **state)
{
    (void)state;
    char dir[] = "/tmp/pfs_swfile_XXXXXX", path[256], link[256], big[256], err[512];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/sw", dir);
    snprintf(link, sizeof(link), "%s/link", dir);
    snprintf(big, sizeof(big), "%s/big", dir);
    uint64_t n = 0;
    assert_int_equal(pfs_swfile_read(path, &n, err, sizeof(err)), -1); /* not there */
    assert_int_equal(pfs_swfile_absent(path, err, sizeof(err)), 0);
    assert_int_equal(pfs_swfile_write(path, 1234, err, sizeof(err)), 0);
    assert_int_equal(pfs_swfile_read(path, &n, err, sizeof(err)), 0);
    assert_int_equal(n, 1234);
    /* Never over a file: refused before the run, and at the write itself. */
    assert_int_equal(pfs_swfile_absent(path, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "already there"));
    assert_int_equal(pfs_swfile_write(path, 5, err, sizeof(err)), -1);
    assert_int_equal(pfs_swfile_read(path, &n, err, sizeof(err)), 0);
    assert_int_equal(n, 1234);
    /* A link is neither followed to be read nor written through. */
    assert_int_equal(symlink(path, link), 0);
    assert_int_equal(pfs_swfile_read(link, &n, err, sizeof(err)), -1);
    assert_int_equal(pfs_swfile_write(link, 5, err, sizeof(err)), -1);
    assert_int_equal(pfs_swfile_read(path, &n, err, sizeof(err)), 0);
    assert_int_equal(n, 1234);
    /* Larger than any status file: refused unread. */
    FILE *f = fopen(big, "w");
    assert_non_null(f);
    for (int i = 0; i < PFS_SWFILE_MAX + 1; i++)
        fputc(' ', f);
    fputs("5\n", f);
    fclose(f);
    assert_int_equal(pfs_swfile_read(big, &n, err, sizeof(err)), -1);
    /* A directory is not a status file. */
    assert_int_equal(pfs_swfile_read(dir, &n, err, sizeof(err)), -1);
    unlink(link);
    unlink(big);
    unlink(path);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_good),
        cmocka_unit_test(test_parse_hostile),
        cmocka_unit_test(test_format),
        cmocka_unit_test(test_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
