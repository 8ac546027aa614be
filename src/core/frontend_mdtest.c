/* `pfsbench mdtest ARGS`: mdtest's options as mdtest means them (create,
 * stat, read and remove without -C -T -E -r; the working directory without
 * -d; a -z/-b tree, one per rank with -u or one for all that rank 0 makes
 * without, made by mkdir and removed by rmdir like mdtest's tree creation
 * and removal; -D: the tree's directories
 * alone; -W: the create phase's stonewall with wear-out), written as native pfsbench options (docs/usage.md, "IOR, mdtest and
 * IOzone command lines"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "frontend_int.h"

enum {
    MD_N = 1, MD_FILES, MD_U, MD_Z, MD_B, MD_I, MD_D, MD_ITER, MD_C, MD_T, MD_R, MD_E, MD_STRIDE, MD_W, MD_READ,
    MD_API, MD_V, MD_HELP, MD_IGNORE, MD_G, MD_X, MD_LEAF, MD_DIRS, MD_SW, MD_KEEP, MD_FIRST, MD_LAST, MD_RSTRIDE,
    MD_PRE,
};

#define MD_MAX_POINTS 64 /* the most rank counts pfsbench's --ranks takes (src/mpi/sweep.c) */

const struct fe_opt fe_mdtest_tab[] = {
    {"-n", FE_VALUE, MD_N, NULL},
    {"-F", FE_FLAG, MD_FILES, NULL},
    {"-u", FE_FLAG, MD_U, NULL},
    {"-z", FE_VALUE, MD_Z, NULL},
    {"-b", FE_VALUE, MD_B, NULL},
    {"-I", FE_VALUE, MD_I, NULL},
    {"-d", FE_VALUE, MD_D, NULL},
    {"-i", FE_VALUE, MD_ITER, NULL},
    {"-C", FE_FLAG, MD_C, NULL},
    {"-T", FE_FLAG, MD_T, NULL},
    {"-r", FE_FLAG, MD_R, NULL},
    {"-E", FE_FLAG, MD_E, NULL},
    {"-N", FE_VALUE, MD_STRIDE, NULL},
    {"-w", FE_VALUE, MD_W, NULL},
    {"-e", FE_VALUE, MD_READ, NULL},
    {"-a", FE_VALUE, MD_API, NULL},
    {"-v", FE_FLAG, MD_V, NULL},
    {"-V", FE_VALUE, MD_V, NULL},
    {"-h", FE_FLAG, MD_HELP, NULL},
    {"-L", FE_FLAG, MD_LEAF, NULL},
    {"-P", FE_FLAG, MD_IGNORE, NULL}, /* rates and times: pfsbench prints both */
    {"-Z", FE_FLAG, MD_IGNORE, NULL}, /* times in seconds: so does pfsbench */
    {"-G", FE_VALUE, MD_G, NULL},
    {"-x", FE_VALUE, MD_X, NULL},
    {"-D", FE_FLAG, MD_DIRS, NULL},
    {"-W", FE_VALUE, MD_SW, NULL},
    {"-B", FE_FLAG, 0, "no barriers: pfsbench always has a barrier before and after each phase"},
    {"-c", FE_FLAG, 0, "collective creates (task 0 makes every file): " NO_EQUIV},
    {"-f", FE_VALUE, MD_FIRST, NULL},
    {"-l", FE_VALUE, MD_LAST, NULL},
    {"-s", FE_VALUE, MD_RSTRIDE, NULL},
    {"-k", FE_FLAG, 0, "mknod instead of creat: " NO_EQUIV},
    {"-p", FE_VALUE, MD_PRE, NULL},
    {"-R", FE_OPTVAL, 0, "random stat order only: pfsbench's -- --order random permutes every metadata phase's names"},
    {"-S", FE_FLAG, 0, "one shared file: " NO_EQUIV},
    {"-t", FE_FLAG, 0, "timing the unique directory's set-up: " NO_EQUIV},
    {"-X", FE_FLAG, 0, "verifying the data read: not built for pfsbench's metadata phases"},
    {"-y", FE_FLAG, 0, "fsync of each file after writing: pfsbench's metadata phases have none"},
    {"-Y", FE_FLAG, 0, "a sync after each phase: " NO_EQUIV},
    {"-K", FE_FLAG, MD_KEEP, NULL},
    {"-M", FE_FLAG, 0, NO_EQUIV},
    {"--dataPacketType", FE_VALUE, 0, "the data packet type: pfsbench's file content is its own random bytes"},
    {NULL, FE_FLAG, 0, NULL},
};

struct md_st {
    long n, items, depth, branch, reps, stride, stonewall, pre;
    long first, last, rstride; /* -f, -l, -s: the task counts mdtest runs at */
    uint64_t wbytes, rbytes;
    int files, unique, c, t, r, e, have_w, have_e, verbose, help, leaf, dirs, keep, have_f, have_s;
    int tree_only; /* 0 files per process (mdtest's default -n 0, or -n rounded down to 0): the tree alone */
    const char *xfile;
    char dir[1024], api[16];
};

/* mdtest's -w and -e: bytes, 0 allowed. */
static int md_bytes(struct fe *f, const char *opt, const char *val, uint64_t *out)
{
    if (strcmp(val, "0") == 0) {
        *out = 0;
        return 0;
    }
    return fe_size(f, opt, val, "kmgtp", 1, out);
}

static void md_on(struct fe *f, const struct fe_opt *o, const struct fe_arg *a, void *st)
{
    struct md_st *s = st;
    long v;
    switch (o->id) {
    case MD_N: fe_int(f, "-n", a->val, 0, 100000000, &s->n); break;
    case MD_FIRST: s->have_f = fe_int(f, "-f", a->val, 1, 1L << 30, &s->first) == 0; break;
    case MD_LAST: fe_int(f, "-l", a->val, 0, 1L << 30, &s->last); break;
    case MD_RSTRIDE: s->have_s = fe_int(f, "-s", a->val, 1, 1L << 30, &s->rstride) == 0; break;
    case MD_FILES: s->files = 1; break;
    case MD_U: s->unique = 1; break;
    case MD_Z: fe_int(f, "-z", a->val, 0, 32, &s->depth); break;
    case MD_B:
        if (fe_int(f, "-b", a->val, 0, 1L << 30, &v) == 0)
            s->branch = v; /* no effect at depth 0 */
        break;
    case MD_LEAF: s->leaf = 1; break; /* no effect at depth 0 */
    case MD_DIRS: s->dirs = 1; break;
    case MD_SW: fe_int(f, "-W", a->val, 0, 1000000, &s->stonewall); break;
    case MD_KEEP: s->keep = 1; break;
    case MD_I: fe_int(f, "-I", a->val, 1, 100000000, &s->items); break;
    case MD_D:
        if (strchr(a->val, '@'))
            fe_refuse(f, "-d", "%s: several directories (@): pfsbench's -d is one", a->val);
        snprintf(s->dir, sizeof(s->dir), "%s", a->val);
        break;
    case MD_ITER: fe_int(f, "-i", a->val, 1, 1000000, &s->reps); break;
    case MD_C: s->c = 1; break;
    case MD_T: s->t = 1; break;
    case MD_R: s->r = 1; break;
    case MD_E: s->e = 1; break;
    case MD_STRIDE: fe_int(f, "-N", a->val, 0, 1L << 30, &s->stride); break;
    case MD_W: s->have_w = md_bytes(f, "-w", a->val, &s->wbytes) == 0; break;
    case MD_READ: s->have_e = md_bytes(f, "-e", a->val, &s->rbytes) == 0; break;
    case MD_API:
        if (strcasecmp(a->val, "DUMMY") == 0)
            snprintf(s->api, sizeof(s->api), "null");
        else if (strcasecmp(a->val, "POSIX") != 0)
            fe_refuse(f, "-a", "%s: pfsbench's metadata phases use POSIX calls (or DUMMY: --api null)", a->val);
        break;
    case MD_V: s->verbose = 1; break;
    case MD_HELP: s->help = 1; break;
    case MD_G: fe_note(f, "-G", "the data offset seed is not used: pfsbench's file content is its own"); break;
    case MD_X: s->xfile = a->val; break;
    case MD_PRE: fe_int(f, "-p", a->val, 0, 1000000, &s->pre); break; /* mdtest's pre_delay: whole seconds */
    default: break;
    }
}

/* -D: mkdir, stat-dirs and rmdir of the tree's directories (mdtest's -C,
 * -T, -r on directories), with nothing to read (-E). */
static void md_dir_phases(struct fe *f, struct md_st *s, char *list, size_t len)
{
    if (s->files)
        fe_refuse(f, "-D", "and -F both: give one (directories only, or files only)");
    if (!s->depth && !s->n && !s->items) /* with them, md_dir_items made the tree or said why not */
        fe_refuse(f, "-D", "at -z 0 and without -n or -I there is nothing to make: pfsbench's directory phases make, "
                  "stat and remove the -z/-b tree's directories, or with -u each rank's -n directories; give -z 1 or "
                  "more, or -u -n N");
    if (s->e)
        fe_refuse(f, "-E", "with -D: a directory has no content to read");
    if (!s->c && !s->t && !s->r)
        s->c = s->t = s->r = 1;
    snprintf(list, len, "%s%s%s", s->c ? "mkdir," : "", s->t ? "stat-dirs," : "", s->r ? "rmdir," : "");
    size_t n = strlen(list);
    if (n)
        list[n - 1] = '\0';
}

/* 0 files per process: mdtest's tree creation (-C) and removal (-r) alone. */
static void md_tree_phases(struct fe *f, const struct md_st *s, char *list, size_t len)
{
    list[0] = '\0';
    if (!s->c && !s->r) {
        fe_refuse(f, s->t ? "-T" : "-E", "with 0 files per process there is nothing to stat or read: give -n N");
        return;
    }
    snprintf(list, len, "%s", s->c && s->r ? "mkdir,rmdir" : s->c ? "mkdir" : "rmdir");
}

/* mdtest's phases (create, stat, read, remove; all four without -C -T -E
 * -r) as -p; with a tree, mkdir first (with -C) and rmdir last (with -r):
 * mdtest's tree creation and removal. */
static void md_phases(struct fe *f, struct md_st *s, char *list, size_t len)
{
    if (s->dirs) {
        md_dir_phases(f, s, list, len);
        return;
    }
    if (!s->c && !s->t && !s->e && !s->r)
        s->c = s->t = s->e = s->r = 1;
    if (s->tree_only) {
        md_tree_phases(f, s, list, len);
        return;
    }
    const int tree = s->depth > 0;
    snprintf(list, len, "%s%s%s%s%s%s", tree && s->c ? "mkdir," : "", s->c ? "create," : "", s->t ? "stat," : "",
             s->e ? "read-files," : "", s->r ? "delete," : "", tree && s->r ? "rmdir," : "");
    size_t n = strlen(list);
    if (n)
        list[n - 1] = '\0';
    /* mdtest reads -e bytes of each file; pfsbench reads the whole --file-size. */
    if (s->e && (s->have_e ? s->rbytes : 0) != s->wbytes)
        fe_refuse(f, s->have_e ? "-e" : "-w", "mdtest's read phase reads -e %llu bytes of each file, pfsbench's "
                  "read-files all -w %llu: give -e equal to -w", (unsigned long long)(s->have_e ? s->rbytes : 0),
                  (unsigned long long)s->wbytes);
}

/* The directories that hold a rank's files: every directory of the tree
 * (the top one too), or its leaves with -L; 0 past 100000000. */
static uint64_t md_holders(const struct md_st *s)
{
    uint64_t all = 1, level = 1;
    for (long k = 1; k <= s->depth; k++) {
        if (level > 100000000 / (uint64_t)s->branch)
            return 0;
        level *= (uint64_t)s->branch;
        all += level;
    }
    return all > 100000000 ? 0 : s->leaf ? level : all;
}

/* -D with -n N or -I N: mdtest's N directory items per rank. At -z 0,
 * with -u, they are the rank's own directory's N children: pfsbench's tree
 * of depth 1 and N branches (its mkdir, stat-dirs and rmdir count N per
 * rank). In a deeper tree (items in every directory of it) or in the one
 * shared directory (made by stream 0 alone in pfsbench) they are not built. */
static void md_dir_items(struct fe *f, struct md_st *s)
{
    const long n = s->items ? s->items : s->n;
    const char *opt = s->items ? "-I" : "-n";
    if (!n)
        return;
    if (s->items && s->n && s->items != s->n)
        fe_refuse(f, "-I", "%ld with -n %ld and -D at -z 0: the one directory holds them all; give one of -I and -n",
                  s->items, s->n);
    else if (s->depth)
        fe_refuse(f, opt, "with -D at -z %ld: mdtest's directory items in every directory of the tree are not built "
                  "(pfsbench's directory phases work on the -z/-b tree's own directories; at -z 0 with -u they are "
                  "built): drop it", s->depth);
    else if (!s->unique)
        fe_refuse(f, opt, "with -D and without -u: every rank's %ld directories in the one shared directory are not "
                  "built (pfsbench's shared tree is stream 0's alone); give -u", n);
    else if (n > 100000)
        fe_refuse(f, opt, "%ld directories in each rank's directory: pfsbench's --branch takes at most 100000", n);
    else {
        fe_note(f, opt, "%ld with -D at -z 0: each rank's %ld directories are pfsbench's tree of depth 1 and %ld "
                "branches in the rank's own directory", n, n, n);
        s->depth = 1;
        s->branch = n;
    }
}

/* mdtest's -n over the tree's directories that hold files (items_per_dir =
 * n / directories, n = items_per_dir x directories: -n 1000 -z 2 -b 3 is 76
 * in each of 13, 988); -I items in each; neither: mdtest's default, 0. */
static void md_round(struct fe *f, struct md_st *s, uint64_t h)
{
    if (s->items && (uint64_t)s->items > 100000000 / h)
        fe_refuse(f, "-I", "%ld items in each of %llu directories: more than 100000000 files per process", s->items,
                  (unsigned long long)h);
    else if (s->items && s->n && (uint64_t)s->n != (uint64_t)s->items * h)
        fe_refuse(f, "-I", "%ld items per directory with -n %ld: the tree's %llu director%s holding files make "
                  "%llu; give one of -I and -n", s->items, s->n, (unsigned long long)h, h == 1 ? "y" : "ies",
                  (unsigned long long)((uint64_t)s->items * h));
    else if (s->items)
        s->n = (long)((uint64_t)s->items * h);
    else if (s->n && (uint64_t)s->n % h) {
        const uint64_t each = (uint64_t)s->n / h;
        fe_note(f, "-n", "%ld over the %llu directories that hold files: mdtest puts %ld / %llu = %llu in each, so "
                "%llu files per process, as here", s->n, (unsigned long long)h, s->n, (unsigned long long)h,
                (unsigned long long)each, (unsigned long long)(each * h));
        s->n = (long)(each * h);
    }
}

/* -n and -I over the tree; 0 files (mdtest's default): the tree alone. */
static void md_items(struct fe *f, struct md_st *s)
{
    if (s->depth && s->branch < 1)
        fe_refuse(f, "-b", "%ld: a tree needs 1 or more children per directory", s->branch);
    if (s->dirs) {
        md_dir_items(f, s);
        return;
    }
    if (s->depth && s->branch < 1)
        return;
    const uint64_t h = md_holders(s);
    if (!h) {
        fe_refuse(f, "-z", "%ld -b %ld: more than 100000000 directories per tree", s->depth, s->branch);
        return;
    }
    const long asked = s->n;
    const int bad = f->nbad;
    md_round(f, s, h);
    if (s->n || f->nbad > bad)
        return;
    if (!s->depth)
        fe_refuse(f, "-n", asked ? "%ld: fewer files than directories, mdtest's 0 in each; at -z 0 there is no "
                  "tree to make either: nothing to run; give -n N" : "not given: mdtest's default is 0 files per "
                  "process, and at -z 0 there is no tree to make either: nothing to run; give -n N", asked);
    else {
        fe_note(f, "-n", asked ? "%ld: fewer files than directories, mdtest's 0 in each: only the tree is made and "
                "removed (mdtest's tree creation and removal)" : "not given: mdtest's default is 0 files per process "
                "(and no -I): only the tree is made and removed (mdtest's tree creation and removal)", asked);
        s->tree_only = 1;
    }
}

/* mdtest's -f, -l, -s: a run at each task count from -f to -l (at most
 * the job's) by -s, on ranks 0..count-1 (after 1 it goes on from 0: -f 1
 * -l 8 -s 2 is 1, 2, 4, 6, 8); without -l (or -l 0) only at every rank.
 * pfsbench's --ranks LIST does that in the one job. */
static void md_sweep(struct fe *f, const struct md_st *s)
{
    if (!s->last) {
        if (s->have_f || s->have_s)
            fe_note(f, s->have_f ? "-f" : "-s", "without -l mdtest runs once, at every task: so does pfsbench");
        return;
    }
    char list[MD_MAX_POINTS * 12] = "";
    size_t used = 0;
    int npts = 0;
    const long first = s->have_f ? s->first : 1, stride = s->have_s ? s->rstride : 1;
    for (long i = first; i <= s->last && i <= f->nranks && npts <= MD_MAX_POINTS; i += stride) {
        if (npts++ < MD_MAX_POINTS)
            used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%ld", used ? "," : "", i);
        if (i == 1 && stride > 1)
            i = 0;
    }
    if (!npts)
        fe_refuse(f, "-f", "%ld to -l %ld with %d rank%s: mdtest runs at no task count", first, s->last, f->nranks,
                  f->nranks == 1 ? "" : "s");
    else if (npts > MD_MAX_POINTS)
        fe_refuse(f, "-s", "%ld from -f %ld to -l %ld: more than %d task counts (pfsbench's --ranks takes at most %d)",
                  stride, first, s->last, MD_MAX_POINTS, MD_MAX_POINTS);
    else if (fe_passes(f, "--ranks"))
        fe_refuse(f, "-l", "and -- --ranks both name the rank counts: give one");
    if (f->nbad || (npts == 1 && strtol(list, NULL, 10) == f->nranks))
        return;
    if (s->last > f->nranks)
        fe_note(f, "-l", "%ld: past the job's %d ranks, where mdtest stops too", s->last, f->nranks);
    fe_note(f, "-l", "each task count is a run of its own (--ranks %s, labelled ID:n=COUNT); mdtest takes ranks 0 to "
            "COUNT-1, pfsbench the first COUNT round-robin across the nodes", list);
    fe_add(f, "--ranks");
    fe_add(f, list);
}

/* -x FILE: where mdtest's stonewalled create writes how far it got, and
 * where a later -T/-E/-r run reads it. pfsbench keeps the count in the
 * kept run's status (DIR/pfsbench.ID.kept, beside its tree), which a later
 * run with the same -n and --run-id reads; it writes or reads no FILE. */
static void md_xfile(struct fe *f, const struct md_st *s)
{
    if (!s->xfile)
        return;
    if (s->c)
        fe_note(f, "-x", "%s: not written; pfsbench records how far the create got in its results file and, with "
                "-K, in the kept run's status beside its tree (DIR/pfsbench.ID.kept), where later -T, -E, -r runs "
                "with this -n and -- --run-id ID read it", s->xfile);
    else
        fe_note(f, "-x", "%s: not read; pfsbench reads how many files the stonewalled create made in the kept run's "
                "status (DIR/pfsbench.ID.kept, beside its tree) and works on exactly those with this -n", s->xfile);
}

/* mdtest leaves its tree (DIR/#test-dir.0) when it is not told -r, and a
 * later -T, -E or -r without -C works on the tree it finds there (IO500
 * runs its mdtest phases so, job after job). pfsbench's tree then has one
 * name in -d's directory, the run id MD_TREE_ID (DIR/pfsbench.mdtest.md): a
 * -C run without -r keeps it, a run without -C uses it; `-- --run-id ID`
 * names another. Two such trees in one directory collide as mdtest's do. */
#define MD_TREE_ID "mdtest"
static void md_tree_id(struct fe *f, struct md_st *s)
{
    const int leaves = s->c && !s->r, uses = !s->c;
    if (fe_passes(f, "--run-id") || (!leaves && !uses))
        return;
    if (s->last) { /* a rank sweep: a run per point, each its own tree, made and removed */
        if (leaves)
            fe_note(f, "-r", "not given: each task count's run removes its tree at its end (a run of its own)");
        return;
    }
    fe_add(f, "--run-id"), fe_add(f, MD_TREE_ID);
    if (leaves && !s->keep)
        fe_note(f, "-r", "not given: mdtest leaves its tree; pfsbench keeps its own as %s/pfsbench.%s.md, where a "
                "later pfsbench mdtest without -C (-T, -E, -r) finds it; remove it with that run's -r or pfsbench "
                "--clean --run-id %s -d %s", s->dir, MD_TREE_ID, MD_TREE_ID, s->dir);
    else if (uses)
        fe_note(f, "-C", "not given: this run works on the tree an earlier pfsbench mdtest -C without -r left, "
                "%s/pfsbench.%s.md", s->dir, MD_TREE_ID);
    s->keep |= leaves;
}

void fe_mdtest(struct fe *f, int argc, char **argv)
{
    struct md_st s = {.n = 0, .reps = 1, .branch = 1, .dir = "."};
    fe_walk(f, fe_mdtest_tab, argc, argv, md_on, &s);
    if (s.help) {
        fe_add(f, "--help");
        return;
    }
    md_items(f, &s);
    if (!s.files && !s.dirs)
        fe_note(f, "-F", "not given: mdtest would also create, stat and remove -n directory items; pfsbench's "
                "directory phases are the tree's own (-D), so only the file phases run");
    char list[96];
    md_phases(f, &s, list, sizeof(list));
    fe_add(f, "-d");
    fe_add(f, s.dir);
    fe_add(f, "-p");
    fe_add(f, list);
    const int files = !s.dirs && !s.tree_only; /* with files to make: -n, and what places, sizes and reads them */
    if (files)
        fe_add(f, "-n"), fe_addf(f, "%ld", s.n);
    if (s.depth) {
        fe_add(f, "--depth"), fe_addf(f, "%ld", s.depth);
        if (s.branch != 1)
            fe_add(f, "--branch"), fe_addf(f, "%ld", s.branch);
        if (s.leaf && files)
            fe_add(f, "--leaf-only");
    }
    if (s.wbytes && files)
        fe_add_size(f, "--file-size", s.wbytes);
    if (s.unique)
        fe_add(f, "--dirs"), fe_add(f, "per-rank");
    if (s.stride > 0 && files)
        fe_add(f, "-C");
    if (s.stride > 0 && s.r && files)
        fe_note(f, "-N", "pfsbench's -C applies to stat and read-files; each rank deletes its own files");
    if (s.reps > 1)
        fe_add(f, "-i"), fe_addf(f, "%ld", s.reps);
    if (s.pre > 0 && s.reps > 1)
        fe_add(f, "--rep-delay"), fe_addf(f, "%ld", s.pre);
    if (s.pre > 0)
        fe_note(f, "-p", "%ld: mdtest sleeps before each iteration's tests, the first one's too; pfsbench between two "
                "repetitions (--rep-delay%s), untimed like mdtest's", s.pre, s.reps > 1 ? "" : ": with one iteration, "
                "none");
    /* -W: mdtest's stonewall with its wear-out (stoneWallingWearOut), in the
     * file creation phase only, as mdtest has it. */
    if (s.stonewall && s.dirs)
        fe_refuse(f, "-W", "with -D: pfsbench's stonewall stops the file create phase, and -D has none");
    else if (s.stonewall && s.tree_only)
        fe_refuse(f, "-W", "with 0 files per process there is no create phase to stop: give -n N");
    else if (s.stonewall && !s.c)
        fe_refuse(f, "-W", "without -C: the stonewall stops the create phase, which this run does not have");
    else if (s.stonewall)
        fe_add(f, "-D"), fe_addf(f, "%ld", s.stonewall);
    md_tree_id(f, &s);
    if (s.keep)
        fe_add(f, "-k");
    if (s.api[0])
        fe_add(f, "--api"), fe_add(f, s.api);
    if (s.verbose)
        fe_add(f, "-v");
    if (!fe_passes(f, "--format")) /* mdtest's own shape: its SUMMARY tables */
        fe_add(f, "--format"), fe_add(f, "mdtest");
    md_sweep(f, &s);
    md_xfile(f, &s);
}
