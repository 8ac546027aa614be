/* `pfsbench ior ARGS`: IOR's options as IOR means them, with its defaults
 * (-t 256k, -b 1m, -s 1, one shared file, write and read), written as native
 * pfsbench options. docs/usage.md, "IOR, mdtest and IOzone command lines",
 * is this table as prose. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "frontend_int.h"
#include "pfs/backend.h"
#include "pfs/names.h"

enum {
    IOR_API = 1, IOR_B, IOR_T, IOR_S, IOR_F, IOR_C, IOR_Q, IOR_E, IOR_W, IOR_R, IOR_CW, IOR_CR, IOR_K, IOR_I,
    IOR_D, IOR_O, IOR_OPATH, IOR_Z, IOR_COLL, IOR_V, IOR_DIRECT, IOR_HELP, IOR_IGNORE, IOR_G, IOR_QUIT, IOR_Y,
    IOR_DELAY, IOR_REF, IOR_SCRIPT, IOR_EXISTING, IOR_MULTI, IOR_RAND_TASKS, IOR_RAND_SEED, IOR_BE,
};

#define KEYS                                                                                                      \
    "a key on the command line (it would be in ps and in the equivalent line): export S3_ACCESS_KEY_ID and "     \
    "S3_SECRET_ACCESS_KEY, or give -- --s3-key-file FILE"

const struct fe_opt fe_ior_tab[] = {
    {"-a", FE_VALUE, IOR_API, NULL},
    {"-b", FE_VALUE, IOR_B, NULL},
    {"-t", FE_VALUE, IOR_T, NULL},
    {"-s", FE_VALUE, IOR_S, NULL},
    {"-F", FE_FLAG, IOR_F, NULL},
    {"-C", FE_FLAG, IOR_C, NULL},
    {"-Q", FE_VALUE, IOR_Q, NULL},
    {"-e", FE_FLAG, IOR_E, NULL},
    {"-w", FE_FLAG, IOR_W, NULL},
    {"-r", FE_FLAG, IOR_R, NULL},
    {"-W", FE_FLAG, IOR_CW, NULL},
    {"-R", FE_FLAG, IOR_CR, NULL},
    {"-k", FE_FLAG, IOR_K, NULL},
    {"-i", FE_VALUE, IOR_I, NULL},
    {"-D", FE_VALUE, IOR_D, NULL},
    {"-O", FE_VALUE, IOR_O, NULL},
    {"-o", FE_VALUE, IOR_OPATH, NULL},
    {"-z", FE_FLAG, IOR_Z, NULL},
    {"-c", FE_FLAG, IOR_COLL, NULL},
    {"-v", FE_FLAG, IOR_V, NULL},
    {"-B", FE_FLAG, IOR_DIRECT, NULL},
    {"--posix.odirect", FE_FLAG, IOR_DIRECT, NULL},
    {"-h", FE_FLAG, IOR_HELP, NULL},
    {"-g", FE_FLAG, IOR_IGNORE, NULL}, /* pfsbench always has barriers around open and close */
    {"-G", FE_VALUE, IOR_G, NULL},
    {"-q", FE_FLAG, IOR_QUIT, NULL},
    {"-Y", FE_FLAG, IOR_Y, NULL},
    {"-d", FE_VALUE, IOR_DELAY, NULL},
    {"-A", FE_VALUE, IOR_REF, NULL},
    {"-E", FE_FLAG, IOR_EXISTING, NULL},
    {"-Z", FE_FLAG, IOR_RAND_TASKS, NULL},
    {"-X", FE_VALUE, IOR_RAND_SEED, NULL},
    {"-T", FE_VALUE, 0, "a time limit in minutes: pfsbench has none for the run; -D SECS is the stonewall per phase"},
    {"-N", FE_VALUE, 0, "the number of tasks: every rank mpirun starts takes part; give mpirun -np N"},
    {"-u", FE_FLAG, 0, "a directory per task: pfsbench's data files share -d's directory"},
    {"-m", FE_FLAG, IOR_MULTI, NULL},
    {"-f", FE_VALUE, IOR_SCRIPT, NULL}, /* a script: pfs_iorscript_translate (pfs/iorscript.h) */
    {"-H", FE_FLAG, 0, "show hints: " NO_EQUIV " (the hints given with -- --hint are in the results file)"},
    {"-U", FE_VALUE, 0, "a hints file: give each hint with -- --hint KEY=VALUE"},
    {"-j", FE_VALUE, 0, "an outlier threshold: pfsbench flags slow nodes instead (-- --straggler F)"},
    {"-K", FE_FLAG, 0, "keep a file with errors: " NO_EQUIV " (--verify names the file and offset of a bad byte)"},
    {"-l", FE_VALUE, 0, "the data packet type: pfsbench writes incompressible random bytes, or --verify's pattern (-W)"},
    {"--dataPacketType", FE_VALUE, 0, "the data packet type: pfsbench writes incompressible random bytes, or --verify's "
                                      "pattern (-W)"},
    {"-M", FE_VALUE, 0, "a memory hog per node: " NO_EQUIV},
    {"-x", FE_FLAG, 0, "one transfer attempt: pfsbench continues short transfers, failing the run on an error"},
    {"-y", FE_FLAG, 0, "dual mount points: " NO_EQUIV},
    {"-I", FE_FLAG, 0, "HDF5 individual data sets: " NO_EQUIV},
    {"-J", FE_VALUE, 0, "HDF5 alignment: " NO_EQUIV},
    {"-n", FE_FLAG, 0, "HDF5 no fill: " NO_EQUIV},
    {"-p", FE_FLAG, 0, "preallocation: " NO_EQUIV},
    {"-P", FE_FLAG, 0, "a shared file pointer: " NO_EQUIV " (pfsbench computes every offset)"},
    {"-S", FE_FLAG, 0, "a strided MPI datatype: " NO_EQUIV},
    {"-V", FE_FLAG, 0, "an MPI file view: " NO_EQUIV},
    /* The backends' own options (frontend_ior_api.c), each with its -a only. */
#define BE_ROW(name, arity, api, mine) {name, arity, IOR_BE, NULL},
    FE_IOR_BE_OPTS(BE_ROW)
#undef BE_ROW
    {"--cephfs.olazy", FE_FLAG, 0, "lazy I/O (ceph_lazyio): " NO_EQUIV},
    {"--S3-libs3.bucket-per-file", FE_FLAG, 0, "a bucket per file: pfsbench's objects share one --s3-bucket"},
    {"--S3-libs3.access-key", FE_VALUE, 0, KEYS},
    {"--S3-libs3.secret-key", FE_VALUE, 0, KEYS},
    {"--S3-libs3.region", FE_VALUE, 0, "the signature's region: " NO_EQUIV},
    {"--S3-libs3.location", FE_VALUE, 0, "a new bucket's location: pfsbench makes no bucket"},
    {"--dryRun", FE_FLAG, 0, NO_EQUIV},
    {"--warningAsErrors", FE_FLAG, 0, NO_EQUIV},
    {NULL, FE_FLAG, 0, NULL},
};

struct ior_st {
    struct fe_ior_api api;
    uint64_t b, t;
    long s, reps, deadline, delay, refnum, nodes_away, seed;
    int fpp, reorder, reorder_random, have_q, have_x, fsync, fsync_each, w, r, cw, cr, keep, random, coll, verbose, direct,
        help, wearout, have_ref;
    const char *opath; /* -o: the data files' path (--file-name), NULL when not given */
    char swfile[1024];  /* -O stoneWallingStatusFile: --stonewall-file, "" when not given */
    int existing;      /* -E: useExistingTestFile */
    int multi;         /* -m: multiFile, a file set per repetition */
    const char *format; /* -O summaryFormat: NULL (IOR's default: text), "json", "csv" */
};

/* -O KEY=0|1, IOR's atoi of a flag: 0 or 1 only. */
static void ior_flag(struct fe *f, const char *key, const char *v, int *out)
{
    if (strcmp(v, "0") == 0 || strcmp(v, "1") == 0)
        *out = v[0] == '1';
    else
        fe_refuse(f, "-O", "%s=%s: give 0 or 1", key, v);
}

/* -O summaryFormat=default|JSON|CSV (any case, as IOR compares) is
 * --format ior|json|csv; -O summaryFile=F: rank 0's report goes to the
 * new file F (pfs_main creates it; an existing one is refused). */
static void ior_summary(struct fe *f, struct ior_st *s, const char *key, const char *v)
{
    if (strcasecmp(key, "summaryFile") == 0) {
        if (!*v || strlen(v) >= sizeof(f->report))
            fe_refuse(f, "-O", "summaryFile=%s: give a file name (up to %zu bytes)", v, sizeof(f->report) - 1);
        else
            snprintf(f->report, sizeof(f->report), "%s", v);
    } else if (strcasecmp(v, "default") == 0)
        s->format = NULL;
    else if (strcasecmp(v, "JSON") == 0)
        s->format = "json";
    else if (strcasecmp(v, "CSV") == 0)
        s->format = "csv";
    else
        fe_refuse(f, "-O", "summaryFormat=%s: IOR's formats are default, JSON and CSV", v);
}

/* -O key=value[,key=value]: the stonewall's keys, O_DIRECT, the summary's format and file. */
static void ior_directives(struct fe *f, struct ior_st *s, const char *val)
{
    char buf[512];
    snprintf(buf, sizeof(buf), "%s", val);
    for (char *save = NULL, *kv = strtok_r(buf, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(kv, '=');
        const char *v = eq ? eq + 1 : "";
        if (eq)
            *eq = '\0';
        if (strcasecmp(kv, "summaryFile") == 0 || strcasecmp(kv, "summaryFormat") == 0)
            ior_summary(f, s, kv, v);
        else if (strcasecmp(kv, "useO_DIRECT") == 0)
            ior_flag(f, kv, v, &s->direct);
        else if (strcasecmp(kv, "stoneWallingWearOut") == 0 && strcmp(v, "1") == 0)
            s->wearout = 1;
        else if (strcasecmp(kv, "stoneWallingWearOut") == 0)
            fe_refuse(f, "-O", "stoneWallingWearOut=%s: pfsbench's stonewall always wears out (=1)", v);
        else if (strcasecmp(kv, "stoneWallingStatusFile") == 0 && *v)
            snprintf(s->swfile, sizeof(s->swfile), "%s", v);
        else if (strcasecmp(kv, "stoneWallingStatusFile") == 0)
            fe_refuse(f, "-O", "stoneWallingStatusFile=: give the status file's path");
        else
            fe_refuse(f, "-O", "%s: not an IOR directive pfsbench translates (stoneWallingWearOut=1, "
                      "stoneWallingStatusFile=F, useO_DIRECT=0|1, summaryFormat=default|JSON|CSV, summaryFile=F)",
                      kv);
    }
}

static void ior_on(struct fe *f, const struct fe_opt *o, const struct fe_arg *a, void *st)
{
    struct ior_st *s = st;
    long v;
    switch (o->id) {
    case IOR_API: fe_ior_api_select(f, &s->api, a->val); break;
    case IOR_BE: fe_ior_api_opt(f, &s->api, o->name, a->val); break;
    case IOR_B: fe_size(f, "-b", a->val, "kmgtp", 1, &s->b); break;
    case IOR_T: fe_size(f, "-t", a->val, "kmgtp", 1, &s->t); break;
    case IOR_S: fe_int(f, "-s", a->val, 1, 1L << 40, &s->s); break;
    case IOR_F: s->fpp = 1; break;
    case IOR_C: s->reorder = 1; break;
    case IOR_Q: /* taskPerNodeOffset: -C reads what the ranks -Q nodes on wrote */
        if (fe_int(f, "-Q", a->val, 0, 1048576, &v) != 0)
            break;
        if (v == 0)
            fe_refuse(f, "-Q", "0: every rank would read its own node's data; -C reads another node's (-Q 1 or more)");
        else
            s->nodes_away = v, s->have_q = 1;
        break;
    case IOR_RAND_TASKS: s->reorder_random = 1; break;
    case IOR_RAND_SEED: s->have_x = fe_int(f, "-X", a->val, -2147483647L, 2147483647L, &s->seed) == 0; break;
    case IOR_E: s->fsync = 1; break;
    case IOR_Y: s->fsync_each = 1; break; /* IOR's fsync after every write: pfsbench's fsync every transfer */
    case IOR_DELAY: fe_int(f, "-d", a->val, 0, 1000000, &s->delay); break; /* IOR's interTestDelay: whole seconds */
    case IOR_REF: s->have_ref = fe_int(f, "-A", a->val, 0, 2147483647L, &s->refnum) == 0; break;
    case IOR_W: s->w = 1; break;
    case IOR_R: s->r = 1; break;
    case IOR_CW: s->cw = 1; break;
    case IOR_CR: s->cr = 1; break;
    case IOR_K: s->keep = 1; break;
    case IOR_I: fe_int(f, "-i", a->val, 1, 1000000, &s->reps); break;
    case IOR_D: fe_int(f, "-D", a->val, 0, 1000000000, &s->deadline); break;
    case IOR_O: ior_directives(f, s, a->val); break;
    case IOR_OPATH: s->opath = a->val; break;
    case IOR_EXISTING: s->existing = 1; break;
    case IOR_MULTI: s->multi = 1; break;
    case IOR_Z: s->random = 1; break;
    case IOR_COLL: s->coll = 1; break;
    case IOR_V: s->verbose = 1; break;
    case IOR_DIRECT: s->direct = 1; break;
    case IOR_HELP: s->help = 1; break;
    case IOR_G: fe_note(f, "-G", "the timestamp signature is not used: pfsbench's data is its own"); break;
    case IOR_QUIT: break; /* pfsbench always ends the run at an I/O error */
    case IOR_SCRIPT: fe_ior_script(f, a->val); break;
    default: break;
    }
}

/* -O stoneWallingStatusFile=F as --stonewall-file F: the count a
 * stonewalled write reached, recorded there, read back by a later read. */
static void ior_swfile(struct fe *f, const struct ior_st *s)
{
    if (s->swfile[0])
        fe_add(f, "--stonewall-file"), fe_add(f, s->swfile);
}

/* -o PATH as --file-name PATH in PATH's directory (-F: PATH.00000000 ...),
 * and -E: a read of the files there; a write never goes over a file. */
static void ior_files(struct fe *f, const struct ior_st *s, int w, int r)
{
    char dir[1024], base[1024];
    if (s->existing && w)
        fe_refuse(f, "-E", "writes into an existing file: pfsbench never writes over a file it did not create; remove "
                  "it first (a write makes it anew), or, for a Lustre layout, set the directory's default layout "
                  "(lfs setstripe -c N DIR), which the new files inherit (as IO500 does)");
    else if (s->existing && !s->opath)
        fe_refuse(f, "-E", "give -o PATH, the file to read");
    if (s->multi && !s->opath)
        fe_refuse(f, "-m", "names -o's files per repetition (PATH.REP): give -o PATH");
    if (s->opath && fe_passes(f, "--file-name"))
        fe_refuse(f, "-o", "and -- --file-name both name the data files: give one");
    if (!s->opath) {
        fe_note(f, "-o", "not given: IOR's testFile in the working directory; pfsbench writes its own files in .");
        fe_add(f, "-d"), fe_add(f, ".");
        ior_swfile(f, s);
        return;
    }
    if (pfs_name_split(s->opath, dir, sizeof(dir), base, sizeof(base)) != 0) {
        fe_refuse(f, "-o", "%s: give the path of a file", s->opath);
        return;
    }
    fe_add(f, "-d"), fe_add(f, dir);
    fe_add(f, "--file-name"), fe_add(f, s->opath);
    ior_swfile(f, s);
    if (s->multi) /* IOR's PATH.REP, with -F PATH.00000000.REP */
        fe_add(f, "--file-per-rep");
    if (r && !w && !s->keep)
        fe_note(f, "-o", "%s: IOR would remove it after reading (no -k); pfsbench never removes a file it did not "
                "create", s->opath);
}

/* IOR's segments as pfsbench's block per stream (s x b) and where its
 * pieces go. Sets *strided (-b equal to -t: segment k of rank r at
 * (k x N + r) x t, the strided layout) or *segments (--segments: segment k
 * of rank r at (k x N + r) x b). Returns the block, 0 when refused. */
static uint64_t ior_block(struct fe *f, const struct ior_st *s, int *strided, long *segments)
{
    *strided = 0;
    *segments = 1;
    if (s->s == 1)
        return s->b;
    if (s->b > UINT64_MAX / (uint64_t)s->s) {
        fe_refuse(f, "-s", "%ld segments of %llu bytes do not fit 64 bits", s->s, (unsigned long long)s->b);
        return 0;
    }
    if (s->fpp) /* segment k of a rank's own file follows segment k-1: one block of s x b */
        return s->b * (uint64_t)s->s;
    if (s->b == s->t)
        *strided = 1;
    else
        *segments = s->s;
    return s->b * (uint64_t)s->s;
}

/* -C, -Q N: a fixed shift, N nodes on; -Z, -X S: the read back from a
 * rank a seeded permutation picks (--reorder-seed). IOR's -X below 0
 * draws a new order each repetition (|S| + the repetition); pfsbench
 * keeps one order for the run, so that is refused. */
static void ior_reorder(struct fe *f, const struct ior_st *s)
{
    if (s->reorder && s->reorder_random) {
        fe_refuse(f, "-Z", "and -C both: give one (IOR refuses them together too)");
        return;
    }
    if (s->reorder_random && s->have_q && s->nodes_away > 1)
        fe_refuse(f, "-Q", "%ld with -Z: pfsbench's random order reads another node's data where it can, never "
                  "at least N nodes on; give -C -Q N for a fixed shift N nodes on", s->nodes_away);
    else if (s->reorder_random && s->seed < 0)
        fe_refuse(f, "-X", "%ld: a negative seed draws a new order each repetition; pfsbench keeps one order for "
                  "the run: give -X 0 or more", s->seed);
    else if (s->reorder_random)
        fe_add(f, "-C"), fe_add(f, "--reorder-seed"), fe_addf(f, "%ld", s->seed);
    if (s->reorder)
        fe_add(f, "-C");
    if (s->reorder && s->nodes_away > 1)
        fe_add(f, "--reorder-nodes"), fe_addf(f, "%ld", s->nodes_away);
    else if (!s->reorder && !s->reorder_random && s->nodes_away > 1)
        fe_note(f, "-Q", "%ld: only -C reads from other nodes: without it nothing to do", s->nodes_away);
    if (!s->reorder_random && s->have_x)
        fe_note(f, "-X", "%ld: the seed of -Z's random order: without -Z nothing to do", s->seed);
}

/* -d, -A, -O summaryFormat/summaryFile: the delay between repetitions, the
 * run's label, the report's format and file. */
static void ior_extras(struct fe *f, const struct ior_st *s)
{
    if (s->delay > 0 && s->reps < 2)
        fe_note(f, "-d", "%ld: with one repetition (-i 1) there is nothing to wait between; IOR would still sleep "
                "before its write and read phases", s->delay);
    else if (s->delay > 0)
        fe_note(f, "-d", "%ld: pfsbench sleeps between two repetitions (--rep-delay), IOR before each write and "
                "read phase; neither is timed", s->delay);
    if (s->delay > 0 && s->reps > 1)
        fe_add(f, "--rep-delay"), fe_addf(f, "%ld", s->delay);
    if (s->have_ref && fe_passes(f, "--label"))
        fe_refuse(f, "-A", "and -- --label both name the run: give one");
    else if (s->have_ref)
        fe_add(f, "--label"), fe_addf(f, "refnum=%ld", s->refnum);
    if (s->format && fe_passes(f, "--format"))
        fe_refuse(f, "-O", "summaryFormat and -- --format both: give one");
    else if (s->format)
        fe_add(f, "--format"), fe_add(f, s->format);
    else if (!fe_passes(f, "--format")) /* IOR's own shape: its Results table and summary */
        fe_add(f, "--format"), fe_add(f, "ior");
    if (f->report[0])
        fe_note(f, "-O", "summaryFile=%s: rank 0's %s report goes to this new file (an existing one is refused: "
                "IOR would overwrite it); to paste the equivalent, add >%s", f->report, s->format ? s->format : "ior",
                f->report);
}

void fe_ior(struct fe *f, int argc, char **argv)
{
    struct ior_st s = {.api = {.api = "posix", .ior = "POSIX"}, .b = 1 << 20, .t = 256 << 10, .s = 1, .reps = 1, .nodes_away = 1};
    fe_walk(f, fe_ior_tab, argc, argv, ior_on, &s);
    if (s.help) {
        fe_add(f, "--help");
        return;
    }
    if (s.coll && strcmp(s.api.api, "mpiio") != 0)
        fe_refuse(f, "-c", "collective I/O needs -a MPIIO");
    int strided;
    long segments;
    uint64_t block = ior_block(f, &s, &strided, &segments);
    if (s.deadline > 0 && !s.wearout)
        fe_note(f, "-D", "pfsbench's stonewall always wears out to the largest count (IOR's -O stoneWallingWearOut=1)");
    /* IOR with none of -w -r -W -R writes and reads; its -W check reads what it wrote, -R reads again. */
    int w = s.w || s.cw, r = s.r || s.cr || s.cw;
    if (!s.w && !s.r && !s.cw && !s.cr)
        w = r = 1;
    if (s.cw && !s.r)
        fe_note(f, "-W", "the check is pfsbench's timed read phase with --verify (every byte)");
    ior_files(f, &s, w, r);
    fe_add_size(f, "-t", s.t);
    fe_add_size(f, "-b", block ? block : s.b);
    if (s.fpp)
        fe_add(f, "-F");
    else
        fe_add(f, "--shared");
    if (!s.fpp && strided) {
        fe_add(f, "--layout");
        fe_add(f, "strided");
    }
    if (segments > 1)
        fe_add(f, "--segments"), fe_addf(f, "%ld", segments);
    fe_add(f, "-p");
    fe_add(f, w && r ? "write,read" : w ? "write" : "read");
    if (s.reps > 1)
        fe_add(f, "-i"), fe_addf(f, "%ld", s.reps);
    if (s.fsync)
        fe_add(f, "-e");
    if (s.fsync_each)
        fe_add(f, "--fsync-every"), fe_add(f, "1");
    if (s.keep)
        fe_add(f, "-k");
    ior_reorder(f, &s);
    if (s.cw || s.cr)
        fe_add(f, "--verify");
    if (s.random)
        fe_add(f, "--random");
    if (s.deadline > 0)
        fe_add(f, "-D"), fe_addf(f, "%ld", s.deadline);
    fe_ior_api_add(f, &s.api, s.opath);
    if (s.coll)
        fe_add(f, "--collective");
    if (s.direct)
        fe_add(f, "--direct");
    if (s.verbose)
        fe_add(f, "-v");
    ior_extras(f, &s);
}
