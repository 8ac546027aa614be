/* Checkpoint shards and their N to M restore (pfs/ckpt.h): every position
 * is a closed form of the degrees, so a shard, a file offset or a reader's
 * next range costs O(1) and no table of shards or units is ever built. */
#include "pfs/ckpt.h"

#include <stdio.h>
#include <string.h>

/* Units: 0 the first stage's extra, 1..L the layers, L + 1 the last's. */

/* floor(i * n / k): where piece i of n split k ways starts. 128 bits: n
 * may be past 2^40 parameters and i up to 2^24 ranks. */
static uint64_t cut(uint64_t i, uint64_t n, uint64_t k)
{
    return (uint64_t)((unsigned __int128)i * n / k);
}

static uint64_t slen(uint64_t i, uint64_t n, uint64_t k)
{
    return cut(i + 1, n, k) - cut(i, n, k);
}

/* The piece of n split k ways that holds x < n (empty pieces skipped). */
static uint64_t piece_of(uint64_t x, uint64_t n, uint64_t k)
{
    uint64_t d = (uint64_t)((unsigned __int128)x * k / n);
    while (d + 1 < k && cut(d + 1, n, k) <= x)
        d++;
    while (d > 0 && cut(d, n, k) > x)
        d--;
    return d;
}

static uint64_t unit_params(const struct pfs_ckpt_model *m, uint64_t u)
{
    return u == 0 ? m->first_params : u == m->layers + 1 ? m->last_params : m->layer_params;
}

/* Layers of stage s and the first of them (0-based), DLIO's split: the
 * first L % PP stages one more. */
static uint64_t stage_layers(const struct pfs_ckpt_model *m, int pp, int s)
{
    return m->layers / (uint64_t)pp + ((uint64_t)s < m->layers % (uint64_t)pp);
}

static uint64_t stage_first_layer(const struct pfs_ckpt_model *m, int pp, int s)
{
    const uint64_t q = m->layers / (uint64_t)pp, r = m->layers % (uint64_t)pp;
    return (uint64_t)s * q + ((uint64_t)s < r ? (uint64_t)s : r);
}

static int stage_of(const struct pfs_ckpt_model *m, int pp, uint64_t u)
{
    if (u == 0)
        return 0;
    if (u == m->layers + 1)
        return pp - 1;
    const uint64_t j = u - 1, q = m->layers / (uint64_t)pp, r = m->layers % (uint64_t)pp;
    return (int)(j < r * (q + 1) ? j / (q + 1) : r + (j - r * (q + 1)) / q);
}

/* Parameters of model-parallel shard (s, t) before slice t's of every unit,
 * summed over the stage's units: cut() of each. Used with t and t + 1. */
static uint64_t stage_cut(const struct pfs_ckpt_model *m, const struct pfs_ckpt_par *p, int s, uint64_t t)
{
    const uint64_t T = (uint64_t)p->tp;
    uint64_t x = stage_layers(m, p->pp, s) * cut(t, m->layer_params, T);
    if (s == 0)
        x += cut(t, m->first_params, T);
    if (s == p->pp - 1)
        x += cut(t, m->last_params, T);
    return x;
}

/* Parameters of model-parallel shard (s, t). */
static uint64_t mp_params(const struct pfs_ckpt_model *m, const struct pfs_ckpt_par *p, int s, int t)
{
    return stage_cut(m, p, s, (uint64_t)t + 1) - stage_cut(m, p, s, (uint64_t)t);
}

/* Parameters before model-parallel shard (s, t) in the canonical order. */
static uint64_t mp_prefix(const struct pfs_ckpt_model *m, const struct pfs_ckpt_par *p, int s, int t)
{
    uint64_t x = stage_first_layer(m, p->pp, s) * m->layer_params + stage_cut(m, p, s, (uint64_t)t);
    if (s > 0)
        x += m->first_params;
    return x;
}

/* Where unit u's slice t starts in shard (s, t)'s local space (u in s). */
static uint64_t unit_base(const struct pfs_ckpt_model *m, const struct pfs_ckpt_par *p, int s, int t, uint64_t u)
{
    const uint64_t T = (uint64_t)p->tp;
    uint64_t x = (s == 0 && u != 0) ? slen((uint64_t)t, m->first_params, T) : 0;
    if (u == m->layers + 1)
        x += stage_layers(m, p->pp, s) * slen((uint64_t)t, m->layer_params, T);
    else if (u > 0)
        x += (u - 1 - stage_first_layer(m, p->pp, s)) * slen((uint64_t)t, m->layer_params, T);
    return x;
}

static unsigned part_bpp(const struct pfs_ckpt_model *m, int part)
{
    return part == PFS_CKPT_WEIGHTS ? m->wbytes : m->obytes;
}

/* Whether a part is split over DP at this ZeRO stage. */
static int split_dp(int zero, int part)
{
    return part == PFS_CKPT_WEIGHTS ? zero >= 3 : zero >= 1;
}

static uint64_t pieces(const struct pfs_ckpt *c, int part)
{
    return split_dp(c->par.zero, part) ? (uint64_t)c->par.dp : 1;
}

static uint64_t part_shards(const struct pfs_ckpt *c, int part)
{
    if (part_bpp(&c->m, part) == 0)
        return 0;
    return (uint64_t)c->par.tp * (uint64_t)c->par.pp * pieces(c, part);
}

uint64_t pfs_ckpt_params(const struct pfs_ckpt_model *m)
{
    return m->first_params + m->layers * m->layer_params + m->last_params;
}

uint64_t pfs_ckpt_bytes(const struct pfs_ckpt_model *m)
{
    return pfs_ckpt_params(m) * ((uint64_t)m->wbytes + m->obytes);
}

int pfs_ckpt_world(const struct pfs_ckpt_par *p)
{
    return p->tp * p->pp * p->dp;
}

uint64_t pfs_ckpt_nshards(const struct pfs_ckpt *c)
{
    return part_shards(c, PFS_CKPT_WEIGHTS) + part_shards(c, PFS_CKPT_OPTIM);
}

/* The rank that writes a part's piece d of shard (s, t). */
static int writer_of(const struct pfs_ckpt *c, int part, int s, int t, uint64_t d)
{
    const int dp = split_dp(c->par.zero, part) ? (int)d : 0;
    return t + c->par.tp * (s + c->par.pp * dp);
}

/* The bytes of the weights shard a rank of DP rank dp writes in shard (s,
 * t), 0 for none: what comes before its optimizer shard in its file. */
static uint64_t rank_weights(const struct pfs_ckpt *c, int s, int t, int dp)
{
    if (c->m.wbytes == 0 || (!split_dp(c->par.zero, PFS_CKPT_WEIGHTS) && dp != 0))
        return 0;
    const uint64_t n = mp_params(&c->m, &c->par, s, t), k = pieces(c, PFS_CKPT_WEIGHTS);
    return slen(k > 1 ? (uint64_t)dp : 0, n, k) * c->m.wbytes;
}

void pfs_ckpt_shard(const struct pfs_ckpt *c, uint64_t i, struct pfs_ckpt_shard *out)
{
    const uint64_t nw = part_shards(c, PFS_CKPT_WEIGHTS);
    const int part = i < nw ? PFS_CKPT_WEIGHTS : PFS_CKPT_OPTIM;
    const uint64_t rest = i < nw ? i : i - nw, k = pieces(c, part), mi = rest / k, d = rest % k;
    const int s = (int)(mi / (uint64_t)c->par.tp), t = (int)(mi % (uint64_t)c->par.tp);
    const uint64_t n = mp_params(&c->m, &c->par, s, t), bpp = part_bpp(&c->m, part);
    *out = (struct pfs_ckpt_shard){
        .part = part,
        .pp = s,
        .tp = t,
        .piece = k > 1 ? (int)d : -1,
        .writer = writer_of(c, part, s, t, d),
        .unit_lo = s == 0 ? 0 : 1 + stage_first_layer(&c->m, c->par.pp, s),
        .unit_hi = 1 + stage_first_layer(&c->m, c->par.pp, s) + stage_layers(&c->m, c->par.pp, s) +
                   (s == c->par.pp - 1),
        .lo = cut(d, n, k),
        .hi = cut(d + 1, n, k),
    };
    out->bytes = (out->hi - out->lo) * bpp;
    switch (c->layout) {
    case PFS_CKPT_PER_SHARD:
        out->file = i;
        out->offset = 0;
        break;
    case PFS_CKPT_PER_RANK:
        out->file = (uint64_t)out->writer;
        out->offset = part == PFS_CKPT_OPTIM ? rank_weights(c, s, t, out->writer / (c->par.tp * c->par.pp)) : 0;
        break;
    default:
        out->file = 0;
        out->offset = (part == PFS_CKPT_OPTIM ? pfs_ckpt_params(&c->m) * c->m.wbytes : 0) +
                      (mp_prefix(&c->m, &c->par, s, t) + out->lo) * bpp;
    }
}

int pfs_ckpt_rank_shards(const struct pfs_ckpt *c, int rank, uint64_t idx[2])
{
    const int t = rank % c->par.tp, s = (rank / c->par.tp) % c->par.pp, dp = rank / (c->par.tp * c->par.pp);
    const uint64_t mi = (uint64_t)s * (uint64_t)c->par.tp + (uint64_t)t;
    int n = 0;
    uint64_t base = 0;
    for (int part = PFS_CKPT_WEIGHTS; part <= PFS_CKPT_OPTIM; part++) {
        const uint64_t k = pieces(c, part);
        if (part_bpp(&c->m, part) != 0 && (k > 1 || dp == 0))
            idx[n++] = base + mi * k + (k > 1 ? (uint64_t)dp : 0);
        base += part_shards(c, part);
    }
    return n;
}

uint64_t pfs_ckpt_nfiles(const struct pfs_ckpt *c)
{
    return c->layout == PFS_CKPT_PER_SHARD  ? pfs_ckpt_nshards(c)
           : c->layout == PFS_CKPT_PER_RANK ? (uint64_t)pfs_ckpt_world(&c->par)
                                            : 1;
}

uint64_t pfs_ckpt_file_bytes(const struct pfs_ckpt *c, uint64_t f)
{
    struct pfs_ckpt_shard sh;
    if (c->layout == PFS_CKPT_SHARED)
        return pfs_ckpt_bytes(&c->m);
    if (c->layout == PFS_CKPT_PER_SHARD) {
        pfs_ckpt_shard(c, f, &sh);
        return sh.bytes;
    }
    uint64_t idx[2], x = 0;
    const int n = pfs_ckpt_rank_shards(c, (int)f, idx);
    for (int i = 0; i < n; i++) {
        pfs_ckpt_shard(c, idx[i], &sh);
        x += sh.bytes;
    }
    return x;
}

/* ---- checks ---- */

static int check_par(const struct pfs_ckpt_model *m, const struct pfs_ckpt_par *p, const char *who, char *err,
                     size_t len)
{
    if (p->tp < 1 || p->pp < 1 || p->dp < 1 || p->zero < 0 || p->zero > 3 ||
        (uint64_t)p->tp * (uint64_t)p->pp * (uint64_t)p->dp > PFS_CKPT_RANKS_MAX) {
        snprintf(err, len, "%s: TP, PP and DP must be at least 1, %d ranks at most, and the ZeRO stage 0 to 3 (%d x %d x %d, ZeRO %d)",
                 who, PFS_CKPT_RANKS_MAX, p->tp, p->pp, p->dp, p->zero);
        return -1;
    }
    if (m->layers < (uint64_t)p->pp) {
        snprintf(err, len, "%s: %d pipeline stages but %llu layers: every stage needs one", who, p->pp,
                 (unsigned long long)m->layers);
        return -1;
    }
    /* A DP piece without a parameter would be a shard of 0 bytes: refused,
     * so that every shard is a file or a range worth timing. */
    const uint64_t k = (p->zero >= 1 && p->dp > 1) ? (uint64_t)p->dp : 1;
    for (int s = 0; s < p->pp; s++)
        for (int t = 0; t < p->tp; t++)
            if (mp_params(m, p, s, t) < k) {
                snprintf(err, len, "%s: model-parallel shard (pp %d, tp %d) has %llu parameters, fewer than its %llu DP pieces",
                         who, s, t, (unsigned long long)mp_params(m, p, s, t), (unsigned long long)k);
                return -1;
            }
    return 0;
}

int pfs_ckpt_check(const struct pfs_ckpt *c, char *err, size_t len)
{
    const struct pfs_ckpt_model *m = &c->m;
    if (m->wbytes > PFS_CKPT_BPP_MAX || m->obytes > PFS_CKPT_BPP_MAX || m->wbytes + m->obytes == 0) {
        snprintf(err, len, "bytes per parameter: the weights' and the optimizer's must be 0 to %d and not both 0",
                 PFS_CKPT_BPP_MAX);
        return -1;
    }
    const unsigned __int128 params = (unsigned __int128)m->layers * m->layer_params + m->first_params + m->last_params;
    if (m->layers == 0 || m->layer_params == 0 || params * (m->wbytes + m->obytes) >= (unsigned __int128)1 << 63) {
        snprintf(err, len, "the model needs at least one layer of at least one parameter, and under 2^63 bytes");
        return -1;
    }
    if (c->layout < PFS_CKPT_PER_SHARD || c->layout > PFS_CKPT_SHARED) {
        snprintf(err, len, "layout %d: one of per-shard, per-rank, shared", c->layout);
        return -1;
    }
    return check_par(m, &c->par, "writers", err, len);
}

/* ---- the reader ---- */

/* Finds the unit and element of local position q of the reader's shard. */
static void locate(struct pfs_ckpt_reader *rd)
{
    const struct pfs_ckpt_model *m = &rd->w.m;
    const uint64_t T = (uint64_t)rd->r.tp, t = (uint64_t)rd->t;
    uint64_t off = rd->q;
    if (rd->s == 0) {
        const uint64_t f = slen(t, m->first_params, T);
        if (off < f) {
            rd->u = 0;
            goto found;
        }
        off -= f;
    }
    const uint64_t ls = slen(t, m->layer_params, T), nl = stage_layers(m, rd->r.pp, rd->s);
    if (ls > 0 && off < nl * ls) {
        rd->u = 1 + stage_first_layer(m, rd->r.pp, rd->s) + off / ls;
        off %= ls;
    } else {
        rd->u = m->layers + 1;
        off -= nl * ls;
    }
found:
    rd->e = cut(t, unit_params(m, rd->u), T) + off;
    rd->e_end = cut(t + 1, unit_params(m, rd->u), T);
}

/* Starts the walk of the first part at or after rd->part with something to
 * read; rd->part == 2 when none is left. */
static void start_part(struct pfs_ckpt_reader *rd)
{
    while (rd->part < 2 && rd->need_lo[rd->part] == rd->need_hi[rd->part])
        rd->part++;
    if (rd->part < 2) {
        rd->q = rd->need_lo[rd->part];
        locate(rd);
    }
}

int pfs_ckpt_reader_init(struct pfs_ckpt_reader *rd, const struct pfs_ckpt *w, const struct pfs_ckpt_par *r,
                         int policy, int rank, char *err, size_t len)
{
    if (check_par(&w->m, r, "readers", err, len) != 0)
        return -1;
    if (policy < PFS_CKPT_SPREAD || policy > PFS_CKPT_EACH || rank < 0 || rank >= pfs_ckpt_world(r)) {
        snprintf(err, len, "reader %d of %d, policy %d: out of range", rank, pfs_ckpt_world(r), policy);
        return -1;
    }
    *rd = (struct pfs_ckpt_reader){.w = *w, .r = *r};
    rd->t = rank % r->tp;
    rd->s = (rank / r->tp) % r->pp;
    rd->d = rank / (r->tp * r->pp);
    const uint64_t n = mp_params(&w->m, r, rd->s, rd->t), D = (uint64_t)r->dp, d = (uint64_t)rd->d;
    for (int part = PFS_CKPT_WEIGHTS; part <= PFS_CKPT_OPTIM; part++) {
        const unsigned bpp = part_bpp(&w->m, part);
        uint64_t lo = 0, hi = n;
        if (bpp == 0)
            hi = 0;
        else if (split_dp(r->zero, part) || policy == PFS_CKPT_SPREAD) {
            lo = cut(d, n, D);
            hi = cut(d + 1, n, D);
        } else if (policy == PFS_CKPT_LEADER && d != 0)
            hi = 0;
        rd->need_lo[part] = lo;
        rd->need_hi[part] = hi;
        rd->bytes += (hi - lo) * bpp;
    }
    start_part(rd);
    return 0;
}

/* The piece of the written checkpoint that holds the reader's position,
 * as long as it stays one contiguous run of one written shard; advances. */
static void step(struct pfs_ckpt_reader *rd, struct pfs_ckpt_range *out)
{
    const struct pfs_ckpt *w = &rd->w;
    const int part = rd->part;
    const uint64_t T = (uint64_t)w->par.tp, nu = unit_params(&w->m, rd->u), bpp = part_bpp(&w->m, part);
    const int s = stage_of(&w->m, w->par.pp, rd->u);
    const uint64_t t = piece_of(rd->e, nu, T), t_lo = cut(t, nu, T);
    uint64_t n = rd->need_hi[part] - rd->q;
    if (rd->e_end - rd->e < n)
        n = rd->e_end - rd->e;
    if (cut(t + 1, nu, T) - rd->e < n)
        n = cut(t + 1, nu, T) - rd->e;
    /* p: the position in the written shard (s, t)'s local space. */
    const uint64_t p = unit_base(&w->m, &w->par, s, (int)t, rd->u) + (rd->e - t_lo), k = pieces(w, part);
    uint64_t d = 0, p_lo = 0;
    if (k > 1) {
        const uint64_t nmp = mp_params(&w->m, &w->par, s, (int)t);
        d = piece_of(p, nmp, k);
        p_lo = cut(d, nmp, k);
        if (cut(d + 1, nmp, k) - p < n)
            n = cut(d + 1, nmp, k) - p;
    }
    struct pfs_ckpt_shard sh;
    const uint64_t idx = (part == PFS_CKPT_OPTIM ? part_shards(w, PFS_CKPT_WEIGHTS) : 0) +
                         ((uint64_t)s * T + t) * k + d;
    pfs_ckpt_shard(w, idx, &sh);
    *out = (struct pfs_ckpt_range){
        .file = sh.file,
        .offset = sh.offset + (p - p_lo) * bpp,
        .len = n * bpp,
        .shard = idx,
        .soff = (p - p_lo) * bpp,
        .part = part,
        .dst = (rd->q - rd->need_lo[part]) * bpp,
    };
    rd->q += n;
    rd->e += n;
    if (rd->q == rd->need_hi[part]) {
        rd->part++;
        start_part(rd);
    } else if (rd->e == rd->e_end)
        locate(rd);
}

int pfs_ckpt_reader_next(struct pfs_ckpt_reader *rd, struct pfs_ckpt_range *out)
{
    struct pfs_ckpt_range x;
    while (rd->part < 2) {
        step(rd, &x);
        if (rd->have && x.shard == rd->pend.shard && x.soff == rd->pend.soff + rd->pend.len) {
            rd->pend.len += x.len;
            continue;
        }
        if (rd->have) {
            *out = rd->pend;
            rd->pend = x;
            return 1;
        }
        rd->pend = x;
        rd->have = 1;
    }
    if (!rd->have)
        return 0;
    *out = rd->pend;
    rd->have = 0;
    return 1;
}

/* ---- presets ---- */

/* MLPerf Storage v2.0 (mlcommons/storage, Submission_guidelines.md, table
 * 2, and configs/dlio/workload/llama3_*.yaml) runs DLIO's checkpoint of
 * each Llama 3 shape. DLIO (argonne-lcf/dlio_benchmark,
 * checkpointing/base_checkpointing.py, get_num_parameters) counts per
 * layer h (input norm) + h (h + 2 kv) (QKV, kv = h / heads x kv_heads) +
 * h^2 (dense) + h (norm) + 3 h f (gated MLP), plus a vocab x h embedding
 * and as much again for the head and h for the final norm; weights in
 * fp16 (2 bytes), the optimizer's 3 fp32 arrays (12). Hence 14 bytes per
 * parameter:
 *   8B   8,030,261,248 params  112,423,657,472 B = 104.7 GiB  ("105 GB")
 *   70B  69,882,617,856        978,356,649,984   = 911.2 GiB  ("912 GB")
 *   405B 405,853,388,800       5,681,947,443,200 = 5,292 GiB  ("5.29 TB")
 *   1T   1,183,035,102,480     16,562,491,434,720 = 15,425 GiB
 * The table's 18 TB for 1T is mlpstorage's config.py LLM_SIZE_BY_RANK
 * (2571 + 15426 GB, "need to be updated with actual values"): it lists
 * DLIO's whole 1T checkpoint, 15,426 GiB, as the optimizer alone and adds
 * a sixth of it for the weights. What a run writes is DLIO's 15,425 GiB,
 * and so is this preset. */
struct preset {
    const char *name;
    struct pfs_ckpt c;
};

#define LLAMA(L, h, f, heads, kv, V) \
    .layers = (L), .layer_params = 2ULL * (h) + (uint64_t)(h) * ((h) + 2ULL * ((h) / (heads)) * (kv)) + \
                                   (uint64_t)(h) * (h) + 3ULL * (h) * (f), \
    .first_params = (uint64_t)(V) * (h), .last_params = (uint64_t)(V) * (h) + (h), .wbytes = 2, .obytes = 12

static const struct preset presets[] = {
    {"llama3-8b", {{LLAMA(32, 4096, 14336, 32, 8, 128256)}, {1, 1, 8, 3}, PFS_CKPT_PER_SHARD}},
    {"llama3-70b", {{LLAMA(80, 8192, 28672, 128, 8, 128256)}, {8, 1, 8, 3}, PFS_CKPT_PER_SHARD}},
    {"llama3-405b", {{LLAMA(126, 16384, 53248, 128, 8, 128256)}, {8, 32, 2, 1}, PFS_CKPT_PER_SHARD}},
    {"llama3-1t", {{LLAMA(128, 25872, 98304, 192, 32, 128256)}, {8, 64, 2, 1}, PFS_CKPT_PER_SHARD}},
    /* Uneven sizes on purpose: every split has a remainder. */
    {"tiny", {{6, 50000, 12345, 12346, 2, 12}, {1, 2, 2, 1}, PFS_CKPT_PER_SHARD}},
    {"tiny-zero3", {{6, 50000, 12345, 12346, 2, 12}, {2, 1, 2, 3}, PFS_CKPT_PER_SHARD}},
    {"small", {{8, 1000003, 100003, 100005, 2, 12}, {2, 2, 2, 1}, PFS_CKPT_PER_SHARD}},
};

int pfs_ckpt_preset(const char *name, struct pfs_ckpt *out)
{
    for (size_t i = 0; i < sizeof(presets) / sizeof(presets[0]); i++)
        if (strcmp(name, presets[i].name) == 0) {
            *out = presets[i].c;
            return 0;
        }
    return -1;
}

const char *pfs_ckpt_preset_name(int i)
{
    return i >= 0 && (size_t)i < sizeof(presets) / sizeof(presets[0]) ? presets[i].name : NULL;
}
