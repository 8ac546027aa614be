/* The checkpoint phases (issue 32): ckpt-save writes this rank's shards of
 * the --ckpt checkpoint as pfs/ckpt.h cuts it (TP x PP x DP, a ZeRO stage,
 * a file per shard, per rank or one shared), each file fsynced before its
 * close inside the timed region; ckpt-restore reads back exactly the byte
 * ranges this rank's shard needs (pfs_ckpt_reader), from a save of this
 * run or, with --run-id, of a kept run saved with other degrees
 * (--ckpt-saved): N writers, M readers. Every byte is the pattern of
 * (file, offset), so --verify checks a restore by any world.
 *
 * Files: DIR/pfsbench.ID.ckpt.<file>, made O_EXCL through the run's
 * directory; the rank that made one removes it at the run's end (not with
 * -k) or before the next repetition's save. One stream per rank. */
#define _GNU_SOURCE
#include "pfs/phase.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "pfs/ckpt.h"
#include "pfs/config.h"
#include "pfs/core.h"
#include "pfs/names.h"
#include "pfs/safefile.h"
#include "pfs/stream.h"

#include "../config_table.h"
#include "phases.h"

/* ---- geometry ---- */

/* The checkpoint this run saves or restores onto (now) and the one it
 * restores from (saved: --ckpt-saved's degrees, else now's). 0, or -1 with
 * one sentence in err. */
static int ck_geometry(const struct pfs_config *cfg, int nranks, struct pfs_ckpt *now, struct pfs_ckpt *saved,
                       char *err, size_t len)
{
    if (pfs_ckpt_preset(cfg->ckpt, now) != 0) {
        char names[160] = "";
        const char *n;
        for (int i = 0; (n = pfs_ckpt_preset_name(i)); i++)
            snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s", i ? ", " : "", n);
        return pfs_fail(err, len, "--ckpt '%s' is not a checkpoint preset; give one of %s", cfg->ckpt, names);
    }
    struct pfs_ckpt_par *p = &now->par;
    p->tp = cfg->ckpt_tp > 0 ? cfg->ckpt_tp : p->tp;
    p->pp = cfg->ckpt_pp > 0 ? cfg->ckpt_pp : p->pp;
    p->dp = cfg->ckpt_dp > 0 ? cfg->ckpt_dp : nranks / (p->tp * p->pp);
    p->zero = cfg->ckpt_zero >= 0 ? cfg->ckpt_zero : p->zero;
    now->layout = cfg->ckpt_layout;
    if ((int64_t)p->tp * p->pp * (p->dp > 0 ? p->dp : 0) != nranks)
        return pfs_fail(err, len, "--ckpt %s: TP %d x PP %d x DP %d is not the %d ranks of this run; give "
                        "--ckpt-tp, --ckpt-pp and --ckpt-dp whose product is the rank count", cfg->ckpt, p->tp,
                        p->pp, p->dp, nranks);
    if (pfs_ckpt_check(now, err, len) != 0)
        return -1;
    *saved = *now;
    if (!cfg->ckpt_saved[0])
        return 0;
    char tail;
    if (sscanf(cfg->ckpt_saved, "%dx%dx%d%c", &saved->par.tp, &saved->par.pp, &saved->par.dp, &tail) != 3)
        return pfs_fail(err, len, "--ckpt-saved '%s': give the saved checkpoint's degrees as TPxPPxDP, e.g. 1x2x2",
                        cfg->ckpt_saved);
    return pfs_ckpt_check(saved, err, len);
}

/* The name of checkpoint file f beside the stream's data file
 * (DIR/pfsbench.ID.<stream>; check refused --file-name): pfs_name_ckpt's
 * DIR/pfsbench.ID.ckpt.<f>. */
static void ck_name(const struct pfs_stream *s, uint64_t f, char *out, size_t len)
{
    const char *slash = strrchr(s->path, '/');
    char dir[PFS_PATH_MAX];
    struct pfs_name n;
    snprintf(dir, sizeof(dir), "%.*s", !slash ? 1 : slash == s->path ? 1 : (int)(slash - s->path), slash ? s->path : ".");
    if (pfs_name_parse(slash ? slash + 1 : s->path, &n) == PFS_NAME_NONE ||
        pfs_name_ckpt(out, len, dir, n.run_id, f) != 0)
        out[0] = '\0'; /* not reached (the driver names the streams' files); the open fails */
}

/* ---- what this rank made ---- */

/* The files this rank made (one stream per rank: check refuses --threads):
 * at most two (its shards), one (PER_RANK) or the shared one (rank 0). */
static struct ck_made {
    char path[PFS_PATH_MAX + 160];
    struct pfs_fid fid;
    int made;
} made[2];

static void ck_remember(const char *path, const struct pfs_fid *fid)
{
    for (int i = 0; i < 2; i++)
        if (!made[i].made) {
            snprintf(made[i].path, sizeof(made[i].path), "%s", path);
            made[i].fid = *fid;
            made[i].made = 1;
            return;
        }
}

/* Removes what this rank made, through the run's directory; the count left. */
static int ck_remove(int dir_fd)
{
    int left = 0;
    for (int i = 0; i < 2; i++)
        if (made[i].made) {
            const int rc = pfs_unlink_own_at(dir_fd, made[i].path, &made[i].fid);
            if (rc == 0 || rc == 1)
                made[i].made = 0;
            else {
                fprintf(stderr, "pfsbench: could not remove %s: %s\n", made[i].path,
                        rc == PFS_ERR_REPLACED ? "another file is there now" : strerror(-rc));
                left++;
            }
        }
    return left;
}

/* ---- the timed part ---- */

/* One stream's walk over its files: the open one, the pattern's time. */
struct ck_walk {
    const struct pfs_phase_ctx *p;
    struct pfs_stream *s;
    void *fh;
    uint64_t file;      /* the open one's number */
    char path[PFS_PATH_MAX + 160];
    int wr;
    double vt;          /* seconds of pattern fill and check */
    struct pfs_cpu cpu0; /* the thread's CPU at the start */
    uint64_t bad_off, bad_exp, bad_found;
};

static void ck_fail(struct ck_walk *w, const char *op, uint64_t off, int err)
{
    const char *why = w->p->be->errstr ? w->p->be->errstr(w->p->bectx) : NULL;
    pfs_stream_fail(w->s, op, w->path, off, err, 0, "%s", why ? why : "");
}

/* fsync (a save's, always: the checkpoint is durable when the phase ends)
 * and close of the open file. */
static int ck_close(struct ck_walk *w)
{
    if (!w->fh)
        return 0;
    int rc = 0;
    uint64_t c0 = pfs_now_ns();
    if (w->wr) {
        if ((rc = w->p->be->fsync(w->fh)) < 0)
            ck_fail(w, "fsync", PFS_NO_OFFSET, -rc);
        const uint64_t c1 = pfs_now_ns();
        pfs_stream_lat_add(w->s, PFS_LAT_FSYNC, c0, c1, w->p->t0_ns);
        c0 = c1;
    }
    const int rc2 = w->p->be->close(w->fh);
    if (rc2 < 0)
        ck_fail(w, "close", PFS_NO_OFFSET, -rc2);
    pfs_stream_lat_add(w->s, PFS_LAT_CLOSE, c0, pfs_now_ns(), w->p->t0_ns);
    w->fh = NULL;
    return rc < 0 || rc2 < 0 ? -1 : 0;
}

/* Makes file f the open one: a save creates its files (O_EXCL; the shared
 * one rank 0 made before the phase), a restore opens them to read. */
static int ck_open(struct ck_walk *w, uint64_t f, int create)
{
    if (w->fh && w->file == f)
        return 0;
    if (ck_close(w) != 0)
        return -1;
    ck_name(w->s, f, w->path, sizeof(w->path));
    unsigned flags = w->wr ? PFS_OPEN_WRITE : PFS_OPEN_READ;
    if (create)
        flags |= PFS_OPEN_CREATE;
    if (w->p->cfg->direct && (w->p->be->caps & PFS_CAP_DIRECT))
        flags |= PFS_OPEN_DIRECT;
    struct pfs_fid got = {0, 0};
    const uint64_t o0 = pfs_now_ns();
    const int rc = w->p->be->open(w->p->bectx, w->s->dir_fd, w->path, flags, NULL, &got, &w->fh);
    pfs_stream_lat_add(w->s, PFS_LAT_OPEN, o0, pfs_now_ns(), w->p->t0_ns);
    if (rc < 0) {
        w->fh = NULL;
        pfs_stream_fail(w->s, w->wr ? "open for writing" : "open for reading", w->path, PFS_NO_OFFSET, -rc, 0, "%s",
                        rc == -EEXIST ? "a file of that name is already there; pfsbench never reuses a file it "
                                        "did not create" : "");
        return -1;
    }
    if (create)
        ck_remember(w->path, &got);
    if (w->s->t.open_end == 0)
        w->s->t.open_end = pfs_now();
    w->file = f;
    return 0;
}

/* [off, off + len) of the open file in -t transfers: written with the
 * pattern of (file, offset), or read and with --verify checked. */
static int ck_move(struct ck_walk *w, uint64_t off, uint64_t len)
{
    const struct pfs_config *cfg = w->p->cfg;
    struct pfs_times *t = &w->s->t;
    for (uint64_t done = 0; done < len && !*w->p->interrupted;) {
        const size_t n = (size_t)(len - done < cfg->transfer ? len - done : cfg->transfer);
        const uint64_t at = off + done;
        uint64_t v0 = cfg->verify ? pfs_now_ns() : 0;
        if (w->wr && cfg->verify)
            pfs_pattern_fill(w->s->buf, n, w->p->seed, (int)w->file, at);
        const uint64_t x0 = pfs_now_ns();
        if (cfg->verify)
            w->vt += (double)(x0 - v0) * 1e-9;
        const int64_t got = w->wr ? w->p->be->pwrite(w->fh, w->s->buf, n, at) : w->p->be->pread(w->fh, w->s->buf, n, at);
        const uint64_t x1 = pfs_now_ns();
        pfs_stream_lat_add_at(w->s, PFS_LAT_OP, x0, x1, w->p->t0_ns, at, n);
        t->xfers++;
        if (got < 0) {
            ck_fail(w, w->wr ? "write" : "read", at, (int)-got);
            return -1;
        }
        t->bytes += (uint64_t)got;
        if ((size_t)got != n) {
            pfs_stream_fail(w->s, w->wr ? "write" : "read", w->path, at, 0, 0, "short %s: %" PRId64 " of %zu bytes",
                            w->wr ? "write" : "read", got, n);
            return -1;
        }
        if (!w->wr && cfg->verify) {
            v0 = pfs_now_ns();
            size_t first;
            uint64_t exp, found;
            const uint64_t bad = pfs_pattern_check(w->s->buf, n, w->p->seed, (int)w->file, at, &first, &exp, &found);
            if (bad && !t->errors)
                w->bad_off = at + first, w->bad_exp = exp, w->bad_found = found;
            t->errors += bad;
            w->vt += (double)(pfs_now_ns() - v0) * 1e-9;
        }
        done += n;
    }
    return 0;
}

/* The start of a stream's phase: its figures and latency record empty. */
static void ck_begin(struct ck_walk *w)
{
    memset(&w->s->t, 0, sizeof(w->s->t));
    pfs_stream_lat_begin(w->s);
    w->s->t.open_start = pfs_now();
    pfs_thread_cpu(&w->cpu0);
}

/* The end of a stream's phase: close, the pattern's time out of the span,
 * the verdict of --verify. */
static void ck_end(struct ck_walk *w)
{
    struct pfs_times *t = &w->s->t;
    t->xfer_end = pfs_now();
    (void)ck_close(w);
    t->close_end = pfs_now();
    if (t->open_end == 0)
        t->open_end = t->open_start;
    t->verify_s = w->vt;
    t->xfer_end -= w->vt;
    t->close_end -= w->vt;
    pfs_thread_cpu_since(&w->cpu0, t);
    if (t->errors)
        pfs_stream_fail(w->s, "verify", w->path, w->bad_off, 0, 0,
                        "%" PRIu64 " mismatching 8-byte words in the checkpoint read by rank %d; first at byte %" PRIu64
                        " of file %" PRIu64 ": expected 0x%016" PRIx64 ", found 0x%016" PRIx64,
                        t->errors, w->s->rank, w->bad_off, w->file, w->bad_exp, w->bad_found);
}

static void save_run(const struct pfs_phase_ctx *p, struct pfs_stream *s)
{
    struct pfs_ckpt now, saved;
    char err[PFS_ERRLEN];
    struct ck_walk w = {.p = p, .s = s, .wr = 1};
    ck_begin(&w);
    if (ck_geometry(p->cfg, p->nstreams, &now, &saved, err, sizeof(err)) != 0) {
        pfs_stream_fail(s, "ckpt-save", "", PFS_NO_OFFSET, 0, 0, "%s", err);
        return;
    }
    uint64_t idx[2];
    const int n = pfs_ckpt_rank_shards(&now, s->rank, idx);
    for (int i = 0; i < n && !s->fail.failed; i++) {
        struct pfs_ckpt_shard sh;
        pfs_ckpt_shard(&now, idx[i], &sh);
        const int create = now.layout != PFS_CKPT_SHARED && !(w.fh && w.file == sh.file);
        if (ck_open(&w, sh.file, create) == 0)
            (void)ck_move(&w, sh.offset, sh.bytes);
    }
    ck_end(&w);
}

static void restore_run(const struct pfs_phase_ctx *p, struct pfs_stream *s)
{
    struct pfs_ckpt now, saved;
    struct pfs_ckpt_reader rd;
    struct pfs_ckpt_range r;
    char err[PFS_ERRLEN];
    struct ck_walk w = {.p = p, .s = s};
    ck_begin(&w);
    if (ck_geometry(p->cfg, p->nstreams, &now, &saved, err, sizeof(err)) != 0 ||
        pfs_ckpt_reader_init(&rd, &saved, &now.par, p->cfg->ckpt_restore, s->rank, err, sizeof(err)) != 0) {
        pfs_stream_fail(s, "ckpt-restore", "", PFS_NO_OFFSET, 0, 0, "%s", err);
        return;
    }
    while (!s->fail.failed && pfs_ckpt_reader_next(&rd, &r))
        if (ck_open(&w, r.file, 0) == 0)
            (void)ck_move(&w, r.offset, r.len);
    ck_end(&w);
}

/* ---- work counts, checks, hooks ---- */

static uint64_t xfers_of(uint64_t bytes, uint64_t t)
{
    return t ? (bytes + t - 1) / t : 0;
}

/* Transfers of this stream's save: its shards over -t. */
static uint64_t save_work(const struct pfs_phase_ctx *p, int stream)
{
    struct pfs_ckpt now, saved;
    char err[PFS_ERRLEN];
    uint64_t idx[2], x = 0;
    if (ck_geometry(p->cfg, p->nstreams, &now, &saved, err, sizeof(err)) != 0)
        return 0;
    const int n = pfs_ckpt_rank_shards(&now, stream, idx);
    for (int i = 0; i < n; i++) {
        struct pfs_ckpt_shard sh;
        pfs_ckpt_shard(&now, idx[i], &sh);
        x += xfers_of(sh.bytes, p->cfg->transfer);
    }
    return x;
}

/* Transfers of this stream's restore (its bytes over -t: ranges shorter
 * than -t make it a little more). */
static uint64_t restore_work(const struct pfs_phase_ctx *p, int stream)
{
    struct pfs_ckpt now, saved;
    struct pfs_ckpt_reader rd;
    char err[PFS_ERRLEN];
    if (ck_geometry(p->cfg, p->nstreams, &now, &saved, err, sizeof(err)) != 0 ||
        pfs_ckpt_reader_init(&rd, &saved, &now.par, p->cfg->ckpt_restore, stream, err, sizeof(err)) != 0)
        return 0;
    return xfers_of(rd.bytes, p->cfg->transfer);
}

static int ck_check(const struct pfs_config *cfg, char *err, size_t len)
{
    struct pfs_ckpt c;
    if (!cfg->ckpt[0])
        return pfs_fail(err, len, "the checkpoint phases need --ckpt PRESET (the checkpoint they save and restore)");
    if (pfs_ckpt_preset(cfg->ckpt, &c) != 0) {
        struct pfs_ckpt s;
        return ck_geometry(cfg, 1, &c, &s, err, len); /* names the presets */
    }
    if (cfg->threads > 1)
        return pfs_fail(err, len, "the checkpoint phases run one stream per rank (a rank is a training rank); "
                        "drop --threads %d", cfg->threads);
    if (cfg->file_name[0] || cfg->shared || cfg->collective || cfg->runtime > 0 || cfg->deadline > 0)
        return pfs_fail(err, len, "the checkpoint phases name and lay out their own files and run to the end: "
                        "--file-name, --shared, --collective, --runtime and -D do not apply to them");
    return 0;
}

static int restore_check(const struct pfs_config *cfg, char *err, size_t len)
{
    if (ck_check(cfg, err, len) != 0)
        return -1;
    int save_first = 0;
    for (int i = 0; i < cfg->nphases && cfg->phases[i] != PFS_PH_CKPT_RESTORE; i++)
        save_first |= cfg->phases[i] == PFS_PH_CKPT_SAVE;
    if (!save_first && !cfg->run_id[0])
        return pfs_fail(err, len, "ckpt-restore without a ckpt-save before it reads a kept checkpoint: give "
                        "--run-id ID of the run that saved it with -k (and --ckpt-saved TPxPPxDP if its degrees differ)");
    return 0;
}

/* The degrees must make the rank count: refused before anything is made.
 * Resolved into cfg, so that the results file stores those of the run. */
static int ck_fits(struct pfs_config *cfg, uint64_t streams, char *err, size_t len)
{
    struct pfs_ckpt now, saved;
    if (ck_geometry(cfg, (int)streams, &now, &saved, err, len) != 0)
        return -1;
    cfg->ckpt_tp = now.par.tp;
    cfg->ckpt_pp = now.par.pp;
    cfg->ckpt_dp = now.par.dp;
    cfg->ckpt_zero = now.par.zero;
    return 0;
}

static const char *const layout_words[] = {"a file per shard", "a file per rank", "one shared file"};
static const char *const policy_words[] = {"spread", "leader", "each"};

/* The report's line: the checkpoint, its degrees and files, the restore's. */
static size_t ck_header(const struct pfs_config *cfg, int nranks, char *buf, size_t len)
{
    struct pfs_ckpt now, saved;
    char err[PFS_ERRLEN], size[32];
    if (ck_geometry(cfg, nranks, &now, &saved, err, sizeof(err)) != 0)
        return 0;
    const uint64_t bytes = pfs_ckpt_bytes(&now.m);
    const double gib = (double)bytes / (1 << 30);
    snprintf(size, sizeof(size), gib >= 1 ? "%.1f GiB" : "%.2f MiB", gib >= 1 ? gib : gib * 1024);
    int n = snprintf(buf, len, "checkpoint   %s: %" PRIu64 " bytes (%s), %" PRIu64 " parameters x %u B; TP %d x PP %d "
                     "x DP %d, ZeRO %d; %s, %" PRIu64 " files", cfg->ckpt, bytes, size, pfs_ckpt_params(&now.m),
                     now.m.wbytes + now.m.obytes, now.par.tp, now.par.pp, now.par.dp, now.par.zero,
                     layout_words[now.layout], pfs_ckpt_nfiles(&now));
    if (pfs_config_has_phase(cfg, PFS_PH_CKPT_RESTORE) && n >= 0 && (size_t)n < len)
        n += snprintf(buf + n, len - (size_t)n, "; restore %s, of a save at TP %d x PP %d x DP %d",
                      policy_words[cfg->ckpt_restore], saved.par.tp, saved.par.pp, saved.par.dp);
    return n > 0 ? (size_t)n : 0;
}

static void ck_warn(struct pfs_config *cfg, const unsigned char *given, int listed)
{
    (void)given;
    if (listed || pfs_config_has_phase(cfg, PFS_PH_CKPT_SAVE) || pfs_config_has_phase(cfg, PFS_PH_CKPT_RESTORE))
        return;
    if (cfg->ckpt[0])
        pfs_config_warn(cfg, "--ckpt does nothing without ckpt-save or ckpt-restore in -p");
}

/* Before a save: what an earlier repetition saved goes (this rank's own
 * files), and rank 0 makes the shared file every rank then writes. */
static void save_before(struct pfs_phase_env *e)
{
    (void)ck_remove(e->dir_fd);
    if (e->cfg->ckpt_layout != PFS_CKPT_SHARED || e->rank != 0 || e->nthreads < 1)
        return;
    char path[PFS_PATH_MAX + 160];
    ck_name(&e->streams[0], 0, path, sizeof(path));
    struct pfs_fid got = {0, 0};
    void *fh = NULL;
    const int rc = e->be->open(e->bectx, e->dir_fd, path, PFS_OPEN_WRITE | PFS_OPEN_CREATE, NULL, &got, &fh);
    if (rc < 0) {
        pfs_phase_env_fail(e, "create", path, -rc, NULL);
        return;
    }
    ck_remember(path, &got);
    (void)e->be->close(fh);
}

/* At the run's end: this rank's files go, unless -k. */
static int ck_finish(struct pfs_phase_env *e)
{
    return e->cfg->keep ? 0 : ck_remove(e->dir_fd);
}

const struct pfs_phase_ops pfs_ph_ckpt_save = {
    .name = "ckpt-save",
    .kind = PFS_PHASE_DATA,
    .flags = PFS_PHF_OWN_FILES | PFS_PHF_WRITES,
    .unit = PFS_UNIT_BYTES,
    .needs = -1,
    .op = "write",
    .help = "save the --ckpt checkpoint: each rank writes its shards, fsync before close (issue 32)",
    .work = save_work,
    .run = save_run,
    .check = ck_check,
    .warn = ck_warn,
    .fits = ck_fits,
    .header = ck_header,
    .before = save_before,
    .finish = ck_finish,
};

const struct pfs_phase_ops pfs_ph_ckpt_restore = {
    .name = "ckpt-restore",
    .kind = PFS_PHASE_DATA,
    .flags = PFS_PHF_OWN_FILES | PFS_PHF_READS,
    .unit = PFS_UNIT_BYTES,
    .needs = -1,
    .op = "read",
    .help = "restore the --ckpt checkpoint: each rank reads the byte ranges its shard needs, also from a kept "
            "save of another world size (--run-id, --ckpt-saved)",
    .work = restore_work,
    .run = restore_run,
    .check = restore_check,
    .fits = ck_fits,
    .header = ck_header,
};
