/* Ceilings (pfs/ceiling.h): the memory-copy rate of one core and of all
 * cores of a node, and the pure arithmetic of the network ceiling whose
 * exchange src/mpi/ceiling.c runs. */
#define _GNU_SOURCE
#include "pfs/ceiling.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pfs/core.h"

#define MIB 1048576.0
#define MAXREPS 101
#define MAXTHREADS 1024

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(*v), cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Keeps the compiler from dropping copies nobody reads. */
static volatile unsigned char sink;

/* One pass each way over the region; the four times into t. */
static void pass(unsigned char *reg, unsigned char *buf, size_t n, size_t t, int k, double *tm)
{
    tm[0] = now();
    for (size_t i = 0; i < n; i++)
        memcpy(reg + i * t, buf, t);
    tm[1] = now();
    sink ^= reg[(size_t)k % (n * t)];
    tm[2] = now();
    for (size_t i = 0; i < n; i++)
        memcpy(buf, reg + i * t, t);
    tm[3] = now();
    sink ^= buf[(size_t)k % t];
}

/* The buffers of one copier: a transfer-sized source aligned like
 * pfsbench's I/O buffers and a region faulted in beforehand, so that the
 * copy alone is measured. */
static int buffers(size_t region, size_t t, unsigned char **buf, unsigned char **reg)
{
    *buf = NULL, *reg = NULL;
    if (t == 0 || region < t || posix_memalign((void **)buf, 4096, t) != 0 ||
        posix_memalign((void **)reg, 4096, region) != 0) {
        free(*buf);
        *buf = NULL;
        errno = t == 0 || region < t ? EINVAL : ENOMEM;
        return -1;
    }
    pfs_random_fill(*buf, t, 42);
    memset(*reg, 1, region);
    return 0;
}

int pfs_memcpy_rate(size_t region, size_t t, int reps, double *into, double *from)
{
    unsigned char *buf, *reg;
    if (reps < 1 || reps > MAXREPS) {
        errno = EINVAL;
        return -1;
    }
    if (buffers(region, t, &buf, &reg) != 0)
        return -1;
    size_t n = region / t;
    double a[MAXREPS], b[MAXREPS], tm[4];
    for (int k = 0; k < reps; k++) {
        pass(reg, buf, n, t, k, tm);
        a[k] = (double)(n * t) / (tm[1] - tm[0]) / MIB;
        b[k] = (double)(n * t) / (tm[3] - tm[2]) / MIB;
    }
    *into = median(a, reps);
    *from = median(b, reps);
    free(buf);
    free(reg);
    return 0;
}

int pfs_cpu_list_parse(const char *text, int *cpus, int max)
{
    int n = 0;
    const char *p = text;
    while (*p && *p != '\n') {
        char *end;
        long a = strtol(p, &end, 10), b = a;
        if (end == p || a < 0)
            return -1;
        p = end;
        if (*p == '-') {
            b = strtol(p + 1, &end, 10);
            if (end == p + 1 || b < a)
                return -1;
            p = end;
        }
        for (long c = a; c <= b && n < max; c++)
            cpus[n++] = (int)c;
        if (*p == ',')
            p++;
        else if (*p && *p != '\n')
            return -1;
    }
    return n;
}

/* ---- all cores at once ---- */

/* What the copiers share: a gate that holds them until every thread that
 * could be started is (so the barrier counts only those), and the
 * barrier that starts each pass together. */
struct gate {
    pthread_mutex_t m;
    pthread_cond_t cv;
    int go;
    pthread_barrier_t bar;
};

struct copier {
    pthread_t th;
    struct gate *g;
    int cpu;    /* -1: not pinned */
    int pinned; /* the pin held */
    size_t region, t;
    int reps, failed;
    double tm[MAXREPS][4];
};

static void *copier_main(void *arg)
{
    struct copier *c = arg;
    unsigned char *buf = NULL, *reg = NULL;
    if (c->cpu >= 0) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(c->cpu, &set);
        c->pinned = pthread_setaffinity_np(pthread_self(), sizeof(set), &set) == 0;
    }
    /* Its own pages, touched by itself: on its own NUMA node where the
     * kernel places pages first-touch. */
    c->failed = buffers(c->region, c->t, &buf, &reg) != 0;
    pthread_mutex_lock(&c->g->m);
    while (!c->g->go)
        pthread_cond_wait(&c->g->cv, &c->g->m);
    pthread_mutex_unlock(&c->g->m);
    for (int k = 0; k < c->reps; k++) {
        pthread_barrier_wait(&c->g->bar); /* every pass starts together */
        if (!c->failed)
            pass(reg, buf, c->region / c->t, c->t, k, c->tm[k]);
    }
    free(buf);
    free(reg);
    return NULL;
}

/* The CPUs to pin to: the online ones (not this process's affinity,
 * which a launcher may have narrowed to one core). */
static int online_cpus(int *cpus, int max)
{
    char text[4096] = "";
    FILE *f = fopen("/sys/devices/system/cpu/online", "re");
    if (f) {
        if (!fgets(text, sizeof(text), f))
            text[0] = '\0';
        fclose(f);
    }
    int n = text[0] ? pfs_cpu_list_parse(text, cpus, max) : -1;
    if (n > 0)
        return n;
    long m = sysconf(_SC_NPROCESSORS_ONLN);
    for (n = 0; n < m && n < max; n++)
        cpus[n] = n;
    return n > 0 ? n : 1;
}

/* The median over passes of all threads' bytes over each pass's span. */
static void aggregate(const struct copier *c, int nt, int reps, double *into, double *from)
{
    double a[MAXREPS], b[MAXREPS];
    for (int k = 0; k < reps; k++) {
        double s0 = 1e300, e0 = 0, s1 = 1e300, e1 = 0, bytes = 0;
        for (int i = 0; i < nt; i++) {
            const double *tm = c[i].tm[k];
            s0 = tm[0] < s0 ? tm[0] : s0, e0 = tm[1] > e0 ? tm[1] : e0;
            s1 = tm[2] < s1 ? tm[2] : s1, e1 = tm[3] > e1 ? tm[3] : e1;
            bytes += (double)(c[i].region / c[i].t * c[i].t);
        }
        a[k] = bytes / (e0 - s0) / MIB;
        b[k] = bytes / (e1 - s1) / MIB;
    }
    *into = median(a, reps);
    *from = median(b, reps);
}

int pfs_ceiling_memory(int threads, struct pfs_mem_ceiling *out, char *err, size_t errlen)
{
    static int cpus[MAXTHREADS];
    const int reps = 5;
    memset(out, 0, sizeof(*out));
    int ncpu = online_cpus(cpus, MAXTHREADS);
    int nt = threads > 0 ? (threads < MAXTHREADS ? threads : MAXTHREADS) : ncpu;
    long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
    size_t region = 32u << 20, t = 1u << 20;
    if (pages > 0 && psize > 0 && (double)region * nt > (double)pages * (double)psize / 8)
        region = (size_t)((double)pages * (double)psize / 8 / nt) / t * t;
    if (region < 4 * t) {
        snprintf(err, errlen, "memory ceiling: %d copies of %zu bytes would not fit an eighth of memory", nt, 4 * t);
        return -1;
    }
    out->region = region, out->transfer = t, out->threads = nt;
    if (pfs_memcpy_rate(region, t, reps, &out->one_into, &out->one_from) != 0) {
        snprintf(err, errlen, "memory ceiling: one core: %s", strerror(errno));
        return -1;
    }
    struct copier *c = calloc((size_t)nt, sizeof(*c));
    struct gate g = {.m = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};
    if (!c) {
        snprintf(err, errlen, "memory ceiling: no memory for %d threads", nt);
        return -1;
    }
    int started = 0, failed = 0;
    for (int i = 0; i < nt; i++) {
        c[i] = (struct copier){.g = &g, .cpu = i < ncpu ? cpus[i] : -1, .region = region, .t = t, .reps = reps};
        if (pthread_create(&c[i].th, NULL, copier_main, &c[i]) != 0)
            break;
        started++;
    }
    /* Fewer threads than asked (a limit on threads): the ceiling of those. */
    pthread_barrier_init(&g.bar, NULL, (unsigned)(started > 0 ? started : 1));
    pthread_mutex_lock(&g.m);
    g.go = 1;
    pthread_cond_broadcast(&g.cv);
    pthread_mutex_unlock(&g.m);
    out->pinned = started > 0;
    for (int i = 0; i < started; i++) {
        pthread_join(c[i].th, NULL);
        failed |= c[i].failed;
        out->pinned &= c[i].pinned;
    }
    pthread_barrier_destroy(&g.bar);
    out->threads = nt = started;
    if (failed || started == 0) {
        snprintf(err, errlen, "memory ceiling: %s", started == 0 ? "could not start a thread"
                 : "no memory for a region on every thread");
        free(c);
        return -1;
    }
    aggregate(c, nt, reps, &out->all_into, &out->all_from);
    free(c);
    return 0;
}

/* ---- the network's arithmetic ---- */

void pfs_ceiling_ring(int node, int nnodes, int *to, int *from)
{
    *to = nnodes > 0 ? (node + 1) % nnodes : 0;
    *from = nnodes > 0 ? (node + nnodes - 1) % nnodes : 0;
}

void pfs_ceiling_net_figures(struct pfs_net_ceiling *c)
{
    double longest = 0, *rates = malloc((size_t)(c->nnodes > 0 ? c->nnodes : 1) * sizeof(*rates));
    c->job_mibs = c->min_mibs = c->median_mibs = c->max_mibs = 0;
    c->slowest = -1;
    if (!rates || c->nnodes < 1 || !c->node) {
        free(rates);
        return;
    }
    for (int i = 0; i < c->nnodes; i++) {
        struct pfs_net_node *n = &c->node[i];
        n->mibs = n->secs > 0 ? (double)c->bytes_per_node / n->secs / MIB : 0;
        rates[i] = n->mibs;
        longest = n->secs > longest ? n->secs : longest;
        if (c->slowest < 0 || n->mibs < c->node[c->slowest].mibs)
            c->slowest = i;
    }
    c->job_mibs = longest > 0 ? (double)c->bytes_per_node * c->nnodes / longest / MIB : 0;
    c->min_mibs = c->node[c->slowest].mibs;
    c->median_mibs = median(rates, c->nnodes);
    c->max_mibs = rates[c->nnodes - 1]; /* sorted by median() */
    free(rates);
}

void pfs_net_ceiling_free(struct pfs_net_ceiling *c)
{
    free(c->node);
    c->node = NULL;
}

/* ---- the run's ceilings ---- */

double pfs_ceiling_copy_rate(double into, double from)
{
    return into > 0 && from > 0 ? 2.0 / (1.0 / into + 1.0 / from) : 0;
}

void pfs_ceilings_sum(struct pfs_ceilings *c)
{
    c->memory = 0;
    c->network = c->nnodes > 1 ? 0 : NAN;
    for (int i = 0; i < c->nnodes; i++) {
        c->memory += c->node[i].memcpy_all;
        if (c->nnodes > 1)
            c->network += c->node[i].network;
    }
}

int pfs_ceilings_share(const struct pfs_ceilings *c, double bw, double *mem_pct, double *net_pct)
{
    *mem_pct = c && c->memory > 0 ? 100.0 * bw / c->memory : NAN;
    *net_pct = c && c->network > 0 ? 100.0 * bw / c->network : NAN;
    if (isnan(*mem_pct) && isnan(*net_pct))
        return PFS_CEIL_NONE;
    if (isnan(*net_pct))
        return PFS_CEIL_MEMORY;
    if (isnan(*mem_pct))
        return PFS_CEIL_NETWORK;
    return c->network < c->memory ? PFS_CEIL_NETWORK : PFS_CEIL_MEMORY;
}
