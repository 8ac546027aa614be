/* How much of a file is in this node's page cache, asked of the kernel
 * instead of guessed from sizes: cachestat(2) (Linux 6.5 and later: the
 * cached, dirty and under-write-back pages of a range), else mincore(2)
 * over a read-only shared mapping (resident pages only: it cannot tell a
 * dirty page from a clean one), else "unknown". Neither reads nor writes a
 * byte of the file, so the probe moves nothing into or out of the cache.
 *
 * The MPI layer probes each stream outside the timed region: before a
 * phase that reads (the range the stream is about to read), and after a
 * phase that writes without -e (the range it wrote: what was still dirty
 * or under write-back at its close). Local and MPI-free. */
#ifndef PFS_PAGECACHE_H
#define PFS_PAGECACHE_H

#include <stddef.h>
#include <stdint.h>

#include "pfs/core.h"
#include "pfs/safefile.h"

/* How a stream's figure was had (pfs_times.cache_method, .dirty_method;
 * the results file stores these numbers). */
enum pfs_pc_method {
    PFS_PC_NONE = 0,      /* not probed: no such phase, -e (dirty), a backend without files */
    PFS_PC_CACHESTAT = 1, /* cachestat(2) */
    PFS_PC_MINCORE = 2,   /* mincore(2): resident pages only */
    PFS_PC_UNKNOWN = 3,   /* neither worked (or the file could not be opened) */
    PFS_PC_BYPASSED = 4,  /* --direct: the phase's I/O does not go through the page cache */
    PFS_PC_METHODS
};

/* "", "cachestat", "mincore", "unknown", "bypassed" ("?" out of range). */
const char *pfs_pc_method_name(int m);

/* Which kernel interfaces a probe may use (the tests take one away). */
#define PFS_PC_USE_CACHESTAT 1u
#define PFS_PC_USE_MINCORE 2u
#define PFS_PC_USE_ALL (PFS_PC_USE_CACHESTAT | PFS_PC_USE_MINCORE)

/* Bytes of a range probed, and of them those resident and those dirty or
 * under write-back. A page counts whole; a range that starts or ends inside
 * a page is clamped, so a range whose every page is resident counts all its
 * bytes and one with none counts 0. */
struct pfs_pc_count {
    uint64_t bytes, resident, dirty;
};

/* Local. Probes [off, off+len) of fd and adds it to *c. dirty: the dirty
 * and write-back pages are wanted too, which only cachestat tells. Returns
 * the method used: PFS_PC_CACHESTAT, PFS_PC_MINCORE (not when dirty), or
 * PFS_PC_UNKNOWN (nothing added). */
int pfs_pc_range(int fd, uint64_t off, uint64_t len, unsigned use, int dirty, struct pfs_pc_count *c);

/* What one stream reads or wrote in a phase: its data file (opened by
 * pfs_open_own, so never through a link, and only the inode expected when
 * expect is known), and with --shared its own transfers of the shared file
 * (pfs_offset: segmented, one range; in segments, one per segment;
 * strided, one range per transfer).
 * A file per stream is probed whole. */
struct pfs_pc_target {
    const char *path;
    const struct pfs_fid *expect; /* NULL or {0,0}: any regular file */
    int shared, layout;           /* --shared, PFS_LAYOUT_* */
    int writer, nstreams;         /* whose transfers of the shared file, of how many streams */
    uint64_t block, transfer;
    uint64_t xfers;               /* the writer's transfers present in the shared file */
    uint64_t segments;            /* --segments (0 or 1: one) */
};

/* Local. Probes a stream's target into *c (zeroed first). Returns the
 * method, as pfs_pc_range; PFS_PC_UNKNOWN when the file cannot be opened. */
int pfs_pc_probe(const struct pfs_pc_target *t, unsigned use, int dirty, struct pfs_pc_count *c);

/* One phase and repetition, over some streams (a node's, or the run's):
 * sums over the streams whose figure was measured (cachestat or mincore;
 * for dirty, cachestat), and which methods were seen (bit 1 << PFS_PC_*;
 * PFS_PC_NONE is never set). */
struct pfs_pc_fig {
    uint64_t bytes, resident;          /* residency before a read */
    uint64_t dirty_bytes, dirty;       /* dirty at the close of a write */
    unsigned methods, dirty_methods;
};

/* Local. The run's figure (run) and each node's (node[nnodes], or NULL)
 * from every stream's pfs_times, in one pass. Streams whose node is
 * outside [0, nnodes) count in the run's figure alone. */
void pfs_pc_reduce(const struct pfs_times *t, const int *node_of_stream, int nstreams, int nnodes,
                   struct pfs_pc_fig *run, struct pfs_pc_fig *node);

/* Local. 1 when some stream's figure was measured. */
static inline int pfs_pc_has_resident(const struct pfs_pc_fig *f)
{
    return (f->methods & ((1u << PFS_PC_CACHESTAT) | (1u << PFS_PC_MINCORE))) != 0;
}
static inline int pfs_pc_has_dirty(const struct pfs_pc_fig *f)
{
    return (f->dirty_methods & (1u << PFS_PC_CACHESTAT)) != 0;
}

/* Local. The methods of a set (pfs_pc_fig.methods) as words: one name, or
 * names joined by '+' ("cachestat+unknown"); "" for none. Like snprintf. */
int pfs_pc_methods_name(unsigned methods, char *out, size_t len);

/* Local. A fraction part/whole in [0, 1]; NaN when whole is 0. */
double pfs_pc_fraction(uint64_t part, uint64_t whole);

/* Local. 1 when a statfs type name (pfs_fs_type) is a file system that
 * keeps its files in memory (tmpfs, ramfs): every read of it is a memory
 * read, whatever the cache figure says. */
int pfs_pc_memory_fs(const char *fstype);

#endif
