/* --file-name's data files before a run (pfs/userfiles.h): a write finds
 * none of them, a read finds each large enough. */
#include "pfs/userfiles.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "pfs/names.h"
#include "pfs/phase.h"

/* Why a write refuses a name already there, and what IOR's users do instead. */
static int refuse_there(const char *path, int others, const char *dir, char *err, size_t len)
{
    char more[64] = "";
    if (others)
        snprintf(more, sizeof(more), " (and %d more of this run's names)", others);
    return pfs_fail(err, len, "%s is already there%s: pfsbench never writes over a file it did not create; remove it "
                    "first, or, for a Lustre layout, set the directory's default layout (lfs setstripe -c N %s), which "
                    "the new files inherit (as IO500 does)", path, more, dir);
}

/* The bytes a read of this run needs in each file: a stream's block with a
 * file per stream, every stream's with one shared file. */
static uint64_t needed(const struct pfs_config *cfg, int nstreams, uint64_t xfers)
{
    const uint64_t stream = xfers ? xfers * cfg->transfer : cfg->block;
    return cfg->shared ? stream * (uint64_t)nstreams : stream;
}

static int check_read(const struct pfs_config *cfg, const char *path, int nstreams, uint64_t xfers, char *err,
                      size_t len)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return pfs_fail(err, len, "--file-name: %s: %s; a run without write reads files that are there (write them "
                        "first, e.g. with -p write -k)", path, strerror(errno));
    if (!S_ISREG(st.st_mode))
        return pfs_fail(err, len, "--file-name: %s is not a regular file; pfsbench reads regular files only", path);
    const uint64_t want = needed(cfg, nstreams, xfers);
    if (xfers && (uint64_t)st.st_size < want)
        return pfs_fail(err, len, "--file-name: %s holds %lld bytes; the %" PRIu64 " transfers per stream of "
                        "--stonewall-file need at least %" PRIu64 " bytes in it", path, (long long)st.st_size, xfers, want);
    if ((uint64_t)st.st_size < want)
        return pfs_fail(err, len, "--file-name: %s holds %lld bytes; this run reads %" PRIu64 " bytes of it (%s-b %"
                        PRIu64 "%s): give a -b that fits what the file holds", path, (long long)st.st_size, want,
                        cfg->shared ? "every stream's " : "", cfg->block,
                        cfg->shared ? ", one shared file" : ", a file per stream");
    return 0;
}

/* A data file's name that pfsbench gives its own files: -m's repetition
 * after PATH pfsbench.ID makes pfsbench.ID.REP, run ID's data file, which
 * --clean takes for a dead run's and removes, under a live run too. */
static int own_name(const struct pfs_config *cfg, const char *path, char *err, size_t len)
{
    const char *slash = strrchr(path, '/'), *name = slash ? slash + 1 : path;
    if (pfs_name_parse(name, NULL) == PFS_NAME_NONE)
        return 0;
    return pfs_fail(err, len, "--file-name %s: the data file %s would have a name pfsbench gives its own files, which "
                    "pfsbench --clean removes; choose another name", cfg->file_name, path);
}

/* Whether name in the directory of dir (a stat) is the results file: the
 * same file when both are there, else the same name in the same directory. */
static int is_results(const struct pfs_config *cfg, const struct stat *dir, const char *base, const char *path)
{
    char rdir[PFS_PATH_MAX], rbase[PFS_PATH_MAX];
    struct stat a, b;
    if (cfg->no_results || !cfg->results[0])
        return 0;
    if (lstat(cfg->results, &a) == 0 && lstat(path, &b) == 0)
        return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
    return pfs_name_split(cfg->results, rdir, sizeof(rdir), rbase, sizeof(rbase)) == 0 && strcmp(rbase, base) == 0 &&
           stat(rdir, &a) == 0 && a.st_dev == dir->st_dev && a.st_ino == dir->st_ino;
}

int pfs_user_files_check(const struct pfs_config *cfg, int nstreams, int writes, uint64_t xfers, char *err, size_t len)
{
    char base[PFS_PATH_MAX], dir[PFS_PATH_MAX], path[PFS_PATH_MAX + 32], first[PFS_PATH_MAX + 32] = "";
    if (!cfg->file_name[0] || !pfs_phase_listed(cfg, PFS_PHASE_DATA, 0, 0)) /* no data file to look for */
        return 0;
    if (pfs_name_split(cfg->file_name, dir, sizeof(dir), base, sizeof(base)) != 0)
        return pfs_fail(err, len, "--file-name %s: not the path of a file", cfg->file_name);
    const int files = cfg->shared ? 1 : nstreams, reps = cfg->file_per_rep ? pfs_config_rep_slots(cfg) : 1;
    struct stat dst;
    const int dir_ok = stat(cfg->dir, &dst) == 0;
    int there = 0;
    for (int i = 0; i < files * reps; i++) {
        struct stat st;
        const int s = i % files, rep = cfg->file_per_rep ? i / files : -1;
        if (pfs_name_user(path, sizeof(path), cfg->dir, base, cfg->shared, s, rep) != 0)
            return pfs_fail(err, len, "--file-name %s: the data files' names do not fit", cfg->file_name);
        if (own_name(cfg, path, err, len) != 0)
            return -1;
        if (dir_ok && is_results(cfg, &dst, strrchr(path, '/') ? strrchr(path, '/') + 1 : path, path))
            return pfs_fail(err, len, "--file-name %s: the data file %s is the results file (-o %s): a run writes its "
                            "results there; give -o another name", cfg->file_name, path, cfg->results);
        if (!writes && check_read(cfg, path, nstreams, xfers, err, len) != 0)
            return -1;
        if (!writes)
            continue;
        if (lstat(path, &st) == 0) {
            if (!there++)
                snprintf(first, sizeof(first), "%s", path);
        } else if (errno != ENOENT) { /* a name too long for the directory (NAME_MAX), a file where a directory goes */
            return pfs_fail(err, len, "--file-name %s: this run cannot make %s: %s", cfg->file_name, path,
                            strerror(errno));
        }
    }
    return there ? refuse_there(first, there - 1, cfg->dir, err, len) : 0;
}
