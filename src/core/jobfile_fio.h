/* fio's job-file keys in pfsbench's job files (jobfile_fio.c): the one
 * table of what each means here. Private to src/core. */
#ifndef PFS_JOBFILE_FIO_H
#define PFS_JOBFILE_FIO_H

#include <stddef.h>

#define PFS_FIO_WORDS 3   /* at most this many pfsbench words per fio key */
#define PFS_FIO_WORDLEN 4200

enum pfs_fio_result {
    PFS_FIO_UNKNOWN = -1, /* not a fio key of the table */
    PFS_FIO_OK = 0,       /* translated: *n words (0: nothing to add) */
    PFS_FIO_REFUSED = 1,  /* why says what fio meant and why pfsbench does not */
};

/* What a section's fio keys were, for the checks across keys (jobfile.c). */
enum { PFS_FIO_USED = 1, PFS_FIO_TIME_BASED = 2 };

/* Local. fio's key = val (val NULL for a bare key) as pfsbench's words
 * (--option=value) in words[0 .. *n). */
enum pfs_fio_result pfs_fio_translate(const char *key, const char *val, char (*words)[PFS_FIO_WORDLEN], int *n,
                                      char *why, size_t len);

/* Local. 1 when key, a pfsbench option too, takes fio's meaning with this
 * value (fsync = 4 is fio's every 4 writes; a bare fsync stays pfsbench's). */
int pfs_fio_overrides(const char *key, const char *val);

/* Local. Cuts a comment after a line's words, as fio takes them: `#` or
 * `;` after a blank, to the end of the line; then the blanks before it. */
void pfs_fio_cut_comment(char *s);

#endif
