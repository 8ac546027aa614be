/* The files of a run: its id, its lock (a live run's mark), the shared file,
 * and the clean-up, which removes exactly what this run created, each only
 * while it is still the inode created, through the descriptor of the
 * directory the run opened at its start (never a path rebuilt from -d).
 * The metadata directories are mdfiles.c's. */
#define _GNU_SOURCE
#include "driver.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pfs/clean.h"
#include "pfs/kept.h"
#include "pfs/names.h"
#include "pfs/userfiles.h"

/* Local. The data file of a stream (the shared file with --shared); the
 * buffers hold DIR (< PFS_PATH_MAX) and a run id with room to spare, or
 * --file-name's PATH (< PFS_PATH_MAX) and its 9 characters more. */
void drv_data_path(const struct ctx *c, int stream, char *out, size_t len)
{
    const struct drv_files *f = &c->files;
    char dir[PFS_PATH_MAX], base[PFS_PATH_MAX];
    if (c->cfg.file_name[0] && pfs_name_split(c->cfg.file_name, dir, sizeof(dir), base, sizeof(base)) == 0)
        (void)pfs_name_user(out, len, c->cfg.dir, base, c->cfg.shared, stream, c->cfg.file_per_rep ? f->name_rep : -1);
    else
        (void)pfs_name_data(out, len, c->cfg.dir, f->run_id, c->cfg.shared, stream);
}

static void make_run_id(char *out, size_t len)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    char host[64] = "";
    gethostname(host, sizeof(host) - 1);
    uint64_t h = pfs_mix64((uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 32) ^ (uint64_t)ts.tv_sec);
    for (const char *p = host; *p; p++)
        h = pfs_mix64(h ^ (uint64_t)(unsigned char)*p);
    struct tm tm;
    gmtime_r(&ts.tv_sec, &tm);
    char stamp[32];
    strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
    snprintf(out, len, "%s-%06" PRIx64, stamp, h & 0xFFFFFF);
}

static uint64_t seed_of(const char *run_id)
{
    uint64_t h = 0x5046534245ULL;
    for (const char *p = run_id; *p; p++)
        h = pfs_mix64(h ^ (uint64_t)(unsigned char)*p);
    return h;
}

/* Local. Removes path (a name in DIR, through the run's descriptor of DIR)
 * when it is still the file this run created (fid); says so when it cannot,
 * naming the file and the way to clean it up. 0 when nothing is left, -1
 * when something is. */
static int remove_own(struct ctx *c, const char *path, const struct pfs_fid *fid)
{
    int rc = c->be->remove ? c->be->remove(c->bectx, c->files.dir.fd, path, fid)
                           : pfs_unlink_own_at(c->files.dir.fd, path, fid);
    if (rc == 0 || rc == 1) /* 1: not in the directory the run made it in, so removed by another process */
        return 0;
    char why[200];
    fprintf(stderr, "pfsbench: warning: rank %d on %s: could not remove %s: %s; "
            "list this run's leftovers with pfsbench --clean -d %s\n", c->rank, c->topo.host, path,
            rc == PFS_ERR_REPLACED ? "it is no longer the file this run created, so it is left alone"
                                   : drv_why(rc, why, sizeof(why)), c->cfg.dir);
    return -1;
}

/* The lock's name in DIR. */
static void lock_name(const struct drv_files *f, char *out, size_t len)
{
    (void)pfs_name_lock(out, len, NULL, f->run_id);
}

/* Local, rank 0: the run's lock goes (removed while still held, and only
 * while its name still names the inode this run locked); says when it is
 * left. */
static void drop_lock(struct drv_files *f)
{
    char name[PFS_RUN_ID_MAX + 32];
    lock_name(f, name, sizeof(name));
    const int made = f->lock.made;
    int rc = pfs_lock_drop(f->dir.fd, name, &f->lock, made);
    char why[200];
    if (rc < 0)
        fprintf(stderr, "pfsbench: warning: could not remove %s: %s\n", f->lock_path,
                rc == PFS_ERR_REPLACED ? "another process put another file under its name; left alone"
                                       : drv_why(rc, why, sizeof(why)));
}

/* Local, when the watchdog is about to end the job: the other ranks will
 * not clean up. Removes the files this rank's streams created and, on rank
 * 0, those the other streams had reported created by the last write phase,
 * each only while it is still the inode that was created. Files created
 * since that report stay, and the message points to --clean. Small files of
 * the metadata phases stay: only their ranks know how far they got. */
void drv_remove_run_files(struct ctx *c)
{
    struct drv_files *f = &c->files;
    if (c->cfg.keep)
        return;
    for (int i = 0; i < c->threads; i++)
        if (c->streams[i].created && remove_own(c, c->streams[i].path, &c->streams[i].fid) == 0)
            c->streams[i].created = 0;
    if (c->rank != 0)
        return;
    int unknown = 0;
    char path[PFS_PATH_MAX + 128];
    for (int s = c->threads; s < c->nstreams && !c->cfg.shared; s++) {
        if (!f->known || !f->known[s].created) {
            unknown += !f->known;
            continue;
        }
        drv_data_path(c, s, path, sizeof(path));
        remove_own(c, path, &f->known[s].fid);
    }
    if (unknown && c->writes)
        fprintf(stderr, "pfsbench: warning: the other ranks' data files, if they had created any, may be left behind; "
                "list them with pfsbench --clean -d %s\n", c->cfg.dir);
    if (f->lock.fd >= 0)
        drop_lock(f);
}

/* Collective, after a write phase under --timeout: rank 0 learns which
 * streams created their file and its inode, for remove_run_files. */
void drv_gather_known(struct ctx *c, double since)
{
    struct drv_files *f = &c->files;
    struct known_file mine[c->threads];
    for (int i = 0; i < c->threads; i++)
        mine[i] = (struct known_file){c->streams[i].created, c->streams[i].fid};
    if (c->rank == 0 && !f->known)
        f->known = calloc((size_t)c->nstreams, sizeof(*f->known));
    struct known_file *all = f->known;
    drv_gather_watched(c, mine, (int)sizeof(mine), all, since, "the report of created files");
    for (int s = c->threads; c->rank == 0 && all && s < c->nstreams; s++)
        all[s].fid.dev = 0; /* another client's device number: the inode alone */
}

/* Local, rank 0. Marks the run live before anything else is made:
 * DIR/pfsbench.ID.lock, holding "host pid" (and, for a backend whose data
 * are objects, the line by which --clean proves them: pfs/clean.h),
 * flock'ed for the run's lifetime (flock on a regular file holds across
 * clients of GlusterFS, NFSv4, Lustre with -o flock, GPFS). --clean leaves
 * alone the files of a run whose lock is held, and a run id whose lock is
 * held is refused. A stale lock (its run died) is taken over but not
 * removed: --clean removes it. The lock is
 * the file its name names (pfs_lock_take checks after the flock), and a
 * lock file this run could not lock is never removed, even one it made: the
 * run that locked it owns it. DIR is opened here, once, and every name of
 * the run in it is resolved from that descriptor. Returns 0, or the exit
 * status with err set: 2 when the input is at fault (the id is in use, DIR
 * cannot take the file), 1 when the file system failed (no space, no
 * inodes, I/O). */
int drv_take_run_lock(struct ctx *c, char *err, size_t len)
{
    struct drv_files *f = &c->files;
    char name[PFS_RUN_ID_MAX + 32], holder[128], mark[PFS_HOST_MAX + 64], why[200];
    if (pfs_name_lock(f->lock_path, sizeof(f->lock_path), c->cfg.dir, f->run_id) != 0) {
        snprintf(err, len, "the run's lock file name does not fit: DIR too long");
        return PFS_EXIT_USAGE;
    }
    lock_name(f, name, sizeof(name));
    int rc = drv_pin_dir(f, c->cfg.dir);
    if (rc < 0) {
        snprintf(err, len, "cannot open the directory %.300s: %.150s", c->cfg.dir, strerror(-rc));
        return PFS_EXIT_IO;
    }
    int at = snprintf(mark, sizeof(mark), "%s %ld\n", c->topo.host, (long)getpid());
    if (c->be->clean && at > 0 && (size_t)at < sizeof(mark))
        snprintf(mark + at, sizeof(mark) - (size_t)at, PFS_LOCK_TOKEN_KEY " %s %016" PRIx64 "\n", c->be->name,
                 c->cfg.run_token);
    rc = pfs_lock_take(f->dir.fd, name, 5, mark, &f->lock, holder, sizeof(holder));
    if (rc == 0)
        return 0;
    pfs_dir_close(&f->dir);
    if (rc == PFS_ERR_BUSY) {
        snprintf(err, len, "run id %.63s is in use by a live run (%.100s holds %.200s); choose another --run-id, or wait for it",
                 f->run_id, holder[0] ? holder : "another process", f->lock_path);
        return PFS_EXIT_USAGE;
    }
    snprintf(err, len, "cannot make the run's lock file %.250s: %.150s", f->lock_path,
             pfs_safefile_why(rc, f->lock_path, why, sizeof(why)) ? why : strerror(-rc));
    /* What the options chose (a directory this user cannot write, a name
     * taken by something else) is bad input; the rest is the file system's. */
    const int usage = rc == -EACCES || rc == -EPERM || rc == -EROFS || rc == -ENOTDIR || rc == -ENAMETOOLONG ||
                      rc == PFS_ERR_NOTREG;
    return usage ? PFS_EXIT_USAGE : PFS_EXIT_IO;
}

/* Local, every rank, at the very end: the run is no longer live (rank 0
 * removes its lock), and its descriptor of DIR goes. */
void drv_drop_run_lock(struct drv_files *f)
{
    if (f->lock.fd >= 0)
        drop_lock(f);
    pfs_dir_close(&f->dir);
}

/* Collective, after a write phase of files per stream: each stream learns
 * the inode of the file it will read (its own, or with -C another rank's),
 * so a read opens that inode or nothing. */
void drv_exchange_fids(struct ctx *c, double since)
{
    const int to = c->topo.rd_to, from = c->topo.rd_from;
    struct pfs_fid mine[c->threads], theirs[c->threads];
    for (int i = 0; i < c->threads; i++)
        mine[i] = c->streams[i].fid;
    if (from == c->rank) {
        memcpy(theirs, mine, sizeof(mine));
    } else {
        MPI_Request r[2];
        MPI_Irecv(theirs, (int)sizeof(theirs), MPI_BYTE, from, PFS_TAG_FIDS, c->comm, &r[1]);
        MPI_Isend(mine, (int)sizeof(mine), MPI_BYTE, to, PFS_TAG_FIDS, c->comm, &r[0]);
        if (c->cfg.timeout > 0 && c->nranks > 1) {
            drv_wait_watched(c, &r[1], since, "the exchange of file identities");
            drv_wait_watched(c, &r[0], since, "the exchange of file identities");
        } else {
            MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
        }
    }
    for (int i = 0; i < c->threads; i++) {
        c->streams[i].rd_fid = theirs[i];
        if (from != c->rank)
            c->streams[i].rd_fid.dev = 0; /* another client's device number: the inode alone */
    }
}

/* Local, rank 0: the shared file, made untimed so that every rank's timed
 * open finds it; O_EXCL, so a file of that name already there is refused. */
static void make_shared_file(struct ctx *c)
{
    struct drv_files *f = &c->files;
    struct pfs_stream *s = &c->streams[0];
    if (c->be->caps & PFS_CAP_NOFILES) { /* --api null: nothing on disk, the backend's identity */
        void *fh = NULL;
        int rc = c->be->open(c->bectx, f->dir.fd, s->path, PFS_OPEN_WRITE | PFS_OPEN_CREATE, NULL, &s->fid, &fh);
        if (rc == 0)
            rc = c->be->close(fh);
        const char *why = rc < 0 && c->be->errstr ? c->be->errstr(c->bectx) : NULL;
        if (rc < 0 && why) /* the backend's words: its object, and its error */
            drv_set_fail(c, "create", s->path, 0, "%s", why);
        else if (rc < 0)
            drv_set_fail(c, "create", s->path, -rc, NULL);
        else
            s->created = 1;
        return;
    }
    int fd = pfs_open_own_at(f->dir.fd, s->path, O_WRONLY | O_CREAT | O_EXCL, 0644, NULL, &s->fid);
    if (fd < 0) {
        drv_set_fail(c, "create", s->path, -fd, fd == -EEXIST ? "a file of that name is already there; pfsbench never "
                 "reuses a file it did not create" : NULL);
        return;
    }
    close(fd);
    s->created = 1;
}

/* Collective, once rank 0 made the shared file: every stream learns its inode. */
static void shared_fid(struct ctx *c)
{
    MPI_Bcast(&c->streams[0].fid, (int)sizeof(struct pfs_fid), MPI_BYTE, 0, c->comm);
    if (c->rank != 0)
        c->streams[0].fid.dev = 0; /* another client's device number: the inode alone */
    for (int i = 0; i < c->threads; i++)
        c->streams[i].fid = c->streams[i].rd_fid = c->streams[0].fid;
}

/* Collective, --file-per-rep, before repetition rep (1 or more): the last
 * repetition's files go unless -k (each only while still the inode it
 * made), and the streams' names become this repetition's, made anew as
 * the first repetition's were (the shared file by rank 0, untimed).
 * Returns 1 when any rank failed (named). */
int drv_rep_files(struct ctx *c, int rep)
{
    struct drv_files *f = &c->files;
    for (int i = 0; i < c->threads; i++) {
        struct pfs_stream *s = &c->streams[i];
        if (!c->cfg.keep && s->created)
            (void)remove_own(c, s->path, &s->fid); /* says so on stderr when it cannot */
        s->created = 0;
        s->fid = s->rd_fid = (struct pfs_fid){0, 0};
    }
    /* What the other ranks reported is about the files just removed: the
     * watchdog's clean-up must not take this repetition's names for them
     * (zeroed, not freed: the stall thread may be reading it). */
    if (f->known)
        memset(f->known, 0, (size_t)c->nstreams * sizeof(*f->known));
    f->name_rep = rep;
    for (int i = 0; i < c->threads; i++) {
        struct pfs_stream *s = &c->streams[i];
        drv_data_path(c, s->id, s->path, sizeof(s->path));
        drv_data_path(c, s->rd_writer, s->rd_path, sizeof(s->rd_path));
    }
    if (!c->cfg.shared || !c->writes)
        return 0;
    if (c->rank == 0)
        make_shared_file(c);
    int failed = drv_agree(c);
    if (!failed)
        shared_fid(c);
    else
        drv_report_failures(c);
    return failed;
}

/* Collective, at the end: each rank removes what it made (under the
 * watchdog), then rank 0 the run's metadata directory, once every rank has
 * emptied its part; what could not be removed becomes a warning of the
 * run. A directory of the run found changed under it (mdfiles.c's check,
 * made again here, before the clean-up looks) fails the run. Returns 1 when
 * the run failed, before or here. */
int drv_finish_files(struct ctx *c, int failed)
{
    int mine[2] = {0, drv_check_pins(c)}, total[2];
    pfs_watch_step(c->watch, "the clean-up");
    for (int i = 0; i < c->threads; i++) {
        struct pfs_stream *s = &c->streams[i];
        if (!c->cfg.keep && s->created) {
            if (remove_own(c, s->path, &s->fid) == 0)
                s->created = 0;
            else
                mine[0]++;
        }
        mine[0] += drv_md_cleanup(c, s);
    }
    /* Files a phase names and makes itself (the checkpoint's). */
    struct pfs_phase_env e = {
        .cfg = &c->cfg, .be = c->be, .bectx = c->bectx, .streams = c->streams, .nthreads = c->threads,
        .rank = c->rank, .lowest_on_node = c->topo.lowest_on_node, .dir_fd = c->files.dir.fd,
    };
    mine[0] += pfs_phase_finish(&e);
    pfs_watch_step(c->watch, NULL);
    drv_allreduce_watched(c, mine, total, 2, MPI_INT, MPI_SUM, pfs_now(), "the clean-up");
    if (c->rank == 0)
        total[0] += drv_md_finish(c, total[0]);
    drv_md_close(c);
    if (total[0])
        drv_record_warn(&c->rec, "%d file%s or director%s of this run could not be removed (named on stderr); "
                        "pfsbench --clean -d %s lists them", total[0], total[0] == 1 ? "" : "s",
                        total[0] == 1 ? "y" : "ies", c->cfg.dir);
    /* Named by rank 0 with the other failures, unless the run had failed
     * already (then the check printed its own line). */
    if (total[1] && !failed)
        drv_report_failures(c);
    return failed || total[1];
}

/* Collective. The run id (--run-id, or made up by rank 0), the pattern
 * seed derived from it and the metadata directory's name: one for all
 * ranks. */
void drv_run_id(struct ctx *c)
{
    struct drv_files *f = &c->files;
    if (c->rank == 0) {
        if (c->cfg.run_id[0])
            snprintf(f->run_id, sizeof(f->run_id), "%s", c->cfg.run_id);
        else
            make_run_id(f->run_id, sizeof(f->run_id));
    }
    MPI_Bcast(f->run_id, sizeof(f->run_id), MPI_CHAR, 0, c->comm);
    if (c->rank == 0 && getrandom(&c->cfg.run_token, sizeof(c->cfg.run_token), 0) != (ssize_t)sizeof(c->cfg.run_token))
        c->cfg.run_token = (uint64_t)time(NULL) << 20 ^ (uint64_t)getpid();
    c->cfg.run_token |= 1; /* 0 is no token */
    MPI_Bcast(&c->cfg.run_token, 1, MPI_UINT64_T, 0, c->comm);
    (void)pfs_name_md_top(f->md_top, sizeof(f->md_top), c->cfg.dir, f->run_id);
    /* --verify's pattern is the seed's: files named by the user (IOR's -o)
     * are written and read again in separate jobs, each with a run id of its
     * own, so their name's last part seeds it (IOR's -W, then -r -R). */
    const char *base = strrchr(c->cfg.file_name, '/');
    c->seed = seed_of(c->cfg.file_name[0] ? (base ? base + 1 : c->cfg.file_name) : f->run_id);
}

int drv_kept_check(struct ctx *c, char *err, size_t len)
{
    const struct pfs_config *cfg = &c->cfg;
    /* --file-name: a write finds none of its names there, a read each file large enough. */
    if (!(c->be->caps & PFS_CAP_NOFILES) &&
        pfs_user_files_check(cfg, c->nranks * cfg->threads, pfs_phase_listed(cfg, PFS_PHASE_DATA, PFS_PHF_CREATES, 0),
                             c->sw_file_xfers, err, len) != 0)
        return -1;
    if (pfs_kept_reads(cfg) && !(c->be->caps & PFS_CAP_NOFILES)) {
        struct pfs_kept k;
        if (pfs_kept_read(cfg->dir, cfg->run_id, &k, NULL, err, len) != 0 ||
            pfs_kept_check(cfg, c->nranks, &k, cfg->run_id, &c->files.kept_xfers, err, len) != 0)
            return -1;
    }
    char md[PFS_PATH_MAX + 128];
    struct stat st;
    if (pfs_config_md_kept(cfg) && pfs_name_md_top(md, sizeof(md), cfg->dir, cfg->run_id) == 0 && lstat(md, &st) != 0) {
        snprintf(err, len, "--run-id %s: no run kept metadata in %s (there is no %s); a run keeps it with -k",
                 cfg->run_id, cfg->dir, md);
        return -1;
    }
    return drv_md_kept_check(c, err, len);
}

int drv_keep_status(struct ctx *c)
{
    const struct pfs_config *cfg = &c->cfg;
    struct pfs_kept k = {c->nstreams, c->nranks, c->threads, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0};
    const int data = cfg->keep && c->writes && !(c->be->caps & PFS_CAP_NOFILES);
    const int md = drv_md_kept_part(c, &k); /* the small files' part: what every stream created */
    if (!data && !md)
        return 0;
    if (data)
        k.shared = cfg->shared, k.layout = cfg->layout, k.transfer = cfg->transfer, k.block = cfg->block,
        k.xfers = c->data_xfers, k.segments = cfg->segments, k.compress = cfg->buffer_compress, k.dedupe = cfg->dedupe;
    if (c->rank == 0) {
        char err[PFS_ERRLEN];
        struct pfs_fid fid;
        if (pfs_kept_write(c->files.dir.fd, cfg->dir, c->files.run_id, &k, &fid, err, sizeof(err)) != 0)
            drv_set_fail(c, "make the kept run's status", "", 0, "%s", err);
        else if (data)
            drv_record_kept(&c->rec, c->data_xfers);
    }
    int failed = drv_agree(c);
    if (failed)
        drv_report_failures(c);
    return failed;
}

/* Collective, untimed, before the first phase. Every rank opens DIR (the
 * descriptor every data file and the metadata directory is made in).
 * Shared file: rank 0 makes it, so that every rank's timed open finds it,
 * and every rank learns its inode. Metadata phases: mdfiles.c's
 * directories. Returns 1 when any rank failed (named). */
int drv_files_setup(struct ctx *c, int failed)
{
    struct drv_files *f = &c->files;
    const struct pfs_config *cfg = &c->cfg;
    /* Over a kept run's data: what rank 0 read in its status, for every rank. */
    if (pfs_kept_reads(cfg) && !(c->be->caps & PFS_CAP_NOFILES)) {
        MPI_Bcast(&f->kept_xfers, 1, MPI_UINT64_T, 0, c->comm);
        c->data_xfers = c->nxfers = f->kept_xfers;
    }
    int e = drv_pin_dir(f, cfg->dir);
    if (e < 0)
        drv_set_fail(c, "open the directory", cfg->dir, -e, NULL);
    for (int i = 0; i < c->threads; i++) {
        c->streams[i].dir_fd = f->dir.fd;
        c->streams[i].md_fd = c->streams[i].md_rd_fd = -1;
    }
    if (failed || !((cfg->shared && c->writes) || c->has_meta))
        return failed;
    const unsigned kept = f->md_kept = c->has_meta ? pfs_config_md_kept(cfg) : 0;
    if (c->rank == 0 && cfg->shared && c->writes && f->dir.fd >= 0)
        make_shared_file(c);
    if (c->rank == 0 && c->has_meta && f->dir.fd >= 0)
        drv_md_top_setup(c, kept);
    failed = drv_agree(c);
    if (!failed && cfg->shared && c->writes)
        shared_fid(c);
    if (!failed && c->has_meta)
        failed = drv_md_streams_setup(c, kept);
    if (failed)
        drv_report_failures(c);
    return failed;
}

void drv_files_init(struct drv_files *f)
{
    memset(f, 0, sizeof(*f));
    f->lock.fd = f->dir.fd = f->md_topd.fd = -1;
}

void drv_files_fini(struct drv_files *f)
{
    free(f->known);
    f->known = NULL;
}
