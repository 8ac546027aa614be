/* The data phases over the block: write (which makes the data files),
 * rewrite, read, reread, rwmix. Each says what its transfers are (struct
 * pfs_xfer_plan) and the one transfer loop moves them
 * (src/core/stream_data.c); the untimed work before them (emptying the
 * shared file, --drop-caches) is theirs too. */
#define _GNU_SOURCE
#include "pfs/phase.h"

#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "pfs/config.h"
#include "pfs/offsetgen.h"
#include "pfs/safefile.h"
#include "pfs/stream.h"

#include "../config_table.h"
#include "../stream_data.h"
#include "phases.h"

/* A full block per stream. */
static uint64_t full_block(const struct pfs_phase_ctx *p, int stream)
{
    (void)stream;
    return p->nxfers;
}

/* What the files hold: the block, or under -D the count the write reached. */
static uint64_t written(const struct pfs_phase_ctx *p, int stream)
{
    (void)stream;
    return p->data_xfers;
}

/* What every phase over the block shares: its work, in the -z order, over
 * the whole block, wrapping around it with --runtime. */
static struct pfs_xfer_plan block_plan(const struct pfs_phase_ctx *p, const struct pfs_stream *s, int wr,
                                       const char *op)
{
    const struct pfs_config *cfg = p->cfg;
    return (struct pfs_xfer_plan){
        .op = op,
        .wr = wr,
        .n = pfs_phase_work(p, s->id),
        .order = cfg->random ? PFS_ORDER_RANDOM : PFS_ORDER_SEQUENTIAL,
        .draws = p->nxfers,
        .wrap = cfg->runtime > 0 && p->nxfers > 0,
    };
}

static uint64_t sync_every(const struct pfs_config *cfg)
{
    return cfg->fsync_every > 0 ? (uint64_t)cfg->fsync_every : 0;
}

static void write_run(const struct pfs_phase_ctx *p, struct pfs_stream *s)
{
    struct pfs_xfer_plan x = block_plan(p, s, 1, "write");
    x.creates = 1;
    x.fill = p->cfg->verify || pfs_config_content(p->cfg);
    x.sync_every = sync_every(p->cfg);
    pfs_stream_xfer(p, s, &x);
}

/* --rmw: bonnie++'s rewrite, each transfer read, changed and written back
 * (--verify checks the read and writes the pattern back unchanged). */
static void rewrite_run(const struct pfs_phase_ctx *p, struct pfs_stream *s)
{
    const struct pfs_config *cfg = p->cfg;
    struct pfs_xfer_plan x = block_plan(p, s, 1, "write");
    x.rmw = cfg->rmw;
    x.skew = 1;
    x.fill = (cfg->verify || pfs_config_content(cfg)) && !cfg->rmw;
    x.check = cfg->verify && cfg->rmw;
    x.sync_every = sync_every(cfg);
    pfs_stream_xfer(p, s, &x);
}

static void read_run(const struct pfs_phase_ctx *p, struct pfs_stream *s)
{
    struct pfs_xfer_plan x = block_plan(p, s, 0, "read");
    x.skew = 1;
    x.check = p->cfg->verify;
    pfs_stream_xfer(p, s, &x);
}

/* rwmix, fio's randrw/readwrite with rwmixread: each transfer of the
 * block a read or a write, drawn from the run's seed (exactly --rwmix
 * reads in each hundred; pfs/dist.h's mixes), on the stream's own file.
 * With --verify or a content the writes put back the bytes the write
 * wrote (the content depends on the offset only), so every read is
 * checked whatever came before it. Counted and timed per direction
 * besides together (the read and write latency kinds, the times' read_*
 * fields); async backends keep both directions in flight. */
static void rwmix_run(const struct pfs_phase_ctx *p, struct pfs_stream *s)
{
    struct pfs_xfer_plan x = block_plan(p, s, 1, "read or write");
    x.mixed = 1;
    x.skew = 1;
    x.fill = p->cfg->verify || pfs_config_content(p->cfg);
    x.check = p->cfg->verify;
    x.sync_every = sync_every(p->cfg);
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

/* The ramp leaves out the transfer that ends it: with one per stream
 * nothing is left, however fast or slow it goes. */
static int block_check(const struct pfs_config *cfg, char *err, size_t len)
{
    if (cfg->ramp > 0 && cfg->runtime <= 0 && cfg->block <= cfg->transfer) {
        snprintf(err, len, "--ramp %g with one transfer per stream (-b equals -t): the ramp leaves out the transfer "
                 "that ends it, so nothing would be left to measure; give -b several transfers or --runtime",
                 cfg->ramp);
        return -1;
    }
    return 0;
}

/* A write starts from an empty file (a file per stream is opened with
 * O_TRUNC): rank 0 empties the shared one through a descriptor of the
 * inode it made, never by path. */
static void write_before(struct pfs_phase_env *e)
{
    struct pfs_stream *s0 = e->nthreads > 0 ? &e->streams[0] : NULL;
    if (!e->cfg->shared || e->rank != 0 || !s0 || !s0->created || (e->be->caps & PFS_CAP_NOFILES))
        return;
    int fd = pfs_open_own_at(e->dir_fd, s0->path, O_WRONLY | O_TRUNC, 0, &s0->fid, NULL);
    char why[200];
    if (fd >= 0)
        close(fd);
    else if (pfs_safefile_why(fd, s0->path, why, sizeof(why)))
        pfs_phase_env_fail(e, "truncate", s0->path, 0, "%s", why);
    else
        pfs_phase_env_fail(e, "truncate", s0->path, -fd, NULL);
}

/* Before a read: push this rank's files out of the page cache; the lowest
 * rank of each node also drops the whole cache when it may (root). */
void pfs_phase_drop_caches(struct pfs_phase_env *e)
{
    if (!e->cfg->drop_caches)
        return;
    for (int i = 0; i < e->nthreads; i++) {
        /* Never through a link, never blocking on a FIFO: only the file to be read. */
        int fd = pfs_open_own_at(e->dir_fd, e->streams[i].rd_path, O_RDONLY, 0, &e->streams[i].rd_fid, NULL);
        if (fd >= 0) {
            fdatasync(fd);
            posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
            close(fd);
        }
        if (e->cfg->shared)
            break;
    }
    if (!e->lowest_on_node || geteuid() != 0)
        return;
    sync();
    int pfd = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);
    if (pfd < 0)
        return;
    e->dropped = write(pfd, "3\n", 2) == 2;
    close(pfd);
}

const struct pfs_phase_ops pfs_ph_write = {
    .name = "write",
    .iozone = "initial writers",
    .kind = PFS_PHASE_DATA,
    .flags = PFS_PHF_WRITES | PFS_PHF_CREATES | PFS_PHF_STONEWALL | PFS_PHF_WEARS_OUT | PFS_PHF_SETS_COUNT |
             PFS_PHF_SYNCS,
    .unit = PFS_UNIT_BYTES,
    .needs = -1,
    .op = "write",
    .help = "write the data files (creating them) in -t transfers of -b bytes per stream",
    .work = full_block,
    .run = write_run,
    .check = block_check,
    .before = write_before,
};

const struct pfs_phase_ops pfs_ph_rewrite = {
    .name = "rewrite",
    .iozone = "rewriters",
    .kind = PFS_PHASE_DATA,
    .flags = PFS_PHF_WRITES | PFS_PHF_STONEWALL | PFS_PHF_WEARS_OUT | PFS_PHF_RMW | PFS_PHF_SYNCS,
    .unit = PFS_UNIT_BYTES,
    .needs = PFS_PH_WRITE,
    .op = "write",
    .help = "write the existing data files again",
    .work = written,
    .run = rewrite_run,
    .check = block_check,
};

const struct pfs_phase_ops pfs_ph_read = {
    .name = "read",
    .iozone = "readers",
    .kind = PFS_PHASE_DATA,
    .flags = PFS_PHF_READS | PFS_PHF_OTHERS | PFS_PHF_STONEWALL | PFS_PHF_WEARS_OUT,
    .unit = PFS_UNIT_BYTES,
    .needs = PFS_PH_WRITE,
    .op = "read",
    .help = "read the data files",
    .work = written,
    .run = read_run,
    .check = block_check,
    .before = pfs_phase_drop_caches,
};

const struct pfs_phase_ops pfs_ph_reread = {
    .name = "reread",
    .iozone = "re-readers",
    .kind = PFS_PHASE_DATA,
    .flags = PFS_PHF_READS | PFS_PHF_OTHERS | PFS_PHF_STONEWALL | PFS_PHF_WEARS_OUT,
    .unit = PFS_UNIT_BYTES,
    .needs = PFS_PH_WRITE,
    .op = "read",
    .help = "read the data files again",
    .work = written,
    .run = read_run,
    .check = block_check,
    .before = pfs_phase_drop_caches,
};

const struct pfs_phase_ops pfs_ph_rwmix = {
    .name = "rwmix",
    .kind = PFS_PHASE_DATA,
    .flags = PFS_PHF_READS | PFS_PHF_WRITES | PFS_PHF_STONEWALL | PFS_PHF_SYNCS | PFS_PHF_MIXES,
    .unit = PFS_UNIT_BYTES,
    .needs = PFS_PH_WRITE,
    .op = "read or write",
    .help = "read and write the data files in place, each transfer a read or a write drawn from the run's seed "
            "(--rwmix PCT reads; fio's rwmixread)",
    .work = written,
    .run = rwmix_run,
    .check = rwmix_check,
    .resolve = rwmix_resolve,
    .before = pfs_phase_drop_caches,
};
