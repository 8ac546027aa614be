/* --file-name's data files (IOR's -o): the user's names, checked before a
 * run makes anything. A write makes them anew (O_EXCL) and so refuses a
 * name already there; a list without write reads what is there (files IOR
 * wrote too) and never modifies or removes them. */
#ifndef PFS_USERFILES_H
#define PFS_USERFILES_H

#include <stddef.h>
#include <stdint.h>

#include "pfs/config.h"

/* Local (rank 0, before the run's lock). For a run with --file-name over
 * nstreams streams: when its list writes (writes != 0), none of its data
 * files may be there; else each must be a regular file holding at least
 * what the run reads of it: the block per stream, or with xfers > 0 (a
 * --stonewall-file's count) that many transfers per stream. Returns 0, or
 * -1 with the reason in err. */
int pfs_user_files_check(const struct pfs_config *cfg, int nstreams, int writes, uint64_t xfers, char *err, size_t len);

#endif
