/* The run's files and directories (files.c, mdfiles.c): its id, its lock,
 * the directories it holds open, what it knows other streams created and
 * what a kept run's status says. files.c and mdfiles.c alone write it;
 * drv_files_init and drv_files_fini bracket it (the descriptors close at
 * their own steps: drv_drop_run_lock, drv_md_close). Private to src/mpi. */
#ifndef PFS_MPI_FILES_H
#define PFS_MPI_FILES_H

#include <stdint.h>
#include <time.h>

#include "pfs/config.h"
#include "pfs/safefile.h"

/* What rank 0 knows another stream created (for the watchdog's clean-up). */
struct known_file {
    int created;
    struct pfs_fid fid;
};

struct drv_files {
    char run_id[64];
    int name_rep;               /* --file-per-rep: the repetition the data files' names are of */
    struct pfs_lock lock;       /* rank 0: DIR/pfsbench.ID.lock, flock'ed while the run lives */
    char lock_path[PFS_PATH_MAX + 128];
    /* The directories the run works in, held open (mdfiles.c): every name
     * of the run is resolved from these, never from a path rebuilt from -d. */
    struct pfs_dir dir;         /* DIR, every rank, from the run's start (rank 0: before the lock) */
    struct pfs_dir md_topd;     /* md_top, made by rank 0 (or a kept run's, checked), opened by every rank */
    int pin_reported;           /* this rank named a directory changed under the run (once) */
    char md_top[PFS_PATH_MAX + 128]; /* the run's directory for metadata phases */
    int md_top_made;            /* rank 0 made md_top in this run */
    unsigned md_kept;           /* pfs_config_md_kept: the phases start from a kept run's metadata (--run-id) */
    struct timespec md_start;   /* md_top's mtime just after rank 0 made it (find's "newer than"), every rank's */
    struct known_file *known;   /* rank 0, under --timeout: what each stream created */
    uint64_t kept_xfers;        /* over a kept run's data (pfs_kept_reads): the transfers each stream's
                                 * file holds, from its status (rank 0's check, then every rank's) */
    uint64_t kept_md_files;     /* over a kept run's small files: each stream's, from its status (rank 0's
                                 * check, then every rank's); 0: no status says, -n */
    struct pfs_fid kept_md_fid; /* rank 0: that status file, removed with the tree when it says only that */
    int kept_md_only;
};

/* Local. Nothing held: no lock, no directory open. */
void drv_files_init(struct drv_files *f);
/* Local. What it holds in memory goes (the descriptors are closed by then). */
void drv_files_fini(struct drv_files *f);

#endif
