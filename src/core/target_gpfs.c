/* GPFS / Spectrum Scale: a file's storage pool from `mmlsattr -L FILE`
 * ("storage pool name:    system"). GPFS spreads a file's blocks over
 * every disk of its pool and no client call says which block is on which
 * disk, so the pool is the target: every byte on it. */
#include "pfs/targets.h"

#include <stdio.h>
#include <string.h>

/* The value after key at the start of a line ("metadata replication:"
 * must not answer for "data replication:"), trimmed, into val. */
static int value_of(const char *text, const char *key, char *val, size_t len)
{
    size_t k = strlen(key);
    for (const char *line = text; *line; line += strcspn(line, "\n"), line += *line == '\n') {
        const char *p = line + strspn(line, " \t");
        if (strncmp(p, key, k) != 0)
            continue;
        p += k;
        p += strspn(p, " \t");
        size_t n = strcspn(p, "\r\n");
        while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\t'))
            n--;
        if (n == 0 || n >= len)
            return -1;
        memcpy(val, p, n);
        val[n] = '\0';
        return 0;
    }
    return -1;
}

int pfs_gpfs_parse_mmlsattr(const char *text, struct pfs_layout *out, char *err, size_t errlen)
{
    char pool[96], repl[64] = "", name[PFS_TARGET_NAME];
    if (value_of(text, "storage pool name:", pool, sizeof(pool)) != 0) {
        snprintf(err, errlen, "no 'storage pool name:' in mmlsattr's output (%.80s)", text);
        return -1;
    }
    value_of(text, "data replication:", repl, sizeof(repl));
    snprintf(name, sizeof(name), "pool:%s", pool);
    if (pfs_layout_whole(out, name) != 0)
        return -2;
    snprintf(out->detail, sizeof(out->detail), "storage pool %s%s%s", pool, repl[0] ? ", data replication " : "",
             repl);
    return 0;
}

const struct pfs_target_provider pfs_target_gpfs = {
    .name = "gpfs",
    .types = "gpfs",
    .command = "mmlsattr",
    .command_arg = "-L",
    .parse = pfs_gpfs_parse_mmlsattr,
};
