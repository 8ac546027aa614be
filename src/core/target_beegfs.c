/* BeeGFS: a file's storage targets from `beegfs-ctl --getentryinfo FILE`:
 *
 *   Stripe pattern details:
 *   + Type: RAID0
 *   + Chunksize: 512K
 *   + Number of storage targets: desired: 4; actual: 4
 *   + Storage targets:
 *     + 101 @ storage01 [ID: 1]
 *     + 201 @ storage02 [ID: 2]
 *
 * Chunk i of the file is on the (i mod N)-th target listed. With buddy
 * mirroring the list is of mirror buddy groups ("+ Storage mirror buddy
 * groups:"), each a pair of targets that both hold the chunk. */
#include "pfs/targets.h"
#include "pfs/units.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The line after a header line starting with head, or NULL. */
static const char *after_line(const char *text, const char *head)
{
    const char *p = strstr(text, head);
    if (!p)
        return NULL;
    p = strchr(p, '\n');
    return p ? p + 1 : NULL;
}

/* One list entry "+ 101 @ storage01 [ID: 1]" or "+ 3": the ID and the name
 * to show. Returns the next line, or NULL when this line is not an entry. */
static const char *entry(const char *p, int group, long long *id, char *name, size_t len)
{
    const char *q = p + strspn(p, " \t");
    if (*q != '+')
        return NULL;
    q++;
    q += strspn(q, " \t");
    char *end;
    *id = strtoll(q, &end, 10);
    if (end == q || *id < 0)
        return NULL;
    const char *eol = strchr(end, '\n');
    size_t rest = eol ? (size_t)(eol - end) : strlen(end);
    const char *at = memchr(end, '@', rest);
    if (group) {
        snprintf(name, len, "buddygroup:%lld", *id);
    } else if (at) {
        const char *h = at + 1 + strspn(at + 1, " \t");
        size_t hl = strcspn(h, " \t[\n");
        snprintf(name, len, "%lld@%.*s", *id, (int)hl, h);
    } else {
        snprintf(name, len, "target:%lld", *id);
    }
    return eol ? eol + 1 : end + rest;
}

int pfs_beegfs_parse_entryinfo(const char *text, struct pfs_layout *out, char *err, size_t errlen)
{
    const char *c = strstr(text, "Chunksize:");
    uint64_t chunk = c ? pfs_size_word(c + strlen("Chunksize:") + strspn(c + strlen("Chunksize:"), " \t")) : 0;
    int group = 0;
    const char *p = after_line(text, "+ Storage targets:");
    if (!p) {
        p = after_line(text, "+ Storage mirror buddy groups:");
        group = 1;
    }
    if (chunk == 0 || !p) {
        snprintf(err, errlen, "no chunk size and storage target list in beegfs-ctl's output (%.80s)", text);
        return -1;
    }
    uint32_t slots[1024], n = 0;
    long long id;
    char name[PFS_TARGET_NAME];
    for (const char *next; p && *p && (next = entry(p, group, &id, name, sizeof(name))); p = next) {
        if (n == sizeof(slots) / sizeof(slots[0])) {
            snprintf(err, errlen, "more than %u storage targets", n);
            return -1;
        }
        int t = pfs_layout_target(out, name, id);
        if (t < 0)
            return -2;
        slots[n++] = (uint32_t)t;
    }
    if (n == 0) {
        snprintf(err, errlen, "beegfs-ctl listed no storage target");
        return -1;
    }
    const struct pfs_layout_comp comp = {.start = 0, .end = PFS_LAYOUT_EOF, .kind = PFS_COMP_RAID0, .count = n,
                                         .unit = chunk, .width = 1};
    if (pfs_layout_add_comp(out, &comp, slots, n) != 0)
        return -2;
    snprintf(out->detail, sizeof(out->detail), "%s chunk_size=%" PRIu64 " %s=%u",
             group ? "buddy mirror" : "raid0", chunk, group ? "buddy_groups" : "storage_targets", n);
    return 0;
}

const struct pfs_target_provider pfs_target_beegfs = {
    .name = "beegfs",
    .types = "beegfs",
    .command = "beegfs-ctl",
    .command_arg = "--getentryinfo",
    .parse = pfs_beegfs_parse_entryinfo,
};
