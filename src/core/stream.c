/* The I/O loops of one stream. The transfer loop is the hot path: with no
 * --verify, --random, --deadline or collective I/O it is an offset, a
 * pread/pwrite and a flag test per transfer, nothing more. */
#define _GNU_SOURCE
#include "pfs/stream.h"
#include "pfs/safefile.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

double pfs_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void pfs_stream_fail(struct pfs_stream *s, const char *op, const char *path, uint64_t off, int err, int sig,
                     const char *fmt, ...)
{
    struct pfs_failure *f = &s->fail;
    if (f->failed)
        return;
    f->failed = 1;
    f->err = err;
    f->sig = sig;
    f->offset = off;
    f->when = pfs_now();
    snprintf(f->op, sizeof(f->op), "%s", op);
    snprintf(f->path, sizeof(f->path), "%s", path ? path : "");
    f->detail[0] = '\0';
    if (fmt) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(f->detail, sizeof(f->detail), fmt, ap);
        va_end(ap);
    }
}

/* Names the call the stream enters, for the stall watchdog's thread. */
static inline void mark(struct pfs_stream *s, const char *op)
{
    __atomic_store_n(&s->op, op, __ATOMIC_RELAXED);
}

/* A backend failure: the backend's own words when it has them. err is a
 * positive errno or a negated PFS_ERR_* code (no errno then). */
static void backend_fail(const struct pfs_phase_ctx *p, struct pfs_stream *s, const char *op, const char *path,
                         uint64_t off, int err)
{
    char buf[200];
    const char *own = pfs_safefile_why(-err, path, buf, sizeof(buf));
    const char *why = p->be->errstr ? p->be->errstr(p->bectx) : NULL;
    if (own)
        pfs_stream_fail(s, op, path, off, 0, 0, "%s%s%s", own, why ? ": " : "", why ? why : "");
    else if (why) /* MPI's error string; the errno its class maps to is not one the system gave */
        pfs_stream_fail(s, op, path, off, 0, 0, "%s", why);
    else
        pfs_stream_fail(s, op, path, off, err, 0, NULL);
}

void pfs_stream_data(const struct pfs_phase_ctx *p, struct pfs_stream *s)
{
    const struct pfs_config *cfg = p->cfg;
    const int kind = p->kind;
    const int wr = pfs_phase_is_write(kind);
    const char *path = wr ? s->path : s->rd_path;
    const int writer = wr ? s->id : s->rd_writer;
    const int collective = cfg->collective;
    const size_t len = (size_t)cfg->transfer;
    const uint64_t perm_seed = p->seed ^ pfs_mix64((uint64_t)writer + 1);
    struct pfs_times *t = &s->t;
    uint64_t n = kind == PFS_PH_WRITE ? p->nxfers : p->data_xfers;
    unsigned flags = wr ? PFS_OPEN_WRITE : PFS_OPEN_READ;
    int creating = 0;
    if (cfg->direct)
        flags |= PFS_OPEN_DIRECT;
    if (cfg->shared)
        flags |= PFS_OPEN_SHARED;
    else if (kind == PFS_PH_WRITE) {
        creating = !s->created;
        flags |= creating ? PFS_OPEN_CREATE : PFS_OPEN_TRUNC;
    }

    memset(t, 0, sizeof(*t));
    void *fh = NULL;
    uint64_t j = 0, off = 0;
    double vt = 0;
    int stopped = 0;
    size_t bad_at = 0;
    uint64_t bad_exp = 0, bad_found = 0, bad_off = 0;

    /* Every open after the create expects the inode the create made. */
    const struct pfs_fid *expect = creating ? NULL : wr ? &s->fid : &s->rd_fid;
    struct pfs_fid got = {0, 0};
    mark(s, wr ? "open for writing" : "open for reading");
    t->open_start = pfs_now();
    int rc = p->be->open(p->bectx, path, flags, expect, &got, &fh);
    if (rc < 0) {
        if (rc == -EEXIST)
            pfs_stream_fail(s, "open for writing", path, PFS_NO_OFFSET, EEXIST, 0,
                            "a file of that name is already there; pfsbench never reuses a file it did not create");
        else
            backend_fail(p, s, wr ? "open for writing" : "open for reading", path, PFS_NO_OFFSET, -rc);
        fh = NULL;
    } else if (creating) {
        s->created = 1;
        s->fid = got;
    }
    t->open_end = pfs_now();
    if (collective && p->agree_open) {
        /* Collective calls must be made by all ranks alike: agree first. */
        if (p->agree_open(p->arg, fh == NULL))
            n = 0;
    } else if (!fh) {
        n = 0;
    }

    /* The stonewall runs on the same clock as the timing: pattern work
     * (--verify) is taken out of both, so verifying does not move it. */
    const double deadline = cfg->deadline > 0 ? t->open_start + cfg->deadline : 0;
    mark(s, wr ? "write" : "read");
    for (j = 0; j < n; j++) {
        if (*p->interrupted) {
            pfs_stream_fail(s, "interrupted", path, PFS_NO_OFFSET, 0, *p->interrupted, "signal %d (%s)", (int)*p->interrupted,
                            strsignal(*p->interrupted));
            if (!collective)
                break;
        }
        if (deadline > 0 && !collective && pfs_now() - vt >= deadline) {
            stopped = 1;
            break;
        }
        uint64_t idx = cfg->random ? pfs_permute(j, p->nxfers, perm_seed) : j;
        off = pfs_offset(cfg->shared, cfg->layout, writer, p->nstreams, cfg->block, cfg->transfer, idx);
        int64_t got;
        if (wr) {
            if (cfg->verify) {
                double v0 = pfs_now();
                pfs_pattern_fill(s->buf, len, p->seed, writer, off);
                vt += pfs_now() - v0;
            }
            got = p->be->pwrite(fh, s->buf, len, off);
        } else {
            got = p->be->pread(fh, s->buf, len, off);
            if (got == (int64_t)len && cfg->verify) {
                double v0 = pfs_now();
                size_t at;
                uint64_t e, f;
                uint64_t bad = pfs_pattern_check(s->buf, len, p->seed, writer, off, &at, &e, &f);
                if (bad && !t->errors) {
                    bad_at = at;
                    bad_exp = e;
                    bad_found = f;
                    bad_off = off;
                }
                t->errors += bad;
                vt += pfs_now() - v0;
            }
        }
        int local_bad = 0;
        if (got < 0) {
            backend_fail(p, s, wr ? "write" : "read", path, off, (int)-got);
            local_bad = 1;
        } else if ((size_t)got < len) {
            t->bytes += (uint64_t)got;
            const char *why = p->be->errstr ? p->be->errstr(p->bectx) : NULL;
            pfs_stream_fail(s, wr ? "write" : "read", path, off + (uint64_t)got, 0, 0,
                            wr ? "short write: %" PRId64 " of %zu bytes%s%s"
                               : "short read: the file ends early (%" PRId64 " of %zu bytes)%s%s",
                            got, len, why ? ": " : "", why ? why : "");
            local_bad = 1;
        } else {
            /* Atomic so that the progress hook on the main thread may read it. */
            __atomic_store_n(&t->bytes, t->bytes + len, __ATOMIC_RELAXED);
        }
        if (p->progress && (j & 15) == 15)
            p->progress(p->arg, s);
        if (collective) {
            /* One agreement per collective transfer: stop together on an
             * error or at the stonewall, never leave a rank inside a _all call. */
            int any = p->agree_xfer(p->arg, local_bad || s->fail.failed, deadline > 0 && pfs_now() - vt >= deadline);
            if (any & 1) {
                j++;
                break;
            }
            if ((any & 2) && j + 1 < n) {
                j++;
                stopped = 1;
                break;
            }
        } else if (local_bad) {
            j++;
            break;
        }
    }
    t->xfers = j;
    if (cfg->deadline > 0) {
        t->sw_bytes = t->bytes;
        if (stopped)
            t->sw_end = pfs_now() - vt;
        /* Wear-out: every stream continues to the largest count any stream
         * reached, so every file holds the same transfers. Every stream
         * reaches the hook, the failed ones too; 0 means someone failed. */
        uint64_t target = p->wearout(p->arg, s, j);
        if (fh && !s->fail.failed) {
            for (; j < target; j++) {
                uint64_t idx = cfg->random ? pfs_permute(j, p->nxfers, perm_seed) : j;
                off = pfs_offset(cfg->shared, cfg->layout, writer, p->nstreams, cfg->block, cfg->transfer, idx);
                if (wr && cfg->verify) {
                    double v0 = pfs_now();
                    pfs_pattern_fill(s->buf, len, p->seed, writer, off);
                    vt += pfs_now() - v0;
                }
                int64_t got = wr ? p->be->pwrite(fh, s->buf, len, off) : p->be->pread(fh, s->buf, len, off);
                if (got != (int64_t)len) {
                    if (got < 0)
                        backend_fail(p, s, wr ? "write" : "read", path, off, (int)-got);
                    else
                        pfs_stream_fail(s, wr ? "write" : "read", path, off, 0, 0, "short transfer in wear-out");
                    break;
                }
                t->bytes += len;
            }
            t->xfers = j;
        }
    }
    t->xfer_end = pfs_now();
    if (fh && wr && cfg->fsync) {
        mark(s, "fsync");
        rc = p->be->fsync(fh);
        if (rc < 0)
            backend_fail(p, s, "fsync", path, PFS_NO_OFFSET, -rc);
    }
    if (fh) {
        mark(s, "close");
        rc = p->be->close(fh);
        if (rc < 0)
            backend_fail(p, s, "close", path, PFS_NO_OFFSET, -rc);
    }
    t->close_end = pfs_now();
    mark(s, NULL);
    /* Pattern work is the benchmark's own, not the file system's: take it
     * out of this stream's span so bandwidth stays comparable. */
    t->verify_s = vt;
    t->xfer_end -= vt;
    t->close_end -= vt;
    if (t->errors)
        pfs_stream_fail(s, "verify", path, bad_off + bad_at, 0, 0,
                        "%" PRIu64 " mismatching 8-byte words in data written by %s %d, read by %s %d; first at byte %" PRIu64
                        ": expected 0x%016" PRIx64 ", found 0x%016" PRIx64,
                        t->errors, cfg->threads > 1 ? "stream" : "rank", writer, cfg->threads > 1 ? "stream" : "rank",
                        s->id, bad_off + bad_at, bad_exp, bad_found);
}

void pfs_md_path(char *out, size_t len, const char *dir, int stream, uint64_t i)
{
    snprintf(out, len, "%s/f.%d.%" PRIu64, dir, stream, i);
}

/* Writes or reads exactly n bytes of a small file in transfer-sized pieces. */
static int small_io(int fd, void *buf, size_t bufsize, uint64_t n, int write_it, uint64_t *done)
{
    *done = 0;
    while (*done < n) {
        size_t chunk = n - *done < bufsize ? (size_t)(n - *done) : bufsize;
        ssize_t r = write_it ? write(fd, buf, chunk) : read(fd, buf, chunk);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            return -errno;
        }
        if (r == 0)
            return write_it ? -ENOSPC : 0;
        *done += (uint64_t)r;
    }
    return 0;
}

void pfs_stream_meta(const struct pfs_phase_ctx *p, struct pfs_stream *s)
{
    const struct pfs_config *cfg = p->cfg;
    const int kind = p->kind;
    const int other = kind == PFS_PH_STAT || kind == PFS_PH_READFILES; /* -C applies */
    const char *dir = other ? s->md_rd_dir : s->md_dir;
    const int owner = other ? s->rd_writer : s->id;
    const uint64_t nfiles = (uint64_t)cfg->files, fsize = cfg->file_size;
    const uint64_t seed = p->seed ^ pfs_mix64((uint64_t)owner + 0x6d64);
    struct pfs_times *t = &s->t;
    char path[PFS_PATH_MAX + 256];

    memset(t, 0, sizeof(*t));
    t->open_start = t->open_end = pfs_now();
    uint64_t i;
    for (i = 0; i < nfiles; i++) {
        if (*p->interrupted) {
            pfs_stream_fail(s, "interrupted", dir, PFS_NO_OFFSET, 0, *p->interrupted, "signal %d (%s)", (int)*p->interrupted,
                            strsignal(*p->interrupted));
            break;
        }
        uint64_t k = cfg->md_random ? pfs_permute(i, nfiles, seed) : i;
        pfs_md_path(path, sizeof(path), dir, owner, k);
        uint64_t got = 0;
        int fd, rc = 0;
        static const char *md_ops[PFS_PH_KINDS] = {[PFS_PH_CREATE] = "create", [PFS_PH_STAT] = "stat",
                                                   [PFS_PH_READFILES] = "open, read and close",
                                                   [PFS_PH_DELETE] = "delete"};
        if (i == 0)
            mark(s, md_ops[kind]);
        switch (kind) {
        case PFS_PH_CREATE:
            fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
            if (fd < 0) {
                pfs_stream_fail(s, "create", path, PFS_NO_OFFSET, errno, 0, NULL);
                break;
            }
            s->md_created++;
            if (i + 1 > s->md_reach)
                s->md_reach = i + 1;
            s->md_seed = seed;
            if (fsize && (rc = small_io(fd, s->buf, (size_t)cfg->transfer, fsize, 1, &got)) < 0)
                pfs_stream_fail(s, "write", path, got, -rc, 0, NULL);
            if (close(fd) != 0)
                pfs_stream_fail(s, "close", path, PFS_NO_OFFSET, errno, 0, NULL);
            t->bytes += got;
            break;
        case PFS_PH_STAT: {
            struct stat st;
            if (stat(path, &st) != 0)
                pfs_stream_fail(s, "stat", path, PFS_NO_OFFSET, errno, 0, NULL);
            else if ((uint64_t)st.st_size != fsize)
                pfs_stream_fail(s, "stat", path, PFS_NO_OFFSET, 0, 0, "size %lld bytes, expected %" PRIu64, (long long)st.st_size,
                                fsize);
            break;
        }
        case PFS_PH_READFILES:
            /* Never blocks on a FIFO planted under the name, never follows a link. */
            fd = pfs_open_own(path, O_RDONLY, 0, NULL, NULL);
            if (fd < 0) {
                char why[200];
                if (pfs_safefile_why(fd, path, why, sizeof(why)))
                    pfs_stream_fail(s, "open for reading", path, PFS_NO_OFFSET, 0, 0, "%s", why);
                else
                    pfs_stream_fail(s, "open for reading", path, PFS_NO_OFFSET, -fd, 0, NULL);
                break;
            }
            if ((rc = small_io(fd, s->buf, (size_t)cfg->transfer, fsize, 0, &got)) < 0)
                pfs_stream_fail(s, "read", path, got, -rc, 0, NULL);
            else if (got < fsize)
                pfs_stream_fail(s, "read", path, got, 0, 0, "short read: %" PRIu64 " of %" PRIu64 " bytes", got, fsize);
            close(fd);
            t->bytes += got;
            break;
        case PFS_PH_DELETE:
            if (unlink(path) != 0)
                pfs_stream_fail(s, "delete", path, PFS_NO_OFFSET, errno, 0, NULL);
            else if (s->md_created)
                s->md_created--;
            break;
        }
        if (s->fail.failed)
            break;
        __atomic_store_n(&t->xfers, t->xfers + 1, __ATOMIC_RELAXED);
        if (p->progress && (i & 15) == 15)
            p->progress(p->arg, s);
    }
    t->xfer_end = t->close_end = pfs_now();
    mark(s, NULL);
}

int pfs_stream_meta_clear(const struct pfs_config *cfg, struct pfs_stream *s)
{
    char path[PFS_PATH_MAX + 256];
    int first = 0;
    if (!s->md_created)
        return 0;
    /* The directory is this run's own (made with mkdir, never reused), so
     * every f.<stream>.<i> in it is a file this stream made. Only the names
     * a create reached are looked at: a run of -n 100000000 that failed at
     * file 29 cleans up 29 names, not a hundred million. */
    const uint64_t nfiles = (uint64_t)cfg->files;
    mark(s, "remove the small files");
    for (uint64_t i = 0; i < s->md_reach; i++) {
        uint64_t k = cfg->md_random ? pfs_permute(i, nfiles, s->md_seed) : i;
        pfs_md_path(path, sizeof(path), s->md_dir, s->id, k);
        if (unlink(path) != 0 && errno != ENOENT && !first)
            first = -errno;
        __atomic_store_n(&s->work, s->work + 1, __ATOMIC_RELAXED);
    }
    mark(s, NULL);
    if (!first) {
        s->md_created = 0;
        s->md_reach = 0;
    }
    return first;
}
