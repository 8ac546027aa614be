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
    if (!c)
        return;
    const double sc = pfs_units_scale(d->cfg->units);
    const char *u = pfs_units_label(d->cfg->units);
    char h[4 * PFS_CEIL_HOST + 8];
    fprintf(out, "ceilings   (untimed, before the phases; the clients' = the sum over their %d node%s)\n", c->nnodes,
            c->nnodes == 1 ? "" : "s");
    fprintf(out, "ceilings   memory %.2f %s (memcpy, all cores of every node)", c->memory / sc, u);
    if (c->nnodes > 1)
        fprintf(out, ", network %.2f %s (every node sending to the next and receiving from the previous)\n",
                c->network / sc, u);
    else
        fprintf(out, ", no network between clients (one node)\n");
    for (int n = 0; n < c->nnodes; n++) {
        const struct pfs_ceiling_node *e = &c->node[n];
        fprintf(out, "ceilings   node %d %s: memcpy one core %.2f, all cores %.2f", n,
                pfs_report_text_of(e->host, h, sizeof(h)), e->memcpy_one / sc, e->memcpy_all / sc);
        if (c->nnodes > 1)
            fprintf(out, ", network %.2f", e->network / sc);
        fprintf(out, " %s\n", u);
    }
}

void pfs_report_ceiling_row(FILE *out, const struct pfs_run_data *d, int phase, int rep)
{
    const struct pfs_rep_figs *r = pfs_figs_rep(&d->fig, phase, rep);
    if (!r || !d->ceil || r->ceil_binding == PFS_CEIL_NONE)
        return;
    const char *mb = r->ceil_binding == PFS_CEIL_MEMORY ? " (binding)" : "";
    const char *nb = r->ceil_binding == PFS_CEIL_NETWORK ? " (binding)" : "";
    fprintf(out, "%-10s %4d ceilings: %.2f %s is %.1f%% of the clients' memory ceiling%s, ",
            pfs_phase_name(d->cfg->phases[phase]), rep, r->s.bandwidth / pfs_units_scale(d->cfg->units),
            pfs_units_label(d->cfg->units), r->ceil_mem_pct, mb);
    if (isfinite(r->ceil_net_pct))
        fprintf(out, "%.1f%% of their network ceiling%s\n", r->ceil_net_pct, nb);
    else
        fprintf(out, "network: one node\n");
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
