/* The IOR, mdtest and IOzone front ends: each tool's usual lines become the
 * native argv expected; refusals name every bad option, one line each; the
 * native argv parses. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pfs/backend.h"
#include "pfs/cmdline.h"
#include "pfs/config.h"
#include "pfs/frontend.h"

/* Splits line at spaces into words (no quoting needed by these tests). */
static int split(char *line, char **v, int max)
{
    int n = 0;
    for (char *save = NULL, *w = strtok_r(line, " ", &save); w && n < max; w = strtok_r(NULL, " ", &save))
        v[n++] = w;
    return n;
}

static char msg[PFS_FRONTEND_ERRLEN];
static struct pfs_frontend_extra extra; /* what the last translation asked beside its words */

/* The native line for tool's words over nranks, or NULL when refused (msg: why). */
static const char *xlate(const char *tool, int nranks, const char *words)
{
    static char out[4096];
    char buf[2048], *v[128];
    snprintf(buf, sizeof(buf), "%s", words);
    int n = split(buf, v, 128), oc = 0;
    char **ov = NULL;
    if (pfs_frontend_translate_ex(tool, nranks, n, v, &oc, &ov, &extra, msg, sizeof(msg)) != 0) {
        assert_null(ov);
        return NULL;
    }
    assert_non_null(ov);
    assert_null(ov[oc]);
    pfs_cmdline_join(oc, ov, out, sizeof(out));
    /* The equivalent is a native line the parser takes. */
    struct pfs_config cfg;
    char err[PFS_ERRLEN];
    enum pfs_parse_result pr = pfs_config_parse(&cfg, oc, ov, err, sizeof(err));
    if (pr != PFS_PARSE_RUN && pr != PFS_PARSE_HELP && pr != PFS_PARSE_VERSION)
        fail_msg("'%s' does not parse: %s", out, err);
    pfs_frontend_free(oc, ov);
    return out;
}

/* pfsbench ior and pfsbench mdtest print their tool's shape (--format ior,
 * --format mdtest) unless the line names a format: the one occurrence is
 * checked and taken out of got, so the tables below say the rest. */
static void drop_default_format(const char *tool, const char *native, char *got)
{
    char fmt[32];
    snprintf(fmt, sizeof(fmt), " --format %s", tool);
    if (strstr(native, "--format") || strstr(native, "--help") || (strcmp(tool, "ior") != 0 && strcmp(tool, "mdtest") != 0))
        return;
    char *at = strstr(got, fmt);
    if (!at || strstr(at + 1, fmt))
        fail_msg("%s: want one%s in %s", tool, fmt, got);
    memmove(at, at + strlen(fmt), strlen(at + strlen(fmt)) + 1);
}

static void expect(const char *tool, int nranks, const char *words, const char *native)
{
    char *got = (char *)xlate(tool, nranks, words);
    if (!got)
        fail_msg("%s %s: refused:\n%s", tool, words, msg);
    drop_default_format(tool, native, got);
    if (strcmp(got, native) != 0)
        fail_msg("%s %s\n got  %s\n want %s", tool, words, got, native);
}

/* Refused, with one line per bad option naming it, and nothing else. */
static void expect_refused(const char *tool, int nranks, const char *words, const char *const *opts, int nopts)
{
    if (xlate(tool, nranks, words))
        fail_msg("%s %s was accepted", tool, words);
    int lines = 0;
    for (const char *p = msg; *p; p++)
        lines += *p == '\n';
    if (lines != nopts)
        fail_msg("%s %s: %d refusals, want %d:\n%s", tool, words, lines, nopts, msg);
    for (int i = 0; i < nopts; i++) {
        char want[64];
        snprintf(want, sizeof(want), "%s %s: ", tool, opts[i]);
        if (!strstr(msg, want))
            fail_msg("%s %s: no refusal of %s in:\n%s", tool, words, opts[i], msg);
    }
}

static void test_detect(void **state)
{
    (void)state;
    assert_string_equal(pfs_frontend_tool("pfsbench", "ior"), "ior");
    assert_string_equal(pfs_frontend_tool("/usr/bin/pfsbench-mdtest", "-n"), "mdtest");
    assert_string_equal(pfs_frontend_tool("pfsbench", "iozone"), "iozone");
    assert_null(pfs_frontend_tool("pfsbench", "-d"));
    assert_null(pfs_frontend_tool("pfsbench", NULL));
    assert_null(pfs_frontend_tool("ior", "x"));
    char *a[] = {"pfsbench", "ior", "-w"}, *b[] = {"./pfsbench-iozone", "-i", "0"}, *c[] = {"pfsbench", "-d", "x"};
    const char *t = NULL;
    assert_int_equal(pfs_frontend_detect(3, a, &t), 2);
    assert_string_equal(t, "ior");
    assert_int_equal(pfs_frontend_detect(3, b, &t), 1);
    assert_string_equal(t, "iozone");
    assert_int_equal(pfs_frontend_detect(3, c, &t), 0);
    assert_int_equal(pfs_frontend_detect(1, c, &t), 0);
}

static void test_ior(void **state)
{
    (void)state;
    /* IOR's defaults: -t 256k -b 1m, one shared file, write and read, testFile here. */
    expect("ior", 4, "", "pfsbench -d . -t 256k -b 1m --shared -p write,read");
    /* IOR's shape by default; the user's own --format wins. */
    assert_string_equal(xlate("ior", 4, ""), "pfsbench -d . -t 256k -b 1m --shared -p write,read --format ior");
    expect("ior", 2, "-w -o /d/f -- --format text", "pfsbench -d /d --file-name /d/f -t 256k -b 1m --shared -p write --format text");
    /* IO500's ior-easy and ior-hard. */
    expect("ior", 4, "-w -r -C -Q 1 -g -G 1234 -k -e -t 2m -b 9920000m -F -o /x/ior-easy/file "
                     "-O stoneWallingStatusFile=/x/ior-easy.stonewall -O stoneWallingWearOut=1 -D 300",
           "pfsbench -d /x/ior-easy --file-name /x/ior-easy/file --stonewall-file /x/ior-easy.stonewall -t 2m -b 9920000m "
           "-F -p write,read -e -k -C -D 300");
    assert_non_null(strstr(msg, "ior -G: "));
    assert_null(strstr(msg, "stoneWallingStatusFile"));
    /* IO500's later read of what the stonewalled write reached. */
    expect("ior", 4, "-r -R -C -Q 1 -g -G 1234 -k -e -t 2m -b 9920000m -F -o /x/ior-easy/file "
                     "-O stoneWallingStatusFile=/x/ior-easy.stonewall",
           "pfsbench -d /x/ior-easy --file-name /x/ior-easy/file --stonewall-file /x/ior-easy.stonewall -t 2m -b 9920000m "
           "-F -p read -e -k -C --verify");
    expect("ior", 4, "-w -r -C -Q 1 -g -G 27 -k -e -t 47008 -b 47008 -s 10000 -o /x/ior-hard/file "
                     "-O stoneWallingWearOut=1 -D 300",
           "pfsbench -d /x/ior-hard --file-name /x/ior-hard/file -t 47008 -b 470080000 --shared --layout strided -p write,read -e -k -C -D 300");
    /* Segments of a file per process are one longer block; attached values, combined flags, IOR's -x=v. */
    expect("ior", 2, "-a posix -F -s 4 -b4m -t=1m -wr -i 3 -z -v", "pfsbench -d . -t 1m -b 16m -F -p write,read -i 3 --random -v");
    expect("ior", 2, "-a MPIIO -c -b 8m -t 1m -w -o f", "pfsbench -d . --file-name f -t 1m -b 8m --shared -p write --api mpiio --collective");
    expect("ior", 2, "-a DUMMY -r -o /d/f -- --run-id R1", "pfsbench -d /d --file-name /d/f -t 256k -b 1m --shared -p read --api null --run-id R1");
    /* Checks: --verify, and -W reads back what it wrote. */
    expect("ior", 2, "-w -W -F -o /d/f", "pfsbench -d /d --file-name /d/f -t 256k -b 1m -F -p write,read --verify");
    expect("ior", 2, "-w -r -R -B -o /d/f", "pfsbench -d /d --file-name /d/f -t 256k -b 1m --shared -p write,read --verify --direct");
    /* -Y, IOR's fsync after every write: --fsync-every 1, beside -e's fsync at close. */
    expect("ior", 2, "-w -Y -F -o /d/f", "pfsbench -d /d --file-name /d/f -t 256k -b 1m -F -p write --fsync-every 1");
    expect("ior", 2, "-w -r -e -Y -a MPIIO -c -o /d/f",
           "pfsbench -d /d --file-name /d/f -t 256k -b 1m --shared -p write,read -e --fsync-every 1 --api mpiio --collective");
    /* Native options after --. */
    expect("ior", 2, "-w -F -o /d/f -- --results /r.h5 --label x", "pfsbench -d /d --file-name /d/f -t 256k -b 1m -F -p write --results /r.h5 --label x");
    expect("ior", 2, "-h", "pfsbench --help");
    /* -s N with -b above -t in a shared file: IOR's segments, --segments N over a block of N x b;
     * with -F the segments follow each other in a rank's file. */
    expect("ior", 2, "-w -r -s 3 -b 64k -t 16k -o /d/f",
           "pfsbench -d /d --file-name /d/f -t 16k -b 192k --shared --segments 3 -p write,read");
    expect("ior", 2, "-w -s 3 -b 64k -t 16k -F -o /d/f",
           "pfsbench -d /d --file-name /d/f -t 16k -b 192k -F -p write");
    /* -Z: the read back from a rank a seeded permutation picks; -X S its seed (IOR's default 0). */
    expect("ior", 4, "-w -r -Z -X 7 -F -o /d/f", "pfsbench -d /d --file-name /d/f -t 256k -b 1m -F -p write,read -C --reorder-seed 7");
    expect("ior", 4, "-w -r -Z -Q 1 -o /d/f", "pfsbench -d /d --file-name /d/f -t 256k -b 1m --shared -p write,read -C --reorder-seed 0");
    expect("ior", 4, "-w -r -X 5 -F -o /d/f", "pfsbench -d /d --file-name /d/f -t 256k -b 1m -F -p write,read");
    assert_non_null(strstr(msg, "ior -X: 5: the seed of -Z's random order: without -Z nothing to do"));
    /* -Q N: -C reads what the ranks N nodes on wrote; without -C nothing to do (a note). */
    expect("ior", 8, "-w -r -C -Q 2 -F -o /d/f", "pfsbench -d /d --file-name /d/f -t 256k -b 1m -F -p write,read -C --reorder-nodes 2");
    expect("ior", 8, "-w -r -Q 3 -F -o /d/f", "pfsbench -d /d --file-name /d/f -t 256k -b 1m -F -p write,read");
    assert_non_null(strstr(msg, "ior -Q: 3: only -C reads from other nodes"));
}

/* -o PATH names the data files (--file-name; -F: PATH.00000000 ...), and
 * -E reads the files there; a write never goes over one. */
static void test_ior_files(void **state)
{
    (void)state;
    expect("ior", 2, "-w -k -F -o /s/g", "pfsbench -d /s --file-name /s/g -t 256k -b 1m -F -p write -k");
    expect("ior", 2, "-r -k -o g", "pfsbench -d . --file-name g -t 256k -b 1m --shared -p read -k");
    expect("ior", 2, "-r -E -F -o /s//g", "pfsbench -d /s --file-name /s//g -t 256k -b 1m -F -p read");
    assert_non_null(strstr(msg, "ior -o: /s//g: IOR would remove it after reading (no -k); pfsbench never removes"));
    expect("ior", 2, "-w", "pfsbench -d . -t 256k -b 1m --shared -p write");
    assert_non_null(strstr(msg, "ior -o: not given"));
    static const char *const e[] = {"-E"};
    expect_refused("ior", 2, "-w -E -o /s/g", e, 1);
    assert_non_null(strstr(msg, "pfsbench never writes over a file it did not create; remove it first"));
    assert_non_null(strstr(msg, "lfs setstripe -c N DIR"));
    expect_refused("ior", 2, "-E -o /s/g", e, 1); /* IOR's default: write and read */
    expect_refused("ior", 2, "-r -E", e, 1);
    /* -m: a file set per repetition, IOR's PATH.REP. */
    expect("ior", 2, "-w -k -m -i 2 -F -o /s/g", "pfsbench -d /s --file-name /s/g --file-per-rep -t 256k -b 1m -F -p write -i 2 -k");
    static const char *const m[] = {"-m"};
    expect_refused("ior", 2, "-w -m -i 2", m, 1);
    static const char *const o[] = {"-o"};
    expect_refused("ior", 2, "-w -o /s/", o, 1);
    expect_refused("ior", 2, "-w -o /s/g -- --file-name /s/h", o, 1);
}

/* IOR's backends and their own options: each as the native backend's
 * (where this build has it: the native line must parse), each checked
 * against its -a, and what cannot mean the same refused. */
static void test_ior_backends(void **state)
{
    (void)state;
    if (pfs_backend_index("aio") >= 0) {
        expect("ior", 2, "-w -a AIO -B -F -o /d/f", "pfsbench -d /d --file-name /d/f -t 256k -b 1m -F -p write --api aio --iodepth 128 --direct");
        assert_non_null(strstr(msg, "ior --aio.granularity: 16: IOR submits its transfers 16 at a time; pfsbench "));
        expect("ior", 2, "-w -a aio --aio.max-pending=32 --aio.granularity 1 -o /d/f",
               "pfsbench -d /d --file-name /d/f -t 256k -b 1m --shared -p write --api aio --iodepth 32");
        assert_null(strstr(msg, "granularity"));
        static const char *const pend[] = {"--aio.max-pending"}, *const gran[] = {"--aio.granularity"};
        expect_refused("ior", 2, "-w -a AIO --aio.max-pending 4", pend, 1);
        expect_refused("ior", 2, "-w -a AIO --aio.max-pending 8 --aio.granularity 9", gran, 1);
    }
    if (pfs_backend_index("rados") >= 0) {
        expect("ior", 2, "-w -r -a RADOS --rados.pool p --rados.user u --rados.conf /c -F -o /d/obj",
               "pfsbench -d /d --file-name /d/obj -t 256k -b 1m -F -p write,read --api rados --rados-pool p --rados-id u --rados-conf /c");
        assert_non_null(strstr(msg, "ior -o: /d/obj: IOR names its objects after the whole path; pfsbench after its last "
                                    "component (obj, with -F obj.00000000 ...)"));
        static const char *const a[] = {"-a"};
        expect_refused("ior", 2, "-w -a RADOS", a, 1);
    }
    if (pfs_backend_index("cephfs") >= 0) {
        expect("ior", 2, "-w -a CEPHFS --cephfs.user u --cephfs.conf /c --cephfs.prefix /mnt/cfs/ --cephfs.remote_prefix /v -o /mnt/cfs/d/f",
               "pfsbench -d /mnt/cfs/d --file-name /mnt/cfs/d/f -t 256k -b 1m --shared -p write --api cephfs --cephfs-id u --cephfs-conf /c --cephfs-root /v");
        static const char *const p[] = {"--cephfs.prefix"}, *const lazy[] = {"--cephfs.olazy"};
        expect_refused("ior", 2, "-w -a CEPHFS --cephfs.prefix /mnt/cfs -o /mnt/cfsx/f", p, 1);
        expect_refused("ior", 2, "-w -a CEPHFS --cephfs.olazy -o /mnt/cfs/f", lazy, 1);
    }
    if (pfs_backend_index("s3") >= 0) {
        expect("ior", 2, "-w -a S3-libs3 --S3-libs3.host h:7480 --S3-libs3.use-ssl --S3-libs3.bucket-name-prefix b "
                         "--S3-libs3.dont-suffix-bucket --S3-libs3.s3-compatible -o obj",
               "pfsbench -d . --file-name obj -t 256k -b 1m --shared -p write --api s3 --s3-endpoint h:7480 --s3-https --s3-bucket b");
        assert_non_null(strstr(msg, "ior --S3-libs3.s3-compatible: IOR skips some requests' status checks"));
        expect("ior", 2, "-w -a s3 --S3-libs3.dont-suffix-bucket -o obj",
               "pfsbench -d . --file-name obj -t 256k -b 1m --shared -p write --api s3 --s3-bucket ior");
        static const char *const s3[] = {"-a", "--S3-libs3.host", "--S3-libs3.access-key", "--S3-libs3.secret-key"};
        expect_refused("ior", 2, "-w -a S3-libs3 --S3-libs3.host a;b --S3-libs3.access-key K --S3-libs3.secret-key S", s3, 4);
        assert_null(strstr(msg, " K")); /* the key is not repeated in the refusal */
        assert_non_null(strstr(msg, "export S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY, or give -- --s3-key-file FILE"));
    }
    /* an option of another backend than -a's; S3 by another library */
    static const char *const other[] = {"--rados.pool", "--aio.granularity"}, *const api[] = {"-a"};
    expect_refused("ior", 2, "-w --rados.pool p -a MPIIO --aio.granularity 1", other, 2);
    assert_non_null(strstr(msg, "ior --rados.pool: is -a RADOS's option (here -a MPIIO)"));
    expect_refused("ior", 2, "-w -a S3-4c", api, 1);
    assert_non_null(strstr(msg, "pfsbench's -a s3 is IOR's S3-libs3 (libs3); give -a S3-libs3"));
}

static void test_ior_refused(void **state)
{
    (void)state;
    static const char *const all[] = {"-E", "-d", "-T", "-Q", "-c", "-N", "-O"};
    expect_refused("ior", 2, "-Y -E -d x -T 10 -Q 0 -c -N 4 -O stoneWallingWearOut=0", all, 7);
    static const char *const zc[] = {"-Z"}, *const zq[] = {"-Q"}, *const zx[] = {"-X"};
    expect_refused("ior", 4, "-w -r -Z -C -F", zc, 1);
    expect_refused("ior", 4, "-w -r -Z -Q 2 -F", zq, 1);
    expect_refused("ior", 4, "-w -r -Z -X -3 -F", zx, 1);
    static const char *const unk[] = {"-L", "--bogus", "stray"};
    expect_refused("ior", 2, "-L 3 --bogus stray -w", unk, 3);
    static const char *const api[] = {"-a"};
    expect_refused("ior", 2, "-a DAOS", api, 1);
    expect_refused("ior", 2, "-a NOPE", api, 1);
    static const char *const sz[] = {"-t", "-b", "-i"};
    expect_refused("ior", 2, "-t 1.5m -b 0 -i x", sz, 3);
    static const char *const val[] = {"-t"};
    expect_refused("ior", 2, "-w -t", val, 1);
}

/* -O useO_DIRECT, -d (the delay between repetitions), -A (the reference
 * number: the run's label), -O summaryFormat and summaryFile (the report's
 * format, and the new file it goes to). */
static void test_ior_summary(void **state)
{
    (void)state;
    expect("ior", 2, "-w -O useO_DIRECT=1 -o /d/f", "pfsbench -d /d --file-name /d/f -t 256k -b 1m --shared -p write --direct");
    expect("ior", 2, "-w -O useO_DIRECT=0 -o /d/f", "pfsbench -d /d --file-name /d/f -t 256k -b 1m --shared -p write");
    expect("ior", 2, "-w -r -F -i 3 -d 5 -A 7 -o /d/f",
           "pfsbench -d /d --file-name /d/f -t 256k -b 1m -F -p write,read -i 3 --rep-delay 5 --label refnum=7");
    assert_non_null(strstr(msg, "ior -d: 5: pfsbench sleeps between two repetitions"));
    /* One repetition: nothing to wait between (a note, no --rep-delay). */
    expect("ior", 2, "-w -d 5 -o /d/f", "pfsbench -d /d --file-name /d/f -t 256k -b 1m --shared -p write");
    assert_non_null(strstr(msg, "ior -d: 5: with one repetition"));
    expect("ior", 2, "-w -d 0 -i 2 -o /d/f", "pfsbench -d /d --file-name /d/f -t 256k -b 1m --shared -p write -i 2");
    /* The summary: JSON or CSV in any case, alone (stdout) or to a file; default is text. */
    expect("ior", 2, "-w -O summaryFormat=json -o /d/f", "pfsbench -d /d --file-name /d/f -t 256k -b 1m --shared -p write --format json");
    assert_string_equal(extra.report, "");
    expect("ior", 2, "-w -O summaryFormat=CSV,summaryFile=/r/s.csv -o /d/f",
           "pfsbench -d /d --file-name /d/f -t 256k -b 1m --shared -p write --format csv");
    assert_string_equal(extra.report, "/r/s.csv");
    assert_non_null(strstr(msg, "ior -O: summaryFile=/r/s.csv: rank 0's csv report goes to this new file"));
    expect("ior", 2, "-w -O summaryFile=s.txt -O summaryFormat=default", "pfsbench -d . -t 256k -b 1m --shared -p write");
    assert_string_equal(extra.report, "s.txt");
    static const char *const o[] = {"-O"};
    expect_refused("ior", 2, "-w -O summaryFormat=XML", o, 1);
    expect_refused("ior", 2, "-w -O useO_DIRECT=2", o, 1);
    expect_refused("ior", 2, "-w -O summaryFile=", o, 1);
    expect_refused("ior", 2, "-w -O summaryFormat=JSON -- --format csv", o, 1);
    static const char *const a[] = {"-A"};
    expect_refused("ior", 2, "-w -A x", a, 1);
    expect_refused("ior", 2, "-w -A 3 -- --label mine", a, 1);
    /* A caller that cannot send the report to a file refuses the line. */
    char w0[] = "-w", w1[] = "-O", w2[] = "summaryFile=/r/s";
    char *v[] = {w0, w1, w2};
    int oc = 0;
    char **ov = NULL;
    assert_int_equal(pfs_frontend_translate_for("ior", 2, 3, v, &oc, &ov, msg, sizeof(msg)), -1);
    assert_null(ov);
    assert_non_null(strstr(msg, "ior -O: summaryFile"));
}

static void test_mdtest(void **state)
{
    (void)state;
    /* Without -C -T -E -r: create, stat, read, remove; the working directory. */
    expect("mdtest", 2, "-F -n 1000", "pfsbench -d . -p create,stat,read-files,delete -n 1000");
    assert_string_equal(xlate("mdtest", 2, "-F -n 1000"), "pfsbench -d . -p create,stat,read-files,delete -n 1000 "
                        "--format mdtest");
    expect("mdtest", 2, "-F -C -n 10 -- --format json", "pfsbench -d . -p create -n 10 --run-id mdtest -k --format "
                                                        "json");
    /* IO500's mdtest-easy and mdtest-hard shapes (without the -W stonewall). */
    expect("mdtest", 4, "-n 500 -u -L -F -P -G 12 -N 1 -d /x/mdt_easy -x /x/mdt_easy.stonewall -a POSIX -C",
           "pfsbench -d /x/mdt_easy -p create -n 500 --dirs per-rank -C --run-id mdtest -k");
    /* IO500's mdtest-hard line has -t (the unique directory's timing): refused, alone. */
    static const char *const t[] = {"-t"};
    expect_refused("mdtest", 4, "-n 200 -t -w 3901 -e 3901 -P -N 1 -F -d /x/mdt_hard -a POSIX", t, 1);
}

static void test_mdtest_more(void **state)
{
    (void)state;
    expect("mdtest", 4, "-n 200 -w 3901 -e 3901 -P -N 1 -F -d /x/mdt_hard",
           "pfsbench -d /x/mdt_hard -p create,stat,read-files,delete -n 200 --file-size 3901 -C");
    expect("mdtest", 2, "-CTEr -F -z 0 -b 4 -I 50 -i 3 -v -d /d", "pfsbench -d /d -p create,stat,read-files,delete -n 50 -i 3 -v");
    expect("mdtest", 2, "-C -r -F -n 10 -w 1k -a DUMMY", "pfsbench -d . -p create,delete -n 10 --file-size 1k --api null");
    /* Without -F: the directory phases are left out, with a note. */
    expect("mdtest", 2, "-n 10 -C", "pfsbench -d . -p create -n 10 --run-id mdtest -k");
    assert_non_null(strstr(msg, "mdtest -F: "));
    static const char *const all[] = {"-D", "-W", "-n", "-B", "-R"};
    expect_refused("mdtest", 2, "-D -W 300 -z 2 -n 10 -B -R5 -F", all, 5);
    /* -W: the create's stonewall, -K: keep; -T alone with a kept run's id after --. */
    expect("mdtest", 2, "-F -C -T -r -n 10 -W 5 -K", "pfsbench -d . -p create,stat,delete -n 10 -D 5 -k");
    expect("mdtest", 2, "-F -T -n 10 -- --run-id x", "pfsbench -d . -p stat -n 10 --run-id x");
    /* Without -C: the tree a -C run without -r left in -d (run id mdtest), as mdtest finds its own. */
    expect("mdtest", 2, "-F -T -n 10 -d /d", "pfsbench -d /d -p stat -n 10 --run-id mdtest");
    assert_non_null(strstr(msg, "mdtest -C: not given: this run works on the tree an earlier pfsbench mdtest -C "
                                "without -r left, /d/pfsbench.mdtest.md"));
    expect("mdtest", 2, "-F -r -n 10", "pfsbench -d . -p delete -n 10 --run-id mdtest");
    expect("mdtest", 2, "-F -C -n 10 -d /d", "pfsbench -d /d -p create -n 10 --run-id mdtest -k");
    assert_non_null(strstr(msg, "mdtest -r: not given: mdtest leaves its tree; pfsbench keeps its own as "
                                "/d/pfsbench.mdtest.md"));
    /* A rank sweep's runs each make and remove their own tree. */
    expect("mdtest", 2, "-F -C -n 10 -l 2", "pfsbench -d . -p create -n 10 --ranks 1,2");
    static const char *const ph[] = {"-e"};
    expect_refused("mdtest", 2, "-T -E -n 10 -w 100 -e 10", ph, 1);
    static const char *const nwe[] = {"-w"};
    expect_refused("mdtest", 2, "-n 10 -F -w 100", nwe, 1);
    static const char *const non[] = {"-n", "-a", "-d"};
    expect_refused("mdtest", 2, "-F -a MPIIO -d /a@/b", non, 3);
}

/* mdtest's tree (-z, -b, -L, -I) and directories only (-D). */
static void test_mdtest_tree(void **state)
{
    (void)state;
    /* -I items in each of the 1 + 3 + 9 directories; mkdir and rmdir around the files (tree creation, removal). */
    expect("mdtest", 2, "-F -u -z 2 -b 3 -I 2 -d /d",
           "pfsbench -d /d -p mkdir,create,stat,read-files,delete,rmdir -n 26 --depth 2 --branch 3 --dirs per-rank");
    /* -L: the 4 leaves hold the files. */
    expect("mdtest", 2, "-F -u -z 2 -b 2 -L -I 3 -C -r",
           "pfsbench -d . -p mkdir,create,delete,rmdir -n 12 --depth 2 --branch 2 --leaf-only --dirs per-rank");
    expect("mdtest", 2, "-F -u -z 1 -b 4 -n 10 -C", "pfsbench -d . -p mkdir,create -n 10 --depth 1 --branch 4 "
                                                    "--dirs per-rank --run-id mdtest -k");
    /* Without -u: mdtest's one tree for all ranks (--dirs shared), 1 + 2 + 4 directories of 2 files. */
    expect("mdtest", 2, "-F -z 2 -b 2 -I 2 -C -r", "pfsbench -d . -p mkdir,create,delete,rmdir -n 14 --depth 2 --branch 2");
    /* -b and -L at -z 0 change nothing, as in mdtest. */
    expect("mdtest", 2, "-F -b 5 -L -n 7", "pfsbench -d . -p create,stat,read-files,delete -n 7");
    /* -D: the tree's directories alone. */
    expect("mdtest", 2, "-D -u -z 3 -b 2 -i 2", "pfsbench -d . -p mkdir,stat-dirs,rmdir --depth 3 --branch 2 --dirs per-rank -i 2");
    expect("mdtest", 2, "-D -u -z 1 -C -T", "pfsbench -d . -p mkdir,stat-dirs --depth 1 --dirs per-rank --run-id "
                                            "mdtest -k");
    static const char *const d0[] = {"-D"};
    expect_refused("mdtest", 2, "-D -u", d0, 1);
    static const char *const de[] = {"-E"};
    expect_refused("mdtest", 2, "-D -u -z 1 -C -E", de, 1);
    expect("mdtest", 2, "-D -u -z 1 -T", "pfsbench -d . -p stat-dirs --depth 1 --dirs per-rank --run-id mdtest");
    static const char *const ni[] = {"-I"};
    expect_refused("mdtest", 2, "-F -u -z 2 -n 10 -I 5", ni, 1);
    /* -n not a multiple of the directories: mdtest's rounding, 10 / 3 = 3 in each. */
    expect("mdtest", 2, "-F -u -z 1 -b 2 -n 10", "pfsbench -d . -p mkdir,create,stat,read-files,delete,rmdir -n 9 --depth 1 "
                                                 "--branch 2 --dirs per-rank");
    static const char *const b0[] = {"-b"};
    expect_refused("mdtest", 2, "-F -u -z 1 -b 0 -n 3", b0, 1);
    expect("mdtest", 2, "-F -z 1 -n 2", "pfsbench -d . -p mkdir,create,stat,read-files,delete,rmdir -n 2 --depth 1");
    static const char *const big[] = {"-z"};
    expect_refused("mdtest", 2, "-F -u -z 9 -b 100 -n 2", big, 1);
    expect_refused("mdtest", 2, "-F -u -z 33 -n 2", big, 1);
}

/* mdtest's default -n (0: the tree alone) and its rounding of -n over the
 * tree's directories (items_per_dir = n / dirs, n = items_per_dir x dirs). */
static void test_mdtest_items(void **state)
{
    (void)state;
    expect("mdtest", 2, "-F -n 1000 -z 2 -b 3", "pfsbench -d . -p mkdir,create,stat,read-files,delete,rmdir -n 988 --depth 2 "
                                                "--branch 3");
    assert_non_null(strstr(msg, "mdtest -n: 1000 over the 13 directories that hold files: mdtest puts 1000 / 13 = 76 in "
                                "each, so 988 files per process"));
    /* -L: the 4 leaves hold them, 2 each. */
    expect("mdtest", 2, "-F -u -n 10 -z 2 -b 2 -L -C", "pfsbench -d . -p mkdir,create -n 8 --depth 2 --branch 2 "
                                                       "--leaf-only --dirs per-rank --run-id mdtest -k");
    /* A multiple: no note. */
    expect("mdtest", 2, "-F -n 26 -z 2 -b 3 -C", "pfsbench -d . -p mkdir,create -n 26 --depth 2 --branch 3 --run-id "
                                                 "mdtest -k");
    assert_null(strstr(msg, "mdtest -n: "));
    /* Without -n or -I: mdtest's 0 files; the tree is made and removed. */
    expect("mdtest", 2, "-F -u -z 2 -b 2 -w 100 -N 1 -L", "pfsbench -d . -p mkdir,rmdir --depth 2 --branch 2 --dirs per-rank");
    assert_non_null(strstr(msg, "mdtest -n: not given: mdtest's default is 0 files per process"));
    expect("mdtest", 2, "-F -u -z 1 -b 4 -n 3 -C", "pfsbench -d . -p mkdir --depth 1 --branch 4 --dirs per-rank "
                                                   "--run-id mdtest -k");
    assert_non_null(strstr(msg, "mdtest -n: 3: fewer files than directories"));
    expect("mdtest", 2, "-F -z 1 -r -- --run-id x", "pfsbench -d . -p rmdir --depth 1 --run-id x");
    static const char *const n[] = {"-n"};
    expect_refused("mdtest", 2, "-F", n, 1);
    expect_refused("mdtest", 2, "-F -n 0", n, 1);
    static const char *const t[] = {"-T"};
    expect_refused("mdtest", 2, "-F -u -z 1 -T", t, 1);
    static const char *const w[] = {"-W"};
    expect_refused("mdtest", 2, "-F -u -z 1 -W 5", w, 1);
    expect("mdtest", 2, "-F -u -z 1 -r", "pfsbench -d . -p rmdir --depth 1 --dirs per-rank --run-id mdtest");
    /* -D with -I or -n at -z 0 and -u: each rank's N directories, a tree 1 deep and N wide. */
    expect("mdtest", 2, "-D -u -I 5", "pfsbench -d . -p mkdir,stat-dirs,rmdir --depth 1 --branch 5 --dirs per-rank");
    assert_non_null(strstr(msg, "mdtest -I: 5 with -D at -z 0"));
    expect("mdtest", 2, "-D -u -n 7 -i 2", "pfsbench -d . -p mkdir,stat-dirs,rmdir --depth 1 --branch 7 --dirs per-rank -i 2");
    expect("mdtest", 2, "-D -u -n 7 -C", "pfsbench -d . -p mkdir --depth 1 --branch 7 --dirs per-rank --run-id "
                                         "mdtest -k");
    static const char *const di[] = {"-I"};
    expect_refused("mdtest", 2, "-D -I 5", di, 1);
    expect_refused("mdtest", 2, "-D -u -z 1 -I 5", di, 1);
    expect_refused("mdtest", 2, "-D -u -n 3 -I 5", di, 1);
    expect_refused("mdtest", 2, "-D -u -I 100001", di, 1);
    /* -x: a note where the create runs, and where mdtest would read the count back (pfsbench
     * reads it in the kept run's status). */
    expect("mdtest", 2, "-F -n 10 -C -W 5 -x /s", "pfsbench -d . -p create -n 10 -D 5 --run-id mdtest -k");
    assert_non_null(strstr(msg, "mdtest -x: /s: not written"));
    expect("mdtest", 2, "-F -n 10 -T -x /s -- --run-id r", "pfsbench -d . -p stat -n 10 --run-id r");
    assert_non_null(strstr(msg, "mdtest -x: /s: not read; pfsbench reads how many files the stonewalled create made "
                                "in the kept run's status"));
    /* -p: mdtest's delay before each iteration, pfsbench's between repetitions. */
    expect("mdtest", 2, "-F -n 10 -i 3 -p 2", "pfsbench -d . -p create,stat,read-files,delete -n 10 -i 3 --rep-delay 2");
    assert_non_null(strstr(msg, "mdtest -p: 2: mdtest sleeps before each iteration's tests"));
    expect("mdtest", 2, "-F -n 10 -p 2", "pfsbench -d . -p create,stat,read-files,delete -n 10");
    assert_non_null(strstr(msg, "with one iteration, none"));
    static const char *const p[] = {"-p"};
    expect_refused("mdtest", 2, "-F -n 10 -p x", p, 1);
}

/* -f, -l, -s: the task counts mdtest runs at, as --ranks in one job. */
static void test_mdtest_ranks(void **state)
{
    (void)state;
    expect("mdtest", 8, "-F -n 10 -C -f 1 -l 8 -s 2", "pfsbench -d . -p create -n 10 --ranks 1,2,4,6,8");
    assert_non_null(strstr(msg, "mdtest -l: each task count is a run of its own (--ranks 1,2,4,6,8"));
    expect("mdtest", 8, "-F -n 10 -C -f 2 -l 4", "pfsbench -d . -p create -n 10 --ranks 2,3,4");
    expect("mdtest", 4, "-F -n 10 -C -l 16 -s 3", "pfsbench -d . -p create -n 10 --ranks 1,3");
    assert_non_null(strstr(msg, "mdtest -l: 16: past the job's 4 ranks"));
    expect("mdtest", 4, "-F -n 10 -C -l 16", "pfsbench -d . -p create -n 10 --ranks 1,2,3,4");
    /* Only the job's own count, or no -l: mdtest runs once at every task. */
    expect("mdtest", 4, "-F -n 10 -C -f 4 -l 4", "pfsbench -d . -p create -n 10");
    expect("mdtest", 4, "-F -n 10 -C -f 2 -s 2", "pfsbench -d . -p create -n 10 --run-id mdtest -k");
    assert_non_null(strstr(msg, "mdtest -f: without -l mdtest runs once"));
    expect("mdtest", 4, "-F -n 10 -C -l 0", "pfsbench -d . -p create -n 10 --run-id mdtest -k");
    static const char *const f[] = {"-f"};
    expect_refused("mdtest", 4, "-F -n 10 -C -f 5 -l 8", f, 1);
    expect_refused("mdtest", 4, "-F -n 10 -C -f 0 -l 8", f, 1);
    expect_refused("mdtest", 4, "-F -n 10 -C -f 3 -l 2", f, 1);
    static const char *const s[] = {"-s"};
    expect_refused("mdtest", 200, "-F -n 10 -C -l 200", s, 1);
    expect_refused("mdtest", 4, "-F -n 10 -C -l 4 -s 0", s, 1);
    static const char *const l[] = {"-l"};
    expect_refused("mdtest", 4, "-F -n 10 -C -l 4 -- --ranks 2", l, 1);
}

static void test_iozone(void **state)
{
    (void)state;
    /* Seed 002: 16 processes, 4 GB each (here 4m), 256k records; -t 16 over 16, 4 and 1 ranks. */
    expect("iozone", 16, "-i 0 -i 1 -r 256k -s 4m -t 16", "pfsbench -d . -t 256k -b 4m -p write,rewrite,read,reread "
                                                          "--iozone-lines");
    expect("iozone", 4, "-i 0 -i 1 -r 256k -s 4m -t 16", "pfsbench -d . -t 256k -b 4m -p write,rewrite,read,reread "
                                                         "--threads 4 --iozone-lines");
    expect("iozone", 1, "-i 0 -i 1 -r 256k -s 4g -t 16", "pfsbench -d . -t 256k -b 4g -p write,rewrite,read,reread "
                                                         "--threads 16 --iozone-lines");
    assert_non_null(strstr(msg, "iozone -c: "));
    /* Seed 004 without its client list; attached -i0; IOzone's sizes are KiB without a suffix. */
    expect("iozone", 2, "-i0 -i1 -c -e -w -r 16M -s 4m -t 2 -+n", "pfsbench -d . -t 16m -b 4m -p write,read "
                                                                  "--include-close -e -k --iozone-lines");
    expect("iozone", 1, "-i 0 -r 64 -s 1024", "pfsbench -d . -t 64k -b 1m -p write,rewrite");
    expect("iozone", 1, "-i 0 -s 512k", "pfsbench -d . -t 4k -b 512k -p write,rewrite");
    expect("iozone", 2, "-i 0 -i 9 -i 1 -t 2 -F /m/a /m/b -I -T -+u -C -x", "pfsbench -d /m -t 4k -b 512k -p "
                                                                            "write,rewrite,read,reread --direct --iozone-lines");
    expect("iozone", 1, "-i 1 -f /m/one -- --run-id R1", "pfsbench -d /m -t 4k -b 512k -p read,reread --run-id R1");
    /* IOzone's working directory (pfsrun --clients: the list's column) as -- -d; bare -F names are in it */
    expect("iozone", 2, "-i 0 -t 2 -- -d /c", "pfsbench -t 4k -b 512k -p write,rewrite --iozone-lines -d /c");
    expect("iozone", 2, "-i 0 -t 2 -F a b -- --dir=/c", "pfsbench -t 4k -b 512k -p write,rewrite --iozone-lines "
                                                        "--dir=/c");
    /* -t is IOzone's throughput mode: its lines follow the report (--iozone-lines); without -t, none */
    expect("iozone", 1, "-i 0 -s 512k -t 1", "pfsbench -d . -t 4k -b 512k -p write,rewrite --iozone-lines");
}

static void test_iozone_refused(void **state)
{
    (void)state;
    static const char *const seed[] = {"-+m"};
    expect_refused("iozone", 2, "-i0 -i1 -c -e -w -r 16M -s 512G -t 2 -+n -+m threadlist", seed, 1);
    static const char *const all[] = {"-i", "-a", "-R", "-b", "-t"};
    expect_refused("iozone", 2, "-i 0 -i 2 -a -R -b out.xls -t 3", all, 5);
    static const char *const noi[] = {"-i"};
    expect_refused("iozone", 1, "-s 4m", noi, 1);
    static const char *const not[] = {"-t"};
    expect_refused("iozone", 2, "-i 0", not, 1);
    static const char *const mix[] = {"-F"};
    expect_refused("iozone", 2, "-i 0 -t 2 -F /a/x /b/y", mix, 1);
    expect_refused("iozone", 2, "-i 0 -t 4 -F /a/x /a/y", mix, 1);
    expect_refused("iozone", 2, "-i 0 -t 2 -F /a/x /a/y -- -d /c", mix, 1);
    assert_non_null(strstr(msg, "the files are in /a and -- -d names the directory too"));
    static const char *const tool[] = {"fio"};
    expect_refused("fio", 1, "-x", tool, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_detect),        cmocka_unit_test(test_ior),    cmocka_unit_test(test_ior_refused), cmocka_unit_test(test_ior_backends),
        cmocka_unit_test(test_ior_files),
        cmocka_unit_test(test_ior_summary),
        cmocka_unit_test(test_mdtest),        cmocka_unit_test(test_mdtest_more), cmocka_unit_test(test_mdtest_tree),
        cmocka_unit_test(test_mdtest_items),  cmocka_unit_test(test_mdtest_ranks), cmocka_unit_test(test_iozone),
        cmocka_unit_test(test_iozone_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
