/* --api s3's --clean (pfs/clean.h): the objects a dead run left in the
 * bucket, proven by the mark (RUN_META) its objects carry, the token its
 * lock file names. Private to the module (s3.c, s3_clean.c). */
#ifndef PFS_BACKEND_S3_CLEAN_H
#define PFS_BACKEND_S3_CLEAN_H

#include <libs3.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define RUN_META "pfsbench-run" /* x-amz-meta-pfsbench-run: the run's token, on the object's every PUT */

/* Local. The objects in b's bucket named as run_id's data (listed by the
 * prefix pfsbench.RUN_ID.), listed first, then each looked at alone: one
 * marked with token listed (remove: a HEAD that reads the mark, then the
 * DELETE; S3 has no delete on a condition, so the window is between the
 * two, as the run's own clean-up has it), any other named and left. Says
 * in out what it did with each, adds the failed removals to *failed;
 * returns how many it found marked, or -1 with err (the listing failed). */
int pfs_s3_clean(const S3BucketContext *b, const char *run_id, uint64_t token, int remove, FILE *out, int *failed,
                 char *err, size_t len);

#endif
