#include "pfs/fsinfo.h"

#include <stdio.h>
#include <sys/vfs.h>

static const struct {
    unsigned long magic;
    const char *name;
} fs_names[] = {
    {0xEF53, "ext4"},          {0x01021994, "tmpfs"},      {0x58465342, "xfs"},
    {0x9123683E, "btrfs"},     {0x6969, "nfs"},            {0x0BD00BD0, "lustre"},
    {0x47504653, "gpfs"},      {0x19830326, "beegfs"},     {0x20030528, "pvfs2"},
    {0x00C36400, "ceph"},      {0x794C7630, "overlayfs"},  {0x65735546, "fuse"},
    {0x2FC12FC1, "zfs"},       {0x5346544E, "ntfs"},       {0xFF534D42, "cifs"},
    {0x73717368, "squashfs"},  {0x858458F6, "ramfs"},      {0x6A656A63, "fakeowner"},
};

const char *pfs_fs_name(unsigned long magic)
{
    for (size_t i = 0; i < sizeof(fs_names) / sizeof(fs_names[0]); i++)
        if (fs_names[i].magic == magic)
            return fs_names[i].name;
    return NULL;
}

void pfs_fs_type(const char *path, char *buf, size_t len)
{
    struct statfs sf;
    if (statfs(path, &sf) != 0) {
        snprintf(buf, len, "unknown");
        return;
    }
    const char *n = pfs_fs_name((unsigned long)sf.f_type);
    if (n)
        snprintf(buf, len, "%s", n);
    else
        snprintf(buf, len, "0x%lx", (unsigned long)sf.f_type);
}
