/* Local file systems: the block device a file's file system is on, from
 * its st_dev through /sys/dev/block/MAJ:MIN (a link into the device tree:
 * ".../block/vda/vda1" is partition vda1 of disk vda); memory for tmpfs and
 * ramfs. Every node has its own: a target's name is "HOST:DEVICE". */
#include "pfs/targets.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

int pfs_local_parse_block(const char *sys_link, const char *host, struct pfs_layout *out, char *err,
                          size_t errlen)
{
    /* The last component is the device; the one before is its disk when
     * the device is a partition, "block" when it is a whole device. */
    const char *dev = strrchr(sys_link, '/');
    dev = dev ? dev + 1 : sys_link;
    const char *blk = strstr(sys_link, "/block/");
    if (!dev[0] || !blk) {
        snprintf(err, errlen, "'%.120s' is not a block device's path in /sys", sys_link);
        return -1;
    }
    const char *disk = blk + strlen("/block/");
    size_t dlen = strcspn(disk, "/");
    char name[PFS_TARGET_NAME];
    if (snprintf(name, sizeof(name), "%s:%s", host, dev) >= (int)sizeof(name)) {
        snprintf(err, errlen, "device name %.40s too long", dev);
        return -1;
    }
    if (pfs_layout_whole(out, name) != 0)
        return -2;
    if (strcmp(disk, dev) == 0)
        snprintf(out->detail, sizeof(out->detail), "block device %s", dev);
    else
        snprintf(out->detail, sizeof(out->detail), "block device %s (disk %.*s)", dev, (int)dlen, disk);
    return 0;
}

static int local_layout(struct pfs_targets *t, int fd, const char *path, struct pfs_layout *out, char *why,
                        size_t len)
{
    const char *type = t->fs.mount_type;
    char name[PFS_TARGET_NAME], sys[64], link[PATH_MAX], err[256];
    if (strcmp(type, "tmpfs") == 0 || strcmp(type, "ramfs") == 0 || strcmp(type, "hugetlbfs") == 0) {
        snprintf(name, sizeof(name), "%s:memory", t->host);
        int rc = pfs_layout_whole(out, name) == 0 ? 0 : -2;
        snprintf(out->detail, sizeof(out->detail), "%s: this node's memory", type);
        return rc;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        snprintf(why, len, "fstat of %s: %s", path, strerror(errno));
        return -1;
    }
    snprintf(sys, sizeof(sys), "/sys/dev/block/%u:%u", major(st.st_dev), minor(st.st_dev));
    ssize_t n = readlink(sys, link, sizeof(link) - 1);
    if (n < 0) {
        /* btrfs over several devices, ZFS, a network block: no one device */
        snprintf(why, len, "%s (%s) is on device %u:%u, which is no block device (%s: %s)", path, type,
                 major(st.st_dev), minor(st.st_dev), sys, strerror(errno));
        return -1;
    }
    link[n] = '\0';
    int rc = pfs_local_parse_block(link, t->host, out, err, sizeof(err));
    if (rc == -1)
        snprintf(why, len, "%s: %s", path, err);
    return rc;
}

const struct pfs_target_provider pfs_target_local = {
    .name = "local",
    .types = "ext2 ext3 ext4 xfs btrfs f2fs jfs reiserfs vfat exfat ntfs ntfs3 bcachefs zfs tmpfs ramfs hugetlbfs",
    .command = NULL,
    .layout = local_layout,
};
