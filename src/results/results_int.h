/* What the results module's files share (private to src/results/):
 * results_h5.c writes the run group and placement (phase_h5.c the phase
 * groups, summary_h5.c /summary, latency_h5.c the latency datasets; the
 * schema's tables, pfs/schema.h, give their types and datasets),
 * image.c handles the file as a whole (structure check, a new file in
 * memory, an existing one opened through overlay.c, the driver that keeps
 * HDF5's writes in memory), journal.c commits those writes behind an undo
 * journal and recovers one, append.c the append's integrity steps
 * (target, up-front checks, a new file's copy, stale copies, rename) and
 * lock.c its lock file. These names stay out of the module's exported
 * symbols. */
#ifndef PFS_RESULTS_INT_H
#define PFS_RESULTS_INT_H

#include "pfs/results.h"
#include "pfs/schema.h"

#include <hdf5.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/stat.h>
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
    char dir[PATH_MAX];       /* its directory: the copy, the journal and the lock live there */
    char base[NAME_MAX + 1];
    char lock[PATH_MAX + NAME_MAX + 128]; /* dir/.base.lock */
    char tmp[PATH_MAX + NAME_MAX + 128];  /* dir/.base.tmp.HOST.PID: a new file's copy, or the journal */
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
/* A new file holding run d as run 1, built in memory: its bytes in *img. */
PFS_RES_HIDDEN int pfs_res_build_image(const struct target *t, const struct pfs_run_data *d, char *name,
                                       size_t namelen, char **img, size_t *imgn, char *err, size_t len);

/* overlay.c: the results file opened in place by HDF5 through a driver
 * that reads the file and keeps every write in memory (extents sorted by
 * address, disjoint, not touching). journal.c commits it. */
struct pfs_ext {
    haddr_t addr;
    size_t len, cap;
    unsigned char *p;
};
struct pfs_ovl {
    int fd;             /* the results file, open for reading and writing */
    haddr_t old_eof;    /* its size when opened */
    haddr_t eof;        /* the size HDF5 left it */
    haddr_t file_valid; /* the file's bytes below this are its content (a cut lowers it) */
    struct pfs_ext *e;
    size_t n, cap;
    size_t bytes; /* held in e */
    int err;      /* errno of a failed read */
};
PFS_RES_HIDDEN struct pfs_ovl *pfs_res_ovl_new(int fd, off_t size);
PFS_RES_HIDDEN void pfs_res_ovl_free(struct pfs_ovl *o);
/* The content as HDF5 left it: the file under the overlay. 0 or -1 (errno). */
PFS_RES_HIDDEN int pfs_res_ovl_read(const struct pfs_ovl *o, haddr_t addr, size_t size, void *buf);
/* A file access property list for o, with the driver registered as
 * *driver (H5FDunregister it once the file and the list are closed); -1. */
PFS_RES_HIDDEN hid_t pfs_res_ovl_fapl(struct pfs_ovl *o, hid_t *driver);
/* image.c: run d added to the existing file t through o (HDF5 closed
 * again: o holds every change); 0 or -1 with err. */
PFS_RES_HIDDEN int pfs_res_build_overlay(const struct target *t, struct pfs_ovl *o, const struct pfs_run_data *d,
                                         char *name, size_t namelen, char *err, size_t len);

/* journal.c: n bytes of p written to fd at its offset, resuming after
 * EINTR and short writes: 0, or -1 with errno (EIO: no progress). */
PFS_RES_HIDDEN int pfs_res_write_all(int fd, const void *p, size_t n);

/* copy.c: the run added by a copy beside the file renamed over it, as
 * append.c's append_once returns (0, -1 with err, 1 the file was made or
 * changed by another meanwhile, the copy removed). A new file: n bytes of
 * img. An existing one (st as it was opened): the overlay o's content,
 * with the file's owner and mode; it says so on stderr. */
PFS_RES_HIDDEN int pfs_res_copy_new(const struct target *t, const char *img, size_t n, char *err, size_t len);
PFS_RES_HIDDEN int pfs_res_copy_over(const struct target *t, const struct pfs_ovl *o, const struct stat *st,
                                     char *err, size_t len);
/* Same device, inode, size and mtime. */
PFS_RES_HIDDEN int pfs_res_same_file(const struct stat *a, const struct stat *b);

/* journal.c: o written into the file, journaled (the undo journal at
 * t->tmp, made through dfd); 0, or -1 with err, the file as it was or,
 * where even the undo failed, the journal left for the next lock holder. */
PFS_RES_HIDDEN int pfs_res_journal_commit(const struct target *t, int dfd, struct pfs_ovl *o, char *err, size_t len);
/* Under the write lock: every complete journal beside t undone into the
 * file and removed; an incomplete one (the file never touched) removed
 * when it is this host's and its writer is gone. 0, or -1 with err. */
PFS_RES_HIDDEN int pfs_res_journal_recover(const struct target *t, int dfd, char *err, size_t len);
/* 1 when a journal lies beside t (complete: a complete one, which the
 * file may need undone from), 0 when none. */
PFS_RES_HIDDEN int pfs_res_journal_any(const struct target *t, int complete);
/* A test hook (PFSBENCH_TEST_APPEND_PEAK): start 1 resets the peak and
 * keeps the size in *rss0; start 0 says on stderr the append's peak above
 * it and the size of the file at path. */
PFS_RES_HIDDEN void pfs_res_test_peak(int start, long *rss0, const char *path);
/* Whether the copy or journal named .BASE.tmp.<rest> is this host's and
 * its writer is gone (append.c). */
PFS_RES_HIDDEN int pfs_res_copy_is_stale(const char *rest, const char *host);

/* lock.c: the lock file t->lock. pfs_res_lock_open: opened (made when
 * missing, with mode), a regular file; the fd or -1 with err. */
PFS_RES_HIDDEN int pfs_res_lock_open(const struct target *t, mode_t mode, char *err, size_t len);
/* The two locks on the lock file, each one byte of it (an older
 * pfsbench's whole-file lock conflicts with both): appends hold the
 * writer lock exclusively; readers hold the reader lock shared while the
 * file is open, and an append holds it exclusively while it writes into
 * the file in place. */
#define PFS_LOCK_WRITER 0
#define PFS_LOCK_READER 1
#define PFS_LOCK_BOTH (-1) /* pfs_res_lock_release: both */
/* One try at lock which of type (F_WRLCK; F_RDLCK: shared) on fd (path
 * names it in messages): 0 taken, 1 held by another, -1 refused by the
 * file system (err set). *cmd starts as F_OFD_SETLK and falls back to
 * F_SETLK where OFD locks are missing. */
PFS_RES_HIDDEN int pfs_res_lock_try(int fd, int *cmd, short type, int which, const struct target *t,
                                    const char *path, char *err, size_t len);
/* Lock which of type, waited for up to 600 s, saying on stderr every 30 s
 * that it waits and for whom (the holder's line); 0 or -1 with err. */
PFS_RES_HIDDEN int pfs_res_lock_take(int fd, int *cmd, short type, int which, const struct target *t, char *err,
                                     size_t len);
/* Under the lock: "HOST PID RUN_ID" into the lock file, for those who wait. */
PFS_RES_HIDDEN void pfs_res_lock_say_holder(int fd, const struct target *t, const char *run_id);
PFS_RES_HIDDEN void pfs_res_lock_release(int fd, int cmd, int which);
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
