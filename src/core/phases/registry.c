/* The phase registry: pfs/phases.def's lines in their order, and what the
 * rest of pfsbench asks of a phase (its name, flags, unit, work count, run,
 * checks and hooks), read from its ops. A new phase is its ops in a
 * family's file (or a file of its own) and its line in phases.def. */
#include "pfs/phase.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "pfs/config.h"
#include "pfs/stream.h"

#include "phases.h"

static const struct pfs_phase_ops *const table[PFS_PH_KINDS] = {
#define PFS_PHASE(ID, ops) [PFS_PH_##ID] = &pfs_ph_##ops,
#include "pfs/phases.def"
#undef PFS_PHASE
};

/* -p's default: a write, then a read of what it wrote. */
static const int default_list[] = {PFS_PH_WRITE, PFS_PH_READ};

const struct pfs_phase_ops *pfs_phase_desc(int phase)
{
    return phase >= 0 && phase < PFS_PH_KINDS ? table[phase] : NULL;
}

int pfs_phase_find(const char *name, size_t len)
{
    for (int k = 0; k < PFS_PH_KINDS; k++)
        if (strlen(table[k]->name) == len && strncmp(name, table[k]->name, len) == 0)
            return k;
    return -1;
}

int pfs_phase_has(int phase, unsigned flags)
{
    const struct pfs_phase_ops *d = pfs_phase_desc(phase);
    return d && (d->flags & flags) == flags;
}

const char *pfs_phase_name(int phase)
{
    const struct pfs_phase_ops *d = pfs_phase_desc(phase);
    return d ? d->name : "?";
}

/* Data phases only: a metadata phase that reads or writes small files is
 * neither, so that a data phase's file, cache and count logic never applies to it. */
int pfs_phase_is_read(int phase) { return !pfs_phase_is_meta(phase) && pfs_phase_has(phase, PFS_PHF_READS) && !pfs_phase_has(phase, PFS_PHF_OWN_FILES); }
int pfs_phase_is_write(int phase) { return !pfs_phase_is_meta(phase) && pfs_phase_has(phase, PFS_PHF_WRITES) && !pfs_phase_has(phase, PFS_PHF_OWN_FILES); }
int pfs_phase_is_meta(int phase)
{
    const struct pfs_phase_ops *d = pfs_phase_desc(phase);
    return d && d->kind == PFS_PHASE_META;
}

static const char *const unit_names[][2] = {
    [PFS_UNIT_BYTES] = {"bytes", "bytes/s"},
    [PFS_UNIT_FILES] = {"files", "files/s"},
    [PFS_UNIT_DIRS] = {"dirs", "dirs/s"},
    [PFS_UNIT_SEEKS] = {"seeks", "seeks/s"},
};

const char *pfs_phase_unit_name(int phase)
{
    const struct pfs_phase_ops *d = pfs_phase_desc(phase);
    return d ? unit_names[d->unit][0] : "?";
}

const char *pfs_phase_rate_unit(int phase)
{
    const struct pfs_phase_ops *d = pfs_phase_desc(phase);
    return d ? unit_names[d->unit][1] : "?";
}

static int is_like(const struct pfs_phase_ops *d, int kind, unsigned flags, unsigned without)
{
    return (kind == PFS_PHASE_ANY || (int)d->kind == kind) && (d->flags & flags) == flags && !(d->flags & without);
}

int pfs_phase_listed(const struct pfs_config *cfg, int kind, unsigned flags, unsigned without)
{
    for (int i = 0; i < cfg->nphases; i++) {
        const struct pfs_phase_ops *d = pfs_phase_desc(cfg->phases[i]);
        if (d && is_like(d, kind, flags, without))
            return 1;
    }
    return 0;
}

int pfs_config_has_phase(const struct pfs_config *cfg, int phase)
{
    for (int i = 0; i < cfg->nphases; i++)
        if (cfg->phases[i] == phase)
            return 1;
    return 0;
}

size_t pfs_phase_names(char *buf, size_t len, const char *sep, int kind, unsigned flags, unsigned without)
{
    size_t n = 0;
    if (len)
        buf[0] = '\0';
    for (int k = 0; k < PFS_PH_KINDS; k++) {
        if (!is_like(table[k], kind, flags, without))
            continue;
        int w = snprintf(buf + (n < len ? n : len), n < len ? len - n : 0, "%s%s", n ? sep : "", table[k]->name);
        n += w > 0 ? (size_t)w : 0;
    }
    return n;
}

int pfs_phase_defaults(int *phases)
{
    const int n = (int)(sizeof(default_list) / sizeof(default_list[0]));
    memcpy(phases, default_list, sizeof(default_list));
    return n;
}

uint64_t pfs_phase_work(const struct pfs_phase_ctx *p, int stream)
{
    return table[p->kind]->work(p, stream);
}

void pfs_stream_run(const struct pfs_phase_ctx *p, struct pfs_stream *s)
{
    table[p->kind]->run(p, s);
}

void pfs_phase_before(int phase, struct pfs_phase_env *e)
{
    const struct pfs_phase_ops *d = pfs_phase_desc(phase);
    if (d && d->before)
        d->before(e);
}

void pfs_phase_env_fail(struct pfs_phase_env *e, const char *op, const char *path, int err, const char *fmt, ...)
{
    char detail[256] = "";
    if (fmt) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(detail, sizeof(detail), fmt, ap);
        va_end(ap);
    }
    e->fail(e->arg, op, path, err, fmt ? detail : NULL);
}

int pfs_phase_checks(const struct pfs_config *cfg, char *err, size_t len)
{
    for (int k = 0; k < PFS_PH_KINDS; k++)
        if (table[k]->check && pfs_config_has_phase(cfg, k) && table[k]->check(cfg, err, len) != 0)
            return -1;
    return 0;
}

void pfs_phase_warnings(struct pfs_config *cfg, const unsigned char *given)
{
    for (int k = 0; k < PFS_PH_KINDS; k++)
        if (table[k]->warn)
            table[k]->warn(cfg, given, pfs_config_has_phase(cfg, k));
}

void pfs_phase_resolved(struct pfs_config *cfg, uint64_t streams)
{
    for (int k = 0; k < PFS_PH_KINDS; k++)
        if (table[k]->resolve && pfs_config_has_phase(cfg, k))
            table[k]->resolve(cfg, streams);
}

int pfs_phase_fits(struct pfs_config *cfg, uint64_t streams, char *err, size_t len)
{
    for (int k = 0; k < PFS_PH_KINDS; k++)
        if (table[k]->fits && pfs_config_has_phase(cfg, k) && table[k]->fits(cfg, streams, err, len) != 0)
            return -1;
    return 0;
}

int pfs_phase_finish(struct pfs_phase_env *e)
{
    int left = 0;
    for (int k = 0; k < PFS_PH_KINDS; k++)
        if (table[k]->finish && pfs_config_has_phase(e->cfg, k))
            left += table[k]->finish(e);
    return left;
}
