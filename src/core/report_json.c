/* The JSON report (--format json): the whole run as one document, every
 * figure from the run's figures (d->fig). */
#include "report_int.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pfs/report_cache.h"
#include "pfs/report_ceil.h"
#include "pfs/report_mix.h"
#include "pfs/report_rate.h"
#include "report_lat.h"

static void json_str(FILE *out, const char *s)
{
    pfs_escape_write(out, PFS_ESC_JSON, s, SIZE_MAX);
}

/* A string that is absent (NULL: not a job, not a concurrent group) is null. */
static void json_str_or_null(FILE *out, const char *s)
{
    if (s)
        json_str(out, s);
    else
        fputs("null", out);
}

/* A figure that is absent when it is 0 (a size not given, a block size not known) is null. */
static void json_u64_or_null(FILE *out, uint64_t v)
{
    if (v)
        fprintf(out, "%llu", (unsigned long long)v);
    else
        fputs("null", out);
}

/* The configuration object: every option describe writes, typed as its table row says. */
struct json_cfg {
    FILE *out;
    int n;
};

static int json_field_sep(void *arg, const struct pfs_field *f)
{
    struct json_cfg *j = arg;
    fputs(j->n++ ? ",\n    " : "\n    ", j->out);
    json_str(j->out, f->key);
    fputs(": ", j->out);
    switch (f->type) {
    case PFS_FIELD_INT:
        fprintf(j->out, "%lld", f->i);
        break;
    case PFS_FIELD_U64:
        fprintf(j->out, "%llu", (unsigned long long)f->u);
        break;
    case PFS_FIELD_DBL:
        pfs_report_json_num(j->out, f->d);
        break;
    default:
        json_str(j->out, f->s);
    }
    return 0;
}

/* A phase's statistics over its measured repetitions (in the report's
 * unit) and the 95% interval of the mean (null for one). */
static void json_phase_summary(FILE *out, const struct pfs_run_data *d, int p, const struct pfs_phase_figs *pf)
{
    const int meta = pf->meta, n = pf->ci.measured;
    const double scale = meta ? 1.0 : pfs_units_scale(d->cfg->units);
    const struct pfs_stats *st = &pf->shown;
    const struct pfs_phase_ci *pc = &pf->ci;
    fprintf(out, ",\n     \"summary\": {\"unit\": ");
    json_str(out, !meta ? pfs_units_label(d->cfg->units) : pfs_phase_rate_unit(d->cfg->phases[p]));
    fprintf(out, ", \"reps\": %d, \"warmup\": %d", pc->measured, pc->warmup);
    const double sv[] = {st->min, st->max, st->mean, st->median, n > 1 ? st->stddev : NAN, /* one: null */
                         pc->ci.half / scale, pc->ci.pct};
    const char *sk[] = {"min", "max", "mean", "median", "stddev", "ci95_half_width", "ci95_percent"};
    for (int i = 0; i < 7; i++) {
        fprintf(out, ", \"%s\": ", sk[i]);
        pfs_report_json_num(out, sv[i]);
    }
    fprintf(out, ", \"target_met\": %s", pc->target < 0 ? "null" : pc->target ? "true" : "false");
    pfs_report_ceiling_phase_json(out, d, pf);
    fputc('}', out);
}

/* One repetition's object: its figures, latency, nodes and page cache. */
static void json_rep(FILE *out, const struct pfs_run_data *d, int p, int rep, const struct pfs_rep_figs *r)
{
    const struct pfs_config *c = d->cfg;
    const double scale = pfs_units_scale(c->units);
    fprintf(out, "%s\n      {\"rep\": %d, \"warmup\": %s", rep ? "," : "", rep, r->warmup ? "true" : "false");
    const struct pfs_sch_table *t = pfs_schema_table("report"); /* the figures, as the schema names them */
    for (size_t i = 0; i < t->n; i++) {
        const struct pfs_sch_field *f = &t->field[i];
        if (!f->json)
            continue;
        fprintf(out, ", \"%s\": ", f->json);
        if (f->type == PFS_SCH_UINT64)
            fprintf(out, "%llu", (unsigned long long)pfs_report_u64(f, r));
        else
            pfs_report_json_num(out, pfs_report_f64(f, r, scale));
    }
    pfs_report_ceiling_rep_json(out, d, r);
    pfs_report_rate_json(out, r);
    pfs_report_mix_json(out, d, p, r);
    if (r->find_matched >= 0)
        fprintf(out, ", \"find_examined\": %llu, \"find_matched\": %lld", (unsigned long long)r->s.ops,
                r->find_matched);
    pfs_report_lat_json(out, d, p, rep);
    pfs_report_exemplars_json(out, d, p, rep);
    pfs_report_targets_json(out, d, p, rep);
    fprintf(out, ", \"nodes\": [");
    for (int n = 0; n < d->nnodes; n++) {
        fprintf(out, "%s{\"node\": %d, \"host\": ", n ? ", " : "", n);
        json_str(out, pfs_report_node_host(d, n, 1));
        fprintf(out, pfs_phase_is_meta(c->phases[p]) ? ", \"ops_per_s\": " : ", \"bandwidth_bytes_per_s\": ");
        pfs_report_json_num(out, r->node_value[n]);
        fprintf(out, ", \"straggler\": %s}", r->node_straggler[n] ? "true" : "false");
    }
    fputc(']', out);
    pfs_report_cache_json(out, d, p, rep);
    fputc('}', out);
}

/* A section of an interference group: its round, and on the together run
 * the group's figures (null where there is no ratio); null otherwise. */
static void json_interference(FILE *out, const struct pfs_run_data *d)
{
    fputs(",\n  \"interference\": ", out);
    if (!d->ifr_mode) {
        fputs("null", out);
        return;
    }
    const int tog = strcmp(d->ifr_mode, "together") == 0;
    fputs("{\"round\": ", out);
    json_str(out, d->ifr_mode);
    if (tog) {
        static const char *const verdict[] = {"unknown", "fail", "pass"};
        const int has_qos = d->ifr_qos && d->ifr_qos[0];
        fputs(", \"jain\": ", out);
        pfs_report_json_num(out, d->ifr_jain);
        fprintf(out, ", \"jain_sections\": %d, \"qos\": ", d->ifr_jain_n);
        json_str_or_null(out, has_qos ? d->ifr_qos : NULL);
        fputs(", \"qos_result\": ", out);
        json_str_or_null(out, has_qos ? verdict[d->ifr_qos_pass + 1] : NULL);
        fputs(", \"qos_detail\": ", out);
        json_str_or_null(out, has_qos && d->ifr_qos_why[0] ? d->ifr_qos_why : NULL);
        fputs(", \"phases\": [", out);
        for (int p = 0; p < d->nphases && p < PFS_MAX_PHASES; p++) {
            fprintf(out, "%s{\"phase\": ", p ? ", " : "");
            json_str(out, pfs_phase_name(d->cfg->phases[p]));
            fputs(", \"bw_ratio\": ", out);
            pfs_report_json_num(out, d->ifr_bw_ratio[p]);
            fputs(", \"p99_ratio\": ", out);
            pfs_report_json_num(out, d->ifr_p99_ratio[p]);
            fputc('}', out);
        }
        fputc(']', out);
    }
    fputc('}', out);
}

void pfs_report_json(FILE *out, const struct pfs_run_data *d)
{
    const struct pfs_config *c = d->cfg;
    const double scale = pfs_units_scale(c->units);
    const struct {
        const char *key, *val;
    } head[] = {
        {"pfsbench", PFS_VERSION}, {"run_id", d->run_id}, {"status", d->status},   {"error", d->error},
        {"start_time", d->start_iso}, {"end_time", d->end_iso}, {"label", c->label}, {"dir", c->dir},
        {"fs_type", d->fstype}, {"fs_mount_type", d->fs.mount_type}, {"fs_source", d->fs.source},
        {"fs_mount_point", d->fs.mount_point}, {"fs_options", d->fs.options}, {"fs_layout", d->fs.layout},
        {"command_line", d->cmdline}, {"clock", d->clock},
    };
    for (size_t i = 0; i < sizeof(head) / sizeof(head[0]); i++) {
        fprintf(out, "%s\n  \"%s\": ", i ? "," : "{", head[i].key);
        json_str(out, head[i].val);
    }
    fputs(",\n  \"fs_block_size\": ", out);
    json_u64_or_null(out, d->fs.block_size);
    const struct {
        const char *key, *val;
    } job[] = {
        {"job_file", d->job_path}, {"job_section", d->job_section}, {"job_text", d->job_text},
        {"concurrent_group", d->conc_tag}, {"concurrent_sections", d->conc_tag ? d->conc_sections : NULL},
    };
    for (size_t i = 0; i < sizeof(job) / sizeof(job[0]); i++) {
        fprintf(out, ",\n  \"%s\": ", job[i].key);
        json_str_or_null(out, job[i].val);
    }
    json_interference(out, d);
    fputs(",\n  \"config\": {", out);
    struct json_cfg jc = {out, 0};
    pfs_config_fields(c, json_field_sep, &jc);
    fputs("\n  }", out);
    fprintf(out, ",\n  \"ranks\": %d,\n  \"nodes\": %d,\n  \"threads\": %d,\n  \"streams\": %d,\n", d->nranks,
            d->nnodes, pfs_report_threads(d), pfs_run_nstreams(d));
    fprintf(out, "  \"transfer\": %llu,\n  \"block\": %llu,\n  \"total\": ", (unsigned long long)c->transfer,
            (unsigned long long)c->block);
    json_u64_or_null(out, c->total); /* null: --total not given */
    fputs(",\n  \"kept_transfers\": ", out); /* what each stream's kept file holds (pfsbench.ID.kept); null: none */
    json_u64_or_null(out, d->kept ? d->kept_xfers : 0);
    pfs_report_ceilings_json(out, d); /* null: not measured */
    fputs(",\n", out);
    fprintf(out, "  \"units\": ");
    json_str(out, pfs_units_label(c->units));
    fprintf(out, ",\n  \"unit_bytes_per_s\": %.0f,\n  \"warnings\": [", scale);
    const char *w = d->warnings ? d->warnings : "";
    int first = 1;
    while (*w) {
        const char *nl = strchr(w, '\n');
        size_t n = nl ? (size_t)(nl - w) : strlen(w);
        fputs(first ? "" : ", ", out);
        pfs_escape_write(out, PFS_ESC_JSON, w, n);
        first = 0;
        w += n + (nl != NULL);
    }
    fprintf(out, "],\n  \"phases\": [");
    for (int p = 0; p < d->nphases && d->fig.phase; p++) {
        const struct pfs_phase_figs *pf = &d->fig.phase[p];
        fprintf(out, "%s\n    {\"phase\": ", p ? "," : "");
        json_str(out, pfs_phase_name(c->phases[p]));
        fprintf(out, ", \"index\": %d, \"kind\": \"%s\", \"repetitions\": [", p, pf->meta ? "metadata" : "data");
        for (int rep = 0; rep < pf->reps; rep++) {
            const struct pfs_rep_figs *r = pfs_figs_rep(&d->fig, p, rep);
            if (!r)
                break;
            json_rep(out, d, p, rep, r);
        }
        fprintf(out, "]");
        if (pf->ci.measured > 0)
            json_phase_summary(out, d, p, pf);
        pfs_report_sweep_json(out, d, p);
        fprintf(out, "}");
    }
    fprintf(out, "\n  ]\n}\n");
}
