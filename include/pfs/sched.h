/* Open-loop arrival schedules: when each operation of a stream is meant to
 * start, independent of when earlier ones completed, so that a stalled
 * server delays the response times of every operation due during the stall
 * (they are counted from their intended start), not only the one in flight
 * (coordinated omission). One schedule per stream, set up once per phase;
 * next() is the hot path (an add for fixed arrivals, a log for poisson).
 * Local and pure: no clock is read here, the caller compares. */
#ifndef PFS_SCHED_H
#define PFS_SCHED_H

#include <stddef.h>
#include <stdint.h>

/* FIXED: evenly spaced, the k-th (from 0) at t0 + round(k x 1e9 / rate).
 * POISSON: exponential gaps of mean 1e9 / rate, the k-th at t0 + the sum of
 * gaps 0..k (a Poisson process that starts at t0: the first arrival is one
 * gap after it). Gap k comes from draw k of the counter-based sequence of
 * (seed, stream) (pfs/crand.h), so the k-th intended start is the same on
 * every run, on every rank that computes it. */
enum pfs_arrivals { PFS_ARR_FIXED, PFS_ARR_POISSON };

struct pfs_sched {
    uint64_t (*next)(struct pfs_sched *s);
    uint64_t k;          /* arrivals handed out */
    uint64_t t;          /* fixed: the next arrival, ns */
    uint64_t frac;       /* fixed: its fraction of a ns, 32 bits */
    uint64_t per_ns;     /* fixed: the period's whole ns */
    uint64_t per_frac;   /* fixed: its fraction, 32 bits */
    uint64_t t0;         /* the agreed start, ns */
    double mean_ns;      /* poisson: mean gap */
    double acc;          /* poisson: ns from t0 to the last arrival */
    uint64_t key;        /* poisson: the gaps' sequence */
};

/* Local. rate: operations per second of this stream (> 0, finite, period of
 * at least 2^-32 ns); kind: enum pfs_arrivals; t0_ns: the agreed start on
 * the caller's clock. 0, or -1 for a rate out of range. */
int pfs_sched_init(struct pfs_sched *s, double rate, int kind, uint64_t seed, uint64_t stream, uint64_t t0_ns);

/* Local. The intended start of the next operation, ns; advances. */
static inline uint64_t pfs_sched_next(struct pfs_sched *s)
{
    return s->next(s);
}

/* What a rate is given in and for whom. */
enum pfs_rate_unit { PFS_RATE_OPS, PFS_RATE_BYTES };
enum pfs_rate_scope { PFS_RATE_STREAM, PFS_RATE_JOB };

/* Local and pure. --rate's value: a number of operations per second
 * ("500", "2.5e3"), or a size (pfs/units.h: "200MiB", "1g") of bytes per
 * second, either with an optional "/s". 0 with *rate (> 0, finite) and
 * *unit (enum pfs_rate_unit), or -1 with why (a phrase, without the
 * option's name) in err[len]. */
int pfs_rate_parse(const char *text, double *rate, int *unit, char *err, size_t len);

/* One stream's share of a rate: its operations per second, and the offset
 * of its schedule's start from the agreed instant. */
struct pfs_rate_share {
    double ops;
    uint64_t offset_ns;
};

/* Local and pure. Splits a rate over nstreams streams: a byte rate becomes
 * operations at mean_bytes per operation (the transfer size, or a size
 * mix's mean); a job's rate is split evenly. With fixed arrivals, stream i
 * starts i/nstreams of its own period late, so the job's arrivals are
 * evenly spaced instead of nstreams at once (poisson: offset 0; a sum of
 * independent Poisson processes is one already). 0, or -1 for a rate,
 * size or stream out of range. */
int pfs_rate_share(double rate, int unit, int scope, int kind, double mean_bytes, int nstreams, int stream,
                   struct pfs_rate_share *out);

#endif
