/* The option table and the small tables beside it, shared by config.c
 * (parser, --help, describe) and config_json.c (--list-options=json).
 * Private to src/core. */
#ifndef PFS_CONFIG_TABLE_H
#define PFS_CONFIG_TABLE_H

#include <stddef.h>

#include "pfs/config.h"

enum opt_type { T_FLAG, T_SIZE, T_SIZE0, T_INT, T_DOUBLE, T_STRING, T_PHASES, T_CHOICE, T_HINT, T_ACTION };

struct opt {
    const char *name;
    int shrt;               /* 0: long only */
    enum opt_type type;
    size_t off;             /* offsetof the field in struct pfs_config */
    double min, max;        /* T_INT, T_DOUBLE */
    const char *choices;    /* T_CHOICE: "a|b", index stored; T_FLAG: value stored */
    const char *arg;
    const char *help;
    /* How the value is described (pfs_config_describe, the results file,
     * --list-options=json); rows without a key are not described. */
    const char *key;        /* the key of "key=value" */
    int pos;                /* its place among the described keys, from 1 (the results files' order) */
    const char *unit;       /* of the value: "bytes", "seconds", "fraction", "percent"; NULL: none */
    const char *vals;       /* T_FLAG: names of the field's values, "a|b" (NULL: the number); T_ACTION: the constant;
                             * T_INT: a word the option also takes, stored as 0 and described so ("auto") */
    size_t blank;           /* BLANK(f): described empty while int field f is set; 0: never */
    int registry;           /* T_CHOICE whose choices are the backend registry's (--api): choices is NULL */
    const char *api;        /* the backend that owns the option (its --api name): refused with any other */
};

/* The option table's rows, at most PFS_OPT_MAX (the parser's arrays). */
#define PFS_OPT_MAX 96
extern const struct opt pfs_opt_table[];
extern const size_t pfs_opt_count;

struct pfs_unit_row {
    const char *name; /* as --units takes it */
    const char *label;
    double scale;     /* bytes per second of one unit */
};
extern const struct pfs_unit_row pfs_units_table[];
extern const int pfs_units_count;

struct pfs_exit_row {
    int code;
    const char *meaning;
};
extern const struct pfs_exit_row pfs_exit_table[];
extern const size_t pfs_exit_count;
extern const char *const pfs_exit_signals[]; /* those that end a run with 128+N */
extern const size_t pfs_exit_nsignals;

/* The idx-th name of "a|b|c": its length, with *name; 0 when there is none. */
size_t pfs_opt_choice_name(const char *choices, int idx, const char **name);

/* The idx-th choice of a T_CHOICE row or of an action that takes a value
 * (its table string, or the backend registry's names): as pfs_opt_choice_name. */
size_t pfs_opt_choice(const struct opt *o, int idx, const char **name);

/* The row's choices as "a|b|c" in buf (truncated to len). */
const char *pfs_opt_choices_text(const struct opt *o, char *buf, size_t len);

/* The option's value in cfg as describe writes it, like snprintf. */
size_t pfs_opt_value(const struct opt *o, const struct pfs_config *cfg, char *buf, size_t len);

/* config_check.c, for config.c's parser. */

/* A letter pfsbench does not take that IOR, mdtest or IOzone do: what it
 * meant there and the pfsbench equivalent. */
struct pfs_trap {
    int letter;
    int takes_value;  /* in its tool: here an attached value only (-T10) */
    const char *hint;
};
extern const struct pfs_trap *const pfs_traps;
extern const size_t pfs_ntraps;
const struct pfs_trap *pfs_trap_find(int letter);

/* The long option nearest to word ("--treads", "verfy=1"), or NULL when none is near. */
const char *pfs_opt_nearest(const char *word);

/* 1 when name ends in .h5, .hdf5 or .he5 (any case). */
int pfs_results_name_ok(const char *name);

/* What a run's options must agree on (after the actions and --clean). 0 or -1 with err. */
int pfs_check_run(const struct pfs_config *cfg, int total_given, char *err, size_t len);

/* Warnings (into cfg->warnings) for options given (given[row]) that do
 * nothing with the chosen phases, and for a transfer under 512 bytes. */
void pfs_check_unused(struct pfs_config *cfg, const unsigned char *given);

/* Appends one warning line to cfg->warnings, unless it is there already. */
void pfs_config_warn(struct pfs_config *cfg, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
