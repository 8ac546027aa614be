/* --api s3's --clean: see s3_clean.h. The listing first (every page of
 * it), then each object alone. */
#include "s3_clean.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "pfs/names.h"

struct listing {
    char **keys;
    size_t n, cap;
    int truncated, nomem;
    char marker[1024];
    S3Status st;
    char msg[200];
};

static S3Status on_props(const S3ResponseProperties *p, void *data)
{
    (void)p, (void)data;
    return S3StatusOK;
}

static void on_list_done(S3Status st, const S3ErrorDetails *e, void *data)
{
    struct listing *l = data;
    l->st = st;
    if (e && e->message)
        snprintf(l->msg, sizeof(l->msg), "%s", e->message);
}

static S3Status on_list(int truncated, const char *next, int n, const S3ListBucketContent *o, int ncp,
                        const char **cp, void *data)
{
    (void)ncp, (void)cp;
    struct listing *l = data;
    l->truncated = truncated;
    for (int i = 0; i < n; i++) {
        if (l->n == l->cap) {
            char **more = realloc(l->keys, (l->cap = l->cap ? 2 * l->cap : 16) * sizeof(*l->keys));
            if (!more) {
                l->nomem = 1;
                return S3StatusAbortedByCallback;
            }
            l->keys = more;
        }
        const size_t len = strlen(o[i].key) + 1;
        if (!(l->keys[l->n] = malloc(len))) {
            l->nomem = 1;
            return S3StatusAbortedByCallback;
        }
        memcpy(l->keys[l->n++], o[i].key, len);
    }
    /* The next page starts after the last key (nextMarker is only sent with a delimiter). */
    snprintf(l->marker, sizeof(l->marker), "%s", next ? next : n ? o[n - 1].key : "");
    return S3StatusOK;
}

/* One HEAD or DELETE's outcome, and the object's mark. */
struct req {
    S3Status st;
    char mark[17];
    uint64_t size;
};

static S3Status on_head(const S3ResponseProperties *p, void *data)
{
    struct req *r = data;
    r->size = p->contentLength;
    for (int k = 0; k < p->metaDataCount; k++)
        if (strcmp(p->metaData[k].name, RUN_META) == 0)
            snprintf(r->mark, sizeof(r->mark), "%s", p->metaData[k].value);
    return S3StatusOK;
}

static void on_done(S3Status st, const S3ErrorDetails *e, void *data)
{
    (void)e;
    ((struct req *)data)->st = st;
}

static const S3ResponseHandler head_handler = {on_head, on_done};

/* One object named as the dead run's data: 1 when it carries token and was
 * listed or removed, 0 when it does not (named, left alone) or is gone. */
static int clean_one(const S3BucketContext *b, const char *key, const char *want, int remove, FILE *out, int *nfailed)
{
    struct req r = {0};
    S3_head_object(b, key, NULL, &head_handler, &r);
    if (r.st == S3StatusHttpErrorNotFound || r.st == S3StatusErrorNoSuchKey)
        return 0;
    const char *why = r.st != S3StatusOK    ? S3_get_status_name(r.st)
                      : !r.mark[0]          ? "it has no x-amz-meta-" RUN_META ": not made by a pfsbench run"
                      : strcmp(r.mark, want) ? "its x-amz-meta-" RUN_META " is another run's than the lock file names"
                                             : NULL;
    if (why) {
        fprintf(out, "skipped  object %s in bucket %s: %s; left alone\n", key, b->bucketName, why);
        return 0;
    }
    if (!remove) {
        fprintf(out, "leftover object %s in bucket %s (%" PRIu64 " bytes)\n", key, b->bucketName, r.size);
        return 1;
    }
    struct req d = {0};
    S3_delete_object(b, key, NULL, &head_handler, &d);
    if (d.st == S3StatusOK) {
        fprintf(out, "removed  object %s in bucket %s (%" PRIu64 " bytes)\n", key, b->bucketName, r.size);
        return 1;
    }
    fprintf(out, "FAILED   object %s in bucket %s: DELETE: %s\n", key, b->bucketName, S3_get_status_name(d.st));
    (*nfailed)++;
    return 0;
}

int pfs_s3_clean(const S3BucketContext *b, const char *run_id, uint64_t token, int remove, FILE *out, int *nfailed,
                 char *err, size_t len)
{
    char prefix[128], want[17];
    snprintf(prefix, sizeof(prefix), "pfsbench.%s.", run_id);
    snprintf(want, sizeof(want), "%016" PRIx64, token);
    struct listing l = {0};
    const S3ListBucketHandler lh = {{on_props, on_list_done}, on_list};
    do {
        char marker[sizeof(l.marker)];
        snprintf(marker, sizeof(marker), "%s", l.marker);
        l.truncated = 0;
        S3_list_bucket(b, prefix, marker[0] ? marker : NULL, NULL, 1000, NULL, &lh, &l);
    } while (l.st == S3StatusOK && !l.nomem && l.truncated && l.marker[0]);
    int found = 0;
    if (l.st != S3StatusOK || l.nomem) {
        snprintf(err, len, "bucket %s: listing its objects: %s%s%s%s", b->bucketName,
                 l.nomem ? "out of memory" : S3_get_status_name(l.st), l.msg[0] ? " (" : "", l.msg,
                 l.msg[0] ? ")" : "");
        found = -1;
    }
    for (size_t i = 0; i < l.n; i++) {
        struct pfs_name nm;
        const enum pfs_name_kind k = pfs_name_parse(l.keys[i], &nm);
        if (found >= 0 && (k == PFS_NAME_DATA || k == PFS_NAME_SHARED) && strcmp(nm.run_id, run_id) == 0)
            found += clean_one(b, l.keys[i], want, remove, out, nfailed);
        free(l.keys[i]);
    }
    free(l.keys);
    return found;
}
