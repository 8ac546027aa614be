/* What every phase of a stream shares: its clocks (wall, monotonic, the
 * thread's CPU), its latency record and its first failure, and where it is
 * (for the watchdog). The loops are stream_loop.c and stream_data.c (data)
 * and stream_meta.c (metadata); what each phase does is its own, in
 * src/core/phases/. */
#define _GNU_SOURCE
#include "pfs/stream.h"
#include "pfs/stream_tg.h"
#include "stream_tree.h"

#include <stdarg.h>
#include <stdio.h>
#include <sys/resource.h>
#include <time.h>

double pfs_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void pfs_thread_cpu(struct pfs_cpu *c)
{
    struct rusage ru;
    struct timespec ts;
    *c = (struct pfs_cpu){0, 0, 0};
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0)
        c->total = (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
    if (getrusage(RUSAGE_THREAD, &ru) == 0) {
        c->user = (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec;
        c->sys = (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec;
    }
}

/* The thread's CPU clock gives the total (exact); the kernel's split into
 * user and system is sampled at the scheduler tick (4 ms at HZ 250), so
 * over a short phase it is clamped to that total. A thread cannot use more
 * CPU than wall time: the total is clamped to t's span too, which the reads
 * of the clocks around it (a few microseconds) would otherwise pass in a
 * phase of a millisecond. */
void pfs_thread_cpu_since(const struct pfs_cpu *a, struct pfs_times *t)
{
    struct pfs_cpu b;
    pfs_thread_cpu(&b);
    double total = b.total - a->total, user = b.user - a->user, sys = b.sys - a->sys;
    user = user > 0 ? user : 0;
    sys = sys > 0 ? sys : 0;
    if (b.total <= 0) /* no CPU clock: the kernel's accounting */
        total = user + sys;
    total = total > 0 ? total : 0; /* --verify's work counted out of it (stream_loop.c) */
    const double span = t->close_end - t->open_start;
    if (total > span)
        total = span > 0 ? span : 0;
    double share = user + sys > 0 ? user / (user + sys) : 0;
    t->cpu_user = total * share;
    t->cpu_sys = total - t->cpu_user;
}

void pfs_stream_lat_begin(struct pfs_stream *s)
{
    if (!s->lat)
        return;
    for (int k = 0; k < PFS_LAT_KINDS; k++)
        pfs_hist_reset(&s->lat->h[k]);
    pfs_ts_reset(&s->lat->ts, s->lat->ts.t0); /* the driver's: the grid's origin */
    pfs_exemplar_init(&s->lat->ex, s->lat->ex.k);
    if (s->tg)
        pfs_tg_reset(&s->tg->acc);
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

void pfs_stream_where(const struct pfs_config *cfg, int kind, const struct pfs_stream *s, char *buf, size_t len)
{
    if (!pfs_phase_is_meta(kind)) { /* a phase that writes works on its own file (seeks too) */
        snprintf(buf, len, "%s", pfs_phase_is_write(kind) ? s->path : s->rd_path);
        return;
    }
    const int other = pfs_phase_has(kind, PFS_PHF_OTHERS);
    const uint64_t k = __atomic_load_n(&s->md_at, __ATOMIC_RELAXED);
    if (pfs_phase_has(kind, PFS_PHF_WALKS)) /* its item is a directory of its own tree */
        pfs_md_item_name(buf, len, cfg, 1, s->md_dir, s->id, k);
    else
        pfs_md_item_name(buf, len, cfg, pfs_phase_has(kind, PFS_PHF_DIRS), other ? s->md_rd_dir : s->md_dir,
                         other ? s->rd_writer : s->id, k);
}
