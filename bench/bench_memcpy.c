/* bench_memcpy: the memcpy ceiling, next to the file-system numbers.
 *
 * A page-cache write of a transfer is, at best, one memcpy from the
 * transfer buffer into the cache; a cached read is one memcpy out of it.
 * This measures exactly that with the same shapes pfsbench uses: a
 * transfer-sized source aligned like pfsbench's (posix_memalign 4096) and a
 * large, already faulted-in region (the "cache"), walked sequentially in
 * transfer-sized copies:
 *
 *   into   memcpy(region + off, buf, t)   the write direction
 *   from   memcpy(buf, region + off, t)   the read direction
 *
 * The region is pre-faulted, so this is the copy alone: tmpfs writes also
 * allocate and zero pages, and that is part of what they cost.
 *
 *   bench_memcpy [-s REGION] [-t SIZE[,SIZE...]] [-r REPS] [-j PROCS]
 *
 * -j runs PROCS copies at once in forked processes (like ranks) and sums
 * their bandwidth. Prints one line per transfer size, MiB/s = 2^20 bytes/s,
 * the median over REPS passes. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pfs/ceiling.h"
#include "pfs/config.h"
#include "pfs/core.h"
#include "pfs/units.h"

#define MAXT 16
#define MAXREPS 101
#define MIB 1048576.0

/* One process: median MiB/s into and from the region for transfer t (the
 * core's pfs_memcpy_rate, which the memory ceiling also uses). */
static void measure(size_t region, size_t t, int reps, double *into, double *from)
{
    if (pfs_memcpy_rate(region, t, reps, into, from) != 0) {
        fprintf(stderr, "bench_memcpy: cannot allocate %zu + %zu bytes\n", t, region);
        exit(1);
    }
}

int main(int argc, char **argv)
{
    uint64_t region = 256ULL << 20;
    uint64_t ts[MAXT];
    int nt = 0, reps = 5, procs = 1;
    int opt;
    while ((opt = getopt(argc, argv, "s:t:r:j:h")) != -1) {
        switch (opt) {
        case 's':
            if (pfs_parse_size(optarg, &region) != 0) {
                fprintf(stderr, "bench_memcpy: bad size '%s'\n", optarg);
                return 2;
            }
            break;
        case 't': {
            char *s = strdup(optarg), *save = NULL;
            for (char *p = strtok_r(s, ",", &save); p && nt < MAXT; p = strtok_r(NULL, ",", &save))
                if (pfs_parse_size(p, &ts[nt++]) != 0) {
                    fprintf(stderr, "bench_memcpy: bad size '%s'\n", p);
                    return 2;
                }
            free(s);
            break;
        }
        case 'r':
            reps = atoi(optarg);
            break;
        case 'j':
            procs = atoi(optarg);
            break;
        default:
            fprintf(stderr, "usage: bench_memcpy [-s REGION] [-t SIZE[,SIZE...]] [-r REPS] [-j PROCS]\n");
            return opt == 'h' ? 0 : 2;
        }
    }
    if (nt == 0) {
        ts[nt++] = 4096;
        ts[nt++] = 1 << 20;
        ts[nt++] = 16 << 20;
    }
    if (reps < 1 || reps > MAXREPS || procs < 1 || procs > 64) {
        fprintf(stderr, "bench_memcpy: -r takes 1..%d, -j 1..64\n", MAXREPS);
        return 2;
    }
    printf("memcpy ceiling: region %.0f MiB per process (pre-faulted), %d process%s, median of %d passes\n",
           (double)region / MIB, procs, procs == 1 ? "" : "es", reps);
    printf("%-10s %14s %14s\n", "transfer", "into MiB/s", "from MiB/s");
    for (int i = 0; i < nt; i++) {
        size_t t = (size_t)ts[i];
        if (t == 0 || t > region) {
            fprintf(stderr, "bench_memcpy: transfer %zu does not fit the region\n", t);
            return 2;
        }
        double into = 0, from = 0;
        if (procs == 1) {
            measure((size_t)region, t, reps, &into, &from);
        } else {
            int fds[64][2];
            pid_t pids[64];
            for (int p = 0; p < procs; p++) {
                if (pipe(fds[p]) != 0)
                    return 1;
                pids[p] = fork();
                if (pids[p] == 0) {
                    double r[2];
                    measure((size_t)region, t, reps, &r[0], &r[1]);
                    if (write(fds[p][1], r, sizeof(r)) != (ssize_t)sizeof(r))
                        _exit(1);
                    _exit(0);
                }
                close(fds[p][1]);
            }
            for (int p = 0; p < procs; p++) {
                double r[2] = {0, 0};
                if (read(fds[p][0], r, sizeof(r)) != (ssize_t)sizeof(r))
                    fprintf(stderr, "bench_memcpy: process %d gave no result\n", p);
                close(fds[p][0]);
                waitpid(pids[p], NULL, 0);
                into += r[0];
                from += r[1];
            }
        }
        char name[32];
        pfs_format_size(t, name, sizeof(name));
        for (char *c = name; *c; c++)
            if (*c == ' ')
                *c = '_';
        printf("%-10s %14.1f %14.1f\n", name, into, from);
        fflush(stdout);
    }
    return 0;
}
