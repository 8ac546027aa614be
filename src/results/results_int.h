/* What the results module's files share (private to src/results/):
 * results_h5.c writes the run group and placement (phase_h5.c the phase
 * groups, summary_h5.c /summary, latency_h5.c the latency datasets; the
 * schema's tables, pfs/schema.h, give their types and datasets),
 * image.c handles the file as a whole (structure check, in-memory image),
 * append.c the append's integrity steps (target, up-front checks,
 * temporary copy, stale copies, rename) and lock.c its lock file. These names stay out of the
 * module's exported symbols. */
#ifndef PFS_RESULTS_INT_H
#define PFS_RESULTS_INT_H

#include "pfs/results.h"
#include "pfs/schema.h"

#include <hdf5.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#define PFS_RES_HIDDEN __attribute__((visibility("hidden")))

static inline int fail(char *err, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, len, fmt, ap);
    va_end(ap);
    return -1;
}

struct target {
    char given[PFS_PATH_MAX]; /* what -o said, for messages */
    /* Sized for the compiler's worst case; resolve_target keeps each below PATH_MAX. */
    char path[PATH_MAX + NAME_MAX + 128]; /* the results file itself, symlinks resolved */
    char dir[PATH_MAX];       /* its directory: the copy and the lock live there */
    char base[NAME_MAX + 1];
    char lock[PATH_MAX + NAME_MAX + 128]; /* dir/.base.lock */
    char tmp[PATH_MAX + NAME_MAX + 128];  /* dir/.base.tmp.HOST.PID */
    char host[72];       /* this host as it appears in temporary names */
};

/* results_h5.c */
/* The format and format_version attributes of a new file; nonzero on failure. */
PFS_RES_HIDDEN int pfs_res_write_format(hid_t file);
/* Writes run d (its figures computed: d->fig) as group /runs/NNNNNN,
 * NNNNNN = run_no (its name into name), and its summary rows. */
PFS_RES_HIDDEN int pfs_res_write_run(hid_t file, const struct pfs_run_data *d, int run_no, char *name, size_t namelen);
/* The native type of a schema type (not a string or compound). */
PFS_RES_HIDDEN hid_t pfs_res_native(enum pfs_sch_type t);
/* UTF-8 variable-length strings: every string field and dataset's type. */
PFS_RES_HIDDEN hid_t pfs_res_vstr_type(void);
/* The memory type of a schema table's row, size bytes (its C struct, or a
 * row that begins with it): its fields at their offsets, strings
 * variable-length unless fixed (not NULL) returns 1 with another place and
 * type for one. */
PFS_RES_HIDDEN hid_t pfs_res_compound(const struct pfs_sch_table *t, size_t size,
                                      int (*fixed)(const struct pfs_sch_field *f, void *arg, size_t *off, hid_t *type),
                                      void *arg);
/* A compound memory type's file type, packed. */
PFS_RES_HIDDEN hid_t pfs_res_packed(hid_t mtype);
/* A contiguous dataset with a units attribute (NULL: none): its file type
 * ftype, written from memory laid out as mtype (write_array: the same;
 * write_dcpl: with the dataset creation properties dcpl, chunked or not). */
PFS_RES_HIDDEN int pfs_res_write_dcpl(hid_t loc, const char *name, hid_t ftype, hid_t mtype, int rank,
                                      const hsize_t *dims, const void *data, const char *units, hid_t dcpl);
PFS_RES_HIDDEN int pfs_res_write_typed(hid_t loc, const char *name, hid_t ftype, hid_t mtype, int rank,
                                       const hsize_t *dims, const void *data, const char *units);
PFS_RES_HIDDEN int pfs_res_write_array(hid_t loc, const char *name, hid_t type, int rank, const hsize_t *dims,
                                       const void *data, const char *units);

/* phase_h5.c: phase p's group under phases, from the run's figures. */
PFS_RES_HIDDEN int pfs_res_write_phase(hid_t phases, const struct pfs_run_data *d, int p);

/* summary_h5.c */
/* Appends a /summary row per phase and repetition of run d (made when missing). */
PFS_RES_HIDDEN int pfs_res_append_summary(hid_t file, const struct pfs_run_data *d, int run_no);
/* The memory type of the rows the append writes into the existing /summary
 * ds (variable-length strings, or fixed-length ones for an older table). */
PFS_RES_HIDDEN hid_t pfs_res_summary_mem_type(hid_t ds);

/* image.c */
PFS_RES_HIDDEN void pfs_res_quiet_hdf5(void);
/* An existing file p (given: what -o said): an HDF5 pfsbench results file
 * of a version this writes, that can take a new run. */
PFS_RES_HIDDEN int pfs_res_check_file(const char *p, const char *given, char *err, size_t len);
/* The same on the open file f: every attribute, group and table the append
 * reads or extends; *next: the number of the run to add. 0, or -1 with err. */
PFS_RES_HIDDEN int pfs_res_check_structure(hid_t f, const char *given, int *next, char *err, size_t len);
PFS_RES_HIDDEN int pfs_res_build_image(const struct target *t, const char *old, size_t oldn,
                                       const struct pfs_run_data *d, char *name, size_t namelen, char **img,
                                       size_t *imgn, char *err, size_t len);

/* lock.c: the lock file t->lock. pfs_res_lock_open: opened (made when
 * missing, with mode), a regular file; the fd or -1 with err. */
PFS_RES_HIDDEN int pfs_res_lock_open(const struct target *t, mode_t mode, char *err, size_t len);
/* One try at the write lock on fd (path names it in messages): 0 taken, 1
 * held by another, -1 refused by the file system (err set). *cmd starts
 * as F_OFD_SETLK and falls back to F_SETLK where OFD locks are missing. */
PFS_RES_HIDDEN int pfs_res_lock_try(int fd, int *cmd, const struct target *t, const char *path, char *err,
                                    size_t len);
/* The lock, waited for up to 600 s, saying on stderr every 30 s that it
 * waits and for whom (the holder's line); 0 or -1 with err. */
PFS_RES_HIDDEN int pfs_res_lock_take(int fd, int *cmd, const struct target *t, char *err, size_t len);
/* Under the lock: "HOST PID RUN_ID" into the lock file, for those who wait. */
PFS_RES_HIDDEN void pfs_res_lock_say_holder(int fd, const struct target *t, const char *run_id);
PFS_RES_HIDDEN void pfs_res_lock_release(int fd, int cmd);
/* An existing lock file is one the append can use (a regular file, not a
 * link, openable); none is fine. 0 or -1 with err. */
PFS_RES_HIDDEN int pfs_res_lock_check_file(const struct target *t, char *err, size_t len);

/* Scalar attributes (results_h5.c): a UTF-8 variable-length string (NULL is
 * written as ""), a number of the given native type, an int64, uint64 or
 * float64. 0 or -1. */
PFS_RES_HIDDEN int pfs_res_attr_str(hid_t obj, const char *name, const char *val);
PFS_RES_HIDDEN int pfs_res_attr_num(hid_t obj, const char *name, hid_t type, const void *val);
PFS_RES_HIDDEN int pfs_res_attr_i64(hid_t obj, const char *name, long long v);
PFS_RES_HIDDEN int pfs_res_attr_u64(hid_t obj, const char *name, uint64_t v);
PFS_RES_HIDDEN int pfs_res_attr_f64(hid_t obj, const char *name, double v);

#endif
