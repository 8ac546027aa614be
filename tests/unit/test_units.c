/* Sizes and durations as people type them (pfs/units.h), and where they
 * are read: the option table, the front-ends, the fio keys of job files. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pfs/cmdline.h"
#include "pfs/config.h"
#include "pfs/frontend.h"
#include "pfs/jobfile.h"
#include "pfs/units.h"

#define KI 1024ULL
#define MI (KI * KI)
#define GI (MI * KI)
#define TI (GI * KI)

struct size_case {
    const char *in;
    uint64_t want;
};

static void sizes_are(const struct pfs_size_syntax *syn, const struct size_case *c, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t v = 0;
        char why[160] = "";
        if (pfs_size_parse(c[i].in, syn, &v, why, sizeof(why)) != 0)
            fail_msg("size '%s' refused: %s", c[i].in, why);
        if (v != c[i].want)
            fail_msg("size '%s' is %llu, want %llu", c[i].in, (unsigned long long)v, (unsigned long long)c[i].want);
    }
}

/* Refused, with why holding part (NULL: any reason). */
static void refused(const struct pfs_size_syntax *syn, const char *in, const char *part)
{
    uint64_t v = 12345;
    char why[160] = "";
    if (pfs_size_parse(in, syn, &v, why, sizeof(why)) == 0)
        fail_msg("size '%s' accepted as %llu", in, (unsigned long long)v);
    assert_true(v == 12345); /* nothing written */
    assert_true(why[0] != '\0');
    if (part && !strstr(why, part))
        fail_msg("size '%s': why '%s' lacks '%s'", in, why, part);
}

static void test_native_sizes(void **state)
{
    (void)state;
    static const struct size_case good[] = {
        {"1", 1}, {"512", 512}, {"512B", 512}, {"512b", 512}, {"4k", 4 * KI}, {"4K", 4 * KI}, {"1m", MI},
        {"16M", 16 * MI}, {"1g", GI}, {"2G", 2 * GI}, {"1t", TI}, {"8T", 8 * TI},
        {"64MiB", 64 * MI}, {"64mib", 64 * MI}, {"64MIB", 64 * MI}, {"64Mi", 64 * MI}, {"4KiB", 4 * KI},
        {"3GiB", 3 * GI}, {"2TiB", 2 * TI},
        {"1KB", 1000}, {"1kB", 1000}, {"1MB", 1000000}, {"1GB", 1000000000}, {"2TB", 2000000000000ULL},
        {"4611686018427387903", 4611686018427387903ULL}, {"4194303T", 4194303 * TI},
    };
    sizes_are(NULL, good, sizeof(good) / sizeof(good[0]));
    uint64_t v;
    assert_int_equal(pfs_parse_size("64MiB", &v), 0);
    assert_true(v == 64 * MI);
    refused(NULL, "", "empty");
    refused(NULL, "-1", "negative");
    refused(NULL, "-1m", "negative");
    refused(NULL, "+1", "not a number");
    refused(NULL, " 1m", "not a number");
    refused(NULL, "m", "not a number");
    refused(NULL, "0", "zero");
    refused(NULL, "0k", "zero");
    refused(NULL, "1.5g", "fraction");
    refused(NULL, "1 m", "unknown unit ' m'");
    refused(NULL, "1m ", "unknown unit 'm '");
    refused(NULL, "1kk", "unknown unit");
    refused(NULL, "1x", "unknown unit 'x'");
    refused(NULL, "1e6", "unknown unit");
    refused(NULL, "0x10", "unknown unit");
    refused(NULL, "1p", "unknown unit");
    refused(NULL, "1i", "unknown unit");
    refused(NULL, "1MiBs", "unknown unit");
    /* fio and IOR read 4kb as 4096, SI as 4000: neither is guessed. */
    refused(NULL, "4kb", "ambiguous");
    refused(NULL, "4Kb", "ambiguous");
    refused(NULL, "1mb", "ambiguous");
    refused(NULL, "1Mb", "write M or MiB for 1024-based, MB for 1000-based");
    refused(NULL, "1gB", "ambiguous");
    /* Past 2^62, and past 64 bits before the unit. */
    refused(NULL, "4611686018427387904", "2^62");
    refused(NULL, "4194304T", "2^62");
    refused(NULL, "99999999t", "2^62");
    refused(NULL, "18446744073709551616", "2^62");
    refused(NULL, "99999999999999999999999999k", "2^62");
    refused(NULL, "5000000TB", "2^62");
}

static void test_tool_sizes(void **state)
{
    (void)state;
    /* IOR's, mdtest's, IOzone's and fio's reading: KB is 1024-based too. */
    const struct pfs_size_syntax ior = {PFS_SIZE_KB_BINARY, 1, "kmgtp"};
    static const struct size_case good[] = {
        {"1GB", GI}, {"1gb", GI}, {"4kb", 4 * KI}, {"4KiB", 4 * KI}, {"1p", 1024 * TI}, {"7", 7}, {"7B", 7},
    };
    sizes_are(&ior, good, sizeof(good) / sizeof(good[0]));
    /* IOzone: a bare number is KiB; k, m, g only. */
    const struct pfs_size_syntax iozone = {PFS_SIZE_KB_BINARY, 1024, "kmg"};
    static const struct size_case iz[] = {{"64", 64 * KI}, {"64k", 64 * KI}, {"4MB", 4 * MI}, {"512B", 512}};
    sizes_are(&iozone, iz, sizeof(iz) / sizeof(iz[0]));
    refused(&iozone, "1t", "unknown unit 't'");
    /* fio's default kb_base reads KiB 1000-based: refused rather than guessed. */
    const struct pfs_size_syntax fio = {PFS_SIZE_KB_BINARY | PFS_SIZE_NO_IEC, 1, NULL};
    static const struct size_case f[] = {{"4k", 4 * KI}, {"4kb", 4 * KI}, {"16MB", 16 * MI}, {"4096", 4096}};
    sizes_are(&fio, f, sizeof(f) / sizeof(f[0]));
    refused(&fio, "4KiB", "1000-based");
    /* --file-size 0 */
    const struct pfs_size_syntax zero = {PFS_SIZE_ZERO, 1, NULL};
    static const struct size_case z[] = {{"0", 0}, {"0k", 0}, {"1k", KI}};
    sizes_are(&zero, z, sizeof(z) / sizeof(z[0]));
}

/* A size word in another program's output (beegfs-ctl's "Chunksize: 512K"). */
static void test_size_word(void **state)
{
    (void)state;
    assert_true(pfs_size_word("512K\n+ Number of storage targets") == 512 * KI);
    assert_true(pfs_size_word("1m") == MI && pfs_size_word("1M\t") == MI && pfs_size_word("4194304 ") == 4194304);
    assert_true(pfs_size_word("2g") == 2 * GI && pfs_size_word("512KB") == 512 * KI);
    assert_true(pfs_size_word("lots") == 0 && pfs_size_word("") == 0 && pfs_size_word("0") == 0);
    assert_true(pfs_size_word("1t") == 0 && pfs_size_word("1.5m") == 0 && pfs_size_word("-1k") == 0);
}

static void test_durations(void **state)
{
    (void)state;
    static const struct {
        const char *in;
        double want;
    } good[] = {
        {"10", 10},   {"0.5", 0.5},     {".25", 0.25},   {"10s", 10},    {"10S", 10}, {"1m", 60},  {"1M", 60},
        {"1.5m", 90}, {"2min", 120},    {"2h", 7200},    {"1d", 86400},  {"500ms", 0.5}, {"1e3", 1000},
    };
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
        double v = -1;
        char why[160] = "";
        if (pfs_parse_duration(good[i].in, &v, why, sizeof(why)) != 0)
            fail_msg("duration '%s' refused: %s", good[i].in, why);
        assert_float_equal(v, good[i].want, 1e-9);
    }
    static const struct {
        const char *in, *why;
    } bad[] = {{"", "empty"},          {"-1", "negative"},         {"-1s", "negative"},  {"s", "not a number"},
               {" 1", "not a number"}, {"inf", "not a number"},    {"nan", "not a number"}, {"0x10", "not a number"},
               {"1x", "unknown unit 'x'"}, {"1 s", "unknown unit ' s'"}, {"10sec", "unknown unit"}, {"1e999", "too large"}};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        double v = -1;
        char why[160] = "";
        if (pfs_parse_duration(bad[i].in, &v, why, sizeof(why)) == 0)
            fail_msg("duration '%s' accepted as %g", bad[i].in, v);
        if (!strstr(why, bad[i].why))
            fail_msg("duration '%s': why '%s' lacks '%s'", bad[i].in, why, bad[i].why);
    }
}

/* pfsbench's own options read sizes and seconds with the parser above. */
static enum pfs_parse_result parse_line(const char *line, struct pfs_config *cfg, char *err, size_t len)
{
    char buf[1024], *v[64];
    int n = 0;
    snprintf(buf, sizeof(buf), "pfsbench -d /tmp %s", line);
    for (char *save = NULL, *w = strtok_r(buf, " ", &save); w && n < 63; w = strtok_r(NULL, " ", &save))
        v[n++] = w;
    v[n] = NULL;
    return pfs_config_parse(cfg, n, v, err, len);
}

static void test_options(void **state)
{
    (void)state;
    static struct pfs_config cfg;
    char err[PFS_ERRLEN];
    assert_int_equal(parse_line("-b 64MiB -t 1MiB --file-size 0 -p write,read,create", &cfg, err, sizeof(err)), PFS_PARSE_RUN);
    assert_true(cfg.block == 64 * MI && cfg.transfer == MI && cfg.file_size == 0);
    assert_int_equal(parse_line("-b 64MB -t 1MB", &cfg, err, sizeof(err)), PFS_PARSE_RUN);
    assert_true(cfg.block == 64000000 && cfg.transfer == 1000000);
    assert_int_equal(parse_line("--total 1GB", &cfg, err, sizeof(err)), PFS_PARSE_RUN);
    assert_true(cfg.total == 1000000000);
    assert_int_equal(parse_line("--deadline 1.5h", &cfg, err, sizeof(err)), PFS_PARSE_RUN);
    assert_float_equal(cfg.deadline, 5400, 1e-9);
    assert_int_equal(parse_line("--runtime 2m --ramp 500ms --timeout 10s --interval 0.5 --stall-warn 1d", &cfg, err,
                                sizeof(err)),
                     PFS_PARSE_RUN);
    assert_float_equal(cfg.runtime, 120, 1e-9);
    assert_float_equal(cfg.ramp, 0.5, 1e-9);
    assert_float_equal(cfg.timeout, 10, 1e-9);
    assert_float_equal(cfg.interval, 0.5, 1e-9);
    assert_float_equal(cfg.stall_warn, 86400, 1e-9);
    static const struct {
        const char *line, *msg;
    } bad[] = {
        {"-b 1gb", "--block: '1gb' is not a size: 'gb' is ambiguous"},
        {"-b 64XB", "--block: '64XB' is not a size: unknown unit 'XB'; give a whole number of bytes"},
        {"--total 18446744073709551616", "--total: '18446744073709551616' is not a size: larger than 2^62"},
        {"-t -4k", "--transfer: '-4k' is not a size: negative;"},
        {"--file-size 1.5k", "--file-size: '1.5k' is not a size: a fraction"},
        {"--runtime 10x", "--runtime: '10x' is not a duration: unknown unit 'x'; give seconds, or a number with s, ms, m, h or d"},
        {"--ramp -1s", "--ramp: '-1s' is not a duration: negative;"},
        {"--interval 2h", "--interval: '2h' is 7200 s; give from 0.01 to 3600 seconds"},
        {"--timeout 0ms", "--timeout: '0ms' is 0 s; give from 0.001 to 1e+09 seconds"},
        {"--ci 5s", "--ci: '5s' is not a number from 0.1 to 100"}, /* percent, not seconds */
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        err[0] = '\0';
        if (parse_line(bad[i].line, &cfg, err, sizeof(err)) != PFS_PARSE_ERROR)
            fail_msg("'%s' was accepted", bad[i].line);
        if (!strstr(err, bad[i].msg))
            fail_msg("'%s': message\n%s\nlacks\n%s", bad[i].line, err, bad[i].msg);
    }
}

/* The front-ends read the tools' sizes with the same parser, 1024-based throughout. */
static void test_frontend_sizes(void **state)
{
    (void)state;
    static const struct {
        const char *tool, *words, *want, *refusal;
    } c[] = {
        {"ior", "-b 1GB -t 64KiB -w", "pfsbench -d . -t 64k -b 1g --shared -p write --format ior", NULL},
        {"ior", "-b 64mb -t 1m -w", "pfsbench -d . -t 1m -b 64m --shared -p write --format ior", NULL},
        {"iozone", "-i 0 -r 256KB -s 4MiB", "pfsbench -d . -t 256k -b 4m -p write,rewrite", NULL},
        {"iozone", "-i 0 -r 64 -s 1024", "pfsbench -d . -t 64k -b 1m -p write,rewrite", NULL},
        {"ior", "-b 1.5g -w", NULL, "ior -b: '1.5g' is not a size: a fraction"},
        {"ior", "-b 0 -w", NULL, "ior -b: '0' is not a size: zero"},
        {"ior", "-b 99999999999p -w", NULL, "ior -b: '99999999999p' is not a size: larger than 2^62"},
        {"iozone", "-i 0 -s 1t", NULL, "iozone -s: '1t' is not a size: unknown unit 't'"},
    };
    for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
        char buf[256], *v[32], msg[PFS_FRONTEND_ERRLEN] = "", line[1024];
        snprintf(buf, sizeof(buf), "%s", c[i].words);
        int n = 0, oc = 0;
        for (char *save = NULL, *w = strtok_r(buf, " ", &save); w && n < 32; w = strtok_r(NULL, " ", &save))
            v[n++] = w;
        char **ov = NULL;
        int rc = pfs_frontend_translate_for(c[i].tool, 1, n, v, &oc, &ov, msg, sizeof(msg));
        if (c[i].want) {
            if (rc != 0)
                fail_msg("%s %s refused: %s", c[i].tool, c[i].words, msg);
            pfs_cmdline_join(oc, ov, line, sizeof(line));
            if (strcmp(line, c[i].want) != 0)
                fail_msg("%s %s\n got  %s\n want %s", c[i].tool, c[i].words, line, c[i].want);
            pfs_frontend_free(oc, ov);
        } else if (rc == 0 || !strstr(msg, c[i].refusal)) {
            fail_msg("%s %s: want refusal '%s', got rc %d:\n%s", c[i].tool, c[i].words, c[i].refusal, rc, msg);
        }
    }
}

/* A job file's one section as its command line (argv joined), or NULL with err. */
static const char *job_line(const char *text, char *err, size_t len)
{
    static char line[4096];
    struct pfs_jobfile jf;
    if (pfs_jobfile_parse("t.job", text, 0, NULL, &jf, err, len) != 0)
        return NULL;
    assert_int_equal(jf.n, 1);
    pfs_cmdline_join(jf.sec[0].argc, jf.sec[0].argv, line, sizeof(line));
    pfs_jobfile_free(&jf);
    return line;
}

static void test_job_fio_keys(void **state)
{
    (void)state;
    char err[PFS_ERRLEN];
    static const struct {
        const char *text, *want;
    } c[] = {
        /* fio's sizes (kb_base=1024), jobs, engine, iodepth and phases */
        {"[global]\nbs=4k\nsize=1g\nnumjobs=4\ndirectory=/tmp\nioengine=libaio\niodepth=16\n[a]\nrw=randread\n",
         "pfsbench --transfer=4096 --block=1073741824 --threads=4 --dir=/tmp --api=aio --iodepth=16 --phases=write,read "
         "--random --label=a"},
        {"[a]\nblocksize=64KB\nsize=2MB\nrw=write\nioengine=psync\n", "pfsbench --transfer=65536 --block=2097152 "
         "--phases=write --api=posix --label=a"},
        {"[a]\nrw=randwrite\nioengine=io_uring\n", "pfsbench --phases=write --random --api=uring --label=a"},
        {"[a]\nrw=read\nioengine=mmap\n", "pfsbench --phases=write,read --api=mmap --label=a"},
        {"[a]\nioengine=null\nioengine=sync\nioengine=pvsync\n", "pfsbench --api=null --api=posix --api=posix --label=a"},
        /* fsync = N is fio's every N writes; end_fsync is pfsbench's fsync */
        {"[a]\nfsync=8\nend_fsync=1\nend_fsync=0\nfsync=0\nfsync\n", "pfsbench --fsync-every=8 --fsync --fsync --label=a"},
        {"[a]\nramp_time=5s\nruntime=1m\ntime_based\nstonewall\nnew_group\ngroup_reporting\nthread\n",
         "pfsbench --ramp=5s --runtime=1m --label=a"},
        {"[a]\nunlink=0\nbuffered=0\nunlink=1\nbuffered=1\nloops=3\nname=x\nverify=0\n",
         "pfsbench --keep --direct --reps=3 --label=x"},
        /* random_distribution: the skewed draws of the read after the write (issue 30) */
        {"[a]\nrw=randread\nrandom_distribution=zipf:1.2\n",
         "pfsbench --phases=write,read --random --random-dist=zipf:1.2 --label=a"},
        /* a mix: fio lays the file out first, and so does the write before rwmix */
        {"[a]\nrw=randrw\nrwmixread=70\nbssplit=4k/70:64k/30\n",
         "pfsbench --phases=write,rwmix --random --rwmix=70 --bssplit=4k/70:64k/30 --label=a"},
        {"[a]\nrw=write\nbuffer_compress_percentage=50\ndedupe_percentage=30\n",
         "pfsbench --phases=write --buffer-compress=50 --dedupe=30 --label=a"},
        /* runtime: time based with fio's time_based, and in a section of pfsbench's own words */
        {"[global]\ntime_based\n[a]\nrw=write\nruntime=10\n", "pfsbench --phases=write --runtime=10 --label=a"},
        {"[a]\nruntime=10\nphases=write\n", "pfsbench --runtime=10 --phases=write --label=a"},
        /* sync = 0/1 is fio's O_SYNC switch; sync = dsync stays pfsbench's */
        {"[a]\nsync=1\nsync=0\nsync = dsync\n", "pfsbench --sync=sync --sync=none --sync=dsync --label=a"},
        /* comments after a value, # or ;, after a blank; none inside a word */
        {"[a] # the first\nblock = 16m  # per rank\ntransfer=1m\t; c\nfsync   # a flag\nlabel = run#3\nreps = 2;x\n",
         "pfsbench --block=16m --transfer=1m --fsync '--label=run#3' '--reps=2;x'"},
    };
    for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
        const char *got = job_line(c[i].text, err, sizeof(err));
        if (!got)
            fail_msg("job %zu refused:\n%s", i, err);
        if (strcmp(got, c[i].want) != 0)
            fail_msg("job %zu\n got  %s\n want %s", i, got, c[i].want);
    }
    /* Each fio key pfsbench cannot honour, named with why, all at once. */
    const char *bad = "[a]\nrw=trim\nrw=trim\nrwmixwrite=30\nrw=trim\nioengine=posixaio\nioengine=rbd\nbs=4KiB\n"
                      "size=1.5g\nverify_pattern=0xff\nfilename=/dev/sdb\nverify=md5\nrwmixwrite=70\nfoo=1\nbs\n"
                      "end_fsync=2\nnumjobs\n";
    assert_null(job_line(bad, err, sizeof(err)));
    static const char *const want[] = {
        "t.job:2: fio's `rw = trim` has no pfsbench phase (pfsbench's data phases: write, rewrite, read, reread, rwmix)",
        "t.job:4: fio's `rwmixwrite` has no pfsbench meaning: pfsbench's rwmix is the reads' share; give rwmixread = 100 - rwmixwrite",
        "t.job:5: fio's `rw = trim` has no pfsbench phase",
        "t.job:6: fio's `ioengine = posixaio` (aio_read/aio_write) has no pfsbench backend; Linux AIO is ioengine = libaio",
        "t.job:7: fio's `ioengine = rbd` has no pfsbench backend",
        "t.job:8: fio's `bs = 4KiB` is not a size: fio reads 'KiB' as 1000-based",
        "t.job:9: fio's `size = 1.5g` is not a size: a fraction",
        "t.job:10: fio's `verify_pattern` has no pfsbench meaning: verify writes a pattern of pfsbench's own",
        "t.job:11: fio's `filename` has no pfsbench meaning: pfsbench names its own files, or file-name PATH names them",
        "t.job:12: fio's `verify = md5` checksums blocks",
        "t.job:13: fio's `rwmixwrite` has no pfsbench meaning",
        "t.job:14: unknown option 'foo' (job files use pfsbench's long option names: transfer, block, phases ...; or fio's bs, size, rw ...)",
        "t.job:15: fio's `bs` needs a value",
        "t.job:16: fio's `end_fsync = 2`: give 0 or 1",
        "t.job:17: fio's `numjobs` needs a value",
    };
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
        if (!strstr(err, want[i]))
            fail_msg("no\n%s\nin\n%s", want[i], err);
    /* fio's runtime without time_based stops at size: not what pfsbench's runtime does. */
    assert_null(job_line("[global]\nruntime=30\n[a]\nbs=1m\nrw=write\n", err, sizeof(err)));
    assert_non_null(strstr(err, "t.job:2: section [a]: fio's runtime without time_based stops at size or runtime, "
                                "whichever comes first; pfsbench's runtime is time based: add time_based"));
    /* pfsbench's own keys keep their meaning: a flag's word is checked as before. */
    assert_null(job_line("[a]\nfsync = yes\n", err, sizeof(err)));
    assert_non_null(strstr(err, "t.job:2: 'fsync' is a flag"));
    /* A translated section passes the run's parser (fio's sizes in bytes). */
    struct pfs_jobfile jf;
    assert_int_equal(pfs_jobfile_parse("t.job", "[a]\nbs=1m\nsize=16m\nnumjobs=2\ndirectory=/tmp\nrw=write  # w\n"
                                       "direct=1\nioengine=psync\nfsync=4\n", 0, NULL, &jf, err, sizeof(err)), 0);
    assert_int_equal(pfs_jobfile_check("t.job", &jf, 2, err, sizeof(err)), 0);
    pfs_jobfile_free(&jf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_native_sizes), cmocka_unit_test(test_tool_sizes), cmocka_unit_test(test_size_word), cmocka_unit_test(test_durations),
        cmocka_unit_test(test_options),      cmocka_unit_test(test_frontend_sizes), cmocka_unit_test(test_job_fio_keys),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
