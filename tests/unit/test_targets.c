/* Storage targets (pfs/targets.h), the striped file systems: Lustre's
 * lov_user_md v1/v3 and lov_comp_md_v1 laid out byte by byte at the
 * documented offsets (in host and in the other byte order) and
 * ceph.file.layout's text, written from their documentation; the range map
 * over stripes, PFL extents, mirrors and Ceph's object sets; the hook that
 * places Ceph objects; damaged inputs refused, every truncation too. The
 * other providers: test_target_providers.c. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pfs/targets.h"

#define MIB (1ull << 20)

/* ---- helpers ---- */

static void put(unsigned char *b, size_t off, uint64_t v, int bytes, int swap)
{
    if (bytes == 2) {
        uint16_t x = (uint16_t)v;
        x = swap ? __builtin_bswap16(x) : x;
        memcpy(b + off, &x, 2);
    } else if (bytes == 4) {
        uint32_t x = (uint32_t)v;
        x = swap ? __builtin_bswap32(x) : x;
        memcpy(b + off, &x, 4);
    } else {
        v = swap ? __builtin_bswap64(v) : v;
        memcpy(b + off, &v, 8);
    }
}

/* A lov_user_md at b+off: v1 (32-byte header) or v3 (48, pool at 32),
 * with osts[] objects of 24 bytes (OST index at +20). Returns its size. */
static size_t lum(unsigned char *b, size_t off, int v3, uint32_t pattern, uint32_t ssize, uint16_t count,
                  const uint32_t *osts, int nobj, const char *pool, int swap)
{
    size_t hdr = v3 ? 48 : 32;
    memset(b + off, 0, hdr + (size_t)nobj * 24);
    put(b, off + 0, v3 ? 0x0BD30BD0u : 0x0BD10BD0u, 4, swap);
    put(b, off + 4, pattern, 4, swap);
    put(b, off + 8, 0x1234, 8, swap);    /* object id */
    put(b, off + 16, 0x200000401, 8, swap); /* object sequence */
    put(b, off + 24, ssize, 4, swap);
    put(b, off + 28, count, 2, swap);
    put(b, off + 30, 3, 2, swap); /* layout generation */
    if (v3 && pool)
        memcpy(b + off + 32, pool, strlen(pool));
    for (int i = 0; i < nobj; i++) {
        size_t o = off + hdr + (size_t)i * 24;
        put(b, o, 0x100 + (uint64_t)i, 8, swap);
        put(b, o + 8, 0x100000400, 8, swap);
        put(b, o + 16, 0, 4, swap);      /* generation */
        put(b, o + 20, osts[i], 4, swap); /* OST index */
    }
    return hdr + (size_t)nobj * 24;
}

struct entry {
    uint32_t id, flags;
    uint64_t start, end;
    int v3;
    uint32_t pattern, ssize;
    uint16_t count;
    const uint32_t *osts;
    int nobj;
};

/* A lov_comp_md_v1: 32-byte header, 48-byte entries, then the blobs. */
static size_t comp(unsigned char *b, const struct entry *e, int n, uint16_t mirror_count, int swap)
{
    size_t off = 32 + (size_t)n * 48;
    memset(b, 0, off);
    put(b, 0, 0x0BD60BD0u, 4, swap);
    put(b, 8, 7, 4, swap);
    put(b, 14, (uint16_t)n, 2, swap);
    put(b, 16, mirror_count, 2, swap);
    for (int i = 0; i < n; i++) {
        size_t h = 32 + (size_t)i * 48;
        size_t size = lum(b, off, e[i].v3, e[i].pattern, e[i].ssize, e[i].count, e[i].osts, e[i].nobj, "", swap);
        put(b, h + 0, e[i].id, 4, swap);
        put(b, h + 4, e[i].flags, 4, swap);
        put(b, h + 8, e[i].start, 8, swap);
        put(b, h + 16, e[i].end, 8, swap);
        put(b, h + 24, off, 4, swap);
        put(b, h + 28, size, 4, swap);
        off += size;
    }
    put(b, 4, off, 4, swap);
    return off;
}

static const char *name_at(const struct pfs_layout *l, uint64_t off)
{
    int t = pfs_layout_target_at(l, off);
    return t < 0 ? "(none)" : l->targets[t].name;
}

static void parse_ok(int rc, const char *err)
{
    if (rc != 0)
        fail_msg("parse failed (%d): %s", rc, err);
}

/* ---- Lustre ---- */

static void check_plain(const unsigned char *b, size_t n)
{
    struct pfs_layout l;
    char err[256] = "";
    pfs_layout_init(&l, "lustre");
    parse_ok(pfs_lustre_parse_lov(b, n, &l, err, sizeof(err)), err);
    assert_int_equal(l.ntargets, 4);
    assert_string_equal(l.targets[0].name, "OST0003");
    assert_string_equal(l.targets[2].name, "OST000a"); /* hex, as Lustre names them */
    assert_int_equal(l.targets[2].index, 10);
    assert_string_equal(l.detail, "stripe_count=4 stripe_size=1048576");
    static const char *want[] = {"OST0003", "OST0000", "OST000a", "OST0007", "OST0003"};
    for (int i = 0; i < 5; i++)
        assert_string_equal(name_at(&l, (uint64_t)i * MIB + 17), want[i]);
    /* a transfer over a stripe boundary: two pieces */
    struct pfs_layout_piece pc[8];
    assert_int_equal(pfs_layout_split(&l, MIB + MIB / 2, MIB, pc, 8), 2);
    assert_int_equal(pc[0].off, MIB + MIB / 2);
    assert_int_equal(pc[0].len, MIB / 2);
    assert_int_equal(pc[0].object, 1);
    assert_string_equal(l.targets[pc[0].t[0]].name, "OST0000");
    assert_int_equal(pc[1].off, 2 * MIB);
    assert_int_equal(pc[1].len, MIB / 2);
    assert_string_equal(l.targets[pc[1].t[0]].name, "OST000a");
    /* 9 MiB from 0: nine pieces, more than room for 4 (the count says so) */
    assert_int_equal(pfs_layout_split(&l, 0, 9 * MIB, pc, 4), 9);
    assert_int_equal(pfs_layout_split(&l, 5, 0, pc, 4), 0);
    pfs_layout_free(&l);
}

static void test_lustre_v1(void **state)
{
    (void)state;
    unsigned char b[512];
    static const uint32_t osts[] = {3, 0, 10, 7};
    size_t n = lum(b, 0, 0, 1, 1 << 20, 4, osts, 4, NULL, 0);
    assert_int_equal(n, 32 + 4 * 24);
    check_plain(b, n);
    /* the same attribute taken on a machine of the other byte order */
    n = lum(b, 0, 0, 1, 1 << 20, 4, osts, 4, NULL, 1);
    check_plain(b, n);
}

static void test_lustre_v3(void **state)
{
    (void)state;
    unsigned char b[512];
    static const uint32_t osts[] = {1, 2};
    size_t n = lum(b, 0, 1, 1, 65536, 2, osts, 2, "flash", 0);
    assert_int_equal(n, 48 + 2 * 24);
    struct pfs_layout l;
    char err[256] = "";
    pfs_layout_init(&l, "lustre");
    parse_ok(pfs_lustre_parse_lov(b, n, &l, err, sizeof(err)), err);
    assert_int_equal(l.ntargets, 2);
    assert_string_equal(name_at(&l, 0), "OST0001");
    assert_string_equal(name_at(&l, 65536), "OST0002");
    assert_string_equal(name_at(&l, 3 * 65536 + 1), "OST0002");
    assert_string_equal(l.detail, "stripe_count=2 stripe_size=65536 pool=flash");
    pfs_layout_free(&l);
}

static void test_lustre_pfl(void **state)
{
    (void)state;
    unsigned char b[2048];
    static const uint32_t o0[] = {5}, o1[] = {0, 1, 2, 3};
    const struct entry e[] = {
        {1, 0x10, 0, MIB, 0, 1, 1 << 20, 1, o0, 1},
        {2, 0x10, MIB, 64 * MIB, 1, 1, 1 << 20, 4, o1, 4},
        {3, 0, 64 * MIB, PFS_LAYOUT_EOF, 0, 1, 4 << 20, 0xffff, NULL, 0}, /* not instantiated: no objects */
    };
    size_t n = comp(b, e, 3, 0, 0);
    struct pfs_layout l;
    char err[256] = "";
    pfs_layout_init(&l, "lustre");
    parse_ok(pfs_lustre_parse_lov(b, n, &l, err, sizeof(err)), err);
    assert_int_equal(l.ncomps, 3);
    assert_int_equal(l.pending, 1);
    assert_string_equal(l.detail, "composite: 3 components (2 instantiated), 1 mirror");
    assert_string_equal(name_at(&l, 0), "OST0005");
    assert_string_equal(name_at(&l, MIB - 1), "OST0005");
    /* stripes count from the file's offset 0: 1 MiB is stripe 1 of 4 */
    assert_string_equal(name_at(&l, MIB), "OST0001");
    assert_string_equal(name_at(&l, 63 * MIB), "OST0003");
    assert_string_equal(name_at(&l, 64 * MIB), "(none)");
    struct pfs_layout_piece pc[8];
    assert_int_equal(pfs_layout_split(&l, 63 * MIB, 2 * MIB, pc, 8), 2);
    assert_int_equal(pc[0].comp, 1);
    assert_int_equal(pc[0].nt, 1);
    assert_int_equal(pc[1].comp, 2);
    assert_int_equal(pc[1].off, 64 * MIB);
    assert_int_equal(pc[1].len, MIB);
    assert_int_equal(pc[1].nt, 0); /* no target yet: ask again after writing */
    /* byte-swapped, the same */
    n = comp(b, e, 3, 0, 1);
    pfs_layout_free(&l);
    parse_ok(pfs_lustre_parse_lov(b, n, &l, err, sizeof(err)), err);
    assert_string_equal(name_at(&l, 63 * MIB), "OST0003");
    pfs_layout_free(&l);
}

static void test_lustre_dom_and_mirrors(void **state)
{
    (void)state;
    unsigned char b[2048];
    static const uint32_t o1[] = {4, 6}, m1[] = {8}, m2[] = {9};
    const struct entry dom[] = {
        {1, 0x10, 0, MIB, 0, 0x100, 1 << 20, 0, NULL, 0}, /* data on the MDT */
        {2, 0x10, MIB, PFS_LAYOUT_EOF, 0, 1, 1 << 20, 2, o1, 2},
    };
    struct pfs_layout l;
    char err[256] = "";
    pfs_layout_init(&l, "lustre");
    parse_ok(pfs_lustre_parse_lov(b, comp(b, dom, 2, 0, 0), &l, err, sizeof(err)), err);
    assert_string_equal(name_at(&l, 100), "MDT");
    assert_string_equal(name_at(&l, MIB), "OST0006"); /* stripe (1 MiB / 1 MiB) mod 2 = 1 */
    assert_string_equal(name_at(&l, 2 * MIB), "OST0004");
    pfs_layout_free(&l);
    /* FLR: two mirrors of the whole file (mirror ids 1 and 2 in bits 16..30) */
    const struct entry flr[] = {
        {0x10001, 0x10, 0, PFS_LAYOUT_EOF, 0, 1, 1 << 20, 1, m1, 1},
        {0x20002, 0x10, 0, PFS_LAYOUT_EOF, 0, 1, 1 << 20, 1, m2, 1},
    };
    parse_ok(pfs_lustre_parse_lov(b, comp(b, flr, 2, 1, 0), &l, err, sizeof(err)), err);
    assert_string_equal(l.detail, "composite: 2 components (2 instantiated), 2 mirrors");
    struct pfs_layout_piece pc[4];
    assert_int_equal(pfs_layout_split(&l, 0, 4096, pc, 4), 2); /* one piece per mirror */
    assert_string_equal(l.targets[pc[0].t[0]].name, "OST0008");
    assert_string_equal(l.targets[pc[1].t[0]].name, "OST0009");
    pfs_layout_free(&l);
}

static void test_lustre_damaged(void **state)
{
    (void)state;
    unsigned char b[2048], c[2048];
    static const uint32_t osts[] = {1, 2, 3};
    size_t n = lum(b, 0, 0, 1, 1 << 20, 3, osts, 3, NULL, 0);
    struct pfs_layout l;
    char err[256];
    pfs_layout_init(&l, "lustre");
    /* every truncation is refused, never read past */
    for (size_t k = 0; k < n; k++) {
        assert_int_equal(pfs_lustre_parse_lov(b, k, &l, err, sizeof(err)), -1);
        pfs_layout_free(&l);
    }
    /* every truncation of a v3 layout with data on the MDT (no objects) too */
    size_t v3 = lum(c, 0, 1, 0x100, 1 << 20, 0, NULL, 0, "p", 0);
    for (size_t k = 0; k < v3; k++) {
        assert_int_equal(pfs_lustre_parse_lov(c, k, &l, err, sizeof(err)), -1);
        pfs_layout_free(&l);
    }
    assert_int_equal(pfs_lustre_parse_lov(c, v3, &l, err, sizeof(err)), 0);
    pfs_layout_free(&l);
    memcpy(c, b, n);
    put(c, 0, 0xdeadbeef, 4, 0);
    assert_int_equal(pfs_lustre_parse_lov(c, n, &l, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "0xdeadbeef"));
    pfs_layout_free(&l);
    memcpy(c, b, n);
    put(c, 0, 0x0BD70BD0u, 4, 0); /* foreign */
    assert_int_equal(pfs_lustre_parse_lov(c, n, &l, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "foreign"));
    pfs_layout_free(&l);
    memcpy(c, b, n);
    put(c, 24, 0, 4, 0); /* stripe size 0 */
    assert_int_equal(pfs_lustre_parse_lov(c, n, &l, err, sizeof(err)), -1);
    pfs_layout_free(&l);
    /* a composite entry whose blob lies past the end */
    static const uint32_t o[] = {1};
    const struct entry e[] = {{1, 0x10, 0, PFS_LAYOUT_EOF, 0, 1, 1 << 20, 1, o, 1}};
    size_t m = comp(c, e, 1, 0, 0);
    put(c, 32 + 24, m, 4, 0);
    assert_int_equal(pfs_lustre_parse_lov(c, m, &l, err, sizeof(err)), -1);
    pfs_layout_free(&l);
    m = comp(c, e, 1, 0, 0);
    put(c, 32 + 16, 0, 8, 0); /* empty extent */
    assert_int_equal(pfs_lustre_parse_lov(c, m, &l, err, sizeof(err)), -1);
    pfs_layout_free(&l);
    for (size_t k = 0; k < m; k++) { /* every truncation of a composite too */
        assert_int_equal(pfs_lustre_parse_lov(c, k, &l, err, sizeof(err)), -1);
        pfs_layout_free(&l);
    }
}

/* ---- CephFS ---- */

static void test_ceph_default(void **state)
{
    (void)state;
    struct pfs_layout l;
    char err[256] = "", name[64];
    pfs_layout_init(&l, "ceph");
    parse_ok(pfs_ceph_parse_layout("stripe_unit=4194304 stripe_count=1 object_size=4194304 pool=cephfs_data",
                                   0x10000000000ull, &l, err, sizeof(err)),
             err);
    assert_int_equal(l.ntargets, 1);
    assert_string_equal(l.targets[0].name, "pool:cephfs_data");
    assert_string_equal(l.ceph_pool, "cephfs_data");
    struct pfs_layout_piece pc[4];
    assert_int_equal(pfs_layout_split(&l, 9 * MIB, MIB, pc, 4), 1);
    assert_int_equal(pc[0].object, 2);
    pfs_ceph_object_name(l.ceph_ino, pc[0].object, name, sizeof(name));
    assert_string_equal(name, "10000000000.00000002");
    assert_int_equal(pfs_layout_split(&l, 4 * MIB - 1, 2, pc, 4), 2); /* over an object boundary */
    assert_int_equal(pc[0].object, 0);
    assert_int_equal(pc[1].object, 1);
    pfs_layout_free(&l);
}

/* Units of 1 MiB over 4 objects, each object 2 MiB (2 units): blocks 0-3
 * go to objects 0-3, blocks 4-7 to objects 0-3 again, then a new set:
 * blocks 8-11 to objects 4-7. */
static const char striped[] = "stripe_unit=1048576 stripe_count=4 object_size=2097152 pool=fs.data "
                              "pool_namespace=ns1";

static void test_ceph_striped(void **state)
{
    (void)state;
    struct pfs_layout l;
    char err[256] = "";
    pfs_layout_init(&l, "ceph");
    parse_ok(pfs_ceph_parse_layout(striped, 0x1000000abcdull, &l, err, sizeof(err)), err);
    assert_string_equal(l.targets[0].name, "pool:fs.data/ns1");
    assert_string_equal(l.ceph_ns, "ns1");
    static const uint64_t block_obj[] = {0, 1, 2, 3, 0, 1, 2, 3, 4, 5, 6, 7, 4, 5, 6, 7, 8};
    struct pfs_layout_piece pc[20];
    assert_int_equal(pfs_layout_split(&l, 0, 17 * MIB, pc, 20), 17);
    for (int i = 0; i < 17; i++) {
        assert_int_equal(pc[i].off, (uint64_t)i * MIB);
        assert_int_equal(pc[i].len, MIB);
        assert_int_equal(pc[i].object, block_obj[i]);
    }
    pfs_layout_free(&l);
    static const char *bad[] = {
        "",
        "stripe_unit=0 stripe_count=1 object_size=4194304 pool=p",
        "stripe_unit=3000000 stripe_count=1 object_size=4194304 pool=p", /* not a divisor */
        "stripe_unit=4194304 stripe_count=1 object_size=4194304",        /* no pool */
        "stripe_unit=4194304 stripe_count=x object_size=4194304 pool=p",
        "stripe_unit=-1 stripe_count=1 object_size=4194304 pool=p",
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        if (pfs_ceph_parse_layout(bad[i], 1, &l, err, sizeof(err)) != -1)
            fail_msg("bad ceph layout %zu accepted", i);
        pfs_layout_free(&l);
    }
}

/* A cluster map for the hook: object N on osd.(N mod 3), except object 5,
 * which it cannot place; it records what it was asked. */
struct fake_map {
    char pool[64], ns[64], first[64];
    int asked;
};

static int fake_osd(void *arg, const char *pool, const char *ns, const char *object, int *osds, int max)
{
    struct fake_map *m = arg;
    if (m->asked++ == 0)
        snprintf(m->first, sizeof(m->first), "%s", object);
    snprintf(m->pool, sizeof(m->pool), "%s", pool);
    snprintf(m->ns, sizeof(m->ns), "%s", ns);
    unsigned long long n = strtoull(strchr(object, '.') + 1, NULL, 16);
    if (n == 5 || max < 2)
        return -1;
    osds[0] = (int)(n % 3), osds[1] = (int)((n + 1) % 3);
    return 2;
}

static void test_ceph_hook(void **state)
{
    (void)state;
    struct pfs_layout l;
    struct fake_map m = {0};
    char err[256] = "";
    pfs_layout_init(&l, "ceph");
    parse_ok(pfs_ceph_parse_layout(striped, 0x1000000abcdull, &l, err, sizeof(err)), err);
    /* 10 MiB: blocks 0-9, objects 0-5 */
    assert_int_equal(pfs_ceph_map_objects(&l, 10 * MIB, fake_osd, &m), 0);
    assert_int_equal(m.asked, 6);
    assert_string_equal(m.first, "1000000abcd.00000000");
    assert_string_equal(m.pool, "fs.data");
    assert_string_equal(m.ns, "ns1");
    assert_string_equal(name_at(&l, 3 * MIB), "osd.0");       /* object 3 */
    assert_string_equal(name_at(&l, 9 * MIB), "pool:fs.data/ns1"); /* object 5: the hook could not say */
    assert_string_equal(name_at(&l, 8 * MIB), "osd.1");       /* object 4 */
    assert_string_equal(name_at(&l, 16 * MIB), "pool:fs.data/ns1"); /* object 8: beyond the size asked about */
    for (uint32_t i = 0; i < l.ntargets; i++)
        if (strncmp(l.targets[i].name, "osd.", 4) == 0)
            assert_int_equal(l.targets[i].index, atoi(l.targets[i].name + 4));
    pfs_layout_free(&l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lustre_v1),
        cmocka_unit_test(test_lustre_v3),
        cmocka_unit_test(test_lustre_pfl),
        cmocka_unit_test(test_lustre_dom_and_mirrors),
        cmocka_unit_test(test_lustre_damaged),
        cmocka_unit_test(test_ceph_default),
        cmocka_unit_test(test_ceph_striped),
        cmocka_unit_test(test_ceph_hook),
    };
    return cmocka_run_group_tests_name("targets", tests, NULL, NULL);
}
