/* Per-target figures of a data phase: each storage target's bytes,
 * operations, busy time and latency histogram, kept by a stream from its
 * file's layout (pfs/targets.h) per transfer, merged by target name over
 * the streams, the ranks and the nodes, and judged on rank 0. Pure: libc
 * only, no clock read, no MPI.
 *
 * Attribution: pfs_layout_split maps a transfer's range to the pieces each
 * stripe (or object) holds; each piece's bytes go to its primary target
 * (a replicated piece is counted once, on the first target its layout
 * names), so the targets' bytes add up to the phase's. A transfer counts
 * one operation, its latency in the histogram and its duration as busy
 * time on every target it touched. A file on one target is attributed
 * once, at its phase's end, from the stream's own figures
 * (pfs_tg_add_all): the same figures, nothing per transfer.
 *
 * A table holds at most PFS_TG_MAX targets; a merge that would pass it
 * counts the targets it left out (dropped), which rank 0 says.
 *
 * Thread safety: none inside; a table is one stream's, or its merger's. */
#ifndef PFS_TGSTATS_H
#define PFS_TGSTATS_H

#include <stddef.h>
#include <stdint.h>

#include "pfs/hist.h"
#include "pfs/targets.h"

#define PFS_TG_MAX 1024
#define PFS_TG_PIECES 16 /* pieces of one transfer attributed at once (more: in rounds) */

/* One target's figures: plain bytes, so a table travels as MPI_BYTE.
 * Its operations are h.count, its busy time h.sum_ns (ns): the hot path
 * adds the bytes and the latency, nothing more. */
struct pfs_tg_stat {
    char name[PFS_TARGET_NAME];
    uint64_t bytes;
    struct pfs_hist h;
};

struct pfs_tg_acc {
    struct pfs_tg_stat *s; /* [n] of cap */
    uint32_t n, cap;
    uint64_t dropped;      /* targets left out: the table was full */
    /* The layout transfers are attributed through (the stream's file),
     * and each of its targets' entry in s (map[layout index]); single:
     * the entry when the layout has one target (the common case: one
     * compare on the hot path), else -1. */
    const struct pfs_layout *l;
    uint32_t *map, nmap;
    int single;
};

/* Local. An empty table. */
void pfs_tg_init(struct pfs_tg_acc *a);
void pfs_tg_free(struct pfs_tg_acc *a);
/* Local. Empties the figures (not the entries' names: a phase starts
 * afresh, its layout kept). */
void pfs_tg_reset(struct pfs_tg_acc *a);
/* Local, outside the timed region. Attributes what follows through l
 * (kept by the caller, unchanged while it is used): its targets get an
 * entry each. Returns 0, or -1 when memory ran out (the layout's targets
 * then fall to "unknown" where it has one). */
int pfs_tg_use(struct pfs_tg_acc *a, const struct pfs_layout *l);
/* Local. The entry named name (made, empty, when new). Returns its
 * position, or -1 when the table is full (dropped counts it) or memory
 * ran out. */
int pfs_tg_entry(struct pfs_tg_acc *a, const char *name);

/* Local, the hot path: one transfer of len bytes at off that took lat_ns.
 * The stream loop calls it for a striped file only (a file on one target
 * is attributed once, at its end: pfs_tg_add_all). */
void pfs_tg_add_split(struct pfs_tg_acc *a, uint64_t off, uint64_t len, uint64_t lat_ns);
static inline void pfs_tg_add(struct pfs_tg_acc *a, uint64_t off, uint64_t len, uint64_t lat_ns)
{
    if (__builtin_expect(a->single >= 0, 1)) {
        struct pfs_tg_stat *t = &a->s[a->single];
        t->bytes += len;
        pfs_hist_add(&t->h, lat_ns);
        return;
    }
    pfs_tg_add_split(a, off, len, lat_ns);
}

/* Local. The single-target case attributed at once instead of per
 * transfer: a file on one target (a->single >= 0) gets the same figures
 * from the stream's own, taken when its attribution ends, as pfs_tg_add
 * would have given it transfer by transfer: bytes (every transfer's
 * bytes moved, a failed one's 0) and h (the histogram of their
 * latencies, which the stream keeps anyway) added to that target. Returns
 * 0, or -1 when the layout has no single target (nothing is added: a
 * striped file is attributed per transfer). */
int pfs_tg_add_all(struct pfs_tg_acc *a, uint64_t bytes, const struct pfs_hist *h);

/* Local. dst += the n entries of src, by name. Returns 0, or -1 when
 * memory ran out (dst then lacks some). */
int pfs_tg_merge(struct pfs_tg_acc *dst, const struct pfs_tg_stat *src, uint32_t n);

/* Local, pure. A target name's number for the exemplars (pfs/exemplar.h's
 * target, before rank 0 turns it into the row of its table): FNV-1a of
 * the name, 31 bits, never negative. */
int32_t pfs_tg_hash(const char *name);

/* One target's figures as the outputs give them (the schema's "target"
 * table). */
struct pfs_tg_row {
    int32_t rep;         /* the repetition (set by the figures) */
    const char *name;
    uint64_t bytes, ops;
    double busy_s;       /* the summed durations of its transfers, over every stream */
    double bandwidth;    /* bytes / busy_s: the rate a stream got from it while on it */
    double p50_ns, p99_ns, max_ns;
    double p99_ratio;    /* its p99 / the median target's p99 */
    double bw_ratio;     /* its bandwidth / the median target's */
    int32_t slow;        /* 1: bandwidth below --straggler x the median target's (the stragglers' rule) */
};

/* Local. The rows of n targets (out: room for n) and their slow flags by
 * the stragglers' rule (pfs_stragglers: below frac x the median), judged
 * among the targets that moved bytes, "unknown" left out. Returns how many
 * were flagged; -1 when memory ran out. */
int pfs_tg_rows(const struct pfs_tg_stat *s, uint32_t n, double frac, struct pfs_tg_row *out);

#endif
