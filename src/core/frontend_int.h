/* The front ends' shared machinery (frontend.c) and the three tools'
 * translators (frontend_ior.c, frontend_mdtest.c, frontend_iozone.c). Private to the core. */
#ifndef PFS_FRONTEND_INT_H
#define PFS_FRONTEND_INT_H

#include <stddef.h>
#include <stdint.h>

#include "pfs/frontend.h"

#define PFS_FE_NOTES 4096
#define NO_EQUIV "no pfsbench equivalent"

enum fe_arity {
    FE_FLAG,   /* no value; may be combined with others in one word (-CLF) */
    FE_VALUE,  /* a value: the rest of the word (-t2m, -G=5) or the next word */
    FE_OPTVAL, /* an optional value, only attached to the letter (mdtest -R5) */
    FE_LIST,   /* the following words that are not options (IOzone -F f1 f2) */
};

/* One option of a tool, spelled as that tool spells it ("-t", "-+n",
 * "--posix.odirect"). id: what the translator does with it; why: when not
 * NULL, the option is refused with this reason. */
struct fe_opt {
    const char *name;
    enum fe_arity arity;
    int id;
    const char *why;
};

/* A translation in progress: the native words, the refusals and the notes. */
struct fe {
    const char *tool;
    int nranks;
    char **v;          /* the native argv being built, v[0] = "pfsbench" */
    int n, cap;
    int oom;
    char *bad;         /* refusals, one per line */
    size_t badlen, badused;
    int nbad;
    char notes[PFS_FE_NOTES];
    char report[PFS_FRONTEND_PATHLEN]; /* IOR's -O summaryFile ("": none) */
    size_t notesused;
    int pass_argc;     /* words after a bare "--": native options, appended last */
    char **pass_argv;
};

/* The value (or list) an option came with, as the tool's translator sees it. */
struct fe_arg {
    const char *val;   /* FE_VALUE, FE_OPTVAL (NULL: none) */
    int lc;            /* FE_LIST */
    char **lv;
};

/* Whether the native words after a bare "--" hold opt (e.g. "--run-id"). */
int fe_passes(const struct fe *f, const char *opt);

typedef void (*fe_on_opt)(struct fe *f, const struct fe_opt *o, const struct fe_arg *a, void *st);

/* Walk a tool's words against its table, calling on() for each option it
 * knows and does not refuse; refusals (unknown options, missing values,
 * stray words, rows with a reason) are recorded. A bare "--" ends the walk:
 * the rest is passed through. */
void fe_walk(struct fe *f, const struct fe_opt *tab, int argc, char **argv, fe_on_opt on, void *st);

void fe_add(struct fe *f, const char *word);
void fe_addf(struct fe *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "-t", then the size written compactly ("2m", "47008"). */
void fe_add_size(struct fe *f, const char *opt, uint64_t bytes);
void fe_refuse(struct fe *f, const char *opt, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void fe_note(struct fe *f, const char *opt, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* A size: digits and an optional 1024-based suffix of `suffixes` (e.g.
 * "kmgtp"), either case; a plain number is multiplied by `plain` (IOzone: 1024).
 * Refuses (and returns -1) on anything else, 0 included. */
int fe_size(struct fe *f, const char *opt, const char *val, const char *suffixes, uint64_t plain, uint64_t *out);
/* A whole number in [min, max]; refuses (and returns -1) otherwise. */
int fe_int(struct fe *f, const char *opt, const char *val, long min, long max, long *out);
/* The directory part of a file path ("." for a bare name), into dir. */
void fe_dirname(const char *path, char *dir, size_t len);

/* Whether a native line asks for a machine-readable report on stdout
 * (--format json|csv): its equivalent goes to stderr then. */
int fe_machine_format(int argc, char **argv);

/* frontend_iorscript.c: IOR's -f FILE met by a translation of one line
 * (pfs_iorscript_translate runs scripts): refused, saying how. */
void fe_ior_script(struct fe *f, const char *file);

/* frontend_ior_api.c: IOR's -a and its backends' own options. The ones
 * pfsbench takes, once: X(IOR's spelling, its arity, the IOR API it
 * belongs to, the native option it becomes or NULL: fe_ior_api_add reads
 * it; a flag becomes a native flag). fe_ior_tab lists them (with the
 * refused ones, their reasons), frontend_ior_api.c maps them. */
#define FE_IOR_BE_OPTS(X)                                                   \
    X("--rados.pool", FE_VALUE, "RADOS", "--rados-pool")                    \
    X("--rados.user", FE_VALUE, "RADOS", "--rados-id")                      \
    X("--rados.conf", FE_VALUE, "RADOS", "--rados-conf")                    \
    X("--cephfs.user", FE_VALUE, "CEPHFS", "--cephfs-id")                   \
    X("--cephfs.conf", FE_VALUE, "CEPHFS", "--cephfs-conf")                 \
    X("--cephfs.prefix", FE_VALUE, "CEPHFS", NULL)                          \
    X("--cephfs.remote_prefix", FE_VALUE, "CEPHFS", "--cephfs-root")        \
    X("--S3-libs3.host", FE_VALUE, "S3-libs3", "--s3-endpoint")             \
    X("--S3-libs3.use-ssl", FE_FLAG, "S3-libs3", "--s3-https")              \
    X("--S3-libs3.bucket-name-prefix", FE_VALUE, "S3-libs3", NULL)          \
    X("--S3-libs3.dont-suffix-bucket", FE_FLAG, "S3-libs3", NULL)           \
    X("--S3-libs3.s3-compatible", FE_FLAG, "S3-libs3", NULL)                \
    X("--aio.max-pending", FE_VALUE, "AIO", NULL)                           \
    X("--aio.granularity", FE_VALUE, "AIO", NULL)
#define FE_IOR_BE_MAX 16
struct fe_ior_api {
    char api[16];                   /* pfsbench's --api: "posix" unless -a says */
    char ior[16];                   /* IOR's name of it: "POSIX", "RADOS", "S3-libs3" ... */
    const char *val[FE_IOR_BE_MAX]; /* each backend option's value as given (a flag's: "1"); NULL: not */
};
/* -a VAL: an IOR API pfsbench has (refused, saying which it has, if not). */
void fe_ior_api_select(struct fe *f, struct fe_ior_api *a, const char *val);
/* A backend option (fe_ior_tab's IOR_BE rows), by IOR's name; val NULL for a flag. */
void fe_ior_api_opt(struct fe *f, struct fe_ior_api *a, const char *name, const char *val);
/* After the walk: --api and the backend's native options, each backend
 * option checked against -a (and -o, for CEPHFS's mount prefix). */
void fe_ior_api_add(struct fe *f, const struct fe_ior_api *a, const char *opath);

/* The translators: fill f->v from the tool's words. */
void fe_ior(struct fe *f, int argc, char **argv);
void fe_mdtest(struct fe *f, int argc, char **argv);
void fe_iozone(struct fe *f, int argc, char **argv);

/* Their option tables (a NULL name ends each): what `pfsbench TOOL --help`
 * lists, translated (no reason) or refused (its reason). */
extern const struct fe_opt fe_ior_tab[], fe_mdtest_tab[], fe_iozone_tab[];

#endif
