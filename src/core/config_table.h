/* The option table and the small tables beside it, shared by config.c
 * (parser, --help, describe), config_json.c (--list-options=json) and the
 * phases' checks (src/core/phases/). Private to src/core. */
#ifndef PFS_CONFIG_TABLE_H
#define PFS_CONFIG_TABLE_H

#include <stddef.h>

#include "pfs/config.h"
#include "pfs/option.h"

/* The core's short names of the row types (pfs/option.h). */
#define T_FLAG PFS_OPT_FLAG
#define T_SIZE PFS_OPT_SIZE
#define T_SIZE0 PFS_OPT_SIZE0
#define T_INT PFS_OPT_INT
#define T_DOUBLE PFS_OPT_DOUBLE
#define T_STRING PFS_OPT_STRING
#define T_PHASES PFS_OPT_PHASES
#define T_CHOICE PFS_OPT_CHOICE
#define T_HINT PFS_OPT_HINT
#define T_ACTION PFS_OPT_ACTION

/* The core's option table. With every backend's rows, at most PFS_OPT_MAX
 * (the parser's arrays; tests/unit/test_backends.c checks). */
#define PFS_OPT_MAX 128
extern const struct pfs_opt pfs_opt_table[];
extern const size_t pfs_opt_count;

/* config_rows.c: every option row, the core's and the backends'. */

/* Rows in all: the core's table (rows 0 .. pfs_opt_count - 1, in its
 * order), then each registry line's backend's own, in registry order. */
size_t pfs_opt_total(void);
/* The i-th row (NULL past the end); *api is -1 for the core's, else the
 * registry line whose backend owns the row. */
const struct pfs_opt *pfs_opt_at(size_t i, int *api);
/* The row named name, in any table, or NULL; *api as pfs_opt_at. */
const struct pfs_opt *pfs_opt_find(const char *name, int *api);
/* The struct a row's offset is in: cfg for the core's rows (api -1); for
 * a backend's, cfg's options block when api is the chosen line, else that
 * line's defaults, made in scratch (PFS_BACKEND_OPTS_MAX bytes). */
const void *pfs_opt_base(const struct pfs_config *cfg, int api, void *scratch);
/* Registry line api's options struct with every row's default in block
 * (PFS_BACKEND_OPTS_MAX bytes, zeroed first; all zero for a line without
 * options). */
void pfs_opt_defaults(int api, void *block);
/* Parses arg into row o's field in base (cfg for the core's rows, which
 * some types need; NULL for a backend's). 0, or -1 with err set. */
int pfs_opt_set(const struct pfs_opt *o, const char *arg, struct pfs_config *cfg, void *base, char *err, size_t len);

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
size_t pfs_opt_choice(const struct pfs_opt *o, int idx, const char **name);

/* The row's choices as "a|b|c" in buf (truncated to len). */
const char *pfs_opt_choices_text(const struct pfs_opt *o, char *buf, size_t len);

/* Row o's value in base (pfs_opt_base) as describe writes it, like
 * snprintf; cfg for the core's list rows (phases, hints). */
size_t pfs_opt_value(const struct pfs_opt *o, const void *base, const struct pfs_config *cfg, char *buf, size_t len);

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

/* 1 when the option named name (its long name) was given: given[row]. */
int pfs_opt_given(const unsigned char *given, const char *name);

/* Appends one warning line to cfg->warnings, unless it is there already. */
void pfs_config_warn(struct pfs_config *cfg, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
