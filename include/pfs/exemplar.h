/* Tail exemplars: the K slowest operations of a stream, then of a job.
 * Pure: libc only, no clock read, no allocation, no thread.
 *
 * A stream keeps one struct pfs_exemplars on its hot path. Adding an
 * operation that is not among the K slowest seen so far costs one compare
 * against a threshold (pfs_exemplar_add is inline); one that is goes into
 * a min-heap of K entries (O(log K), out of line). With random latencies
 * that happens about K ln(N/K) times in N operations, so the average
 * cost is the compare.
 *
 * Order, so that "the K slowest" is one set and never depends on the order
 * of merges: by duration, longest first; ties go to the lower rank, then
 * the lower thread, then the earlier operation of its stream (seq, its
 * ordinal there). Within one stream an operation never displaces an
 * earlier one of the same duration. pfs_exemplar_merge keeps the K first
 * of two sets under that order, so it is associative and commutative: a
 * reduction (MPI_Reduce with a user operation over the struct's bytes)
 * may merge in any tree.
 *
 * The struct is plain bytes of a fixed size (capacity PFS_EXEMPLAR_MAX,
 * k of them used) so that it travels as MPI_BYTE; rank, host, thread,
 * file and target are set by pfs_exemplar_tag before the reduction.
 *
 * Thread safety: none inside; one per stream. */
#ifndef PFS_EXEMPLAR_H
#define PFS_EXEMPLAR_H

#include <stddef.h>
#include <stdint.h>

#define PFS_EXEMPLAR_K_DEFAULT 16
#define PFS_EXEMPLAR_MAX 64 /* the most k may be */

struct pfs_exemplar {
    uint64_t dur_ns;   /* how long it took */
    uint64_t start_ns; /* when it began, on its stream's clock (the caller's t0-relative or absolute ns) */
    uint64_t offset;   /* in its file */
    uint64_t length;   /* bytes asked for */
    uint64_t seq;      /* its ordinal in its stream: 0 for the first operation added */
    uint32_t op;       /* the caller's operation kind (a phase or call code) */
    /* Filled in by pfs_exemplar_tag before a merge across streams; -1 until then. */
    int32_t rank;
    int32_t thread;
    int32_t host;   /* the job's node number */
    int32_t file;   /* the caller's file number (a stream id for file per process) */
    int32_t target; /* the storage target's number in the job's table; -1 unknown */
};

/* The heap orders these small keys, not the entries: a new slowest
 * operation is written once into the slot of the one it displaces. */
struct pfs_exemplar_key {
    uint64_t dur_ns, seq;
    int32_t rank, thread;
    uint32_t slot; /* its entry: e[slot] */
    uint32_t pad;
};

struct pfs_exemplars {
    uint32_t k;     /* how many to keep, 0 (none: off) .. PFS_EXEMPLAR_MAX */
    uint32_t n;     /* how many are kept, <= k: e[0 .. n-1], in no order */
    uint64_t thr;   /* an operation shorter than this is not among the k slowest */
    uint64_t seen;  /* operations offered (after a merge: their sum) */
    struct pfs_exemplar e[PFS_EXEMPLAR_MAX];
    struct pfs_exemplar_key h[PFS_EXEMPLAR_MAX]; /* a min-heap of n keys: h[0] is the weakest kept */
};

/* Local. Empties x and makes it keep k (at most PFS_EXEMPLAR_MAX). k 0
 * keeps none: the threshold is then UINT64_MAX, so the add costs its one
 * compare and nothing is kept (--exemplars 0). */
void pfs_exemplar_init(struct pfs_exemplars *x, unsigned k);

/* Local. The slow path of pfs_exemplar_add: seq is the operation's ordinal. */
void pfs_exemplar_insert(struct pfs_exemplars *x, uint32_t op, uint64_t offset, uint64_t length, uint64_t start_ns,
                         uint64_t dur_ns, uint64_t seq);

/* Local, the hot path. thr is 0 until k operations were kept, then the
 * weakest kept duration + 1 (an equal duration, later, never enters), so
 * this one compare rejects every operation that is not among the k
 * slowest; pfs_exemplar_insert checks the rest fully. */
static inline void pfs_exemplar_add(struct pfs_exemplars *x, uint32_t op, uint64_t offset, uint64_t length,
                                    uint64_t start_ns, uint64_t dur_ns)
{
    uint64_t seq = x->seen++;
    if (__builtin_expect(dur_ns < x->thr, 1))
        return;
    pfs_exemplar_insert(x, op, offset, length, start_ns, dur_ns, seq);
}

/* Local. Sets rank, thread, host and file on every kept entry, and target
 * where it is still -1 and target_of (may be NULL) gives one for the
 * entry's offset (arg is passed through). Called once per stream after a
 * phase, outside the timed region. */
void pfs_exemplar_tag(struct pfs_exemplars *x, int rank, int thread, int host, int file,
                      int (*target_of)(void *arg, uint64_t offset), void *arg);

/* Local. dst becomes the dst->k first, under the order above, of dst and
 * src together; dst->seen += src->seen. src may hold a different k. */
void pfs_exemplar_merge(struct pfs_exemplars *dst, const struct pfs_exemplars *src);

/* Local. The kept entries, slowest first (the order above), into out
 * (room for x->n). Returns x->n. */
unsigned pfs_exemplar_sorted(const struct pfs_exemplars *x, struct pfs_exemplar *out);

/* Local, pure. -1, 0 or 1: whether a ranks before, with or after b
 * (before: slower, or the tie-break says so). */
int pfs_exemplar_cmp(const struct pfs_exemplar *a, const struct pfs_exemplar *b);

#endif
