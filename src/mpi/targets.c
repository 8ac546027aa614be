/* The storage targets of a run's data files: each stream's provider and
 * layouts (pfs/stream_tg.h), set up with the streams, and after each data
 * phase the per-target figures merged by target name, per node first,
 * then on rank 0, as the latency records are (latency.c):
 *
 *   1. each rank merges its threads' tables by name;
 *   2. over the node's communicator, then over the node leaders', each
 *      member's table reaches the root (a gather of the counts, the root's
 *      word that it has room, a gather of the tables), which merges them by
 *      name: ranks see different targets, so the tables are matched by
 *      name, never by position; at most PFS_TG_MAX targets, the others
 *      counted and said;
 *   3. rank 0 keeps the table with the phase's latency record and turns
 *      each exemplar's target (the hash of its name, pfs_tg_hash) into the
 *      row of that table.
 *
 * The first reason a target was unknown is said once, by rank 0, as a
 * warning of the run. Nothing here runs inside a phase. */
#include "driver.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pfs/stream_tg.h"

void drv_targets_setup(struct ctx *c, struct pfs_stream *st)
{
    struct pfs_fsinfo fs;
    if (pfs_fs_mountinfo("/proc/self/mountinfo", c->cfg.dir, &fs) != 0)
        memset(&fs, 0, sizeof(fs));
    st->tg = malloc(sizeof(*st->tg));
    if (!st->tg) {
        drv_set_fail(c, "allocate the storage targets' record", "", ENOMEM, NULL);
        return;
    }
    pfs_stream_tg_init(st->tg, &fs, c->topo.host, (c->be->caps & PFS_CAP_NOFILES) != 0);
}

void drv_targets_free(struct pfs_stream *st)
{
    if (!st->tg)
        return;
    pfs_stream_tg_free(st->tg);
    free(st->tg);
    st->tg = NULL;
}

/* The entries of a that saw something, as a table of their own. */
static int compact(const struct pfs_tg_acc *a, struct pfs_tg_acc *out)
{
    pfs_tg_init(out);
    for (uint32_t i = 0; i < a->n; i++)
        if ((a->s[i].h.count || a->s[i].bytes) && pfs_tg_merge(out, &a->s[i], 1) != 0)
            return -1;
    out->dropped = a->dropped;
    return 0;
}

/* Collective over comm: every member's table merged by name into root's
 * (rank 0 of comm) `into`; the others' `into` is left empty. */
static void gather_merge(struct ctx *c, MPI_Comm comm, const struct pfs_tg_acc *mine, struct pfs_tg_acc *into,
                         double since, const char *where)
{
    int me, size;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &size);
    pfs_tg_init(into);
    const int B = (int)sizeof(struct pfs_tg_stat);
    unsigned long long n2[2] = {mine->n, mine->dropped}, *all = NULL;
    int *bytes = NULL, *displ = NULL, ok = 1;
    struct pfs_tg_stat *recv = NULL;
    if (me == 0) {
        all = calloc((size_t)size, sizeof(n2));
        bytes = calloc((size_t)size, sizeof(int));
        displ = calloc((size_t)size, sizeof(int));
        ok = all && bytes && displ;
    }
    MPI_Request req;
    MPI_Igather(n2, 2, MPI_UNSIGNED_LONG_LONG, ok ? all : NULL, 2, MPI_UNSIGNED_LONG_LONG, 0, comm, &req);
    drv_wait_watched(c, &req, since, where);
    size_t total = 0;
    for (int r = 0; me == 0 && ok && r < size; r++) {
        displ[r] = (int)(total * (size_t)B);
        bytes[r] = (int)(all[r * 2] * (unsigned long long)B);
        total += all[r * 2];
        into->dropped += all[r * 2 + 1];
    }
    if (me == 0 && ok && total && (total * (size_t)B > (size_t)INT32_MAX || !(recv = malloc(total * (size_t)B))))
        ok = 0;
    /* The root's word: it has room (else nothing travels, and it says so). */
    MPI_Ibcast(&ok, 1, MPI_INT, 0, comm, &req);
    drv_wait_watched(c, &req, since, where);
    if (ok) {
        MPI_Igatherv(mine->s, (int)mine->n * B, MPI_BYTE, recv, bytes, displ, MPI_BYTE, 0, comm, &req);
        drv_wait_watched(c, &req, since, where);
        if (me == 0 && pfs_tg_merge(into, recv, (uint32_t)total) != 0)
            ok = 0;
    }
    if (me == 0 && !ok)
        drv_record_warn(&c->rec, "storage targets: no memory to merge the per-target figures; some are missing");
    free(recv);
    free(all);
    free(bytes);
    free(displ);
}

/* Rank 0: the table kept with the phase's record, and each exemplar's
 * target (its name's hash) turned into the row of that table (-1 when no
 * row or two rows have that hash). */
static void store(struct pfs_phase_lat *out, const struct pfs_tg_acc *job)
{
    out->tg = malloc((job->n ? job->n : 1) * sizeof(*out->tg));
    if (!out->tg)
        return;
    if (job->n)
        memcpy(out->tg, job->s, job->n * sizeof(*out->tg));
    out->ntg = job->n;
    out->tg_dropped = job->dropped;
    for (unsigned i = 0; out->ex && i < out->nex; i++) {
        const int32_t h = out->ex[i].target;
        int row = -1;
        for (unsigned j = 0; h >= 0 && j < out->ntg; j++)
            if (pfs_tg_hash(out->tg[j].name) == h)
                row = row < 0 ? (int)j : -2;
        out->ex[i].target = row >= 0 ? row : -1;
    }
}

/* Rank 0: the first reason its streams found a target unknown, once a
 * run: a warning of the run, and a line of the report. */
static void note_once(struct ctx *c)
{
    for (int i = 0; i < c->threads && !c->tg_noted; i++) {
        const char *n = c->streams[i].tg ? pfs_targets_note(&c->streams[i].tg->ctx) : NULL;
        if (!n)
            continue;
        drv_record_warn(&c->rec, "%s", n);
        if (!c->cfg.quiet)
            fprintf(c->cfg.format == PFS_FORMAT_TEXT ? drv_record_out(c) : stderr, "warning      %s\n", n);
        c->tg_noted = 1;
    }
}

/* Collective, after drv_lat_collect (whose exemplars it names), in a data
 * phase that every rank finished. out: rank 0's record of the phase. */
void drv_targets_collect(struct ctx *c, struct pfs_phase_lat *out, int kind, int failed, double since,
                         const char *where)
{
    if (failed || pfs_phase_is_meta(kind) || c->threads < 1 || !c->streams[0].tg)
        return; /* the same on every rank: a rank without its tables failed the set-up */
    struct pfs_tg_acc rank, node, job;
    int bad = compact(&c->streams[0].tg->acc, &rank) != 0;
    for (int i = 1; i < c->threads; i++)
        if (c->streams[i].tg)
            bad |= pfs_tg_merge(&rank, c->streams[i].tg->acc.s, c->streams[i].tg->acc.n) != 0;
    if (bad)
        drv_record_warn(&c->rec, "storage targets: no memory to merge the per-target figures; some are missing");
    gather_merge(c, c->topo.node_comm, &rank, &node, since, where);
    if (c->topo.lowest_on_node) {
        struct pfs_tg_acc mine;
        (void)compact(&node, &mine);
        gather_merge(c, c->topo.leaders, &mine, &job, since, where);
        pfs_tg_free(&mine);
        if (c->rank == 0 && out)
            store(out, &job);
        pfs_tg_free(&job);
    }
    if (c->rank == 0)
        note_once(c);
    pfs_tg_free(&rank);
    pfs_tg_free(&node);
}
