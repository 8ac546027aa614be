/* -f JOBFILE: every [section] of a job file (pfs/jobfile.h) as one run,
 * in order, inside this one MPI job: one start-up for the whole campaign.
 * Rank 0 reads the file and sends its text to every rank; every rank
 * parses it alike, so every rank reaches the same verdict; every section is
 * checked before the first runs, as the parser sees it and then as a run
 * would check it on the file system (directory, results file, memory,
 * alignment): exit 2 with each error's file and line, nothing made. A
 * section its watchdog gives up is recorded failed and the job goes on
 * without the ranks it lost (survive.c). */
#include "driver.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pfs/jobfile.h"
#include "survive.h"

/* Local, rank 0: the file's text (malloc'ed), or NULL with err set. */
static char *read_job(const char *path, long *len, char *err, size_t errlen)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    struct stat st;
    char *text = NULL;
    if (fd < 0 || fstat(fd, &st) != 0) {
        snprintf(err, errlen, "-f %.400s: %s", path, strerror(errno));
    } else if (!S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "-f %.400s: not a regular file", path);
    } else if (st.st_size > PFS_JOB_MAX_BYTES) {
        snprintf(err, errlen, "-f %.400s: larger than %d bytes", path, PFS_JOB_MAX_BYTES);
    } else if (!(text = malloc((size_t)st.st_size + 1))) {
        snprintf(err, errlen, "-f %.400s: out of memory", path);
    } else {
        ssize_t n = read(fd, text, (size_t)st.st_size);
        if (n != (ssize_t)st.st_size) {
            snprintf(err, errlen, "-f %.400s: %s", path, n < 0 ? strerror(errno) : "short read");
            free(text);
            text = NULL;
        } else {
            text[n] = '\0';
            *len = (long)n;
        }
    }
    if (fd >= 0)
        close(fd);
    return text;
}

/* The command line's own options for every section: argv without argv[0],
 * -f FILE (or --job FILE, --job=FILE, -fFILE) and --stop-on-error. */
static int cli_words(int argc, char **argv, char **out)
{
    int n = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-f") == 0 || strcmp(a, "--job") == 0) {
            i++;
            continue;
        }
        if (strncmp(a, "--job=", 6) == 0 || (strncmp(a, "-f", 2) == 0 && a[2]) || strcmp(a, "--stop-on-error") == 0)
            continue;
        out[n++] = argv[i];
    }
    out[n] = NULL;
    return n;
}

/* Rank 0: the errors, one "pfsbench: error: " line each. */
static void say_errors(const char *err)
{
    for (const char *p = err; *p;) {
        size_t n = strcspn(p, "\n");
        fprintf(stderr, "pfsbench: error: %.*s\n", (int)n, p);
        p += n + (p[n] == '\n');
    }
}

char *drv_job_read(MPI_Comm comm, const char *path, int expand)
{
    char err[PFS_ERRLEN] = "";
    long len = -1;
    char *text = NULL;
    int rank;
    MPI_Comm_rank(comm, &rank);
    if (rank == 0) {
        char *raw = read_job(path, &len, err, sizeof(err));
        text = raw && expand ? pfs_jobfile_expand(path, raw, err, sizeof(err)) : raw;
        len = text ? (long)strlen(text) : -1;
        if (raw != text)
            free(raw);
    }
    MPI_Bcast(&len, 1, MPI_LONG, 0, comm);
    if (len < 0) {
        if (rank == 0)
            say_errors(err);
        return NULL;
    }
    if (rank != 0 && !(text = malloc((size_t)len + 1))) {
        /* The broadcast cannot be left half-joined: end the job, saying why. */
        fprintf(stderr, "pfsbench: error: rank %d: -f %s: no memory for %ld bytes\n", rank, path, len);
        MPI_Abort(comm, PFS_EXIT_IO);
    }
    MPI_Bcast(text, (int)len, MPI_CHAR, 0, comm);
    text[len] = '\0';
    return text;
}

static const char *format_name(int f)
{
    return f == PFS_FORMAT_JSON ? "json" : f == PFS_FORMAT_CSV ? "csv" : f == PFS_FORMAT_IOR ? "ior"
         : f == PFS_FORMAT_MDTEST ? "mdtest" : "text";
}

/* Rank 0: every section checked as its run would check it before it
 * makes anything, and the job's output one format (one document). Every
 * error, one "PATH:LINE: section [name]: ..." line each; 0 or -1. */
static int check_sections(const char *path, const struct pfs_jobfile *jf, int nranks, int *format, char *err,
                          size_t len)
{
    size_t used = 0;
    int bad = 0, units = -1;
    *format = -1;
    err[0] = '\0';
    for (int i = 0; i < jf->n; i++) {
        const struct pfs_job_section *sec = &jf->sec[i];
        struct pfs_config cfg;
        char msg[PFS_ERRLEN] = "";
        int rc = pfs_config_parse(&cfg, sec->argc, sec->argv, msg, sizeof(msg)) == PFS_PARSE_RUN ? 0 : -1;
        if (rc == 0 && *format >= 0 && cfg.format != *format)
            rc = -1, snprintf(msg, sizeof(msg), "--format %s, where the sections before it print %s: a job prints one "
                              "document", format_name(cfg.format), format_name(*format));
        else if (rc == 0 && cfg.format == PFS_FORMAT_CSV && units >= 0 && cfg.units != units)
            rc = -1, snprintf(msg, sizeof(msg), "--units %s, where the sections before it use %s: a job's CSV has "
                              "one header", pfs_units_label(cfg.units), pfs_units_label(units));
        else if (rc == 0 && cfg.clean && !cfg.run_id[0])
            rc = -1, snprintf(msg, sizeof(msg), "clean without run-id: a job's section removes only the files of the "
                              "run it names (the run-id of a section that kept them)");
        else if (rc == 0 && cfg.clean)
            ; /* rank 0 looks at DIR when the section runs, after the sections before it */
        else if (rc == 0 && cfg.ranks[0])
            rc = drv_sweep_check(&cfg, nranks, 1, msg, sizeof(msg));
        else if (rc == 0 && (rc = pfs_config_resolve(&cfg, nranks, msg, sizeof(msg))) == 0)
            rc = drv_precheck_config(&cfg, nranks, msg, sizeof(msg));
        if (rc == 0 && *format < 0) {
            *format = cfg.format;
            units = cfg.units;
        }
        if (rc != 0 && used < len) {
            used += (size_t)snprintf(err + used, len - used, "%s%s:%d: section [%s]: %s", bad ? "\n" : "", path,
                                     sec->line, sec->name, msg);
            bad++;
        }
    }
    return bad ? -1 : 0;
}

/* The job's last line: how many sections completed, failed, did not run. */
static void summarize(const char *path, int n, int ran, int completed, int why_not, char *out, size_t len)
{
    size_t m = (size_t)snprintf(out, len, "pfsbench: job %s: %d of %d sections completed", path, completed, n);
    if (ran > completed && m < len)
        m += (size_t)snprintf(out + m, len - m, ", %d failed", ran - completed);
    if (ran < n && m < len)
        snprintf(out + m, len - m, ", %d not run (%s)", n - ran,
                 why_not == 1 ? "interrupted" : why_not == 2 ? "--stop-on-error" : "this rank left the job");
}

/* Collective over the live ranks: one plain section, on a communicator of
 * its own. Its status (the worst any rank had), or -1 when this rank parked. */
static int run_plain(struct drv_jobctl *jc, const struct pfs_job_section *sec, const struct drv_job *job, int i,
                     int n)
{
    MPI_Comm sub;
    int me, all = 0;
    MPI_Comm_rank(drv_job_live(jc), &me);
    if (me == 0)
        fprintf(stderr, "pfsbench: job %s: section [%s] (%d of %d)\n", job->path, sec->name, i + 1, n);
    MPI_Comm_dup(drv_job_live(jc), &sub);
    drv_job_step(jc, 1, 0);
    int mine = drv_dispatch(sub, sec->argc, sec->argv, job, jc); /* a section may be a sweep */
    MPI_Comm_free(&sub);
    drv_job_step(jc, 1, 0); /* a sweep inside went through steps of its own */
    return drv_job_settle(jc, &mine, &all) < 0 ? -1 : all;
}

/* Runs the sections in order. Returns the first failing section's exit
 * status (0 when all passed); an interrupted section ends the job. */
static int run_sections(struct drv_jobctl *jc, const struct pfs_jobfile *jf, const struct drv_job *base,
                        int stop_on_error, char *summary, size_t len)
{
    int first = 0, completed = 0, ran = 0, why_not = 3;
    for (int i = 0; i < jf->n && !drv_job_parked(jc);) {
        struct drv_job job = *base;
        job.section = jf->sec[i].name;
        job.index = i;
        int j = i + 1, st[64] = {0};
        if (jf->sec[i].group[0]) { /* a concurrent group: its sections at once */
            while (j < jf->n && strcmp(jf->sec[j].group, jf->sec[i].group) == 0)
                j++;
            if (drv_concurrent_run(jc, jf, i, j, base, st) < 0)
                break;
        } else if ((st[0] = run_plain(jc, &jf->sec[i], &job, i, jf->n)) < 0) {
            break;
        }
        int worst = 0;
        for (int g = 0; g < j - i; g++) {
            completed += st[g] == 0;
            if (st[g] && !first)
                first = st[g];
            worst = st[g] > worst ? st[g] : worst;
        }
        ran += j - i;
        i = j;
        if (worst > 128 || (worst && stop_on_error)) {
            why_not = worst > 128 ? 1 : 2;
            break;
        }
    }
    summarize(base->path, jf->n, ran, completed, why_not, summary, len);
    return first;
}

int drv_job_sections(MPI_Comm comm, const struct drv_job *base, const struct pfs_jobfile *jf, int format,
                     int stop_on_error, struct drv_jobctl *jc, char *summary, size_t slen)
{
    int rank, nranks;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &nranks);
    char *err = malloc(PFS_ERRLEN * 8);
    int rc = err ? pfs_jobfile_check(base->path, jf, nranks, err, PFS_ERRLEN * 8) : -1;
    /* Then what needs the file system, on rank 0, for every section. */
    if (rc == 0 && rank == 0)
        rc = check_sections(base->path, jf, nranks, &format, err, PFS_ERRLEN * 8);
    MPI_Bcast(&rc, 1, MPI_INT, 0, comm);
    MPI_Bcast(&format, 1, MPI_INT, 0, comm);
    if (rc != 0 && rank == 0)
        say_errors(err ? err : "out of memory");
    free(err);
    if (rc != 0)
        return PFS_EXIT_USAGE;
    char line[512];
    drv_job_format(jc, format);
    rc = run_sections(jc, jf, base, stop_on_error, summary ? summary : line, summary ? slen : sizeof(line));
    int me = -1;
    if (!summary && !drv_job_parked(jc) && MPI_Comm_rank(drv_job_live(jc), &me) == MPI_SUCCESS && me == 0)
        fprintf(stderr, "%s\n", line);
    return rc;
}

int drv_job_run(MPI_Comm comm, const struct pfs_config *cli, int argc, char **argv, struct drv_jobctl *jc,
                char *summary, size_t slen)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    char *text = drv_job_read(comm, cli->job, 1);
    if (!text)
        return PFS_EXIT_USAGE;
    char **words = calloc((size_t)argc + 1, sizeof(*words));
    char *err = malloc(PFS_ERRLEN * 8);
    struct pfs_jobfile jf = {0};
    int rc = !words || !err ? -1 : 0;
    if (rc == 0) {
        int n = cli_words(argc, argv, words);
        rc = pfs_jobfile_parse(cli->job, text, n, words, &jf, err, PFS_ERRLEN * 8);
        if (rc != 0 && rank == 0) /* alike on every rank: none goes on */
            say_errors(err);
    } else if (rank == 0) {
        fprintf(stderr, "pfsbench: error: -f %s: out of memory\n", cli->job);
    }
    if (rc == 0) {
        const struct drv_job base = {.path = cli->job, .text = text};
        rc = drv_job_sections(comm, &base, &jf, cli->format, cli->stop_on_error, jc, summary, slen);
    } else {
        rc = PFS_EXIT_USAGE;
    }
    pfs_jobfile_free(&jf);
    free(words);
    free(err);
    free(text);
    return rc;
}
