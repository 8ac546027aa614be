/* The live progress line: rank 0 prints percent, rate and ETA once a
 * second. The figures reach it per node: each rank reports to its node's
 * aggregator, and each aggregator sends its node's sum to rank 0, all with
 * non-blocking sends on communicators of their own, so no collective runs
 * inside a phase and rank 0 receives one report per node and interval.
 * The aggregator is the node's leader, except on rank 0's node, where it is
 * the node's second rank (rank 0 then hears its node's other ranks as one).
 * Debug hook for tests: PFSBENCH_DEBUG_PROGRESS=1 makes rank 0 print, at
 * the end, how many reports it received, from how many senders, over how
 * many of its intervals. */
#define _GNU_SOURCE
#include "driver.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FINAL UINT64_MAX /* a report's sequence: the sender's last message */

/* Rank 0 and aggregators: one report from comm (blocking, or only one that
 * has arrived), kept in tab (by its source, or by its node on rank 0).
 * Returns 0 none, 1 a report, 2 a sender's final message. */
static int take(struct ctx *c, MPI_Comm comm, int wait)
{
    int flag = 1;
    MPI_Status st;
    if (wait)
        MPI_Probe(MPI_ANY_SOURCE, PFS_TAG_PROGRESS, comm, &st);
    else
        MPI_Iprobe(MPI_ANY_SOURCE, PFS_TAG_PROGRESS, comm, &flag, &st);
    if (!flag)
        return 0;
    uint64_t b[4];
    MPI_Recv(b, 4, MPI_UINT64_T, st.MPI_SOURCE, PFS_TAG_PROGRESS, comm, MPI_STATUS_IGNORE);
    if (b[0] == FINAL)
        return 2;
    const int i = c->rank == 0 ? (int)b[3] : st.MPI_SOURCE;
    if (i >= 0 && i < c->prog.ntab) {
        c->prog.heard += !c->prog.tab[i][3];
        memcpy(c->prog.tab[i], b, 3 * sizeof(uint64_t));
        c->prog.tab[i][3] = 1;
    }
    return 1;
}

/* The figures of the current phase: this rank's, plus those reported to it. */
static void totals(struct ctx *c, uint64_t *bytes, uint64_t *ops)
{
    for (int i = 0; i < c->threads; i++) {
        *bytes += __atomic_load_n(&c->streams[i].t.bytes, __ATOMIC_RELAXED);
        *ops += __atomic_load_n(&c->streams[i].t.xfers, __ATOMIC_RELAXED);
    }
    for (int i = 0; i < c->prog.ntab; i++)
        if (c->prog.tab[i][0] == (uint64_t)c->prog.seq) {
            *bytes += c->prog.tab[i][1];
            *ops += c->prog.tab[i][2];
        }
}

/* A rank other than 0: this interval's figures to its parent, unless the
 * last report is still on its way (then this one is skipped, not queued). */
static void report(struct ctx *c, uint64_t bytes, uint64_t ops)
{
    struct progress *p = &c->prog;
    int done = 1;
    if (p->req != MPI_REQUEST_NULL)
        MPI_Test(&p->req, &done, MPI_STATUS_IGNORE);
    if (!done)
        return;
    p->buf[0] = (uint64_t)p->seq;
    p->buf[1] = bytes;
    p->buf[2] = ops;
    p->buf[3] = (uint64_t)c->topo.node;
    MPI_Isend(p->buf, 4, MPI_UINT64_T, p->parent, PFS_TAG_PROGRESS, p->up, &p->req);
    p->sent++;
}

/* Rank 0: the line. */
static void show(struct ctx *c, double t, double done)
{
    const int meta = pfs_phase_is_meta(c->prog.kind), tty = c->prog.tty;
    const double want = c->prog.want;
    double rate = done / (t - c->prog.start);
    double eta = rate > 0 && want > done ? (want - done) / rate : 0;
    double pct = want > 0 ? 100.0 * done / want : 0.0;
    if (!meta && c->cfg.runtime > 0) { /* time-based: the bytes have no end, the clock has */
        double el = t - c->prog.start;
        pct = el < c->cfg.runtime ? 100.0 * el / c->cfg.runtime : 100.0;
        eta = el < c->cfg.runtime ? c->cfg.runtime - el : 0;
    }
    if (meta)
        fprintf(stderr, "%s%-10s %5.1f%% %12.1f %s  ETA %.0f s%s", tty ? "\r\033[K" : "", pfs_phase_name(c->prog.kind),
                pct, rate, pfs_phase_rate_unit(c->prog.kind), eta, tty ? "" : "\n");
    else
        fprintf(stderr, "%s%-10s %5.1f%% %12.2f %s  ETA %.0f s%s", tty ? "\r\033[K" : "", pfs_phase_name(c->prog.kind),
                pct, rate / pfs_units_scale(c->cfg.units),
                pfs_units_label(c->cfg.units), eta, tty ? "" : "\n");
    fflush(stderr);
    c->prog.shown = 1;
}

/* Called from stream 0 (the main thread) every 16 transfers: at most once a
 * second it takes the reports that arrived, adds this rank's counters, and
 * sends the sum on (rank 0: prints it). Senders go p->lead early, leaves
 * before aggregators, so each second's reports are in when rank 0 looks (at
 * the same instants they reached it a second late, every other time). */
void drv_hook_progress(void *arg, struct pfs_stream *s)
{
    struct ctx *c = arg;
    struct progress *p = &c->prog;
    if (s->thread != 0)
        return;
    double t = pfs_now();
    if (t - p->last < 1.0)
        return;
    p->last = t;
    /* Until two looks in a row find nothing: Open MPI's MPI_Iprobe advances
     * the transport only when it finds no match, so a report that came in
     * since the last look is matched by that look and found by the next. */
    int got = 0;
    for (int r, idle = 0; p->down != MPI_COMM_NULL && idle < 2;) {
        r = take(c, p->down, 0);
        idle = r == 0 ? idle + 1 : 0;
        got += r == 1;
    }
    uint64_t bytes = 0, ops = 0;
    totals(c, &bytes, &ops);
    if (c->rank != 0) {
        report(c, bytes, ops);
        return;
    }
    p->ticks++;
    p->received += got;
    if (got > p->most)
        p->most = got;
    if (t - p->start >= 2.0) /* short phases get no progress line */
        show(c, t, pfs_phase_is_meta(p->kind) ? (double)ops : (double)bytes);
}

/* Local. Whether process pid's descriptor fd is a terminal. */
static int fd_is_tty(long pid, int fd)
{
    char path[64], to[64];
    snprintf(path, sizeof(path), "/proc/%ld/fd/%d", pid, fd);
    ssize_t n = readlink(path, to, sizeof(to) - 1);
    if (n <= 0)
        return 0;
    to[n] = '\0';
    return strncmp(to, "/dev/pts/", 9) == 0 || strncmp(to, "/dev/tty", 8) == 0 || strcmp(to, "/dev/console") == 0;
}

/* Local. Under mpirun a rank's stderr is a pipe (and its stdout a pty of
 * the launcher's, terminal or not), so the terminal that counts is the
 * launcher's: the first ancestor named like one (mpirun, mpiexec, orterun,
 * prterun, mpiexec.hydra), looked up through /proc. Its terminals: 1 its
 * stdout is one, 2 its stderr; -1 when no launcher is an ancestor. */
static int launcher_terminals(void)
{
    static const char *const names[] = {"mpirun", "mpiexec", "orterun", "prterun", "mpiexec.hydra"};
    long pid = (long)getppid();
    for (int depth = 0; depth < 8 && pid > 1; depth++) {
        char path[64], comm[64] = "", stat[512] = "";
        snprintf(path, sizeof(path), "/proc/%ld/comm", pid);
        FILE *f = fopen(path, "r");
        if (!f || !fgets(comm, sizeof(comm), f)) {
            if (f)
                fclose(f);
            return -1;
        }
        fclose(f);
        comm[strcspn(comm, "\n")] = '\0';
        for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
            if (strcmp(comm, names[i]) == 0)
                return fd_is_tty(pid, STDOUT_FILENO) | fd_is_tty(pid, STDERR_FILENO) << 1;
        snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
        if (!(f = fopen(path, "r")))
            return -1;
        size_t n = fread(stat, 1, sizeof(stat) - 1, f);
        fclose(f);
        stat[n] = '\0';
        const char *close = strrchr(stat, ')'); /* the name may hold spaces and parentheses */
        if (!close || sscanf(close + 1, " %*c %ld", &pid) != 1)
            return -1;
    }
    return -1;
}

/* Local, rank 0. Which of stdout (1) and stderr (2) are terminals: this
 * process's own, or, under a launcher, the launcher's. */
static int terminals(void)
{
    int t = launcher_terminals();
    return t >= 0 ? t : isatty(STDOUT_FILENO) | isatty(STDERR_FILENO) << 1;
}

/* Collective, at the end: every rank's final message goes up after its
 * reports, and each receiver takes them all, so none is left unmatched at
 * MPI_Finalize (messages of one sender arrive in order). */
void drv_progress_finish(struct ctx *c)
{
    struct progress *p = &c->prog;
    if (!p->on)
        return;
    if (p->req != MPI_REQUEST_NULL)
        MPI_Wait(&p->req, MPI_STATUS_IGNORE);
    long late = 0;
    for (int finals = 0; finals < p->nkids;) {
        int r = take(c, p->down, 1);
        finals += r == 2;
        late += r == 1;
    }
    if (c->rank != 0) {
        uint64_t fin[4] = {FINAL, 0, 0, (uint64_t)c->topo.node};
        MPI_Send(fin, 4, MPI_UINT64_T, p->parent, PFS_TAG_PROGRESS, p->up);
    }
    const char *dbg = getenv("PFSBENCH_DEBUG_PROGRESS");
    if (c->rank == 0 && dbg && *dbg && strcmp(dbg, "0") != 0)
        fprintf(stderr, "pfsbench: debug: progress: rank 0 received %ld reports in %ld intervals (at most %ld in one), "
                "%ld after the last, from %d senders; %d nodes, %d ranks\n", p->received, p->ticks, p->most, late,
                p->heard, c->topo.nnodes, c->nranks);
    MPI_Comm_free(&p->comm);
    if (p->ncomm != MPI_COMM_NULL)
        MPI_Comm_free(&p->ncomm);
    free(p->tab);
    p->tab = NULL;
}

/* Local. This rank's place in the tree: whom it reports to, on which
 * communicator, and how many report to it. */
static void progress_roles(struct ctx *c)
{
    struct progress *p = &c->prog;
    int me = 0, n = 1;
    if (p->ncomm != MPI_COMM_NULL) {
        MPI_Comm_rank(p->ncomm, &me);
        MPI_Comm_size(p->ncomm, &n);
    }
    const int agg = c->topo.node == 0 && n > 1 ? 1 : 0; /* the node's aggregator, in the node */
    p->up = p->down = MPI_COMM_NULL;
    p->parent = -1;
    p->lead = 0;
    if (c->rank == 0) {
        p->down = p->comm;
        p->ntab = c->topo.nnodes;
        p->nkids = c->topo.nnodes - 1 + (n > 1);
    } else if (me == agg || p->ncomm == MPI_COMM_NULL) {
        p->up = p->comm;
        p->parent = 0;
        p->lead = 0.1;
        if (p->ncomm != MPI_COMM_NULL) {
            p->down = p->ncomm;
            p->ntab = n;
            p->nkids = n - 1 - (c->topo.node == 0);
        }
    } else {
        p->up = p->ncomm;
        p->parent = agg;
        p->lead = 0.2;
    }
}

/* Collective. Each rank sends its parent one message and each receiver takes
 * one from every child before any phase. Open MPI connects two ranks on first
 * use, and over TCP the handshake advances only while both call MPI, which in
 * a phase is once a second: unwired, rank 0 heard the other nodes' first
 * reports seconds late (on 4 fake nodes the line showed a quarter of the
 * rate for the first 3 s of a phase). */
static void progress_wire(struct ctx *c)
{
    struct progress *p = &c->prog;
    MPI_Request rq = MPI_REQUEST_NULL;
    uint64_t hello[4] = {0, 0, 0, (uint64_t)c->topo.node}, b[4];
    if (p->up != MPI_COMM_NULL)
        MPI_Isend(hello, 4, MPI_UINT64_T, p->parent, PFS_TAG_PROGRESS, p->up, &rq);
    for (int i = 0; i < p->nkids; i++)
        MPI_Recv(b, 4, MPI_UINT64_T, MPI_ANY_SOURCE, PFS_TAG_PROGRESS, p->down, MPI_STATUS_IGNORE);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
}

/* Collective. Live progress: forced, or when rank 0 writes the text report
 * to a terminal (its own, or under mpirun the launcher's). */
void drv_progress_setup(struct ctx *c)
{
    const struct pfs_config *cfg = &c->cfg;
    struct progress *p = &c->prog;
    p->req = MPI_REQUEST_NULL;
    int b = 0;
    if (c->rank == 0) {
        const int t = terminals();
        b = cfg->progress || (!cfg->quiet && cfg->format == PFS_FORMAT_TEXT && t == 3);
        p->tty = (t & 2) != 0; /* the line redraws itself where stderr is a terminal */
    }
    MPI_Bcast(&b, 1, MPI_INT, 0, c->comm);
    p->on = b;
    if (!p->on)
        return;
    MPI_Comm_dup(c->comm, &p->comm);
    p->ncomm = MPI_COMM_NULL;
    if (c->topo.comms)
        MPI_Comm_dup(c->topo.node_comm, &p->ncomm);
    progress_roles(c);
    progress_wire(c);
    if (p->ntab > 0 && !(p->tab = calloc((size_t)p->ntab, sizeof(*p->tab))))
        drv_set_fail(c, "allocate the progress tables", "", ENOMEM, NULL);
    if (!p->tab)
        p->ntab = 0;
}

/* Local. A phase begins: the counters start again (reports of the phase
 * before are told apart by their sequence); rank 0 adds up what it will
 * have done at its end, each stream's work as the phase counts it (in
 * bytes for a data phase, whose line shows bandwidth). */
void drv_progress_phase(struct ctx *c, const struct pfs_phase_ctx *ph)
{
    if (!c->prog.on)
        return;
    double want = 0;
    for (int i = 0; c->rank == 0 && i < c->nstreams; i++)
        want += (double)pfs_phase_work(ph, i);
    c->prog.want = pfs_phase_is_meta(ph->kind) ? want : want * (double)c->cfg.transfer;
    c->prog.seq++;
    c->prog.kind = ph->kind;
    c->prog.start = pfs_now();
    c->prog.last = c->prog.start - c->prog.lead;
    c->prog.shown = 0;
}

/* Local. A phase ended: the line goes, so the report's row takes its place. */
void drv_progress_phase_end(struct ctx *c)
{
    if (c->prog.shown && c->prog.tty)
        fputs("\r\033[K", stderr);
}
