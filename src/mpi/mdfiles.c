/* The directories a run works in, held open: DIR (-d, opened once at the
 * start, on every rank), the metadata phases' directory pfsbench.ID.md
 * (made by rank 0, or a kept run's, checked) and each stream's s<id> with
 * --dirs per-rank. Every name the run makes, opens or removes is resolved
 * from one of these descriptors, never from a path rebuilt from -d, so a
 * directory swapped for a link, or a -d repointed, during the run changes
 * nothing the run touches; the check before each phase and at the end
 * finds such a change, names it and ends the run, and the clean-up
 * removes what it can still reach through its own descriptors and lists
 * what it left. */
#define _GNU_SOURCE
#include "driver.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pfs/kept.h"
#include "pfs/names.h"

const char *drv_why(int rc, char *buf, size_t len)
{
    if (!pfs_safefile_why(rc, NULL, buf, len))
        snprintf(buf, len, "%s", strerror(-rc));
    return buf;
}

int drv_pin_dir(struct drv_files *f, const char *dir)
{
    if (f->dir.fd >= 0)
        return 0;
    /* -d as the user gave it, links followed: a symlinked DIR is allowed; the
     * directory it named now is the one the run works in to the end. */
    return pfs_dir_open(AT_FDCWD, dir, 1, &f->dir);
}

/* The small files and directories exist (not --api null's). */
static int md_real(const struct ctx *c)
{
    void *ctx = c->bectx;
    return !(pfs_backend_md(c->be, &ctx)->caps & PFS_CAP_NOFILES);
}

/* --depth with --dirs shared: one tree for all streams, stream 0's. */
static int shared_tree(const struct ctx *c)
{
    return pfs_md_tree_owner(&c->cfg, 1) == 0;
}

static void top_name(const struct drv_files *f, char *out, size_t len)
{
    (void)pfs_name_md_top(out, len, NULL, f->run_id);
}

static void sub_name(int stream, char *out, size_t len)
{
    (void)pfs_name_md_subdir(out, len, NULL, stream);
}

static int dup_fd(int fd)
{
    return fd >= 0 ? fcntl(fd, F_DUPFD_CLOEXEC, 0) : -1;
}

/* Local: one directory of the run whose name no longer names it. The first
 * on this rank is its failure (named by rank 0 with the others); should the
 * rank have failed already, the line is its own. */
static void changed(struct ctx *c, const char *path, const char *now, const char *how)
{
    if (c->files.pin_reported++)
        return;
    char detail[256];
    snprintf(detail, sizeof(detail), "no longer the directory this run %s: moved or replaced during the run (its name "
             "now leads to %s); the run ends, and removes only what it reaches through the directories it holds open",
             how, now);
    if (c->fail.failed)
        fprintf(stderr, "pfsbench: error: rank %d on %s: the directory %s: %s\n", c->rank, c->topo.host, path, detail);
    else
        drv_set_fail(c, "the directory", path, 0, "%s", detail);
}

int drv_check_pins(struct ctx *c)
{
    struct drv_files *f = &c->files;
    char name[PFS_RUN_ID_MAX + 32];
    int n = 0;
    if (f->dir.fd >= 0 && pfs_dir_still(AT_FDCWD, c->cfg.dir, 1, &f->dir) != 0) {
        n++;
        changed(c, c->cfg.dir, pfs_dir_now(AT_FDCWD, c->cfg.dir, 1), "opened as -d");
    }
    top_name(f, name, sizeof(name));
    if (f->md_topd.fd >= 0 && f->dir.fd >= 0 && pfs_dir_still(f->dir.fd, name, 0, &f->md_topd) != 0) {
        n++;
        changed(c, f->md_top, pfs_dir_now(f->dir.fd, name, 0), f->md_top_made ? "made" : "checked");
    }
    for (int i = 0; c->cfg.dirs == PFS_DIRS_PER_RANK && f->md_topd.fd >= 0 && i < c->threads; i++) {
        struct pfs_stream *s = &c->streams[i];
        const struct pfs_dir d = {s->md_fd, s->md_dir_id};
        sub_name(s->id, name, sizeof(name));
        if (s->md_fd >= 0 && pfs_dir_still(f->md_topd.fd, name, 0, &d) != 0) {
            n++;
            changed(c, s->md_dir, pfs_dir_now(f->md_topd.fd, name, 0), s->md_dir_made ? "made" : "checked");
        }
    }
    /* The --depth tree's directories each stream holds open. */
    for (int i = 0; i < c->threads; i++) {
        char path[PFS_PATH_MAX + 256];
        const char *now = "";
        if (pfs_stream_meta_pins(&c->cfg, &c->streams[i], path, sizeof(path), &now)) {
            n++;
            changed(c, path, now, f->md_kept & PFS_MD_KEPT_TREE ? "checked" : "made");
        }
    }
    return n;
}

/* A kept run's metadata directory (--run-id): the run's, opened without
 * following a link, this user's and writable by no one else. */
static int open_kept_top(struct ctx *c, const char *name)
{
    struct drv_files *f = &c->files;
    char why[PFS_PATH_MAX + 256];
    int rc = pfs_dir_open(f->dir.fd, name, 0, &f->md_topd);
    if (rc < 0)
        snprintf(why, sizeof(why), "%s: %s", f->md_top, rc == -ENOTDIR ? "not a directory" : strerror(-rc));
    if (rc < 0 || pfs_stream_meta_dir_ok(f->md_topd.fd, f->md_top, why, sizeof(why)) != 0) {
        drv_set_fail(c, "the kept metadata of run", f->run_id, 0, "%s (run %s kept none here)", why, f->run_id);
        return -1;
    }
    return 0;
}

void drv_md_top_setup(struct ctx *c, unsigned kept)
{
    struct drv_files *f = &c->files;
    char name[PFS_RUN_ID_MAX + 32], more[64] = "";
    top_name(f, name, sizeof(name));
    if (kept && open_kept_top(c, name) != 0)
        return;
    if (!kept && md_real(c)) {
        int rc = pfs_dir_make(f->dir.fd, name, &f->md_topd);
        if (rc == PFS_ERR_REPLACED) {
            drv_set_fail(c, "mkdir", f->md_top, 0, "another process put a directory of its own under the name "
                         "between pfsbench's mkdir and its open; pfsbench leaves it alone");
            return;
        }
        if (rc < 0) {
            drv_set_fail(c, "mkdir", f->md_top, -rc, NULL);
            return;
        }
        f->md_top_made = 1;
    }
    /* The kept run had more streams than this one: its stream N's directory or first file is there. */
    struct stat st;
    if (kept && c->cfg.dirs == PFS_DIRS_PER_RANK)
        sub_name(c->nstreams, more, sizeof(more));
    else if (kept & PFS_MD_KEPT_FILES)
        snprintf(more, sizeof(more), "f.%d.0", c->nstreams);
    if (more[0] && fstatat(f->md_topd.fd, more, &st, AT_SYMLINK_NOFOLLOW) == 0) {
        drv_set_fail(c, "the kept metadata of run", f->run_id, 0, "%s/%s is there: the kept run had more streams "
                     "than this one's %d (ranks x threads); run it with the kept run's", f->md_top, more, c->nstreams);
        return;
    }
    /* find's start: the directory's mtime, the file system's own clock (as
     * IO500's timestamp file; a kept run's directory was given back its
     * start's mtime when it was kept). --api null makes no directory: then
     * only find, which it refuses, would need the start. */
    if (f->md_topd.fd >= 0 && fstat(f->md_topd.fd, &st) == 0)
        f->md_start = st.st_mtim;
    else if (pfs_phase_listed(&c->cfg, PFS_PHASE_ANY, PFS_PHF_MATCHES, 0))
        drv_set_fail(c, "stat", f->md_top, f->md_topd.fd >= 0 ? errno : ENOENT, "the run's start for find");
}

/* Local: a stream's own directory (--dirs per-rank: made, or a kept run's
 * found and checked), held open; over kept metadata the first and last of
 * its files and tree directories are checked, so that options that do not
 * match the kept run fail here, untimed, rather than in the first phase. */
static void stream_setup(struct ctx *c, struct pfs_stream *st, unsigned kept)
{
    struct drv_files *f = &c->files;
    const struct pfs_config *cfg = &c->cfg;
    char name[32], why[PFS_PATH_MAX + 256];
    struct pfs_dir d = {-1, {0, 0}};
    int rc = 0;
    sub_name(st->id, name, sizeof(name));
    if (cfg->dirs != PFS_DIRS_PER_RANK)
        d.fd = dup_fd(f->md_topd.fd);
    else if (kept)
        rc = pfs_dir_open(f->md_topd.fd, name, 0, &d);
    else if (md_real(c) && (rc = pfs_dir_make(f->md_topd.fd, name, &d)) == 0)
        st->md_dir_made = 1;
    st->md_fd = d.fd;
    st->md_dir_id = d.id;
    st->md_kept = kept & PFS_MD_KEPT_FILES ? (uint64_t)cfg->files : 0;
    if (rc < 0 && !kept)
        drv_set_fail(c, "mkdir", st->md_dir, rc == PFS_ERR_REPLACED ? 0 : -rc,
                     rc == PFS_ERR_REPLACED ? "another process put a directory of its own under the name" : NULL);
    else if (kept && rc < 0)
        drv_set_fail(c, "the kept metadata of run", f->run_id, 0, "%s: %s; give the -n, --depth, --branch, "
                     "--leaf-only, --dirs and ranks x threads of the run that kept it", st->md_dir,
                     rc == -ENOTDIR ? "not a directory" : strerror(-rc));
    else if (kept && pfs_stream_meta_probe(cfg, st->md_fd, st->md_dir, st->id, kept, why, sizeof(why)) != 0)
        drv_set_fail(c, "the kept metadata of run", f->run_id, 0, "%s; give the -n, --depth, --branch, "
                     "--leaf-only, --dirs and ranks x threads of the run that kept it", why);
}

/* Collective, over a kept run's small files: what its status says every
 * stream created (rank 0 read it) is the -n every phase works on, said
 * once when it is not the -n given (the kept create's stonewall cut it). */
static void kept_files_apply(struct ctx *c)
{
    struct drv_files *f = &c->files;
    MPI_Bcast(&f->kept_md_files, 1, MPI_UINT64_T, 0, c->comm);
    if (!f->kept_md_files || f->kept_md_files == (uint64_t)c->cfg.files)
        return;
    if (c->rank == 0 && c->rec.d) {
        char w[400];
        snprintf(w, sizeof(w), "run %s's create was stopped by its stonewall: it kept %llu small files per stream, "
                 "not -n %d, as pfsbench.%s.kept says; this run works on those %llu", f->run_id,
                 (unsigned long long)f->kept_md_files, c->cfg.files, f->run_id, (unsigned long long)f->kept_md_files);
        drv_record_warn(&c->rec, "%s", w); /* in the results; the report's header is out: said here */
        if (!c->cfg.quiet)
            fprintf(c->cfg.format == PFS_FORMAT_TEXT ? drv_record_out(c) : stderr, "warning      %s\n", w);
    }
    c->cfg.files = (int)f->kept_md_files;
    c->md_files = f->kept_md_files;
}

int drv_md_streams_setup(struct ctx *c, unsigned kept)
{
    struct drv_files *f = &c->files;
    char name[PFS_RUN_ID_MAX + 32];
    struct {
        struct timespec start;
        struct pfs_fid id;
    } top = {f->md_start, f->md_topd.id};
    MPI_Bcast(&top, (int)sizeof(top), MPI_BYTE, 0, c->comm);
    if (kept & PFS_MD_KEPT_FILES)
        kept_files_apply(c);
    f->md_start = top.start;
    const struct pfs_fid ino = {0, top.id.ino}; /* another client's device number: the inode alone */
    top_name(f, name, sizeof(name));
    if (c->rank != 0 && (kept || md_real(c))) {
        int rc = pfs_dir_open(f->dir.fd, name, 0, &f->md_topd);
        if (rc == 0 && !pfs_fid_same(&f->md_topd.id, &ino))
            rc = PFS_ERR_REPLACED;
        char why[200];
        if (rc < 0)
            drv_set_fail(c, "open the directory", f->md_top, 0, "%s", rc == PFS_ERR_REPLACED ? "not the directory "
                         "rank 0 made or checked (another one under its name on this client)" : drv_why(rc, why, sizeof(why)));
    }
    for (int i = 0; !c->fail.failed && i < c->threads; i++)
        stream_setup(c, &c->streams[i], kept);
    int failed = drv_agree(c);
    /* Where each stream stats and reads (another node's with -C): opened
     * once every stream's directory is there. */
    int others = 0;
    for (int i = 0; !failed && i < c->threads; i++) {
        struct pfs_stream *st = &c->streams[i];
        struct pfs_dir d = {-1, {0, 0}};
        int rc = 0;
        if (st->rd_writer == st->id || c->cfg.dirs != PFS_DIRS_PER_RANK || st->md_fd < 0) {
            d.fd = dup_fd(st->rd_writer == st->id ? st->md_fd : f->md_topd.fd);
        } else {
            sub_name(st->rd_writer, name, sizeof(name));
            rc = pfs_dir_open(f->md_topd.fd, name, 0, &d);
            others = 1;
        }
        st->md_rd_fd = d.fd;
        if (rc < 0)
            drv_set_fail(c, "open the directory", st->md_rd_dir, -rc, NULL);
    }
    if (others)
        failed = drv_agree(c);
    return failed;
}

/* Local. Names a directory of the run that the clean-up leaves: one that
 * was moved or replaced (where it is now, and whether the run emptied it
 * through its descriptor), or one it could not remove. */
static void left_dir(struct ctx *c, const char *path, int fd, int rc, int emptied)
{
    char where[PFS_PATH_MAX + 64], why[200];
    if (rc != PFS_ERR_REPLACED && rc != -ENOENT) {
        fprintf(stderr, "pfsbench: warning: rank %d on %s: could not remove %s: %s; list this run's leftovers with "
                "pfsbench --clean -d %s\n", c->rank, c->topo.host, path, drv_why(rc, why, sizeof(why)), c->cfg.dir);
        return;
    }
    if (fd < 0 || pfs_dir_where(fd, where, sizeof(where)) != 0)
        snprintf(where, sizeof(where), "where the kernel cannot say");
    fprintf(stderr, "pfsbench: warning: rank %d on %s: left behind: the directory this run made as %s, moved or "
            "replaced during the run; it is now %s, %s\n", c->rank, c->topo.host, path, where,
            emptied ? "emptied through the run's own descriptor of it (pfsbench removes a directory only by the name "
                      "it made it under)"
                    : "with what this run could not remove in it");
}

/* Local. The tree directory (s->md_at) a stream's clean-up stopped at. */
static void left_node(struct ctx *c, const struct pfs_stream *s, int rc)
{
    char path[PFS_PATH_MAX + 256];
    if (pfs_md_node_path(path, sizeof(path), &c->cfg, s->md_dir, s->id, s->md_at) != 0)
        snprintf(path, sizeof(path), "the directory tree in %s", s->md_dir);
    left_dir(c, path, pfs_stream_meta_node_fd(s, s->md_at), rc, 1);
}

/* A stream's metadata at the end: this run's small files, then its tree's
 * directories, then its directory, each through the descriptors held; -k
 * keeps them all (and rank 0 the run's directory) for a later --run-id run.
 * Over a kept run's metadata the stream's directory goes when this run
 * emptied it (rmdir removes only an empty one; one still holding files or a
 * tree stays, silently). */
int drv_md_cleanup(struct ctx *c, struct pfs_stream *s)
{
    struct drv_files *f = &c->files;
    char why[200], name[32];
    int left = 0;
    if (c->cfg.keep)
        return 0;
    int e = pfs_stream_meta_clear_with(c->be, c->bectx, &c->cfg, s);
    if (e) {
        fprintf(stderr, "pfsbench: warning: rank %d on %s: left behind %" PRIu64 " small file%s in %s: %s; "
                "list this run's leftovers with pfsbench --clean -d %s\n", c->rank, c->topo.host, s->md_created,
                s->md_created == 1 ? "" : "s", s->md_dir, drv_why(e, why, sizeof(why)), c->cfg.dir);
        left++;
    }
    /* The tree's directories (--depth) that this stream made, once their files are gone; the
     * one tree of --dirs shared once every stream's are (drv_md_finish). */
    if (!e && !shared_tree(c) && (e = pfs_stream_meta_rmtree_with(c->be, c->bectx, &c->cfg, s)) != 0) {
        left_node(c, s, e);
        left++;
    }
    sub_name(s->id, name, sizeof(name));
    struct pfs_dir d = {s->md_fd, s->md_dir_id};
    if (s->md_dir_made && s->md_fd >= 0) {
        int rc = pfs_dir_remove(f->md_topd.fd, name, &d);
        if (rc == 0)
            s->md_dir_made = 0;
        else
            left_dir(c, s->md_dir, s->md_fd, rc, !e), left++;
    } else if (f->md_kept && c->cfg.dirs == PFS_DIRS_PER_RANK && !s->md_kept && s->md_fd >= 0) {
        (void)pfs_dir_remove(f->md_topd.fd, name, &d); /* the kept run's, emptied by this one; or it stays */
    }
    s->md_fd = d.fd;
    return left;
}

/* Local, rank 0, when -k keeps the metadata: the run's directory gets back
 * the mtime it had at the run's start, which a later --run-id run's find
 * takes as the start (the creates inside moved it). */
static void keep_md_start(struct ctx *c)
{
    struct drv_files *f = &c->files;
    const struct timespec ts[2] = {{.tv_nsec = UTIME_OMIT}, f->md_start};
    if ((f->md_start.tv_sec || f->md_start.tv_nsec) && f->md_topd.fd >= 0 && futimens(f->md_topd.fd, ts) != 0)
        fprintf(stderr, "pfsbench: warning: %s: could not set its mtime back to the run's start (%s): a later find "
                "over the kept files counts fewer as new\n", f->md_top, strerror(errno));
}

/* Local, rank 0, once this run emptied and removed a kept run's metadata
 * directory: the status that spoke only of its small files goes too, while
 * it is still the file read at the start. */
static void drop_kept_status(struct ctx *c)
{
    struct drv_files *f = &c->files;
    char name[PFS_RUN_ID_MAX + 32];
    if (!f->kept_md_only || pfs_name_kept(name, sizeof(name), NULL, f->run_id) != 0)
        return;
    int rc = pfs_unlink_own_at(f->dir.fd, name, &f->kept_md_fid);
    char why[200];
    if (rc < 0)
        fprintf(stderr, "pfsbench: warning: could not remove %s/%s: %s; pfsbench --clean --run-id %s removes it\n",
                c->cfg.dir, name, drv_why(rc, why, sizeof(why)), f->run_id);
}

int drv_md_finish(struct ctx *c, int others_left)
{
    struct drv_files *f = &c->files;
    char name[PFS_RUN_ID_MAX + 32];
    int left = 0, e;
    top_name(f, name, sizeof(name));
    if (shared_tree(c) && !c->cfg.keep && !others_left && c->threads &&
        (e = pfs_stream_meta_rmtree_with(c->be, c->bectx, &c->cfg, &c->streams[0])) != 0) {
        left_node(c, &c->streams[0], e);
        left++;
    }
    if (c->cfg.keep && (f->md_top_made || f->md_kept))
        keep_md_start(c);
    else if (f->md_kept && f->md_topd.fd >= 0 && pfs_dir_remove(f->dir.fd, name, &f->md_topd) == 0)
        drop_kept_status(c); /* emptied by this run, or it stays */
    if (f->md_top_made && !c->cfg.keep && f->md_topd.fd >= 0) {
        const int fd = f->md_topd.fd;
        if ((e = pfs_dir_remove(f->dir.fd, name, &f->md_topd)) == 0)
            f->md_top_made = 0;
        else {
            left_dir(c, f->md_top, fd, e, !others_left);
            left++;
        }
    }
    return left;
}

void drv_md_close(struct ctx *c)
{
    for (int i = 0; i < c->threads; i++) {
        struct pfs_stream *s = &c->streams[i];
        if (s->md_fd >= 0)
            close(s->md_fd);
        if (s->md_rd_fd >= 0)
            close(s->md_rd_fd);
        s->md_fd = s->md_rd_fd = -1;
        pfs_stream_meta_unpin(s);
    }
    pfs_dir_close(&c->files.md_topd);
}

/* Local, rank 0, before anything is made: over kept files, the phases that
 * check a file's size (stat, read-files, find's -size) need the kept run's
 * --file-size; its first file says what that was. What cannot be looked at
 * here is left to the set-up's checks, which name it. */
int drv_kept_precheck(const struct ctx *c, char *err, size_t len)
{
    const struct pfs_config *cfg = &c->cfg;
    if (!(pfs_config_md_kept(cfg) & PFS_MD_KEPT_FILES) || !pfs_phase_listed(cfg, PFS_PHASE_META, PFS_PHF_SIZED, 0))
        return 0;
    char top[PFS_RUN_ID_MAX + 32], sub[32], rel[PFS_PATH_MAX];
    (void)pfs_name_md_top(top, sizeof(top), NULL, cfg->run_id);
    sub_name(0, sub, sizeof(sub));
    if (pfs_md_file_path(rel, sizeof(rel), cfg, NULL, 0, 0) != 0)
        return 0;
    struct pfs_dir d = {-1, {0, 0}}, t = {-1, {0, 0}}, s = {-1, {0, 0}};
    struct stat st;
    int fd = -1, bad = 0;
    if (pfs_dir_open(AT_FDCWD, cfg->dir, 1, &d) == 0 && pfs_dir_open(d.fd, top, 0, &t) == 0 &&
        (cfg->dirs != PFS_DIRS_PER_RANK || pfs_dir_open(t.fd, sub, 0, &s) == 0) &&
        (fd = pfs_open_beneath(s.fd >= 0 ? s.fd : t.fd, rel, O_PATH, 0)) >= 0 && fstat(fd, &st) == 0 &&
        S_ISREG(st.st_mode) && (uint64_t)st.st_size != cfg->file_size) {
        snprintf(err, len, "--file-size %llu does not match the kept metadata of run %s: its files are %lld bytes "
                 "(%s/%s%s%s); stat, read-files and find check each file's size, so give the kept run's --file-size %lld",
                 (unsigned long long)cfg->file_size, cfg->run_id, (long long)st.st_size, top,
                 s.fd >= 0 ? sub : "", s.fd >= 0 ? "/" : "", rel, (long long)st.st_size);
        bad = 1;
    }
    if (fd >= 0)
        close(fd);
    pfs_dir_close(&s);
    pfs_dir_close(&t);
    pfs_dir_close(&d);
    return bad ? -1 : 0;
}

/* The list leaves small files it created: its last phase that makes or
 * removes files makes them. */
static int list_leaves_files(const struct pfs_config *cfg)
{
    int left = 0;
    for (int i = 0; i < cfg->nphases; i++) {
        const int k = cfg->phases[i];
        if (pfs_phase_is_meta(k) && !pfs_phase_has(k, PFS_PHF_DIRS) && pfs_phase_has(k, PFS_PHF_CREATES))
            left = 1;
        else if (pfs_phase_is_meta(k) && !pfs_phase_has(k, PFS_PHF_DIRS) && pfs_phase_has(k, PFS_PHF_REMOVES))
            left = 0;
    }
    return left;
}

/* The run creates small files and keeps them (md_kept: pfs_config_md_kept). */
static int creates_kept(const struct pfs_config *cfg, unsigned md_kept)
{
    return cfg->keep && !(md_kept & PFS_MD_KEPT_FILES) && list_leaves_files(cfg);
}

int drv_md_kept_part(const struct ctx *c, struct pfs_kept *k)
{
    if (!c->has_meta || !md_real(c) || !creates_kept(&c->cfg, c->files.md_kept))
        return 0;
    k->files_asked = (uint64_t)c->cfg.files;
    k->files = c->md_files;
    return 1;
}

int drv_md_kept_check(struct ctx *c, char *err, size_t len)
{
    struct drv_files *f = &c->files;
    const struct pfs_config *cfg = &c->cfg;
    char path[PFS_PATH_MAX + 128];
    struct stat st;
    if (!cfg->run_id[0] || pfs_name_kept(path, sizeof(path), cfg->dir, cfg->run_id) != 0 || lstat(path, &st) != 0)
        return 0; /* no status: a tree kept before statuses said what it holds is taken at -n */
    if (creates_kept(cfg, pfs_config_md_kept(cfg))) /* its status could not be made at the end */
        return pfs_fail(err, len, "--run-id %s: %s is there (run %s kept files under this id); a run that keeps the "
                        "small files it creates needs a run id of its own", cfg->run_id, path, cfg->run_id);
    if (!(pfs_config_md_kept(cfg) & PFS_MD_KEPT_FILES))
        return 0;
    struct pfs_kept k;
    if (pfs_kept_read(cfg->dir, cfg->run_id, &k, &f->kept_md_fid, err, len) != 0 ||
        pfs_kept_md_check(cfg, c->nranks, &k, cfg->run_id, &f->kept_md_files, err, len) != 0)
        return -1;
    f->kept_md_only = k.transfer == 0;
    return 0;
}
