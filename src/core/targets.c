/* Storage targets (pfs/targets.h): a layout's building blocks, the range
 * map the hot path may call, and the table of providers chosen by mount
 * type. The providers themselves are src/core/target_NAME.c. */
#define _GNU_SOURCE
#include "pfs/targets.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>

/* The providers, in the order a mount type is looked up. */
static const struct pfs_target_provider *const providers[] = {
    &pfs_target_lustre, &pfs_target_ceph, &pfs_target_gluster, &pfs_target_beegfs,
    &pfs_target_gpfs,   &pfs_target_nfs,  &pfs_target_local,
};

/* ---- building ---- */

void pfs_layout_init(struct pfs_layout *l, const char *provider)
{
    memset(l, 0, sizeof(*l));
    snprintf(l->provider, sizeof(l->provider), "%s", provider);
}

void pfs_layout_free(struct pfs_layout *l)
{
    free(l->targets);
    free(l->comps);
    free(l->slots);
    char provider[sizeof(l->provider)];
    memcpy(provider, l->provider, sizeof(provider));
    pfs_layout_init(l, provider);
}

/* Room for n more of size each in *p (capacity *cap, used have). */
static int grow(void **p, uint32_t *cap, uint32_t have, uint32_t n, size_t size)
{
    if (have + (uint64_t)n <= *cap)
        return 0;
    uint64_t want = *cap ? *cap : 4;
    while (want < have + (uint64_t)n)
        want *= 2;
    if (want > UINT32_MAX / 2)
        return -1;
    void *q = realloc(*p, want * size);
    if (!q)
        return -1;
    *p = q;
    *cap = (uint32_t)want;
    return 0;
}

int pfs_layout_target(struct pfs_layout *l, const char *name, int64_t index)
{
    for (uint32_t i = 0; i < l->ntargets; i++)
        if (strcmp(l->targets[i].name, name) == 0)
            return (int)i;
    if (grow((void **)&l->targets, &l->cap_targets, l->ntargets, 1, sizeof(*l->targets)) != 0)
        return -1;
    struct pfs_target *t = &l->targets[l->ntargets];
    snprintf(t->name, sizeof(t->name), "%s", name);
    t->index = index;
    return (int)l->ntargets++;
}

int pfs_layout_add_comp(struct pfs_layout *l, const struct pfs_layout_comp *c, const uint32_t *slots, uint32_t n)
{
    if (grow((void **)&l->comps, &l->cap_comps, l->ncomps, 1, sizeof(*l->comps)) != 0 ||
        grow((void **)&l->slots, &l->cap_slots, l->nslots, n, sizeof(*l->slots)) != 0)
        return -1;
    struct pfs_layout_comp *d = &l->comps[l->ncomps++];
    *d = *c;
    d->first = l->nslots;
    if (n)
        memcpy(l->slots + l->nslots, slots, n * sizeof(*slots));
    l->nslots += n;
    l->pending += c->width == 0;
    return 0;
}

int pfs_layout_whole(struct pfs_layout *l, const char *name)
{
    int t = pfs_layout_target(l, name, -1);
    if (t < 0)
        return -1;
    const uint32_t slot = (uint32_t)t;
    const struct pfs_layout_comp c = {.start = 0, .end = PFS_LAYOUT_EOF, .kind = PFS_COMP_WHOLE, .count = 1,
                                      .width = 1};
    return pfs_layout_add_comp(l, &c, &slot, 1);
}

void pfs_layout_unknown(struct pfs_layout *l, const char *why)
{
    pfs_layout_free(l);
    snprintf(l->detail, sizeof(l->detail), "%s", why);
    /* Room for one of each is all this needs: without it, the layout has
     * no target, which the split reports as "not allocated yet". */
    pfs_layout_whole(l, "unknown");
    l->known = 0;
}

void pfs_ceph_object_name(uint64_t ino, uint64_t objno, char *buf, size_t len)
{
    snprintf(buf, len, "%" PRIx64 ".%08" PRIx64, ino, objno);
}

/* ---- the range map ---- */

/* The piece of component c that holds byte p (p inside c), up to end. */
static void piece_at(const struct pfs_layout *l, uint32_t ci, uint64_t p, uint64_t end, struct pfs_layout_piece *pc)
{
    const struct pfs_layout_comp *c = &l->comps[ci];
    uint64_t stop = end < c->end ? end : c->end;
    pc->off = p, pc->comp = ci, pc->object = 0, pc->nt = c->width;
    pc->t = l->slots + c->first;
    if (c->width == 0 || c->kind == PFS_COMP_WHOLE || c->unit == 0) {
        pc->len = stop - p;
        return;
    }
    uint64_t block = p / c->unit;
    uint64_t next = (block + 1) * c->unit;
    pc->len = (next < stop && next > p ? next : stop) - p;
    if (c->kind == PFS_COMP_RAID0) {
        /* Lustre and BeeGFS count stripes from the file's offset 0, not the
         * component's start (lov_stripe_number takes the file offset). */
        pc->object = block % c->count;
        pc->t = l->slots + c->first + pc->object * c->width;
        return;
    }
    /* Ceph: units go round count objects; when each has object_size
     * bytes, the next set of count objects begins. */
    uint64_t per_object = c->object_size / c->unit;
    uint64_t stripe = block / c->count, pos = block % c->count;
    pc->object = stripe / per_object * c->count + pos;
    pc->t = l->slots + (pc->object < c->mapped ? c->first + pc->object * c->width : c->fallback);
    pc->nt = pc->object < c->mapped ? c->width : 1;
}

int pfs_layout_split(const struct pfs_layout *l, uint64_t off, uint64_t len, struct pfs_layout_piece *out, int max)
{
    int n = 0;
    uint64_t end = len > PFS_LAYOUT_EOF - off ? PFS_LAYOUT_EOF : off + len;
    for (uint32_t ci = 0; ci < l->ncomps; ci++) {
        const struct pfs_layout_comp *c = &l->comps[ci];
        uint64_t p = off > c->start ? off : c->start;
        while (p < end && p < c->end) {
            struct pfs_layout_piece pc;
            piece_at(l, ci, p, end, &pc);
            if (n < max)
                out[n] = pc;
            n++;
            p += pc.len;
        }
    }
    return n;
}

int pfs_layout_target_at(const struct pfs_layout *l, uint64_t off)
{
    for (uint32_t ci = 0; ci < l->ncomps; ci++) {
        const struct pfs_layout_comp *c = &l->comps[ci];
        if (off < c->start || off >= c->end)
            continue;
        struct pfs_layout_piece pc;
        piece_at(l, ci, off, off + 1, &pc);
        if (pc.nt > 0)
            return (int)pc.t[0];
    }
    return -1;
}

/* ---- the run's context ---- */

/* Whether word is one of the space-separated words of list. */
static int in_list(const char *list, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = list; *p;) {
        size_t m = strcspn(p, " ");
        if (m == n && n > 0 && strncmp(p, word, n) == 0)
            return 1;
        p += m + (p[m] == ' ');
    }
    return 0;
}

void pfs_targets_init(struct pfs_targets *t, const struct pfs_fsinfo *fs, const char *host)
{
    memset(t, 0, sizeof(*t));
    t->fs = *fs;
    snprintf(t->host, sizeof(t->host), "%s", host && host[0] ? host : "localhost");
    for (size_t i = 0; i < sizeof(providers) / sizeof(providers[0]) && !t->provider; i++)
        if (in_list(providers[i]->types, fs->mount_type))
            t->provider = providers[i];
    if (t->provider && t->provider->command)
        t->command_missing = !pfs_fs_on_path(t->provider->command);
}

/* Keeps the first reason only: one line said once, however many files. */
static void note(struct pfs_targets *t, const char *text)
{
    if (t->noted)
        return;
    t->noted = 1;
    snprintf(t->note, sizeof(t->note), "%s", text);
}

const char *pfs_targets_note(struct pfs_targets *t)
{
    if (!t->noted || t->taken)
        return NULL;
    t->taken = 1;
    return t->note;
}

/* A provider with a command: its output on the file, parsed; a parse
 * error is named after the command line that printed it. */
static int run_parse(const struct pfs_target_provider *p, int fd, const char *path, struct pfs_layout *out,
                     char *why, size_t len)
{
    char text[16384], err[256];
    char *argv[] = {(char *)p->command, (char *)p->command_arg, (char *)path, NULL};
    if (pfs_targets_run(fd, path, argv, text, sizeof(text), why, len) != 0)
        return -1;
    int rc = p->parse(text, out, err, sizeof(err));
    if (rc == -1)
        snprintf(why, len, "%s %s %s: %s", p->command, p->command_arg, path, err);
    return rc;
}

int pfs_targets_layout(struct pfs_targets *t, int fd, const char *path, struct pfs_layout *out)
{
    char why[384], text[512];
    const struct pfs_target_provider *p = t->provider;
    pfs_layout_free(out);
    snprintf(out->provider, sizeof(out->provider), "%s", p ? p->name : "unknown");
    if (!p) {
        snprintf(text, sizeof(text), "storage targets unknown: no target provider for file-system type '%s'%s",
                 t->fs.mount_type[0] ? t->fs.mount_type : "(none found)",
                 t->fs.mount_point[0] ? "" : " (no mount found for the data directory)");
    } else if (t->command_missing) {
        snprintf(text, sizeof(text), "storage targets unknown: %s needs '%s', which is not on PATH", p->name,
                 p->command);
    } else {
        why[0] = '\0';
        int rc = p->parse ? run_parse(p, fd, path, out, why, sizeof(why))
                          : p->layout(t, fd, path, out, why, sizeof(why));
        if (rc == 0 && out->ntargets > 0) {
            out->known = 1;
            return 1;
        }
        if (rc == -2)
            return -1;
        snprintf(text, sizeof(text), "storage targets unknown on %s: %s", p->name,
                 why[0] ? why : "the provider found no target");
    }
    note(t, text);
    pfs_layout_unknown(out, text);
    return out->ntargets == 1 ? 0 : -1;
}

/* ---- helpers for the providers ---- */

char *pfs_targets_xattr(int fd, const char *name, size_t *len)
{
    /* Asked for its size first; it may grow between the two calls
     * (ERANGE), so a few tries. */
    for (int tries = 0; tries < 4; tries++) {
        ssize_t n = fgetxattr(fd, name, NULL, 0);
        if (n < 0)
            return NULL;
        char *buf = malloc((size_t)n + 1);
        if (!buf)
            return NULL;
        ssize_t m = fgetxattr(fd, name, buf, (size_t)n);
        if (m >= 0) {
            buf[m] = '\0';
            *len = (size_t)m;
            return buf;
        }
        int e = errno;
        free(buf);
        if (e != ERANGE) {
            errno = e;
            return NULL;
        }
    }
    errno = ERANGE;
    return NULL;
}

int pfs_targets_run(int fd, const char *path, char *const argv[], char *buf, size_t len, char *why, size_t wlen)
{
    /* The program is given a path: make sure it is still the open file. */
    struct stat a, b;
    if (fstat(fd, &a) != 0 || stat(path, &b) != 0 || a.st_dev != b.st_dev || a.st_ino != b.st_ino) {
        snprintf(why, wlen, "%s no longer names the open file", path);
        return -1;
    }
    int rc = pfs_fs_run(argv, buf, len, 5.0);
    if (rc < 0)
        snprintf(why, wlen, "'%s' on %s did not run, or not within 5 s", argv[0], path);
    else if (rc > 0)
        snprintf(why, wlen, "'%s' on %s exited with status %d", argv[0], path, rc);
    return rc;
}
