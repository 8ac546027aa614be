/* `pfsbench iozone ARGS`: IOzone's throughput-mode options as IOzone means
 * them (-r 4k, -s 512k, sizes in KiB without a suffix; -t N streams in all),
 * written as native pfsbench options (docs/usage.md, "IOR, mdtest and IOzone
 * command lines"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "frontend_int.h"

enum {
    IZ_TEST = 1, IZ_REC, IZ_SIZE, IZ_THREADS, IZ_CLOSE, IZ_FLUSH, IZ_KEEP, IZ_NORETEST, IZ_FILES, IZ_FILE, IZ_DIRECT,
    IZ_VERIFY, IZ_HELP, IZ_VERSION, IZ_IGNORE, IZ_NOSTONE,
};

const struct fe_opt fe_iozone_tab[] = {
    {"-i", FE_VALUE, IZ_TEST, NULL},
    {"-r", FE_VALUE, IZ_REC, NULL},
    {"-s", FE_VALUE, IZ_SIZE, NULL},
    {"-t", FE_VALUE, IZ_THREADS, NULL},
    {"-c", FE_FLAG, IZ_CLOSE, NULL},
    {"-e", FE_FLAG, IZ_FLUSH, NULL},
    {"-w", FE_FLAG, IZ_KEEP, NULL},
    {"-+n", FE_FLAG, IZ_NORETEST, NULL},
    {"-F", FE_LIST, IZ_FILES, NULL},
    {"-f", FE_VALUE, IZ_FILE, NULL},
    {"-I", FE_FLAG, IZ_DIRECT, NULL},
    {"-V", FE_VALUE, IZ_VERIFY, NULL},
    {"-h", FE_FLAG, IZ_HELP, NULL},
    {"-v", FE_FLAG, IZ_VERSION, NULL},
    {"-T", FE_FLAG, IZ_IGNORE, NULL},  /* POSIX threads: pfsbench's --threads are pthreads */
    {"-C", FE_FLAG, IZ_IGNORE, NULL},  /* bytes per child: the results file has every stream's */
    {"-M", FE_FLAG, IZ_IGNORE, NULL},  /* uname -a: the results file has the hosts */
    {"-+u", FE_FLAG, IZ_IGNORE, NULL}, /* CPU utilisation: pfsbench measures it per stream */
    {"-x", FE_FLAG, IZ_NOSTONE, NULL},
    {"-+m", FE_VALUE, 0, "IOzone's client list: the ranks come from mpirun: give it a hostfile, or run "
                         "scripts/pfsrun --clients FILE, which places ranks from an IOzone client list"},
    {"-a", FE_FLAG, 0, "auto mode (every test over a range of sizes): give -i, -r and -s"},
    {"-A", FE_FLAG, 0, "auto mode (every test over a range of sizes): give -i, -r and -s"},
    {"-z", FE_FLAG, 0, "small records in auto mode: give -i, -r and -s"},
    {"-g", FE_VALUE, 0, "the largest file size of auto mode: give -s"},
    {"-n", FE_VALUE, 0, "the smallest file size of auto mode: give -s"},
    {"-q", FE_VALUE, 0, "the largest record size of auto mode: give -r"},
    {"-y", FE_VALUE, 0, "the smallest record size of auto mode: give -r"},
    {"-l", FE_VALUE, 0, "the lowest process count: mpirun's -np is the ranks, -t their streams"},
    {"-u", FE_VALUE, 0, "the highest process count: mpirun's -np is the ranks, -t their streams"},
    {"-R", FE_FLAG, 0, "the Excel report: pfsbench's report is text, JSON or CSV (-- --format csv)"},
    {"-b", FE_VALUE, 0, "an Excel file: pfsbench writes its results file (-- --results FILE)"},
    {"-o", FE_FLAG, 0, "O_SYNC writes: " NO_EQUIV " (-e is fsync before close)"},
    {"-+r", FE_FLAG, 0, "O_RSYNC: " NO_EQUIV},
    {"-+D", FE_FLAG, 0, "O_DSYNC: " NO_EQUIV},
    {"-p", FE_FLAG, 0, "purging the processor cache: " NO_EQUIV},
    {"-B", FE_FLAG, 0, "mmap files: not translated"},
    {"-D", FE_FLAG, 0, "msync(MS_ASYNC) of mmap files: " NO_EQUIV},
    {"-G", FE_FLAG, 0, "msync(MS_SYNC) of mmap files: " NO_EQUIV},
    {"-H", FE_VALUE, 0, "POSIX async I/O: pfsbench's asynchronous engine is -- --api uring --iodepth N"},
    {"-k", FE_VALUE, 0, "POSIX async I/O without bcopy: pfsbench's asynchronous engine is -- --api uring --iodepth N"},
    {"-j", FE_VALUE, 0, "a stride for the stride-read test: not translated"},
    {"-J", FE_VALUE, 0, "a compute delay between operations: " NO_EQUIV},
    {"-K", FE_FLAG, 0, "noise in the access pattern: " NO_EQUIV},
    {"-L", FE_VALUE, 0, "the processor cache line size: " NO_EQUIV},
    {"-S", FE_VALUE, 0, "the processor cache size: " NO_EQUIV},
    {"-m", FE_FLAG, 0, "several buffers: " NO_EQUIV},
    {"-N", FE_FLAG, 0, "microseconds per operation: pfsbench's latency table reports them"},
    {"-O", FE_FLAG, 0, "operations per second: pfsbench's latency table has IOPS"},
    {"-Q", FE_FLAG, 0, "offset/latency files: pfsbench stores latency histograms and time series in its results file"},
    {"-P", FE_VALUE, 0, "binding to processors: use mpirun's --bind-to / --map-by"},
    {"-U", FE_VALUE, 0, "remounting between tests: pfsbench does not mount; -- --drop-caches empties the cache"},
    {"-W", FE_FLAG, 0, "locking files: " NO_EQUIV},
    {"-X", FE_VALUE, 0, "a write telemetry file: " NO_EQUIV},
    {"-Y", FE_VALUE, 0, "a read telemetry file: " NO_EQUIV},
    {"-Z", FE_FLAG, 0, "mixing mmap and file I/O: " NO_EQUIV},
    {"-E", FE_FLAG, 0, "extension tests: " NO_EQUIV},
    {"-+d", FE_FLAG, 0, "the diagnostic byte check: give -V (pfsbench's --verify checks every byte)"},
    {"-+p", FE_VALUE, 0, "the read percentage of the mixed test: not translated"},
    {"-+t", FE_FLAG, 0, "the network test: " NO_EQUIV},
    {"-+w", FE_VALUE, 0, "dedupable data: pfsbench's data is incompressible"},
    {"-+k", FE_FLAG, 0, "a constant aggregate data set: give -- --total SIZE instead of -s"},
    {NULL, FE_FLAG, 0, NULL},
};

struct iz_st {
    int write, read, noretest, close, flush, keep, direct, verify, help, version, nostone, have_files;
    long threads;
    uint64_t rec, size;
    char dir[1024];
};

static void iz_test(struct fe *f, struct iz_st *s, const char *val)
{
    static const char *const names[] = {"write/rewrite", "read/reread", "random read/write", "backward read",
                                        "record rewrite", "stride read", "fwrite/frewrite", "fread/freread",
                                        "random mix", "pwrite/re-pwrite", "pread/re-pread", "pwritev/re-pwritev",
                                        "preadv/re-preadv"};
    long t;
    if (fe_int(f, "-i", val, 0, 12, &t) != 0)
        return;
    if (t == 0 || t == 9) /* pfsbench's POSIX calls are pwrite and pread either way */
        s->write = 1;
    else if (t == 1 || t == 10)
        s->read = 1;
    else if (t == 2)
        fe_refuse(f, "-i", "2 (random read/write): pfsbench's --random makes every phase of a run random; run "
                  "pfsbench with --random -p write,read");
    else
        fe_refuse(f, "-i", "%ld (%s): not a pfsbench phase (its phases: write, rewrite, read, reread)", t, names[t]);
}

/* -F: the files' directory is -d; pfsbench names the files in it. */
static void iz_files(struct fe *f, struct iz_st *s, int lc, char **lv)
{
    if (lc == 0) {
        fe_refuse(f, "-F", "needs the file names");
        return;
    }
    char d[1024];
    for (int i = 0; i < lc; i++) {
        fe_dirname(lv[i], i ? d : s->dir, sizeof(d));
        if (i && strcmp(d, s->dir) != 0) {
            fe_refuse(f, "-F", "%s and %s are in different directories; pfsbench's files share one (-d)", lv[0], lv[i]);
            return;
        }
    }
    s->have_files = lc;
    fe_note(f, lc > 1 ? "-F" : "-f", "pfsbench names its own files in %s (pfsbench.RUNID.N)", s->dir);
}

static void iz_on(struct fe *f, const struct fe_opt *o, const struct fe_arg *a, void *st)
{
    struct iz_st *s = st;
    char *one[1];
    switch (o->id) {
    case IZ_TEST: iz_test(f, s, a->val); break;
    case IZ_REC: fe_size(f, "-r", a->val, "kmg", 1024, &s->rec); break;
    case IZ_SIZE: fe_size(f, "-s", a->val, "kmg", 1024, &s->size); break;
    case IZ_THREADS: fe_int(f, "-t", a->val, 1, 1L << 24, &s->threads); break;
    case IZ_CLOSE: s->close = 1; break;
    case IZ_FLUSH: s->flush = 1; break;
    case IZ_KEEP: s->keep = 1; break;
    case IZ_NORETEST: s->noretest = 1; break;
    case IZ_FILES: iz_files(f, s, a->lc, a->lv); break;
    case IZ_FILE: one[0] = (char *)a->val, iz_files(f, s, 1, one); break;
    case IZ_DIRECT: s->direct = 1; break;
    case IZ_VERIFY:
        s->verify = 1;
        fe_note(f, "-V", "pfsbench's --verify writes its own pattern (of run, stream and offset), not %s", a->val);
        break;
    case IZ_HELP: s->help = 1; break;
    case IZ_VERSION: s->version = 1; break;
    case IZ_NOSTONE: s->nostone = 1; break;
    default: break;
    }
}

/* IOzone's -t N is N streams in all: pfsbench's are ranks x --threads. */
static long iz_threads(struct fe *f, const struct iz_st *s)
{
    long n = s->threads ? s->threads : 1;
    if (n % f->nranks == 0)
        return n / f->nranks;
    if (s->threads)
        fe_refuse(f, "-t", "%ld processes over %d ranks: pfsbench's streams are ranks x threads; start a number of "
                  "ranks that divides %ld", n, f->nranks, n);
    else
        fe_refuse(f, "-t", "not given: IOzone runs one process; with %d ranks give -t N, a multiple of %d", f->nranks,
                  f->nranks);
    return 0;
}

void fe_iozone(struct fe *f, int argc, char **argv)
{
    struct iz_st s = {.rec = 4 << 10, .size = 512 << 10, .dir = "."};
    fe_walk(f, fe_iozone_tab, argc, argv, iz_on, &s);
    if (s.help || s.version) {
        fe_add(f, s.help ? "--help" : "--version");
        return;
    }
    if (!s.write && !s.read)
        fe_refuse(f, "-i", "not given: IOzone would run every test; give -i 0 (write, rewrite) and/or -i 1 (read, "
                  "reread)");
    long threads = iz_threads(f, &s);
    if (s.have_files && s.have_files < (s.threads ? s.threads : 1))
        fe_refuse(f, "-F", "%d names for -t %ld processes", s.have_files, s.threads);
    if (!s.close)
        fe_note(f, "-c", "not given: IOzone leaves close out of the timing; pfsbench always times it");
    if (!s.nostone && s.threads > 1)
        fe_note(f, "-t", "IOzone's throughput figures stop at the first process to finish; pfsbench's phase time runs "
                "from the first open to the last close, every stream moving all its bytes");
    char list[64];
    snprintf(list, sizeof(list), "%s%s%s", s.write ? (s.noretest ? "write" : "write,rewrite") : "",
             s.write && s.read ? "," : "", s.read ? (s.noretest ? "read" : "read,reread") : "");
    /* IOzone works in the current directory (a client list's column on
     * each client): `-- -d DIR` names it (scripts/pfsrun --clients passes
     * the list's); -F with a directory of its own would name a second. */
    int pass_dir = fe_passes(f, "-d") || fe_passes(f, "--dir");
    if (pass_dir && s.have_files && strcmp(s.dir, ".") != 0)
        fe_refuse(f, "-F", "the files are in %s and -- -d names the directory too: give one", s.dir);
    if (!pass_dir) {
        fe_add(f, "-d");
        fe_add(f, s.dir);
    }
    fe_add_size(f, "-t", s.rec);
    fe_add_size(f, "-b", s.size);
    fe_add(f, "-p");
    fe_add(f, list);
    if (threads > 1)
        fe_add(f, "--threads"), fe_addf(f, "%ld", threads);
    if (s.close)
        fe_add(f, "--include-close");
    if (s.flush)
        fe_add(f, "-e");
    if (s.keep)
        fe_add(f, "-k");
    if (s.direct)
        fe_add(f, "--direct");
    if (s.verify)
        fe_add(f, "--verify");
    if (s.threads > 0) /* -t: IOzone's throughput mode, and its lines */
        fe_add(f, "--iozone-lines");
}
