/* Rank 0's warnings after a phase's repetition (record.c calls them once
 * it has the repetition's figures): each goes into the run's warnings and,
 * unless -q, on the report's stream ("warning      ..."). */
#include "driver.h"

#include <stdio.h>

#include "pfs/report_cache.h"
#include "pfs/report_rate.h"

static void say(struct ctx *c, const char *w)
{
    pfs_run_warn(c->rec.d, "%s", w);
    if (!c->cfg.quiet)
        fprintf(c->cfg.format == PFS_FORMAT_TEXT ? drv_record_out(c) : stderr, "warning      %s\n", w);
}

/* Rank 0, after a phase's repetition: the page cache, measured (the
 * figures' verdict, worded by report_cache.c): once per phase, at the first
 * repetition that calls for it. Where the probe could measure nothing, the
 * PixStor and bonnie++ size rule stands in: data under twice the memory of
 * a node can be served from its page cache. */
static void cache_warn(struct ctx *c, int p, int rep)
{
    const struct pfs_config *cfg = &c->cfg;
    const struct drv_topo *t = &c->topo;
    struct pfs_run_data *d = c->rec.d;
    char w[PFS_WARNLEN];
    const int first = d->fig.phase ? d->fig.phase[p].cache_first : -1;
    if (first >= 0 && first < rep)
        return;
    if (!pfs_report_cache_warning(d, p, rep, w, sizeof(w))) {
        double data = 0, nodemem = 0;
        if (!pfs_report_cache_unknown(d, p, rep) || t->reorder_away || cfg->drop_caches)
            return;
        const int n = pfs_placement_cache_node(t->node_of_rank, t->nranks, t->nnodes, (double)cfg->block * c->threads,
                                               t->mems, &data, &nodemem);
        if (n == -1)
            return;
        if (n < 0)
            snprintf(w, sizeof(w), "%s %d: the page cache could not be measured here (neither cachestat nor "
                     "mincore), and there was no memory to apply the size rule to the nodes: its reads may be "
                     "served from it; use --direct, --drop-caches or -C across nodes", pfs_phase_name(cfg->phases[p]),
                     rep);
        else
            snprintf(w, sizeof(w), "%s %d: the page cache could not be measured here (neither cachestat nor "
                     "mincore), and its reads may be served from it: %.0f MiB per node is less than twice the "
                     "node's %.0f MiB of memory; use --direct, --drop-caches or -C across nodes",
                     pfs_phase_name(cfg->phases[p]), rep, data / PFS_MIB, nodemem / PFS_MIB);
    }
    say(c, w);
}

/* Rank 0, after a paced repetition (--rate): its achieved rate fell more
 * than 2% short of the offered. */
static void rate_warn(struct ctx *c, int p, int rep)
{
    char w[PFS_WARNLEN];
    if (pfs_report_rate_warning(c->rec.d, p, rep, w, sizeof(w)))
        say(c, w);
}

void drv_record_warn_phase(struct ctx *c, int p, int rep)
{
    cache_warn(c, p, rep);
    rate_warn(c, p, rep);
}
