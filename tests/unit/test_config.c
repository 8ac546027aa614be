/* Option parsing and validation: sizes, a table of bad inputs, resolution. */
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

/* Every line of the registry parses to its index, whose name the registry
 * gives back, also a line whose layer this program lacks (mpiio: the MPI
 * layer, absent from a plain process; pfsbench has it), so that options
 * are parsed alike everywhere; a name the registry does not hold is refused. */
static void test_api_names(void **state)
{
    (void)state;
    assert_true(pfs_backend_count() >= 3);
    for (int i = 0; i < pfs_backend_count(); i++) {
        struct pfs_config cfg;
        char err[PFS_ERRLEN];
        char *argv[] = {"pfsbench", "-d", "/tmp", "--api", (char *)pfs_backend_name(i), NULL};
        if (!pfs_backend_built(i)) { /* its build switch was off: refused, saying so (test_backends) */
            assert_int_equal(pfs_config_parse(&cfg, 5, argv, err, sizeof(err)), PFS_PARSE_ERROR);
            continue;
        }
        assert_int_equal(pfs_config_parse(&cfg, 5, argv, err, sizeof(err)), PFS_PARSE_RUN);
        assert_int_equal(cfg.api, i);
        assert_string_equal(pfs_backend_name(cfg.api), argv[4]);
        assert_ptr_equal(pfs_backend_find(pfs_backend_name(i)), pfs_backend_at(i));
    }
    assert_non_null(pfs_backend_find("posix"));
    assert_non_null(pfs_backend_find("null"));
    assert_int_equal(pfs_backend_index("mpiio"), 1); /* results files hold the index order: append only */
    assert_null(pfs_backend_at(pfs_backend_index("mpiio"))); /* no MPI layer in this process */
    /* hdf5 is a module's: no table in the core, loaded by the run driver */
    assert_true(pfs_backend_is_module(pfs_backend_index("hdf5")));
    assert_null(pfs_backend_at(pfs_backend_index("hdf5")));
    assert_false(pfs_backend_is_module(pfs_backend_index("posix")));
    struct pfs_config cfg;
    char err[PFS_ERRLEN];
    char *argv[] = {"pfsbench", "-d", "/tmp", "--api", "nul", NULL};
    assert_int_equal(pfs_config_parse(&cfg, 5, argv, err, sizeof(err)), PFS_PARSE_ERROR);
    assert_non_null(strstr(err, "posix|mpiio|null"));
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
    {"-d|/tmp|-D|0", "--deadline: '0' is 0 s; give from 0.001"},
    {"-d|/tmp|-D|-5", "--deadline: '-5' is not a duration: negative;"},
    {"-d|/tmp|-D|soon", "--deadline: 'soon' is not a duration: not a number;"},
    {"-d|/tmp|-D|nan", "--deadline: 'nan' is not a duration: not a number;"},
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
    {"-d|/tmp|--api|hdf4", "not one of posix|mpiio"},
    {"-d|/tmp|--hdf5-chunk|1m", "--hdf5-chunk is an option of --api hdf5 (not available with --api posix)"},
    {"-d|/tmp|-a|null|--hdf5-coll-metadata", "--hdf5-coll-metadata is an option of --api hdf5 (not available with --api null)"},
    {"-d|/tmp|-a|null|-p|create,find,delete", "--phases find walks the directories with readdir and lstat, and --api null's small files are not files there; use --api posix for find"},
    {"-d|/tmp|-p|find", "find needs create before it"},
    {"-d|/tmp|--layout|diagonal", "not one of segmented|strided"},
    {"-d|/tmp|--layout|strided", "needs --shared"},
    {"-d|/tmp|--shared|--layout|strided|--segments|2|-t|1m|-b|4m", "--segments 2 and --layout strided both given"},
    {"-d|/tmp|-C|--reorder-seed|3|--reorder-nodes|2", "--reorder-seed and --reorder-nodes both given"},
    {"-d|/tmp|-C|--reorder-seed|-1", "--reorder-seed"},
    /* mpiio is not in a plain process: pfsbench adds "needs --api mpiio" (test_core.sh). */
    {"-d|/tmp|--collective", "--collective is not available with --api posix"},
    {"-d|/tmp|--hint|a=b", "--hint is not available with --api posix"},
    {"-d|/tmp|--api|mpiio|--hint|novalue", "not key=value"},
    {"-d|/tmp|--api|mpiio|--hint|=x", "not key=value"},
    {"-d|/tmp|--no-results|-o|x.h5", "both given"},
    {"-d|/tmp|--run-id|a/b", "may hold only"},
    {"-d|/tmp|--bogus", "unknown option '--bogus'"},
    {"-d|/tmp|--keep=1", "option '--keep' takes no value"},
    {"-d|/tmp|-Z", "unknown option '-Z'"},
    {"-d|/tmp|extra", "unexpected argument 'extra'"},
    /* issue 18: IOR's, mdtest's and IOzone's letters mean theirs or are refused naming ours */
    {"-d|/tmp|-o|/scratch/testfile", "-o '/scratch/testfile': -o names pfsbench's HDF5 results file; IOR's -o test file "
                                     "path is --file-name PATH here (or pfsbench ior -o PATH); give a name ending in .h5"},
    {"-d|/tmp|--results|r.txt", "give a name ending in .h5"},
    {"-d|/tmp|-o|/tmp/x/.h5", "give a name ending in .h5"},
    {"-d|/tmp|-o|h5", "give a name ending in .h5"},
    {"-d|/tmp|-T|10", "unknown option '-T': IOR's -T is a time limit in minutes (pfsbench: -D SECS, the stonewall); "
                      "threads per rank are --threads N"},
    {"-d|/tmp|-T10", "threads per rank are --threads N"},
    {"-d|/tmp|-c", "--collective is not available with --api posix; -c is IOR's --collective"},
    {"-d|/tmp|-w", "'-w': IOR's write phase: use -p write (or pfsbench ior ... for IOR's command line)"},
    {"-d|/tmp|-r", "'-r': IOR's read phase: use -p read"},
    {"-d|/tmp|-W", "'-W': IOR's check write: --verify"},
    {"-d|/tmp|-R", "'-R': IOR's check read: --verify"},
    {"-d|/tmp|-z", "'-z': IOR's random offsets: --random"},
    {"-d|/tmp|-s|4", "'-s': IOR's segment count: --segments N, with -b N x IOR's -b"},
    {"-d|/tmp|-Y", "'-Y': IOR's fsync per write: --fsync-every 1 (-e is fsync at close)"},
    {"-d|/tmp|-g", "'-g': IOR's intra-test barriers: always on in pfsbench"},
    {"-d|/tmp|-Q|1", "'-Q': IOR's task per node offset: -C reads another node's data"},
    {"-d|/tmp|-E", "'-E': IOR's use existing file: -p read --file-name PATH"},
    {"-d|/tmp|-O|stoneWallingWearOut=1", "'-O': IOR's -O options: see pfsbench ior"},
    {"-d|/tmp|-N|4", "'-N': mdtest/IOR task count: mpirun -np"},
    {"-d|/tmp|-u", "'-u': mdtest's unique dir per task: --dirs per-rank"},
    {"-d|/tmp|--treads|4", "unknown option '--treads': did you mean --threads?"},
    {"-d|/tmp|--verfy", "did you mean --verify?"},
    {"-d|/tmp|--d", "option '--d' is ambiguous: --dir, "},
    {"-d|/tmp|-a|DUMMY", "IOR's DUMMY is null"},
    {"-d|/tmp|--rate|123456789012345678901234567890123456", "--rate: value longer than 31 characters"},
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

/* Every unknown option at once, one line each, with its hint, and no
 * "unexpected argument" for the values they leave over (issue 18). */
static void test_unknown_all(void **state)
{
    (void)state;
    struct pfs_config cfg;
    char err[PFS_ERRLEN];
    assert_int_equal(parse(&cfg, err, "-d|/tmp|-w|-r|-W|-R|-z|-s|4|-Y|-g|-Q|1|-E|-O|a=1|-N|4|-u|-T|5|--bogus|--keep=1"),
                     PFS_PARSE_ERROR);
    static const char *const want[] = {
        "16 problems with the options (see pfsbench --help):\n  unknown option '-w': IOR's write phase",
        "\n  unknown option '-r': IOR's read phase", "\n  unknown option '-W': IOR's check write: --verify",
        "\n  unknown option '-R': IOR's check read: --verify", "\n  unknown option '-z': IOR's random offsets: --random",
        "\n  unknown option '-s': IOR's segment count", "\n  unknown option '-Y': IOR's fsync per write",
        "\n  unknown option '-g': IOR's intra-test barriers", "\n  unknown option '-Q': IOR's task per node offset",
        "\n  unknown option '-E': IOR's use existing file", "\n  unknown option '-O': IOR's -O options",
        "\n  unknown option '-N': mdtest/IOR task count: mpirun -np", "\n  unknown option '-u': mdtest's unique dir",
        "\n  unknown option '-T': IOR's -T is a time limit", "\n  unknown option '--bogus'",
        "\n  option '--keep' takes no value",
    };
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
        if (!strstr(err, want[i]))
            fail_msg("message lacks '%s':\n%s", want[i], err);
    int lines = 1;
    for (const char *p = err; (p = strchr(p, '\n')); p++)
        lines++;
    assert_int_equal(lines, 17);
    assert_null(strstr(err, "unexpected argument"));
    /* a bad value among them is one more line; alone it is the sentence it was */
    assert_int_equal(parse(&cfg, err, "-d|/tmp|-w|-t|abc"), PFS_PARSE_ERROR);
    assert_non_null(strstr(err, "2 problems with the options"));
    assert_non_null(strstr(err, "\n  --transfer: 'abc' is not a size"));
    assert_int_equal(parse(&cfg, err, "-d|/tmp|-t|abc|-i|0"), PFS_PARSE_ERROR);
    assert_null(strchr(err, '\n'));
    assert_non_null(strstr(err, "--transfer: 'abc' is not a size"));
}

/* The letters that changed meaning, and names in any case (issue 18). */
static void test_ior_letters(void **state)
{
    (void)state;
    struct pfs_config cfg;
    char err[PFS_ERRLEN];
    assert_int_equal(parse(&cfg, err, "-d|/tmp|-a|mpiio|--shared|-c"), PFS_PARSE_RUN);
    assert_true(cfg.collective);
    assert_int_equal(parse(&cfg, err, "-d|/tmp|--threads|3|--include-close"), PFS_PARSE_RUN);
    assert_int_equal(cfg.threads, 3);
    assert_false(cfg.collective);
    static const char *const apis[] = {"POSIX", "posix", "Posix", "MPIIO", "MpiIo", "NULL", "HDF5"};
    static const char *const canon[] = {"posix", "posix", "posix", "mpiio", "mpiio", "null", "hdf5"};
    for (size_t i = 0; i < sizeof(apis) / sizeof(apis[0]); i++) {
        char line[64];
        snprintf(line, sizeof(line), "-d|/tmp|-a|%s", apis[i]);
        if (parse(&cfg, err, line) != PFS_PARSE_RUN)
            fail_msg("-a %s: %s", apis[i], err);
        assert_string_equal(pfs_backend_name(cfg.api), canon[i]);
    }
    assert_int_equal(parse(&cfg, err, "-d|/tmp|--shared|--layout|STRIDED|--dirs|Shared|--order|Random|--format|JSON"),
                     PFS_PARSE_RUN);
    assert_int_equal(cfg.layout, PFS_LAYOUT_STRIDED);
    assert_int_equal(cfg.md_random, 1);
    assert_int_equal(cfg.format, PFS_FORMAT_JSON);
    /* units keep their case: it is what they mean */
    assert_int_equal(parse(&cfg, err, "-d|/tmp|--units|kb"), PFS_PARSE_ERROR);
    assert_non_null(strstr(err, "not one of MiB|KB|MB|GB"));
    static const char *const names[] = {"r.h5", "/x/y/r.H5", "r.hdf5", "r.he5", "a.b.h5"};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        char line[64];
        snprintf(line, sizeof(line), "-d|/tmp|-o|%s", names[i]);
        if (parse(&cfg, err, line) != PFS_PARSE_RUN)
            fail_msg("-o %s: %s", names[i], err);
        assert_string_equal(cfg.results, names[i]);
    }
}

/* Options that do nothing in the chosen phases are warned of, in
 * cfg->warnings; so are tiny transfers and hours of them (issue 18). */
static const struct { const char *args; const char *want; } warn_cases[] = {
    {"-d|/tmp|-n|1000", "-n/--files does nothing without a metadata phase in -p (create, stat, read-files, find, delete, mkdir, "
                        "stat-dirs, rmdir)"},
    {"-d|/tmp|--file-size|4k", "--file-size does nothing without a metadata phase"},
    {"-d|/tmp|--dirs|per-rank", "--dirs does nothing without a metadata phase"},
    {"-d|/tmp|--order|random", "--order does nothing without a metadata phase"},
    {"-d|/tmp|-p|write|--drop-caches", "--drop-caches does nothing without a read phase"},
    {"-d|/tmp|-p|write,rwmix,seeks,rwmix,create|--format|ior", "--format ior has no row for rwmix, seeks, create: IOR's "
                                                                "tables show write and read"},
    {"-d|/tmp|-p|write,create,read|--format|mdtest", "--format mdtest has no row for write, read: mdtest's tables"},
    {"-d|/tmp|-p|mkdir,create,stat-dirs,find|-n|5|--depth|1|--format|mdtest", "--format mdtest has no row for stat-dirs, find"},
    {"-d|/tmp|-p|write,create,delete,create,delete,create|-n|5|--format|mdtest",
     "--format mdtest has no row for write, create (listed again), delete (listed again): mdtest's"},
    {"-d|/tmp|-p|write,rewrite|-C", "-C/--reorder does nothing without a phase that reads"},
    {"-d|/tmp|-p|write|--verify", "--verify without a read phase in -p checks nothing: the writes write its checkable pattern anyway"},
    {"-d|/tmp|-p|mkdir,rmdir|--depth|1|-D|5", "-D/--deadline does nothing without a phase it stops in -p"},
    {"-d|/tmp|-t|4|-b|4k", "-t 4 is a transfer of 4 bytes per I/O call; IOzone's -t (a thread count) is --threads N"},
    {"-d|/tmp|-p|create,delete|--drop-caches", "--drop-caches does nothing without a read phase"},
    /* The phases a warning names are the registry's that the option applies to. */
    {"-d|/tmp|-p|write|--drop-caches", "--drop-caches does nothing without a read phase in -p (read, reread, seeks, rwmix)"},
    {"-d|/tmp|-p|create,delete|--runtime|5", "--runtime does nothing without a data phase in -p (write, rewrite, read, "
                                             "reread, seeks, rwmix)"},
    {"-d|/tmp|-p|create,delete|--fsync-every|4", "--fsync-every does nothing without a write phase in -p (write, rewrite, rwmix)"},
    {"-d|/tmp|-p|write,read|--rmw", "--rmw does nothing without a rewrite phase in -p"},
    {"-d|/tmp|-p|write,read|--seeks|10", "--seeks does nothing without a seeks phase in -p"},
    {"-d|/tmp|-p|create,delete|--sync|dsync", "--sync does nothing without a write phase in -p (write, rewrite, seeks, rwmix)"},
    {"-d|/tmp|-p|mkdir,rmdir|--depth|1|--leaf-only", "--leaf-only does nothing without a file phase in -p (create, "
                                                     "stat, read-files, find, delete): it places files"},
    {"-d|/tmp|--rep-delay|2", "--rep-delay does nothing with one repetition: it sleeps between two"},
    {"-d|/tmp|--reorder-nodes|2", "--reorder-nodes does nothing without -C/--reorder"},
    {"-d|/tmp|--reorder-seed|2", "--reorder-seed does nothing without -C/--reorder"},
};

static void test_warnings(void **state)
{
    (void)state;
    struct pfs_config cfg;
    char err[PFS_ERRLEN];
    for (size_t i = 0; i < sizeof(warn_cases) / sizeof(warn_cases[0]); i++) {
        if (parse(&cfg, err, warn_cases[i].args) != PFS_PARSE_RUN)
            fail_msg("'%s' was refused: %s", warn_cases[i].args, err);
        if (!strstr(cfg.warnings, warn_cases[i].want))
            fail_msg("'%s': warnings '%s' lack '%s'", warn_cases[i].args, cfg.warnings, warn_cases[i].want);
        assert_int_equal(cfg.warnings[strlen(cfg.warnings) - 1], '\n');
    }
    static const char *const quiet[] = {
        "-d|/tmp", "-d|/tmp|-p|create,stat,delete|-n|10|--file-size|1k|--dirs|per-rank|--order|random",
        "-d|/tmp|-p|write,read|--verify|-C|--drop-caches|-D|1|-t|512|-b|1m", "-d|/tmp|-p|write,create,stat|-C|-D|2",
        "-d|/tmp|-i|2|--rep-delay|0.5", "-d|/tmp|--warmup|1|--rep-delay|0.5", "-d|/tmp|-C|--reorder-nodes|2",
        "-d|/tmp|-p|write,rewrite,read,reread|--format|ior", "-d|/tmp|-p|mkdir,stat-dirs,rmdir|--depth|1|--format|mdtest",
        "-d|/tmp|-p|mkdir,create,stat,read-files,delete,rmdir|-n|5|--depth|1|--format|mdtest",
    };
    for (size_t i = 0; i < sizeof(quiet) / sizeof(quiet[0]); i++) {
        assert_int_equal(parse(&cfg, err, quiet[i]), PFS_PARSE_RUN);
        if (cfg.warnings[0])
            fail_msg("'%s' warns: %s", quiet[i], cfg.warnings);
    }
    /* two at once, one line each */
    assert_int_equal(parse(&cfg, err, "-d|/tmp|-p|write|-n|5|--verify"), PFS_PARSE_RUN);
    assert_non_null(strstr(cfg.warnings, "-n/--files does nothing"));
    assert_non_null(strstr(cfg.warnings, "\n--verify without a read phase"));
    /* hours of transfers: resolve warns, once however often it runs */
    assert_int_equal(parse(&cfg, err, "-d|/tmp|-t|1k|-b|1t|-p|write"), PFS_PARSE_RUN);
    assert_int_equal(pfs_config_resolve(&cfg, 1, err, sizeof(err)), 0);
    assert_int_equal(pfs_config_resolve(&cfg, 1, err, sizeof(err)), 0);
    assert_string_equal(cfg.warnings, "1073741824 transfers per stream (-b 1 TiB / -t 1 KiB) will take hours; is -t the "
                                      "size you meant? (IOzone's -t is a thread count: --threads N here)\n");
    assert_int_equal(parse(&cfg, err, "-d|/tmp|-t|1m|-b|1t"), PFS_PARSE_RUN);
    assert_int_equal(pfs_config_resolve(&cfg, 4, err, sizeof(err)), 0);
    assert_string_equal(cfg.warnings, "");
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

/* pfs_config_describe walks the option table: its text must stay what the
 * hand-written list gave (results files and tests read these keys), taken
 * from the library before the table did it. */
static const struct { int nranks; const char *args; const char *want; } golden[] = {
    {1, "-d|/tmp",
     "dir=/tmp\n"
     "mode=file-per-process\n"
     "layout=segmented\n"
     "transfer=1048576\n"
     "block=67108864\n"
     "total=67108864\n"
     "phases=write,read\n"
     "reps=1\n"
     "fsync=0\n"
     "keep=0\n"
     "direct=0\n"
     "drop_caches=0\n"
     "verify=0\n"
     "random=0\n"
     "deadline=0\n"
     "reorder=0\n"
     "api=posix\n"
     "collective=0\n"
     "hints=\n"
     "results=pfsbench-results.h5\n"
     "label=\n"
     "straggler=0.8\n"
     "include_close=1\n"
     "timeout=0\n"
     "stall_warn=10\n"
     "threads=1\n"
     "files=1000\n"
     "file_size=0\n"
     "dirs=shared\n"
     "order=sequential\n"
     "iodepth=1\n"
     "interval=1\n"
     "hdf5_chunk=0\n"
     "hdf5_align=0\n"
     "hdf5_mdc_size=0\n"
     "hdf5_coll_metadata=0\n"
     "fsync_every=0\n"
     "sync=none\n"
     "ci=5\n"
     "max_reps=20\n"
     "warmup=0\n"
     "runtime=0\n"
     "ramp=0\n"
     "rmw=0\n"
     "depth=0\n"
     "branch=1\n"
     "leaf_only=0\n"
     "seeks=8000\n"
     "rep_delay=0\n"
     "reorder_nodes=1\n"
     "segments=1\n"
     "reorder_seed=-1\n"
     "exemplars=16\n"
     "ckpt=\n"
     "ckpt_tp=0\n"
     "ckpt_pp=0\n"
     "ckpt_dp=0\n"
     "ckpt_zero=-1\n"
     "ckpt_layout=shard\n"
     "ckpt_restore=spread\n"
     "ckpt_saved=\n"
     "rate=\n"
     "rate_scope=stream\n"
     "arrivals=fixed\n"
     "random_dist=\n"
     "buffer_compress=0\n"
     "dedupe=0\n"
     "train=\n"
     "train_files=0\n"
     "train_records=0\n"
     "train_sample=0\n"
     "train_batch=0\n"
     "train_compute=-1\n"
     "train_epochs=0\n"
     "accelerators=1\n"
     "prefetch=2\n"
     "au_gate=0\n"
     "rate_sweep=\n"
     "latency_target=\n"
     "rwmix=50\n"
     "bssplit=\n"},
    {2, "-d|/tmp|--shared|--layout|strided|-a|mpiio|--collective|--hint|striping_factor=4|--hint|romio_cb_write=enable|--label|hello world|--straggler|0.5",
     "dir=/tmp\n"
     "mode=shared\n"
     "layout=strided\n"
     "transfer=1048576\n"
     "block=67108864\n"
     "total=134217728\n"
     "phases=write,read\n"
     "reps=1\n"
     "fsync=0\n"
     "keep=0\n"
     "direct=0\n"
     "drop_caches=0\n"
     "verify=0\n"
     "random=0\n"
     "deadline=0\n"
     "reorder=0\n"
     "api=mpiio\n"
     "collective=1\n"
     "hints=striping_factor=4;romio_cb_write=enable\n"
     "results=pfsbench-results.h5\n"
     "label=hello world\n"
     "straggler=0.5\n"
     "include_close=1\n"
     "timeout=0\n"
     "stall_warn=10\n"
     "threads=1\n"
     "files=1000\n"
     "file_size=0\n"
     "dirs=shared\n"
     "order=sequential\n"
     "iodepth=1\n"
     "interval=1\n"
     "hdf5_chunk=0\n"
     "hdf5_align=0\n"
     "hdf5_mdc_size=0\n"
     "hdf5_coll_metadata=0\n"
     "fsync_every=0\n"
     "sync=none\n"
     "ci=5\n"
     "max_reps=20\n"
     "warmup=0\n"
     "runtime=0\n"
     "ramp=0\n"
     "rmw=0\n"
     "depth=0\n"
     "branch=1\n"
     "leaf_only=0\n"
     "seeks=8000\n"
     "rep_delay=0\n"
     "reorder_nodes=1\n"
     "segments=1\n"
     "reorder_seed=-1\n"
     "exemplars=16\n"
     "ckpt=\n"
     "ckpt_tp=0\n"
     "ckpt_pp=0\n"
     "ckpt_dp=0\n"
     "ckpt_zero=-1\n"
     "ckpt_layout=shard\n"
     "ckpt_restore=spread\n"
     "ckpt_saved=\n"
     "rate=\n"
     "rate_scope=stream\n"
     "arrivals=fixed\n"
     "random_dist=\n"
     "buffer_compress=0\n"
     "dedupe=0\n"
     "train=\n"
     "train_files=0\n"
     "train_records=0\n"
     "train_sample=0\n"
     "train_batch=0\n"
     "train_compute=-1\n"
     "train_epochs=0\n"
     "accelerators=1\n"
     "prefetch=2\n"
     "au_gate=0\n"
     "rate_sweep=\n"
     "latency_target=\n"
     "rwmix=50\n"
     "bssplit=\n"},
    {3, "-d|/tmp|--total|3m|-t|1k|--no-results|--timeout|30|--stall-warn|0.5|-i|auto|--ci|2.5|--max-reps|50|--warmup|3",
     "dir=/tmp\n"
     "mode=file-per-process\n"
     "layout=segmented\n"
     "transfer=1024\n"
     "block=1048576\n"
     "total=3145728\n"
     "phases=write,read\n"
     "reps=auto\n"
     "fsync=0\n"
     "keep=0\n"
     "direct=0\n"
     "drop_caches=0\n"
     "verify=0\n"
     "random=0\n"
     "deadline=0\n"
     "reorder=0\n"
     "api=posix\n"
     "collective=0\n"
     "hints=\n"
     "results=\n"
     "label=\n"
     "straggler=0.8\n"
     "include_close=1\n"
     "timeout=30\n"
     "stall_warn=0.5\n"
     "threads=1\n"
     "files=1000\n"
     "file_size=0\n"
     "dirs=shared\n"
     "order=sequential\n"
     "iodepth=1\n"
     "interval=1\n"
     "hdf5_chunk=0\n"
     "hdf5_align=0\n"
     "hdf5_mdc_size=0\n"
     "hdf5_coll_metadata=0\n"
     "fsync_every=0\n"
     "sync=none\n"
     "ci=2.5\n"
     "max_reps=50\n"
     "warmup=3\n"
     "runtime=0\n"
     "ramp=0\n"
     "rmw=0\n"
     "depth=0\n"
     "branch=1\n"
     "leaf_only=0\n"
     "seeks=8000\n"
     "rep_delay=0\n"
     "reorder_nodes=1\n"
     "segments=1\n"
     "reorder_seed=-1\n"
     "exemplars=16\n"
     "ckpt=\n"
     "ckpt_tp=0\n"
     "ckpt_pp=0\n"
     "ckpt_dp=0\n"
     "ckpt_zero=-1\n"
     "ckpt_layout=shard\n"
     "ckpt_restore=spread\n"
     "ckpt_saved=\n"
     "rate=\n"
     "rate_scope=stream\n"
     "arrivals=fixed\n"
     "random_dist=\n"
     "buffer_compress=0\n"
     "dedupe=0\n"
     "train=\n"
     "train_files=0\n"
     "train_records=0\n"
     "train_sample=0\n"
     "train_batch=0\n"
     "train_compute=-1\n"
     "train_epochs=0\n"
     "accelerators=1\n"
     "prefetch=2\n"
     "au_gate=0\n"
     "rate_sweep=\n"
     "latency_target=\n"
     "rwmix=50\n"
     "bssplit=\n"},
    {2, "-d|/tmp|--threads|4|-n|10|--file-size|4k|--dirs|per-rank|--order|random|-p|create,stat,read-files,delete|-o|/tmp/r.h5",
     "dir=/tmp\n"
     "mode=file-per-process\n"
     "layout=segmented\n"
     "transfer=1048576\n"
     "block=67108864\n"
     "total=536870912\n"
     "phases=create,stat,read-files,delete\n"
     "reps=1\n"
     "fsync=0\n"
     "keep=0\n"
     "direct=0\n"
     "drop_caches=0\n"
     "verify=0\n"
     "random=0\n"
     "deadline=0\n"
     "reorder=0\n"
     "api=posix\n"
     "collective=0\n"
     "hints=\n"
     "results=/tmp/r.h5\n"
     "label=\n"
     "straggler=0.8\n"
     "include_close=1\n"
     "timeout=0\n"
     "stall_warn=10\n"
     "threads=4\n"
     "files=10\n"
     "file_size=4096\n"
     "dirs=per-rank\n"
     "order=random\n"
     "iodepth=1\n"
     "interval=1\n"
     "hdf5_chunk=0\n"
     "hdf5_align=0\n"
     "hdf5_mdc_size=0\n"
     "hdf5_coll_metadata=0\n"
     "fsync_every=0\n"
     "sync=none\n"
     "ci=5\n"
     "max_reps=20\n"
     "warmup=0\n"
     "runtime=0\n"
     "ramp=0\n"
     "rmw=0\n"
     "depth=0\n"
     "branch=1\n"
     "leaf_only=0\n"
     "seeks=8000\n"
     "rep_delay=0\n"
     "reorder_nodes=1\n"
     "segments=1\n"
     "reorder_seed=-1\n"
     "exemplars=16\n"
     "ckpt=\n"
     "ckpt_tp=0\n"
     "ckpt_pp=0\n"
     "ckpt_dp=0\n"
     "ckpt_zero=-1\n"
     "ckpt_layout=shard\n"
     "ckpt_restore=spread\n"
     "ckpt_saved=\n"
     "rate=\n"
     "rate_scope=stream\n"
     "arrivals=fixed\n"
     "random_dist=\n"
     "buffer_compress=0\n"
     "dedupe=0\n"
     "train=\n"
     "train_files=0\n"
     "train_records=0\n"
     "train_sample=0\n"
     "train_batch=0\n"
     "train_compute=-1\n"
     "train_epochs=0\n"
     "accelerators=1\n"
     "prefetch=2\n"
     "au_gate=0\n"
     "rate_sweep=\n"
     "latency_target=\n"
     "rwmix=50\n"
     "bssplit=\n"},
    {1, "-d|/tmp|-F|--shared|-F|--include-close|--file-size|0|--timeout|0.001|-D|1e9",
     "dir=/tmp\n"
     "mode=file-per-process\n"
     "layout=segmented\n"
     "transfer=1048576\n"
     "block=67108864\n"
     "total=67108864\n"
     "phases=write,read\n"
     "reps=1\n"
     "fsync=0\n"
     "keep=0\n"
     "direct=0\n"
     "drop_caches=0\n"
     "verify=0\n"
     "random=0\n"
     "deadline=1e+09\n"
     "reorder=0\n"
     "api=posix\n"
     "collective=0\n"
     "hints=\n"
     "results=pfsbench-results.h5\n"
     "label=\n"
     "straggler=0.8\n"
     "include_close=1\n"
     "timeout=0.001\n"
     "stall_warn=10\n"
     "threads=1\n"
     "files=1000\n"
     "file_size=0\n"
     "dirs=shared\n"
     "order=sequential\n"
     "iodepth=1\n"
     "interval=1\n"
     "hdf5_chunk=0\n"
     "hdf5_align=0\n"
     "hdf5_mdc_size=0\n"
     "hdf5_coll_metadata=0\n"
     "fsync_every=0\n"
     "sync=none\n"
     "ci=5\n"
     "max_reps=20\n"
     "warmup=0\n"
     "runtime=0\n"
     "ramp=0\n"
     "rmw=0\n"
     "depth=0\n"
     "branch=1\n"
     "leaf_only=0\n"
     "seeks=8000\n"
     "rep_delay=0\n"
     "reorder_nodes=1\n"
     "segments=1\n"
     "reorder_seed=-1\n"
     "exemplars=16\n"
     "ckpt=\n"
     "ckpt_tp=0\n"
     "ckpt_pp=0\n"
     "ckpt_dp=0\n"
     "ckpt_zero=-1\n"
     "ckpt_layout=shard\n"
     "ckpt_restore=spread\n"
     "ckpt_saved=\n"
     "rate=\n"
     "rate_scope=stream\n"
     "arrivals=fixed\n"
     "random_dist=\n"
     "buffer_compress=0\n"
     "dedupe=0\n"
     "train=\n"
     "train_files=0\n"
     "train_records=0\n"
     "train_sample=0\n"
     "train_batch=0\n"
     "train_compute=-1\n"
     "train_epochs=0\n"
     "accelerators=1\n"
     "prefetch=2\n"
     "au_gate=0\n"
     "rate_sweep=\n"
     "latency_target=\n"
     "rwmix=50\n"
     "bssplit=\n"},
    {1, "-d|/tmp|-a|hdf5|--hdf5-chunk|1m|--hdf5-align|4k|--hdf5-mdc-size|2m|--hdf5-coll-metadata",
     "dir=/tmp\n"
     "mode=file-per-process\n"
     "layout=segmented\n"
     "transfer=1048576\n"
     "block=67108864\n"
     "total=67108864\n"
     "phases=write,read\n"
     "reps=1\n"
     "fsync=0\n"
     "keep=0\n"
     "direct=0\n"
     "drop_caches=0\n"
     "verify=0\n"
     "random=0\n"
     "deadline=0\n"
     "reorder=0\n"
     "api=hdf5\n"
     "collective=0\n"
     "hints=\n"
     "results=pfsbench-results.h5\n"
     "label=\n"
     "straggler=0.8\n"
     "include_close=1\n"
     "timeout=0\n"
     "stall_warn=10\n"
     "threads=1\n"
     "files=1000\n"
     "file_size=0\n"
     "dirs=shared\n"
     "order=sequential\n"
     "iodepth=1\n"
     "interval=1\n"
     "hdf5_chunk=1048576\n"
     "hdf5_align=4096\n"
     "hdf5_mdc_size=2097152\n"
     "hdf5_coll_metadata=1\n"
     "fsync_every=0\n"
     "sync=none\n"
     "ci=5\n"
     "max_reps=20\n"
     "warmup=0\n"
     "runtime=0\n"
     "ramp=0\n"
     "rmw=0\n"
     "depth=0\n"
     "branch=1\n"
     "leaf_only=0\n"
     "seeks=8000\n"
     "rep_delay=0\n"
     "reorder_nodes=1\n"
     "segments=1\n"
     "reorder_seed=-1\n"
     "exemplars=16\n"
     "ckpt=\n"
     "ckpt_tp=0\n"
     "ckpt_pp=0\n"
     "ckpt_dp=0\n"
     "ckpt_zero=-1\n"
     "ckpt_layout=shard\n"
     "ckpt_restore=spread\n"
     "ckpt_saved=\n"
     "rate=\n"
     "rate_scope=stream\n"
     "arrivals=fixed\n"
     "random_dist=\n"
     "buffer_compress=0\n"
     "dedupe=0\n"
     "train=\n"
     "train_files=0\n"
     "train_records=0\n"
     "train_sample=0\n"
     "train_batch=0\n"
     "train_compute=-1\n"
     "train_epochs=0\n"
     "accelerators=1\n"
     "prefetch=2\n"
     "au_gate=0\n"
     "rate_sweep=\n"
     "latency_target=\n"
     "rwmix=50\n"
     "bssplit=\n"},
};

/* -i auto: the word stored as 0, described and typed as "auto"; the slots
 * are warm-up + measured (the cap under auto), never counted twice when a
 * described line is parsed again; --ci/--max-reps warn without auto. */
static char reps_text[64]; /* f->s lives only during the call */
static int field_reps(void *arg, const struct pfs_field *f)
{
    if (strcmp(f->key, "reps") == 0) {
        *(struct pfs_field *)arg = *f;
        snprintf(reps_text, sizeof(reps_text), "%s", f->s);
    }
    return 0;
}

static void test_reps_auto(void **state)
{
    (void)state;
    struct pfs_config cfg;
    char err[PFS_ERRLEN], buf[8192];
    assert_int_equal(parse(&cfg, err, "-d|/tmp|-i|auto|--warmup|2"), PFS_PARSE_RUN);
    assert_int_equal(cfg.reps, 0);
    assert_float_equal(cfg.ci, 5, 0);
    assert_int_equal(cfg.max_reps, 20);
    assert_int_equal(pfs_config_rep_slots(&cfg), 22);
    assert_string_equal(cfg.warnings, "");
    pfs_config_describe(&cfg, buf, sizeof(buf));
    assert_non_null(strstr(buf, "\nreps=auto\n"));
    assert_non_null(strstr(buf, "\nwarmup=2\n"));
    struct pfs_field f = {0};
    pfs_config_fields(&cfg, field_reps, &f);
    assert_int_equal(f.type, PFS_FIELD_STR);
    assert_string_equal(reps_text, "auto");
    assert_int_equal(parse(&cfg, err, "-d|/tmp|--reps|auto|--ci|0.1|--max-reps|100000"), PFS_PARSE_RUN);
    assert_int_equal(pfs_config_rep_slots(&cfg), 100000);
    /* A fixed count: slots are warm-up + reps, and the count stays the user's. */
    assert_int_equal(parse(&cfg, err, "-d|/tmp|-i|3|--warmup|2"), PFS_PARSE_RUN);
    assert_int_equal(cfg.reps, 3);
    assert_int_equal(pfs_config_rep_slots(&cfg), 5);
    pfs_config_fields(&cfg, field_reps, &f);
    assert_int_equal(f.type, PFS_FIELD_INT);
    assert_int_equal(f.i, 3);
    static const char *const refused[] = {"-d|/tmp|-i|0", "-d|/tmp|-i|AUTO", "-d|/tmp|-i|auto1", "-d|/tmp|--ci|0.05",
                                          "-d|/tmp|--ci|101", "-d|/tmp|--max-reps|1", "-d|/tmp|--warmup|-1"};
    for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
        assert_int_equal(parse(&cfg, err, refused[i]), PFS_PARSE_ERROR);
    assert_int_equal(parse(&cfg, err, "-d|/tmp|-i|x"), PFS_PARSE_ERROR);
    assert_non_null(strstr(err, "from 1 to 1000000 or auto"));
    assert_int_equal(parse(&cfg, err, "-d|/tmp|-i|2|--ci|3|--max-reps|9"), PFS_PARSE_RUN);
    assert_non_null(strstr(cfg.warnings, "--ci does nothing without --reps auto"));
    assert_non_null(strstr(cfg.warnings, "--max-reps does nothing without --reps auto"));
    assert_int_equal(parse(&cfg, err, "-d|/tmp|--ci|3"), PFS_PARSE_RUN); /* -i 1, the default */
    assert_non_null(strstr(cfg.warnings, "--ci does nothing"));
}

/* --random-dist: fio's spec, stored as given and described; a spec that
 * does not parse refused in the parser's words; warned of where no phase
 * draws random offsets over a laid-out block. */
static void test_random_dist(void **state)
{
    (void)state;
    struct pfs_config cfg;
    char err[PFS_ERRLEN], buf[8192];
    assert_int_equal(parse(&cfg, err, "-d|/tmp|-p|write,read|--random|--random-dist|zipf:1.2"), PFS_PARSE_RUN);
    assert_string_equal(cfg.random_dist, "zipf:1.2");
    assert_string_equal(cfg.warnings, "");
    pfs_config_describe(&cfg, buf, sizeof(buf));
    assert_non_null(strstr(buf, "\nrandom=1\n"));
    assert_non_null(strstr(buf, "\nrandom_dist=zipf:1.2\n"));
    /* seeks draws its own offsets: no --random needed */
    assert_int_equal(parse(&cfg, err, "-d|/tmp|-p|write,seeks|--random-dist|pareto:0.2:0.5"), PFS_PARSE_RUN);
    assert_string_equal(cfg.warnings, "");
    static const char *const idle[] = {"-d|/tmp|-p|write,read|--random-dist|zipf:1.2",
                                       "-d|/tmp|-p|write|--random|--random-dist|zipf:1.2",
                                       "-d|/tmp|-p|write,rwmix|--random-dist|zipf:1.2"};
    for (size_t i = 0; i < sizeof(idle) / sizeof(idle[0]); i++) {
        assert_int_equal(parse(&cfg, err, idle[i]), PFS_PARSE_RUN);
        assert_non_null(strstr(cfg.warnings, "--random-dist does nothing here: it draws the offsets of rewrite, read, "
                                             "reread and rwmix with --random (-z), and of seeks"));
    }
    static const struct { const char *args; const char *want; } bad[] = {
        {"-d|/tmp|--random-dist|gauss:3",
         "--random-dist \"gauss:3\": unknown distribution (uniform, zipf:THETA, pareto:H, normal:W; then :CENTER)"},
        {"-d|/tmp|--random-dist|zipf", "--random-dist \"zipf\": zipf needs a number"},
        {"-d|/tmp|--random-dist|pareto:0.2:2", "--random-dist \"pareto:0.2:2\": the center must be between 0 and 1, not 2"},
        {"-d|/tmp|--random-dist|uniform:3", "--random-dist \"uniform:3\": uniform takes no value"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        assert_int_equal(parse(&cfg, err, bad[i].args), PFS_PARSE_ERROR);
        if (!strstr(err, bad[i].want))
            fail_msg("%s: '%s' lacks '%s'", bad[i].args, err, bad[i].want);
    }
}

/* --buffer-compress and --dedupe: stored and described; a transfer the
 * content cannot be cut in refused; warned of without a write. */
static void test_content_opts(void **state)
{
    (void)state;
    struct pfs_config cfg;
    char err[PFS_ERRLEN], buf[8192];
    assert_int_equal(parse(&cfg, err, "-d|/tmp|-t|4k|--buffer-compress|50|--dedupe|25"), PFS_PARSE_RUN);
    assert_int_equal(cfg.buffer_compress, 50);
    assert_int_equal(cfg.dedupe, 25);
    assert_true(pfs_config_content(&cfg));
    assert_string_equal(cfg.warnings, "");
    pfs_config_describe(&cfg, buf, sizeof(buf));
    assert_non_null(strstr(buf, "\nbuffer_compress=50\ndedupe=25\n"));
    assert_int_equal(parse(&cfg, err, "-d|/tmp"), PFS_PARSE_RUN);
    assert_false(pfs_config_content(&cfg));
    /* a transfer below 512 bytes is its own chunk */
    assert_int_equal(parse(&cfg, err, "-d|/tmp|-t|256|--buffer-compress|90|--dedupe|100"), PFS_PARSE_RUN);
    assert_int_equal(parse(&cfg, err, "-d|/tmp|-p|read|--run-id|x|--dedupe|50"), PFS_PARSE_RUN);
    assert_non_null(strstr(cfg.warnings, "--dedupe does nothing without a write phase in -p (write, rewrite, seeks, rwmix)"));
    /* a verified read of kept files expects the content they were written with */
    assert_int_equal(parse(&cfg, err, "-d|/tmp|-p|read|--run-id|x|--dedupe|50|--verify"), PFS_PARSE_RUN);
    assert_string_equal(cfg.warnings, "");
    static const struct { const char *args; const char *want; } bad[] = {
        {"-d|/tmp|-t|1000|--buffer-compress|50", "--buffer-compress 50 --dedupe 0 with -t 1000: the dedupe unit (1000 "
                                                "bytes) must be a multiple of 8 and, with compression, of the chunk (512)"},
        {"-d|/tmp|-t|100|--dedupe|10", "--buffer-compress 0 --dedupe 10 with -t 100: the dedupe unit (100 bytes) must be"},
        {"-d|/tmp|--buffer-compress|100", "--buffer-compress"},
        {"-d|/tmp|--dedupe|101", "--dedupe"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        assert_int_equal(parse(&cfg, err, bad[i].args), PFS_PARSE_ERROR);
        if (!strstr(err, bad[i].want))
            fail_msg("%s: '%s' lacks '%s'", bad[i].args, err, bad[i].want);
    }
}

static void test_describe_golden(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(golden) / sizeof(golden[0]); i++) {
        struct pfs_config cfg;
        char err[PFS_ERRLEN], buf[8192];
        assert_int_equal(parse(&cfg, err, golden[i].args), PFS_PARSE_RUN);
        assert_int_equal(pfs_config_resolve(&cfg, golden[i].nranks, err, sizeof(err)), 0);
        size_t n = pfs_config_describe(&cfg, buf, sizeof(buf));
        assert_string_equal(buf, golden[i].want);
        assert_int_equal(n, strlen(golden[i].want));
        for (size_t cut = 0; cut < n + 2; cut += 7) {
            char *b = malloc(cut ? cut : 1);
            assert_int_equal(pfs_config_describe(&cfg, b, cut), n);
            if (cut)
                assert_int_equal(strncmp(b, golden[i].want, cut - 1), 0);
            free(b);
        }
    }
}

/* The registry: its order, every list derived from it, and what each
 * phase's ops carry. */
static void test_phase_registry(void **state)
{
    (void)state;
    char buf[512];
    pfs_phase_names(buf, sizeof(buf), ",", PFS_PHASE_ANY, 0, 0);
    assert_string_equal(buf, "write,rewrite,read,reread,create,stat,read-files,find,delete,mkdir,stat-dirs,rmdir,seeks,ckpt-save,"
                             "ckpt-restore,train-gen,train,rwmix");
    pfs_phase_names(buf, sizeof(buf), ", ", PFS_PHASE_META, 0, PFS_PHF_DIRS);
    assert_string_equal(buf, "create, stat, read-files, find, delete");
    pfs_phase_names(buf, sizeof(buf), ", ", PFS_PHASE_ANY, PFS_PHF_OTHERS, 0);
    assert_string_equal(buf, "read, reread, stat, read-files");
    assert_int_equal(pfs_phase_names(buf, 4, ",", PFS_PHASE_DATA, 0, 0),
                     strlen("write,rewrite,read,reread,seeks,ckpt-save,ckpt-restore,train-gen,train,rwmix"));
    assert_string_equal(buf, "wri");
    int def[PFS_MAX_PHASES];
    assert_int_equal(pfs_phase_defaults(def), 2);
    assert_true(def[0] == PFS_PH_WRITE && def[1] == PFS_PH_READ);
    static const struct { int phase; const char *unit, *rate; unsigned flags; } want[] = {
        {PFS_PH_WRITE, "bytes", "bytes/s", PFS_PHF_SYNCS}, {PFS_PH_REWRITE, "bytes", "bytes/s", PFS_PHF_SYNCS | PFS_PHF_RMW},
        {PFS_PH_SEEKS, "seeks", "seeks/s", 0},             {PFS_PH_STAT, "files", "files/s", PFS_PHF_SIZED},
        {PFS_PH_FIND, "files", "files/s", PFS_PHF_SIZED | PFS_PHF_WALKS | PFS_PHF_MATCHES},
        {PFS_PH_READFILES, "files", "files/s", PFS_PHF_SIZED}, {PFS_PH_MKDIR, "dirs", "dirs/s", 0},
        {PFS_PH_RMDIR, "dirs", "dirs/s", 0},
    };
    const unsigned owned = PFS_PHF_SYNCS | PFS_PHF_RMW | PFS_PHF_SIZED | PFS_PHF_WALKS | PFS_PHF_MATCHES;
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        assert_string_equal(pfs_phase_unit_name(want[i].phase), want[i].unit);
        assert_string_equal(pfs_phase_rate_unit(want[i].phase), want[i].rate);
        assert_int_equal(pfs_phase_desc(want[i].phase)->flags & owned, want[i].flags);
    }
    for (int k = 0; k < PFS_PH_KINDS; k++) {
        const struct pfs_phase_ops *d = pfs_phase_desc(k);
        assert_non_null(d->work);
        assert_non_null(d->run);
        assert_int_equal(d->unit == PFS_UNIT_DIRS, pfs_phase_has(k, PFS_PHF_DIRS));
    }
    assert_string_equal(pfs_phase_unit_name(PFS_PH_KINDS), "?");
    struct pfs_config cfg;
    char err[PFS_ERRLEN];
    assert_int_equal(parse(&cfg, err, "-d|/tmp|-p|write,create,find,delete"), PFS_PARSE_RUN);
    assert_true(pfs_phase_listed(&cfg, PFS_PHASE_META, PFS_PHF_MATCHES, 0));
    assert_true(pfs_phase_listed(&cfg, PFS_PHASE_DATA, PFS_PHF_CREATES, 0));
    assert_false(pfs_phase_listed(&cfg, PFS_PHASE_DATA, PFS_PHF_READS, 0));
    assert_false(pfs_phase_listed(&cfg, PFS_PHASE_META, PFS_PHF_REMOVES, PFS_PHF_REMOVES));
    assert_true(pfs_phase_listed(&cfg, PFS_PHASE_ANY, PFS_PHF_REMOVES, PFS_PHF_DIRS));
    /* --help's -p line lists the registry. */
    char *help = NULL;
    size_t hlen = 0;
    FILE *out = open_memstream(&help, &hlen);
    pfs_config_usage(out);
    fclose(out);
    pfs_phase_names(buf, sizeof(buf), ",", PFS_PHASE_ANY, 0, 0);
    char line[600];
    snprintf(line, sizeof(line), "the phases to run, in order (default write,read); LIST is a comma list of %s\n", buf);
    assert_non_null(strstr(help, line));
    free(help);
}

/* The phase table against what the enum ranges said before it. */
static void test_phase_table(void **state)
{
    (void)state;
    static const struct { int phase; const char *name; int read, write, meta, others, creates; } want[] = {
        {PFS_PH_WRITE, "write", 0, 1, 0, 0, 1},         {PFS_PH_REWRITE, "rewrite", 0, 1, 0, 0, 0},
        {PFS_PH_READ, "read", 1, 0, 0, 1, 0},           {PFS_PH_REREAD, "reread", 1, 0, 0, 1, 0},
        {PFS_PH_CREATE, "create", 0, 0, 1, 0, 1},       {PFS_PH_STAT, "stat", 0, 0, 1, 1, 0},
        {PFS_PH_READFILES, "read-files", 0, 0, 1, 1, 0}, {PFS_PH_FIND, "find", 0, 0, 1, 0, 0},
        {PFS_PH_DELETE, "delete", 0, 0, 1, 0, 0},        {PFS_PH_MKDIR, "mkdir", 0, 0, 1, 0, 1},
        {PFS_PH_STATDIRS, "stat-dirs", 0, 0, 1, 0, 0},  {PFS_PH_RMDIR, "rmdir", 0, 0, 1, 0, 0},
        {PFS_PH_SEEKS, "seeks", 1, 1, 0, 0, 0},
        /* Data phases on files of their own: not reads or writes of the data files. */
        {PFS_PH_CKPT_SAVE, "ckpt-save", 0, 0, 0, 0, 0}, {PFS_PH_CKPT_RESTORE, "ckpt-restore", 0, 0, 0, 0, 0},
        {PFS_PH_TRAIN_GEN, "train-gen", 0, 0, 0, 0, 0}, {PFS_PH_TRAIN, "train", 0, 0, 0, 0, 0},
        {PFS_PH_RWMIX, "rwmix", 1, 1, 0, 0, 0},
    };
    assert_int_equal(sizeof(want) / sizeof(want[0]), PFS_PH_KINDS);
    for (size_t i = 0; i < PFS_PH_KINDS; i++) {
        int k = want[i].phase;
        const struct pfs_phase_ops *d = pfs_phase_desc(k);
        assert_non_null(d);
        assert_string_equal(pfs_phase_name(k), want[i].name);
        assert_int_equal(pfs_phase_find(want[i].name, strlen(want[i].name)), k);
        assert_int_equal(pfs_phase_is_read(k), want[i].read);
        assert_int_equal(pfs_phase_is_write(k), want[i].write);
        assert_int_equal(pfs_phase_is_meta(k), want[i].meta);
        assert_int_equal(pfs_phase_has(k, PFS_PHF_OTHERS), want[i].others);
        assert_int_equal(pfs_phase_has(k, PFS_PHF_CREATES), want[i].creates);
        const int own = pfs_phase_has(k, PFS_PHF_OWN_FILES); /* the checkpoint's: run to their end */
        assert_int_equal(own, k == PFS_PH_CKPT_SAVE || k == PFS_PH_CKPT_RESTORE || k == PFS_PH_TRAIN_GEN ||
                                  k == PFS_PH_TRAIN);
        assert_int_equal(pfs_phase_has(k, PFS_PHF_ACCEL), k == PFS_PH_TRAIN);
        assert_int_equal(pfs_phase_has(k, PFS_PHF_STONEWALL), (!want[i].meta && !own) || k == PFS_PH_CREATE);
        assert_int_equal(pfs_phase_has(k, PFS_PHF_SETS_COUNT), k == PFS_PH_WRITE || k == PFS_PH_CREATE);
        /* Under -D every stonewalled phase wears out but seeks and rwmix (no content depends on their count). */
        assert_int_equal(pfs_phase_has(k, PFS_PHF_WEARS_OUT),
                         pfs_phase_has(k, PFS_PHF_STONEWALL) && k != PFS_PH_SEEKS && k != PFS_PH_RWMIX);
        assert_true(d->needs >= -1 && d->needs < PFS_PH_KINDS && d->needs != k);
        assert_true(d->needs < 0 || pfs_phase_has(d->needs, PFS_PHF_CREATES));
        assert_non_null(d->op);
        assert_true(d->help && d->help[0]);
    }
    assert_null(pfs_phase_desc(-1));
    assert_null(pfs_phase_desc(PFS_PH_KINDS));
    assert_string_equal(pfs_phase_name(PFS_PH_KINDS), "?");
    assert_false(pfs_phase_is_meta(-1) || pfs_phase_is_read(PFS_PH_KINDS) || pfs_phase_has(99, 0));
    assert_int_equal(pfs_phase_find("reads", 4), PFS_PH_READ);
    assert_int_equal(pfs_phase_find("reads", 5), -1);
    /* The parser's messages name phases from the table. */
    struct pfs_config cfg;
    char err[PFS_ERRLEN];
    assert_int_equal(parse(&cfg, err, "-d|/tmp|-p|create,delete,read-files"), PFS_PARSE_RUN);
    assert_true(pfs_config_has_phase(&cfg, PFS_PH_CREATE) && pfs_config_has_phase(&cfg, PFS_PH_READFILES));
    assert_false(pfs_config_has_phase(&cfg, PFS_PH_STAT) || pfs_config_has_phase(&cfg, PFS_PH_WRITE) ||
                 pfs_config_has_phase(&cfg, -1));
    assert_int_equal(parse(&cfg, err, "-d|/tmp|-p|stat,create"), PFS_PARSE_ERROR);
    assert_string_equal(err, "--phases: stat needs create before it in the list (e.g. -p create,stat,delete)");
    assert_int_equal(parse(&cfg, err, "-d|/tmp|-p|write,bogus"), PFS_PARSE_ERROR);
    assert_string_equal(err, "--phases: unknown phase 'bogus'; use a comma list of "
                             "write,rewrite,read,reread,create,stat,read-files,find,delete,mkdir,stat-dirs,rmdir,seeks,ckpt-save,"
                             "ckpt-restore,train-gen,train,rwmix");
    /* find needs create before it, like stat. */
    assert_int_equal(parse(&cfg, err, "-d|/tmp|-p|create,find,delete"), PFS_PARSE_RUN);
    assert_int_equal(parse(&cfg, err, "-d|/tmp|-p|find,create"), PFS_PARSE_ERROR);
    assert_string_equal(err, "--phases: find needs create before it in the list (e.g. -p create,stat,delete)");
}

/* --depth/--branch/--leaf-only and the directory phases: the tree's size and the order rules. */
static void test_md_tree(void **state)
{
    (void)state;
    struct pfs_config cfg;
    char err[PFS_ERRLEN];
    assert_int_equal(parse(&cfg, err, "-d|/tmp|-p|create,delete"), PFS_PARSE_RUN);
    assert_int_equal(cfg.md_depth, 0);
    assert_int_equal(cfg.md_branch, 1);
    assert_int_equal(cfg.md_leaf_only, 0);
    assert_int_equal(pfs_config_tree_dirs(&cfg), 0);
    assert_int_equal(parse(&cfg, err, "-d|/tmp|--depth|3|--branch|2|-p|mkdir,stat-dirs,create,stat,delete,rmdir"),
                     PFS_PARSE_RUN);
    assert_int_equal(pfs_config_tree_dirs(&cfg), 2 + 4 + 8);
    assert_int_equal(parse(&cfg, err, "-d|/tmp|--depth|4|--branch|1|--leaf-only|-p|mkdir,create,delete,rmdir"),
                     PFS_PARSE_RUN);
    assert_int_equal(pfs_config_tree_dirs(&cfg), 4);
    assert_int_equal(cfg.md_leaf_only, 1);
    assert_int_equal(parse(&cfg, err, "-d|/tmp|--depth|2|--branch|10|-p|mkdir,rmdir|-i|3"), PFS_PARSE_RUN);
    assert_int_equal(pfs_config_tree_dirs(&cfg), 110);
    static const struct { const char *args; const char *want; } bad[] = {
        {"-d|/tmp|-p|mkdir,rmdir", "--phases: mkdir needs --depth 1 or more (the tree of directories it works on)"},
        {"-d|/tmp|--depth|1|-p|stat-dirs", "--phases: stat-dirs needs mkdir before it in the list (e.g. -p create,stat,delete)"},
        {"-d|/tmp|--depth|1|-p|create,delete",
         "--phases: create with --depth 1 needs mkdir before it (the tree it works on), e.g. -p mkdir,create,stat,delete,rmdir"},
        {"-d|/tmp|--depth|1|-p|mkdir,create,rmdir",
         "--phases: rmdir after create needs delete between them (the tree's directories must be empty)"},
        {"-d|/tmp|--depth|1|-p|mkdir,mkdir", "--phases: mkdir twice without rmdir between (the tree is there already)"},
        {"-d|/tmp|--depth|1|-p|mkdir,rmdir,stat-dirs",
         "--phases: stat-dirs with --depth 1 needs mkdir before it (the tree it works on), e.g. -p mkdir,create,stat,delete,rmdir"},
        {"-d|/tmp|--depth|1|-p|mkdir,create,delete|-i|2",
         "--phases: the list repeats (-i, --warmup) and mkdir would make the tree the last repetition kept; end the list "
         "with rmdir (after delete)"},
        {"-d|/tmp|--depth|9|--branch|100|-p|mkdir", "--depth 9 --branch 100 is a tree of more than 100000000 directories per stream"},
        {"-d|/tmp|--depth|33|-p|mkdir", "--depth"},
        {"-d|/tmp|--branch|0|-p|mkdir", "--branch"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        assert_int_equal(parse(&cfg, err, bad[i].args), PFS_PARSE_ERROR);
        if (!strstr(err, bad[i].want))
            fail_msg("%s: '%s' lacks '%s'", bad[i].args, err, bad[i].want);
    }
    /* An option that does nothing is warned of. */
    assert_int_equal(parse(&cfg, err, "-d|/tmp|--branch|3|-p|create,delete"), PFS_PARSE_RUN);
    assert_non_null(strstr(cfg.warnings, "--branch does nothing without --depth 1 or more"));
    assert_int_equal(parse(&cfg, err, "-d|/tmp|--depth|2|-p|write"), PFS_PARSE_RUN);
    assert_non_null(strstr(cfg.warnings, "--depth does nothing without a metadata phase"));
    assert_int_equal(parse(&cfg, err, "-d|/tmp|--depth|2|--leaf-only|-p|mkdir,rmdir"), PFS_PARSE_RUN);
    assert_non_null(strstr(cfg.warnings, "--leaf-only does nothing without a file phase"));
}

static void test_list_options_parse(void **state)
{
    (void)state;
    struct pfs_config cfg, def;
    char err[PFS_ERRLEN];
    pfs_config_defaults(&def);
    assert_int_equal(parse(&cfg, err, "--list-options=json"), PFS_PARSE_LIST_OPTIONS);
    assert_int_equal(parse(&cfg, err, "--list-options|json"), PFS_PARSE_LIST_OPTIONS);
    /* The rest of the line does not apply: cfg holds the defaults, no directory. */
    assert_int_equal(parse(&cfg, err, "-d|/tmp|-t|4k|--list-options=json"), PFS_PARSE_LIST_OPTIONS);
    assert_memory_equal(&cfg, &def, sizeof(cfg));
    assert_int_equal(parse(&cfg, err, "--list-options=json|--help"), PFS_PARSE_HELP);
    assert_int_equal(parse(&cfg, err, "--list-options=xml"), PFS_PARSE_ERROR);
    assert_string_equal(err, "--list-options: 'xml' is not one of json");
    assert_int_equal(parse(&cfg, err, "--list-options"), PFS_PARSE_ERROR);
    assert_non_null(strstr(err, "needs a value"));
    assert_int_equal(parse(&cfg, err, "--list-options=json|-t|0"), PFS_PARSE_ERROR);
}

/* A strict JSON checker, enough for one document: 0 when s holds exactly
 * one value and white space. */
static const char *json_value(const char *s);
static const char *json_ws(const char *s)
{
    while (*s == ' ' || *s == '\n' || *s == '\t' || *s == '\r')
        s++;
    return s;
}
static const char *json_string(const char *s)
{
    if (*s++ != '"')
        return NULL;
    for (; *s != '"'; s++) {
        if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f) /* ASCII only: the tables' own strings */
            return NULL;
        if (*s == '\\') {
            s++;
            if (*s == 'u') {
                for (int i = 1; i <= 4; i++)
                    if (!strchr("0123456789abcdefABCDEF", s[i]) || !s[i])
                        return NULL;
                s += 4;
            } else if (!*s || !strchr("\"\\/bfnrt", *s))
                return NULL;
        }
    }
    return s + 1;
}
static const char *json_number(const char *s)
{
    const char *p = s;
    if (*p == '-')
        p++;
    if (*p == '0')
        p++;
    else if (*p >= '1' && *p <= '9')
        while (*p >= '0' && *p <= '9')
            p++;
    else
        return NULL;
    if (*p == '.') {
        if (*++p < '0' || *p > '9')
            return NULL;
        while (*p >= '0' && *p <= '9')
            p++;
    }
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-')
            p++;
        if (*p < '0' || *p > '9')
            return NULL;
        while (*p >= '0' && *p <= '9')
            p++;
    }
    return p;
}
static const char *json_items(const char *s, char close, int keyed)
{
    s = json_ws(s + 1);
    if (*s == close)
        return s + 1;
    for (;;) {
        if (keyed) {
            if (!(s = json_string(s)))
                return NULL;
            s = json_ws(s);
            if (*s++ != ':')
                return NULL;
        }
        if (!(s = json_value(s)))
            return NULL;
        s = json_ws(s);
        if (*s == close)
            return s + 1;
        if (*s++ != ',')
            return NULL;
        s = json_ws(s);
    }
}
static const char *json_value(const char *s)
{
    s = json_ws(s);
    switch (*s) {
    case '{': return json_items(s, '}', 1);
    case '[': return json_items(s, ']', 0);
    case '"': return json_string(s);
    case 't': return strncmp(s, "true", 4) ? NULL : s + 4;
    case 'f': return strncmp(s, "false", 5) ? NULL : s + 5;
    case 'n': return strncmp(s, "null", 4) ? NULL : s + 4;
    default: return json_number(s);
    }
}
static int json_ok(const char *s)
{
    const char *e = json_value(s);
    return e && *json_ws(e) == '\0';
}

static void test_json_checker(void **state)
{
    (void)state;
    static const char *good[] = {"{}", "[]", "{\"a\": [1, -2.5e3, true, false, null, \"x\\\"\\u00e9\"]}", " 0 "};
    static const char *bad[] = {"", "{", "[1,]", "{\"a\" 1}", "\"\n\"", "01", "1.", "[1] [2]", "tru", "\"\\x\""};
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
        assert_true(json_ok(good[i]));
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        if (json_ok(bad[i]))
            fail_msg("'%s' passed the JSON check", bad[i]);
}

static char *capture(void (*fn)(FILE *))
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    fn(f);
    assert_int_equal(fclose(f), 0);
    return text;
}

static void test_list_json(void **state)
{
    (void)state;
    char *json = capture(pfs_config_list_json);
    char *help = capture(pfs_config_usage);
    assert_true(json_ok(json));
    /* One option per line, long, short and takes_value first (scripts/pfsrun
     * reads them so); as many as --help lists. */
    int nopt = 0, nhelp = 0;
    for (char *p = json; (p = strstr(p, "\n    {\"long\": \"")); p++)
        nopt++;
    for (char *p = help; (p = strstr(p, "\n  ")); p++)
        nhelp += p[3] == '-' || strncmp(p + 1, "      --", 8) == 0;
    assert_true(nopt > 40);
    assert_int_equal(nopt, nhelp);
    assert_non_null(strstr(json, "\n    {\"long\": \"dir\", \"short\": \"d\", \"takes_value\": true,"));
    assert_non_null(strstr(json, "\n    {\"long\": \"keep\", \"short\": \"k\", \"takes_value\": false,"));
    assert_non_null(strstr(json, "\n    {\"long\": \"stall-warn\", \"short\": null, \"takes_value\": true,"));
    assert_non_null(strstr(json, "\n    {\"long\": \"list-options\", \"short\": null, \"takes_value\": true,"));
    /* Every key describe writes is some option's key. */
    struct pfs_config cfg;
    char err[PFS_ERRLEN], buf[8192], want[128];
    assert_int_equal(parse(&cfg, err, "-d|/tmp"), PFS_PARSE_RUN);
    pfs_config_describe(&cfg, buf, sizeof(buf));
    int keys = 0;
    for (char *line = buf; *line; line = strchr(line, '\n') + 1, keys++) {
        snprintf(want, sizeof(want), "\"key\": \"%.*s\"", (int)strcspn(line, "="), line);
        if (!strstr(json, want))
            fail_msg("no option has %s", want);
    }
    assert_int_equal(keys, 81);
    for (int k = 0; k < PFS_PH_KINDS; k++) {
        snprintf(want, sizeof(want), "{\"name\": \"%s\", \"kind\": \"%s\"", pfs_phase_name(k),
                 pfs_phase_is_meta(k) ? "metadata" : "data");
        assert_non_null(strstr(json, want));
    }
    free(json);
    free(help);
}

/* The same document through Python's json module, with the facts scripts
 * rely on (skipped where /usr/bin/python3 is missing). */
static void test_list_json_python(void **state)
{
    (void)state;
    if (access("/usr/bin/python3", X_OK) != 0)
        skip();
    char path[] = "/tmp/pfs-test-list-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    pfs_config_list_json(f);
    fclose(f);
    char cmd[2048];
    snprintf(cmd, sizeof(cmd), "/usr/bin/python3 -c '%s' %s",
             "import json,sys,re\n"
             "d=json.load(open(sys.argv[1]))\n"
             "o={x[\"long\"]:x for x in d[\"options\"]}\n"
             "assert [u[\"name\"] for u in d[\"units\"]]==o[\"units\"][\"choices\"]\n"
             "assert [p[\"name\"] for p in d[\"phases\"]]==o[\"phases\"][\"choices\"]\n"
             "assert o[\"transfer\"][\"default\"]==1<<20 and o[\"transfer\"][\"type\"]==\"size\"\n"
             "assert o[\"reps\"][\"min\"]==1 and o[\"api\"][\"choices\"][:4]==[\"posix\",\"mpiio\",\"null\",\"uring\"] and \"hdf5\" in o[\"api\"][\"choices\"]\n"
             "assert o[\"file-per-process\"][\"default\"] is True and o[\"shared\"][\"sets\"]==\"shared\"\n"
             "assert o[\"deadline\"][\"default\"] is None and o[\"stall-warn\"][\"default\"]==10\n"
             "assert all(x[\"takes_value\"]==(x[\"type\"] not in (\"flag\",\"action\") or x[\"long\"]==\"list-options\") for x in d[\"options\"])\n"
             "assert [e[\"code\"] for e in d[\"exit_codes\"]]==[0,1,2,3]\n"
             "r=re.compile(d[\"sizes\"][\"syntax\"])\n"
             "assert r.match(\"4m\") and not r.match(\"4mb\") and not r.match(\"1.5g\")\n"
             "assert re.match(d[\"names\"][\"run_id\"],\"a-b_C9\") and not re.match(d[\"names\"][\"run_id\"],\"a.b\")\n",
             path);
    int rc = system(cmd);
    unlink(path);
    assert_int_equal(rc, 0);
}

/* The parser's warnings (pfs_config_warn's list) are bounded: never a line cut short; once a line
 * does not fit whole, a last line says more were left out. */
static void test_warnings_full(void **state)
{
    (void)state;
    static struct pfs_config cfg;
    pfs_config_defaults(&cfg);
    for (int i = 0; i < 100; i++) {
        char line[160];
        snprintf(line, sizeof(line), "warning number %03d, long enough to fill the list soon: %060d", i, i);
        pfs_warn_append(cfg.warnings, sizeof(cfg.warnings), line);
    }
    const char *note = "further warnings left out: the list is full\n";
    const size_t n = strlen(cfg.warnings), k = strlen("warning number 000, long enough to fill the list soon: ") + 60;
    assert_true(n < sizeof(cfg.warnings));
    assert_string_equal(cfg.warnings + n - strlen(note), note);
    int lines = 0;
    for (const char *p = cfg.warnings; *p; p += strcspn(p, "\n") + 1, lines++)
        if (strncmp(p, "further", 7) != 0)
            assert_int_equal(strcspn(p, "\n"), k);
    assert_true(lines > 5 && lines < 100);
    pfs_warn_append(cfg.warnings, sizeof(cfg.warnings), "one more");
    assert_int_equal(strlen(cfg.warnings), n);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_api_names), cmocka_unit_test(test_format_size), cmocka_unit_test(test_bad_inputs),
        cmocka_unit_test(test_unknown_all), cmocka_unit_test(test_ior_letters), cmocka_unit_test(test_warnings),
        cmocka_unit_test(test_good_parse),  cmocka_unit_test(test_resolve),     cmocka_unit_test(test_check_dir),
        cmocka_unit_test(test_describe),    cmocka_unit_test(test_describe_golden), cmocka_unit_test(test_random_dist), cmocka_unit_test(test_content_opts), cmocka_unit_test(test_reps_auto), cmocka_unit_test(test_phase_table), cmocka_unit_test(test_phase_registry), cmocka_unit_test(test_md_tree),
        cmocka_unit_test(test_list_options_parse), cmocka_unit_test(test_json_checker), cmocka_unit_test(test_list_json),
        cmocka_unit_test(test_list_json_python), cmocka_unit_test(test_warnings_full),
    };
    return cmocka_run_group_tests_name("config", tests, NULL, NULL);
}
