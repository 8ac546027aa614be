/* A data phase of one stream around the transfer loop (stream_loop.c):
 * the open with the identity the file must have, the clock's part
 * (the stonewall, --runtime, --ramp), the stonewall's wear-out, fsync,
 * close and the pattern time out of the span. What the transfers are is the
 * phase's (struct pfs_xfer_plan, from src/core/phases/). */
#define _GNU_SOURCE
#include "stream_data.h"
#include "stream_loop.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>

#include "pfs/dist.h"
#include "pfs/ratesweep.h"
#include "pfs/stream_tg.h"

#include "stream_mark.h"

/* The storage targets of the file just opened (found the first time it
 * is opened), outside the timed region: the lookup's time leaves the span
 * as pattern work does (vt: the stonewall, --runtime, --ramp, the time
 * series and the span's end all run on the clock without it, and verify_s
 * counts it, so that the raw ends plus verify_s are the wall clock's).
 * Transfers are attributed from here. Returns the seconds it took. */
static double data_targets(struct loop *l)
{
    struct pfs_stream *s = l->s;
    if (!s->tg || !l->fh)
        return 0;
    const uint64_t a = pfs_now_ns();
    mark(s, "storage targets");
    const int ok = pfs_stream_tg_open(s->tg, s->dir_fd, l->path, l->wr) == 0;
    mark(s, NULL);
    const uint64_t b = pfs_now_ns();
    const double took = 1e-9 * (double)(b - a);
    l->vt += took;
    l->tg_at_ns = a - l->t0_ns, l->tg_ns = b - a;
    struct pfs_tg_acc *acc = ok ? &s->tg->acc : NULL;
    /* A file on one target: nothing per transfer; the loop's end adds the
     * stream's figures, which begin here (empty: the open's the only
     * operation yet, timed as an open). */
    if (acc && acc->single >= 0 && l->lat && l->lat->h[PFS_LAT_OP].count == 0 && l->t->bytes == 0)
        l->tg_one = acc;
    else
        l->tg = acc;
    return took;
}

/* Opens the stream's file for this phase, with the identity it must have. */
static void *data_open(const struct pfs_phase_ctx *p, struct pfs_stream *s, const struct pfs_xfer_plan *x,
                       const char *path)
{
    const struct pfs_config *cfg = p->cfg;
    const int wr = x->wr;
    unsigned flags = x->rmw || x->seeks || x->mixed ? PFS_OPEN_READ | PFS_OPEN_WRITE : wr ? PFS_OPEN_WRITE : PFS_OPEN_READ;
    int creating = 0;
    if (cfg->direct && (p->be->caps & PFS_CAP_DIRECT))
        flags |= PFS_OPEN_DIRECT;
    /* --sync: only writes wait for stable storage (check refused it where the backend cannot). */
    if (wr && (p->be->caps & PFS_CAP_OSYNC) && cfg->sync_mode != PFS_SYNC_NONE)
        flags |= cfg->sync_mode == PFS_SYNC_SYNC ? PFS_OPEN_SYNC : PFS_OPEN_DSYNC;
    if (cfg->shared)
        flags |= PFS_OPEN_SHARED;
    else if (x->creates) { /* a file per stream: made now, or emptied in a later repetition */
        creating = !s->created;
        flags |= creating ? PFS_OPEN_CREATE : PFS_OPEN_TRUNC;
    }
    /* Every open after the create expects the inode the create made. */
    const struct pfs_fid *expect = creating ? NULL : wr ? &s->fid : &s->rd_fid;
    struct pfs_fid got = {0, 0};
    void *fh = NULL;
    mark(s, wr ? "open for writing" : "open for reading");
    int rc = p->be->open(p->bectx, s->dir_fd, path, flags, expect, &got, &fh);
    if (rc < 0) {
        if (rc == -EEXIST && !(p->be->caps & PFS_CAP_NOFILES)) /* else the backend's words name its object */
            pfs_stream_fail(s, "open for writing", path, PFS_NO_OFFSET, EEXIST, 0,
                            "a file of that name is already there; pfsbench never reuses a file it did not create");
        else
            pfs_loop_backend_fail(p, s, wr ? "open for writing" : "open for reading", path, PFS_NO_OFFSET, -rc);
        return NULL;
    }
    if (creating) {
        s->created = 1;
        s->fid = got;
    }
    return fh;
}

/* The lookup's time out of the exemplars' starts too: an operation that
 * began after it starts that much earlier, on the span's clock. */
static void exemplars_on_span(const struct loop *l)
{
    struct pfs_stream_lat *lat = l->s->lat;
    for (uint32_t i = 0; lat && l->tg_ns && i < lat->ex.n; i++)
        if (lat->ex.e[i].start_ns >= l->tg_at_ns)
            lat->ex.e[i].start_ns -= l->tg_ns;
}

/* fsync (with -e) and close, then the pattern time out of the span and the
 * verification's verdict. */
static void data_close(const struct pfs_phase_ctx *p, struct pfs_stream *s, const struct loop *l)
{
    const struct pfs_config *cfg = p->cfg;
    struct pfs_times *t = &s->t;
    int rc;
    uint64_t c0 = pfs_now_ns();
    if (l->fh && l->wr && cfg->fsync) {
        mark(s, "fsync");
        rc = p->be->fsync(l->fh);
        if (rc < 0)
            pfs_loop_backend_fail(p, s, "fsync", l->path, PFS_NO_OFFSET, -rc);
        uint64_t c1 = pfs_now_ns();
        pfs_stream_lat_add(s, PFS_LAT_FSYNC, c0, c1, p->t0_ns);
        c0 = c1;
    }
    if (l->fh) {
        mark(s, "close");
        rc = p->be->close(l->fh);
        if (rc < 0)
            pfs_loop_backend_fail(p, s, "close", l->path, PFS_NO_OFFSET, -rc);
        pfs_stream_lat_add(s, PFS_LAT_CLOSE, c0, pfs_now_ns(), p->t0_ns);
    }
    t->close_end = pfs_now();
    mark(s, NULL);
    /* Pattern work is the benchmark's own, not the file system's: take it
     * out of this stream's span so bandwidth stays comparable. */
    /* The ramp's is in no figure (and a ramp's cut follows the lookup). */
    t->verify_s = l->vt - (l->vt_ramp > 0 ? l->vt_ramp : 0);
    t->xfer_end -= l->vt;
    t->close_end -= l->vt;
    if (t->errors)
        pfs_stream_fail(s, "verify", l->path, l->bad_off + l->bad_at, 0, 0,
                        "%" PRIu64 " mismatching 8-byte words in data written by %s %d, read by %s %d; first at byte %" PRIu64
                        ": expected 0x%016" PRIx64 ", found 0x%016" PRIx64,
                        t->errors, cfg->threads > 1 ? "stream" : "rank", l->writer, cfg->threads > 1 ? "stream" : "rank",
                        s->id, l->bad_off + l->bad_at, l->bad_exp, l->bad_found);
}

/* The timed transfers, then the stonewall's wear-out: both the same loop. */
static void data_transfers(struct loop *l, uint64_t n)
{
    const struct pfs_phase_ctx *p = l->p;
    struct pfs_times *t = &l->s->t;
    mark(l->s, l->op);
    pfs_loop_run(l, n, 1);
    if (p->cfg->deadline <= 0)
        return;
    t->sw_bytes = t->bytes;
    t->sw_xfers = t->xfers;
    if (l->stop & STOP_WALL)
        t->sw_end = pfs_now() - l->vt;
    /* A phase without WEARS_OUT (seeks) stops at the stonewall. */
    if (!pfs_phase_has(p->kind, PFS_PHF_WEARS_OUT))
        return;
    /* Wear-out: every stream continues to the largest count any stream
     * reached, so every file holds the same transfers. Every stream
     * reaches the hook, the failed ones too; 0 means someone failed. */
    uint64_t target = p->wearout(p->arg, l->s, l->completed);
    if (l->fh && !l->s->fail.failed) {
        l->stop = 0;
        pfs_loop_run(l, target, 0);
    }
}

/* The clock's part of the loop, set at the open (t->open_start, o0_ns):
 * the stonewall, or --runtime's end with its one-pass minimum in the phase
 * that makes the files, and --ramp's end. Returns the transfers to issue,
 * given n for a phase run to a count. Both run on the timing's clock,
 * pattern work (--verify) taken out, so verifying moves neither. */
static uint64_t loop_clock(struct loop *l, const struct pfs_xfer_plan *x, uint64_t n, uint64_t o0_ns)
{
    const struct pfs_phase_ctx *p = l->p;
    const struct pfs_config *cfg = p->cfg;
    if (cfg->ramp > 0)
        l->ramp_ns = o0_ns + (uint64_t)(cfg->ramp * 1e9);
    if (cfg->runtime > 0 && p->nxfers > 0) {
        l->deadline = l->t->open_start + cfg->runtime;
        l->min_issue = x->creates ? p->nxfers : 1;
        return UINT64_MAX;
    }
    /* Every stream makes its first transfer, as IOR's stonewall does: an
     * open that outlasts -D (a loaded node, HDF5's create) still measures
     * something, and the wear-out has a count to reach. */
    l->deadline = cfg->deadline > 0 ? l->t->open_start + cfg->deadline : 0;
    l->min_issue = n > 0 ? 1 : 0;
    return n;
}

/* --ramp outlasted the stream's work: no transfer completed after it, so the
 * stream has no figures (the MPI layer warns): no bytes, no transfers, no
 * latency, and a span of none at its close, so it neither starts the
 * phase's time early nor counts as measured. */
static void ramp_empty(struct loop *l)
{
    struct pfs_times *t = l->t;
    l->xbase = l->completed;
    t->bytes = t->xfers = t->sw_bytes = t->sw_xfers = 0;
    t->rd_bytes = t->rd_xfers = 0;
    t->sw_end = 0;
    t->verify_s = 0;
    t->lag_sum_ns = t->lag_max_ns = 0;
    pfs_stream_lat_begin(l->s);
    /* The empty span sits where the ramp would have ended (realtime, from
     * the monotonic ramp end), not at this stream's early close: a span
     * there would pull the phase's start before the other streams' ramps
     * ended and lengthen the phase. */
    double left = ((double)l->ramp_ns + l->vt * 1e9 - (double)pfs_now_ns()) * 1e-9;
    double at = t->close_end + (left > 0 ? left : 0);
    t->open_start = t->open_end = t->xfer_end = t->close_end = at;
    pfs_thread_cpu(&l->cpu0);
    l->vcpu = 0;
}

/* --rate (or the repetition's --rate-sweep point): the stream's share of
 * it and its schedule, from the instant every rank's schedule starts from
 * (p->sched0_ns: the last arrival at the phase's opening agreement, which
 * precedes every rank's exit from it). The check refused a rate out of
 * range before the run. */
static void loop_rate(struct loop *l, const struct pfs_phase_ctx *p, const struct pfs_stream *s)
{
    const struct pfs_config *cfg = p->cfg;
    double rate;
    int unit, scope;
    struct pfs_rate_share sh;
    if (!pfs_rate_at(cfg, p->rate_base, p->rep, &rate, &unit, &scope))
        return;
    l->rated = pfs_rate_share(rate, unit, scope, cfg->arrivals, l->xfer_mean, p->nstreams, s->id, &sh) == 0 &&
               pfs_sched_init(&l->sched, sh.ops, cfg->arrivals, p->seed, (uint64_t)s->id, l->sched0_ns + sh.offset_ns) == 0;
    /* The thread's sleeps end when asked, not up to the default 50 us
     * later (timer slack): the waits for intended starts and the polls of
     * an async queue between them sleep tens of microseconds. */
    if (l->rated) {
        l->slack = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
        prctl(PR_SET_TIMERSLACK, 1, 0, 0, 0);
    }
}

/* The loop as the plan says, before the open: 0, or -1 with s failed (a
 * content the transfer cannot hold: the option check refuses it first). */
static int loop_plan(struct loop *l, const struct pfs_phase_ctx *p, struct pfs_stream *s, const struct pfs_xfer_plan *x)
{
    const struct pfs_config *cfg = p->cfg;
    *l = (struct loop){
        .p = p,
        .s = s,
        .path = x->wr ? s->path : s->rd_path,
        .op = x->op,
        .wr = x->wr,
        .writer = x->wr ? s->id : s->rd_writer,
        .collective = cfg->collective && (p->be->caps & PFS_CAP_COLLECTIVE),
        .rmw = x->rmw,
        .seeks = x->seeks,
        .fill = x->fill,
        .check = x->check,
        .len = (size_t)cfg->transfer,
        .t = &s->t,
        .progress = p->progress,
        .lat = s->lat,
        .t0_ns = p->t0_ns,
        .sched0_ns = p->sched0_ns ? p->sched0_ns : p->t0_ns,
        .sync_every = x->sync_every,
    };
    l->sync_next = l->sync_every ? l->sync_every : UINT64_MAX;
    struct pfs_offgen_spec spec = {
        .order = x->order,
        .shared = cfg->shared,
        .layout = cfg->layout,
        .segments = (uint64_t)cfg->segments,
        .stream = l->writer,
        .nstreams = p->nstreams,
        .block = cfg->block,
        .transfer = cfg->transfer,
        .nxfers = x->draws,
        .seed = p->seed ^ pfs_mix64((uint64_t)l->writer + 1 + x->salt),
        .wrap = x->wrap,
    };
    /* --random-dist: over what the write laid out (the stonewall's count),
     * keyed by the run's seed and the file's writer (the phase's salt beside it). */
    struct pfs_dist_spec dist;
    char why[160];
    if (x->skew && cfg->random_dist[0] && pfs_dist_parse(cfg->random_dist, &dist, why, sizeof(why)) == 0) {
        spec.dist = &dist;
        spec.dist_n = x->order == PFS_ORDER_RANDOM && p->data_xfers < x->draws ? p->data_xfers : x->draws;
        spec.dist_seed = p->seed;
        spec.dist_stream = (uint64_t)l->writer ^ (x->salt << 32);
    }
    pfs_offgen_init(&l->gen, &spec);
    /* --rwmix and --bssplit: each transfer's direction and size, drawn per
     * stream from the run's seed (every repetition the same draws). */
    if (x->mixed)
        pfs_mix_rw(&l->rw, cfg->rwmix, p->seed, (uint64_t)l->writer);
    l->mixed = x->mixed;
    if (x->skew && cfg->bssplit[0] && pfs_bssplit_parse(cfg->bssplit, &l->bs, why, sizeof(why)) == 0) {
        pfs_mix_key(&l->bs, p->seed, (uint64_t)l->writer);
        l->sized = 1;
    }
    l->xfer_mean = l->sized ? pfs_mix_mean(&l->bs) : (double)cfg->transfer;
    l->after = l->progress || l->collective;
    loop_rate(l, p, s);
    /* One key for a shared file with a content: a unit's bytes must not
     * depend on the rank that writes it (duplicates span ranks). */
    l->cwriter = cfg->shared && pfs_config_content(cfg) ? 0 : l->writer;
    if (pfs_content_run(&l->content, cfg->buffer_compress, cfg->dedupe, cfg->transfer, p->seed, why, sizeof(why)) == 0)
        return 0;
    pfs_stream_fail(s, l->op, l->path, PFS_NO_OFFSET, 0, 0, "%s", why);
    return -1;
}

void pfs_stream_xfer(const struct pfs_phase_ctx *p, struct pfs_stream *s, const struct pfs_xfer_plan *x)
{
    struct pfs_times *t = &s->t;
    struct loop l;
    const int planned = loop_plan(&l, p, s, x);
    uint64_t n = x->n;

    memset(t, 0, sizeof(*t));
    pfs_stream_lat_begin(s);
    if (s->lat)
        s->lat->file = p->cfg->shared ? -1 : l.writer;
    t->open_start = pfs_now();
    pfs_thread_cpu(&l.cpu0); /* the CPU window inside the span's */
    uint64_t o0 = pfs_now_ns();
    l.fh = data_open(p, s, x, l.path);
    if (l.fh)
        pfs_stream_lat_add(s, PFS_LAT_OPEN, o0, pfs_now_ns(), p->t0_ns);
    const double lookup_s = data_targets(&l); /* before the clock is read: the order of - is unspecified */
    t->open_end = pfs_now() - lookup_s;
    n = loop_clock(&l, x, n, o0);
    if (planned != 0)
        n = 0;
    if (l.collective && p->agree_open) {
        /* Collective calls must be made by all ranks alike: agree first. */
        if (p->agree_open(p->arg, l.fh == NULL))
            n = 0;
    } else if (!l.fh) {
        n = 0;
    }
    if (pfs_loop_init(&l) != 0) {
        pfs_stream_fail(s, l.op, l.path, PFS_NO_OFFSET, ENOMEM, 0, "no memory for %u transfers in flight", p->iodepth);
        n = 0;
    }
    data_transfers(&l, n);
    pfs_loop_tg_end(&l); /* before ramp_empty's reset */
    pfs_loop_fini(&l);
    if (l.rated && l.slack > 0)
        prctl(PR_SET_TIMERSLACK, (unsigned long)l.slack, 0, 0, 0);
    t->xfers = l.completed - l.xbase;
    t->xfer_end = pfs_now();
    data_close(p, s, &l);
    if (l.ramp_ns && !s->fail.failed)
        ramp_empty(&l);
    exemplars_on_span(&l);
    /* The pattern's CPU leaves the window as its wall time left the span:
     * the window starts that much later. */
    l.cpu0.total += l.vcpu;
    l.cpu0.user += l.vcpu;
    pfs_thread_cpu_since(&l.cpu0, t);
}
