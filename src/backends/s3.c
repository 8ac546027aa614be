/* The S3 backend (--api s3): each stream's data is one object in a bucket
 * (--s3-bucket) of an S3 server (--s3-endpoint), moved through libs3 (the
 * Debian 12 libs3 2.0: AWS signature version 2, no multipart upload). The
 * run's lock, results and kept-run status stay in -d; the objects are
 * named as the run's data files are (their last component: pfsbench.ID.N,
 * or --file-name's). --shared is refused: S3 has no writes at offsets, so
 * many ranks cannot fill one object.
 *
 * A write phase is one PUT per object of the stream's block, streamed: the
 * PUT runs in a thread of the handle (libs3's calls block), and each
 * transfer hands its bytes to the PUT's data callback and returns once the
 * request has taken them all (curl has sent them or holds the last ones);
 * the last transfer also waits for the server's answer, which is when the
 * object exists. So each transfer's latency is the time to send -t bytes
 * on the PUT's connection, the last one's also the server's commit. The
 * transfers must come in order, from 0 to the block's end (--random writes,
 * --runtime, --rmw and a stonewall on a write are refused); a write that
 * ends before the block's end aborts its PUT and fails. Reads are ranged
 * GETs of -t bytes at the phase's offsets (--random, the seeks phase).
 *
 * Safety: S3 (and libs3 2.0, which cannot send If-None-Match) has no
 * exclusive create. Creating an object is a HEAD, which must answer "not
 * found", then at once a PUT of an empty object carrying the metadata
 * x-amz-meta-pfsbench-id, a random 64-bit token: the object's identity
 * (struct pfs_fid's ino). Someone else's object made between that HEAD and
 * that PUT would be overwritten: that window, one round trip, is the limit.
 * Every later open (the write's PUT, a read, a rewrite) HEADs the object
 * and checks the token first, and the clean-up removes an object with a
 * HEAD that must show this run's token, then a DELETE (again one round
 * trip of window). */
#include "pfs/config.h"
#include "pfs/phase.h"

#include "s3.h"
#include "s3_clean.h"

#include <errno.h>
#include <inttypes.h>
#include <libs3.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>

#define ID_META "pfsbench-id" /* x-amz-meta-pfsbench-id */

struct s3_ctx {
    const struct pfs_config *cfg; /* the run's: its run_token, drawn after init, before any create */
    S3BucketContext b;
    char host[64], bucket[64];
    char ak[128], sk[128];
    uint64_t block; /* every object's size: the stream's block */
    uint64_t dev;   /* every object's pfs_fid dev */
    pthread_mutex_t lock;
    char last[512]; /* the last failure, for errstr */
};

/* One request's outcome, filled by libs3's callbacks. */
struct s3_req {
    S3Status st;
    char msg[200];  /* the server's error message, if any */
    char token[17]; /* HEAD: the object's pfsbench-id, "" if none */
    char *buf;      /* GET: where the range goes */
    size_t want, got;
};

/* One open object; for a write, its PUT's thread and hand-over. put is
 * first: the PUT's callbacks all get the handle, on_done as its s3_req. */
struct s3_fh {
    struct s3_req put;
    struct s3_ctx *c;
    char key[256];
    char token[17];
    int writing;
    uint64_t next; /* the next offset a write must give */
    pthread_t th;
    int running;              /* the PUT's thread was started and not joined */
    pthread_mutex_t m;        /* the hand-over: */
    pthread_cond_t cv;
    const char *piece;        /* the transfer's bytes not yet taken */
    size_t left;
    int abort, done;          /* close gives up; the PUT has ended */
};

/* Records a failure of call on key for errstr: "object K in bucket B at
 * HOST: CALL: S3 status NAME (the server's message)". rc. */
static int failed(struct s3_ctx *c, const char *key, const char *call, const struct s3_req *r, int rc,
                  const char *hint)
{
    pthread_mutex_lock(&c->lock);
    snprintf(c->last, sizeof(c->last), "object %s in bucket %s at %s: %s: %s%s%s%s%s%s", key, c->bucket, c->host,
             call, r ? "S3 status " : strerror(-rc), r ? S3_get_status_name(r->st) : "",
             r && r->msg[0] ? " (" : "", r && r->msg[0] ? r->msg : "", r && r->msg[0] ? ")" : "",
             hint ? hint : "");
    pthread_mutex_unlock(&c->lock);
    return rc;
}

static const char *s3_errstr(void *ctx)
{
    struct s3_ctx *c = ctx;
    return c && c->last[0] ? c->last : NULL;
}

/* An S3 status as an errno, for the core's messages and decisions. */
static int errno_of(S3Status st)
{
    switch (st) {
    case S3StatusOK: return 0;
    case S3StatusHttpErrorNotFound:
    case S3StatusErrorNoSuchKey:
    case S3StatusErrorNoSuchBucket: return -ENOENT;
    case S3StatusHttpErrorForbidden:
    case S3StatusErrorAccessDenied:
    case S3StatusErrorSignatureDoesNotMatch:
    case S3StatusErrorInvalidAccessKeyId: return -EACCES;
    case S3StatusOutOfMemory: return -ENOMEM;
    default: return -EIO;
    }
}

static S3Status on_props(const S3ResponseProperties *p, void *data)
{
    struct s3_req *r = data;
    for (int k = 0; k < p->metaDataCount; k++)
        if (strcmp(p->metaData[k].name, ID_META) == 0)
            snprintf(r->token, sizeof(r->token), "%s", p->metaData[k].value);
    return S3StatusOK;
}

static void on_done(S3Status st, const S3ErrorDetails *e, void *data)
{
    struct s3_req *r = data;
    r->st = st;
    if (e && e->message)
        snprintf(r->msg, sizeof(r->msg), "%s", e->message);
}

static const S3ResponseHandler plain = {on_props, on_done};

static S3Status on_get(int n, const char *buf, void *data)
{
    struct s3_req *r = data;
    if ((size_t)n > r->want - r->got)
        return S3StatusAbortedByCallback; /* more than the range asked */
    memcpy(r->buf + r->got, buf, (size_t)n);
    r->got += (size_t)n;
    return S3StatusOK;
}

/* Reads the keys: KEY=VALUE lines (an "export " before them is allowed)
 * of a file only its owner may read, or the environment. 0, or -1 with err. */
static int keys_of(struct s3_ctx *c, const struct pfs_s3_opts *o, char *err, size_t len)
{
    if (!o->keyfile[0]) {
        const char *ak = getenv("S3_ACCESS_KEY_ID"), *sk = getenv("S3_SECRET_ACCESS_KEY");
        if (!ak || !sk || !*ak || !*sk) {
            snprintf(err, len, "--api s3: no keys: set S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY in the environment, "
                     "or name a file of them (mode 0600) with --s3-key-file");
            return -1;
        }
        snprintf(c->ak, sizeof(c->ak), "%s", ak);
        snprintf(c->sk, sizeof(c->sk), "%s", sk);
        return 0;
    }
    FILE *f = fopen(o->keyfile, "re");
    struct stat st;
    if (!f || fstat(fileno(f), &st) != 0) {
        snprintf(err, len, "--s3-key-file %s: %s", o->keyfile, strerror(errno));
        if (f)
            fclose(f);
        return -1;
    }
    if (!S_ISREG(st.st_mode) || (st.st_mode & 077)) {
        snprintf(err, len, "--s3-key-file %s: mode %03o: a file of keys must be a regular file only its owner can "
                 "read (chmod 600)", o->keyfile, (unsigned)(st.st_mode & 0777));
        fclose(f);
        return -1;
    }
    char line[512];
    while (fgets(line, sizeof(line), f)) {
        char *s = line + (strncmp(line, "export ", 7) == 0 ? 7 : 0);
        s[strcspn(s, "\r\n")] = '\0';
        if (strncmp(s, "S3_ACCESS_KEY_ID=", 17) == 0)
            snprintf(c->ak, sizeof(c->ak), "%s", s + 17);
        else if (strncmp(s, "S3_SECRET_ACCESS_KEY=", 21) == 0)
            snprintf(c->sk, sizeof(c->sk), "%s", s + 21);
    }
    fclose(f);
    if (!c->ak[0] || !c->sk[0]) {
        snprintf(err, len, "--s3-key-file %s: no S3_ACCESS_KEY_ID= and S3_SECRET_ACCESS_KEY= lines", o->keyfile);
        return -1;
    }
    return 0;
}

/* What an object store can mean: the data phases on the streams' own
 * objects, each written whole and in order. */
static int s3_check(const struct pfs_config *cfg, char *err, size_t len)
{
    const struct pfs_s3_opts *o = pfs_config_backend_opts(cfg);
    const char *why = NULL;
    if (!o->bucket[0])
        why = "--api s3 needs --s3-bucket BUCKET: the bucket the run's objects go in (it must exist)";
    else if (!o->endpoint[0] && !getenv("S3_HOSTNAME"))
        why = "--api s3 needs --s3-endpoint HOST:PORT (or S3_HOSTNAME in the environment)";
    else if (!o->endpoint[0] && strlen(getenv("S3_HOSTNAME")) >= sizeof(o->endpoint))
        why = "--api s3: S3_HOSTNAME is longer than the 63 bytes --s3-endpoint takes";
    else if (cfg->shared)
        why = "--shared with --api s3: an S3 object cannot be written at offsets, so several streams cannot fill "
              "one; --api s3 makes one object per stream";
    if (why) {
        snprintf(err, len, "%s", why);
        return -1;
    }
    const int writes = pfs_phase_listed(cfg, PFS_PHASE_ANY, PFS_PHF_WRITES, 0);
    for (int i = 0; i < cfg->nphases; i++)
        if (pfs_phase_is_meta(cfg->phases[i]) || pfs_phase_has(cfg->phases[i], PFS_PHF_OWN_FILES)) {
            const char *name = pfs_phase_name(cfg->phases[i]);
            snprintf(err, len, "--phases %s with --api s3: %s works on %s, which a bucket of objects does not have; "
                     "--api s3 runs the data phases (write, rewrite, read, reread, seeks)", name, name,
                     pfs_phase_is_meta(cfg->phases[i]) ? "small files and directories" : "files of its own");
            return -1;
        }
    if (pfs_phase_listed(cfg, PFS_PHASE_ANY, PFS_PHF_MIXES, 0)) {
        snprintf(err, len, "--phases rwmix with --api s3: rwmix writes single transfers in place, and an S3 object "
                 "is written by one PUT, whole; --api s3 runs write, rewrite, read, reread and seeks");
        return -1;
    }
    const int sized_write = cfg->bssplit[0] && pfs_phase_listed(cfg, PFS_PHASE_ANY, PFS_PHF_WRITES | PFS_PHF_RMW, 0);
    if (writes && (cfg->random || cfg->runtime > 0 || cfg->rmw || cfg->deadline > 0 || sized_write)) {
        snprintf(err, len, "%s with a write phase and --api s3: an S3 object is written by one PUT, from its "
                 "start to its end in order, and whole; read phases may take it", cfg->random ? "--random"
                 : cfg->runtime > 0 ? "--runtime" : cfg->rmw ? "--rmw" : sized_write ? "--bssplit" : "-D (the stonewall)");
        return -1;
    }
    return 0;
}

static void s3_fini(void *ctx)
{
    struct s3_ctx *c = ctx;
    if (!c)
        return;
    S3_deinitialize();
    pthread_mutex_destroy(&c->lock);
    memset(c, 0, sizeof(*c)); /* the keys */
    free(c);
}

/* Local: the keys, libs3, and a request that proves the bucket is there
 * and the keys open it, before anything is made. */
static int s3_init(void **ctx, const struct pfs_config *cfg, const void *env, char *err, size_t len)
{
    (void)env;
    const struct pfs_s3_opts *o = pfs_config_backend_opts(cfg);
    struct s3_ctx *c = calloc(1, sizeof(*c));
    *ctx = NULL;
    if (!c) {
        snprintf(err, len, "--api s3: no memory for the backend's context");
        return -1;
    }
    pthread_mutex_init(&c->lock, NULL);
    /* s3_check refused an S3_HOSTNAME that does not fit */
    const char *host = o->endpoint[0] ? o->endpoint : getenv("S3_HOSTNAME");
    snprintf(c->host, sizeof(c->host), "%.*s", (int)sizeof(c->host) - 1, host ? host : "");
    snprintf(c->bucket, sizeof(c->bucket), "%s", o->bucket);
    c->block = cfg->block;
    c->cfg = cfg;
    c->dev = 0x5333ULL << 48 ^ (uint64_t)strlen(c->bucket);
    if (keys_of(c, o, err, len) != 0) {
        pthread_mutex_destroy(&c->lock);
        free(c);
        return -1;
    }
    S3Status st = S3_initialize("pfsbench", S3_INIT_ALL, c->host);
    if (st != S3StatusOK) {
        snprintf(err, len, "--api s3: S3_initialize: %s", S3_get_status_name(st));
        pthread_mutex_destroy(&c->lock);
        free(c);
        return -1;
    }
    c->b = (S3BucketContext){c->host, c->bucket, o->https ? S3ProtocolHTTPS : S3ProtocolHTTP, S3UriStylePath,
                             c->ak, c->sk};
    struct s3_req r = {0};
    char where[128];
    S3_test_bucket(c->b.protocol, c->b.uriStyle, c->ak, c->sk, c->host, c->bucket, sizeof(where), where, NULL, &plain,
                   &r);
    if (r.st == S3StatusOK) {
        *ctx = c;
        return 0;
    }
    snprintf(err, len, "--api s3: bucket %s at %s (%s): S3_test_bucket: S3 status %s%s%s%s", c->bucket, c->host,
             o->https ? "https" : "http", S3_get_status_name(r.st), r.msg[0] ? " (" : "", r.msg,
             r.msg[0] ? ")" : "");
    s3_fini(c);
    return -1;
}

/* The object's name: the data file's last component. */
static const char *key_of(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* HEADs key: 0 with token filled ("" when it has none), -ENOENT, or the failure. */
static int head(struct s3_ctx *c, const char *key, char token[17])
{
    struct s3_req r = {0};
    S3_head_object(&c->b, key, NULL, &plain, &r);
    snprintf(token, 17, "%s", r.token);
    if (r.st == S3StatusOK)
        return 0;
    if (errno_of(r.st) == -ENOENT)
        return -ENOENT;
    return failed(c, key, "HEAD", &r, errno_of(r.st), NULL);
}

/* An empty PUT (no data callback needed) carrying token. */
/* The marks of every PUT: its token and, in a run (not --clean), the
 * run's, by which --clean proves the object once the run is gone. */
static int metas(const struct s3_ctx *c, const char *token, char run[17], S3NameValue meta[2])
{
    snprintf(run, 17, "%016" PRIx64, c->cfg ? c->cfg->run_token : 0);
    meta[0] = (S3NameValue){ID_META, token};
    meta[1] = (S3NameValue){RUN_META, run};
    return c->cfg && c->cfg->run_token ? 2 : 1;
}

static int put_empty(struct s3_ctx *c, const char *key, const char *token)
{
    S3NameValue meta[2];
    char run[17];
    S3PutProperties pp = {.expires = -1, .metaDataCount = metas(c, token, run, meta), .metaData = meta};
    S3PutObjectHandler ph = {plain, NULL};
    struct s3_req r = {0};
    S3_put_object(&c->b, key, 0, &pp, NULL, &ph, &r);
    return r.st == S3StatusOK ? 0 : failed(c, key, "PUT", &r, errno_of(r.st), NULL);
}

/* Makes key, unless the bucket has it: a HEAD, then an empty PUT with a
 * new token (S3 has no exclusive create: the window is between the two). */
static int create_object(struct s3_ctx *c, const char *key, char token[17])
{
    char had[17];
    int rc = head(c, key, had);
    if (rc == 0)
        return failed(c, key, "HEAD before the PUT", NULL, -EEXIST,
                      "; an object of that name is already in the bucket; pfsbench never writes to an object it "
                      "did not create");
    if (rc != -ENOENT)
        return rc;
    uint64_t t;
    if (getrandom(&t, sizeof(t), 0) != (ssize_t)sizeof(t))
        return failed(c, key, "getrandom", NULL, -errno, NULL);
    snprintf(token, 17, "%016" PRIx64, t | 1);
    return put_empty(c, key, token);
}

/* Checks that key is an object this run made: its token, or the one
 * expect names. */
static int own(struct s3_ctx *c, const char *key, const struct pfs_fid *expect, char token[17])
{
    int rc = head(c, key, token);
    if (rc == -ENOENT)
        return failed(c, key, "HEAD", NULL, rc, "; the object is not in the bucket");
    if (rc < 0)
        return rc;
    if (strlen(token) != 16) {
        failed(c, key, "open", NULL, -ENODATA, "; it has no x-amz-meta-" ID_META ": not an object pfsbench made, "
               "left alone");
        return PFS_ERR_REPLACED;
    }
    if (pfs_fid_known(expect) && strtoull(token, NULL, 16) != expect->ino)
        return PFS_ERR_REPLACED; /* removed and made again by someone else */
    return 0;
}

/* The PUT's data: blocks until a transfer hands bytes over, or close
 * gives up (-1: libs3 aborts the request). */
static int put_data(int size, char *buf, void *data)
{
    struct s3_fh *h = data;
    pthread_mutex_lock(&h->m);
    while (!h->left && !h->abort)
        pthread_cond_wait(&h->cv, &h->m);
    int n = -1;
    if (!h->abort) {
        n = (size_t)size < h->left ? size : (int)h->left;
        memcpy(buf, h->piece, (size_t)n);
        h->piece += n;
        h->left -= (size_t)n;
        if (!h->left)
            pthread_cond_broadcast(&h->cv);
    }
    pthread_mutex_unlock(&h->m);
    return n;
}

static void *put_thread(void *arg)
{
    struct s3_fh *h = arg;
    S3NameValue meta[2];
    char run[17];
    S3PutProperties pp = {.expires = -1, .metaDataCount = metas(h->c, h->token, run, meta), .metaData = meta};
    S3PutObjectHandler ph = {plain, put_data};
    S3_put_object(&h->c->b, h->key, h->c->block, &pp, NULL, &ph, h);
    pthread_mutex_lock(&h->m);
    h->done = 1;
    pthread_cond_broadcast(&h->cv);
    pthread_mutex_unlock(&h->m);
    return NULL;
}

static void fh_free(struct s3_fh *h)
{
    pthread_mutex_destroy(&h->m);
    pthread_cond_destroy(&h->cv);
    free(h);
}

static int s3_open(void *ctx, int dirfd, const char *path, unsigned flags, const struct pfs_fid *expect,
                   struct pfs_fid *got, void **fh)
{
    (void)dirfd;
    struct s3_ctx *c = ctx;
    const char *key = key_of(path);
    if (strlen(key) >= sizeof(((struct s3_fh *)0)->key))
        return -ENAMETOOLONG;
    struct s3_fh *h = calloc(1, sizeof(*h));
    if (!h)
        return -ENOMEM;
    h->c = c;
    snprintf(h->key, sizeof(h->key), "%s", key);
    pthread_mutex_init(&h->m, NULL);
    pthread_cond_init(&h->cv, NULL);
    int rc = (flags & PFS_OPEN_CREATE) ? create_object(c, key, h->token) : own(c, key, expect, h->token);
    h->writing = (flags & PFS_OPEN_WRITE) != 0;
    if (rc == 0 && h->writing) {
        rc = -pthread_create(&h->th, NULL, put_thread, h);
        h->running = rc == 0;
        if (rc < 0)
            failed(c, key, "pthread_create", NULL, rc, NULL);
    }
    if (rc < 0) {
        fh_free(h);
        return rc;
    }
    if (got)
        *got = (struct pfs_fid){c->dev, strtoull(h->token, NULL, 16)};
    *fh = h;
    return 0;
}

/* Hands the transfer to the PUT and waits until it has taken every byte
 * (the last transfer: until the server answered). */
static int64_t s3_pwrite(void *fh, const void *buf, size_t len, uint64_t off)
{
    struct s3_fh *h = fh;
    if (!h->running)
        return failed(h->c, h->key, "PUT", NULL, -EBADF, "; the object was not opened for writing");
    if (off != h->next || off + len > h->c->block)
        return failed(h->c, h->key, "PUT", NULL, -EINVAL,
                      "; an object is one PUT, written from its start to its end in order");
    pthread_mutex_lock(&h->m);
    h->piece = buf;
    h->left = len;
    pthread_cond_broadcast(&h->cv);
    while (h->left && !h->done)
        pthread_cond_wait(&h->cv, &h->m);
    const int last = off + len == h->c->block;
    while (last && !h->done)
        pthread_cond_wait(&h->cv, &h->m);
    const size_t left = h->left;
    h->left = 0;
    const int ended = h->done;
    pthread_mutex_unlock(&h->m);
    h->next = off + len;
    if (left || (ended && h->put.st != S3StatusOK))
        return failed(h->c, h->key, "PUT", &h->put, errno_of(h->put.st) ? errno_of(h->put.st) : -EIO, NULL);
    return (int64_t)len;
}

/* A ranged GET of len bytes at off: the bytes it brought (fewer past the
 * object's end, which the loop names). */
static int64_t s3_pread(void *fh, void *buf, size_t len, uint64_t off)
{
    struct s3_fh *h = fh;
    struct s3_req r = {.buf = buf, .want = len};
    S3GetObjectHandler gh = {plain, on_get};
    S3_get_object(&h->c->b, h->key, NULL, off, len, NULL, &gh, &r);
    if (r.st == S3StatusOK)
        return (int64_t)r.got;
    if (r.st == S3StatusErrorInvalidRange)
        return 0; /* wholly past the end */
    return failed(h->c, h->key, "ranged GET", &r, errno_of(r.st), NULL);
}

/* The PUT's answer (the last transfer waits for it) is when S3 has the
 * object: nothing to flush. */
static int s3_fsync(void *fh)
{
    (void)fh;
    return 0;
}

/* Ends the PUT: a write that did not reach the block's end aborts it
 * (the object stays the empty one this run made, and the close fails). */
static int s3_close(void *fh)
{
    struct s3_fh *h = fh;
    int rc = 0;
    if (h->running) {
        pthread_mutex_lock(&h->m);
        const int short_put = !h->done;
        h->abort = 1;
        pthread_cond_broadcast(&h->cv);
        pthread_mutex_unlock(&h->m);
        pthread_join(h->th, NULL);
        if (short_put && h->next < h->c->block)
            rc = failed(h->c, h->key, "PUT", NULL, -EIO, "; the write ended before the object's end: PUT aborted");
    }
    fh_free(h);
    return rc;
}

/* The clean-up: key goes only while it carries this run's token (a HEAD,
 * then a DELETE). */
static int s3_remove(void *ctx, int dirfd, const char *path, const struct pfs_fid *fid)
{
    (void)dirfd;
    struct s3_ctx *c = ctx;
    const char *key = key_of(path);
    char token[17];
    int rc = head(c, key, token);
    if (rc == -ENOENT)
        return 1;
    if (rc < 0)
        return rc;
    if (strlen(token) != 16 || strtoull(token, NULL, 16) != fid->ino)
        return PFS_ERR_REPLACED;
    struct s3_req r = {0};
    S3_delete_object(&c->b, key, NULL, &plain, &r);
    return r.st == S3StatusOK ? 0 : failed(c, key, "DELETE", &r, errno_of(r.st), NULL);
}

/* The watchdog's name of the object a blocked call was on (the path it
 * would otherwise name is in -d, where nothing is): its key, bucket and
 * endpoint, as the backend's errors name it. */
static void s3_where(void *ctx, const char *path, char *buf, size_t len)
{
    const struct s3_ctx *c = ctx;
    snprintf(buf, len, "object %s in bucket %s at %s", key_of(path), c->bucket, c->host);
}

/* --clean (pfs/clean.h): s3_clean.c. */
static int s3_clean(void *ctx, const char *run_id, uint64_t token, int remove, FILE *out, int *nfailed, char *err,
                    size_t len)
{
    const struct s3_ctx *c = ctx;
    return pfs_s3_clean(&c->b, run_id, token, remove, out, nfailed, err, len);
}

const struct pfs_backend pfs_backend_s3 = {
    .name = "s3",
    .help = PFS_S3_HELP,
    .caps = PFS_CAP_THREADS | PFS_CAP_NOFILES,
    .options = &pfs_s3_options,
    .check = s3_check,
    .init = s3_init,
    .fini = s3_fini,
    .open = s3_open,
    .pwrite = s3_pwrite,
    .pread = s3_pread,
    .fsync = s3_fsync,
    .close = s3_close,
    .errstr = s3_errstr,
    .remove = s3_remove,
    .where = s3_where,
    .clean = s3_clean,
};
