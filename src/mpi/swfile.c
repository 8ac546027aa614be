/* --stonewall-file (IOR's stoneWallingStatusFile, pfs/swfile.h) around a
 * run: refused or read before anything is made, shared with every rank
 * before the first phase, recorded by rank 0 after the last. */
#include "driver.h"

#include "pfs/phase.h"
#include "pfs/swfile.h"

/* Local, rank 0, before anything is made: a run that writes finds no
 * status file there; a read-only run reads its count, at most a block's
 * transfers, into c->sw_file_xfers (which the --file-name check after
 * this one uses). */
int drv_swfile_check(struct ctx *c, char *err, size_t len)
{
    const struct pfs_config *cfg = &c->cfg;
    if (!cfg->stonewall_file[0])
        return 0;
    if (pfs_phase_listed(cfg, PFS_PHASE_DATA, PFS_PHF_CREATES, 0))
        return pfs_swfile_absent(cfg->stonewall_file, err, len);
    uint64_t n = 0;
    if (pfs_swfile_read(cfg->stonewall_file, &n, err, len) != 0)
        return -1;
    const uint64_t most = cfg->block / cfg->transfer;
    if (n > most)
        return pfs_fail(err, len, "--stonewall-file %s: %llu transfers per stream, more than a block holds (-b %llu "
                        "/ -t %llu = %llu); give the -b and -t of the write that recorded it", cfg->stonewall_file,
                        (unsigned long long)n, (unsigned long long)cfg->block, (unsigned long long)cfg->transfer,
                        (unsigned long long)most);
    c->sw_file_xfers = n;
    return 0;
}

/* Collective, before the first phase: every rank reads the status file's
 * count of transfers per stream, and the files hold that many. */
void drv_swfile_share(struct ctx *c)
{
    if (!c->cfg.stonewall_file[0])
        return;
    MPI_Bcast(&c->sw_file_xfers, 1, MPI_UINT64_T, 0, c->comm);
    if (c->sw_file_xfers > 0)
        c->data_xfers = c->nxfers = c->sw_file_xfers;
}

/* Collective, after the phases of a run that wrote: rank 0 records the
 * transfers each stream wrote (after -D's wear-out, the count they all
 * reached). Returns 1 when it failed (reported), else failed. */
int drv_swfile_record(struct ctx *c, int failed)
{
    if (failed || !c->cfg.stonewall_file[0] || !c->writes)
        return failed;
    if (c->rank == 0) {
        char err[PFS_ERRLEN];
        if (pfs_swfile_write(c->cfg.stonewall_file, c->data_xfers, err, sizeof(err)) != 0)
            drv_set_fail(c, "record the stonewall", c->cfg.stonewall_file, 0, "%s", err);
    }
    failed = drv_agree(c);
    if (failed)
        drv_report_failures(c);
    return failed;
}
