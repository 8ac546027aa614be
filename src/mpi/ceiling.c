/* The network ceiling: every node's lowest rank sends large messages to the
 * next node's and receives from the previous one's, at once, so that every
 * node's link carries traffic both ways, as in a data phase where each node
 * writes to servers elsewhere. Only the leaders exchange: the other ranks
 * of a node would share its link and measure it divided. */
#include "ceiling.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TAG 29

/* The exchange on the leaders' communicator: the seconds from the
 * leaders' common start to this node's last send and receive done. */
static double exchange(MPI_Comm lc, const struct pfs_net_opts *o, char *sbuf, char *rbuf, MPI_Request *req)
{
    int node, nnodes, to, from;
    MPI_Comm_rank(lc, &node);
    MPI_Comm_size(lc, &nnodes);
    if (nnodes < 2)
        return 0; /* to itself it would measure memory, not a network */
    pfs_ceiling_ring(node, nnodes, &to, &from);
    double t0 = 0;
    for (int r = 0; r <= o->rounds; r++) { /* round 0 warms up the connections, untimed */
        if (r == 1) {
            MPI_Barrier(lc);
            t0 = MPI_Wtime();
        }
        for (int w = 0; w < o->window; w++) {
            MPI_Irecv(rbuf + (size_t)w * o->message, (int)o->message, MPI_BYTE, from, TAG, lc, &req[w]);
            /* One send buffer for the window: MPI-3 lets sends share it. */
            MPI_Isend(sbuf, (int)o->message, MPI_BYTE, to, TAG, lc, &req[o->window + w]);
        }
        MPI_Waitall(2 * o->window, req, MPI_STATUSES_IGNORE);
    }
    return MPI_Wtime() - t0;
}

/* Every node's host and seconds to the lowest leader (into all, room for
 * every node there), which computes the figures. */
static void gather_nodes(MPI_Comm lc, double secs, const struct pfs_net_opts *o, struct pfs_net_node *all,
                         struct pfs_net_ceiling *out)
{
    int node, nnodes, len = 0;
    MPI_Comm_rank(lc, &node);
    MPI_Comm_size(lc, &nnodes);
    struct pfs_net_node me = {.secs = secs};
    char pname[MPI_MAX_PROCESSOR_NAME];
    MPI_Get_processor_name(pname, &len);
    snprintf(me.host, sizeof(me.host), "%.*s", len, pname);
    MPI_Gather(&me, (int)sizeof(me), MPI_BYTE, all, (int)sizeof(me), MPI_BYTE, 0, lc);
    out->nnodes = nnodes;
    out->message = o->message;
    out->bytes_per_node = nnodes > 1 ? (uint64_t)o->message * (uint64_t)o->window * (uint64_t)o->rounds : 0;
    out->slowest = -1;
    if (node != 0)
        return;
    out->node = all;
    if (nnodes > 1)
        pfs_ceiling_net_figures(out);
}

int pfs_ceiling_network(MPI_Comm comm, int leads, const struct pfs_net_opts *opts, struct pfs_net_ceiling *out,
                        char *err, size_t errlen)
{
    struct pfs_net_opts o = {.message = 4u << 20, .window = 4, .rounds = 8};
    if (opts && opts->message > 0 && opts->message <= INT_MAX)
        o.message = opts->message;
    if (opts && opts->window > 0 && opts->window <= 64)
        o.window = opts->window;
    if (opts && opts->rounds > 0)
        o.rounds = opts->rounds;
    memset(out, 0, sizeof(*out));
    int rank;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm lc = MPI_COMM_NULL;
    MPI_Comm_split(comm, leads ? 0 : MPI_UNDEFINED, rank, &lc);
    char *sbuf = NULL, *rbuf = NULL;
    MPI_Request *req = NULL;
    struct pfs_net_node *all = NULL;
    int bad = INT_MAX, root = leads ? rank : INT_MAX;
    if (leads) {
        int node, nnodes;
        MPI_Comm_rank(lc, &node);
        MPI_Comm_size(lc, &nnodes);
        sbuf = malloc(o.message);
        rbuf = malloc(o.message * (size_t)o.window);
        req = malloc(2 * (size_t)o.window * sizeof(*req));
        all = node == 0 ? calloc((size_t)nnodes, sizeof(*all)) : NULL;
        if (!sbuf || !rbuf || !req || (node == 0 && !all))
            bad = rank;
        else
            memset(sbuf, 0x5a, o.message);
    }
    /* Agree before any message: a leader without buffers must not leave
     * its neighbours waiting for data it will never send. */
    int in[2] = {bad, root}, res[2];
    MPI_Allreduce(in, res, 2, MPI_INT, MPI_MIN, comm);
    int first_bad = res[0], lowest = res[1];
    double fig[7] = {0};
    if (first_bad == INT_MAX && leads) {
        double secs = exchange(lc, &o, sbuf, rbuf, req);
        gather_nodes(lc, secs, &o, all, out);
        fig[0] = out->nnodes, fig[1] = (double)out->bytes_per_node, fig[2] = out->job_mibs;
        fig[3] = out->min_mibs, fig[4] = out->median_mibs, fig[5] = out->max_mibs, fig[6] = out->slowest;
    }
    free(sbuf);
    free(rbuf);
    free(req);
    if (lc != MPI_COMM_NULL)
        MPI_Comm_free(&lc);
    if (lowest == INT_MAX) {
        snprintf(err, errlen, "network ceiling: no rank of the communicator leads a node");
        return -1;
    }
    if (first_bad != INT_MAX) {
        free(all);
        snprintf(err, errlen, "network ceiling: rank %d could not allocate %zu bytes of buffers", first_bad,
                 o.message * (size_t)(o.window + 1));
        return -1;
    }
    /* Everyone gets the figures the lowest leader computed. */
    MPI_Bcast(fig, 7, MPI_DOUBLE, lowest, comm);
    out->nnodes = (int)fig[0], out->bytes_per_node = (uint64_t)fig[1], out->message = o.message;
    out->job_mibs = fig[2], out->min_mibs = fig[3], out->median_mibs = fig[4], out->max_mibs = fig[5];
    out->slowest = (int)fig[6];
    return 0;
}
