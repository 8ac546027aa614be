/* Interference of a concurrent group (`interference = 1` in a job file):
 * each section runs alone, then all together; per section and phase the
 * slowdown (together / alone: bandwidth and op p99), Jain's fairness index
 * over the sections, and a section's QoS targets (`qos = bw>=95%,p99<5ms`)
 * checked on the together run. The arithmetic and the parsing, pure and
 * local: no MPI, no output (src/mpi/concurrent.c runs the rounds and
 * meets the leaders). */
#ifndef PFS_INTERFERE_H
#define PFS_INTERFERE_H

#include <stddef.h>

/* A section's QoS targets: the together run's bandwidth at least bw_min
 * of its alone run's (a fraction, 0.95 for 95%), and its op p99 below
 * p99_max_ns (absolute); has_* 0: no such target. */
struct pfs_qos {
    int has_bw, has_p99;
    double bw_min, p99_max_ns;
};

/* Local. "bw>=P%" and "p99<DURATION" (ns, us, ms or s; "p99<5ms"), joined
 * by commas, each at most once, at least one. 0, or -1 with err set. */
int pfs_qos_parse(const char *s, struct pfs_qos *q, char *err, size_t len);

/* Local. together / alone, NaN unless both are finite and positive (a
 * section that failed, or measured nothing, gives no ratio). */
double pfs_interf_ratio(double together, double alone);

/* Local. The mean of x[0..n) left NaN out; NaN when all are. */
double pfs_interf_mean(const double *x, int n);

/* Local. Jain's fairness index (sum x)^2 / (m * sum x^2) over the m
 * entries of x[0..n) that are not NaN; *used = m. NaN when m is 0 (or
 * every entry 0). 1: all equal; 1/m: one section had it all. */
double pfs_jain(const double *x, int n, int *used);

/* Local. q over a section's phases (n of them: each one's bandwidth
 * ratio and together op p99 in ns, NaN where there is none; names[p] its
 * name, or NULL: "phase P"): 1 every target holds in every phase, 0 one
 * fails (why: the first that failed), -1 a figure a target needs is
 * missing (why says which). */
int pfs_qos_check(const struct pfs_qos *q, const double *bw_ratio, const double *p99_ns, const char *const *names,
                  int n, char *why, size_t len);

#endif
