/* IOR's -a and its backends' own options (--rados.pool, --cephfs.user,
 * --S3-libs3.host, --aio.max-pending ...) as pfsbench's --api and its
 * backends' options, as IOR means them: IOR's AIO keeps up to its
 * max-pending transfers in flight (128 by default), its S3-libs3 writes
 * into the bucket its prefix names, its CEPHFS maps paths under its mount
 * prefix into the file system. docs/usage.md's IOR table (in "IOR, mdtest
 * and IOzone command lines") is this file as prose. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "frontend_int.h"
#include "pfs/backend.h"

/* Each backend option pfsbench takes (FE_IOR_BE_OPTS, fe_ior_tab's IOR_BE
 * rows): the IOR API it belongs to, and the native option it becomes. */
static const struct {
    const char *name, *api, *mine;
    int flag; /* IOR's flag: the native option takes no value */
} be_map[] = {
#define MAP_ROW(name, arity, api, mine) {name, api, mine, (arity) == FE_FLAG},
    FE_IOR_BE_OPTS(MAP_ROW)
#undef MAP_ROW
};
#define NMAP ((int)(sizeof(be_map) / sizeof(be_map[0])))
_Static_assert(NMAP <= FE_IOR_BE_MAX, "struct fe_ior_api holds every backend option");

static int row_of(const char *name)
{
    for (int i = 0; i < NMAP; i++)
        if (strcmp(be_map[i].name, name) == 0)
            return i;
    return -1;
}

static const char *given(const struct fe_ior_api *a, const char *name)
{
    const int i = row_of(name);
    return i >= 0 ? a->val[i] : NULL;
}

void fe_ior_api_select(struct fe *f, struct fe_ior_api *a, const char *val)
{
    static const char *const ior_apis[] = {"POSIX", "MPIIO", "HDF5", "MMAP", "DUMMY", "NCMPI", "HDFS", "S3", "S3-libs3",
                                           "S3-4c", "S3_plus", "S3_EMC", "RADOS", "DAOS", "DFS", "AIO", "PMDK", "CEPHFS",
                                           "GFARM", "CHFS", "FINCHFS", "IME", "LIBNFS", NULL};
    const char *ior = NULL;
    for (int i = 0; ior_apis[i] && !ior; i++)
        ior = strcasecmp(val, ior_apis[i]) == 0 ? ior_apis[i] : NULL;
    if (!ior) {
        fe_refuse(f, "-a", "'%s' is not an IOR API", val);
        return;
    }
    char lower[16];
    size_t i = 0;
    for (; ior[i] && i + 1 < sizeof(lower); i++)
        lower[i] = (char)(ior[i] >= 'A' && ior[i] <= 'Z' ? ior[i] - 'A' + 'a' : ior[i]);
    lower[i] = '\0';
    const char *mine = strcmp(lower, "dummy") == 0 ? "null" : strcmp(lower, "s3-libs3") == 0 ? "s3" : lower;
    if (strncmp(lower, "s3", 2) == 0 && strcmp(mine, "s3") != 0) {
        fe_refuse(f, "-a", "%s: pfsbench's -a s3 is IOR's S3-libs3 (libs3); give -a S3-libs3", ior);
        return;
    }
    if (pfs_backend_index(mine) < 0) {
        char have[256] = "";
        for (int k = 0, n = 0; k < pfs_backend_count() && n < (int)sizeof(have); k++)
            n += snprintf(have + n, sizeof(have) - (size_t)n, "%s%s", k ? ", " : "", pfs_backend_name(k));
        fe_refuse(f, "-a", "%s: pfsbench has no such backend (its --api: %s)", ior, have);
        return;
    }
    snprintf(a->api, sizeof(a->api), "%s", mine);
    snprintf(a->ior, sizeof(a->ior), "%s", strcmp(ior, "S3") == 0 ? "S3-libs3" : ior);
}

void fe_ior_api_opt(struct fe *f, struct fe_ior_api *a, const char *name, const char *val)
{
    const int i = row_of(name);
    if (i < 0) /* a row of fe_ior_tab without one here: a bug, said as a refusal */
        fe_refuse(f, name, "not translated");
    else
        a->val[i] = val ? val : "1";
}

/* -a S3-libs3: IOR's bucket is its prefix ("ior" by default) plus, unless
 * --S3-libs3.dont-suffix-bucket, a number from the access key; IOR
 * creates it, pfsbench writes into an existing one of that exact name. */
static void s3_bucket(struct fe *f, const struct fe_ior_api *a)
{
    const char *prefix = given(a, "--S3-libs3.bucket-name-prefix"), *host = given(a, "--S3-libs3.host");
    if (!given(a, "--S3-libs3.dont-suffix-bucket"))
        fe_refuse(f, "-a", "S3-libs3: IOR names its bucket %s plus a number from the access key and creates it; "
                  "pfsbench writes into an existing bucket of the exact name: give --S3-libs3.dont-suffix-bucket (the "
                  "bucket %s, made beforehand)", prefix ? prefix : "ior", prefix ? prefix : "ior");
    else
        fe_add(f, "--s3-bucket"), fe_add(f, prefix ? prefix : "ior");
    if (host && strpbrk(host, " ,;"))
        fe_refuse(f, "--S3-libs3.host", "%s: a list of hosts, one per rank in turn; pfsbench's ranks use one endpoint",
                  host);
    if (given(a, "--S3-libs3.s3-compatible"))
        fe_note(f, "--S3-libs3.s3-compatible", "IOR skips some requests' status checks with it; pfsbench checks every "
                "request (both address the bucket by path)");
}

/* -a CEPHFS: IOR maps a path under its --cephfs.prefix (the mount point)
 * into the file system; pfsbench finds the mount from -o's directory, so
 * -o must be under it. */
static void cephfs_prefix(struct fe *f, const struct fe_ior_api *a, const char *opath)
{
    const char *p = given(a, "--cephfs.prefix");
    if (!p)
        return;
    size_t n = strlen(p);
    while (n > 1 && p[n - 1] == '/')
        n--;
    const int under = opath && strncmp(opath, p, n) == 0 && (opath[n] == '/' || (n == 1 && p[0] == '/'));
    if (!under)
        fe_refuse(f, "--cephfs.prefix", "%s: -o %s is not under it; IOR would take -o as a path inside CephFS, "
                  "pfsbench works in directories of a CephFS mount of the cluster: give -o on the mount",
                  p, opath ? opath : "(not given: testFile here)");
}

/* -a AIO: IOR keeps up to --aio.max-pending (128; at least 8) transfers in
 * flight and submits them --aio.granularity (16) at a time; pfsbench's
 * --iodepth, each transfer submitted as it is given. */
static void aio_depth(struct fe *f, const struct fe_ior_api *a)
{
    long depth = 128, gran = 16;
    const char *d = given(a, "--aio.max-pending"), *g = given(a, "--aio.granularity");
    if (d && fe_int(f, "--aio.max-pending", d, 8, 65536, &depth) != 0)
        return;
    if (g && fe_int(f, "--aio.granularity", g, 1, 65536, &gran) != 0)
        return;
    if (gran > depth) {
        fe_refuse(f, "--aio.granularity", "%ld above --aio.max-pending %ld (IOR refuses it too)", gran, depth);
        return;
    }
    fe_add(f, "--iodepth"), fe_addf(f, "%ld", depth);
    if (gran != 1)
        fe_note(f, "--aio.granularity", "%ld: IOR submits its transfers %ld at a time; pfsbench submits each as it is "
                "given (IOR's --aio.granularity 1)", gran, gran);
}

void fe_ior_api_add(struct fe *f, const struct fe_ior_api *a, const char *opath)
{
    for (int i = 0; i < NMAP; i++)
        if (a->val[i] && strcasecmp(be_map[i].api, a->ior) != 0)
            fe_refuse(f, be_map[i].name, "is -a %s's option (here -a %s)", be_map[i].api, a->ior);
    if (strcmp(a->api, "posix") != 0)
        fe_add(f, "--api"), fe_add(f, a->api);
    if (strcasecmp(a->ior, "RADOS") == 0 && !given(a, "--rados.pool"))
        fe_refuse(f, "-a", "RADOS: give --rados.pool POOL (an existing pool)");
    for (int i = 0; i < NMAP; i++) {
        if (!a->val[i] || !be_map[i].mine || strcasecmp(be_map[i].api, a->ior) != 0)
            continue;
        fe_add(f, be_map[i].mine);
        if (!be_map[i].flag)
            fe_add(f, a->val[i]);
    }
    const int objects = strcasecmp(a->ior, "S3-libs3") == 0 || strcasecmp(a->ior, "RADOS") == 0;
    const char *slash = opath ? strrchr(opath, '/') : NULL;
    if (objects && slash && slash[1])
        fe_note(f, "-o", "%s: IOR names its objects after the whole path; pfsbench after its last component (%s, "
                "with -F %s.00000000 ...), and keeps the run's lock file in its directory, which must exist here",
                opath, slash + 1, slash + 1);
    if (strcasecmp(a->ior, "S3-libs3") == 0)
        s3_bucket(f, a);
    else if (strcasecmp(a->ior, "CEPHFS") == 0)
        cephfs_prefix(f, a, opath);
    else if (strcasecmp(a->ior, "AIO") == 0)
        aio_depth(f, a);
}
