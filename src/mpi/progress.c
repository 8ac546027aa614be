/* The live progress line: rank 0 prints percent, rate and ETA once a
 * second; the others report with non-blocking sends on a communicator of
 * their own, so no collective can hang on a failed rank. */
#define _GNU_SOURCE
#include "driver.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* Rank 0: take every progress report that has arrived, keep the latest of
 * the current phase. */
static void progress_drain(struct ctx *c)
{
    for (;;) {
        int flag = 0;
        MPI_Status st;
        MPI_Iprobe(MPI_ANY_SOURCE, PFS_TAG_PROGRESS, c->prog.comm, &flag, &st);
        if (!flag)
            return;
        uint64_t b[3];
        MPI_Recv(b, 3, MPI_UINT64_T, st.MPI_SOURCE, PFS_TAG_PROGRESS, c->prog.comm, MPI_STATUS_IGNORE);
        c->prog.recv[st.MPI_SOURCE]++;
        if ((int)b[0] == c->prog.seq) {
            c->prog.bytes[st.MPI_SOURCE] = b[1];
            c->prog.ops[st.MPI_SOURCE] = b[2];
        }
    }
}

/* Called from stream 0 (the main thread) every 16 transfers: at most once a
 * second it reads the rank's counters; other ranks send them, rank 0 prints. */
void drv_hook_progress(void *arg, struct pfs_stream *s)
{
    struct ctx *c = arg;
    if (s->thread != 0)
        return;
    double t = pfs_now();
    if (t - c->prog.last < 1.0)
        return;
    c->prog.last = t;
    uint64_t bytes = 0, ops = 0;
    for (int i = 0; i < c->threads; i++) {
        bytes += __atomic_load_n(&c->streams[i].t.bytes, __ATOMIC_RELAXED);
        ops += __atomic_load_n(&c->streams[i].t.xfers, __ATOMIC_RELAXED);
    }
    if (c->rank != 0) {
        int done = 1;
        if (c->prog.req != MPI_REQUEST_NULL)
            MPI_Test(&c->prog.req, &done, MPI_STATUS_IGNORE);
        if (!done)
            return; /* rank 0 is behind: skip this report rather than queue them */
        c->prog.buf[0] = (uint64_t)c->prog.seq;
        c->prog.buf[1] = bytes;
        c->prog.buf[2] = ops;
        MPI_Isend(c->prog.buf, 3, MPI_UINT64_T, 0, PFS_TAG_PROGRESS, c->prog.comm, &c->prog.req);
        c->prog.sent++;
        return;
    }
    progress_drain(c);
    c->prog.bytes[0] = bytes;
    c->prog.ops[0] = ops;
    if (t - c->prog.start < 2.0)
        return; /* short phases get no progress line */
    const int meta = pfs_phase_is_meta(c->prog.kind);
    double done = 0, want;
    for (int r = 0; r < c->nranks; r++)
        done += meta ? (double)c->prog.ops[r] : (double)c->prog.bytes[r];
    if (meta)
        want = (double)c->cfg.files * c->nstreams;
    else
        want = (double)(c->prog.kind == PFS_PH_WRITE ? c->nxfers : c->data_xfers) * (double)c->cfg.transfer * c->nstreams;
    double rate = done / (t - c->prog.start);
    double eta = rate > 0 && want > done ? (want - done) / rate : 0;
    int tty = isatty(STDERR_FILENO);
    if (meta)
        fprintf(stderr, "%s%-10s %5.1f%% %12.1f files/s  ETA %.0f s%s", tty ? "\r\033[K" : "", pfs_phase_name(c->prog.kind),
                want > 0 ? 100.0 * done / want : 0.0, rate, eta, tty ? "" : "\n");
    else
        fprintf(stderr, "%s%-10s %5.1f%% %12.2f %s  ETA %.0f s%s", tty ? "\r\033[K" : "", pfs_phase_name(c->prog.kind),
                want > 0 ? 100.0 * done / want : 0.0, rate / pfs_units_scale(c->cfg.units),
                pfs_units_label(c->cfg.units), eta, tty ? "" : "\n");
    fflush(stderr);
    c->prog.shown = 1;
}

/* Collective, at the end: every report sent is received, so none is left
 * unmatched at MPI_Finalize. */
void drv_progress_finish(struct ctx *c)
{
    if (!c->prog.on)
        return;
    if (c->prog.req != MPI_REQUEST_NULL)
        MPI_Wait(&c->prog.req, MPI_STATUS_IGNORE);
    int *sent = c->rank == 0 ? calloc((size_t)c->nranks, sizeof(int)) : NULL;
    MPI_Gather(&c->prog.sent, 1, MPI_INT, sent, 1, MPI_INT, 0, c->comm);
    if (c->rank == 0) {
        for (int r = 1; r < c->nranks; r++)
            for (; c->prog.recv[r] < sent[r]; c->prog.recv[r]++) {
                uint64_t b[3];
                MPI_Recv(b, 3, MPI_UINT64_T, r, PFS_TAG_PROGRESS, c->prog.comm, MPI_STATUS_IGNORE);
            }
        free(sent);
    }
    MPI_Comm_free(&c->prog.comm);
}

/* Collective. Live progress: forced, or when rank 0 writes the text report
 * to a terminal. */
void drv_progress_setup(struct ctx *c)
{
    const struct pfs_config *cfg = &c->cfg;
    c->prog.req = MPI_REQUEST_NULL;
    if (c->rank == 0)
        c->prog.on = cfg->progress ||
                     (!cfg->quiet && cfg->format == PFS_FORMAT_TEXT && isatty(STDOUT_FILENO) && isatty(STDERR_FILENO));
    MPI_Bcast(&c->prog.on, 1, MPI_INT, 0, c->comm);
    if (!c->prog.on)
        return;
    MPI_Comm_dup(c->comm, &c->prog.comm);
    if (c->rank == 0) {
        c->prog.recv = calloc((size_t)c->nranks, sizeof(int));
        c->prog.bytes = calloc((size_t)c->nranks, sizeof(uint64_t));
        c->prog.ops = calloc((size_t)c->nranks, sizeof(uint64_t));
        if (!c->prog.recv || !c->prog.bytes || !c->prog.ops)
            drv_set_fail(c, "allocate the progress tables", "", ENOMEM, NULL);
    }
}

/* Local. A phase begins: the counters start again. */
void drv_progress_phase(struct ctx *c, int kind)
{
    if (!c->prog.on)
        return;
    c->prog.seq++;
    c->prog.kind = kind;
    c->prog.start = c->prog.last = pfs_now();
    c->prog.shown = 0;
    if (c->rank == 0 && c->prog.bytes && c->prog.ops)
        for (int r = 0; r < c->nranks; r++)
            c->prog.bytes[r] = c->prog.ops[r] = 0;
}

/* Local. A phase ended: the line goes, so the report's row takes its place. */
void drv_progress_phase_end(struct ctx *c)
{
    if (c->prog.shown && isatty(STDERR_FILENO))
        fputs("\r\033[K", stderr);
}
