/* The page-cache probe (pfs/pagecache.h): cachestat(2), else mincore(2),
 * else unknown; and the reduction of the streams' figures per node and run. */
#define _GNU_SOURCE
#include "pfs/pagecache.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "pfs/config.h"

/* cachestat(2) is syscall 451 on every architecture (the generic table);
 * headers older than Linux 6.5 name neither it nor its structures. */
#ifndef __NR_cachestat
#define __NR_cachestat 451
#endif

struct pc_range {
    uint64_t off, len;
};

struct pc_stat {
    uint64_t nr_cache, nr_dirty, nr_writeback, nr_evicted, nr_recently_evicted;
};

/* mincore's vector is one byte a page: a window of this many pages at a time. */
#define MINCORE_WINDOW 4096u

const char *pfs_pc_method_name(int m)
{
    static const char *const n[PFS_PC_METHODS] = {"", "cachestat", "mincore", "unknown", "bypassed"};
    return m >= 0 && m < PFS_PC_METHODS ? n[m] : "?";
}

static uint64_t page_size(void)
{
    long ps = sysconf(_SC_PAGESIZE);
    return ps > 0 ? (uint64_t)ps : 4096u;
}

/* Pages counted over a range of len bytes, as bytes: whole pages, but never
 * more than the range holds. */
static uint64_t pages_to_bytes(uint64_t pages, uint64_t len)
{
    uint64_t b = pages * page_size();
    return b < len ? b : len;
}

static int by_cachestat(int fd, uint64_t off, uint64_t len, int dirty, struct pfs_pc_count *c)
{
    struct pc_range r = {off, len};
    struct pc_stat cs;
    memset(&cs, 0, sizeof(cs));
    if (syscall(__NR_cachestat, fd, &r, &cs, 0) != 0)
        return -errno;
    c->resident += pages_to_bytes(cs.nr_cache, len);
    if (dirty)
        c->dirty += pages_to_bytes(cs.nr_dirty + cs.nr_writeback, len);
    return 0;
}

/* mincore over a read-only shared mapping of the range's pages, a window at
 * a time (the mapping itself faults nothing in: only the vector is read). */
static int by_mincore(int fd, uint64_t off, uint64_t len, struct pfs_pc_count *c)
{
    const uint64_t ps = page_size(), first = off / ps, last = (off + len - 1) / ps;
    unsigned char vec[MINCORE_WINDOW];
    uint64_t pages = 0;
    for (uint64_t p = first; p <= last; p += MINCORE_WINDOW) {
        const uint64_t n = last - p + 1 < MINCORE_WINDOW ? last - p + 1 : MINCORE_WINDOW;
        void *m = mmap(NULL, n * ps, PROT_READ, MAP_SHARED, fd, (off_t)(p * ps));
        if (m == MAP_FAILED)
            return -errno;
        int rc = mincore(m, n * ps, vec);
        int e = errno;
        munmap(m, n * ps);
        if (rc != 0)
            return -e;
        for (uint64_t i = 0; i < n; i++)
            pages += vec[i] & 1u;
    }
    c->resident += pages_to_bytes(pages, len);
    return 0;
}

int pfs_pc_range(int fd, uint64_t off, uint64_t len, unsigned use, int dirty, struct pfs_pc_count *c)
{
    if (len == 0) {
        /* Nothing to look at: whatever works would say 0 of 0. */
        return use & PFS_PC_USE_CACHESTAT ? PFS_PC_CACHESTAT : use & PFS_PC_USE_MINCORE && !dirty ? PFS_PC_MINCORE
                                                                                                   : PFS_PC_UNKNOWN;
    }
    if ((use & PFS_PC_USE_CACHESTAT) && by_cachestat(fd, off, len, dirty, c) == 0) {
        c->bytes += len;
        return PFS_PC_CACHESTAT;
    }
    /* ENOSYS (a kernel before 6.5), EPERM (a seccomp filter), EOPNOTSUPP:
     * mincore still tells what is resident, never what is dirty. */
    if ((use & PFS_PC_USE_MINCORE) && !dirty && by_mincore(fd, off, len, c) == 0) {
        c->bytes += len;
        return PFS_PC_MINCORE;
    }
    return PFS_PC_UNKNOWN;
}

/* The shared file's transfers of one writer: one range when they are
 * contiguous (segmented, or a single stream), one per segment in segments,
 * else one per transfer. */
static int probe_shared(int fd, const struct pfs_pc_target *t, uint64_t size, unsigned use, int dirty,
                        struct pfs_pc_count *c)
{
    const uint64_t segs = t->segments > 1 && t->layout != PFS_LAYOUT_STRIDED ? t->segments : 1;
    const int contiguous = (t->layout != PFS_LAYOUT_STRIDED || t->nstreams <= 1) && (segs == 1 || t->nstreams <= 1);
    const uint64_t per = contiguous ? t->xfers : segs > 1 ? t->block / segs / t->transfer : 1; /* transfers a run */
    int how = PFS_PC_UNKNOWN;
    for (uint64_t j = 0; per > 0 && j < t->xfers; j += per) {
        uint64_t off = pfs_offset(1, t->layout, segs, t->writer, t->nstreams, t->block, t->transfer, j);
        uint64_t n = (t->xfers - j < per ? t->xfers - j : per) * t->transfer;
        if (off >= size)
            continue; /* past the end: the phase's read would find nothing there either */
        if (n > size - off)
            n = size - off;
        int m = pfs_pc_range(fd, off, n, use, dirty, c);
        if (m == PFS_PC_UNKNOWN)
            return m;
        how = m;
        use = m == PFS_PC_CACHESTAT ? PFS_PC_USE_CACHESTAT : PFS_PC_USE_MINCORE; /* what worked once works on */
    }
    return how != PFS_PC_UNKNOWN ? how : pfs_pc_range(fd, 0, 0, use, dirty, c);
}

int pfs_pc_probe(const struct pfs_pc_target *t, unsigned use, int dirty, struct pfs_pc_count *c)
{
    memset(c, 0, sizeof(*c));
    int fd = pfs_open_own(t->path, O_RDONLY, 0, t->expect, NULL);
    if (fd < 0)
        return PFS_PC_UNKNOWN;
    struct stat st;
    int how = PFS_PC_UNKNOWN;
    if (fstat(fd, &st) == 0 && st.st_size >= 0) {
        const uint64_t size = (uint64_t)st.st_size;
        how = t->shared ? probe_shared(fd, t, size, use, dirty, c) : pfs_pc_range(fd, 0, size, use, dirty, c);
    }
    close(fd);
    if (how == PFS_PC_UNKNOWN)
        memset(c, 0, sizeof(*c));
    return how;
}

static int measured(int m)
{
    return m == PFS_PC_CACHESTAT || m == PFS_PC_MINCORE;
}

static void add_stream(struct pfs_pc_fig *f, const struct pfs_times *t)
{
    if (t->cache_method > PFS_PC_NONE && t->cache_method < PFS_PC_METHODS)
        f->methods |= 1u << t->cache_method;
    if (t->dirty_method > PFS_PC_NONE && t->dirty_method < PFS_PC_METHODS)
        f->dirty_methods |= 1u << t->dirty_method;
    if (measured(t->cache_method)) {
        f->bytes += t->cache_bytes;
        f->resident += t->cache_resident;
    }
    if (t->dirty_method == PFS_PC_CACHESTAT) {
        f->dirty_bytes += t->cache_bytes;
        f->dirty += t->cache_dirty;
    }
}

void pfs_pc_reduce(const struct pfs_times *t, const int *node_of_stream, int nstreams, int nnodes,
                   struct pfs_pc_fig *run, struct pfs_pc_fig *node)
{
    memset(run, 0, sizeof(*run));
    if (node)
        memset(node, 0, sizeof(*node) * (size_t)(nnodes > 0 ? nnodes : 0));
    for (int s = 0; s < nstreams; s++) {
        add_stream(run, &t[s]);
        const int n = node_of_stream ? node_of_stream[s] : 0;
        if (node && n >= 0 && n < nnodes)
            add_stream(&node[n], &t[s]);
    }
}

int pfs_pc_methods_name(unsigned methods, char *out, size_t len)
{
    size_t k = 0;
    if (len)
        out[0] = '\0';
    for (int m = PFS_PC_NONE + 1; m < PFS_PC_METHODS; m++) {
        if (!(methods & (1u << m)))
            continue;
        int n = snprintf(out + (k < len ? k : len), k < len ? len - k : 0, "%s%s", k ? "+" : "", pfs_pc_method_name(m));
        k += n > 0 ? (size_t)n : 0;
    }
    return (int)k;
}

double pfs_pc_fraction(uint64_t part, uint64_t whole)
{
    if (whole == 0)
        return NAN;
    double f = (double)part / (double)whole;
    return f < 0 ? 0 : f > 1 ? 1 : f;
}

int pfs_pc_memory_fs(const char *fstype)
{
    return fstype && (!strcmp(fstype, "tmpfs") || !strcmp(fstype, "ramfs"));
}
