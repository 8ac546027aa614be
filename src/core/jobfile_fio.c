/* fio's keys in a job file (jobfile_fio.h): one table row per key, what
 * it becomes in pfsbench's words or why it has no pfsbench meaning.
 * docs/usage.md's "fio's keys" table says the same. */
#include "jobfile_fio.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "pfs/units.h"

enum fio_kind {
    FK_OPT,    /* the value as it is, to opt */
    FK_SIZE,   /* a size as fio reads it (k = kb = KB = 1024), in bytes to opt */
    FK_BOOL,   /* 1 (or bare): the words of the value map's "1"; 0: nothing */
    FK_MAP,    /* the value map's words for the value */
    FK_ACCEPT, /* nothing to add: what it asks for is what pfsbench does (note) */
    FK_REFUSE, /* no pfsbench meaning (note says why) */
};

/* A value of a mapped key: its pfsbench words (space-separated), or NULL
 * and why it is refused. fio "*" matches any other value. */
struct fio_value {
    const char *fio, *words, *why;
};

struct fio_key {
    const char *key;
    enum fio_kind kind;
    const char *opt;                /* FK_OPT, FK_SIZE: pfsbench's long option */
    const struct fio_value *values; /* FK_MAP, FK_BOOL */
    const char *note;               /* FK_ACCEPT, FK_REFUSE: why */
};

static const struct fio_value rw_values[] = {
    {"write", "--phases=write", NULL},
    {"randwrite", "--phases=write --random", NULL},
    /* fio lays a read job's file out first, untimed; pfsbench writes it as a phase of the run. */
    {"read", "--phases=write,read", NULL},
    {"randread", "--phases=write,read --random", NULL},
    /* fio lays the file out first here too; rwmix mixes over it. */
    {"rw", "--phases=write,rwmix", NULL},
    {"readwrite", "--phases=write,rwmix", NULL},
    {"randrw", "--phases=write,rwmix --random", NULL},
    {"*", NULL, "has no pfsbench phase (pfsbench's data phases: write, rewrite, read, reread, rwmix)"},
    {NULL, NULL, NULL},
};

static const struct fio_value engine_values[] = {
    {"psync", "--api=posix", NULL},
    {"sync", "--api=posix", NULL},
    {"pvsync", "--api=posix", NULL},
    {"libaio", "--api=aio", NULL},
    {"io_uring", "--api=uring", NULL},
    {"mmap", "--api=mmap", NULL},
    {"null", "--api=null", NULL},
    {"posixaio", NULL, "(aio_read/aio_write) has no pfsbench backend; Linux AIO is ioengine = libaio (--api aio)"},
    {"*", NULL, "has no pfsbench backend (psync, sync, pvsync, libaio, io_uring, mmap and null have)"},
    {NULL, NULL, NULL},
};

static const struct fio_value end_fsync_values[] = {{"1", "--fsync", NULL}, {"0", "", NULL}, {NULL, NULL, NULL}};
static const struct fio_value buffered_values[] = {{"0", "--direct", NULL}, {"1", "", NULL}, {NULL, NULL, NULL}};
static const struct fio_value unlink_values[] = {{"0", "--keep", NULL}, {"1", "", NULL}, {NULL, NULL, NULL}};
static const struct fio_value sync_values[] = {{"0", "--sync=none", NULL}, {"1", "--sync=sync", NULL}, {NULL, NULL, NULL}};
static const struct fio_value verify_values[] = {
    {"0", "", NULL},
    {"*", NULL, "checksums blocks with its own headers; pfsbench's verify (bare) writes a pattern of its own and checks "
                "every byte read"},
    {NULL, NULL, NULL},
};

static const struct fio_key fio_keys[] = {
    {"bs", FK_SIZE, "transfer", NULL, NULL},
    {"blocksize", FK_SIZE, "transfer", NULL, NULL},
    {"size", FK_SIZE, "block", NULL, NULL},
    {"directory", FK_OPT, "dir", NULL, NULL},
    {"numjobs", FK_OPT, "threads", NULL, NULL},
    {"rw", FK_MAP, NULL, rw_values, NULL},
    {"readwrite", FK_MAP, NULL, rw_values, NULL},
    {"ioengine", FK_MAP, NULL, engine_values, NULL},
    {"fsync", FK_OPT, "fsync-every", NULL, NULL},
    {"end_fsync", FK_BOOL, NULL, end_fsync_values, NULL},
    {"ramp_time", FK_OPT, "ramp", NULL, NULL},
    {"random_distribution", FK_OPT, "random-dist", NULL, NULL},
    {"buffer_compress_percentage", FK_OPT, "buffer-compress", NULL, NULL},
    {"dedupe_percentage", FK_OPT, "dedupe", NULL, NULL},
    {"loops", FK_OPT, "reps", NULL, NULL},
    {"name", FK_OPT, "label", NULL, NULL},
    {"buffered", FK_MAP, NULL, buffered_values, NULL},
    {"unlink", FK_MAP, NULL, unlink_values, NULL},
    {"verify", FK_MAP, NULL, verify_values, NULL},
    {"sync", FK_MAP, NULL, sync_values, NULL},
    {"time_based", FK_ACCEPT, NULL, NULL, "pfsbench's runtime is always time based"},
    {"stonewall", FK_ACCEPT, NULL, NULL, "pfsbench runs a job file's sections one after the other"},
    {"wait_for_previous", FK_ACCEPT, NULL, NULL, "pfsbench runs a job file's sections one after the other"},
    {"new_group", FK_ACCEPT, NULL, NULL, "every section is a run of its own"},
    {"group_reporting", FK_ACCEPT, NULL, NULL, "pfsbench always reports a run's streams together"},
    {"thread", FK_ACCEPT, NULL, NULL, "a rank's streams are threads"},
    {"description", FK_ACCEPT, NULL, NULL, "a comment"},
    {"filename", FK_REFUSE, NULL, NULL, "pfsbench names its own files, or file-name PATH names them (PATH, or "
     "PATH.00000000 ... per stream); directory (or dir) says where"},
    {"filename_format", FK_REFUSE, NULL, NULL, "pfsbench names its own files, or file-name PATH names them (PATH, "
     "or PATH.00000000 ... per stream); directory (or dir) says where"},
    {"opendir", FK_REFUSE, NULL, NULL, "pfsbench makes its own files; directory (or dir) says where"},
    {"nrfiles", FK_REFUSE, NULL, NULL, "a stream has one data file (the metadata phases' files are files = N)"},
    {"openfiles", FK_REFUSE, NULL, NULL, "a stream has one data file"},
    {"file_service_type", FK_REFUSE, NULL, NULL, "a stream has one data file"},
    {"offset", FK_REFUSE, NULL, NULL, "pfsbench places each stream's block itself"},
    {"offset_increment", FK_REFUSE, NULL, NULL, "pfsbench places each stream's block itself (shared with layout)"},
    {"io_size", FK_REFUSE, NULL, NULL, "a phase moves the whole block once (or for runtime)"},
    {"io_limit", FK_REFUSE, NULL, NULL, "a phase moves the whole block once (or for runtime)"},
    {"number_ios", FK_REFUSE, NULL, NULL, "a phase moves the whole block once (or for runtime)"},
    {"fill_device", FK_REFUSE, NULL, NULL, "a phase moves the whole block once"},
    {"bsrange", FK_REFUSE, NULL, NULL, "a run has one transfer size"},
    {"bssplit", FK_OPT, "bssplit", NULL, NULL},
    {"blockalign", FK_REFUSE, NULL, NULL, "transfers are aligned to the transfer size"},
    {"rwmixread", FK_OPT, "rwmix", NULL, NULL},
    {"rwmixwrite", FK_REFUSE, NULL, NULL, "pfsbench's rwmix is the reads' share; give rwmixread = 100 - rwmixwrite"},
    {"percentage_random", FK_REFUSE, NULL, NULL, "a run is sequential or random (random), not a share"},
    {"norandommap", FK_REFUSE, NULL, NULL, "random visits each transfer once, in a seeded permutation"},
    {"randrepeat", FK_REFUSE, NULL, NULL, "random's permutation is always seeded and repeatable"},
    {"randseed", FK_REFUSE, NULL, NULL, "random's seed is pfsbench's own"},
    {"rate", FK_REFUSE, NULL, NULL, "pfsbench measures the most a run moves; it does not throttle"},
    {"rate_iops", FK_REFUSE, NULL, NULL, "pfsbench measures the most a run moves; it does not throttle"},
    {"rate_min", FK_REFUSE, NULL, NULL, "pfsbench measures the most a run moves; it does not throttle"},
    {"thinktime", FK_REFUSE, NULL, NULL, "pfsbench issues the next transfer at once"},
    {"startdelay", FK_REFUSE, NULL, NULL, "every stream starts after the phase's barrier"},
    {"invalidate", FK_REFUSE, NULL, NULL, "drop-caches drops each file's page cache before each read phase"},
    {"pre_read", FK_REFUSE, NULL, NULL, "a read phase reads what the write phase wrote"},
    {"fallocate", FK_REFUSE, NULL, NULL, "the write phase writes every byte; nothing is preallocated"},
    {"create_on_open", FK_REFUSE, NULL, NULL, "files are created by the write phase"},
    {"zero_buffers", FK_REFUSE, NULL, NULL, "the write buffer is incompressible pseudo-random bytes"},
    {"refill_buffers", FK_REFUSE, NULL, NULL, "the write buffer is incompressible pseudo-random bytes, made once"},
    {"scramble_buffers", FK_REFUSE, NULL, NULL, "the write buffer is incompressible pseudo-random bytes, made once"},
    {"buffer_compress_chunk", FK_REFUSE, NULL, NULL, "buffer-compress fills chunks of 512 bytes (fio's default)"},
    {"verify_pattern", FK_REFUSE, NULL, NULL, "verify writes a pattern of pfsbench's own"},
    {"verify_interval", FK_REFUSE, NULL, NULL, "verify checks every byte read"},
    {"do_verify", FK_REFUSE, NULL, NULL, "verify checks every byte read"},
    {"kb_base", FK_REFUSE, NULL, NULL, "bs and size read k, kb and KB as 1024; pfsbench's own keys take KB as 1000"},
    {"cpus_allowed", FK_REFUSE, NULL, NULL, "ranks are placed by mpirun (e.g. --bind-to core)"},
    {"cpumask", FK_REFUSE, NULL, NULL, "ranks are placed by mpirun (e.g. --bind-to core)"},
    {"numa_cpu_nodes", FK_REFUSE, NULL, NULL, "ranks are placed by mpirun"},
    {"numa_mem_policy", FK_REFUSE, NULL, NULL, "ranks are placed by mpirun"},
    {"nice", FK_REFUSE, NULL, NULL, "ranks run at mpirun's priority"},
    {"prio", FK_REFUSE, NULL, NULL, "ranks run at mpirun's priority"},
    {"exitall", FK_REFUSE, NULL, NULL, "a run's streams end together at each phase's barrier"},
    {"lat_percentiles", FK_REFUSE, NULL, NULL, "pfsbench always records latency histograms and percentiles"},
    {"clat_percentiles", FK_REFUSE, NULL, NULL, "pfsbench always records latency histograms and percentiles"},
    {"percentile_list", FK_REFUSE, NULL, NULL, "pfsbench reports its own percentiles; the results file has the histograms"},
    {"write_bw_log", FK_REFUSE, NULL, NULL, "the time series (interval) is in the results file"},
    {"write_lat_log", FK_REFUSE, NULL, NULL, "the time series (interval) is in the results file"},
    {"write_iops_log", FK_REFUSE, NULL, NULL, "the time series (interval) is in the results file"},
    {"log_avg_msec", FK_REFUSE, NULL, NULL, "the time series' step is interval = SECS"},
    {"unified_rw_reporting", FK_REFUSE, NULL, NULL, "each phase is reported on its own"},
    {"exec_prerun", FK_REFUSE, NULL, NULL, "pfsbench runs no commands"},
    {"exec_postrun", FK_REFUSE, NULL, NULL, "pfsbench runs no commands"},
};

/* A comment after a line's words, as fio takes them: `#` or `;` after a
 * blank, to the end of the line (block = 16m  # per rank). One without a
 * blank before it is part of the word (a path may hold '#'). */
void pfs_fio_cut_comment(char *s)
{
    for (char *p = s + 1; *p; p++)
        if ((*p == '#' || *p == ';') && isspace((unsigned char)p[-1])) {
            *p = '\0';
            break;
        }
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
}

static const struct fio_key *find_key(const char *key)
{
    for (size_t i = 0; i < sizeof(fio_keys) / sizeof(fio_keys[0]); i++)
        if (strcmp(fio_keys[i].key, key) == 0)
            return &fio_keys[i];
    return NULL;
}

int pfs_fio_overrides(const char *key, const char *val)
{
    /* A bare fsync or fsync = 0 means the same either way; fsync = N (a
     * whole number) is fio's. verify = md5 is fio's (refused with its reason), so are sync = 0 and 1. */
    if (!val)
        return 0;
    if (strcmp(key, "fsync") == 0) /* a whole number; fsync = yes is pfsbench's flag, told so */
        return *val && val[strspn(val, "0123456789")] == '\0' && strspn(val, "0") != strlen(val);
    if (strcmp(key, "sync") == 0) /* fio's O_SYNC switch; pfsbench's sync = none|dsync|sync otherwise */
        return strcmp(val, "0") == 0 || strcmp(val, "1") == 0;
    return strcmp(key, "verify") == 0 && strcmp(val, "0") != 0 && strcmp(val, "1") != 0;
}

/* The words of a space-separated list into words. */
static int split(const char *list, char (*words)[PFS_FIO_WORDLEN], int *n)
{
    *n = 0;
    for (const char *p = list; *p && *n < PFS_FIO_WORDS;) {
        size_t k = strcspn(p, " ");
        snprintf(words[(*n)++], PFS_FIO_WORDLEN, "%.*s", (int)k, p);
        p += k + (p[k] == ' ');
    }
    return PFS_FIO_OK;
}

static enum pfs_fio_result from_map(const struct fio_key *k, const char *val, char (*words)[PFS_FIO_WORDLEN], int *n,
                                    char *why, size_t len)
{
    for (const struct fio_value *v = k->values; v->fio; v++) {
        if (strcmp(v->fio, val) != 0 && strcmp(v->fio, "*") != 0)
            continue;
        if (v->words)
            return split(v->words, words, n);
        snprintf(why, len, "fio's `%s = %s` %s", k->key, val, v->why);
        return PFS_FIO_REFUSED;
    }
    snprintf(why, len, "fio's `%s = %s`: give 0 or 1", k->key, val);
    return PFS_FIO_REFUSED;
}

enum pfs_fio_result pfs_fio_translate(const char *key, const char *val, char (*words)[PFS_FIO_WORDLEN], int *n,
                                      char *why, size_t len)
{
    const struct fio_key *k = find_key(key);
    *n = 0;
    if (!k)
        return PFS_FIO_UNKNOWN;
    if (k->kind == FK_ACCEPT)
        return PFS_FIO_OK;
    if (k->kind == FK_REFUSE) {
        snprintf(why, len, "fio's `%s` has no pfsbench meaning: %s", key, k->note);
        return PFS_FIO_REFUSED;
    }
    if (k->kind == FK_BOOL)
        return from_map(k, val ? val : "1", words, n, why, len);
    if (!val || !*val) {
        snprintf(why, len, "fio's `%s` needs a value", key);
        return PFS_FIO_REFUSED;
    }
    if (k->kind == FK_MAP)
        return from_map(k, val, words, n, why, len);
    if (k->kind == FK_SIZE) {
        /* fio's default kb_base=1024: k, kb and KB are 1024, KiB is 1000 (refused). */
        const struct pfs_size_syntax fio = {PFS_SIZE_KB_BINARY | PFS_SIZE_NO_IEC, 1, NULL};
        uint64_t v;
        char r[160];
        if (pfs_size_parse(val, &fio, &v, r, sizeof(r)) != 0) {
            snprintf(why, len, "fio's `%s = %s` is not a size: %s", key, val, r);
            return PFS_FIO_REFUSED;
        }
        snprintf(words[0], PFS_FIO_WORDLEN, "--%s=%llu", k->opt, (unsigned long long)v);
        *n = 1;
        return PFS_FIO_OK;
    }
    snprintf(words[0], PFS_FIO_WORDLEN, "--%s=%s", k->opt, val);
    *n = 1;
    return PFS_FIO_OK;
}
