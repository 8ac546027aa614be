/* The append's HDF5 file driver: the results file opened in place, read
 * from the file, with every byte HDF5 writes kept in memory (an overlay
 * of extents) instead of written. HDF5 never writes to disk through it,
 * so a full disk cannot fail inside HDF5; journal.c writes the overlay
 * into the file, journaled. Memory: what the append writes (the run and
 * the metadata it changes), not the file. */
#define _GNU_SOURCE
#include "results_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct ovl_file {
    H5FD_t pub; /* first: HDF5 sees this */
    struct pfs_ovl *o;
    haddr_t eoa;
};

struct ovl_fa {
    struct pfs_ovl *o;
};

/* ---- the extents: sorted by address, disjoint and not touching ---- */

/* The index of the first extent that ends at or after addr. */
static size_t first_from(const struct pfs_ovl *o, haddr_t addr)
{
    size_t lo = 0, hi = o->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (o->e[mid].addr + o->e[mid].len < addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static int ext_reserve(struct pfs_ext *x, size_t need)
{
    if (need <= x->cap)
        return 0;
    size_t cap = x->cap ? x->cap : 4096;
    while (cap < need)
        cap *= 2;
    unsigned char *p = realloc(x->p, cap);
    if (!p)
        return -1;
    x->p = p, x->cap = cap;
    return 0;
}

/* Extents i..j-1 (all touching [addr, end)) and the new bytes, merged
 * into extent i; the others removed. */
static int merge(struct pfs_ovl *o, size_t i, size_t j, haddr_t addr, haddr_t end, const unsigned char *b)
{
    struct pfs_ext *x = &o->e[i];
    haddr_t lo = x->addr < addr ? x->addr : addr;
    haddr_t last = o->e[j - 1].addr + o->e[j - 1].len;
    haddr_t hi = last > end ? last : end;
    if (lo == x->addr) {
        if (ext_reserve(x, (size_t)(hi - lo)) != 0)
            return -1;
    } else {
        unsigned char *p = malloc((size_t)(hi - lo));
        if (!p)
            return -1;
        memcpy(p + (x->addr - lo), x->p, x->len);
        free(x->p);
        x->p = p, x->cap = (size_t)(hi - lo);
    }
    for (size_t k = i + 1; k < j; k++) {
        memcpy(x->p + (o->e[k].addr - lo), o->e[k].p, o->e[k].len);
        o->bytes -= o->e[k].len;
        free(o->e[k].p);
    }
    o->bytes += (size_t)(hi - lo) - x->len;
    x->addr = lo, x->len = (size_t)(hi - lo);
    memcpy(x->p + (addr - lo), b, (size_t)(end - addr));
    memmove(&o->e[i + 1], &o->e[j], (o->n - j) * sizeof(*o->e));
    o->n -= j - i - 1;
    return 0;
}

static int ovl_put(struct pfs_ovl *o, haddr_t addr, size_t size, const void *buf)
{
    haddr_t end = addr + size;
    size_t i = first_from(o, addr), j = i;
    while (j < o->n && o->e[j].addr <= end)
        j++;
    if (j > i)
        return merge(o, i, j, addr, end, buf);
    if (o->n == o->cap) {
        size_t cap = o->cap ? o->cap * 2 : 64;
        struct pfs_ext *e = realloc(o->e, cap * sizeof(*e));
        if (!e)
            return -1;
        o->e = e, o->cap = cap;
    }
    struct pfs_ext x = {addr, 0, 0, NULL};
    if (ext_reserve(&x, size) != 0)
        return -1;
    memcpy(x.p, buf, size);
    x.len = size;
    memmove(&o->e[i + 1], &o->e[i], (o->n - i) * sizeof(*o->e));
    o->e[i] = x;
    o->n++;
    o->bytes += size;
    return 0;
}

/* Drops every byte at or past eof: the file is cut there. */
static void ovl_cut(struct pfs_ovl *o, haddr_t eof)
{
    while (o->n > 0 && o->e[o->n - 1].addr >= eof) {
        o->n--;
        o->bytes -= o->e[o->n].len;
        free(o->e[o->n].p);
    }
    if (o->n > 0 && o->e[o->n - 1].addr + o->e[o->n - 1].len > eof) {
        struct pfs_ext *x = &o->e[o->n - 1];
        o->bytes -= x->len - (size_t)(eof - x->addr);
        x->len = (size_t)(eof - x->addr);
    }
    if (eof < o->file_valid)
        o->file_valid = eof;
    o->eof = eof;
}

struct pfs_ovl *pfs_res_ovl_new(int fd, off_t size)
{
    struct pfs_ovl *o = calloc(1, sizeof(*o));
    if (o)
        o->fd = fd, o->old_eof = o->eof = o->file_valid = (haddr_t)size;
    return o;
}

void pfs_res_ovl_free(struct pfs_ovl *o)
{
    if (!o)
        return;
    for (size_t i = 0; i < o->n; i++)
        free(o->e[i].p);
    free(o->e);
    free(o);
}

int pfs_res_ovl_read(const struct pfs_ovl *o, haddr_t addr, size_t size, void *buf)
{
    unsigned char *b = buf;
    size_t from_file = addr >= o->file_valid ? 0 : (size_t)(o->file_valid - addr < size ? o->file_valid - addr : size);
    size_t got = 0;
    while (got < from_file) {
        ssize_t r = pread(o->fd, b + got, from_file - got, (off_t)(addr + got));
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -1;
        if (r == 0)
            break; /* shorter than it was: read as zeros, as HDF5's own driver does past the end */
        got += (size_t)r;
    }
    memset(b + got, 0, size - got);
    haddr_t end = addr + size;
    for (size_t i = first_from(o, addr); i < o->n && o->e[i].addr < end; i++) {
        const struct pfs_ext *x = &o->e[i];
        haddr_t lo = x->addr > addr ? x->addr : addr, hi = x->addr + x->len < end ? x->addr + x->len : end;
        if (lo < hi)
            memcpy(b + (lo - addr), x->p + (lo - x->addr), (size_t)(hi - lo));
    }
    return 0;
}

/* ---- the driver's callbacks ---- */

static struct pfs_ovl *of(const H5FD_t *f)
{
    return ((const struct ovl_file *)f)->o;
}

static void *fa_copy(const void *fa)
{
    struct ovl_fa *c = malloc(sizeof(*c));
    if (c)
        *c = *(const struct ovl_fa *)fa;
    return c;
}

static herr_t fa_free(void *fa)
{
    free(fa);
    return 0;
}

static H5FD_t *drv_open(const char *name, unsigned flags, hid_t fapl, haddr_t maxaddr)
{
    (void)name, (void)maxaddr;
    const struct ovl_fa *fa = H5Pget_driver_info(fapl);
    if (!fa || !fa->o || (flags & (H5F_ACC_CREAT | H5F_ACC_TRUNC | H5F_ACC_EXCL)))
        return NULL; /* only an existing file, opened by append.c */
    struct ovl_file *f = calloc(1, sizeof(*f));
    if (f)
        f->o = fa->o;
    return f ? &f->pub : NULL;
}

static herr_t drv_close(H5FD_t *f)
{
    free(f); /* the overlay stays with its owner, for the commit */
    return 0;
}

static int drv_cmp(const H5FD_t *a, const H5FD_t *b)
{
    return of(a) == of(b) ? 0 : (uintptr_t)of(a) < (uintptr_t)of(b) ? -1 : 1;
}

static herr_t drv_query(const H5FD_t *f, unsigned long *flags)
{
    (void)f;
    *flags = H5FD_FEAT_AGGREGATE_METADATA | H5FD_FEAT_ACCUMULATE_METADATA | H5FD_FEAT_DATA_SIEVE |
             H5FD_FEAT_AGGREGATE_SMALLDATA;
    return 0;
}

static haddr_t drv_get_eoa(const H5FD_t *f, H5FD_mem_t type)
{
    (void)type;
    return ((const struct ovl_file *)f)->eoa;
}

static herr_t drv_set_eoa(H5FD_t *f, H5FD_mem_t type, haddr_t addr)
{
    (void)type;
    ((struct ovl_file *)f)->eoa = addr;
    return 0;
}

static haddr_t drv_get_eof(const H5FD_t *f, H5FD_mem_t type)
{
    (void)type;
    return of(f)->eof;
}

static herr_t drv_get_handle(H5FD_t *f, hid_t fapl, void **handle)
{
    (void)fapl;
    *handle = &of(f)->fd;
    return 0;
}

static herr_t drv_read(H5FD_t *f, H5FD_mem_t type, hid_t dxpl, haddr_t addr, size_t size, void *buf)
{
    (void)type, (void)dxpl;
    if (addr == HADDR_UNDEF || addr + size < addr)
        return -1;
    if (pfs_res_ovl_read(of(f), addr, size, buf) != 0) {
        of(f)->err = errno;
        return -1;
    }
    return 0;
}

static herr_t drv_write(H5FD_t *f, H5FD_mem_t type, hid_t dxpl, haddr_t addr, size_t size, const void *buf)
{
    (void)type, (void)dxpl;
    struct pfs_ovl *o = of(f);
    if (addr == HADDR_UNDEF || addr + size < addr || ovl_put(o, addr, size, buf) != 0)
        return -1;
    if (addr + size > o->eof)
        o->eof = addr + size;
    return 0;
}

static herr_t drv_flush(H5FD_t *f, hid_t dxpl, hbool_t closing)
{
    (void)f, (void)dxpl, (void)closing;
    return 0;
}

/* As HDF5's own drivers: the file ends where HDF5's allocation does. */
static herr_t drv_truncate(H5FD_t *f, hid_t dxpl, hbool_t closing)
{
    (void)dxpl, (void)closing;
    struct ovl_file *o = (struct ovl_file *)f;
    if (o->eoa != o->o->eof)
        ovl_cut(o->o, o->eoa);
    return 0;
}

static const H5FD_class_t ovl_class = {
    .name = "pfsbench-overlay",
    .maxaddr = ((haddr_t)1 << (8 * sizeof(off_t) - 1)) - 1,
    .fc_degree = H5F_CLOSE_WEAK,
    .fapl_size = sizeof(struct ovl_fa),
    .fapl_copy = fa_copy,
    .fapl_free = fa_free,
    .open = drv_open,
    .close = drv_close,
    .cmp = drv_cmp,
    .query = drv_query,
    .get_eoa = drv_get_eoa,
    .set_eoa = drv_set_eoa,
    .get_eof = drv_get_eof,
    .get_handle = drv_get_handle,
    .read = drv_read,
    .write = drv_write,
    .flush = drv_flush,
    .truncate = drv_truncate,
    .fl_map = H5FD_FLMAP_DICHOTOMY,
};

hid_t pfs_res_ovl_fapl(struct pfs_ovl *o, hid_t *driver)
{
    *driver = H5FDregister(&ovl_class);
    hid_t fapl = *driver >= 0 ? H5Pcreate(H5P_FILE_ACCESS) : -1;
    struct ovl_fa fa = {o};
    if (fapl >= 0 && H5Pset_driver(fapl, *driver, &fa) < 0) {
        H5Pclose(fapl);
        fapl = -1;
    }
    if (fapl < 0 && *driver >= 0) {
        H5FDunregister(*driver);
        *driver = -1;
    }
    return fapl;
}
