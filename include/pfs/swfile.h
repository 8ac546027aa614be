/* --stonewall-file: IOR's stoneWallingStatusFile. A write run stonewalled
 * by -D records in it the transfers each stream reached (after the
 * wear-out every stream reached the same count); a read-only run given it
 * reads that many transfers per stream. The format is IOR's own: one
 * decimal number (IOR writes "%lld", pfsbench "%llu\n"), so a file either
 * tool wrote works with the other. */
#ifndef PFS_SWFILE_H
#define PFS_SWFILE_H

#include <stddef.h>
#include <stdint.h>

/* The most bytes a status file may hold: a number of 20 digits and some
 * white space. */
#define PFS_SWFILE_MAX 64

/* Parse n bytes of a status file: white space, a decimal count from 1 to
 * 2^62, white space, nothing else (no sign, no NUL). Returns 0 with
 * *count, or -1 with the reason in err. */
int pfs_swfile_parse(const char *text, size_t n, uint64_t *count, char *err, size_t len);

/* The file's text for count: "COUNT\n". Returns its length, or -1 when
 * buf is too small. */
int pfs_swfile_format(char *buf, size_t blen, uint64_t count);

/* Read and parse the status file at path (a regular file, the link not
 * followed, at most PFS_SWFILE_MAX bytes). Returns 0 or -1 with err. */
int pfs_swfile_read(const char *path, uint64_t *count, char *err, size_t len);

/* Refuse a status file already at path: a write run never writes over a
 * file. Returns 0 when nothing is there, else -1 with err. */
int pfs_swfile_absent(const char *path, char *err, size_t len);

/* Create the status file at path (O_EXCL, in a descriptor of its
 * directory, the last name not followed) holding count. Returns 0 or -1
 * with err; nothing is left behind on a failure of the write. */
int pfs_swfile_write(const char *path, uint64_t count, char *err, size_t len);

#endif
