/* Lustre: the OSTs of a file from its lustre.lov attribute (no root
 * needed, no liblustreapi). The attribute is a lov_user_md (v1, or v3 with
 * a pool name) for a plain layout, or a lov_comp_md_v1 whose entries each
 * point to one for a composite layout (PFL extents, FLR mirrors). Fields
 * are read at their documented offsets, never through a packed struct. */
#include "pfs/targets.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LOV_MAGIC_V1 0x0BD10BD0u
#define LOV_MAGIC_V3 0x0BD30BD0u
#define LOV_MAGIC_COMP_V1 0x0BD60BD0u
#define LOV_MAGIC_FOREIGN 0x0BD70BD0u

#define LOV_PATTERN_MDT 0x100u          /* data on the MDT (DoM) */
#define LOV_PATTERN_F_RELEASED 0x80000000u /* HSM released: no objects */

#define LCME_FL_INIT 0x10u /* the component's objects exist */

/* lov_user_md_v1: magic 0, pattern 4, object id 8 (16 bytes), stripe size
 * 24, stripe count 28 (u16), layout generation 30; objects from 32, or
 * from 48 in v3 (16 bytes of pool name at 32). Each object is 24 bytes:
 * its id (16), generation (u32), OST index (u32) at +20. */
#define LUM_HDR_V1 32u
#define LUM_HDR_V3 48u
#define LUM_OBJ 24u
/* lov_comp_md_v1: magic 0, size 4, generation 8, flags 12 (u16), entry
 * count 14 (u16), mirror count 16 (u16); entries from 32, 48 bytes each:
 * id 0, flags 4, extent start 8 and end 16 (u64), blob offset 24 and size
 * 28 (from the start of the attribute). */
#define LCM_HDR 32u
#define LCME_SIZE 48u

struct reader {
    const unsigned char *b;
    size_t len;
    int swap; /* the attribute is in the other byte order */
};

/* A field of bytes (2, 4 or 8) at off, in host order or swapped. */
static uint64_t rd(const struct reader *r, size_t off, int bytes)
{
    if (bytes == 2) {
        uint16_t v;
        memcpy(&v, r->b + off, 2);
        return r->swap ? __builtin_bswap16(v) : v;
    }
    if (bytes == 4) {
        uint32_t v;
        memcpy(&v, r->b + off, 4);
        return r->swap ? __builtin_bswap32(v) : v;
    }
    uint64_t v;
    memcpy(&v, r->b + off, 8);
    return r->swap ? __builtin_bswap64(v) : v;
}

/* A plain lov_user_md at [off, off + size) of r, as component c. */
static int parse_lum(const struct reader *r, size_t off, size_t size, struct pfs_layout_comp *c, int init,
                     struct pfs_layout *out, char *err, size_t errlen)
{
    if (size < LUM_HDR_V1 || off + size > r->len) {
        snprintf(err, errlen, "a layout of %zu bytes at %zu is shorter than its header", size, off);
        return -1;
    }
    uint32_t magic = (uint32_t)rd(r, off, 4), pattern = (uint32_t)rd(r, off + 4, 4);
    if (magic != LOV_MAGIC_V1 && magic != LOV_MAGIC_V3) {
        snprintf(err, errlen, "layout magic 0x%08" PRIx32 " is not lov_user_md v1 or v3", magic);
        return -1;
    }
    size_t hdr = magic == LOV_MAGIC_V3 ? LUM_HDR_V3 : LUM_HDR_V1;
    if (size < hdr) {
        snprintf(err, errlen, "a v3 layout of %zu bytes is shorter than its %zu-byte header", size, hdr);
        return -1;
    }
    uint32_t ssize = (uint32_t)rd(r, off + 24, 4);
    uint32_t count = (uint32_t)rd(r, off + 28, 2);
    c->unit = ssize;
    if (pattern & LOV_PATTERN_MDT) {
        /* Data on the MDT: no OST object; the MDT holding the inode serves it. */
        c->kind = PFS_COMP_WHOLE, c->count = 1, c->width = 1;
        int t = pfs_layout_target(out, "MDT", -1);
        if (t < 0)
            return -2;
        const uint32_t slot = (uint32_t)t;
        return pfs_layout_add_comp(out, c, &slot, 1) == 0 ? 0 : -2;
    }
    if (!init || (pattern & LOV_PATTERN_F_RELEASED) || count == 0 || count == 0xffff) {
        c->kind = PFS_COMP_RAID0, c->count = count == 0xffff || count == 0 ? 1 : count, c->width = 0;
        return pfs_layout_add_comp(out, c, NULL, 0) == 0 ? 0 : -2;
    }
    if (ssize == 0 || hdr + (size_t)count * LUM_OBJ > size) {
        snprintf(err, errlen, "layout of %" PRIu32 " stripes of %" PRIu32 " bytes does not fit its %zu bytes",
                 count, ssize, size);
        return -1;
    }
    uint32_t *slots = malloc(count * sizeof(*slots));
    if (!slots)
        return -2;
    for (uint32_t s = 0; s < count; s++) {
        uint32_t idx = (uint32_t)rd(r, off + hdr + (size_t)s * LUM_OBJ + 20, 4);
        char name[16];
        snprintf(name, sizeof(name), "OST%04" PRIx32, idx); /* Lustre names OSTs by hex index */
        int t = pfs_layout_target(out, name, idx);
        if (t < 0) {
            free(slots);
            return -2;
        }
        slots[s] = (uint32_t)t;
    }
    c->kind = PFS_COMP_RAID0, c->count = count, c->width = 1;
    int rc = pfs_layout_add_comp(out, c, slots, count) == 0 ? 0 : -2;
    free(slots);
    return rc;
}

static int parse_comp(const struct reader *r, struct pfs_layout *out, char *err, size_t errlen)
{
    if (r->len < LCM_HDR) {
        snprintf(err, errlen, "composite layout of %zu bytes is shorter than its header", r->len);
        return -1;
    }
    uint32_t entries = (uint32_t)rd(r, 14, 2), mirrors = (uint32_t)rd(r, 16, 2) + 1;
    if (LCM_HDR + (size_t)entries * LCME_SIZE > r->len || entries == 0) {
        snprintf(err, errlen, "composite layout of %" PRIu32 " entries does not fit its %zu bytes", entries,
                 r->len);
        return -1;
    }
    uint32_t init = 0;
    for (uint32_t i = 0; i < entries; i++) {
        size_t e = LCM_HDR + (size_t)i * LCME_SIZE;
        uint32_t flags = (uint32_t)rd(r, e + 4, 4);
        struct pfs_layout_comp c = {.start = rd(r, e + 8, 8), .end = rd(r, e + 16, 8)};
        size_t boff = (size_t)rd(r, e + 24, 4), bsize = (size_t)rd(r, e + 28, 4);
        if (c.end <= c.start) {
            snprintf(err, errlen, "component %" PRIu32 " has an empty extent", i);
            return -1;
        }
        int rc = parse_lum(r, boff, bsize, &c, (flags & LCME_FL_INIT) != 0, out, err, errlen);
        if (rc != 0)
            return rc;
        init += (flags & LCME_FL_INIT) != 0;
    }
    snprintf(out->detail, sizeof(out->detail),
             "composite: %" PRIu32 " components (%" PRIu32 " instantiated), %" PRIu32 " mirror%s", entries, init,
             mirrors, mirrors == 1 ? "" : "s");
    return 0;
}

int pfs_lustre_parse_lov(const void *buf, size_t len, struct pfs_layout *out, char *err, size_t errlen)
{
    struct reader r = {buf, len, 0};
    if (len < 4) {
        snprintf(err, errlen, "layout of %zu bytes has no magic", len);
        return -1;
    }
    /* The attribute is in host order; one taken on a machine of the other
     * order reads with its magic's bytes reversed. */
    uint32_t magic = (uint32_t)rd(&r, 0, 4);
    uint32_t other = __builtin_bswap32(magic);
    if (other == LOV_MAGIC_V1 || other == LOV_MAGIC_V3 || other == LOV_MAGIC_COMP_V1) {
        r.swap = 1;
        magic = other;
    }
    if (magic == LOV_MAGIC_COMP_V1)
        return parse_comp(&r, out, err, errlen);
    if (magic == LOV_MAGIC_FOREIGN) {
        snprintf(err, errlen, "a foreign layout (its data is outside Lustre's OSTs)");
        return -1;
    }
    struct pfs_layout_comp c = {.start = 0, .end = PFS_LAYOUT_EOF};
    int rc = parse_lum(&r, 0, len, &c, 1, out, err, errlen);
    /* v3 names its OST pool in 16 bytes at 32, NUL-padded */
    int plen = rc == 0 && magic == LOV_MAGIC_V3 ? (int)strnlen((const char *)buf + 32, 16) : 0;
    const char *pool = plen ? (const char *)buf + 32 : "";
    if (rc == 0 && out->ncomps == 1)
        snprintf(out->detail, sizeof(out->detail), "stripe_count=%" PRIu32 " stripe_size=%" PRIu64 "%s%.*s%s",
                 out->comps[0].count, out->comps[0].unit, plen ? " pool=" : "", plen, pool,
                 out->comps[0].width ? "" : " (no objects)");
    return rc;
}

static int lustre_layout(struct pfs_targets *t, int fd, const char *path, struct pfs_layout *out, char *why,
                         size_t len)
{
    (void)t;
    size_t n = 0;
    char *buf = pfs_targets_xattr(fd, "lustre.lov", &n);
    if (!buf) {
        snprintf(why, len, "reading lustre.lov of %s: %s", path, strerror(errno));
        return -1;
    }
    char err[256];
    int rc = pfs_lustre_parse_lov(buf, n, out, err, sizeof(err));
    free(buf);
    if (rc == -1)
        snprintf(why, len, "lustre.lov of %s: %s", path, err);
    return rc;
}

const struct pfs_target_provider pfs_target_lustre = {
    .name = "lustre",
    .types = "lustre",
    .command = NULL,
    .layout = lustre_layout,
};
