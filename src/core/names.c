/* The names of pfsbench's files: one formatter per kind and one parser that
 * accepts exactly what the formatters write (see include/pfs/names.h). */
#include "pfs/config.h"
#include "pfs/names.h"

#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define PREFIX "pfsbench."
#define PREFIX_LEN (sizeof(PREFIX) - 1)

int pfs_run_id_char(int c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
}

/* Length of the run id at s (up to the first character a run id cannot
 * hold), or 0 when it is empty or too long. */
static size_t run_id_len(const char *s)
{
    size_t n = 0;
    while (pfs_run_id_char((unsigned char)s[n]))
        n++;
    return n < PFS_RUN_ID_MAX ? n : 0;
}

int pfs_run_id_valid(const char *id)
{
    size_t n = id ? run_id_len(id) : 0;
    return n > 0 && id[n] == '\0';
}

static int put(char *out, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(out, len, fmt, ap);
    va_end(ap);
    return n < 0 || (size_t)n >= len ? -1 : 0;
}

/* "DIR/" or "" for a bare name. */
#define DIR_PART(d) (d) ? (d) : "", (d) ? "/" : ""

static int bad_args(char *out, size_t len)
{
    if (len)
        out[0] = '\0';
    return -1;
}

int pfs_name_data(char *out, size_t len, const char *dir, const char *run_id, int shared, int stream)
{
    if (!pfs_run_id_valid(run_id) || (!shared && stream < 0))
        return bad_args(out, len);
    if (shared)
        return put(out, len, "%s%s" PREFIX "%s.shared", DIR_PART(dir), run_id);
    return put(out, len, "%s%s" PREFIX "%s.%d", DIR_PART(dir), run_id, stream);
}

int pfs_name_lock(char *out, size_t len, const char *dir, const char *run_id)
{
    if (!pfs_run_id_valid(run_id))
        return bad_args(out, len);
    return put(out, len, "%s%s" PREFIX "%s.lock", DIR_PART(dir), run_id);
}

int pfs_name_kept(char *out, size_t len, const char *dir, const char *run_id)
{
    if (!pfs_run_id_valid(run_id))
        return bad_args(out, len);
    return put(out, len, "%s%s" PREFIX "%s.kept", DIR_PART(dir), run_id);
}

int pfs_name_ckpt(char *out, size_t len, const char *dir, const char *run_id, uint64_t file)
{
    if (!pfs_run_id_valid(run_id))
        return bad_args(out, len);
    return put(out, len, "%s%s" PREFIX "%s.ckpt.%llu", DIR_PART(dir), run_id, (unsigned long long)file);
}

int pfs_name_train(char *out, size_t len, const char *dir, const char *run_id, uint64_t file)
{
    if (!pfs_run_id_valid(run_id))
        return bad_args(out, len);
    return put(out, len, "%s%s" PREFIX "%s.train.%llu", DIR_PART(dir), run_id, (unsigned long long)file);
}

int pfs_name_md_top(char *out, size_t len, const char *dir, const char *run_id)
{
    if (!pfs_run_id_valid(run_id))
        return bad_args(out, len);
    return put(out, len, "%s%s" PREFIX "%s.md", DIR_PART(dir), run_id);
}

int pfs_name_md_subdir(char *out, size_t len, const char *md_top, int stream)
{
    if (stream < 0)
        return bad_args(out, len);
    return put(out, len, "%s%ss%d", DIR_PART(md_top), stream);
}

int pfs_name_md_file(char *out, size_t len, const char *dir, int stream, uint64_t index)
{
    if (stream < 0)
        return bad_args(out, len);
    return put(out, len, "%s%sf.%d.%" PRIu64, DIR_PART(dir), stream, index);
}

int pfs_name_user(char *out, size_t len, const char *dir, const char *base, int shared, int stream, int rep)
{
    if (!base || !*base || strchr(base, '/') || (!shared && stream < 0) || rep < -1)
        return bad_args(out, len);
    char tail[32] = "";
    if (rep >= 0) /* IOR's -m: the repetition last, after the stream's number */
        snprintf(tail, sizeof(tail), ".%d", rep);
    if (shared)
        return put(out, len, "%s%s%s%s", DIR_PART(dir), base, tail);
    return put(out, len, "%s%s%s.%08d%s", DIR_PART(dir), base, stream, tail);
}

int pfs_name_split(const char *path, char *dir, size_t dlen, char *base, size_t blen)
{
    const size_t n = path ? strlen(path) : 0;
    const char *slash = n ? strrchr(path, '/') : NULL;
    const char *b = slash ? slash + 1 : path;
    if (n == 0 || !*b || strcmp(b, ".") == 0 || strcmp(b, "..") == 0) {
        (void)bad_args(base, blen);
        return bad_args(dir, dlen);
    }
    size_t dl = slash ? (size_t)(slash - path) : 0;
    while (dl > 1 && path[dl - 1] == '/') /* "a//f": the directory is "a" */
        dl--;
    int rc = !slash ? put(dir, dlen, ".") : dl == 0 ? put(dir, dlen, "/") : put(dir, dlen, "%.*s", (int)dl, path);
    return rc | put(base, blen, "%s", b);
}

/* A decimal as the formatters write it: digits, no leading zero unless the
 * number is 0, at most max. Returns the characters read, 0 when none fit. */
static size_t parse_dec(const char *s, uint64_t max, uint64_t *out)
{
    size_t n = 0;
    uint64_t v = 0;
    while (s[n] >= '0' && s[n] <= '9') {
        uint64_t d = (uint64_t)(s[n] - '0');
        if (v > (max - d) / 10)
            return 0;
        v = v * 10 + d;
        n++;
    }
    if (n == 0 || (n > 1 && s[0] == '0'))
        return 0;
    *out = v;
    return n;
}

/* The names inside a metadata directory: s<stream>, f.<stream>.<index> and
 * the tree's d.<stream>.<node> (--depth). */
static enum pfs_name_kind parse_md_entry(const char *name, struct pfs_name *p)
{
    uint64_t v, i;
    size_t n;
    if (name[0] == 's') {
        n = parse_dec(name + 1, INT_MAX, &v);
        if (!n || name[1 + n] != '\0')
            return PFS_NAME_NONE;
        p->stream = (int)v;
        return PFS_NAME_MD_SUBDIR;
    }
    if ((name[0] != 'f' && name[0] != 'd') || name[1] != '.')
        return PFS_NAME_NONE;
    n = parse_dec(name + 2, INT_MAX, &v);
    if (!n || name[2 + n] != '.')
        return PFS_NAME_NONE;
    size_t m = parse_dec(name + 3 + n, UINT64_MAX, &i);
    if (!m || name[3 + n + m] != '\0')
        return PFS_NAME_NONE;
    p->stream = (int)v;
    p->index = i;
    /* d.<stream>.<node>: a directory of a stream's --depth tree, a subdirectory like s<stream>. */
    return name[0] == 'd' ? PFS_NAME_MD_SUBDIR : PFS_NAME_MD_FILE;
}

/* pfsbench.ID.<tail>, tail one of shared, lock, md, kept, ckpt.<file>, train.<file> or a stream number. */
static enum pfs_name_kind parse_top(const char *name, struct pfs_name *p)
{
    const char *id = name + PREFIX_LEN;
    size_t n = run_id_len(id);
    if (!n || id[n] != '.')
        return PFS_NAME_NONE;
    const char *tail = id + n + 1;
    enum pfs_name_kind k = PFS_NAME_NONE;
    uint64_t v;
    if (strcmp(tail, "shared") == 0)
        k = PFS_NAME_SHARED;
    else if (strcmp(tail, "lock") == 0)
        k = PFS_NAME_LOCK;
    else if (strcmp(tail, "md") == 0)
        k = PFS_NAME_MD_TOP;
    else if (strcmp(tail, "kept") == 0)
        k = PFS_NAME_KEPT;
    else if (strncmp(tail, "ckpt.", 5) == 0) {
        size_t m = parse_dec(tail + 5, UINT64_MAX, &v);
        if (!m || tail[5 + m] != '\0')
            return PFS_NAME_NONE;
        p->index = v;
        k = PFS_NAME_CKPT;
    } else if (strncmp(tail, "train.", 6) == 0) {
        size_t m = parse_dec(tail + 6, UINT64_MAX, &v);
        if (!m || tail[6 + m] != '\0')
            return PFS_NAME_NONE;
        p->index = v;
        k = PFS_NAME_TRAIN;
    } else {
        size_t m = parse_dec(tail, INT_MAX, &v);
        if (!m || tail[m] != '\0')
            return PFS_NAME_NONE;
        p->stream = (int)v;
        k = PFS_NAME_DATA;
    }
    memcpy(p->run_id, id, n);
    p->run_id[n] = '\0';
    return k;
}

enum pfs_name_kind pfs_name_parse(const char *name, struct pfs_name *out)
{
    struct pfs_name p = {.kind = PFS_NAME_NONE, .run_id = "", .stream = -1, .index = 0};
    enum pfs_name_kind k = PFS_NAME_NONE;
    if (name && strncmp(name, PREFIX, PREFIX_LEN) == 0)
        k = parse_top(name, &p);
    else if (name)
        k = parse_md_entry(name, &p);
    if (k == PFS_NAME_NONE)
        p = (struct pfs_name){.kind = PFS_NAME_NONE, .run_id = "", .stream = -1, .index = 0};
    p.kind = k;
    if (out)
        *out = p;
    return k;
}

/* Declared in pfs/config.h, where the callers of --clean's first test look. */
int pfs_is_leftover_name(const char *name)
{
    enum pfs_name_kind k = pfs_name_parse(name, NULL);
    return k == PFS_NAME_DATA || k == PFS_NAME_SHARED || k == PFS_NAME_LOCK || k == PFS_NAME_KEPT ||
           k == PFS_NAME_CKPT || k == PFS_NAME_TRAIN;
}
