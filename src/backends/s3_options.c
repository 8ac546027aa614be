/* --api s3: its options, in the core (the backend itself is a module,
 * libpfs_s3.so: s3.c). No row takes a key: they come from the environment
 * or --s3-key-file, never from the command line. */
#include "s3.h"

#include <stddef.h>

#define OFF(f) offsetof(struct pfs_s3_opts, f)
#define CAP(f) sizeof(((struct pfs_s3_opts *)0)->f)

static const struct pfs_opt rows[] = {
    {"s3-bucket", 0, PFS_OPT_STRING, OFF(bucket), 0, 0, NULL, "BUCKET",
     "the bucket the run's objects go in (required; it must exist)", .cap = CAP(bucket)},
    {"s3-endpoint", 0, PFS_OPT_STRING, OFF(endpoint), 0, 0, NULL, "ADDR",
     "the S3 server, HOST:PORT (default: $S3_HOSTNAME, as libs3's s3 tool)", .cap = CAP(endpoint)},
    {"s3-https", 0, PFS_OPT_FLAG, OFF(https), 0, 0, "1", NULL,
     "talk HTTPS to the endpoint (default: plain HTTP)", .cap = 0},
    {"s3-key-file", 0, PFS_OPT_STRING, OFF(keyfile), 0, 0, NULL, "FILE",
     "read S3_ACCESS_KEY_ID=... and S3_SECRET_ACCESS_KEY=... lines from FILE, mode 0600 or stricter "
     "(default: those variables in the environment); keys are never an option",
     .cap = CAP(keyfile)},
};

const struct pfs_backend_options pfs_s3_options = {rows, sizeof(rows) / sizeof(rows[0]), sizeof(struct pfs_s3_opts)};
_Static_assert(sizeof(struct pfs_s3_opts) <= PFS_BACKEND_OPTS_MAX, "raise PFS_BACKEND_OPTS_MAX");

const struct pfs_backend_about pfs_about_s3 = {PFS_S3_HELP, &pfs_s3_options};
