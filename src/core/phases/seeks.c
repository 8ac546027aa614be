/* The seeks phase, bonnie++'s random seeks: --seeks seeks over all
 * streams, each a read of one transfer at a uniformly drawn place in the
 * stream's data, every 10th (by its number) changed and written back in
 * place; the figure bonnie++ gives is seeks/s. Through the one transfer
 * loop (src/core/stream_data.c), one seek at a time. */
#define _GNU_SOURCE
#include "pfs/phase.h"

#include <stdio.h>

#include "pfs/config.h"
#include "pfs/offsetgen.h"
#include "pfs/stream.h"

#include "../config_table.h"
#include "../stream_data.h"
#include "phases.h"

/* Stream `stream`'s share of --seeks over the run's streams: the first
 * --seeks mod nstreams do one more, as bonnie++'s seekers share its tickets. */
static uint64_t seeks_work(const struct pfs_phase_ctx *p, int stream)
{
    const uint64_t n = p->cfg->seeks > 0 ? (uint64_t)p->cfg->seeks : 0;
    const uint64_t k = p->nstreams > 0 ? (uint64_t)p->nstreams : 1;
    return n / k + (stream >= 0 && (uint64_t)stream < n % k);
}

/* Its own file (it writes back), its own offsets' sequence, drawn among
 * the transfers the file holds; never wrapping (a draw has no end). */
static void seeks_run(const struct pfs_phase_ctx *p, struct pfs_stream *s)
{
    struct pfs_xfer_plan x = {
        .op = "seek",
        .wr = 1,
        .seeks = 1,
        .check = p->cfg->verify,
        .n = seeks_work(p, s->id),
        .order = PFS_ORDER_UNIFORM,
        .draws = p->data_xfers,
        .salt = 0x5eec5,
        .skew = 1,
    };
    pfs_stream_xfer(p, s, &x);
}

static int seeks_check(const struct pfs_config *cfg, char *err, size_t len)
{
    if (cfg->collective) {
        snprintf(err, len, "the seeks phase and --collective both given; give one (streams do different seek "
                 "counts and write back at different seeks, which collective calls cannot follow)");
        return -1;
    }
    return 0;
}

/* --seeks is its option; --iodepth is no use to it (a seek at a time). */
static void seeks_warn(struct pfs_config *cfg, const unsigned char *given, int listed)
{
    if (!listed && pfs_opt_given(given, "seeks"))
        pfs_config_warn(cfg, "--seeks does nothing without a seeks phase in -p");
    if (listed && cfg->runtime > 0 && pfs_opt_given(given, "seeks"))
        pfs_config_warn(cfg, "--seeks does nothing with --runtime: the seeks phase seeks for --runtime seconds");
    int queued = 0; /* another data phase, where --iodepth applies */
    for (int i = 0; i < cfg->nphases; i++)
        queued |= !pfs_phase_is_meta(cfg->phases[i]) && pfs_phase_desc(cfg->phases[i]) != &pfs_ph_seeks;
    if (listed && !queued && cfg->iodepth > 1)
        pfs_config_warn(cfg, "--iodepth %d does nothing in the seeks phase: each seek is a read (and every 10th a "
                        "write) in turn, as bonnie++'s", cfg->iodepth);
}

static void seeks_resolve(struct pfs_config *cfg, uint64_t streams)
{
    if ((uint64_t)cfg->seeks < streams && cfg->runtime <= 0)
        pfs_config_warn(cfg, "--seeks %d over %llu streams: %llu of them do no seek (they still open and close "
                        "the file in the timed phase); give --seeks %llu or more", cfg->seeks,
                        (unsigned long long)streams, (unsigned long long)(streams - (uint64_t)cfg->seeks),
                        (unsigned long long)streams);
}

const struct pfs_phase_ops pfs_ph_seeks = {
    .name = "seeks",
    .kind = PFS_PHASE_DATA,
    .flags = PFS_PHF_READS | PFS_PHF_WRITES | PFS_PHF_STONEWALL,
    .unit = PFS_UNIT_SEEKS,
    .needs = PFS_PH_WRITE,
    .op = "seek",
    .help = "--seeks random reads of one transfer each in the stream's data, every 10th written back in "
            "place (bonnie++'s random seeks)",
    .work = seeks_work,
    .run = seeks_run,
    .check = seeks_check,
    .warn = seeks_warn,
    .resolve = seeks_resolve,
    .before = pfs_phase_drop_caches,
};
