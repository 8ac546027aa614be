/* A kept run's status file: its text round-trips (data files, small
 * files, both), a damaged or truncated one is refused, a later run fits it or is told what to give, and the file is
 * made with O_EXCL and read only as a regular file. */
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

#include "pfs/config.h"
#include "pfs/kept.h"

/* 2 ranks x 2 threads, a file per stream, -t 64k -b 1m, cut at 12 transfers by a stonewall. */
static const struct pfs_kept K = {4, 2, 2, 0, PFS_LAYOUT_SEGMENTED, 65536, 1 << 20, 12, 1, 0, 0, 0, 0};
/* 2 ranks x 1 thread, small files only: -n 100000 cut at 189 per stream by a stonewall. */
static const struct pfs_kept M = {2, 2, 1, 0, 0, 0, 0, 0, 1, 100000, 189, 0, 0};

static void test_round_trip(void **state)
{
    (void)state;
    char text[1024], err[256];
    struct pfs_kept k;
    pfs_kept_format(&K, "run-1", text, sizeof(text));
    assert_string_equal(text, "pfsbench kept run, format 1\nrun_id run-1\nstreams 4\nranks 2\nthreads 2\nshared 0\n"
                              "layout segmented\ntransfer 65536\nblock 1048576\ntransfers 12\nsegments 1\n");
    assert_int_equal(pfs_kept_parse(text, &k, err, sizeof(err)), 0);
    assert_memory_equal(&k, &K, sizeof(k));
    /* A status from before --segments (no such line) is one segment. */
    text[strlen(text) - strlen("segments 1\n")] = '\0';
    assert_int_equal(pfs_kept_parse(text, &k, err, sizeof(err)), 0);
    assert_memory_equal(&k, &K, sizeof(k));
    /* A later format's extra line is skipped; a blank line too. */
    strcat(text, "\nfuture 7\n");
    assert_int_equal(pfs_kept_parse(text, &k, err, sizeof(err)), 0);
    assert_memory_equal(&k, &K, sizeof(k));
    /* Small files only: no data lines; both parts: all of them, in one file. */
    const int n = pfs_kept_format(&M, "md-1", text, sizeof(text));
    assert_int_equal(n, (int)strlen(text));
    assert_string_equal(text, "pfsbench kept run, format 1\nrun_id md-1\nstreams 2\nranks 2\nthreads 1\n"
                              "files_asked 100000\nfiles 189\n");
    assert_int_equal(pfs_kept_parse(text, &k, err, sizeof(err)), 0);
    assert_memory_equal(&k, &M, sizeof(k));
    struct pfs_kept both;
    memcpy(&both, &K, sizeof(both)); /* padding too: compared byte for byte */
    both.files_asked = 300, both.files = 300;
    pfs_kept_format(&both, "run-1", text, sizeof(text));
    assert_non_null(strstr(text, "transfers 12\nsegments 1\nfiles_asked 300\nfiles 300\n"));
    assert_int_equal(pfs_kept_parse(text, &k, err, sizeof(err)), 0);
    assert_memory_equal(&k, &both, sizeof(k));
    /* Cut short by the buffer: like snprintf, the length it needed, the text as far as it fits. */
    char small[40];
    assert_true(pfs_kept_format(&both, "run-1", small, sizeof(small)) > (int)sizeof(small));
    assert_int_equal(strlen(small), sizeof(small) - 1);
}

static void test_damaged(void **state)
{
    (void)state;
    char err[256];
    struct pfs_kept k;
    static const char *bad[] = {
        "",
        "pfsbench kept run, format 2\nstreams 1\n",
        "pfsbench kept run, format 1", /* no line ends */
        "pfsbench kept run, format 1\nstreams 1\nranks 1\nthreads 1\nshared 0\nlayout segmented\ntransfer 8\n"
        "block 8\n",                     /* no transfers */
        "pfsbench kept run, format 1\nstreams x\nranks 1\nthreads 1\nshared 0\nlayout segmented\ntransfer 8\n"
        "block 8\ntransfers 1\n",
        "pfsbench kept run, format 1\nstreams 1\nranks 1\nthreads 1\nshared 0\nlayout diagonal\ntransfer 8\n"
        "block 8\ntransfers 1\n",
        "pfsbench kept run, format 1\nstreams 1\nranks 1\nthreads 1\nshared 0\nlayout segmented\ntransfer 8\n"
        "block 8\ntransfers 2\n",        /* more transfers than the block holds */
        "pfsbench kept run, format 1\nstreams 3\nranks 1\nthreads 1\nshared 0\nlayout segmented\ntransfer 8\n"
        "block 8\ntransfers 1\n",        /* streams != ranks x threads */
        "pfsbench kept run, format 1\nstreams -1\nranks 1\nthreads 1\nshared 0\nlayout segmented\ntransfer 8\n"
        "block 8\ntransfers 1\n",
        "pfsbench kept run, format 1\nstreams 1\nranks 1\nthreads 1\nshared 0\nlayout segmented\ntransfer 8\n"
        "block 16\ntransfers 1\nsegments 0\n",
        "pfsbench kept run, format 1\nstreams 1\nranks 1\nthreads 1\nshared 0\nlayout segmented\ntransfer 8\n"
        "block 16\ntransfers 1\nsegments 3\n", /* 2 transfers do not split in 3 segments */
        "pfsbench kept run, format 1\nrun_id a/b\nstreams 1\nranks 1\nthreads 1\nshared 0\nlayout segmented\n"
        "transfer 8\nblock 8\ntransfers 1\n",
        /* the small files' part: whole, its figures fitting */
        "pfsbench kept run, format 1\nstreams 1\nranks 1\nthreads 1\n",                       /* neither part */
        "pfsbench kept run, format 1\nstreams 1\nranks 1\nthreads 1\nfiles 5\n",              /* no files_asked */
        "pfsbench kept run, format 1\nstreams 1\nranks 1\nthreads 1\nfiles_asked 5\n",        /* no files */
        "pfsbench kept run, format 1\nstreams 1\nranks 1\nfiles_asked 5\nfiles 5\n",          /* no threads */
        "pfsbench kept run, format 1\nstreams 1\nranks 1\nthreads 1\nfiles_asked 5\nfiles 6\n",   /* more than asked */
        "pfsbench kept run, format 1\nstreams 1\nranks 1\nthreads 1\nfiles_asked 0\nfiles 0\n",
        "pfsbench kept run, format 1\nstreams 1\nranks 1\nthreads 1\nfiles_asked 4294967296\nfiles 1\n", /* > -n's int */
        "pfsbench kept run, format 1\nstreams 1\nranks 1\nthreads 1\nfiles_asked 5\nfiles -1\n",
        "pfsbench kept run, format 1\nstreams 1\nranks 1\nthreads 1\nfiles_asked 5\nfiles 18446744073709551616\n",
        "pfsbench kept run, format 1\nstreams 1\nranks 1\nthreads 1\nfiles_asked 5\nfiles 3x\n",
        "pfsbench kept run, format 1\nstreams 1\nranks 1\nthreads 1\nfiles_asked 5\nfiles\n",
        "pfsbench kept run, format 1\nstreams 2\nranks 1\nthreads 1\nfiles_asked 5\nfiles 5\n",  /* 2 != 1 x 1 */
        "pfsbench kept run, format 1\nstreams 1\nranks 1\nthreads 1\nshared 0\nfiles_asked 5\nfiles 5\n", /* a part of the data lines */
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        if (pfs_kept_parse(bad[i], &k, err, sizeof(err)) == 0)
            fail_msg("damaged status %zu was accepted", i);
}

static struct pfs_config cfg_of(int threads, int shared, int layout, uint64_t t, uint64_t b)
{
    struct pfs_config c;
    pfs_config_defaults(&c);
    c.threads = threads, c.shared = shared, c.layout = layout, c.transfer = t, c.block = b;
    snprintf(c.run_id, sizeof(c.run_id), "run-1");
    return c;
}

static void test_check(void **state)
{
    (void)state;
    char err[1024];
    uint64_t x = 0;
    /* The same shape and -b: what was written, 12 transfers. */
    struct pfs_config c = cfg_of(2, 0, 0, 65536, 1 << 20);
    assert_int_equal(pfs_kept_check(&c, 2, &K, "run-1", &x, err, sizeof(err)), 0);
    assert_true(x == 12);
    /* Ranks x threads is what counts: 4 ranks x 1 thread read the same 4 files. */
    c = cfg_of(1, 0, 0, 65536, 1 << 20);
    assert_int_equal(pfs_kept_check(&c, 4, &K, "run-1", &x, err, sizeof(err)), 0);
    /* A file per stream: a -b of exactly what each holds reads it all too. */
    c = cfg_of(2, 0, 0, 65536, 12 * 65536);
    assert_int_equal(pfs_kept_check(&c, 2, &K, "run-1", &x, err, sizeof(err)), 0);
    assert_true(x == 12);
    /* Fewer and more streams: refused, naming the kept run's shape. */
    c = cfg_of(1, 0, 0, 65536, 1 << 20);
    assert_int_equal(pfs_kept_check(&c, 2, &K, "run-1", &x, err, sizeof(err)), -1);
    assert_string_equal(err, "run run-1 kept 4 streams (2 ranks x 2 threads), a file per stream, -t 64k -b 1m: 12 "
                             "transfers (768 KiB) in each stream's file; this run has 2 streams (2 ranks x 1 thread): "
                             "it would read a part of them; run it with 4 streams (ranks x --threads)");
    c = cfg_of(2, 0, 0, 65536, 1 << 20);
    assert_int_equal(pfs_kept_check(&c, 4, &K, "run-1", &x, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "this run has 8 streams (4 ranks x 2 threads): it would read files no stream wrote"));
    /* Another -b: refused with the kept run's; another -t, --shared: named too. */
    c = cfg_of(2, 0, 0, 65536, 2 << 20);
    assert_int_equal(pfs_kept_check(&c, 2, &K, "run-1", &x, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "; give -b 1m (the kept run's) to read exactly what it wrote"));
    c = cfg_of(2, 0, 0, 3 * 4096, 1 << 20);
    assert_int_equal(pfs_kept_check(&c, 2, &K, "run-1", &x, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "; give -t 64k or a -t that divides it"));
    c = cfg_of(2, 0, 0, 131072, 1 << 20);
    assert_int_equal(pfs_kept_check(&c, 2, &K, "run-1", &x, err, sizeof(err)), -1);
    /* A file per stream read in a -t that divides the kept one: the same
     * bytes, 16 pieces of each of the 12 transfers; with either -b. */
    c = cfg_of(2, 0, 0, 4096, 1 << 20);
    assert_int_equal(pfs_kept_check(&c, 2, &K, "run-1", &x, err, sizeof(err)), 0);
    assert_true(x == 12 * 16);
    c = cfg_of(2, 0, 0, 4096, 12 * 65536);
    assert_int_equal(pfs_kept_check(&c, 2, &K, "run-1", &x, err, sizeof(err)), 0);
    assert_true(x == 12 * 16);
    c = cfg_of(2, 1, 0, 65536, 1 << 20);
    assert_int_equal(pfs_kept_check(&c, 2, &K, "run-1", &x, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "; give no --shared"));
    /* A shared segmented file: -b places each stream's segment, so only the kept -b reads it;
     * strided places no transfer by -b. */
    struct pfs_kept s = K;
    s.shared = 1, s.block = 3 * 65536 + 65536, s.xfers = 3;
    c = cfg_of(2, 1, PFS_LAYOUT_SEGMENTED, 65536, 3 * 65536);
    assert_int_equal(pfs_kept_check(&c, 2, &s, "run-1", &x, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "one shared file, layout segmented, -t 64k -b 256k: 3 transfers (192 KiB) in each "
                                "stream's segment; give -b 256k"));
    /* In segments: only the kept --segments reads what it wrote. */
    s.block = 4 * 65536, s.segments = 2;
    c = cfg_of(2, 1, PFS_LAYOUT_SEGMENTED, 65536, 4 * 65536);
    assert_int_equal(pfs_kept_check(&c, 2, &s, "run-1", &x, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "stream's segment in 2 segments; give --segments 2"));
    c.segments = 2;
    assert_int_equal(pfs_kept_check(&c, 2, &s, "run-1", &x, err, sizeof(err)), 0);
    s.segments = 1, s.block = 3 * 65536 + 65536;
    c = cfg_of(2, 1, PFS_LAYOUT_SEGMENTED, 65536, 3 * 65536);
    s.layout = c.layout = PFS_LAYOUT_STRIDED;
    assert_int_equal(pfs_kept_check(&c, 2, &s, "run-1", &x, err, sizeof(err)), 0);
    assert_true(x == 3);
    /* The shared file's transfers interleave the streams: a smaller -t would cross into another's. */
    c.transfer = 4096;
    assert_int_equal(pfs_kept_check(&c, 2, &s, "run-1", &x, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "; give -t 64k"));
    assert_null(strstr(err, "divides"));
}

static void test_md_check(void **state)
{
    (void)state;
    char err[1024];
    uint64_t n = 0;
    struct pfs_config c = cfg_of(1, 0, 0, 65536, 1 << 20);
    /* The kept run's -n or what every stream holds: those 189. */
    c.files = 100000;
    assert_int_equal(pfs_kept_md_check(&c, 2, &M, "md-1", &n, err, sizeof(err)), 0);
    assert_true(n == 189);
    c.files = 189;
    assert_int_equal(pfs_kept_md_check(&c, 2, &M, "md-1", &n, err, sizeof(err)), 0);
    assert_true(n == 189);
    /* Any other -n (more or fewer): refused, naming both. */
    c.files = 190;
    assert_int_equal(pfs_kept_md_check(&c, 2, &M, "md-1", &n, err, sizeof(err)), -1);
    assert_string_equal(err, "run md-1 kept 189 small files in each of its 2 streams (2 ranks x 1 thread), of the -n "
                             "100000 it asked (its stonewall stopped the create); give -n 100000 (the kept run's) or -n "
                             "189 to work on exactly them");
    c.files = 10;
    assert_int_equal(pfs_kept_md_check(&c, 2, &M, "md-1", &n, err, sizeof(err)), -1);
    /* A create that made all it asked: that -n only. */
    struct pfs_kept all = M;
    all.files = all.files_asked = 300;
    c.files = 299;
    assert_int_equal(pfs_kept_md_check(&c, 2, &all, "md-1", &n, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "300 small files in each of its 2 streams (2 ranks x 1 thread) as its -n 300 asked; "
                                "give -n 300 to work on exactly them"));
    /* Other streams: refused. */
    c.files = 100000;
    assert_int_equal(pfs_kept_md_check(&c, 1, &M, "md-1", &n, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "this run has 1 stream (1 rank x 1 thread); run it with 2 streams"));
    /* A status of data files only says nothing of small files: -n stands. */
    c.files = 77;
    assert_int_equal(pfs_kept_md_check(&c, 3, &K, "run-1", &n, err, sizeof(err)), 0);
    assert_true(n == 77);
    /* And one of small files only holds no data files to read. */
    c = cfg_of(1, 0, 0, 65536, 1 << 20);
    assert_int_equal(pfs_kept_check(&c, 2, &M, "md-1", &n, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "run md-1 kept no data files"));
}

static void test_reads(void **state)
{
    (void)state;
    struct pfs_config c = cfg_of(1, 0, 0, 65536, 1 << 20);
    static const int lists[][3] = {{PFS_PH_READ, -1}, {PFS_PH_CREATE, PFS_PH_REWRITE, -1}, {PFS_PH_SEEKS, -1},
                                   {PFS_PH_WRITE, PFS_PH_READ, -1}, {PFS_PH_STAT, -1}};
    static const int want[] = {1, 1, 1, 0, 0};
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        c.nphases = 0;
        for (int k = 0; lists[i][k] >= 0; k++)
            c.phases[c.nphases++] = lists[i][k];
        assert_int_equal(pfs_kept_reads(&c), want[i]);
    }
    c.run_id[0] = '\0'; /* without --run-id nothing is read from a kept run */
    c.phases[0] = PFS_PH_READ, c.nphases = 1;
    assert_int_equal(pfs_kept_reads(&c), 0);
}

static void test_files(void **state)
{
    (void)state;
    char dir[] = "/tmp/pfs_kept_XXXXXX", err[1024], p[256];
    assert_non_null(mkdtemp(dir));
    struct pfs_kept k;
    struct pfs_fid fid;
    /* Nothing of the run id: unknown. */
    assert_int_equal(pfs_kept_read(dir, "r1", &k, NULL, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "--run-id r1: no run kept data files in "));
    /* Its data file but no status: the run failed, or kept nothing. */
    snprintf(p, sizeof(p), "%s/pfsbench.r1.0", dir);
    int fd = open(p, O_WRONLY | O_CREAT | O_EXCL, 0600);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(pfs_kept_read(dir, "r1", &k, NULL, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "/pfsbench.r1.0 is there but not "));
    /* Made, read back; a second make leaves the first alone. */
    assert_int_equal(pfs_kept_write(AT_FDCWD, dir, "r1", &K, &fid, err, sizeof(err)), 0);
    assert_int_equal(pfs_kept_read(dir, "r1", &k, NULL, err, sizeof(err)), 0);
    assert_memory_equal(&k, &K, sizeof(k));
    struct pfs_kept other = K;
    other.xfers = 1;
    assert_int_equal(pfs_kept_write(AT_FDCWD, dir, "r1", &other, &fid, err, sizeof(err)), -1);
    assert_int_equal(pfs_kept_read(dir, "r1", &k, NULL, err, sizeof(err)), 0);
    assert_true(k.xfers == 12);
    /* A link in its place is not followed; a damaged file is named. */
    char q[256];
    snprintf(q, sizeof(q), "%s/pfsbench.r2.kept", dir);
    snprintf(p, sizeof(p), "%s/pfsbench.r1.kept", dir);
    assert_int_equal(symlink(p, q), 0);
    assert_int_equal(pfs_kept_read(dir, "r2", &k, NULL, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "pfsbench.r2.kept"));
    unlink(q);
    fd = open(q, O_WRONLY | O_CREAT | O_EXCL, 0600);
    assert_int_equal(write(fd, "hello\n", 6), 6);
    close(fd);
    assert_int_equal(pfs_kept_read(dir, "r2", &k, NULL, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "is not a kept run's status: it does not start with"));
    unlink(q);
    /* The small files' status: made and read back, with the file's identity. */
    struct pfs_fid got;
    assert_int_equal(pfs_kept_write(AT_FDCWD, dir, "m1", &M, &fid, err, sizeof(err)), 0);
    assert_int_equal(pfs_kept_read(dir, "m1", &k, &got, err, sizeof(err)), 0);
    assert_memory_equal(&k, &M, sizeof(k));
    assert_true(pfs_fid_same(&got, &fid));
    /* Truncated (a crash while it was written): named, not taken. */
    snprintf(q, sizeof(q), "%s/pfsbench.m1.kept", dir);
    assert_int_equal(truncate(q, 70), 0);
    assert_int_equal(pfs_kept_read(dir, "m1", &k, NULL, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "is not a kept run's status"));
    unlink(q);
    unlink(p);
    snprintf(p, sizeof(p), "%s/pfsbench.r1.0", dir);
    unlink(p);
    assert_int_equal(rmdir(dir), 0);
}

/* Data files written with --buffer-compress or --dedupe: two more lines,
 * read back; a verified read must give that content (and with --dedupe
 * the -t, its unit); an unverified one reads the bytes whatever they are. */
static void test_content(void **state)
{
    (void)state;
    char text[1024], err[400];
    struct pfs_kept k, c;
    memcpy(&c, &K, sizeof(c)); /* padding too: it is compared below as memory */
    c.compress = 50;
    c.dedupe = 25;
    pfs_kept_format(&c, "run-1", text, sizeof(text));
    assert_non_null(strstr(text, "\nsegments 1\nbuffer_compress 50\ndedupe 25\n"));
    assert_int_equal(pfs_kept_parse(text, &k, err, sizeof(err)), 0);
    assert_memory_equal(&k, &c, sizeof(k));
    assert_int_equal(pfs_kept_parse("pfsbench kept run, format 1\ndedupe 101\n", &k, err, sizeof(err)), -1);
    struct pfs_config cfg;
    pfs_config_defaults(&cfg);
    cfg.threads = 2, cfg.transfer = 65536, cfg.block = 1 << 20;
    uint64_t x = 0;
    assert_int_equal(pfs_kept_check(&cfg, 2, &c, "run-1", &x, err, sizeof(err)), 0);
    assert_true(x == 12);
    cfg.verify = 1;
    assert_int_equal(pfs_kept_check(&cfg, 2, &c, "run-1", &x, err, sizeof(err)), -1);
    assert_non_null(strstr(err, ", written with --buffer-compress 50 --dedupe 25; --verify expects that content: give them"));
    cfg.buffer_compress = 50, cfg.dedupe = 25;
    assert_int_equal(pfs_kept_check(&cfg, 2, &c, "run-1", &x, err, sizeof(err)), 0);
    cfg.transfer = 4096; /* finer pieces: another dedupe unit */
    assert_int_equal(pfs_kept_check(&cfg, 2, &c, "run-1", &x, err, sizeof(err)), -1);
    assert_non_null(strstr(err, ", written with --dedupe 25 in units of -t; --verify expects that content: give -t 64k"));
    assert_int_equal(pfs_kept_check(&cfg, 2, &K, "run-1", &x, err, sizeof(err)), -1); /* plain files, content asked */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip), cmocka_unit_test(test_damaged), cmocka_unit_test(test_check),
        cmocka_unit_test(test_md_check),
        cmocka_unit_test(test_md_check),
        cmocka_unit_test(test_reads), cmocka_unit_test(test_files), cmocka_unit_test(test_content),
    };
    return cmocka_run_group_tests_name("kept", tests, NULL, NULL);
}
