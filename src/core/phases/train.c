/* The training-read phases (issue 32): train-gen writes the --train data
 * set (F files of R samples of S bytes, pfs/train.h), each rank its share
 * of the files, every byte the pattern of (file, offset); train reads it
 * as a training job does (train_feed.c): each epoch a seeded shuffle of
 * the samples split over the ranks, batches handed to emulated
 * accelerators that compute C ms each, reads prefetched P batches ahead,
 * and measures the accelerators' utilisation. train reads a data set this
 * run made, or with --run-id one a kept run left (-k).
 *
 * Files: DIR/pfsbench.ID.train.<file>, made O_EXCL through the run's
 * directory; the rank that made one removes it at the run's end (not with
 * -k) or before the next repetition's train-gen. One stream per rank. */
#define _GNU_SOURCE
#include "pfs/phase.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pfs/config.h"
#include "pfs/core.h"
#include "pfs/names.h"
#include "pfs/safefile.h"
#include "pfs/stream.h"
#include "pfs/train.h"

#include "../config_table.h"
#include "phases.h"

/* ---- the data set ---- */

int pfs_train_of(const struct pfs_config *cfg, struct pfs_train *t, char *err, size_t len)
{
    if (pfs_train_preset(cfg->train, t) != 0) {
        char names[160] = "";
        const char *n;
        for (int i = 0; (n = pfs_train_preset_name(i)); i++)
            snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s", i ? ", " : "", n);
        return pfs_fail(err, len, "--train '%s' is not a training preset; give one of %s", cfg->train, names);
    }
    t->files = cfg->train_files > 0 ? (uint64_t)cfg->train_files : t->files;
    t->records = cfg->train_records > 0 ? (uint64_t)cfg->train_records : t->records;
    t->sample = cfg->train_sample > 0 ? cfg->train_sample : t->sample;
    t->batch = cfg->train_batch > 0 ? (uint32_t)cfg->train_batch : t->batch;
    t->compute_s = cfg->train_compute >= 0 ? cfg->train_compute / 1000.0 : t->compute_s;
    t->epochs = cfg->train_epochs > 0 ? cfg->train_epochs : t->epochs;
    t->gate = cfg->au_gate > 0 ? cfg->au_gate : t->gate;
    if (pfs_train_bytes(t) == UINT64_MAX || t->records * t->sample / t->sample != t->records)
        return pfs_fail(err, len, "--train %s: %" PRIu64 " files of %" PRIu64 " samples of %" PRIu64 " bytes do not "
                        "fit in 64 bits; give fewer or smaller", cfg->train, t->files, t->records, t->sample);
    return 0;
}

/* The name of file f beside the stream's data file (DIR/pfsbench.ID.<stream>;
 * check refused --file-name): pfs_name_train's DIR/pfsbench.ID.train.<f>. */
void pfs_train_name(const struct pfs_stream *s, uint64_t f, char *out, size_t len)
{
    const char *slash = strrchr(s->path, '/');
    char dir[PFS_PATH_MAX];
    struct pfs_name n;
    snprintf(dir, sizeof(dir), "%.*s", !slash ? 1 : slash == s->path ? 1 : (int)(slash - s->path), slash ? s->path : ".");
    if (pfs_name_parse(slash ? slash + 1 : s->path, &n) == PFS_NAME_NONE ||
        pfs_name_train(out, len, dir, n.run_id, f) != 0)
        out[0] = '\0'; /* not reached (the driver names the streams' files); the open fails */
}

/* ---- what this rank made: its share of the files ---- */

static struct {
    struct tr_made {
        uint64_t file;
        struct pfs_fid fid;
    } *f;
    size_t n, cap;
    char name_of[PFS_PATH_MAX + 128]; /* a stream's data file: what the names are made beside */
} made;

static int tr_remember(const struct pfs_stream *s, uint64_t file, const struct pfs_fid *fid)
{
    if (made.n == made.cap) {
        const size_t cap = made.cap ? 2 * made.cap : 64;
        struct tr_made *m = realloc(made.f, cap * sizeof(*m));
        if (!m)
            return -1;
        made.f = m, made.cap = cap;
    }
    made.f[made.n++] = (struct tr_made){file, *fid};
    snprintf(made.name_of, sizeof(made.name_of), "%s", s->path);
    return 0;
}

/* Removes what this rank made, through the run's directory; the count left. */
static int tr_remove(int dir_fd)
{
    struct pfs_stream s;
    snprintf(s.path, sizeof(s.path), "%s", made.name_of);
    size_t keep = 0;
    for (size_t i = 0; i < made.n; i++) {
        char path[PFS_PATH_MAX + 160];
        pfs_train_name(&s, made.f[i].file, path, sizeof(path));
        const int rc = pfs_unlink_own_at(dir_fd, path, &made.f[i].fid);
        if (rc != 0 && rc != 1) {
            fprintf(stderr, "pfsbench: could not remove %s: %s\n", path,
                    rc == PFS_ERR_REPLACED ? "another file is there now" : strerror(-rc));
            made.f[keep++] = made.f[i];
        }
    }
    made.n = keep;
    return (int)keep;
}

int pfs_train_open(const struct pfs_phase_ctx *p, struct pfs_stream *s, uint64_t f, unsigned flags, char *path,
                   struct pfs_fid *got, void **fh)
{
    pfs_train_name(s, f, path, PFS_PATH_MAX + 160);
    if (p->cfg->direct && (p->be->caps & PFS_CAP_DIRECT))
        flags |= PFS_OPEN_DIRECT;
    uint64_t c0 = pfs_now_ns();
    int rc = p->be->open(p->bectx, s->dir_fd, path, flags, NULL, got, fh);
    pfs_stream_lat_add(s, PFS_LAT_OPEN, c0, pfs_now_ns(), p->t0_ns);
    if (rc >= 0 && s->t.open_end == 0)
        s->t.open_end = pfs_now();
    return rc;
}

/* ---- train-gen ---- */

/* Writes file f, R x S bytes of the pattern of (f, offset) in -t
 * transfers, made O_EXCL; 0 or -1 (s->fail set). *vt: pattern seconds. */
static int gen_file(const struct pfs_phase_ctx *p, struct pfs_stream *s, uint64_t f, uint64_t bytes, double *vt)
{
    char path[PFS_PATH_MAX + 160];
    struct pfs_fid got = {0, 0};
    void *fh = NULL;
    int rc = pfs_train_open(p, s, f, PFS_OPEN_WRITE | PFS_OPEN_CREATE, path, &got, &fh);
    if (rc < 0) {
        pfs_stream_fail(s, "open for writing", path, PFS_NO_OFFSET, -rc, 0, "%s",
                        rc == -EEXIST ? "a file of that name is already there; pfsbench never reuses a file it "
                                        "did not create" : "");
        return -1;
    }
    if (tr_remember(s, f, &got) != 0)
        pfs_stream_fail(s, "remember", path, PFS_NO_OFFSET, ENOMEM, 0, "%s", "");
    for (uint64_t at = 0; at < bytes && !s->fail.failed && !*p->interrupted;) {
        const size_t n = (size_t)(bytes - at < p->cfg->transfer ? bytes - at : p->cfg->transfer);
        const uint64_t v0 = pfs_now_ns();
        pfs_pattern_fill(s->buf, n, p->seed, (int)f, at);
        const uint64_t x0 = pfs_now_ns();
        *vt += (double)(x0 - v0) * 1e-9;
        const int64_t got_n = p->be->pwrite(fh, s->buf, n, at);
        pfs_stream_lat_add_at(s, PFS_LAT_OP, x0, pfs_now_ns(), p->t0_ns, at, n);
        s->t.xfers++;
        if (got_n != (int64_t)n) {
            pfs_stream_fail(s, "write", path, at, got_n < 0 ? (int)-got_n : 0, 0, "%s",
                            got_n < 0 ? "" : "short write");
            break;
        }
        s->t.bytes += n;
        at += n;
    }
    const uint64_t c0 = pfs_now_ns();
    rc = p->be->close(fh);
    pfs_stream_lat_add(s, PFS_LAT_CLOSE, c0, pfs_now_ns(), p->t0_ns);
    if (rc < 0)
        pfs_stream_fail(s, "close", path, PFS_NO_OFFSET, -rc, 0, "%s", "");
    return s->fail.failed ? -1 : 0;
}

static void gen_run(const struct pfs_phase_ctx *p, struct pfs_stream *s)
{
    struct pfs_train t;
    char err[PFS_ERRLEN];
    struct pfs_cpu cpu0;
    double vt = 0;
    memset(&s->t, 0, sizeof(s->t));
    pfs_stream_lat_begin(s);
    s->t.open_start = pfs_now();
    pfs_thread_cpu(&cpu0);
    if (pfs_train_of(p->cfg, &t, err, sizeof(err)) != 0) {
        pfs_stream_fail(s, "train-gen", "", PFS_NO_OFFSET, 0, 0, "%s", err);
        return;
    }
    uint64_t first, count;
    pfs_train_share(t.files, p->nstreams, s->rank, &first, &count);
    for (uint64_t f = first; f < first + count && !s->fail.failed && !*p->interrupted; f++)
        (void)gen_file(p, s, f, t.records * t.sample, &vt);
    s->t.xfer_end = s->t.close_end = pfs_now() - vt;
    if (s->t.open_end == 0)
        s->t.open_end = s->t.open_start;
    s->t.verify_s = vt;
    pfs_thread_cpu_since(&cpu0, &s->t);
}

static uint64_t gen_work(const struct pfs_phase_ctx *p, int stream)
{
    struct pfs_train t;
    char err[PFS_ERRLEN];
    uint64_t first, count;
    if (pfs_train_of(p->cfg, &t, err, sizeof(err)) != 0)
        return 0;
    pfs_train_share(t.files, p->nstreams, stream, &first, &count);
    const uint64_t per = t.records * t.sample, x = p->cfg->transfer;
    return count * ((per + x - 1) / x);
}

/* ---- checks, hooks ---- */

static int tr_check(const struct pfs_config *cfg, char *err, size_t len)
{
    struct pfs_train t;
    if (!cfg->train[0])
        return pfs_fail(err, len, "the training phases need --train PRESET (the data set and training they make "
                        "and read)");
    if (pfs_train_of(cfg, &t, err, len) != 0)
        return -1;
    if (cfg->threads > 1)
        return pfs_fail(err, len, "the training phases run one stream per rank (a rank is a training process; "
                        "--accelerators N gives it several accelerators); drop --threads %d", cfg->threads);
    if (cfg->file_name[0] || cfg->shared || cfg->collective || cfg->runtime > 0 || cfg->deadline > 0)
        return pfs_fail(err, len, "the training phases name and lay out their own files and run to the end: "
                        "--file-name, --shared, --collective, --runtime and -D do not apply to them");
    return 0;
}

static int train_check(const struct pfs_config *cfg, char *err, size_t len)
{
    if (tr_check(cfg, err, len) != 0)
        return -1;
    int gen_first = 0;
    for (int i = 0; i < cfg->nphases && cfg->phases[i] != PFS_PH_TRAIN; i++)
        gen_first |= cfg->phases[i] == PFS_PH_TRAIN_GEN;
    if (!gen_first && !cfg->run_id[0])
        return pfs_fail(err, len, "train without a train-gen before it reads a kept data set: give --run-id ID "
                        "of the run that made it with -k (and the same --train shape)");
    return 0;
}

/* Every rank must get a sample: refused before anything is made. The
 * preset's values resolved into cfg, so that the results file stores those
 * of the run. */
static int tr_fits(struct pfs_config *cfg, uint64_t streams, char *err, size_t len)
{
    struct pfs_train t;
    if (pfs_train_of(cfg, &t, err, len) != 0)
        return -1;
    if (pfs_config_has_phase(cfg, PFS_PH_TRAIN) && pfs_train_samples(&t) < streams)
        return pfs_fail(err, len, "--train %s: %" PRIu64 " samples for %" PRIu64 " ranks; each rank needs one at "
                        "least: give more --train-files or --train-records, or fewer ranks", cfg->train,
                        pfs_train_samples(&t), streams);
    cfg->train_files = (int)t.files;
    cfg->train_records = (int)t.records;
    cfg->train_sample = t.sample;
    cfg->train_batch = (int)t.batch;
    cfg->train_compute = t.compute_s * 1000.0;
    cfg->train_epochs = t.epochs;
    cfg->au_gate = t.gate;
    return 0;
}

/* The report's line: the data set and the training. */
static size_t tr_header(const struct pfs_config *cfg, int nranks, char *buf, size_t len)
{
    struct pfs_train t;
    char err[PFS_ERRLEN], size[32];
    if (pfs_train_of(cfg, &t, err, sizeof(err)) != 0)
        return 0;
    pfs_format_size(t.sample, size, sizeof(size));
    int n = snprintf(buf, len, "training     %s: %" PRIu64 " files x %" PRIu64 " samples of %s (%" PRIu64 " bytes); "
                     "batch %u, compute %g ms, %d epochs, %d ranks x %d accelerators, prefetch %d; AU gate %g%%",
                     cfg->train, t.files, t.records, size, pfs_train_bytes(&t), t.batch, t.compute_s * 1000,
                     t.epochs, nranks, cfg->accelerators, cfg->prefetch, t.gate);
    return n > 0 ? (size_t)n : 0;
}

static void tr_warn(struct pfs_config *cfg, const unsigned char *given, int listed)
{
    if (listed && cfg->find_max_acc && pfs_opt_given(given, "accelerators"))
        pfs_config_warn(cfg, "--accelerators is replaced by the counts --find-max-accelerators tries");
    if (listed || pfs_config_has_phase(cfg, PFS_PH_TRAIN_GEN) || pfs_config_has_phase(cfg, PFS_PH_TRAIN))
        return;
    if (cfg->train[0])
        pfs_config_warn(cfg, "--train does nothing without train-gen or train in -p");
    static const char *const opts[] = {"train-files", "train-records", "train-sample", "train-batch", "train-compute",
                                       "train-epochs", "accelerators", "prefetch", "au-gate",
                                       "find-max-accelerators"};
    for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++)
        if (pfs_opt_given(given, opts[i]))
            pfs_config_warn(cfg, "--%s does nothing without train-gen or train in -p", opts[i]);
}

/* Before a train-gen: what an earlier repetition made goes. */
static void gen_before(struct pfs_phase_env *e)
{
    (void)tr_remove(e->dir_fd);
}

/* At the run's end: this rank's files go, unless -k. */
static int tr_finish(struct pfs_phase_env *e)
{
    return e->cfg->keep ? 0 : tr_remove(e->dir_fd);
}

const struct pfs_phase_ops pfs_ph_train_gen = {
    .name = "train-gen",
    .kind = PFS_PHASE_DATA,
    .flags = PFS_PHF_OWN_FILES | PFS_PHF_WRITES,
    .unit = PFS_UNIT_BYTES,
    .needs = -1,
    .op = "write",
    .help = "make the --train data set: each rank writes its share of the files (issue 32)",
    .work = gen_work,
    .run = gen_run,
    .check = tr_check,
    .warn = tr_warn,
    .fits = tr_fits,
    .header = tr_header,
    .before = gen_before,
    .finish = tr_finish,
};

const struct pfs_phase_ops pfs_ph_train = {
    .name = "train",
    .kind = PFS_PHASE_DATA,
    .flags = PFS_PHF_OWN_FILES | PFS_PHF_READS | PFS_PHF_ACCEL,
    .unit = PFS_UNIT_BYTES,
    .needs = -1,
    .op = "read",
    .help = "train on the --train data set: epochs of shuffled batches read ahead of emulated accelerators, "
            "their utilisation measured (also a kept set, --run-id)",
    .work = pfs_train_feed_work,
    .run = pfs_train_feed,
    .check = train_check,
    .fits = tr_fits,
    .header = tr_header,
};
