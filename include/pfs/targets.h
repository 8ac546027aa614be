/* Which storage targets hold a file, and which hold each byte range of it.
 * Local, MPI-free.
 *
 * A provider per file-system type (src/core/target_NAME.c), chosen from
 * the mount type pfs_fs_mountinfo found, reads a data file's layout from
 * an open descriptor once, outside the timed region: Lustre's lustre.lov
 * attribute, CephFS's ceph.file.layout, GlusterFS's glusterfs.pathinfo,
 * `beegfs-ctl --getentryinfo`, `mmlsattr -L`, the NFS server of the mount,
 * a local file system's block device. Each provider's parser is a pure
 * function of the bytes or text the file system gives, unit-tested
 * against vectors written from each format's documentation.
 *
 * A layout is the file's targets (each a name and the file system's own
 * number) and components: byte ranges of the file, each with its striping.
 * pfs_layout_split maps a transfer's range to the pieces each stripe holds
 * and their targets, with no allocation and no call out: it may run per
 * transfer. What a provider cannot tell is never guessed: the layout is
 * then one target "unknown", and the reason is said once (pfs_targets_note).
 *
 * Thread safety: a layout is read-only once made; a struct pfs_targets is
 * one thread's. */
#ifndef PFS_TARGETS_H
#define PFS_TARGETS_H

#include <stddef.h>
#include <stdint.h>

#include "pfs/fsinfo.h"

#define PFS_TARGET_NAME 128
#define PFS_LAYOUT_EOF UINT64_MAX

struct pfs_target {
    char name[PFS_TARGET_NAME]; /* "vm:/bricks/b3", "OST0003", "101@storage01", "osd.4", "pool:system",
                                 * "node1:vda1", "unknown" */
    int64_t index;              /* the file system's own number (OST index, BeeGFS target or buddy group
                                 * ID, OSD id); -1 where it has none (a brick, a pool, a disk) */
};

enum pfs_comp_kind {
    PFS_COMP_WHOLE, /* every byte on every target of the component (replicas, fragments, one disk) */
    PFS_COMP_RAID0, /* units of `unit` bytes rotate over `count` stripes (Lustre, BeeGFS) */
    PFS_COMP_CEPH,  /* Ceph's striping of units over objects of object_size, `count` objects a set */
};

struct pfs_layout_comp {
    uint64_t start, end;  /* the file range it covers, [start, end); end PFS_LAYOUT_EOF: to the end */
    int kind;             /* enum pfs_comp_kind */
    uint32_t count;       /* RAID0: stripes; CEPH: stripe_count; WHOLE: 1 */
    uint64_t unit;        /* RAID0, CEPH: the stripe unit in bytes */
    uint64_t object_size; /* CEPH: bytes per object */
    uint32_t width;       /* targets per stripe (or object): replicas, fragments; 0: not allocated yet
                           * (a Lustre component the writes have not reached) */
    uint32_t first;       /* slots[first + s * width + r]: target r of stripe s (WHOLE: s = 0; CEPH: s is
                           * the object number, for objects below `mapped`) */
    uint32_t mapped;      /* CEPH: objects 0 .. mapped-1 have slots of their own */
    uint32_t fallback;    /* CEPH: the slot of the pool's target, for objects not mapped */
};

struct pfs_layout {
    char provider[16]; /* "lustre", "ceph", "glusterfs", "beegfs", "gpfs", "nfs", "local", "unknown" */
    char detail[256];  /* one line for a report: the striping, or why it is unknown */
    int known;         /* 1: the targets come from the file system; 0: the one target "unknown" */
    int pending;       /* components not allocated yet: ask again after the data is written */
    uint64_t ceph_ino; /* CephFS: the inode number its object names begin with */
    char ceph_pool[96], ceph_ns[96]; /* CephFS: its data pool and namespace ("" the default) */
    uint32_t ntargets, ncomps, nslots;
    struct pfs_target *targets;
    struct pfs_layout_comp *comps;
    uint32_t *slots; /* indices into targets */
    uint32_t cap_targets, cap_comps, cap_slots;
};

/* One piece of a range: bytes that one stripe (or object) of one
 * component holds. A byte two mirrors hold is in two pieces. */
struct pfs_layout_piece {
    uint64_t off, len;
    uint64_t object;          /* RAID0: the stripe; CEPH: the object number; WHOLE: 0 */
    uint32_t comp;            /* its component */
    uint32_t nt;              /* targets that hold it; 0: none yet */
    const uint32_t *t;        /* their indices in layout->targets, the primary first */
};

/* ---- building and reading a layout (targets.c) ---- */

/* Local. An empty layout of provider (nothing allocated yet). */
void pfs_layout_init(struct pfs_layout *l, const char *provider);
void pfs_layout_free(struct pfs_layout *l);
/* Local. The target named name (added with index when new; a name seen
 * before keeps its first index). Returns its position, or -1 (no memory). */
int pfs_layout_target(struct pfs_layout *l, const char *name, int64_t index);
/* Local. Appends c with its slots (n = its stripes x width target
 * positions); c->first is set here. Returns 0, or -1 (no memory). */
int pfs_layout_add_comp(struct pfs_layout *l, const struct pfs_layout_comp *c, const uint32_t *slots, uint32_t n);
/* Local. Appends the target named name holding every byte of the file
 * (one whole component of width 1). Returns 0, or -1 (no memory). */
int pfs_layout_whole(struct pfs_layout *l, const char *name);
/* Local. Makes l the unknown layout: the one target "unknown" holding every
 * byte; why (one line) goes to detail. Keeps l's provider name. */
void pfs_layout_unknown(struct pfs_layout *l, const char *why);

/* Local, no allocation: the hot path may call these. The pieces of
 * [off, off + len) into out (at most max); returns how many there are,
 * which may be more than max (then only max were written). */
int pfs_layout_split(const struct pfs_layout *l, uint64_t off, uint64_t len, struct pfs_layout_piece *out, int max);
/* The target (its position in targets) that holds byte off first: the
 * primary of the first component covering it; -1 when none does yet. */
int pfs_layout_target_at(const struct pfs_layout *l, uint64_t off);

/* Local, pure. A Ceph object's name: inode in hex, '.', object number as
 * 8 hex digits ("10000000000.00000003"). */
void pfs_ceph_object_name(uint64_t ino, uint64_t objno, char *buf, size_t len);

/* ---- the parsers: pure, bytes or text in, layout out ---- */
/* Each returns 0, or -1 with err set (one line) when the input is not the
 * format, or -2 when memory ran out. out must be pfs_layout_init'ed. */

/* Lustre: the lustre.lov attribute, a lov_user_md v1 or v3 (one plain
 * layout) or a lov_comp_md_v1 (composite: PFL, FLR mirrors), in host or
 * the other byte order. */
int pfs_lustre_parse_lov(const void *buf, size_t len, struct pfs_layout *out, char *err, size_t errlen);
/* CephFS: the ceph.file.layout attribute's text ("stripe_unit=4194304
 * stripe_count=1 object_size=4194304 pool=cephfs_data"), and the file's
 * inode number. Targets: the pool, until pfs_ceph_map_objects. */
int pfs_ceph_parse_layout(const char *text, uint64_t ino, struct pfs_layout *out, char *err, size_t errlen);
/* GlusterFS: glusterfs.pathinfo's text ("(<DISTRIBUTE:v-dht>
 * <POSIX(/b3):host:/b3/f>)", replicated and dispersed sets nested). */
int pfs_gluster_parse_pathinfo(const char *text, struct pfs_layout *out, char *err, size_t errlen);
/* BeeGFS: the output of `beegfs-ctl --getentryinfo FILE` (RAID0 targets or
 * buddy mirror groups, the chunk size). */
int pfs_beegfs_parse_entryinfo(const char *text, struct pfs_layout *out, char *err, size_t errlen);
/* GPFS / Spectrum Scale: the output of `mmlsattr -L FILE` (its storage pool). */
int pfs_gpfs_parse_mmlsattr(const char *text, struct pfs_layout *out, char *err, size_t errlen);
/* NFS: the server from the mount source ("server:/export", "[::1]:/x"). */
int pfs_nfs_parse_source(const char *source, struct pfs_layout *out, char *err, size_t errlen);
/* Local disks: the block device from /sys/dev/block/MAJ:MIN's link
 * ("../../devices/.../block/vda/vda1"), named "HOST:DEV". */
int pfs_local_parse_block(const char *sys_link, const char *host, struct pfs_layout *out, char *err,
                          size_t errlen);

/* ---- the providers and the run's context ---- */

/* Where a Ceph object lives, when the cluster's map can be asked
 * (librados: rados_*; not wired in this build). Writes the acting set's
 * OSD ids, primary first, into osds (room for max); returns how many, or
 * -1 when it cannot tell. */
typedef int (*pfs_ceph_osd_fn)(void *arg, const char *pool, const char *ns, const char *object, int *osds,
                               int max);

/* Local. The objects of [0, size) of a Ceph layout located through osd_of:
 * each object's primary OSD becomes its target ("osd.N"). Objects the
 * hook cannot place keep the pool. Returns 0, or -2 (no memory). */
int pfs_ceph_map_objects(struct pfs_layout *l, uint64_t size, pfs_ceph_osd_fn osd_of, void *arg);

struct pfs_targets;

struct pfs_target_provider {
    const char *name;    /* the layout's provider name */
    const char *types;   /* the mount types it serves, space-separated ("nfs nfs4") */
    const char *command; /* a program it runs, looked for on PATH once; NULL: none */
    /* Fills out (pfs_layout_init'ed) for the open file fd; path names the
     * same file, for messages and commands. 0, or -1 with why set. */
    int (*layout)(struct pfs_targets *t, int fd, const char *path, struct pfs_layout *out, char *why, size_t len);
    /* Instead of layout: `command command_arg PATH` is run and its output
     * parsed (a pfs_*_parse_* above: 0, -1 with err set, -2 no memory). */
    const char *command_arg;
    int (*parse)(const char *text, struct pfs_layout *out, char *err, size_t errlen);
};

extern const struct pfs_target_provider pfs_target_lustre, pfs_target_ceph, pfs_target_gluster,
    pfs_target_beegfs, pfs_target_gpfs, pfs_target_nfs, pfs_target_local;

struct pfs_targets {
    const struct pfs_target_provider *provider; /* NULL: no provider for this type */
    struct pfs_fsinfo fs;                       /* the data directory's mount */
    char host[64];                              /* this node's name, for local targets */
    pfs_ceph_osd_fn ceph_osd;                   /* the hook; NULL: objects stay in their pool */
    void *ceph_arg;
    uint64_t size_hint;  /* bytes each file will hold: the Ceph objects asked about */
    int command_missing; /* the provider's program is not on PATH */
    int noted;           /* a note was made (only the first is kept) */
    int taken;           /* and handed out */
    char note[512];
};

/* Local. The provider for fs's mount type (pfs_fs_mountinfo's), and
 * whether its program is on PATH. host: this node's name. */
void pfs_targets_init(struct pfs_targets *t, const struct pfs_fsinfo *fs, const char *host);
/* Local. The layout of the open data file fd (path: the same file).
 * Returns 1 when the targets are known, 0 when out is the unknown layout
 * (the reason is then in the note, once), -1 when memory ran out. out
 * must be pfs_layout_init'ed or freed; it is reset here. */
int pfs_targets_layout(struct pfs_targets *t, int fd, const char *path, struct pfs_layout *out);
/* Local. The first reason targets were unknown, one line, the first time
 * it is asked for after one arose; NULL otherwise. */
const char *pfs_targets_note(struct pfs_targets *t);

/* Local, for providers: the attribute name of fd into a new buffer
 * (NUL-terminated; *len its length without the NUL). NULL with errno set. */
char *pfs_targets_xattr(int fd, const char *name, size_t *len);
/* Local, for providers: runs argv (bounded, stderr discarded) after
 * checking that path still names fd's file; its output into buf. Returns
 * the exit status, or -1 with why set. */
int pfs_targets_run(int fd, const char *path, char *const argv[], char *buf, size_t len, char *why, size_t wlen);

#endif
