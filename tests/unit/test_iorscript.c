/* IOR scripts (pfs/iorscript.h): IOR's grammar, options kept from test to
 * test, IOR's rules for RUN, the command line's words around -f, and the
 * refusals, each once with the script's line. */
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
#include "pfs/iorscript.h"

static char msg[PFS_FRONTEND_ERRLEN];
static struct pfs_jobfile jf;
static struct pfs_frontend_extra extra;
static char lines[8][4096]; /* each test's native line */

/* Translates script under the command line "pfsbench ior WORDS -f s.ior
 * [-- PASS]" (words split at spaces) for 2 ranks; the tests' native lines
 * in lines[], each checked to parse as a run. Returns the count, or -1
 * (msg: why). */
static int xlate(const char *words, const char *script)
{
    char buf[1024], *v[64] = {"pfsbench", "ior"};
    int n = 2;
    snprintf(buf, sizeof(buf), "%s", words);
    for (char *save = NULL, *w = strtok_r(buf, " ", &save); w && n < 62; w = strtok_r(NULL, " ", &save))
        v[n++] = w;
    if (pfs_iorscript_translate("s.ior", script, 2, n, v, &jf, &extra, msg, sizeof(msg)) != 0) {
        assert_int_equal(jf.n, 0);
        assert_null(jf.sec);
        return -1;
    }
    assert_true(jf.n <= 8);
    for (int i = 0; i < jf.n; i++) {
        struct pfs_config cfg;
        char err[PFS_ERRLEN];
        pfs_cmdline_join(jf.sec[i].argc, jf.sec[i].argv, lines[i], sizeof(lines[i]));
        if (pfs_config_parse(&cfg, jf.sec[i].argc, jf.sec[i].argv, err, sizeof(err)) != PFS_PARSE_RUN)
            fail_msg("'%s' does not parse: %s", lines[i], err);
    }
    int k = jf.n;
    pfs_jobfile_free(&jf);
    return k;
}

static int count_lines(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

#define DIR "/scratch/me"

static void test_grammar(void **state)
{
    (void)state;
    /* Before IOR START and after IOR STOP: skipped; keys any case, spaces
     * around '=', commas, comments. */
    const char *s = "not a key\n"
                    "  ior start  \n"
                    "# a comment line\n"
                    "\tAPI = POSIX\n"
                    "testFile=" DIR "/f   # the trailing comment\n"
                    "blocksize=1m, TRANSFERSIZE=256k,filePerProc=1\n"
                    "\n"
                    "writeFile=1\n"
                    "  run  \n"
                    "IOR STOP\n"
                    "bogus=1\n";
    assert_int_equal(xlate("", s), 1);
    assert_string_equal(lines[0], "pfsbench -d " DIR " --file-name " DIR "/f -t 256k -b 1m -F -p write --format ior "
                                  "--label=run1");
    assert_string_equal(msg, ""); /* testFile (-o) is the files' name: nothing to note */
    /* The end of the file ends the script too. */
    assert_int_equal(xlate("", "IOR START\nblockSize=2m\nRUN"), 1);
    assert_non_null(strstr(lines[0], " -b 2m "));
}

static void test_accumulate(void **state)
{
    (void)state;
    /* Each RUN keeps what the tests before it set; a flag at 0 is left out. */
    const char *s = "IOR START\n"
                    "testFile=" DIR "/f\n"
                    "blockSize=1m\ntransferSize=256k\nfilePerProc=1\nwriteFile=1\nreadFile=1\nrepetitions=2\n"
                    "RUN\n"
                    "transferSize=1m\n"
                    "RUN\n"
                    "readFile=0\nfilePerProc=0\nsegmentCount=4\nblockSize=64k\ntransferSize=64k\nrefnum=7\n"
                    "RUN\n"
                    "IOR STOP\n";
    assert_int_equal(xlate("", s), 3);
    assert_string_equal(lines[0], "pfsbench -d " DIR " --file-name " DIR "/f -t 256k -b 1m -F -p write,read -i 2 "
                                  "--format ior --label=run1");
    assert_string_equal(lines[1], "pfsbench -d " DIR " --file-name " DIR "/f -t 1m -b 1m -F -p write,read -i 2 "
                                  "--format ior --label=run2");
    assert_string_equal(lines[2], "pfsbench -d " DIR " --file-name " DIR "/f -t 64k -b 256k --shared --layout strided "
                                  "-p write -i 2 "
                                  "--label refnum=7 --format ior");
}

static void test_runs(void **state)
{
    (void)state;
    /* IOR's rules: RUN twice repeats the test; options after the last RUN
     * are a test of their own; no RUN at all is one test. */
    assert_int_equal(xlate("", "IOR START\ntransferSize=64k\nRUN\nRUN\nIOR STOP\n"), 2);
    assert_string_equal(lines[0], "pfsbench -d . -t 64k -b 1m --shared -p write,read --format ior --label=run1");
    assert_string_equal(lines[1], "pfsbench -d . -t 64k -b 1m --shared -p write,read --format ior --label=run2");
    assert_int_equal(xlate("", "IOR START\ntransferSize=64k\nRUN\ntransferSize=128k\nIOR STOP\n"), 2);
    assert_non_null(strstr(lines[1], " -t 128k "));
    assert_non_null(strstr(msg, "ior s.ior:4: options with no RUN after them: IOR runs them as a test of their own"));
    assert_int_equal(xlate("", "IOR START\nIOR STOP\n"), 1);
    assert_non_null(strstr(msg, "ior s.ior: no RUN: IOR runs the command line's options once"));
}

static void test_command_line(void **state)
{
    (void)state;
    /* Options before -f: every test's; pfsbench's after --: every test's
     * too; the script's value wins. */
    const char *s = "IOR START\ntransferSize=64k\nRUN\nblockSize=2m\nRUN\nIOR STOP\n";
    assert_int_equal(xlate("-w -k -b 4m -o " DIR "/f -f s.ior -- --format text", s), 2);
    assert_string_equal(lines[0], "pfsbench -d " DIR " --file-name " DIR "/f -t 64k -b 4m --shared -p write -k "
                                  "--format text --label=run1");
    assert_string_equal(lines[1], "pfsbench -d " DIR " --file-name " DIR "/f -t 64k -b 2m --shared -p write -k "
                                  "--format text --label=run2");
    assert_int_equal(count_lines(msg), 0); /* -o names the files: no note */
    /* IOR applies nothing after -f to the script's tests: refused. */
    assert_int_equal(xlate("-w -f s.ior -k", s), -1);
    assert_string_equal(msg, "ior -f: '-k': give -f FILE last, then -- and pfsbench's options: IOR applies no option "
                             "after -f to the script's tests\n");
    /* A flag the command line gives cannot be unset by the script. */
    assert_int_equal(xlate("-e -f s.ior", "IOR START\nfsync=0\nRUN\n"), -1);
    assert_non_null(strstr(msg, "ior s.ior:2: fsync=0: the command line's -e before -f sets it for every test"));
}

static void test_path(void **state)
{
    (void)state;
    char *ior[] = {"pfsbench", "ior", "-w", "-f", "a.ior", NULL};
    char *attached[] = {"pfsbench", "ior", "-fb.ior", NULL};
    char *help[] = {"pfsbench", "ior", "-f", "a.ior", "-h", NULL};
    char *mdtest[] = {"pfsbench", "mdtest", "-f", "a.ior", NULL};
    char *native[] = {"pfsbench", "-f", "job.fio", NULL};
    char *after[] = {"pfsbench", "ior", "-w", "--", "-f", "job.fio", NULL};
    char *link[] = {"/usr/bin/pfsbench-ior", "-f", "c.ior", NULL};
    assert_string_equal(pfs_iorscript_path(5, ior), "a.ior");
    assert_string_equal(pfs_iorscript_path(3, attached), "b.ior");
    assert_string_equal(pfs_iorscript_path(3, link), "c.ior");
    assert_null(pfs_iorscript_path(5, help));
    assert_null(pfs_iorscript_path(4, mdtest));
    assert_null(pfs_iorscript_path(3, native));
    assert_null(pfs_iorscript_path(6, after));
}

/* The front end's refusal of IOR's option opt (with a value, val not
 * NULL) alone: its reason. */
static const char *refusal_of(const char *opt, const char *val, char *out, size_t len)
{
    char o[8], w[8], *v[] = {o, w};
    int oc;
    char **ov;
    snprintf(o, sizeof(o), "%s", opt);
    snprintf(w, sizeof(w), "%s", val ? val : "");
    assert_int_equal(pfs_frontend_translate("ior", val ? 2 : 1, v, &oc, &ov, out, len), -1);
    const char *why = strstr(out, ": ");
    assert_non_null(why);
    out[strcspn(out, "\n")] = '\0';
    return why + 2;
}

static void test_refusals(void **state)
{
    (void)state;
    /* Every error at once, each once (blockSize breaks both tests), with
     * its line; a refused option's key with the front end's reason for it;
     * at IOR's default (multiFile=0, setAlignment=1) nothing to refuse. */
    const char *s = "IOR START\n"
                    "multiFile=0, useFileView=0, setAlignment=1, numTasks=0\n"
                    "blockSize=1x\n"
                    "multiFile=1\n"
                    "bogusKey=3\n"
                    "collective=1\n"
                    "readFile=yes\n"
                    "transferSize\n"
                    "transferSize = 1m 2m\n"
                    "RUN\n"
                    "keepFile=1,\n"
                    "RUN\n";
    assert_int_equal(xlate("", s), -1);
    char why[PFS_FRONTEND_ERRLEN], want[PFS_FRONTEND_ERRLEN];
    snprintf(want, sizeof(want),
             "ior s.ior:5: bogusKey: not an IOR script key pfsbench translates (docs/usage.md, \"IOR scripts\", "
             "lists them)\n"
             "ior s.ior:7: readFile=yes: IOR reads a whole number here (0 is off)\n"
             "ior s.ior:8: 'transferSize': a directive is KEY=VALUE\n"
             "ior s.ior:9: 'transferSize=1m 2m': a directive is KEY=VALUE, one word each\n"
             "ior s.ior:11: an empty directive (a comma with nothing after it)\n"
             "ior s.ior:3: blockSize=1x (IOR's -b): '1x' is not a size: unknown unit 'x'; this takes kmgtp; give "
             "digits, then one of kmgtp (KiB, KB ... too), all 1024-based\n"
             "ior s.ior:6: collective=1 (IOR's -c): collective I/O needs -a MPIIO\n"
             "ior s.ior:4: multiFile=1 (IOR's -m): names -o's files per repetition (PATH.REP): give -o PATH\n");
    assert_string_equal(msg, want);
    /* The command line's own bad option: as the front end says it, once. */
    assert_int_equal(xlate("-N 4 -f s.ior", "IOR START\nRUN\nRUN\n"), -1);
    snprintf(want, sizeof(want), "ior -N: %s\n", refusal_of("-N", "4", why, sizeof(why)));
    assert_string_equal(msg, want);
    /* No IOR START: IOR would run its defaults; refused. */
    assert_int_equal(xlate("", "blockSize=1m\nRUN\n"), -1);
    assert_string_equal(msg, "ior s.ior: no 'IOR START' line (IOR reads a script's options from the line after it)\n");
}

static void test_extras(void **state)
{
    (void)state;
    /* summaryFile: the job's one report file; two differ: refused. */
    assert_int_equal(xlate("", "IOR START\nsummaryFile=r.txt\nRUN\nRUN\n"), 2);
    assert_string_equal(extra.report, "r.txt");
    assert_int_equal(xlate("", "IOR START\nsummaryFile=r.txt\nRUN\nsummaryFile=q.txt\nRUN\n"), -1);
    assert_string_equal(msg, "ior s.ior:5: summaryFile=q.txt, where a test before it names r.txt: the job prints one "
                             "report\n");
    /* -O's keys and the flags with IOR's names for them. */
    assert_int_equal(xlate("", "IOR START\nuseO_DIRECT=1\nstoneWallingWearOut=1\ndeadlineForStonewalling=5\n"
                               "reorderTasks=1\nfsyncPerWrite=1\nrandomOffset=1\nsummaryFormat=JSON\nRUN\n"), 1);
    assert_string_equal(lines[0], "pfsbench -d . -t 256k -b 1m --shared -p write,read --fsync-every 1 -C --random -D 5 "
                                  "--direct --format json --label=run1");
    /* A bad -O value: told at its key's line. */
    assert_int_equal(xlate("", "IOR START\nsummaryFormat=XML\nRUN\n"), -1);
    assert_string_equal(msg, "ior s.ior:2: summaryFormat=XML: IOR's formats are default, JSON and CSV\n");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_grammar), cmocka_unit_test(test_accumulate), cmocka_unit_test(test_runs),
        cmocka_unit_test(test_command_line), cmocka_unit_test(test_path), cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_extras),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
