/* Job files: several runs in one MPI job, in fio's job-file syntax.
 *
 *   # a comment (also ; at the start of a line)
 *   [global]
 *   dir = /scratch/me/pfs
 *   transfer = 1m
 *   fsync
 *
 *   [write-read]
 *   phases = write,read
 *   block = 4g
 *
 *   [metadata]
 *   phases = create,stat,delete
 *   files = 10000
 *
 * Each line is `option = value` with a long option name of pfsbench, or a
 * flag's bare name (or `flag = 1`; `flag = 0` leaves it out), or one of
 * fio's keys (jobfile_fio.c: bs = 1m, rw = write, numjobs = 2 ...; the
 * others refused with why). `#` or `;` after a blank starts a comment to
 * the end of the line. [global]
 * lines apply to every section after them. A section becomes one run: its
 * command line is "pfsbench", the globals, the command line's own options
 * (other than -f and --stop-on-error), then the section's lines, so a
 * section's word is final; its label is the section's name unless it
 * gives one. Four job-file words are not options: `concurrent = TAG`,
 * `share = N`, `interference = 1` and `qos = TARGETS` (see struct
 * pfs_job_section). Pure, local: the MPI layer reads the file on rank 0, sends its
 * text to every rank and runs the sections in order. */
#ifndef PFS_JOBFILE_H
#define PFS_JOBFILE_H

#include <stddef.h>

#define PFS_JOB_MAX_BYTES (1 << 20) /* a job file larger than this is refused */
#define PFS_JOB_MAX_SECTIONS 1024

struct pfs_job_section {
    char name[64];
    int line;                   /* of its [name] header */
    /* Concurrent groups: consecutive sections with the same `concurrent =
     * TAG` run at the same time, each on its share of the job's nodes (or
     * ranks, with fewer nodes than sections), `share = N` (default 1). */
    char group[64];
    int share;
    /* `interference = 1` on any section of a group: each section runs
     * alone first, then all together (pfs/interfere.h); `qos = TARGETS`
     * ("bw>=95%,p99<5ms"), a section's targets checked on the together
     * run, empty: none. Both only in a concurrent group. */
    int interference;
    char qos[96];
    int argc;
    char **argv;                /* argv[0] = "pfsbench"; NULL-terminated */
    int *arg_line;              /* the job-file line each argv word came from (0: the command line) */
};

struct pfs_jobfile {
    int n;
    struct pfs_job_section *sec;
};

/* Local. text with ${NAME} and ${NAME:-default} replaced from the
 * environment (as fio's job files take them), so one job file serves every
 * size and directory: a malloc'ed copy, or NULL with err set ("PATH:LINE:
 * ${NAME} is not set" for a name without a default, or a value holding a
 * newline). Rank 0 expands before it sends the text, so every rank parses
 * the same words whatever environment mpirun gave it. */
char *pfs_jobfile_expand(const char *path, const char *text, char *err, size_t len);

/* Local. Parses text (the job file path for messages) with the command
 * line's own options (cli_argc/cli_argv: argv without argv[0], -f FILE and
 * --stop-on-error). 0, or -1 with every error found as "PATH:LINE: ..."
 * lines in err (nothing allocated then). */
int pfs_jobfile_parse(const char *path, const char *text, int cli_argc, char **cli_argv, struct pfs_jobfile *jf,
                      char *err, size_t len);

/* Local. Checks every section as pfsbench would parse it (pfs_config_parse
 * and pfs_config_resolve for nranks ranks): 0, or -1 with one line per bad
 * section in err, naming the file, the line of the option at fault where
 * it can tell, and the section. */
int pfs_jobfile_check(const char *path, const struct pfs_jobfile *jf, int nranks, char *err, size_t len);

void pfs_jobfile_free(struct pfs_jobfile *jf);

/* ranks.c. Local. The points of a rank sweep (--ranks): "pow2" (1, 2, 4, ... and
 * nranks itself when it is not a power of two), "all" (1 .. nranks), or a
 * comma list of counts from 1 to nranks. Sorted, without repeats, into
 * pts (at most max). Returns the count, or -1 with err set. */
int pfs_ranks_points(const char *spec, int nranks, int *pts, int max, char *err, size_t len);

/* Local. The order in which a sweep takes ranks: round-robin across nodes
 * (the first rank of each node in node order, then the second ...), so k
 * ranks of K nodes are on min(k, K) nodes. order has nranks entries (fewer
 * than 2^21 ranks and nodes). 0, or -1 without memory. */
int pfs_ranks_round_robin(const int *node_of_rank, int nranks, int nnodes, int *order);

#endif
