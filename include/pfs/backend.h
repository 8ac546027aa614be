/* The I/O backend table (IOR's aiori idea, fio's ioengine_ops discipline):
 * each API is a name, capability flags and function pointers over opaque
 * handles. One interface serves synchronous engines (pwrite/pread) and
 * queue-depth engines (submit/reap); the core reads the flags, picks its
 * function pointers once per phase and never tests a backend by name.
 * Pure header: no MPI; the MPI-IO backend's context is opaque here.
 * docs/engine.md says how to add a backend: one file, one line in
 * src/backends/backends.def. */
#ifndef PFS_BACKEND_H
#define PFS_BACKEND_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "pfs/option.h"
#include "pfs/safefile.h"

struct pfs_config;

/* A failure's offset when none applies (open, fsync, close, create ...). */
#ifndef PFS_NO_OFFSET
#define PFS_NO_OFFSET UINT64_MAX
#endif

enum {
    PFS_OPEN_READ = 1 << 0,
    PFS_OPEN_WRITE = 1 << 1,
    PFS_OPEN_CREATE = 1 << 2, /* O_CREAT|O_EXCL: never reuse a file that is there */
    PFS_OPEN_TRUNC = 1 << 3,  /* emptied only after the identity checks passed */
    PFS_OPEN_DIRECT = 1 << 4,
    PFS_OPEN_SHARED = 1 << 5, /* every rank opens the same file (collective for MPI-IO) */
    PFS_OPEN_DSYNC = 1 << 6,  /* O_DSYNC: each write returns when its data is stable (--sync dsync) */
    PFS_OPEN_SYNC = 1 << 7,   /* O_SYNC: ... its data and metadata (--sync sync) */
};

/* What a backend can do. The core reads these, never a NULL pointer, to
 * decide; pfs_backend_valid() checks that the pointers a flag promises are set. */
enum {
    PFS_CAP_DIRECT = 1 << 0,     /* honours PFS_OPEN_DIRECT (else --direct is refused) */
    PFS_CAP_COLLECTIVE = 1 << 1, /* xfer may be collective: every rank must call it equally often */
    PFS_CAP_ASYNC = 1 << 2,      /* submit/reap: several transfers in flight per stream */
    PFS_CAP_THREADS = 1 << 3,    /* usable from several threads of one rank (--threads) */
    PFS_CAP_META = 1 << 4,       /* its own md_* calls (files and directories); without it the POSIX ones serve */
    PFS_CAP_HINTS = 1 << 5,      /* takes --hint key=value (MPI-IO info) */
    PFS_CAP_OSYNC = 1 << 6,      /* honours PFS_OPEN_DSYNC / PFS_OPEN_SYNC (else --sync is refused) */
    /* fsync of the shared file is collective (MPI_File_sync, H5Fflush over
     * the MPI-IO driver): every rank must call it equally often, so
     * --fsync-every on the shared file needs --collective (whose ranks agree
     * after every transfer); a file per stream is synced alone. */
    PFS_CAP_FSYNC_COLL = 1 << 7,
    /* Its data files are not files in -d (null: nothing at all; rados:
     * objects): the shared file is made by the backend's own open, not on
     * the file system, so its identity is the backend's; the clean-up is
     * its remove (when it has one). */
    PFS_CAP_NOFILES = 1 << 8,
};

/* One transfer, for submit/reap. The core owns the array of these and their
 * buffers (one per slot of the queue); the backend may use priv freely
 * between submit and the reap that hands the transfer back. */
struct pfs_io {
    void *buf;
    size_t len;
    uint64_t off;
    uint64_t idx;  /* the core's: the transfer's number in the phase */
    int64_t res;   /* set by the backend at completion: bytes moved, or a negative errno / PFS_ERR_* */
    int write;     /* 1: buf to the file at off; 0: the file at off into buf */
    uint64_t t0_ns; /* the core's: when it was submitted (its latency runs from here to its completion) */
    uint64_t due_ns; /* the core's, with --rate: its intended start (its response time runs from here) */
    void *priv;    /* the backend's */
};

/* What submit did with a transfer. */
enum { PFS_Q_QUEUED = 0, PFS_Q_COMPLETED = 1 };

/* The outcome of one metadata call (md_*), beside its return code. */
struct pfs_md_res {
    const char *step; /* on failure, the call that failed: "create", "write", "close", "stat",
                       * "open for reading", "read", "delete" (a static string) */
    uint64_t offset;  /* on failure, the byte offset it applies to, or PFS_NO_OFFSET */
    uint64_t bytes;   /* content bytes moved (before the failure, on failure) */
    uint64_t size;    /* md_stat: the file's size */
    int made;         /* md_create: the file exists now, even when writing it failed */
};

struct pfs_backend {
    const char *name; /* what --api takes */
    const char *help; /* one line for --help and --list-options */
    unsigned caps;    /* PFS_CAP_* */
    const char *client; /* a client library in each rank with caches of its own ("libcephfs"), named in
                         * the metadata cache warning; NULL: the mount's (kernel or FUSE) client */
    /* Its own options (NULL: none): rows the generic parser reads once
     * --api names it, into the struct its ops find in
     * pfs_config_backend_opts(cfg); check validates them. */
    const struct pfs_backend_options *options;

    /* ---- life cycle, all optional (NULL: nothing to do) ---- */
    /* Local. Refuses options this backend cannot honour, before anything is
     * created: 0, or -1 with one sentence in err. */
    int (*check)(const struct pfs_config *cfg, char *err, size_t len);
    /* Local unless a backend says otherwise. Makes the per-run context
     * (*ctx, passed to open, errstr and md_*). env is what the layer above
     * gives: a pointer to the run's MPI_Comm, which the MPI-IO and HDF5
     * backends use and the core's ignore (a plain process, as the unit
     * tests, may pass NULL). 0, or -1 with err set. */
    int (*init)(void **ctx, const struct pfs_config *cfg, const void *env, char *err, size_t len);
    void (*fini)(void *ctx);

    /* ---- data, synchronous: required ---- */
    /* All return 0 / bytes on success, a negative errno or PFS_ERR_* on
     * failure; errstr says more where the backend knows more (MPI_Error_string).
     * open: path for this run, a regular file only, never through a symlink,
     * never blocking on a FIFO; when expect is known, only the inode it
     * names (PFS_ERR_NOTREG / PFS_ERR_REPLACED otherwise). got receives the
     * identity of the file opened (of the one created, with CREATE). dirfd
     * is the run's directory, held open since its start: a backend that
     * opens with the POSIX calls opens path's last component relative to it
     * (pfs_open_own_at), so a -d repointed during the run changes nothing;
     * one that can only open by name (MPI-IO, HDF5) checks, after opening,
     * that the name in dirfd is the inode it opened (pfs_fid_check_at).
     * path is the file's full name, for messages. */
    int (*open)(void *ctx, int dirfd, const char *path, unsigned flags, const struct pfs_fid *expect,
                struct pfs_fid *got, void **fh);
    int64_t (*pwrite)(void *fh, const void *buf, size_t len, uint64_t off);
    int64_t (*pread)(void *fh, void *buf, size_t len, uint64_t off);
    int (*fsync)(void *fh);
    int (*close)(void *fh);
    /* Optional: detail of the last error on this context, or NULL. */
    const char *(*errstr)(void *ctx);
    /* Optional, for a backend whose data files are not files in -d
     * (PFS_CAP_NOFILES with data of its own: rados's objects): the clean-up
     * removes path's data through it instead of unlinking path in dirfd,
     * and only while it is still what this run made (fid, as open handed
     * it back). 0 (removed), 1 (already gone), PFS_ERR_REPLACED (something
     * else is there now: left alone), or a negative errno. */
    int (*remove)(void *ctx, int dirfd, const char *path, const struct pfs_fid *fid);
    /* Optional, for such a backend too: how its own messages name path's
     * data ("object pfsbench.ID.0 in pool P"), for the watchdog's, which
     * would otherwise name path, a file in -d that is not there. Local; any
     * thread, while ctx lives. */
    void (*where)(void *ctx, const char *path, char *buf, size_t len);
    /* Optional, for such a backend too: --clean's look at a dead run's
     * data (struct pfs_clean_objects's run, pfs/clean.h, with ctx from an
     * init of --clean's options). A backend with data of its own (remove)
     * and no clean is refused with --clean. */
    int (*clean)(void *ctx, const char *run_id, uint64_t token, int remove, FILE *out, int *failed, char *err,
                 size_t errlen);

    /* ---- data, asynchronous: PFS_CAP_ASYNC ---- */
    /* Takes one transfer (fio's queue): PFS_Q_QUEUED (reap hands it back;
     * submit may only queue, reap pushes what is queued), PFS_Q_COMPLETED
     * (done at once, res set: not reaped), or a negative errno when nothing
     * was queued (not reaped either). */
    int (*submit)(void *fh, struct pfs_io *io);
    /* Hands back between min and max completed transfers (each with res
     * set) in done[], in any order; waits for at least min. min 0 never
     * waits: it pushes what is queued and takes what has completed (--rate
     * polls so between intended starts). Returns the count, or a negative
     * errno when the queue itself broke. */
    int (*reap)(void *fh, struct pfs_io **done, unsigned min, unsigned max);

    /* ---- metadata (small files): PFS_CAP_META, else the POSIX ones ---- */
    /* Each acts on name, one component, in the directory dirfd (one this
     * run made, or a kept run's that it checked, held open: never a path
     * rebuilt from -d), and returns 0 or a negative errno / PFS_ERR_*, with
     * r filled. A backend whose small files are not files (PFS_CAP_NOFILES)
     * gets dirfd -1. None follows a link in name. */
    int (*md_create)(void *ctx, int dirfd, const char *name, void *buf, size_t bufsize, uint64_t size,
                     struct pfs_md_res *r);
    int (*md_stat)(void *ctx, int dirfd, const char *name, struct pfs_md_res *r);
    /* Opens (never blocking on a FIFO), reads up to size bytes, closes. */
    int (*md_read)(void *ctx, int dirfd, const char *name, void *buf, size_t bufsize, uint64_t size,
                   struct pfs_md_res *r);
    int (*md_unlink)(void *ctx, int dirfd, const char *name, struct pfs_md_res *r);
    /* A --depth tree's directories (the mkdir and rmdir phases, the
     * clean-up; the run's and the streams' own directories the MPI layer
     * makes and holds open itself): mkdir refuses one that is there
     * (-EEXIST, never reused); rmdir removes only an empty one. */
    int (*md_mkdir)(void *ctx, int dirfd, const char *name);
    int (*md_rmdir)(void *ctx, int dirfd, const char *name);
};

extern const struct pfs_backend pfs_backend_posix;
/* Transfers that do nothing and succeed, no file touched (IOR's DUMMY, fio's
 * null engine): what the engine itself costs per transfer. */
extern const struct pfs_backend pfs_backend_null;

/* What the core knows of a backend in a module (a MODULE line) before the
 * module is loaded: its help line and its options, which the parser,
 * --help, describe and --list-options=json need without it. The core
 * holds it as pfs_about_<name> (src/backends/<name>_options.c); the
 * module's table names the same help and options. */
struct pfs_backend_about {
    const char *help;
    const struct pfs_backend_options *options;
};

/* ---- the registry (src/backends/backends.def): --api's choices ---- */
/* Lines in the registry; cfg->api is an index into it. */
int pfs_backend_count(void);
/* The i-th line's name ("?" past the end). */
const char *pfs_backend_name(int i);
/* The i-th backend, or NULL past the end, when this program lacks its
 * layer, or when it was not built (pfs_backend_built). */
const struct pfs_backend *pfs_backend_at(int i);
/* 1 when the i-th line is a MODULE line: its table is in libpfs_<name>.so
 * (exporting pfs_backend_<name>), loaded by the run driver; pfs_backend_at
 * is NULL for it. */
int pfs_backend_is_module(int i);
/* The i-th line's help line and its options (NULL: none), for a MODULE line
 * too; NULL where this program lacks the backend's layer. */
const char *pfs_backend_help(int i);
const struct pfs_backend_options *pfs_backend_options_of(int i);
/* 1 unless the i-th line's build switch was off (pfs_backend_at is NULL
 * for it, and --api refuses it). */
int pfs_backend_built(int i);
/* Why the i-th line is not in this program, like snprintf: "this pfsbench
 * was built without it (liburing-dev at build time)"; 0 (and "") for a
 * line that was built. */
size_t pfs_backend_not_built(int i, char *buf, size_t len);
/* The line named name, or -1. */
int pfs_backend_index(const char *name);
const struct pfs_backend *pfs_backend_find(const char *name);
/* The names of the backends in this program that have all of caps, joined
 * by ", ", like snprintf (0 when none). */
size_t pfs_backend_with(unsigned caps, char *buf, size_t len);

/* Local. 0 when a backend's option table is one the generic parser can
 * fill (each row of a backend's kind, long only, inside the struct of
 * bo->size bytes, at most PFS_BACKEND_OPTS_MAX); -1 with the reason in err. */
int pfs_backend_options_valid(const struct pfs_backend_options *bo, char *err, size_t len);

/* Local. 0 when be's flags and pointers agree (every required op set, every
 * op a flag promises set) and its options are valid; -1 with the reason in
 * err otherwise. */
int pfs_backend_valid(const struct pfs_backend *be, char *err, size_t len);

/* Local, for a synchronous backend's pwrite and pread: a transfer moved
 * whole by `once` (one positioned write, wr 1, or read, wr 0, of handle
 * h: the bytes it moved, or -1 with errno), resumed after EINTR and short
 * transfers. The bytes moved, or -errno; a write that makes no progress
 * is -ENOSPC (nothing more will fit); a read stops at the end of the file
 * (the caller names the short read). Inline, so that a constant `once`
 * costs no call. */
static inline int64_t pfs_backend_whole(ssize_t (*once)(void *h, char *buf, size_t len, uint64_t off, int wr),
                                        void *h, char *buf, size_t len, uint64_t off, int wr)
{
    size_t done = 0;
    while (done < len) {
        const ssize_t n = once(h, buf + done, len - done, off + done, wr);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -errno;
        }
        if (n == 0) {
            if (wr)
                return -ENOSPC;
            break;
        }
        done += (size_t)n;
    }
    return (int64_t)done;
}

/* Local, for md_create and md_read: n bytes of a small file from its
 * start, in pieces of at most bufsize (each from or into buf), by `once`
 * as pfs_backend_whole; *done the bytes moved. 0 (a read may meet the end
 * first: the caller compares *done), or -errno. */
static inline int pfs_backend_small(ssize_t (*once)(void *h, char *buf, size_t len, uint64_t off, int wr), void *h,
                                    char *buf, size_t bufsize, uint64_t n, int wr, uint64_t *done)
{
    *done = 0;
    while (*done < n) {
        const size_t chunk = n - *done < bufsize ? (size_t)(n - *done) : bufsize;
        const int64_t got = pfs_backend_whole(once, h, buf, chunk, *done, wr);
        if (got < 0)
            return (int)got;
        *done += (uint64_t)got;
        if ((size_t)got < chunk)
            break;
    }
    return 0;
}

/* Local, for an asynchronous backend's pwrite and pread (called only with
 * nothing in flight): one transfer through its submit, waited for by its
 * reap. The transfer's res, or submit's or reap's negative error. */
int64_t pfs_backend_queue_sync(int (*submit)(void *fh, struct pfs_io *io),
                               int (*reap)(void *fh, struct pfs_io **done, unsigned min, unsigned max), void *fh,
                               void *buf, size_t len, uint64_t off, int write);

/* Local. What the options ask that be cannot do (--direct without
 * PFS_CAP_DIRECT, --collective without PFS_CAP_COLLECTIVE, --threads > 1
 * without PFS_CAP_THREADS, --sync without PFS_CAP_OSYNC, --fsync-every on
 * the shared file without --collective with PFS_CAP_FSYNC_COLL), after be's
 * own check. 0, or -1 with err set. */
int pfs_backend_check(const struct pfs_backend *be, const struct pfs_config *cfg, char *err, size_t len);

/* Local. be's init (ctx NULL when it has none). 0, or -1 with err set. */
static inline int pfs_backend_init(const struct pfs_backend *be, void **ctx, const struct pfs_config *cfg,
                                   const void *env, char *err, size_t len)
{
    *ctx = NULL;
    return be->init ? be->init(ctx, cfg, env, err, len) : 0;
}

static inline void pfs_backend_fini(const struct pfs_backend *be, void *ctx)
{
    if (be->fini)
        be->fini(ctx);
}

/* Local. The backend whose md_* calls serve be's metadata phases: be with
 * PFS_CAP_META (ctx unchanged), else POSIX (*ctx becomes NULL). */
static inline const struct pfs_backend *pfs_backend_md(const struct pfs_backend *be, void **ctx)
{
    if (be->caps & PFS_CAP_META)
        return be;
    *ctx = NULL;
    return &pfs_backend_posix;
}

/* Local. open(2)'s flags for pfsbench's (PFS_OPEN_*): the access mode,
 * O_CREAT|O_EXCL, O_TRUNC, O_DIRECT, and O_SYNC or O_DSYNC (O_SYNC wins).
 * The one mapping of the backends that open with the POSIX calls (posix,
 * uring, stdio, mmap, aio); PFS_OPEN_SHARED changes nothing here. */
int pfs_open_flags(unsigned flags);

/* Local. Direct-I/O alignment of files in dir: the larger of the memory and
 * offset alignments statx reports (STATX_DIOALIGN), else 4096. */
unsigned pfs_dio_alignment(const char *dir);

#endif
