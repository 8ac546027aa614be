/* An option table row (fio's `struct fio_option`): name, type, where its
 * value goes, range, default and help. One generic parser
 * (src/core/config.c) reads every table: the core's (src/core/config_table.c,
 * whose rows are offsets in struct pfs_config) and each backend's own
 * (struct pfs_backend_options, whose rows are offsets in the backend's
 * options struct). --help, describe, the results file's attributes and
 * --list-options=json walk the same rows. Pure header. */
#ifndef PFS_OPTION_H
#define PFS_OPTION_H

#include <stddef.h>

enum pfs_opt_type {
    PFS_OPT_FLAG,   /* no value: stores atoi(choices) in an int */
    PFS_OPT_SIZE,   /* a size (pfs_parse_size) in a uint64_t */
    PFS_OPT_SIZE0,  /* the same, or 0 */
    PFS_OPT_INT,    /* an int from min to max */
    PFS_OPT_DOUBLE, /* a double from min to max */
    PFS_OPT_STRING, /* text in a char array */
    PFS_OPT_PHASES, /* the core's -p list */
    PFS_OPT_CHOICE, /* one of choices "a|b|c", its index in an int */
    PFS_OPT_HINT,   /* the core's repeatable --hint key=value */
    PFS_OPT_ACTION, /* --help, --version, --list-options: does, stores nothing */
};

struct pfs_opt {
    const char *name;
    int shrt;               /* 0: long only (a backend's options are) */
    enum pfs_opt_type type;
    size_t off;             /* offsetof the field in struct pfs_config, or in the backend's options struct */
    double min, max;        /* PFS_OPT_INT, PFS_OPT_DOUBLE */
    const char *choices;    /* PFS_OPT_CHOICE: "a|b", index stored; PFS_OPT_FLAG: value stored */
    const char *arg;        /* the value's name in --help ("SIZE"); NULL: none */
    const char *help;
    /* How the value is described (pfs_config_describe, the results file,
     * --list-options=json); rows without a key are not described. */
    const char *key;        /* the key of "key=value" */
    int pos;                /* its place among the described keys, from 1 (the results files' order) */
    const char *unit;       /* of the value: "bytes", "seconds", "fraction", "percent"; NULL: none */
    const char *vals;       /* PFS_OPT_FLAG: names of the field's values, "a|b" (NULL: the number);
                             * PFS_OPT_ACTION: the constant; PFS_OPT_INT: a word the option also takes,
                             * stored as 0 and described so ("auto") */
    size_t blank;           /* the core's: described empty while int field blank - 1 is set; 0: never */
    int registry;           /* PFS_OPT_CHOICE whose choices are the backend registry's (--api) */
    const char *def;        /* a backend's row: its default as the option takes it ("4k"); NULL: zero */
    size_t cap;             /* a backend's PFS_OPT_STRING: the bytes of its char array */
};

/* The bytes a backend's options struct may take in struct pfs_config. */
#define PFS_BACKEND_OPTS_MAX 256

/* A backend's own options (fio's `.options`, IOR's get_options): its rows,
 * each an offset in its struct of size bytes. The generic parser fills that
 * struct, from the rows' defaults and the command line, once --api names
 * the backend, and keeps it in struct pfs_config (pfs_config_backend_opts).
 * Rows take flags, sizes, numbers, choices and strings, never a short
 * letter; their names and describe keys are the backend's (--hdf5-chunk,
 * hdf5_chunk) and unique among every table's. */
struct pfs_backend_options {
    const struct pfs_opt *rows;
    size_t count;
    size_t size; /* sizeof the backend's options struct, at most PFS_BACKEND_OPTS_MAX */
};

#endif
