/* --ceilings: before the phases, untimed, each node's lowest rank measures
 * its memory-copy rate (one core, then all of them) and the leaders the
 * network ring between nodes (ceiling.c); rank 0 records every node's
 * rates (record.c), from which the figures read each data phase as a share
 * of them. A failure to measure is a warning: the phases still run. */
#define _GNU_SOURCE
#include "driver.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ceiling.h"

#define MIB 1048576.0

/* What a leader sends rank 0 (plain bytes: MPI_BYTE). */
struct node_msg {
    struct pfs_mem_ceiling mem;
    double net_mibs;   /* its node's network rate, MiB/s (rank 0 fills it from the ring's figures) */
    int failed;
    char host[PFS_CEIL_HOST];
    char err[256];
};

/* Collective over comm. A barrier whose waiting ranks sleep: MPI's own
 * waits poll, and the ranks of a node that wait for its leader would take
 * the cores its copies are measuring. */
static void quiet_barrier(MPI_Comm comm)
{
    MPI_Request rq;
    int done = 0;
    const struct timespec ms = {0, 1000000};
    MPI_Ibarrier(comm, &rq);
    for (MPI_Test(&rq, &done, MPI_STATUS_IGNORE); !done; MPI_Test(&rq, &done, MPI_STATUS_IGNORE))
        nanosleep(&ms, NULL);
}

/* Rank 0: the gathered messages as the run's ceilings (NULL and a warning
 * when a node failed, or without memory). */
static struct pfs_ceilings *build(struct ctx *c, const struct node_msg *m, int nnodes,
                                  const struct pfs_net_ceiling *net)
{
    for (int n = 0; n < nnodes; n++)
        if (m[n].failed) {
            drv_record_warn(&c->rec, "--ceilings: not measured: node %d (%s): %s", n, m[n].host, m[n].err);
            return NULL;
        }
    struct pfs_ceilings *ce = calloc(1, sizeof(*ce));
    if (ce)
        ce->node = calloc((size_t)nnodes, sizeof(*ce->node));
    if (!ce || !ce->node) {
        free(ce);
        drv_record_warn(&c->rec, "--ceilings: no memory to record them");
        return NULL;
    }
    ce->nnodes = nnodes;
    for (int n = 0; n < nnodes; n++) {
        struct pfs_ceiling_node *e = &ce->node[n];
        const struct pfs_mem_ceiling *mc = &m[n].mem;
        snprintf(e->host, sizeof(e->host), "%s", m[n].host);
        e->memcpy_one = MIB * pfs_ceiling_copy_rate(mc->one_into, mc->one_from);
        e->memcpy_all = MIB * pfs_ceiling_copy_rate(mc->all_into, mc->all_from);
        e->network = nnodes > 1 && net->node ? MIB * net->node[n].mibs : NAN;
    }
    pfs_ceilings_sum(ce);
    return ce;
}

/* The leaders: the memory ceiling of each node, then the ring; rank 0
 * (the lowest leader) gathers them into m (room for every node). */
static void measure(struct ctx *c, struct node_msg *me, struct node_msg *m, struct pfs_net_ceiling *net)
{
    MPI_Comm lc = c->topo.leaders;
    me->failed = pfs_ceiling_memory(0, &me->mem, me->err, sizeof(me->err)) != 0;
    quiet_barrier(lc); /* the ring starts when every node's copies are done */
    char err[PFS_ERRLEN] = "";
    if (pfs_ceiling_network(lc, 1, NULL, net, err, sizeof(err)) != 0 && !me->failed) {
        me->failed = 1;
        snprintf(me->err, sizeof(me->err), "%.255s", err);
    }
    MPI_Gather(me, (int)sizeof(*me), MPI_BYTE, m, (int)sizeof(*me), MPI_BYTE, 0, lc);
}

void drv_ceilings(struct ctx *c, int failed)
{
    if (!c->cfg.ceilings || failed || !c->topo.comms)
        return;
    struct node_msg me = {0}, *m = NULL;
    struct pfs_net_ceiling net = {0};
    snprintf(me.host, sizeof(me.host), "%s", c->topo.host);
    int nomem = 0;
    if (c->rank == 0) {
        m = calloc((size_t)c->topo.nnodes, sizeof(*m));
        nomem = !m;
    }
    MPI_Bcast(&nomem, 1, MPI_INT, 0, c->comm);
    if (nomem) {
        drv_record_warn(&c->rec, "--ceilings: no memory to gather them");
        return;
    }
    if (c->topo.lowest_on_node)
        measure(c, &me, m, &net);
    quiet_barrier(c->comm); /* the other ranks sleep while their leaders measure */
    if (c->rank == 0)
        drv_record_ceilings(&c->rec, build(c, m, c->topo.nnodes, &net));
    free(net.node);
    free(m);
}
