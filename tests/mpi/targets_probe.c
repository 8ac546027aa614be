/* The storage-target providers on real files, for tests/mpi/test_targets_*.sh.
 *
 *   targets_probe DIR FILE...
 *
 * Finds DIR's mount (pfs_fs_mountinfo), chooses its provider, then for each
 * FILE (opened read-only) prints one line:
 *
 *   FILE <tab> PROVIDER <tab> KNOWN <tab> TARGET[,TARGET...] <tab> DETAIL
 *
 * TARGETs are those holding the file's first byte (pfs_layout_split of
 * [0, 1)), the primary first. The provider's note, when there is one, goes
 * to stderr once ("note: ..."). Exits 1 when a file cannot be opened. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "pfs/targets.h"

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: targets_probe DIR FILE...\n");
        return 2;
    }
    struct pfs_fsinfo fs;
    struct pfs_targets t;
    struct pfs_layout l;
    char host[64] = "";
    gethostname(host, sizeof(host) - 1);
    if (pfs_fs_mountinfo("/proc/self/mountinfo", argv[1], &fs) != 0)
        fprintf(stderr, "note: no mount found for %s\n", argv[1]);
    pfs_targets_init(&t, &fs, host);
    pfs_layout_init(&l, "");
    int rc = 0;
    for (int i = 2; i < argc; i++) {
        int fd = open(argv[i], O_RDONLY | O_CLOEXEC);
        if (fd < 0) {
            fprintf(stderr, "targets_probe: %s: %s\n", argv[i], strerror(errno));
            rc = 1;
            continue;
        }
        int known = pfs_targets_layout(&t, fd, argv[i], &l);
        const char *note = pfs_targets_note(&t);
        if (note)
            fprintf(stderr, "note: %s\n", note);
        struct pfs_layout_piece pc;
        printf("%s\t%s\t%d\t", argv[i], l.provider, known);
        if (pfs_layout_split(&l, 0, 1, &pc, 1) >= 1)
            for (uint32_t k = 0; k < pc.nt; k++)
                printf("%s%s", k ? "," : "", l.targets[pc.t[k]].name);
        printf("\t%s\n", l.detail);
        close(fd);
    }
    pfs_layout_free(&l);
    return rc;
}
