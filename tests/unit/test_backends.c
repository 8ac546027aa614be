/* The backends (src/backends) in a plain process: the one mapping of
 * pfsbench's open flags to open(2)'s, held against the flags each backend
 * that opens with the POSIX calls really opened its file with (read back
 * from /proc/self/fdinfo); each backend's option table as the generic
 * parser, describe and --help take it. */
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
#include "pfs/jobfile.h"

#include "../../src/core/config_table.h" /* every row, the core's and the backends' (pfs_opt_at) */

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

/* ---- each backend's own options ---- */

/* parse "-d /tmp" and the words of line (separated by '|'). */
static enum pfs_parse_result parse_line(struct pfs_config *cfg, char *err, const char *line)
{
    char buf[512], *argv[16] = {"pfsbench", "-d", "/tmp"};
    int argc = 3;
    snprintf(buf, sizeof(buf), "%s", line);
    for (char *save = NULL, *w = strtok_r(buf, "|", &save); w && argc < 15; w = strtok_r(NULL, "|", &save))
        argv[argc++] = w;
    argv[argc] = NULL;
    return pfs_config_parse(cfg, argc, argv, err, PFS_ERRLEN);
}

/* A value row o takes: its default, else one of its type. */
static const char *sample(const struct pfs_opt *o, char *buf, size_t len)
{
    const char *name = NULL;
    size_t n;
    if (o->def)
        return o->def;
    switch (o->type) {
    case PFS_OPT_SIZE: return "4k";
    case PFS_OPT_SIZE0: return "8k";
    case PFS_OPT_INT: snprintf(buf, len, "%.0f", o->max); return buf;
    case PFS_OPT_DOUBLE: snprintf(buf, len, "%g", o->max); return buf;
    case PFS_OPT_CHOICE:
        n = pfs_opt_choice_name(o->choices, 1, &name) ? pfs_opt_choice_name(o->choices, 1, &name)
                                                      : pfs_opt_choice_name(o->choices, 0, &name);
        snprintf(buf, len, "%.*s", (int)n, name);
        return buf;
    default: return "x";
    }
}

/* Every backend's rows can be filled by the parser, are reached with their
 * own --api (the value given is what describe says), and refused with any
 * other naming their owner; names, keys and places are unique over every
 * table; every row fits the parser's arrays. */
static void test_option_tables(void **state)
{
    (void)state;
    const struct pfs_opt *o, *p;
    int api, api2, owned = 0;
    assert_true(pfs_opt_total() <= PFS_OPT_MAX);
    for (size_t i = 0; (o = pfs_opt_at(i, &api)); i++) {
        for (size_t j = i + 1; (p = pfs_opt_at(j, &api2)); j++) {
            if (strcmp(o->name, p->name) == 0 || (o->key && p->key && strcmp(o->key, p->key) == 0 && o->pos && p->pos))
                fail_msg("--%s and --%s share a name or a describe key", o->name, p->name);
            if (o->key && p->key && o->pos && o->pos == p->pos)
                fail_msg("--%s and --%s are described at the same place %d", o->name, p->name, o->pos);
        }
        if (api < 0)
            continue;
        owned++;
        char err[PFS_ERRLEN], words[256], val[64], desc[8192];
        assert_int_equal(pfs_backend_options_valid(pfs_backend_options_of(api), err, sizeof(err)), 0);
        const char *v = sample(o, val, sizeof(val));
        if (o->type == PFS_OPT_FLAG)
            snprintf(words, sizeof(words), "-a|%s|--%s", pfs_backend_name(api), o->name);
        else
            snprintf(words, sizeof(words), "-a|%s|--%s|%s", pfs_backend_name(api), o->name, v);
        struct pfs_config cfg;
        if (parse_line(&cfg, err, words) != PFS_PARSE_RUN)
            fail_msg("%s: %s", words, err);
        if (o->key) {
            char want[300], got[128];
            pfs_config_describe(&cfg, desc, sizeof(desc));
            pfs_opt_value(o, pfs_config_backend_opts(&cfg), &cfg, got, sizeof(got));
            snprintf(want, sizeof(want), "\n%s=%s\n", o->key, got);
            assert_non_null(strstr(desc, want));
        }
        int other = api == 0 ? 2 : 0; /* posix, or null for posix's own */
        snprintf(words, sizeof(words), "-a|%s|--%s%s%s", pfs_backend_name(other), o->name,
                 o->type == PFS_OPT_FLAG ? "" : "|", o->type == PFS_OPT_FLAG ? "" : v);
        assert_int_equal(parse_line(&cfg, err, words), PFS_PARSE_ERROR);
        char want[256];
        snprintf(want, sizeof(want), "--%s is an option of --api %s (not available with --api %s)", o->name,
                 pfs_backend_name(api), pfs_backend_name(other));
        assert_string_equal(err, want);
    }
    assert_true(owned >= 4); /* hdf5's, in the core though the backend is a module */
}

/* The options a backend owns are its, in its own struct: chosen, the
 * given values; another --api keeps the defaults of every backend's rows
 * (describe stores them all, 0 when unused). */
static void test_option_values(void **state)
{
    (void)state;
    struct pfs_config cfg;
    char err[PFS_ERRLEN], desc[8192];
    assert_int_equal(parse_line(&cfg, err, "-a|hdf5|--hdf5-chunk|1m|--hdf5-coll-metadata"), PFS_PARSE_RUN);
    int api;
    const struct pfs_opt *chunk = pfs_opt_find("hdf5-chunk", &api), *coll = pfs_opt_find("hdf5-coll-metadata", &api);
    assert_non_null(chunk);
    assert_int_equal(api, pfs_backend_index("hdf5"));
    uint64_t c;
    int m;
    memcpy(&c, (const char *)pfs_config_backend_opts(&cfg) + chunk->off, sizeof(c));
    memcpy(&m, (const char *)pfs_config_backend_opts(&cfg) + coll->off, sizeof(m));
    assert_true(c == 1u << 20 && m == 1);
    /* the last value given wins, as for the core's options */
    assert_int_equal(parse_line(&cfg, err, "--hdf5-chunk|4k|-a|hdf5|--hdf5-chunk|8k"), PFS_PARSE_RUN);
    memcpy(&c, (const char *)pfs_config_backend_opts(&cfg) + chunk->off, sizeof(c));
    assert_true(c == 8192);
    /* a bad value is told as the core's are */
    assert_int_equal(parse_line(&cfg, err, "-a|hdf5|--hdf5-chunk|1x"), PFS_PARSE_ERROR);
    assert_non_null(strstr(err, "--hdf5-chunk: '1x' is not a size"));
    /* a typo of a backend's option is near it */
    assert_int_equal(parse_line(&cfg, err, "-a|hdf5|--hdf5-chnk|1m"), PFS_PARSE_ERROR);
    assert_non_null(strstr(err, "did you mean --hdf5-chunk?"));
    assert_int_equal(parse_line(&cfg, err, "-a|posix"), PFS_PARSE_RUN);
    pfs_config_describe(&cfg, desc, sizeof(desc));
    assert_non_null(strstr(desc, "\nhdf5_chunk=0\nhdf5_align=0\nhdf5_mdc_size=0\nhdf5_coll_metadata=0\n"));
}

/* A job file takes a backend's options by their long names, as it takes
 * the core's, and checks them against the section's --api. */
static void test_option_in_jobfile(void **state)
{
    (void)state;
    const char *text = "[global]\ndir = /tmp\napi = hdf5\n[a]\nhdf5-chunk = 1m\nhdf5-coll-metadata\n"
                       "[b]\napi = posix\nhdf5-align = 4k\n";
    struct pfs_jobfile jf;
    char err[PFS_ERRLEN], desc[8192];
    assert_int_equal(pfs_jobfile_parse("t.job", text, 0, NULL, &jf, err, sizeof(err)), 0);
    assert_int_equal(jf.n, 2);
    struct pfs_config cfg;
    assert_int_equal(pfs_config_parse(&cfg, jf.sec[0].argc, jf.sec[0].argv, err, sizeof(err)), PFS_PARSE_RUN);
    pfs_config_describe(&cfg, desc, sizeof(desc));
    assert_non_null(strstr(desc, "\nhdf5_chunk=1048576\n"));
    assert_non_null(strstr(desc, "\nhdf5_coll_metadata=1\n"));
    assert_int_equal(pfs_jobfile_check("t.job", &jf, 1, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "--hdf5-align is an option of --api hdf5 (not available with --api posix)"));
    pfs_jobfile_free(&jf);
}

/* Every line of the registry is in this program, with a table that
 * pfs_backend_valid accepts, or --api refuses it
 * naming what building it takes, and --help and --list-options=json say
 * it is not built (a build with -DPFS_WITH_URING=OFF, say). */
static char *capture(void (*fn)(FILE *))
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    fn(f);
    fclose(f);
    return buf;
}

static void test_built_or_refused(void **state)
{
    (void)state;
    char *help = capture(pfs_config_usage), *json = capture(pfs_config_list_json);
    for (int i = 0; i < pfs_backend_count(); i++) {
        const char *name = pfs_backend_name(i);
        char why[256], err[PFS_ERRLEN], want[512], words[64];
        size_t n = pfs_backend_not_built(i, why, sizeof(why));
        struct pfs_config cfg;
        snprintf(words, sizeof(words), "-a|%s", name);
        if (pfs_backend_built(i)) {
            assert_int_equal(n, 0);
            /* a table in this program promises only what it has */
            const struct pfs_backend *be = pfs_backend_at(i);
            if (be && pfs_backend_valid(be, err, sizeof(err)) != 0)
                fail_msg("--api %s: %s", name, err);
            assert_string_equal(why, "");
            snprintf(want, sizeof(want), "{\"name\": \"%s\", \"help\": ", name);
            assert_non_null(strstr(json, want));
            snprintf(want, sizeof(want), "\"name\": \"%s\", \"help\": %s%s%s, \"built\": true, \"not_built\": null",
                     name, pfs_backend_help(i) ? "\"" : "", pfs_backend_help(i) ? pfs_backend_help(i) : "null",
                     pfs_backend_help(i) ? "\"" : "");
            assert_non_null(strstr(json, want));
            continue;
        }
        assert_null(pfs_backend_at(i));
        assert_non_null(strstr(why, "this pfsbench was built without it ("));
        assert_non_null(strstr(why, " at build time)"));
        assert_int_equal(parse_line(&cfg, err, words), PFS_PARSE_ERROR);
        snprintf(want, sizeof(want), "--api %s: %s", name, why);
        assert_string_equal(err, want);
        snprintf(want, sizeof(want), "\n  %-8s not built: %s\n", name, why);
        assert_non_null(strstr(help, want));
        snprintf(want, sizeof(want), "\"built\": false, \"not_built\": \"%s\"", why);
        assert_non_null(strstr(json, want));
    }
    free(help);
    free(json);
}

/* A table the parser could not fill is refused, naming the row and why. */
static void test_option_table_checks(void **state)
{
    (void)state;
    struct o1 {
        int a;
    };
    static const struct {
        struct pfs_opt row;
        size_t size;
        const char *why;
    } bad[] = {
        {{"x", 0, PFS_OPT_SIZE, 0, 0, 0, NULL, "S", "h", .key = NULL}, sizeof(struct o1), "lies past the end"},
        {{"x", 'x', PFS_OPT_FLAG, 0, 0, 0, "1", NULL, "h", .key = NULL}, sizeof(struct o1), "has a letter"},
        {{"x", 0, PFS_OPT_PHASES, 0, 0, 0, NULL, "L", "h", .key = NULL}, sizeof(struct o1), "a type a backend's option cannot have"},
        {{"x", 0, PFS_OPT_FLAG, 0, 0, 0, NULL, NULL, "h", .key = NULL}, sizeof(struct o1), "without the value it sets"},
        {{"x", 0, PFS_OPT_CHOICE, 0, 0, 0, NULL, "C", "h", .key = NULL}, sizeof(struct o1), "without choices"},
        {{"x", 0, PFS_OPT_STRING, 0, 0, 0, NULL, "S", "h", .cap = 8}, sizeof(struct o1), "lies past the end"},
        {{"x", 0, PFS_OPT_INT, 0, 0, 9, NULL, "N", NULL, .key = NULL}, sizeof(struct o1), "has no help"},
        {{"x", 0, PFS_OPT_INT, 0, 0, 9, NULL, "N", "h", .key = NULL}, PFS_BACKEND_OPTS_MAX + 1, "more than"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct pfs_backend_options bo = {&bad[i].row, 1, bad[i].size};
        char err[256] = "";
        assert_int_equal(pfs_backend_options_valid(&bo, err, sizeof(err)), -1);
        if (!strstr(err, bad[i].why))
            fail_msg("row %zu: '%s' does not say '%s'", i, err, bad[i].why);
        struct pfs_backend be = *pfs_backend_find("null");
        be.options = &bo;
        assert_int_equal(pfs_backend_valid(&be, err, sizeof(err)), -1);
        assert_non_null(strstr(err, bad[i].why));
    }
    struct pfs_opt good = {"x", 0, PFS_OPT_INT, 0, 0, 9, NULL, "N", "h", .key = NULL};
    struct pfs_backend_options bo = {&good, 1, sizeof(struct o1)};
    char err[256];
    assert_int_equal(pfs_backend_options_valid(&bo, err, sizeof(err)), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_open_flags_table),
        cmocka_unit_test_setup_teardown(test_backends_open_as_mapped, dir_setup, dir_teardown),
        cmocka_unit_test(test_option_tables),
        cmocka_unit_test(test_option_values),
        cmocka_unit_test(test_option_in_jobfile),
        cmocka_unit_test(test_option_table_checks),
        cmocka_unit_test(test_built_or_refused),
    };
    return cmocka_run_group_tests_name("backends", tests, NULL, NULL);
}
