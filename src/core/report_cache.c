/* The page cache in the report (pfs/report_cache.h): every figure is the
 * run's (pfs/figures.h: pfs_pc_reduce over the streams' pfs_times, once per
 * phase and repetition, and the nodes' shares); each output formats it. */
#include "pfs/report_cache.h"
#include "report_int.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "pfs/pagecache.h"

static const char *host_of(const struct pfs_run_data *d, int node)
{
    const char *h = pfs_report_node_host(d, node, 0);
    return h ? h : "?";
}

/* A figure's resident part (before a read) or dirty part (after a write):
 * how it was had, whether it was measured, the bytes probed and found. */
struct part {
    unsigned methods;
    int have;
    uint64_t whole, found;
};

static struct part part_of(const struct pfs_pc_fig *f, int dirty)
{
    if (dirty)
        return (struct part){f->dirty_methods, pfs_pc_has_dirty(f), f->dirty_bytes, f->dirty};
    return (struct part){f->methods, pfs_pc_has_resident(f), f->bytes, f->resident};
}

/* ---- text ---- */

static void text_line(FILE *out, const struct pfs_run_data *d, const struct pfs_rep_figs *r, int dirty)
{
    const struct part pt = part_of(&r->cache, dirty);
    const struct pfs_cache_side *side = dirty ? &r->dirty : &r->resident;
    const double x = pfs_pc_fraction(pt.found, pt.whole);
    if (!(x >= PFS_PC_SHOW_FRACTION))
        return;
    char how[64];
    pfs_pc_methods_name(pt.methods, how, sizeof(how));
    fprintf(out, "%-10s %4s page cache: %.1f%% of %.1f MiB %s (%s", "", "", 100.0 * x, (double)pt.whole / PFS_MIB,
            dirty ? "still dirty at the close" : "resident before the read", how);
    if (!dirty && pfs_pc_memory_fs(d->fstype))
        fprintf(out, "; %s: the files live in memory", d->fstype);
    const double hi = side->top_share, lo = side->low_share;
    const int top = side->top, low = side->low;
    if (d->nnodes > 1 && top >= 0 && low >= 0 && lo == hi)
        fprintf(out, "; %.1f%% on every node", 100.0 * hi);
    else if (d->nnodes > 1 && top >= 0 && low >= 0)
        fprintf(out, "; node %d %.1f%% .. node %d %.1f%%", low, 100.0 * lo, top, 100.0 * hi);
    fputs(")\n", out);
}

void pfs_report_cache_row(FILE *out, const struct pfs_run_data *d, int phase, int rep)
{
    const struct pfs_rep_figs *r = pfs_figs_rep(&d->fig, phase, rep);
    if (!r)
        return;
    if (pfs_pc_has_resident(&r->cache))
        text_line(out, d, r, 0);
    if (pfs_pc_has_dirty(&r->cache))
        text_line(out, d, r, 1);
}

/* ---- JSON ---- */

static void json_frac(FILE *out, double x)
{
    if (isfinite(x))
        fprintf(out, "%.6g", x);
    else
        fputs("null", out);
}

/* A figure measured (bytes, part) or null (not measured). */
static void json_fig(FILE *out, const char *key, int have, uint64_t v)
{
    fprintf(out, ", \"%s\": ", key);
    if (have)
        fprintf(out, "%llu", (unsigned long long)v);
    else
        fputs("null", out);
}

static void json_methods(FILE *out, const char *key, unsigned m)
{
    char how[64];
    pfs_pc_methods_name(m, how, sizeof(how));
    fprintf(out, "\"%s\": ", key);
    if (how[0])
        fprintf(out, "\"%s\"", how); /* the method names are plain words */
    else
        fputs("null", out);
}

/* The JSON keys of each part: its method, bytes probed, bytes found and
 * their fraction. */
static const char *const json_keys[2][4] = {
    {"method", "bytes", "resident_bytes", "resident_fraction"},
    {"dirty_method", "dirty_probed_bytes", "dirty_bytes", "dirty_fraction"},
};

void pfs_report_cache_json(FILE *out, const struct pfs_run_data *d, int phase, int rep)
{
    const struct pfs_rep_figs *r = pfs_figs_rep(&d->fig, phase, rep);
    fputs(", \"page_cache\": ", out);
    if (!r || (!r->cache.methods && !r->cache.dirty_methods)) {
        fputs("null", out);
        return;
    }
    for (int dirty = 0; dirty < 2; dirty++) {
        const struct part pt = part_of(&r->cache, dirty);
        const char *const *k = json_keys[dirty];
        fputs(dirty ? ", " : "{", out);
        json_methods(out, k[0], pt.methods);
        json_fig(out, k[1], pt.have, pt.whole);
        json_fig(out, k[2], pt.have, pt.found);
        fprintf(out, ", \"%s\": ", k[3]);
        json_frac(out, pt.have ? pfs_pc_fraction(pt.found, pt.whole) : NAN);
    }
    fputs(", \"nodes\": [", out);
    for (int n = 0; n < d->nnodes; n++) {
        fprintf(out, "%s{\"node\": %d", n ? ", " : "", n);
        for (int dirty = 0; dirty < 2; dirty++) {
            const struct part pt = part_of(&r->node_cache[n], dirty);
            json_fig(out, json_keys[dirty][1], pt.have, pt.whole);
            json_fig(out, json_keys[dirty][2], pt.have, pt.found);
        }
        fputc('}', out);
    }
    fputs("]}", out);
}

/* ---- CSV ---- */

void pfs_report_cache_csv_head(FILE *out)
{
    fputs(",cache_method,cache_bytes,cache_resident_bytes,cache_resident_fraction,cache_dirty_method,"
          "cache_dirty_probed_bytes,cache_dirty_bytes,cache_dirty_fraction", out);
}

void pfs_report_cache_csv(FILE *out, const struct pfs_run_data *d, int phase, int rep)
{
    const struct pfs_rep_figs *r = pfs_figs_rep(&d->fig, phase, rep);
    if (!r) {
        fputs(",,,,,,,,", out);
        return;
    }
    for (int dirty = 0; dirty < 2; dirty++) {
        const struct part pt = part_of(&r->cache, dirty);
        char how[64];
        pfs_pc_methods_name(pt.methods, how, sizeof(how));
        fprintf(out, ",%s,", how);
        if (pt.have)
            fprintf(out, "%llu,%llu,%.6g", (unsigned long long)pt.whole, (unsigned long long)pt.found,
                    pt.whole ? pfs_pc_fraction(pt.found, pt.whole) : 0.0);
        else
            fputs(",,", out);
    }
}

/* ---- the warning ---- */

/* The options that would take the page cache out of a read, less those in use. */
static void remedies(const struct pfs_config *cfg, char *buf, size_t len)
{
    const char *o[3] = {cfg->direct ? NULL : "--direct", cfg->drop_caches ? NULL : "--drop-caches",
                        cfg->reorder ? NULL : "-C across nodes"};
    size_t k = 0, n = 0, left = 0;
    for (int i = 0; i < 3; i++)
        left += o[i] != NULL;
    buf[0] = '\0';
    for (int i = 0; i < 3 && k < len; i++) {
        if (!o[i])
            continue;
        n++;
        k += (size_t)snprintf(buf + k, len - k, "%s%s", n == 1 ? "" : n == left ? " or " : ", ", o[i]);
    }
}

int pfs_report_cache_warning(const struct pfs_run_data *d, int phase, int rep, char *buf, size_t len)
{
    const struct pfs_config *cfg = d->cfg;
    const char *name = pfs_phase_name(cfg->phases[phase]);
    const struct pfs_rep_figs *r = pfs_figs_rep(&d->fig, phase, rep);
    if (len == 0 || !r || r->cache_call == PFS_CACHE_QUIET)
        return 0;
    if (r->cache_call == PFS_CACHE_MEMFS) {
        snprintf(buf, len, "%s %d: %s is %s, a file system in memory: every byte read comes from memory (%.0f%% "
                 "resident), and --direct or --drop-caches cannot change that; give a directory on the storage to "
                 "measure it", name, rep, cfg->dir, d->fstype, 100.0 * pfs_pc_fraction(r->cache.resident, r->cache.bytes));
    } else if (r->cache_call == PFS_CACHE_RESIDENT) {
        const struct pfs_cache_side *s = &r->resident;
        char more[64] = "", fix[96], how[64];
        if (s->above_warn > 1)
            snprintf(more, sizeof(more), ", and %d of %d nodes had %.0f%% or more", s->above_warn, d->nnodes,
                     100.0 * PFS_PC_WARN_FRACTION);
        remedies(cfg, fix, sizeof(fix));
        pfs_pc_methods_name(r->cache.methods, how, sizeof(how));
        snprintf(buf, len, "%s %d: %.0f%% of the bytes were in node %d's page cache before the phase (host %s, "
                 "%s)%s%s%s", name, rep, 100.0 * s->top_share, s->top, host_of(d, s->top), how, more,
                 fix[0] ? "; use " : "", fix);
    } else {
        snprintf(buf, len, "%s %d: %.0f%% of the bytes written were still dirty in node %d's page cache at the "
                 "close (host %s): the figure includes memory's speed; add -e (fsync at close), --direct or --sync",
                 name, rep, 100.0 * r->dirty.top_share, r->dirty.top, host_of(d, r->dirty.top));
    }
    return 1;
}

int pfs_report_cache_unknown(const struct pfs_run_data *d, int phase, int rep)
{
    const struct pfs_rep_figs *r = pfs_figs_rep(&d->fig, phase, rep);
    return r && r->cache_unknown;
}
