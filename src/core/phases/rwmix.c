/* The rwmix phase, fio's randrw/readwrite with rwmixread: over the data
 * files a write laid out, each transfer is a read or a write by a seeded
 * draw, exactly --rwmix reads in every 100 (pfs/dist.h's mixes), in -z's
 * order (--random-dist and --bssplit apply as over any laid-out block).
 * The writes put back the bytes the write wrote (the content depends on
 * the offset only), so --verify checks every read, whatever came before
 * it. Counted and timed per direction besides together (the read and
 * write latency kinds; the times' read_* fields). Through the one
 * transfer loop (src/core/stream_data.c), async backends at --iodepth. */
#define _GNU_SOURCE
#include "pfs/phase.h"

#include <stdio.h>

#include "pfs/config.h"
#include "pfs/offsetgen.h"
#include "pfs/stream.h"

#include "../config_table.h"
#include "../stream_data.h"
#include "phases.h"

/* What the files hold: the block, or under -D the count the write reached. */
static uint64_t rwmix_work(const struct pfs_phase_ctx *p, int stream)
{
    (void)stream;
    return p->data_xfers;
}

/* The stream's own file (it writes), its block's transfers in -z's order,
 * wrapping with --runtime. */
static void rwmix_run(const struct pfs_phase_ctx *p, struct pfs_stream *s)
{
    const struct pfs_config *cfg = p->cfg;
    struct pfs_xfer_plan x = {
        .op = "read or write",
        .wr = 1,
        .mixed = 1,
        .fill = cfg->verify || pfs_config_content(cfg),
        .check = cfg->verify,
        .n = rwmix_work(p, s->id),
        .order = cfg->random ? PFS_ORDER_RANDOM : PFS_ORDER_SEQUENTIAL,
        .draws = p->nxfers,
        .wrap = cfg->runtime > 0 && p->nxfers > 0,
        .skew = 1,
        .sync_every = cfg->fsync_every > 0 ? (uint64_t)cfg->fsync_every : 0,
    };
    pfs_stream_xfer(p, s, &x);
}

/* Collective calls are one direction for every rank at once; the draws
 * differ per stream. */
static int rwmix_check(const struct pfs_config *cfg, char *err, size_t len)
{
    if (cfg->collective) {
        snprintf(err, len, "the rwmix phase and --collective both given; give one (each stream draws its own reads "
                 "and writes, and a collective read cannot meet a collective write)");
        return -1;
    }
    if (cfg->rmw) {
        snprintf(err, len, "the rwmix phase and --rmw both given; --rmw is the rewrite's (a read, a change and a "
                 "write back of each transfer); rwmix draws reads and writes, --rwmix PCT of them reads");
        return -1;
    }
    return 0;
}

static void rwmix_resolve(struct pfs_config *cfg, uint64_t streams)
{
    (void)streams;
    if (cfg->rwmix == 0 || cfg->rwmix == 100)
        pfs_config_warn(cfg, "--rwmix %d: the rwmix phase only %s; -p %s measures the same with its own name",
                        cfg->rwmix, cfg->rwmix ? "reads" : "writes", cfg->rwmix ? "read" : "rewrite");
}

const struct pfs_phase_ops pfs_ph_rwmix = {
    .name = "rwmix",
    .kind = PFS_PHASE_DATA,
    .flags = PFS_PHF_READS | PFS_PHF_WRITES | PFS_PHF_STONEWALL | PFS_PHF_SYNCS | PFS_PHF_MIXES,
    .unit = PFS_UNIT_BYTES,
    .needs = PFS_PH_WRITE,
    .op = "read or write",
    .help = "read and write the data files in place, each transfer a read or a write drawn from the run's seed "
            "(--rwmix PCT reads; fio's rwmixread)",
    .work = rwmix_work,
    .run = rwmix_run,
    .check = rwmix_check,
    .resolve = rwmix_resolve,
    .before = pfs_phase_drop_caches,
};
