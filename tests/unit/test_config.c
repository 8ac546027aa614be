/* Option parsing and validation: sizes, a table of bad inputs, resolution. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "pfs/config.h"

static void test_sizes(void **state)
{
    (void)state;
    static const struct { const char *in; uint64_t want; } good[] = {
        {"1", 1}, {"512", 512}, {"4k", 4096}, {"4K", 4096}, {"1m", 1 << 20}, {"16M", 16 << 20},
        {"1g", 1ULL << 30}, {"2G", 2ULL << 30}, {"1t", 1ULL << 40}, {"8T", 8ULL << 40},
    };
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
        uint64_t v = 0;
        assert_int_equal(pfs_parse_size(good[i].in, &v), 0);
        assert_true(v == good[i].want);
    }
    static const char *badv[] = {"", "0", "0k", "-1", "+1", "1mb", "1 m", " 1m", "1m ", "1.5g", "m", "k1",
                                 "1kk", "99999999t", "18446744073709551616", "1e6", "0x10", "1p", "1i"};
    for (size_t i = 0; i < sizeof(badv) / sizeof(badv[0]); i++) {
        uint64_t v = 0;
        if (pfs_parse_size(badv[i], &v) == 0)
            fail_msg("size '%s' was accepted as %llu", badv[i], (unsigned long long)v);
    }
}

static void test_format_size(void **state)
{
    (void)state;
    char b[32];
    pfs_format_size(256ULL << 20, b, sizeof(b));
    assert_string_equal(b, "256 MiB");
    pfs_format_size(1536, b, sizeof(b));
    assert_string_equal(b, "1536 B");
    pfs_format_size(3 << 10, b, sizeof(b));
    assert_string_equal(b, "3 KiB");
}

static enum pfs_parse_result parse(struct pfs_config *cfg, char *err, const char *line)
{
    char buf[1024];
    char *argv[64];
    int argc = 0;
    snprintf(buf, sizeof(buf), "pfsbench|%s", line);
    /* split on '|' so that values may hold spaces */
    char *save = NULL;
    for (char *tok = strtok_r(buf, "|", &save); tok && argc < 63; tok = strtok_r(NULL, "|", &save))
        argv[argc++] = tok;
    argv[argc] = NULL;
    return pfs_config_parse(cfg, argc, argv, err, PFS_ERRLEN);
}

/* Arguments are separated by '|'. Each must fail with a message holding 'want'. */
static const struct { const char *args; const char *want; } bad_cases[] = {
    {"", "no target directory"},
    {"-t|1m", "no target directory"},
    {"-d", "needs a value"},
    {"-d|/tmp|-t", "needs a value"},
    {"-d|/tmp|-b", "needs a value"},
    {"-d|/tmp|--total", "needs a value"},
    {"-d|/tmp|-p", "needs a value"},
    {"-d|/tmp|-i", "needs a value"},
    {"-d|/tmp|-D", "needs a value"},
    {"-d|/tmp|-o", "needs a value"},
    {"-d|/tmp|--label", "needs a value"},
    {"-d|/tmp|--api", "needs a value"},
    {"-d|/tmp|--hint", "needs a value"},
    {"-d|/tmp|--layout", "needs a value"},
    {"-d|/tmp|--straggler", "needs a value"},
    {"-d|/tmp|-t|0", "not a size"},
    {"-d|/tmp|-t|-1m", "not a size"},
    {"-d|/tmp|-t|abc", "not a size"},
    {"-d|/tmp|-t|1mb", "not a size"},
    {"-d|/tmp|-t|1 m", "not a size"},
    {"-d|/tmp|-t|1.5m", "not a size"},
    {"-d|/tmp|-b|99999999t", "not a size"},
    {"-d|/tmp|-b|0", "not a size"},
    {"-d|/tmp|--total|0", "not a size"},
    {"-d|/tmp|--total|1x", "not a size"},
    {"-d|/tmp|-i|0", "whole number"},
    {"-d|/tmp|-i|-3", "whole number"},
    {"-d|/tmp|-i|two", "whole number"},
    {"-d|/tmp|-i|99999999999", "whole number"},
    {"-d|/tmp|-i|2.5", "whole number"},
    {"-d|/tmp|-D|0", "not a number"},
    {"-d|/tmp|-D|-5", "not a number"},
    {"-d|/tmp|-D|soon", "not a number"},
    {"-d|/tmp|-D|nan", "not a number"},
    {"-d|/tmp|--straggler|2", "not a number"},
    {"-d|/tmp|-p|write,sing", "unknown phase 'sing'"},
    {"-d|/tmp|--phases=", "empty phase"},
    {"-d|/tmp|--label=", "empty value"},
    {"-d|/tmp|-p|write,,read", "empty phase"},
    {"-d|/tmp|-p|write,", "empty phase"},
    {"-d|/tmp|-p|read", "--run-id"},
    {"-d|/tmp|-p|read,write", "read comes before the first write"},
    {"-d|/tmp|-p|rewrite", "--run-id"},
    {"-d|/tmp|--total|1g|-b|1m", "both given"},
    {"-d|/tmp|--api|hdf5", "not one of posix|mpiio"},
    {"-d|/tmp|--layout|diagonal", "not one of segmented|strided"},
    {"-d|/tmp|--layout|strided", "needs --shared"},
    {"-d|/tmp|--collective", "needs --api mpiio"},
    {"-d|/tmp|--hint|a=b", "needs --api mpiio"},
    {"-d|/tmp|--api|mpiio|--hint|novalue", "not key=value"},
    {"-d|/tmp|--api|mpiio|--hint|=x", "not key=value"},
    {"-d|/tmp|--no-results|-o|x.h5", "both given"},
    {"-d|/tmp|--run-id|a/b", "may hold only"},
    {"-d|/tmp|--bogus", "unknown option '--bogus'"},
    {"-d|/tmp|--keep=1", "option '--keep' takes no value"},
    {"-d|/tmp|-Z", "unknown option '-Z'"},
    {"-d|/tmp|extra", "unexpected argument 'extra'"},
};

static void test_bad_inputs(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
        struct pfs_config cfg;
        char err[PFS_ERRLEN];
        enum pfs_parse_result r = parse(&cfg, err, bad_cases[i].args);
        if (r != PFS_PARSE_ERROR)
            fail_msg("'%s' was accepted", bad_cases[i].args);
        if (!strstr(err, bad_cases[i].want))
            fail_msg("'%s': message '%s' lacks '%s'", bad_cases[i].args, err, bad_cases[i].want);
    }
    assert_true(sizeof(bad_cases) / sizeof(bad_cases[0]) >= 40);
}

static void test_good_parse(void **state)
{
    (void)state;
    struct pfs_config cfg;
    char err[PFS_ERRLEN];
    assert_int_equal(parse(&cfg, err, "-d|/tmp/x|-t|4k|-b|1m|-p|write,rewrite,read,reread|-i|3|-e|-k|--shared|"
                                      "--layout|strided|--verify|-D|2.5|-C|--label|a b"),
                     PFS_PARSE_RUN);
    assert_string_equal(cfg.dir, "/tmp/x");
    assert_true(cfg.transfer == 4096 && cfg.block == 1 << 20);
    assert_int_equal(cfg.nphases, 4);
    assert_int_equal(cfg.phases[3], PFS_PH_REREAD);
    assert_int_equal(cfg.reps, 3);
    assert_true(cfg.fsync && cfg.keep && cfg.shared && cfg.verify && cfg.reorder);
    assert_int_equal(cfg.layout, PFS_LAYOUT_STRIDED);
    assert_true(cfg.deadline == 2.5);
    assert_string_equal(cfg.label, "a b");
    /* defaults */
    assert_int_equal(parse(&cfg, err, "-d|/tmp"), PFS_PARSE_RUN);
    assert_true(cfg.transfer == 1 << 20 && cfg.block == 64 << 20 && cfg.reps == 1 && !cfg.shared);
    assert_int_equal(cfg.nphases, 2);
    assert_string_equal(cfg.results, "pfsbench-results.h5");
    assert_int_equal(parse(&cfg, err, "--help"), PFS_PARSE_HELP);
    assert_int_equal(parse(&cfg, err, "--version"), PFS_PARSE_VERSION);
    assert_int_equal(parse(&cfg, err, "-d|/tmp|-p|read|--run-id|abc-1"), PFS_PARSE_RUN);
}

static void test_resolve(void **state)
{
    (void)state;
    struct pfs_config cfg;
    char err[PFS_ERRLEN];
    assert_int_equal(parse(&cfg, err, "-d|/tmp|--total|64m|-t|1m"), PFS_PARSE_RUN);
    assert_int_equal(pfs_config_resolve(&cfg, 4, err, sizeof(err)), 0);
    assert_true(cfg.block == 16 << 20);
    assert_int_equal(parse(&cfg, err, "-d|/tmp|--total|64m|-t|1m"), PFS_PARSE_RUN);
    assert_int_equal(pfs_config_resolve(&cfg, 3, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "does not divide by 3 ranks"));
    assert_int_equal(parse(&cfg, err, "-d|/tmp|--total|64m|-t|1m"), PFS_PARSE_RUN);
    assert_int_equal(pfs_config_resolve(&cfg, 128, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "larger than the block"));
    assert_int_equal(parse(&cfg, err, "-d|/tmp|-b|3m|-t|2m"), PFS_PARSE_RUN);
    assert_int_equal(pfs_config_resolve(&cfg, 1, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "not a multiple of the transfer"));
    assert_int_equal(parse(&cfg, err, "-d|/tmp|-b|1m|-t|4m"), PFS_PARSE_RUN);
    assert_int_equal(pfs_config_resolve(&cfg, 1, err, sizeof(err)), -1);
    assert_int_equal(parse(&cfg, err, "-d|/tmp|-b|1t|-t|1m"), PFS_PARSE_RUN);
    assert_int_equal(pfs_config_resolve(&cfg, 1024, err, sizeof(err)), 0);
    assert_true(cfg.total == (1ULL << 50));
    assert_int_equal(parse(&cfg, err, "-d|/tmp|-b|8t|-t|1m"), PFS_PARSE_RUN);
    assert_int_equal(pfs_config_resolve(&cfg, 1 << 20, err, sizeof(err)), -1);
}

static void test_check_dir(void **state)
{
    (void)state;
    char tmpl[] = "/tmp/pfscfg.XXXXXX";
    assert_non_null(mkdtemp(tmpl));
    struct pfs_config cfg;
    char err[PFS_ERRLEN];
    pfs_config_defaults(&cfg);
    snprintf(cfg.dir, sizeof(cfg.dir), "%s", tmpl);
    assert_int_equal(pfs_config_check_dir(&cfg, err, sizeof(err)), 0);
    char p[256];
    snprintf(p, sizeof(p), "%s/missing", tmpl);
    snprintf(cfg.dir, sizeof(cfg.dir), "%s", p);
    assert_int_equal(pfs_config_check_dir(&cfg, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "does not exist"));
    snprintf(p, sizeof(p), "%s/file", tmpl);
    FILE *f = fopen(p, "w");
    fclose(f);
    snprintf(cfg.dir, sizeof(cfg.dir), "%s", p);
    assert_int_equal(pfs_config_check_dir(&cfg, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "not a directory"));
    char l[256];
    snprintf(l, sizeof(l), "%s/dangling", tmpl);
    assert_int_equal(symlink("/nonexistent/pfs", l), 0);
    snprintf(cfg.dir, sizeof(cfg.dir), "%s", l);
    assert_int_equal(pfs_config_check_dir(&cfg, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "dangling"));
    unlink(l);
    unlink(p);
    rmdir(tmpl);
}

static void test_describe(void **state)
{
    (void)state;
    struct pfs_config cfg;
    char err[PFS_ERRLEN], buf[4096];
    assert_int_equal(parse(&cfg, err, "-d|/tmp|-t|4k|-b|8k|-p|write,reread"), PFS_PARSE_RUN);
    size_t n = pfs_config_describe(&cfg, buf, sizeof(buf));
    assert_true(n < sizeof(buf));
    assert_non_null(strstr(buf, "transfer=4096\n"));
    assert_non_null(strstr(buf, "phases=write,reread\n"));
    /* a short buffer is never overrun and the needed size is still reported */
    char small[8];
    assert_int_equal(pfs_config_describe(&cfg, small, sizeof(small)), n);
    assert_int_equal(strlen(small), 7);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sizes),       cmocka_unit_test(test_format_size), cmocka_unit_test(test_bad_inputs),
        cmocka_unit_test(test_good_parse),  cmocka_unit_test(test_resolve),     cmocka_unit_test(test_check_dir),
        cmocka_unit_test(test_describe),
    };
    return cmocka_run_group_tests_name("config", tests, NULL, NULL);
}
