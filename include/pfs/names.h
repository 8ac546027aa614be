/* Every name pfsbench gives a file or directory, formatted and parsed in one
 * place, so that what a run creates, what --clean recognises and what the
 * documentation says cannot drift apart. Pure and local: no MPI, no I/O.
 *
 * In the target directory DIR, for a run id ID:
 *   DIR/pfsbench.ID.<stream>     a data file of one stream (file per process)
 *   DIR/pfsbench.ID.shared       the data file all streams share (--shared)
 *   DIR/pfsbench.ID.lock         the run's lock, held for its lifetime
 *   DIR/pfsbench.ID.kept         a kept run's status: what its data files hold (pfs/kept.h)
 *   DIR/pfsbench.ID.ckpt.<file>  a checkpoint file of ckpt-save (src/core/phases/ckpt.c)
 *   DIR/pfsbench.ID.train.<file> a training data set's file of train-gen (src/core/phases/train.c)
 *   DIR/pfsbench.ID.md/          the metadata phases' directory
 *   DIR/pfsbench.ID.md/s<stream>/        a stream's directory (--dirs per-rank)
 *   DIR/pfsbench.ID.md[/s<stream>]/d.<stream>.<node>/...  the --depth tree's directories
 *   .../f.<stream>.<index>       a small file of a metadata phase
 * <stream> and <index> are decimal without leading zeros (0 is "0"); ID is 1
 * to PFS_RUN_ID_MAX - 1 letters, digits, '-' or '_'.
 *
 * With --file-name PATH the data files are the user's names instead (IOR's
 * -o and -F): PATH itself with --shared, PATH.<stream> per stream with
 * <stream> as %08d (PATH.00000000, IOR's naming), each with .<rep> after it
 * under --file-per-rep (IOR's -m: PATH.0, PATH.00000000.0); DIR is PATH's directory
 * and the lock, kept status and metadata directory keep the names above. */
#ifndef PFS_NAMES_H
#define PFS_NAMES_H

#include <stddef.h>
#include <stdint.h>

/* Bytes of a run id with its NUL (the size of struct pfs_config's run_id). */
#define PFS_RUN_ID_MAX 64
/* The characters a run id may hold, as a regular-expression class. */
#define PFS_RUN_ID_CLASS "A-Za-z0-9_-"

enum pfs_name_kind {
    PFS_NAME_NONE = 0,  /* not a name pfsbench makes */
    PFS_NAME_DATA,      /* pfsbench.ID.<stream> */
    PFS_NAME_SHARED,    /* pfsbench.ID.shared */
    PFS_NAME_LOCK,      /* pfsbench.ID.lock */
    PFS_NAME_MD_TOP,    /* pfsbench.ID.md */
    PFS_NAME_MD_SUBDIR, /* s<stream> (inside pfsbench.ID.md), or d.<stream>.<node> of a --depth tree (index: the node) */
    PFS_NAME_MD_FILE,   /* f.<stream>.<index> (inside pfsbench.ID.md or its s<stream>) */
    PFS_NAME_KEPT,      /* pfsbench.ID.kept: a kept run's status (appended: the kinds above keep their numbers) */
    PFS_NAME_CKPT,      /* pfsbench.ID.ckpt.<file>: a checkpoint file (index: the file) */
    PFS_NAME_TRAIN,     /* pfsbench.ID.train.<file>: a training data set's file (index: the file) */
};

/* What pfs_name_parse found in a name. */
struct pfs_name {
    enum pfs_name_kind kind;
    char run_id[PFS_RUN_ID_MAX]; /* DATA, SHARED, LOCK, MD_TOP, KEPT; "" otherwise */
    int stream;                  /* DATA, MD_SUBDIR, MD_FILE; -1 otherwise */
    uint64_t index;              /* MD_FILE, CKPT, TRAIN; 0 otherwise */
};

/* Local. 1 when c may appear in a run id. */
int pfs_run_id_char(int c);

/* Local. 1 when id is a run id pfsbench accepts (length and characters). */
int pfs_run_id_valid(const char *id);

/* Local. The formatters write "DIR/NAME", or the bare NAME when dir is NULL,
 * into out like snprintf. They return 0, or -1 when the name did not fit in
 * len bytes (out then holds as much as fitted), the run id is not valid or a
 * number is negative. */
int pfs_name_data(char *out, size_t len, const char *dir, const char *run_id, int shared, int stream);
int pfs_name_lock(char *out, size_t len, const char *dir, const char *run_id);
int pfs_name_kept(char *out, size_t len, const char *dir, const char *run_id);
int pfs_name_ckpt(char *out, size_t len, const char *dir, const char *run_id, uint64_t file);
int pfs_name_train(char *out, size_t len, const char *dir, const char *run_id, uint64_t file);
int pfs_name_md_top(char *out, size_t len, const char *dir, const char *run_id);
/* Here dir is the metadata directory (DIR/pfsbench.ID.md), or a stream's. */
int pfs_name_md_subdir(char *out, size_t len, const char *md_top, int stream);
int pfs_name_md_file(char *out, size_t len, const char *dir, int stream, uint64_t index);

/* Local. --file-name's data files: "DIR/BASE" with shared, else
 * "DIR/BASE.%08d" (stream zero-padded to 8 digits, as IOR's -F), and with
 * rep >= 0 (--file-per-rep, IOR's -m) ".REP" after either; rep -1: none.
 * Returns as the formatters above; base must be a plain name (no '/'). */
int pfs_name_user(char *out, size_t len, const char *dir, const char *base, int shared, int stream, int rep);

/* Local. Splits --file-name's PATH into its directory (dir, "." for a bare
 * name, "/" for one at the root) and its last component (base). Returns 0,
 * or -1 when PATH has no file name (empty, ends in '/', or its last
 * component is "." or ".."), or a part does not fit. */
int pfs_name_split(const char *path, char *dir, size_t dlen, char *base, size_t blen);

/* Local. Parses one directory entry's name (no '/'): the kind, and the parts
 * in *out when out is not NULL. Anything a formatter above could not have
 * written (leading zeros, a sign, an empty or over-long id, a number past
 * its type, a trailing character) is PFS_NAME_NONE. */
enum pfs_name_kind pfs_name_parse(const char *name, struct pfs_name *out);

#endif
