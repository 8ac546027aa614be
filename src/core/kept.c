/* A kept run's status file (pfs/kept.h): its text, the check a later run
 * over the kept files must pass, and the two file operations. */
#define _GNU_SOURCE
#include "pfs/kept.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pfs/names.h"

#define KEPT_HEAD "pfsbench kept run, format 1"
#define KEPT_MAX 4096 /* a status is a few hundred bytes: a larger file is not one */

static const char *layout_name(int layout)
{
    return layout == PFS_LAYOUT_STRIDED ? "strided" : "segmented";
}

int pfs_kept_format(const struct pfs_kept *k, const char *run_id, char *buf, size_t len)
{
    int n = snprintf(buf, len, KEPT_HEAD "\nrun_id %s\nstreams %d\nranks %d\nthreads %d\n", run_id, k->streams,
                     k->ranks, k->threads);
    const size_t at = n > 0 && (size_t)n < len ? (size_t)n : len;
    int m = 0;
    if (k->transfer)
        m = snprintf(buf + at, len - at, "shared %d\nlayout %s\ntransfer %" PRIu64 "\nblock %" PRIu64
                     "\ntransfers %" PRIu64 "\nsegments %d\n", k->shared, layout_name(k->layout), k->transfer, k->block,
                     k->xfers, k->segments > 1 ? k->segments : 1);
    const size_t at2 = m >= 0 && at + (size_t)m < len ? at + (size_t)m : len;
    int f = 0;
    if (k->files_asked)
        f = snprintf(buf + at2, len - at2, "files_asked %" PRIu64 "\nfiles %" PRIu64 "\n", k->files_asked,
                     k->files);
    const size_t at3 = f >= 0 && at2 + (size_t)f < len ? at2 + (size_t)f : len;
    int c = 0;
    if (k->transfer && (k->compress || k->dedupe))
        c = snprintf(buf + at3, len - at3, "buffer_compress %d\ndedupe %d\n", k->compress, k->dedupe);
    return n < 0 || m < 0 || f < 0 || c < 0 ? -1 : n + m + f + c;
}

/* One "key value" line's value, as an unsigned number (the whole of it). */
static int num(const char *v, uint64_t max, uint64_t *out)
{
    char *end = NULL;
    errno = 0;
    unsigned long long x = strtoull(v, &end, 10);
    if (errno || end == v || *end != '\0' || *v == '-' || x > max)
        return -1;
    *out = x;
    return 0;
}

/* Parses one line "key value" into k; bit i of *seen for the i-th key.
 * Unknown keys are skipped (a later format may add some). */
static int parse_line(char *line, struct pfs_kept *k, unsigned *seen)
{
    static const char *const keys[] = {"streams", "ranks", "threads", "shared", "layout", "transfer", "block",
                                       "transfers", "run_id", "segments", "files_asked", "files",
                                       "buffer_compress", "dedupe"};
    char *v = strchr(line, ' ');
    if (!v)
        return -1;
    *v++ = '\0';
    uint64_t x = 0;
    for (unsigned i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
        if (strcmp(line, keys[i]) != 0)
            continue;
        *seen |= 1u << i;
        if (i == 8)
            return pfs_run_id_valid(v) ? 0 : -1;
        if (i == 9) { /* optional: a status from before --segments has none */
            int bad = num(v, (uint64_t)INT32_MAX, &x) != 0 || x < 1;
            k->segments = bad ? 0 : (int)x;
            return bad ? -1 : 0;
        }
        if (i >= 12) { /* optional: the content, percentages */
            int bad = num(v, 100, &x) != 0;
            *(i == 12 ? &k->compress : &k->dedupe) = bad ? 0 : (int)x;
            return bad ? -1 : 0;
        }
        if (i == 4) {
            k->layout = !strcmp(v, "strided") ? PFS_LAYOUT_STRIDED : PFS_LAYOUT_SEGMENTED;
            return strcmp(v, "strided") && strcmp(v, "segmented") ? -1 : 0;
        }
        if (num(v, i < 4 ? (uint64_t)INT32_MAX : UINT64_MAX, &x) != 0)
            return -1;
        int *ints[] = {&k->streams, &k->ranks, &k->threads, &k->shared};
        uint64_t *u64s[] = {&k->transfer, &k->block, &k->xfers, NULL, NULL, &k->files_asked, &k->files};
        if (i < 4)
            *ints[i] = (int)x;
        else
            *u64s[i - 5] = x;
        return 0;
    }
    return 0;
}

int pfs_kept_parse(const char *text, struct pfs_kept *k, char *err, size_t len)
{
    memset(k, 0, sizeof(*k));
    k->segments = 1;
    const size_t hl = strlen(KEPT_HEAD);
    if (strncmp(text, KEPT_HEAD, hl) != 0 || text[hl] != '\n')
        return pfs_fail(err, len, "it does not start with \"" KEPT_HEAD "\"");
    unsigned seen = 0;
    for (const char *p = text + hl + 1; *p;) {
        size_t n = strcspn(p, "\n");
        char line[256];
        if (n >= sizeof(line))
            return pfs_fail(err, len, "a line is too long");
        memcpy(line, p, n);
        line[n] = '\0';
        if (n && parse_line(line, k, &seen) != 0)
            return pfs_fail(err, len, "bad line '%.100s'", p);
        p += n + (p[n] == '\n');
    }
    /* streams, ranks, threads; then the data part (shared .. transfers) and
     * the files part (files_asked, files), each whole or not at all. */
    const unsigned data = seen & 0xf8u, files = seen & 0xc00u;
    if ((seen & 7u) != 7u || (data && data != 0xf8u) || (files && files != 0xc00u) || (!data && !files))
        return pfs_fail(err, len, "a line is missing (it needs streams, ranks and threads, then shared, layout, "
                        "transfer, block and transfers, or files_asked and files, or both)");
    if (k->streams < 1 || (int64_t)k->ranks * k->threads != k->streams)
        return pfs_fail(err, len, "its streams do not fit together (%d streams, %d ranks x %d threads)", k->streams,
                        k->ranks, k->threads);
    if (data && (k->transfer == 0 || k->xfers > k->block / k->transfer ||
                 k->block % ((uint64_t)k->segments * k->transfer)))
        return pfs_fail(err, len, "its figures do not fit together (%d streams, %" PRIu64 " transfers of %" PRIu64
                    " bytes in a block of %" PRIu64 ")", k->streams, k->xfers, k->transfer, k->block);
    if (files && (k->files_asked < 1 || k->files_asked > INT32_MAX || k->files > k->files_asked))
        return pfs_fail(err, len, "its files do not fit together (%" PRIu64 " files of -n %" PRIu64 ")", k->files,
                        k->files_asked);
    return 0;
}

int pfs_kept_reads(const struct pfs_config *cfg)
{
    if (!cfg->run_id[0] || cfg->file_name[0]) /* --file-name's files have no status */
        return 0;
    for (int i = 0; i < cfg->nphases; i++)
        if (!pfs_phase_is_meta(cfg->phases[i]) && !pfs_phase_has(cfg->phases[i], PFS_PHF_OWN_FILES))
            return !pfs_phase_has(cfg->phases[i], PFS_PHF_CREATES); /* not the write that makes them */
    return 0;
}

/* A size as -t and -b take it: the largest of g, m, k that divides it, else bytes. */
static const char *size_arg(uint64_t b, char *buf, size_t len)
{
    static const char *const suffix[] = {"t", "g", "m", "k"};
    for (int i = 0; i < 4; i++) {
        const unsigned shift = 40u - 10u * (unsigned)i;
        if (b && b % (1ull << shift) == 0) {
            snprintf(buf, len, "%" PRIu64 "%s", b >> shift, suffix[i]);
            return buf;
        }
    }
    snprintf(buf, len, "%" PRIu64, b);
    return buf;
}

/* The kept run's shape, for every refusal. */
static void shape(const struct pfs_kept *k, const char *run_id, char *buf, size_t len)
{
    char t[32], b[32], h[32];
    pfs_format_size(k->xfers * k->transfer, h, sizeof(h));
    snprintf(buf, len, "run %s kept %d stream%s (%d rank%s x %d thread%s), %s%s, -t %s -b %s: %" PRIu64
             " transfers (%s) in each stream's %s", run_id, k->streams, k->streams == 1 ? "" : "s", k->ranks,
             k->ranks == 1 ? "" : "s", k->threads, k->threads == 1 ? "" : "s",
             k->shared ? "one shared file, layout " : "a file per stream", k->shared ? layout_name(k->layout) : "",
             size_arg(k->transfer, t, sizeof(t)), size_arg(k->block, b, sizeof(b)), k->xfers, h,
             k->shared ? "segment" : "file");
}

int pfs_kept_check(const struct pfs_config *cfg, int nranks, const struct pfs_kept *k, const char *run_id,
                   uint64_t *xfers, char *err, size_t len)
{
    char sh[400], a[32];
    const int streams = nranks * (cfg->threads > 0 ? cfg->threads : 1);
    if (!k->transfer)
        return pfs_fail(err, len, "--run-id %s: run %s kept no data files (its status, pfsbench.%s.kept, says only "
                        "what its small files are)", run_id, run_id, run_id);
    shape(k, run_id, sh, sizeof(sh));
    if (streams != k->streams)
        return pfs_fail(err, len, "%s; this run has %d stream%s (%d rank%s x %d thread%s): it would read %s; run it with "
                    "%d streams (ranks x --threads)", sh, streams, streams == 1 ? "" : "s", nranks,
                    nranks == 1 ? "" : "s", cfg->threads, cfg->threads == 1 ? "" : "s",
                    streams < k->streams ? "a part of them" : "files no stream wrote", k->streams);
    if (!cfg->shared != !k->shared)
        return pfs_fail(err, len, "%s; give %s", sh, k->shared ? "--shared" : "no --shared");
    /* A file per stream holds its transfers from offset 0 on, so a -t that
     * divides the kept one reads the same bytes in smaller pieces (IO500's
     * ior-rnd4K-easy-read: 4 KiB reads of ior-easy's 2 MiB writes). */
    const int finer = !k->shared && cfg->transfer && cfg->transfer < k->transfer && k->transfer % cfg->transfer == 0;
    if (cfg->transfer != k->transfer && !finer)
        return pfs_fail(err, len, "%s; give -t %s%s", sh, size_arg(k->transfer, a, sizeof(a)),
                        k->shared ? "" : " or a -t that divides it");
    /* --verify expects the content the files were written with; --dedupe's
     * unit is the transfer. */
    if (cfg->verify && (cfg->buffer_compress != k->compress || cfg->dedupe != k->dedupe))
        return pfs_fail(err, len, "%s, written with --buffer-compress %d --dedupe %d; --verify expects that content: "
                        "give them", sh, k->compress, k->dedupe);
    if (cfg->verify && k->dedupe && cfg->transfer != k->transfer)
        return pfs_fail(err, len, "%s, written with --dedupe %d in units of -t; --verify expects that content: give "
                        "-t %s", sh, k->dedupe, size_arg(k->transfer, a, sizeof(a)));
    const uint64_t pieces = k->transfer / cfg->transfer;
    /* In a shared file the segments move every transfer but a stream's first. */
    const int segs = cfg->segments > 1 ? cfg->segments : 1, ksegs = k->segments > 1 ? k->segments : 1;
    if (cfg->shared && cfg->layout != PFS_LAYOUT_STRIDED && segs != ksegs)
        return pfs_fail(err, len, "%s in %d segment%s; give --segments %d", sh, ksegs, ksegs == 1 ? "" : "s", ksegs);
    /* A file per stream and the strided layout put transfer j where -b does
     * not move it: a -b of exactly what each stream holds reads it all too. */
    const int b_moves = cfg->shared && cfg->layout != PFS_LAYOUT_STRIDED;
    if (cfg->block == k->block || (!b_moves && cfg->block == k->xfers * k->transfer)) {
        *xfers = k->xfers * pieces;
        return 0;
    }
    return pfs_fail(err, len, "%s; give -b %s (the kept run's) to read exactly what it wrote", sh,
                size_arg(k->block, a, sizeof(a)));
}

int pfs_kept_md_check(const struct pfs_config *cfg, int nranks, const struct pfs_kept *k, const char *run_id,
                      uint64_t *files, char *err, size_t len)
{
    *files = (uint64_t)cfg->files;
    if (!k->files_asked) /* a status of data files only: the set-up's probe checks -n */
        return 0;
    char sh[300];
    snprintf(sh, sizeof(sh), "run %s kept %" PRIu64 " small file%s in each of its %d stream%s (%d rank%s x %d "
             "thread%s)%s -n %" PRIu64 "%s", run_id, k->files, k->files == 1 ? "" : "s", k->streams,
             k->streams == 1 ? "" : "s", k->ranks, k->ranks == 1 ? "" : "s", k->threads, k->threads == 1 ? "" : "s",
             k->files < k->files_asked ? ", of the" : " as its", k->files_asked,
             k->files < k->files_asked ? " it asked (its stonewall stopped the create)" : " asked");
    const int streams = nranks * (cfg->threads > 0 ? cfg->threads : 1);
    if (streams != k->streams)
        return pfs_fail(err, len, "%s; this run has %d stream%s (%d rank%s x %d thread%s); run it with %d streams "
                        "(ranks x --threads)", sh, streams, streams == 1 ? "" : "s", nranks, nranks == 1 ? "" : "s",
                        cfg->threads, cfg->threads == 1 ? "" : "s", k->streams);
    if ((uint64_t)cfg->files != k->files && (uint64_t)cfg->files != k->files_asked) {
        if (k->files < k->files_asked)
            return pfs_fail(err, len, "%s; give -n %" PRIu64 " (the kept run's) or -n %" PRIu64 " to work on exactly "
                            "them", sh, k->files_asked, k->files);
        return pfs_fail(err, len, "%s; give -n %" PRIu64 " to work on exactly them", sh, k->files);
    }
    *files = k->files;
    return 0;
}

int pfs_kept_write(int at, const char *dir, const char *run_id, const struct pfs_kept *k, struct pfs_fid *fid,
                   char *err, size_t len)
{
    char path[PFS_PATH_MAX + 128], text[1024];
    if (pfs_name_kept(path, sizeof(path), dir, run_id) != 0)
        return pfs_fail(err, len, "the kept run's status file name does not fit");
    const int n = pfs_kept_format(k, run_id, text, sizeof(text));
    int fd = pfs_open_own_at(at, path, O_WRONLY | O_CREAT | O_EXCL, 0644, NULL, fid);
    if (fd < 0) {
        char why[200];
        return pfs_fail(err, len, "%s: %s", path, pfs_safefile_why(fd, path, why, sizeof(why)) ? why : strerror(-fd));
    }
    int e = 0;
    if (write(fd, text, (size_t)n) != n)
        e = errno ? errno : ENOSPC;
    else if (fsync(fd) != 0)
        e = errno;
    close(fd);
    if (e) {
        pfs_unlink_own_at(at, path, fid);
        return pfs_fail(err, len, "%s: %s", path, strerror(e));
    }
    return 0;
}

/* What the run id left in dir, when its status is not there. */
static int missing(const char *dir, const char *run_id, const char *path, char *err, size_t len)
{
    char other[PFS_PATH_MAX + 128];
    struct stat st;
    if ((pfs_name_data(other, sizeof(other), dir, run_id, 0, 0) == 0 && lstat(other, &st) == 0) ||
        (pfs_name_data(other, sizeof(other), dir, run_id, 1, 0) == 0 && lstat(other, &st) == 0))
        return pfs_fail(err, len, "--run-id %s: %s is there but not %s, which a run that keeps its files (-k) makes "
                    "at its end: the run that wrote it failed, was stopped, or did not keep it; what its files "
                    "hold is not known", run_id, other, path);
    return pfs_fail(err, len, "--run-id %s: no run kept data files in %s (there is no %s); a run keeps them with -k and "
                "names its id at the end", run_id, dir, path);
}

int pfs_kept_read(const char *dir, const char *run_id, struct pfs_kept *k, struct pfs_fid *fid, char *err,
                  size_t len)
{
    char path[PFS_PATH_MAX + 128], text[KEPT_MAX + 1], why[300];
    if (pfs_name_kept(path, sizeof(path), dir, run_id) != 0)
        return pfs_fail(err, len, "the kept run's status file name does not fit");
    int fd = pfs_open_own(path, O_RDONLY, 0, NULL, fid);
    if (fd == -ENOENT)
        return missing(dir, run_id, path, err, len);
    if (fd < 0)
        return pfs_fail(err, len, "--run-id %s: %s: %s", run_id, path,
                    pfs_safefile_why(fd, path, why, sizeof(why)) ? why : strerror(-fd));
    ssize_t n = read(fd, text, KEPT_MAX + 1);
    int e = errno;
    close(fd);
    if (n < 0)
        return pfs_fail(err, len, "--run-id %s: %s: %s", run_id, path, strerror(e));
    if (n > KEPT_MAX)
        return pfs_fail(err, len, "--run-id %s: %s is larger than a kept run's status", run_id, path);
    text[n] = '\0';
    if (pfs_kept_parse(text, k, why, sizeof(why)) != 0)
        return pfs_fail(err, len, "--run-id %s: %s is not a kept run's status: %s", run_id, path, why);
    return 0;
}
