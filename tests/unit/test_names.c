/* The names of pfsbench's files: format then parse gives back the parts;
 * near-misses of every kind are refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "pfs/config.h"
#include "pfs/names.h"

static void test_run_ids(void **state)
{
    (void)state;
    char longest[PFS_RUN_ID_MAX], too_long[PFS_RUN_ID_MAX + 1];
    memset(longest, 'a', sizeof(longest) - 1);
    longest[sizeof(longest) - 1] = '\0';
    memset(too_long, 'b', sizeof(too_long) - 1);
    too_long[sizeof(too_long) - 1] = '\0';
    static const char *good[] = {"a", "Z", "0", "-", "_", "20240102-030405-abcdef", "run_1-X"};
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
        assert_true(pfs_run_id_valid(good[i]));
    assert_true(pfs_run_id_valid(longest));
    static const char *bad[] = {"", "a.b", "a/b", "a b", "a\n", "\xc3\xa9", "a*", ".", ".."};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        if (pfs_run_id_valid(bad[i]))
            fail_msg("run id '%s' was accepted", bad[i]);
    assert_false(pfs_run_id_valid(too_long));
    assert_false(pfs_run_id_valid(NULL));
    for (int c = 0; c < 256; c++) {
        int want = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
        assert_int_equal(pfs_run_id_char(c), want);
    }
}

static void test_format(void **state)
{
    (void)state;
    char b[256];
    assert_int_equal(pfs_name_data(b, sizeof(b), "/d", "ID", 0, 7), 0);
    assert_string_equal(b, "/d/pfsbench.ID.7");
    assert_int_equal(pfs_name_data(b, sizeof(b), "/d", "ID", 1, 7), 0);
    assert_string_equal(b, "/d/pfsbench.ID.shared");
    assert_int_equal(pfs_name_data(b, sizeof(b), NULL, "ID", 0, 0), 0);
    assert_string_equal(b, "pfsbench.ID.0");
    assert_int_equal(pfs_name_lock(b, sizeof(b), "/d", "ID"), 0);
    assert_string_equal(b, "/d/pfsbench.ID.lock");
    assert_int_equal(pfs_name_md_top(b, sizeof(b), "/d", "ID"), 0);
    assert_string_equal(b, "/d/pfsbench.ID.md");
    assert_int_equal(pfs_name_kept(b, sizeof(b), "/d", "ID"), 0);
    assert_string_equal(b, "/d/pfsbench.ID.kept");
    assert_int_equal(pfs_name_kept(b, sizeof(b), "/d", "a/b"), -1);
    assert_int_equal(pfs_name_md_subdir(b, sizeof(b), "/d/pfsbench.ID.md", 12), 0);
    assert_string_equal(b, "/d/pfsbench.ID.md/s12");
    assert_int_equal(pfs_name_md_file(b, sizeof(b), "/d/pfsbench.ID.md/s12", 12, UINT64_MAX), 0);
    assert_string_equal(b, "/d/pfsbench.ID.md/s12/f.12.18446744073709551615");
    /* Refused: a bad run id, a negative number, a name that does not fit. */
    assert_int_equal(pfs_name_data(b, sizeof(b), "/d", "a.b", 0, 1), -1);
    assert_string_equal(b, "");
    assert_int_equal(pfs_name_data(b, sizeof(b), "/d", "ID", 0, -1), -1);
    assert_int_equal(pfs_name_lock(b, sizeof(b), "/d", ""), -1);
    assert_int_equal(pfs_name_md_top(b, sizeof(b), "/d", NULL), -1);
    assert_int_equal(pfs_name_md_subdir(b, sizeof(b), "/d", -3), -1);
    assert_int_equal(pfs_name_md_file(b, sizeof(b), "/d", -1, 0), -1);
    char small[10];
    assert_int_equal(pfs_name_lock(small, sizeof(small), "/d", "ID"), -1);
    assert_int_equal(strlen(small), sizeof(small) - 1);
}

/* Format each kind from parts, parse the bare name back. */
static void test_round_trip(void **state)
{
    (void)state;
    static const char *ids[] = {"x", "20240102-030405-abcdef", "A_b-9", "lock", "md", "shared", "0"};
    static const int streams[] = {0, 1, 9, 10, 99, 12345, 2147483647};
    static const uint64_t idx[] = {0, 1, 10, 999, 18446744073709551615ULL};
    char b[256];
    struct pfs_name n;
    for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
        for (size_t s = 0; s < sizeof(streams) / sizeof(streams[0]); s++) {
            assert_int_equal(pfs_name_data(b, sizeof(b), NULL, ids[i], 0, streams[s]), 0);
            assert_int_equal(pfs_name_parse(b, &n), PFS_NAME_DATA);
            assert_string_equal(n.run_id, ids[i]);
            assert_int_equal(n.stream, streams[s]);
            assert_true(pfs_is_leftover_name(b));
        }
        assert_int_equal(pfs_name_data(b, sizeof(b), NULL, ids[i], 1, 0), 0);
        assert_int_equal(pfs_name_parse(b, &n), PFS_NAME_SHARED);
        assert_string_equal(n.run_id, ids[i]);
        assert_int_equal(n.stream, -1);
        assert_true(pfs_is_leftover_name(b));
        assert_int_equal(pfs_name_lock(b, sizeof(b), NULL, ids[i]), 0);
        assert_int_equal(pfs_name_parse(b, &n), PFS_NAME_LOCK);
        assert_string_equal(n.run_id, ids[i]);
        assert_true(pfs_is_leftover_name(b));
        assert_int_equal(pfs_name_md_top(b, sizeof(b), NULL, ids[i]), 0);
        assert_int_equal(pfs_name_parse(b, &n), PFS_NAME_MD_TOP);
        assert_string_equal(n.run_id, ids[i]);
        assert_false(pfs_is_leftover_name(b)); /* a directory: --clean walks it on its own */
        assert_int_equal(pfs_name_kept(b, sizeof(b), NULL, ids[i]), 0);
        assert_int_equal(pfs_name_parse(b, &n), PFS_NAME_KEPT);
        assert_string_equal(n.run_id, ids[i]);
        assert_true(pfs_is_leftover_name(b)); /* --clean removes it with the data files */
        assert_int_equal(pfs_name_ckpt(b, sizeof(b), NULL, ids[i], 18446744073709551615ull), 0);
        assert_int_equal(pfs_name_parse(b, &n), PFS_NAME_CKPT);
        assert_string_equal(n.run_id, ids[i]);
        assert_true(n.index == 18446744073709551615ull);
        assert_true(pfs_is_leftover_name(b)); /* a checkpoint file: --clean removes it too */
        assert_int_equal(pfs_name_train(b, sizeof(b), NULL, ids[i], 18446744073709551615ull), 0);
        assert_int_equal(pfs_name_parse(b, &n), PFS_NAME_TRAIN);
        assert_string_equal(n.run_id, ids[i]);
        assert_true(n.index == 18446744073709551615ull);
        assert_true(pfs_is_leftover_name(b)); /* a training data set's file: --clean removes it too */
    }
    assert_int_equal(pfs_name_ckpt(b, sizeof(b), "/d", "ID", 7), 0);
    assert_string_equal(b, "/d/pfsbench.ID.ckpt.7");
    assert_int_equal(pfs_name_train(b, sizeof(b), "/d", "ID", 7), 0);
    assert_string_equal(b, "/d/pfsbench.ID.train.7");
    assert_int_equal(pfs_name_parse("pfsbench.ID.train.", &n), PFS_NAME_NONE);
    assert_int_equal(pfs_name_parse("pfsbench.ID.train.1x", &n), PFS_NAME_NONE);
    for (size_t s = 0; s < sizeof(streams) / sizeof(streams[0]); s++) {
        assert_int_equal(pfs_name_md_subdir(b, sizeof(b), NULL, streams[s]), 0);
        assert_int_equal(pfs_name_parse(b, &n), PFS_NAME_MD_SUBDIR);
        assert_int_equal(n.stream, streams[s]);
        assert_string_equal(n.run_id, "");
        for (size_t k = 0; k < sizeof(idx) / sizeof(idx[0]); k++) {
            assert_int_equal(pfs_name_md_file(b, sizeof(b), NULL, streams[s], idx[k]), 0);
            assert_int_equal(pfs_name_parse(b, &n), PFS_NAME_MD_FILE);
            assert_int_equal(n.stream, streams[s]);
            assert_true(n.index == idx[k]);
            assert_false(pfs_is_leftover_name(b));
        }
    }
    assert_int_equal(pfs_name_parse("pfsbench.a.1", NULL), PFS_NAME_DATA); /* out may be NULL */
}

/* Names a formatter could not have written. */
static void test_near_misses(void **state)
{
    (void)state;
    char too_long[128];
    snprintf(too_long, sizeof(too_long), "pfsbench.%0*d.1", PFS_RUN_ID_MAX, 0);
    const char *bad[] = {
        "", "pfsbench", "pfsbench.", "pfsbench..1", "pfsbench.a", "pfsbench.a.", "pfsbench.a.01", "pfsbench.a.00",
        "pfsbench.a.+1", "pfsbench.a.-1", "pfsbench.a. 1", "pfsbench.a.1 ", "pfsbench.a.1x", "pfsbench.a.2147483648",
        "pfsbench.a.99999999999999999999", "pfsbench.a.sharedx", "pfsbench.a.Shared", "pfsbench.a.lock.tmp",
        "pfsbench.a.md/", "pfsbench.a.md.1", "pfsbench.a.kept.1", "pfsbench.a.ckpt", "pfsbench.a.ckpt.", "pfsbench.a.ckpt.01", "pfsbench.a.ckpt.1x",
        "pfsbench.a.ckpt.18446744073709551616", "pfsbench.a.Ckpt.1", "pfsbench.a.Kept", "pfsbench.a.keep", "pfsbench.a.b.1", "pfsbench.a b.1", "pfsbench.\xc3\xa9.1", "Pfsbench.a.1",
        "xpfsbench.a.1", "pfsbench-a.1", "s", "s01", "s-1", "s+1", "s1x", "S1", "s2147483648", "f.", "f.1", "f.1.",
        "f..1", "f.01.1", "f.1.01", "f.1.1.1", "f.-1.1", "f.1.-1", "f.1.18446744073709551616", "f.2147483648.0",
        "F.1.1", "f.1.1 ", ".lock", "pfsbench.a.lock\n", too_long,
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct pfs_name n;
        n.stream = 42;
        if (pfs_name_parse(bad[i], &n) != PFS_NAME_NONE)
            fail_msg("'%s' was parsed as kind %d", bad[i], (int)n.kind);
        assert_int_equal(n.kind, PFS_NAME_NONE);
        assert_int_equal(n.stream, -1);
        assert_string_equal(n.run_id, "");
        assert_false(pfs_is_leftover_name(bad[i]));
    }
    assert_int_equal(pfs_name_parse(NULL, NULL), PFS_NAME_NONE);
}

/* --file-name's data files: IOR's names (PATH, PATH.%08d), and PATH's parts. */
static void test_user_names(void **state)
{
    (void)state;
    char b[64], d[32], f[32];
    assert_int_equal(pfs_name_user(b, sizeof(b), "/scratch", "f", 1, 3, -1), 0);
    assert_string_equal(b, "/scratch/f");
    assert_int_equal(pfs_name_user(b, sizeof(b), "/scratch", "g", 0, 0, -1), 0);
    assert_string_equal(b, "/scratch/g.00000000");
    assert_int_equal(pfs_name_user(b, sizeof(b), "/scratch", "g", 0, 1, -1), 0);
    assert_string_equal(b, "/scratch/g.00000001");
    assert_int_equal(pfs_name_user(b, sizeof(b), NULL, "g", 0, 123456789, -1), 0);
    assert_string_equal(b, "g.123456789"); /* past 8 digits, as IOR's %08d */
    assert_int_equal(pfs_name_user(b, sizeof(b), "/d", "g", 0, -1, -1), -1);
    assert_int_equal(pfs_name_user(b, sizeof(b), "/d", "a/g", 1, 0, -1), -1);
    assert_int_equal(pfs_name_user(b, sizeof(b), "/d", "", 1, 0, -1), -1);
    assert_int_equal(pfs_name_user(b, 12, "/d", "gg", 0, 0, -1), -1); /* "/d/gg.00000000" does not fit */
    /* --file-per-rep (IOR's -m): the repetition after the stream's number. */
    assert_int_equal(pfs_name_user(b, sizeof(b), "/s", "f", 1, 0, 0), 0);
    assert_string_equal(b, "/s/f.0");
    assert_int_equal(pfs_name_user(b, sizeof(b), "/s", "g", 0, 1, 12), 0);
    assert_string_equal(b, "/s/g.00000001.12");
    assert_int_equal(pfs_name_user(b, sizeof(b), "/s", "g", 0, 1, -2), -1);
    /* A user's name is not one of pfsbench's: --clean never lists it. */
    assert_int_equal(pfs_name_parse("g.00000000", NULL), PFS_NAME_NONE);

    const char *cases[][3] = {{"/scratch/f", "/scratch", "f"}, {"f", ".", "f"}, {"/f", "/", "f"},
                              {"a/b/f.h", "a/b", "f.h"}, {"a//f", "a", "f"}, {"./f", ".", "f"}};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        assert_int_equal(pfs_name_split(cases[i][0], d, sizeof(d), f, sizeof(f)), 0);
        assert_string_equal(d, cases[i][1]);
        assert_string_equal(f, cases[i][2]);
    }
    const char *bad[] = {"", "/", "a/", "a/.", "a/..", ".", ".."};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        assert_int_equal(pfs_name_split(bad[i], d, sizeof(d), f, sizeof(f)), -1);
    assert_int_equal(pfs_name_split(NULL, d, sizeof(d), f, sizeof(f)), -1);
    assert_int_equal(pfs_name_split("/scratch/f", d, 4, f, sizeof(f)), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_run_ids),
        cmocka_unit_test(test_format),
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_near_misses),
        cmocka_unit_test(test_user_names),
    };
    return cmocka_run_group_tests_name("names", tests, NULL, NULL);
}
