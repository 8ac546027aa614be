/* File-system facts of a directory. Local. */
#ifndef PFS_FSINFO_H
#define PFS_FSINFO_H

#include <stddef.h>

/* Writes the file-system type of path ("ext4", "tmpfs", "lustre", "gpfs",
 * ... or "0x<magic>") into buf. statfs's view: a FUSE file system is
 * "fuse" whatever serves it. */
void pfs_fs_type(const char *path, char *buf, size_t len);

/* The name for a statfs f_type magic, or NULL. */
const char *pfs_fs_name(unsigned long magic);

/* What a directory's file system is, as the mount table says it: every
 * string is empty where it is not known, never guessed. */
struct pfs_fsinfo {
    char mount_type[64];    /* "fuse.glusterfs", "lustre", "gpfs", "nfs4", "beegfs", "ext4" */
    char source[1024];      /* "127.0.0.1:/vol", "/dev/sda1", "10.0.0.1@tcp:/fs" */
    char mount_point[1024]; /* the mount that holds the directory */
    char options[1024];     /* the mount's options, then the super block's not already named */
    unsigned long block_size; /* statfs f_bsize; 0 when statfs failed */
    char layout[256];       /* "stripe_count=4 stripe_size=1048576", "block_size=4194304",
                             * "chunk_size=524288 storage_targets=4", "stripe_unit=4194304
                             * stripe_count=1 object_size=4194304 pool=cephfs_data";
                             * "" where not cheap */
};

/* Local. Fills out for dir: its mount from mountinfo (a path, normally
 * "/proc/self/mountinfo"; the longest mount point that is a path prefix of
 * realpath(dir), the last mounted on a tie), statfs's block size, and
 * nothing else: no helper program is run. Returns 0, or -1 when no mount
 * was found (out is then all empty but block_size). */
int pfs_fs_mountinfo(const char *mountinfo, const char *dir, struct pfs_fsinfo *out);

/* Local. pfs_fs_mountinfo on /proc/self/mountinfo, then the layout facts
 * the file system gives cheaply: Lustre's default stripe count and size
 * (`lfs getstripe -d -c -S DIR`, when lfs is on PATH), GPFS's block size
 * (statfs), BeeGFS's chunk size and targets (`beegfs-ctl --getentryinfo
 * DIR`, when on PATH), CephFS's layout for new files (the directory's
 * ceph.dir.layout.json or ceph.dir.layout extended attribute, kernel
 * client or ceph-fuse). Each helper runs at most 3 s, then is killed.
 * Returns what pfs_fs_mountinfo returned. */
int pfs_fs_describe(const char *dir, struct pfs_fsinfo *out);

/* Local, pure. One mountinfo line (without its newline) parsed: fields
 * unescaped (\040 and the other octal escapes). Returns 0, or -1 when the
 * line is not a mountinfo line. */
int pfs_mountinfo_parse(const char *line, char *mount_point, size_t mplen, char *type, size_t typelen,
                        char *source, size_t srclen, char *options, size_t optlen);

/* Local, pure. Layout text ("key=value ..." into buf, "" when nothing was
 * recognized) from the output of `lfs getstripe -d -c -S` and of
 * `beegfs-ctl --getentryinfo`. */
void pfs_lustre_layout(const char *lfs_output, char *buf, size_t len);
void pfs_beegfs_layout(const char *ctl_output, char *buf, size_t len);
/* Local, pure. The same from CephFS's ceph.dir.layout.json or
 * ceph.dir.layout attribute: "stripe_unit=U stripe_count=C object_size=O
 * pool=P" (pool= left out when it does not say). */
void pfs_ceph_layout(const char *xattr, char *buf, size_t len);

/* Local, pure. The warning for metadata rates a client's caches may have
 * answered: stat or read-files run after a create in the same phase list,
 * on the client that created the files (other_node is 0: no -C, or -C on
 * one node), on a file system whose clients cache (mount_type is not a
 * local disk or memory file system, and not ""), through the mount's
 * client or, where client is not NULL, a client library of that name in
 * each rank. Writes the text into buf and returns 1, or writes "" and
 * returns 0. */
int pfs_meta_cache_warning(const int *phases, int nphases, int other_node, const char *mount_type,
                           const char *client, char *buf, size_t len);

/* Local. Whether prog is an executable file in a directory of PATH. */
int pfs_fs_on_path(const char *prog);
/* Local. Runs argv (no shell; stdin and stderr /dev/null) and keeps at
 * most len - 1 bytes of its stdout in buf, NUL-terminated; a program still
 * running after limit_s is killed. Returns its exit status, or -1 (not
 * run, killed, or signalled). */
int pfs_fs_run(char *const argv[], char *buf, size_t len, double limit_s);

#endif
