/* CephFS: a file's RADOS objects from its ceph.file.layout attribute
 * (stripe_unit, stripe_count, object_size, pool, pool_namespace) and its
 * inode number; object N of inode I is named "I.N" in hex. Which OSD
 * holds an object only the cluster's map says: a hook (pfs_ceph_osd_fn)
 * asks it where one is given; without it, every object's target is its
 * pool. */
#include "pfs/targets.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The value of key= among the space-separated words of text, into val. */
static int field(const char *text, const char *key, char *val, size_t len)
{
    size_t k = strlen(key);
    for (const char *p = text; *p;) {
        p += strspn(p, " \t\r\n");
        size_t m = strcspn(p, " \t\r\n");
        if (m > k && strncmp(p, key, k) == 0 && p[k] == '=') {
            size_t v = m - k - 1;
            if (v >= len)
                return -1;
            memcpy(val, p + k + 1, v);
            val[v] = '\0';
            return 0;
        }
        p += m;
    }
    return -1;
}

static int number(const char *text, const char *key, uint64_t *v)
{
    char s[32], *end;
    if (field(text, key, s, sizeof(s)) != 0 || !s[0])
        return -1;
    errno = 0;
    unsigned long long x = strtoull(s, &end, 10);
    if (*end || errno || s[0] == '-')
        return -1;
    *v = x;
    return 0;
}

int pfs_ceph_parse_layout(const char *text, uint64_t ino, struct pfs_layout *out, char *err, size_t errlen)
{
    uint64_t su, sc, os;
    char pool[96], ns[96] = "";
    if (number(text, "stripe_unit", &su) != 0 || number(text, "stripe_count", &sc) != 0 ||
        number(text, "object_size", &os) != 0 || field(text, "pool", pool, sizeof(pool)) != 0 || !pool[0]) {
        snprintf(err, errlen, "'%.80s' is not a ceph.file.layout (stripe_unit, stripe_count, object_size, pool)",
                 text);
        return -1;
    }
    if (su == 0 || sc == 0 || os == 0 || os % su != 0 || sc > UINT32_MAX) {
        snprintf(err, errlen, "ceph layout stripe_unit=%" PRIu64 " stripe_count=%" PRIu64 " object_size=%" PRIu64
                 ": the object size must be a multiple of the stripe unit, none zero", su, sc, os);
        return -1;
    }
    field(text, "pool_namespace", ns, sizeof(ns));
    char name[PFS_TARGET_NAME];
    snprintf(name, sizeof(name), "pool:%.60s%s%.60s", pool, ns[0] ? "/" : "", ns);
    int t = pfs_layout_target(out, name, -1);
    if (t < 0)
        return -2;
    const uint32_t slot = (uint32_t)t;
    const struct pfs_layout_comp c = {.start = 0, .end = PFS_LAYOUT_EOF, .kind = PFS_COMP_CEPH,
                                      .count = (uint32_t)sc, .unit = su, .object_size = os, .width = 1};
    if (pfs_layout_add_comp(out, &c, &slot, 1) != 0)
        return -2;
    out->comps[0].fallback = out->comps[0].first; /* every object in the pool until mapped */
    out->ceph_ino = ino;
    snprintf(out->ceph_pool, sizeof(out->ceph_pool), "%s", pool);
    snprintf(out->ceph_ns, sizeof(out->ceph_ns), "%s", ns);
    snprintf(out->detail, sizeof(out->detail),
             "stripe_unit=%" PRIu64 " stripe_count=%" PRIu64 " object_size=%" PRIu64 " pool=%s%s%s", su, sc, os,
             pool, ns[0] ? " pool_namespace=" : "", ns);
    return 0;
}

/* How many objects hold [0, size) under component c: those of the full
 * object sets before the last byte's, and of its set as many as it has
 * units, up to count. */
static uint64_t objects_of(const struct pfs_layout_comp *c, uint64_t size)
{
    if (size == 0)
        return 0;
    uint64_t block = (size - 1) / c->unit, per_object = c->object_size / c->unit;
    uint64_t stripe = block / c->count, pos = block % c->count;
    uint64_t set = stripe / per_object;
    uint64_t in_set = (stripe % per_object) * c->count + pos + 1; /* units of the last set */
    return set * c->count + (in_set < c->count ? in_set : c->count);
}

int pfs_ceph_map_objects(struct pfs_layout *l, uint64_t size, pfs_ceph_osd_fn osd_of, void *arg)
{
    if (l->ncomps != 1 || l->comps[0].kind != PFS_COMP_CEPH || !osd_of)
        return 0;
    struct pfs_layout_comp c = l->comps[0];
    uint64_t n = objects_of(&c, size);
    if (n == 0 || n > UINT32_MAX / 2)
        return 0;
    uint32_t *slots = malloc(n * sizeof(*slots));
    if (!slots)
        return -2;
    uint32_t pool_slot = l->slots[c.fallback];
    for (uint64_t o = 0; o < n; o++) {
        char object[64], name[32];
        int osds[16];
        pfs_ceph_object_name(l->ceph_ino, o, object, sizeof(object));
        int k = osd_of(arg, l->ceph_pool, l->ceph_ns, object, osds, 16);
        slots[o] = pool_slot;
        if (k > 0) {
            snprintf(name, sizeof(name), "osd.%d", osds[0]); /* the primary serves reads and orders writes */
            int t = pfs_layout_target(l, name, osds[0]);
            if (t < 0) {
                free(slots);
                return -2;
            }
            slots[o] = (uint32_t)t;
        }
    }
    /* The mapped objects become a component's slots of their own; the
     * fallback stays where it was. */
    c.mapped = (uint32_t)n;
    uint32_t fallback = c.fallback;
    l->ncomps = 0;
    if (pfs_layout_add_comp(l, &c, slots, (uint32_t)n) != 0) {
        free(slots);
        l->ncomps = 1;
        return -2;
    }
    l->comps[0].fallback = fallback;
    free(slots);
    return 0;
}

static int ceph_layout(struct pfs_targets *t, int fd, const char *path, struct pfs_layout *out, char *why,
                       size_t len)
{
    size_t n = 0;
    struct stat st;
    if (fstat(fd, &st) != 0) {
        snprintf(why, len, "fstat of %s: %s", path, strerror(errno));
        return -1;
    }
    char *text = pfs_targets_xattr(fd, "ceph.file.layout", &n);
    if (!text) {
        snprintf(why, len, "reading ceph.file.layout of %s: %s", path, strerror(errno));
        return -1;
    }
    char err[256];
    int rc = pfs_ceph_parse_layout(text, (uint64_t)st.st_ino, out, err, sizeof(err));
    free(text);
    if (rc == -1)
        snprintf(why, len, "ceph.file.layout of %s: %s", path, err);
    if (rc == 0 && t->ceph_osd)
        rc = pfs_ceph_map_objects(out, t->size_hint, t->ceph_osd, t->ceph_arg);
    return rc;
}

const struct pfs_target_provider pfs_target_ceph = {
    .name = "ceph",
    .types = "ceph fuse.ceph-fuse fuse.ceph",
    .command = NULL,
    .layout = ceph_layout,
};
