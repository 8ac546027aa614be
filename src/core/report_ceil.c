/* The ceilings (--ceilings, pfs/ceiling.h) in the text and JSON reports:
 * each node's rates before the phases, and each data repetition's
 * bandwidth as a share of the clients' ceilings, the binding one named.
 * They compute nothing: the shares are the figures' (pfs/figures.h). */
#include "report_int.h"

#include <string.h>

#include "pfs/report_ceil.h"

static const char *binding_name(int k)
{
    return k == PFS_CEIL_MEMORY ? "memory" : k == PFS_CEIL_NETWORK ? "network" : "none";
}

void pfs_report_ceilings(FILE *out, const struct pfs_run_data *d)
{
    const struct pfs_ceilings *c = d->ceil;
    if (!c || c->nnodes < 1)
        return;
    const double sc = pfs_units_scale(d->cfg->units);
    const char *u = pfs_units_label(d->cfg->units);
    char h[4 * PFS_CEIL_HOST + 8];
    if (c->nnodes == 1) {
        fprintf(out, "ceilings     memory %.2f %s (memcpy, all cores of %s; one core %.2f), no network between "
                "clients (one node)\n", c->memory / sc, u, pfs_report_text_of(c->node[0].host, h, sizeof(h)),
                c->node[0].memcpy_one / sc);
        return;
    }
    fprintf(out, "ceilings     memory %.2f %s (memcpy, all cores), network %.2f %s (each node sending to the next "
            "while receiving from the previous), summed over %d nodes\n", c->memory / sc, u, c->network / sc, u,
            c->nnodes);
    for (int n = 0; d->cfg->verbose && n < c->nnodes; n++) {
        const struct pfs_ceiling_node *e = &c->node[n];
        fprintf(out, "ceilings     node %d %s: memcpy one core %.2f, all cores %.2f, network %.2f %s\n", n,
                pfs_report_text_of(e->host, h, sizeof(h)), e->memcpy_one / sc, e->memcpy_all / sc,
                e->network / sc, u);
    }
}

/* "N% of the clients' memory ceiling (binding), M% of their network
 * ceiling" or "..., network: one node". */
static void shares(FILE *out, double mem, double net, int binding)
{
    fprintf(out, "%.1f%% of the clients' memory ceiling%s, ", mem, binding == PFS_CEIL_MEMORY ? " (binding)" : "");
    if (isfinite(net))
        fprintf(out, "%.1f%% of their network ceiling%s\n", net, binding == PFS_CEIL_NETWORK ? " (binding)" : "");
    else
        fprintf(out, "network: one node\n");
}

void pfs_report_ceiling_row(FILE *out, const struct pfs_run_data *d, int phase, int rep)
{
    const struct pfs_rep_figs *r = pfs_figs_rep(&d->fig, phase, rep);
    if (!r || !d->ceil || r->ceil_binding == PFS_CEIL_NONE)
        return;
    fprintf(out, "%-10s %4d ceilings: %.2f %s is ", pfs_phase_name(d->cfg->phases[phase]), rep,
            r->s.bandwidth / pfs_units_scale(d->cfg->units), pfs_units_label(d->cfg->units));
    shares(out, r->ceil_mem_pct, r->ceil_net_pct, r->ceil_binding);
}

void pfs_report_ceiling_summary(FILE *out, const struct pfs_run_data *d, int phase)
{
    const struct pfs_phase_figs *pf = d->fig.phase ? &d->fig.phase[phase] : NULL;
    if (!pf || !d->ceil || pf->ceil_binding == PFS_CEIL_NONE)
        return;
    fprintf(out, "%-10s ceilings: the mean at ", "");
    shares(out, pf->ceil_mem_pct, pf->ceil_net_pct, pf->ceil_binding);
}

void pfs_report_ceilings_json(FILE *out, const struct pfs_run_data *d)
{
    const struct pfs_ceilings *c = d->ceil;
    fputs(",\n  \"ceilings\": ", out);
    if (!c) {
        fputs("null", out);
        return;
    }
    fputs("{\"memory_bytes_per_s\": ", out);
    pfs_report_json_num(out, c->memory);
    fputs(", \"network_bytes_per_s\": ", out);
    pfs_report_json_num(out, c->network); /* null: one node */
    fputs(", \"nodes\": [", out);
    for (int n = 0; n < c->nnodes; n++) {
        const struct pfs_ceiling_node *e = &c->node[n];
        fprintf(out, "%s{\"node\": %d, \"host\": ", n ? ", " : "", n);
        pfs_escape_write(out, PFS_ESC_JSON, e->host, strnlen(e->host, sizeof(e->host)));
        fputs(", \"memcpy_one_core_bytes_per_s\": ", out);
        pfs_report_json_num(out, e->memcpy_one);
        fputs(", \"memcpy_all_cores_bytes_per_s\": ", out);
        pfs_report_json_num(out, e->memcpy_all);
        fputs(", \"network_bytes_per_s\": ", out);
        pfs_report_json_num(out, e->network);
        fputc('}', out);
    }
    fputs("]}", out);
}

void pfs_report_ceiling_rep_json(FILE *out, const struct pfs_run_data *d, const struct pfs_rep_figs *r)
{
    if (!d->ceil || r->ceil_binding == PFS_CEIL_NONE)
        return;
    fputs(", \"memory_ceiling_percent\": ", out);
    pfs_report_json_num(out, r->ceil_mem_pct);
    fputs(", \"network_ceiling_percent\": ", out);
    pfs_report_json_num(out, r->ceil_net_pct);
    fprintf(out, ", \"binding_ceiling\": \"%s\"", binding_name(r->ceil_binding));
}

void pfs_report_ceiling_phase_json(FILE *out, const struct pfs_run_data *d, const struct pfs_phase_figs *pf)
{
    if (!d->ceil || pf->ceil_binding == PFS_CEIL_NONE)
        return;
    fputs(", \"memory_ceiling_percent\": ", out);
    pfs_report_json_num(out, pf->ceil_mem_pct);
    fputs(", \"network_ceiling_percent\": ", out);
    pfs_report_json_num(out, pf->ceil_net_pct);
    fprintf(out, ", \"binding_ceiling\": \"%s\"", binding_name(pf->ceil_binding));
}
