/* File-system facts of a directory. Local. */
#ifndef PFS_FSINFO_H
#define PFS_FSINFO_H

#include <stddef.h>

/* Writes the file-system type of path ("ext4", "tmpfs", "lustre", "gpfs",
 * ... or "0x<magic>") into buf. */
void pfs_fs_type(const char *path, char *buf, size_t len);

/* The name for a statfs f_type magic, or NULL. */
const char *pfs_fs_name(unsigned long magic);

#endif
