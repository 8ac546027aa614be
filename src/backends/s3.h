/* --api s3's private declarations: its options (s3_options.c, in the core:
 * the parser, --help and describe need them in every run) for the module
 * (s3.c, libpfs_s3.so, which only a run choosing it loads). The keys are
 * no option: they come from the environment (S3_ACCESS_KEY_ID,
 * S3_SECRET_ACCESS_KEY, as libs3's s3 tool reads them) or from the file
 * --s3-key-file names, so they reach neither a command line nor the
 * results file. Private to src/backends. */
#ifndef PFS_BACKEND_S3_H
#define PFS_BACKEND_S3_H

#include "pfs/backend.h"

/* What the option table fills (at most PFS_BACKEND_OPTS_MAX bytes). */
struct pfs_s3_opts {
    char endpoint[64]; /* --s3-endpoint HOST:PORT; "" = $S3_HOSTNAME */
    char bucket[64];   /* --s3-bucket: required, it must exist */
    char keyfile[120]; /* --s3-key-file: "" = the environment's keys */
    int https;         /* --s3-https: 1 = HTTPS (default plain HTTP) */
};

#define PFS_S3_HELP "S3 objects through libs3: one object per stream in --s3-bucket, written by one streamed PUT, " \
                    "read by ranged GETs (a module)"

extern const struct pfs_backend_options pfs_s3_options;

#endif
