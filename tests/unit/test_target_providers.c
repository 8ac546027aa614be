/* Storage targets (pfs/targets.h), the other providers: GlusterFS
 * pathinfo recorded on this machine's GlusterFS 10.3 (and the disperse
 * shape), beegfs-ctl's and mmlsattr's output written from their
 * documentation, NFS mount sources, /sys block-device links; the providers
 * chosen by mount type, the local one run on real files, "unknown" said
 * once, a missing program said in one line; a layout's building blocks. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cmocka.h>

#include "pfs/targets.h"

/* ---- helpers ---- */

#define MIB (1ull << 20)

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

/* ---- GlusterFS ---- */

static void test_gluster(void **state)
{
    (void)state;
    struct pfs_layout l;
    char err[256] = "";
    /* recorded here: a 3-brick distribute volume, and a 2 x 2 distributed-replicate one */
    static const char dist[] = "(<DISTRIBUTE:pfsgl_XnNEHg-dht> <POSIX(/tmp/pfsgl.XnNEHg/brick1):vm:"
                               "/tmp/pfsgl.XnNEHg/brick1/f1>)";
    static const char repl[] = "(<DISTRIBUTE:pfsrep-dht> (<REPLICATE:pfsrep-replicate-1> "
                               "<POSIX(/tmp/pfsgl.XnNEHg/r3):vm:/tmp/pfsgl.XnNEHg/r3/g1> "
                               "<POSIX(/tmp/pfsgl.XnNEHg/r4):vm:/tmp/pfsgl.XnNEHg/r4/g1>))";
    /* the disperse shape (the EC translator's label), two hosts, one an IPv6 address */
    static const char ec[] = "(<DISTRIBUTE:v-dht> (<EC:v-disperse-0> <POSIX(/d/b1):srv1:/d/b1/x/f> "
                             "<POSIX(/d/b2):fd00::7:/d/b2/x/f> <POSIX(/d/b3):srv3:/d/b3/x/f>))";
    pfs_layout_init(&l, "glusterfs");
    parse_ok(pfs_gluster_parse_pathinfo(dist, &l, err, sizeof(err)), err);
    assert_int_equal(l.ntargets, 1);
    assert_string_equal(l.targets[0].name, "vm:/tmp/pfsgl.XnNEHg/brick1");
    assert_int_equal(l.targets[0].index, -1);
    assert_string_equal(l.detail, "distribute, 1 brick");
    pfs_layout_free(&l);
    parse_ok(pfs_gluster_parse_pathinfo(repl, &l, err, sizeof(err)), err);
    assert_int_equal(l.ntargets, 2);
    assert_string_equal(l.targets[1].name, "vm:/tmp/pfsgl.XnNEHg/r4");
    assert_string_equal(l.detail, "replicate, 2 bricks");
    struct pfs_layout_piece pc[4];
    assert_int_equal(pfs_layout_split(&l, 5 * MIB, 3 * MIB, pc, 4), 1); /* not striped: one piece, both replicas */
    assert_int_equal(pc[0].nt, 2);
    assert_int_equal(pc[0].len, 3 * MIB);
    pfs_layout_free(&l);
    parse_ok(pfs_gluster_parse_pathinfo(ec, &l, err, sizeof(err)), err);
    assert_int_equal(l.ntargets, 3);
    assert_string_equal(l.targets[1].name, "fd00::7:/d/b2");
    assert_string_equal(l.detail, "disperse, 3 bricks");
    pfs_layout_free(&l);
    static const char *bad[] = {
        "", "(<DISTRIBUTE:v-dht>)", "<POSIX(/b1):host>", "<POSIX(/b1):/b1/f>", "<POSIX(b1):h:b1/f>",
        "<POSIX(/b1:h:/b1/f>",
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        if (pfs_gluster_parse_pathinfo(bad[i], &l, err, sizeof(err)) != -1)
            fail_msg("bad pathinfo %zu accepted", i);
        pfs_layout_free(&l);
    }
}

/* ---- BeeGFS, GPFS, NFS, local disks ---- */

static void test_beegfs(void **state)
{
    (void)state;
    static const char raid0[] = "Entry type: file\nEntryID: 2-64A1B2C3-1\nMetadata node: meta01 [ID: 1]\n"
                                "Stripe pattern details:\n+ Type: RAID0\n+ Chunksize: 512K\n"
                                "+ Number of storage targets: desired: 4; actual: 4\n+ Storage targets:\n"
                                "  + 101 @ stor01 [ID: 1]\n  + 201 @ stor02 [ID: 2]\n"
                                "  + 102 @ stor01 [ID: 1]\n  + 202 @ stor02 [ID: 2]\n"
                                "Chunk path: u0/1A2B/3/0-4C5D/2-64A1B2C3-1\n";
    static const char buddy[] = "Entry type: file\nStripe pattern details:\n+ Type: Buddy Mirror\n"
                                "+ Chunksize: 1m\n+ Number of storage targets: desired: 2; actual: 2\n"
                                "+ Storage mirror buddy groups:\n+ 1\n+ 2\n";
    struct pfs_layout l;
    char err[256] = "";
    pfs_layout_init(&l, "beegfs");
    parse_ok(pfs_beegfs_parse_entryinfo(raid0, &l, err, sizeof(err)), err);
    assert_int_equal(l.ntargets, 4);
    assert_string_equal(l.targets[0].name, "101@stor01");
    assert_int_equal(l.targets[3].index, 202);
    assert_string_equal(l.detail, "raid0 chunk_size=524288 storage_targets=4");
    static const char *want[] = {"101@stor01", "201@stor02", "102@stor01", "202@stor02", "101@stor01"};
    for (int i = 0; i < 5; i++)
        assert_string_equal(name_at(&l, (uint64_t)i * 524288 + 1), want[i]);
    pfs_layout_free(&l);
    parse_ok(pfs_beegfs_parse_entryinfo(buddy, &l, err, sizeof(err)), err);
    assert_int_equal(l.ntargets, 2);
    assert_string_equal(l.targets[1].name, "buddygroup:2");
    assert_string_equal(name_at(&l, MIB), "buddygroup:2");
    assert_string_equal(l.detail, "buddy mirror chunk_size=1048576 buddy_groups=2");
    pfs_layout_free(&l);
    assert_int_equal(pfs_beegfs_parse_entryinfo("Entry type: file\n+ Chunksize: 512K\n", &l, err, sizeof(err)), -1);
    pfs_layout_free(&l);
    assert_int_equal(pfs_beegfs_parse_entryinfo("+ Chunksize: 512K\n+ Storage targets:\nChunk path: x\n", &l, err,
                                                sizeof(err)),
                     -1);
    pfs_layout_free(&l);
}

static void test_gpfs(void **state)
{
    (void)state;
    static const char out[] = "file name:            /gpfs/fs1/run/pfsbench.1.0\n"
                              "metadata replication: 2 max 2\ndata replication:     1 max 2\n"
                              "immutable:            no\nappendOnly:           no\nflags:\n"
                              "storage pool name:    data_ssd\nfileset name:         root\nsnapshot name:\n"
                              "creation time:        Tue Mar  4 10:00:00 2025\nEncrypted:            no\n";
    struct pfs_layout l;
    char err[256] = "";
    pfs_layout_init(&l, "gpfs");
    parse_ok(pfs_gpfs_parse_mmlsattr(out, &l, err, sizeof(err)), err);
    assert_int_equal(l.ntargets, 1);
    assert_string_equal(l.targets[0].name, "pool:data_ssd");
    assert_string_equal(l.detail, "storage pool data_ssd, data replication 1 max 2");
    assert_string_equal(name_at(&l, 123456789), "pool:data_ssd");
    pfs_layout_free(&l);
    assert_int_equal(pfs_gpfs_parse_mmlsattr("file name: x\nstorage pool name:   \n", &l, err, sizeof(err)), -1);
    pfs_layout_free(&l);
}

static void test_nfs_and_local(void **state)
{
    (void)state;
    struct pfs_layout l;
    char err[256] = "";
    pfs_layout_init(&l, "nfs");
    parse_ok(pfs_nfs_parse_source("filer1.example.org:/export/home", &l, err, sizeof(err)), err);
    assert_string_equal(l.targets[0].name, "filer1.example.org");
    pfs_layout_free(&l);
    parse_ok(pfs_nfs_parse_source("[fd00::5]:/x", &l, err, sizeof(err)), err);
    assert_string_equal(l.targets[0].name, "fd00::5");
    pfs_layout_free(&l);
    assert_int_equal(pfs_nfs_parse_source("nohost", &l, err, sizeof(err)), -1);
    pfs_layout_free(&l);
    assert_int_equal(pfs_nfs_parse_source(":/x", &l, err, sizeof(err)), -1);
    pfs_layout_free(&l);
    pfs_layout_init(&l, "local");
    parse_ok(pfs_local_parse_block("../../devices/pci0000:00/0000:00:05.0/virtio2/block/vda/vda1", "node3", &l,
                                   err, sizeof(err)),
             err);
    assert_string_equal(l.targets[0].name, "node3:vda1");
    assert_string_equal(l.detail, "block device vda1 (disk vda)");
    pfs_layout_free(&l);
    parse_ok(pfs_local_parse_block("../../devices/virtual/block/dm-0", "n", &l, err, sizeof(err)), err);
    assert_string_equal(l.targets[0].name, "n:dm-0");
    assert_string_equal(l.detail, "block device dm-0");
    pfs_layout_free(&l);
    assert_int_equal(pfs_local_parse_block("nothing", "n", &l, err, sizeof(err)), -1);
    pfs_layout_free(&l);
}

/* ---- the providers, by mount type, on real files ---- */

static void fsinfo_of(const char *dir, struct pfs_fsinfo *fs)
{
    assert_int_equal(pfs_fs_mountinfo("/proc/self/mountinfo", dir, fs), 0);
}

/* A file of its own in dir, made here (O_EXCL) and removed at the end. */
static int make_file(const char *dir, char *path, size_t len)
{
    snprintf(path, len, "%s/test_targets.%d", dir, (int)getpid());
    int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    assert_true(fd >= 0);
    return fd;
}

static void test_local_real(void **state)
{
    (void)state;
    struct pfs_fsinfo fs;
    struct pfs_targets t;
    struct pfs_layout l;
    char path[PATH_MAX], want[256], sys[64], link[PATH_MAX];
    /* the test's working directory's file system: a disk, whatever it is */
    char *cwd = getcwd(NULL, 0);
    fsinfo_of(cwd, &fs);
    pfs_targets_init(&t, &fs, "here");
    pfs_layout_init(&l, "x");
    int fd = make_file(cwd, path, sizeof(path));
    int rc = pfs_targets_layout(&t, fd, path, &l);
    struct stat st;
    assert_int_equal(fstat(fd, &st), 0);
    snprintf(sys, sizeof(sys), "/sys/dev/block/%u:%u", major(st.st_dev), minor(st.st_dev));
    ssize_t n = readlink(sys, link, sizeof(link) - 1);
    if (t.provider == &pfs_target_local && n > 0) {
        link[n] = '\0';
        snprintf(want, sizeof(want), "here:%s", strrchr(link, '/') + 1);
        assert_int_equal(rc, 1);
        assert_string_equal(l.provider, "local");
        assert_string_equal(l.targets[0].name, want);
        assert_null(pfs_targets_note(&t));
    } else { /* an overlay or a network file system: unknown, said */
        assert_int_equal(rc, 0);
        assert_string_equal(l.targets[0].name, "unknown");
        assert_non_null(pfs_targets_note(&t));
    }
    close(fd);
    unlink(path);
    free(cwd);
    pfs_layout_free(&l);
    /* memory: /dev/shm is tmpfs */
    fsinfo_of("/dev/shm", &fs);
    if (strcmp(fs.mount_type, "tmpfs") == 0) {
        pfs_targets_init(&t, &fs, "node7");
        fd = make_file("/dev/shm", path, sizeof(path));
        assert_int_equal(pfs_targets_layout(&t, fd, path, &l), 1);
        assert_string_equal(l.targets[0].name, "node7:memory");
        close(fd);
        unlink(path);
        pfs_layout_free(&l);
    }
}

static void test_unknown_said_once(void **state)
{
    (void)state;
    struct pfs_fsinfo fs;
    struct pfs_targets t;
    struct pfs_layout l;
    char path[PATH_MAX];
    fsinfo_of("/dev/shm", &fs);
    int fd = make_file("/dev/shm", path, sizeof(path));
    pfs_layout_init(&l, "x");
    /* a type no provider serves */
    snprintf(fs.mount_type, sizeof(fs.mount_type), "overlay");
    pfs_targets_init(&t, &fs, "h");
    assert_null(t.provider);
    assert_int_equal(pfs_targets_layout(&t, fd, path, &l), 0);
    assert_int_equal(l.known, 0);
    assert_string_equal(l.targets[0].name, "unknown");
    assert_string_equal(name_at(&l, 77), "unknown");
    const char *n1 = pfs_targets_note(&t);
    assert_non_null(n1);
    assert_non_null(strstr(n1, "no target provider for file-system type 'overlay'"));
    assert_int_equal(pfs_targets_layout(&t, fd, path, &l), 0);
    assert_null(pfs_targets_note(&t)); /* said once */
    /* a provider whose program is not installed: one line, and on */
    snprintf(fs.mount_type, sizeof(fs.mount_type), "beegfs");
    char *old = getenv("PATH") ? strdup(getenv("PATH")) : NULL;
    setenv("PATH", "/nonexistent", 1);
    pfs_targets_init(&t, &fs, "h");
    if (old)
        setenv("PATH", old, 1);
    free(old);
    assert_ptr_equal(t.provider, &pfs_target_beegfs);
    assert_int_equal(pfs_targets_layout(&t, fd, path, &l), 0);
    assert_string_equal(pfs_targets_note(&t), "storage targets unknown: beegfs needs 'beegfs-ctl', which is not on PATH");
    /* a provider whose attribute this file system does not have: the reason names the file */
    snprintf(fs.mount_type, sizeof(fs.mount_type), "lustre");
    pfs_targets_init(&t, &fs, "h");
    assert_ptr_equal(t.provider, &pfs_target_lustre);
    assert_int_equal(pfs_targets_layout(&t, fd, path, &l), 0);
    const char *n3 = pfs_targets_note(&t);
    assert_non_null(n3);
    assert_non_null(strstr(n3, "storage targets unknown on lustre: reading lustre.lov of "));
    assert_non_null(strstr(n3, path));
    assert_string_equal(l.provider, "lustre");
    close(fd);
    unlink(path);
    pfs_layout_free(&l);
}

/* A provider that runs a program: its output, when it does not parse, is
 * named after the command line that printed it. The programs are scripts
 * of this test's own, first on PATH. */
static void put_program(const char *dir, const char *name)
{
    char p[PATH_MAX];
    snprintf(p, sizeof(p), "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs("#!/bin/sh\necho 'not what it prints'\n", f);
    assert_int_equal(fclose(f), 0);
    assert_int_equal(chmod(p, 0755), 0);
}

static void test_program_output_refused(void **state)
{
    (void)state;
    static const struct {
        const char *type, *program, *command, *err;
    } cases[] = {
        {"gpfs", "mmlsattr", "mmlsattr -L", "no 'storage pool name:' in mmlsattr's output"},
        {"beegfs", "beegfs-ctl", "beegfs-ctl --getentryinfo",
         "no chunk size and storage target list in beegfs-ctl's output"},
    };
    char bin[] = "/tmp/test_targets_bin.XXXXXX", path[PATH_MAX], want[PATH_MAX + 256], env[PATH_MAX + 4096];
    assert_non_null(mkdtemp(bin));
    char *old = getenv("PATH") ? strdup(getenv("PATH")) : NULL;
    snprintf(env, sizeof(env), "%s:%s", bin, old ? old : "/usr/bin:/bin");
    setenv("PATH", env, 1);
    struct pfs_fsinfo fs;
    fsinfo_of("/dev/shm", &fs);
    int fd = make_file("/dev/shm", path, sizeof(path));
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        put_program(bin, cases[i].program);
        struct pfs_targets t;
        struct pfs_layout l;
        pfs_layout_init(&l, "x");
        snprintf(fs.mount_type, sizeof(fs.mount_type), "%s", cases[i].type);
        pfs_targets_init(&t, &fs, "h");
        assert_int_equal(pfs_targets_layout(&t, fd, path, &l), 0);
        assert_string_equal(l.targets[0].name, "unknown");
        const char *note = pfs_targets_note(&t);
        assert_non_null(note);
        snprintf(want, sizeof(want), "%s %s: %s", cases[i].command, path, cases[i].err);
        if (!strstr(note, want))
            fail_msg("note '%s' lacks '%s'", note, want);
        pfs_layout_free(&l);
    }
    if (old)
        setenv("PATH", old, 1);
    free(old);
    close(fd);
    unlink(path);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char p[PATH_MAX];
        snprintf(p, sizeof(p), "%s/%s", bin, cases[i].program);
        unlink(p);
    }
    rmdir(bin);
}

static void test_provider_table(void **state)
{
    (void)state;
    static const struct {
        const char *type;
        const struct pfs_target_provider *p;
    } cases[] = {
        {"lustre", &pfs_target_lustre}, {"ceph", &pfs_target_ceph},       {"fuse.ceph-fuse", &pfs_target_ceph},
        {"fuse.glusterfs", &pfs_target_gluster}, {"beegfs", &pfs_target_beegfs}, {"gpfs", &pfs_target_gpfs},
        {"nfs", &pfs_target_nfs},       {"nfs4", &pfs_target_nfs},        {"ext4", &pfs_target_local},
        {"tmpfs", &pfs_target_local},   {"xfs", &pfs_target_local},       {"fuse", NULL},
        {"", NULL},                     {"nfs4x", NULL},
    };
    struct pfs_fsinfo fs;
    struct pfs_targets t;
    memset(&fs, 0, sizeof(fs));
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        snprintf(fs.mount_type, sizeof(fs.mount_type), "%s", cases[i].type);
        pfs_targets_init(&t, &fs, "h");
        if (t.provider != cases[i].p)
            fail_msg("mount type '%s': provider %s", cases[i].type, t.provider ? t.provider->name : "none");
    }
}

static void test_layout_building(void **state)
{
    (void)state;
    struct pfs_layout l;
    pfs_layout_init(&l, "x");
    assert_int_equal(pfs_layout_target(&l, "a", 3), 0);
    assert_int_equal(pfs_layout_target(&l, "b", 4), 1);
    assert_int_equal(pfs_layout_target(&l, "a", 9), 0); /* known: its first index stays */
    assert_int_equal(l.targets[0].index, 3);
    for (int i = 0; i < 100; i++) { /* growth */
        char n[16];
        snprintf(n, sizeof(n), "t%d", i);
        assert_int_equal(pfs_layout_target(&l, n, i), i + 2);
    }
    pfs_layout_unknown(&l, "because");
    assert_int_equal(l.ntargets, 1);
    assert_string_equal(l.detail, "because");
    assert_string_equal(l.provider, "x");
    struct pfs_layout_piece pc[2];
    /* a range that would pass the end of the offsets stops there */
    assert_int_equal(pfs_layout_split(&l, UINT64_MAX - 10, 100, pc, 2), 1);
    assert_int_equal(pc[0].len, 10);
    pfs_layout_free(&l);
    assert_int_equal(pfs_layout_target_at(&l, 0), -1); /* empty: nothing holds anything */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gluster),
        cmocka_unit_test(test_beegfs),
        cmocka_unit_test(test_gpfs),
        cmocka_unit_test(test_nfs_and_local),
        cmocka_unit_test(test_local_real),
        cmocka_unit_test(test_unknown_said_once),
        cmocka_unit_test(test_program_output_refused),
        cmocka_unit_test(test_provider_table),
        cmocka_unit_test(test_layout_building),
    };
    return cmocka_run_group_tests_name("target_providers", tests, NULL, NULL);
}
