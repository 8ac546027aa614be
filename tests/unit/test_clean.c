/* --clean's look at a dead run's objects (pfs_clean_with): the token its
 * lock file's objects line names reaches the backend's look, the lock goes
 * only after every marked object went, and is kept (the proof) when one
 * failed, when the look failed, or when --api names no such backend. The
 * backend here is a table of objects in memory: the pool's side is
 * test_ceph_rados's. */
#define _GNU_SOURCE
#include <fcntl.h>
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

#include "pfs/clean.h"

/* What the look was asked and what it answers. */
struct look {
    char run_id[64];
    uint64_t token;
    int calls, remove;
    int marked;    /* objects it says carry the token */
    int fail_rm;   /* removals it says failed */
    int fail_list; /* the listing fails */
};

static int look_run(void *arg, const char *run_id, uint64_t token, int remove, FILE *out, int *failed, char *err,
                    size_t len)
{
    struct look *l = arg;
    snprintf(l->run_id, sizeof(l->run_id), "%s", run_id);
    l->token = token;
    l->calls++;
    l->remove = remove;
    fprintf(out, "looked at %s\n", run_id);
    if (l->fail_list) {
        snprintf(err, len, "listing: Connection refused");
        return -1;
    }
    *failed += l->fail_rm;
    return l->marked;
}

static char dir[64];

static void put(const char *name, const char *text)
{
    char p[128];
    snprintf(p, sizeof(p), "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static int there(const char *name)
{
    char p[128];
    struct stat st;
    snprintf(p, sizeof(p), "%s/%s", dir, name);
    return lstat(p, &st) == 0;
}

/* pfs_clean_with over dir; its output in out (a buffer). */
static int clean(const struct pfs_clean_objects *objs, int remove, char *out, size_t len)
{
    char err[256] = "";
    FILE *f = fmemopen(out, len, "w");
    assert_non_null(f);
    int rc = pfs_clean_with(dir, NULL, remove, 0, objs, f, err, sizeof(err));
    fclose(f);
    return rc;
}

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof(dir), "/tmp/pfs_clean.XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static void test_token_reaches_the_look(void **state)
{
    (void)state;
    char out[4096];
    struct look l = {.marked = 2};
    const struct pfs_clean_objects objs = {"rados", look_run, &l};
    put("pfsbench.kl.lock", "node1 4242\nobjects rados 00000000deadbeef\n");
    /* Listing: the look is asked, nothing removed, the lock stays. */
    assert_int_equal(clean(&objs, 0, out, sizeof(out)), 3);
    assert_int_equal(l.calls, 1);
    assert_string_equal(l.run_id, "kl");
    assert_true(l.token == 0xdeadbeefULL);
    assert_int_equal(l.remove, 0);
    assert_non_null(strstr(out, "2 pfsbench objects marked with its run's token; add --yes to remove them\n"));
    assert_true(there("pfsbench.kl.lock"));
    /* Removing: the objects first, then the lock. */
    assert_int_equal(clean(&objs, 1, out, sizeof(out)), 3);
    assert_int_equal(l.remove, 1);
    assert_non_null(strstr(out, "looked at kl\nremoved  "));
    assert_false(there("pfsbench.kl.lock"));
}

static void test_lock_kept_as_proof(void **state)
{
    (void)state;
    char out[4096];
    struct look l = {.marked = 1, .fail_rm = 1};
    const struct pfs_clean_objects objs = {"rados", look_run, &l};
    put("pfsbench.kf.lock", "node1 4242\nobjects rados 0123456789abcdef\n");
    /* A removal failed: the lock stays, and --clean fails. */
    assert_int_equal(clean(&objs, 1, out, sizeof(out)), -1);
    assert_non_null(strstr(out, "kept     "));
    assert_true(there("pfsbench.kf.lock"));
    /* The listing failed: the same. */
    l.fail_rm = 0, l.fail_list = 1;
    assert_int_equal(clean(&objs, 1, out, sizeof(out)), -1);
    assert_non_null(strstr(out, "FAILED   the objects of run kf: listing: Connection refused\n"));
    assert_true(there("pfsbench.kf.lock"));
    /* No --api rados (or another backend): kept, saying what to add; the look is not asked. */
    l.fail_list = 0, l.calls = 0;
    const struct pfs_clean_objects s3 = {"s3", look_run, &l};
    assert_int_equal(clean(&s3, 1, out, sizeof(out)), 0);
    assert_int_equal(clean(NULL, 1, out, sizeof(out)), 0);
    assert_int_equal(l.calls, 0);
    assert_non_null(strstr(out, "run kf's objects (--api rados) are looked at with --api rados and its options\n"));
    assert_true(there("pfsbench.kf.lock"));
    /* Once they go, the lock goes. */
    assert_int_equal(clean(&objs, 1, out, sizeof(out)), 2);
    assert_false(there("pfsbench.kf.lock"));
}

static void test_no_objects_line(void **state)
{
    (void)state;
    char out[4096];
    struct look l = {.marked = 5};
    const struct pfs_clean_objects objs = {"rados", look_run, &l};
    /* A posix run's lock, and a line that is not a token: no look, the lock goes as before. */
    put("pfsbench.px.lock", "node1 4242\n");
    put("pfsbench.bad.lock", "node1 4242\nobjects rados 12345\n");
    assert_int_equal(clean(&objs, 1, out, sizeof(out)), 2);
    assert_int_equal(l.calls, 0);
    assert_false(there("pfsbench.px.lock"));
    assert_false(there("pfsbench.bad.lock"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_token_reaches_the_look, setup, teardown),
        cmocka_unit_test_setup_teardown(test_lock_kept_as_proof, setup, teardown),
        cmocka_unit_test_setup_teardown(test_no_objects_line, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
