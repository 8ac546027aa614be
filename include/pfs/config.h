/* pfsbench configuration: the options, their parser and their validation.
 * Pure: no MPI, no HDF5. Every rank parses argv the same way, so every rank
 * reaches the same verdict; only rank 0 prints it. */
#ifndef PFS_CONFIG_H
#define PFS_CONFIG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "pfs/option.h"
#include "pfs/phase.h"

#define PFS_PATH_MAX 1024
#define PFS_MAX_PHASES 16
#define PFS_MAX_HINTS 16
#define PFS_ERRLEN 2048 /* a message may list every unknown option, one line each */
#define PFS_WARNLEN 1024

/* Exit statuses, documented in docs/usage.md. */
enum {
    PFS_EXIT_OK = 0,
    PFS_EXIT_IO = 1,      /* an I/O error or a verification mismatch */
    PFS_EXIT_USAGE = 2,   /* bad input: nothing was created */
    PFS_EXIT_TIMEOUT = 3, /* the --timeout watchdog fired */
};

enum pfs_dirs { PFS_DIRS_SHARED, PFS_DIRS_PER_RANK };
enum pfs_format { PFS_FORMAT_TEXT, PFS_FORMAT_JSON, PFS_FORMAT_CSV, PFS_FORMAT_IOR, PFS_FORMAT_MDTEST };
enum pfs_units { PFS_UNITS_MIB, PFS_UNITS_KB, PFS_UNITS_MB, PFS_UNITS_GB };

enum pfs_shared_layout { PFS_LAYOUT_SEGMENTED, PFS_LAYOUT_STRIDED };
enum pfs_sync { PFS_SYNC_NONE, PFS_SYNC_DSYNC, PFS_SYNC_SYNC };

struct pfs_config {
    char dir[PFS_PATH_MAX];
    char file_name[PFS_PATH_MAX]; /* --file-name: the data files' path (IOR's -o); "": pfsbench.ID.N in dir */
    char stonewall_file[PFS_PATH_MAX]; /* --stonewall-file: IOR's stoneWallingStatusFile; "": none */
    int file_per_rep;       /* --file-per-rep: with file_name, .REP after each name (IOR's -m) */
    int shared;             /* 1: one file for all ranks; 0: file per process */
    int layout;             /* enum pfs_shared_layout, shared file only */
    int segments;           /* the block in this many segments; shared: segment k of every stream, then k+1 (IOR's -s) */
    uint64_t transfer;      /* bytes per I/O call */
    uint64_t block;         /* bytes per rank (resolved from total when given) */
    uint64_t total;         /* bytes over all ranks (0: not given) */
    int block_given;        /* -b on the command line */
    int phases[PFS_MAX_PHASES];
    int nphases;
    int reps;               /* repetitions of the phase list; 0: auto (until every phase's 95% CI is within ci) */
    double ci;              /* --reps auto: the target half-width of the 95% CI, percent of the mean */
    int max_reps;           /* --reps auto: at most this many measured repetitions */
    int warmup;             /* repetitions run first and stored, left out of the statistics */
    double rep_delay;       /* seconds every rank sleeps between two repetitions, untimed (IOR's -d); 0: none */
    int fsync;
    int rmw;                /* rewrite: read, change and write back each transfer (bonnie++'s rewrite) */
    int fsync_every;        /* write phases: fsync after every N transfers of a stream (0: none) */
    int seeks;              /* the seeks phase: seeks over all streams (bonnie++'s 8000) */
    int sync_mode;          /* enum pfs_sync: O_DSYNC / O_SYNC on the data files */
    int keep;
    int verbose;
    int direct;
    int drop_caches;
    int verify;
    int random;             /* visit each rank's transfers in a seeded permutation */
    char random_dist[48];   /* --random-dist: fio's random_distribution for the random phases' offsets ("": none) */
    int buffer_compress;    /* --buffer-compress: percent of each 512-byte chunk written as zeros (0: none) */
    int dedupe;             /* --dedupe: percent of the transfers written that repeat another (0: none) */
    int rwmix;              /* --rwmix: the rwmix phase's reads, percent of its transfers (default 50) */
    char bssplit[256];      /* --bssplit: fio's transfer-size mix, SIZE/PCT:... (pfs/dist.h); "": -t alone */
    double deadline;        /* stonewall seconds, 0: off */
    double runtime;         /* data phases run this many seconds, wrapping around the block; 0: off */
    double ramp;            /* data phases: each stream's first seconds, left out of the figures; 0: off */
    int reorder;            /* read the file another node wrote */
    int reorder_nodes;      /* with reorder: the node that many nodes on (IOR's -Q; 1: any other node) */
    int reorder_seed;       /* with reorder: a permutation of this seed says whose data each rank reads (IOR's -Z -X); -1: the shift */
    int api;                /* the line of --api's backend in the registry (src/backends/backends.def) */
    int collective;         /* MPI-IO _all calls */
    char hints[PFS_MAX_HINTS][128];
    int nhints;
    char results[PFS_PATH_MAX];
    int no_results;
    int ceilings;           /* --ceilings: measure the clients' ceilings before the phases */
    char label[128];
    char run_id[64];        /* empty: made up by rank 0 */
    uint64_t run_token;     /* no option: drawn by rank 0 with the run's id, in its lock file; a backend whose
                             * data are objects marks each it makes with it, --clean's proof (pfs/clean.h) */
    double straggler;       /* flag nodes below this fraction of the median node */
    int quiet;
    int iozone_lines;       /* --iozone-lines: IOzone's throughput lines after the text report */
    int threads;            /* I/O threads per rank: streams = ranks x threads */
    int iodepth;            /* transfers in flight per stream with a PFS_CAP_ASYNC backend (1: one at a time) */
    int files;              /* metadata phases: files per stream */
    uint64_t file_size;     /* metadata phases: bytes in each file (0: empty) */
    int dirs;               /* enum pfs_dirs */
    int md_random;          /* metadata phases visit names in a seeded random order */
    int md_depth;           /* metadata phases: a tree of this depth under each stream's directory (0: flat) */
    int md_branch;          /* children of each directory of the tree */
    int md_leaf_only;       /* files in the tree's leaves only (mdtest -L); 0: in every directory */
    int format;             /* enum pfs_format of the summary on stdout */
    int units;              /* enum pfs_units of bandwidth figures */
    int progress;           /* force the live progress line */
    double timeout;         /* per-phase watchdog seconds, 0: off */
    int force;              /* accept a world-writable DIR without the sticky bit */
    int clean;              /* --clean: list (and with --yes remove) leftovers in DIR */
    int yes;
    int any_owner;          /* --clean: also other users' leftovers */
    double stall_warn;      /* seconds a call may block before it is warned about */
    double interval;        /* seconds per interval of the time series (the base; coarsened past the cap) */
    int exemplars;          /* the slowest operations kept per phase and repetition, job-wide (0: none) */
    char job[PFS_PATH_MAX]; /* -f: a job file to run instead (pfs/jobfile.h) */
    int stop_on_error;      /* with -f */
    char ranks[PFS_PATH_MAX]; /* --ranks: a rank sweep's points ("" : none) */
    /* The checkpoint phases (src/core/phases/ckpt.c, pfs/ckpt.h). */
    char ckpt[32];          /* --ckpt: a preset's name ("": none) */
    int ckpt_tp, ckpt_pp, ckpt_dp; /* this run's degrees; 0: the preset's (DP: ranks / (TP x PP)) */
    int ckpt_zero;          /* ZeRO stage 0..3; -1: the preset's */
    int ckpt_layout;        /* enum pfs_ckpt_layout */
    int ckpt_restore;       /* enum pfs_ckpt_policy */
    char ckpt_saved[32];    /* --ckpt-saved TPxPPxDP: the degrees the kept checkpoint was saved with ("": this run's) */
    /* Open-loop rates of the data phases (pfs/sched.h). */
    char rate[32];          /* --rate: operations/s, or bytes/s with a size unit (pfs_rate_parse); "": closed loop */
    int rate_scope;         /* enum pfs_rate_scope: per stream, or the job's split over the streams */
    int arrivals;           /* enum pfs_arrivals: fixed or poisson */
    char lat_target[32];    /* --latency-target: "p99=2ms" (pfs_lat_goal_parse); "": none */
    char rate_sweep[256];   /* --rate-sweep: rates or percentages, a repetition each (pfs/ratesweep.h); "": none */
    /* The training-read phases (src/core/phases/train.c, pfs/train.h); fits()
     * resolves the preset's values into those left at their defaults. */
    char train[32];         /* --train: a preset's name ("": none) */
    int train_files, train_records; /* F files of R samples; 0: the preset's */
    uint64_t train_sample;  /* S bytes a sample; 0: the preset's */
    int train_batch;        /* B samples a batch; 0: the preset's */
    double train_compute;   /* C ms of an accelerator's compute a batch; -1: the preset's */
    int train_epochs;       /* E; 0: the preset's */
    int accelerators;       /* emulated accelerators per rank (default 1) */
    int prefetch;           /* batches read ahead of the accelerators (default 2) */
    int find_max_acc;       /* --find-max-accelerators: train searches the most per rank that keep the gate */
    double au_gate;         /* the AU gate, percent; 0: the preset's */
    /* What the parser and resolve warn of (an option that does nothing in
     * the chosen phases, a transfer under 512 bytes, hours of transfers):
     * newline-separated lines; rank 0 prints them on stderr and the run
     * stores them with its own warnings. */
    char warnings[PFS_WARNLEN];
    /* The chosen backend's own options: its options struct (src/backends),
     * filled by its option table; opaque to the core, which holds no
     * backend's fields (pfs_config_backend_opts). */
    _Alignas(16) unsigned char backend_opts[PFS_BACKEND_OPTS_MAX];
};

/* Local. --buffer-compress or --dedupe: the writes fill their buffers
 * with pfs/content.h's content (0: the plain pattern, with --verify only). */
static inline int pfs_config_content(const struct pfs_config *cfg)
{
    return cfg->buffer_compress > 0 || cfg->dedupe > 0;
}

/* Local. The options struct of cfg->api's backend, laid out by its option
 * table (struct pfs_backend_options): the backend's own to read. */
static inline const void *pfs_config_backend_opts(const struct pfs_config *cfg)
{
    return cfg->backend_opts;
}

/* What parsing asks the caller to do next. */
enum pfs_parse_result {
    PFS_PARSE_RUN = 0,
    PFS_PARSE_HELP,
    PFS_PARSE_VERSION,
    PFS_PARSE_ERROR,
    PFS_PARSE_LIST_OPTIONS, /* --list-options=json: rank 0 calls pfs_config_list_json, all exit 0 */
    PFS_PARSE_JOB,          /* -f JOBFILE: run its sections (cfg->job, cfg->stop_on_error) */
};

/* Local. Fills cfg with defaults. */
void pfs_config_defaults(struct pfs_config *cfg);

/* Local. Appends line (no newline) and a newline to the newline-separated
 * list of cap bytes; room is kept for a last line saying that further
 * warnings were left out, which ends the list once a line no longer fits
 * whole (the run's and the parser's warnings). */
void pfs_warn_append(char *list, size_t cap, const char *line);

/* Local. The parser's way to refuse: the message into err (len bytes),
 * and -1 to return. */
int pfs_fail(char *err, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Local. Parses argv into cfg (defaults first). On PFS_PARSE_ERROR, err holds
 * one sentence saying what is wrong and what to do, or, when several
 * options are unknown or malformed, a line saying so and one indented line
 * each (with the long option meant, or IOR's, mdtest's or IOzone's meaning
 * of the letter and pfsbench's equivalent). On PFS_PARSE_RUN, cfg->warnings
 * holds what it warns of. Does not touch the file system. Reentrant only
 * in the sense that it resets getopt between calls. */
enum pfs_parse_result pfs_config_parse(struct pfs_config *cfg, int argc, char **argv,
                                       char *err, size_t errlen);

/* Local. The repetitions a run may record: the warm-up ones and the
 * measured ones (--max-reps of them under --reps auto). Every allocation
 * and loop over repetitions is sized by it; cfg->reps stays the user's value
 * (0: auto), so a described or stored command line parses to the same. */
int pfs_config_rep_slots(const struct pfs_config *cfg);

/* Local. Checks what depends on the rank count: resolves block (per stream:
 * rank x thread) from --total, checks divisibility. 0 or -1 with err set.
 * Warns (cfg->warnings) of more than 1e8 transfers per stream. */
int pfs_config_resolve(struct pfs_config *cfg, int nranks, char *err, size_t errlen);

/* Local. Checks DIR exists, is a directory, is writable, is not a dangling
 * link. 0 or -1 with err set. Touches nothing. */
int pfs_config_check_dir(const struct pfs_config *cfg, char *err, size_t errlen);

/* Local. Formats bytes as the largest exact 1024-based unit (e.g. "256 MiB"). */
void pfs_format_size(uint64_t bytes, char *buf, size_t len);

/* Local. Checks an MPI-IO hint "key=value" against the ROMIO/OMPIO hints
 * pfsbench knows: 1 known and well-formed, 0 unknown key (passed through),
 * -1 a known key with a bad value (err says which values it takes). */
int pfs_hint_known(const char *kv);
int pfs_hint_check(const char *kv, char *err, size_t errlen);

/* Local. The directories of one --depth/--branch tree: the sum of branch^k
 * for k = 1 .. depth (0 without --depth), UINT64_MAX past 2^62. */
uint64_t pfs_config_tree_dirs(const struct pfs_config *cfg);

/* What of an earlier run's kept metadata (-k) the phase list starts from,
 * with --run-id: its files (the first file phase is not create) and, with
 * --depth, its tree's directories (the first metadata phase is not mkdir);
 * mdtest's -T or -r without -C. 0 without --run-id. */
enum { PFS_MD_KEPT_FILES = 1, PFS_MD_KEPT_TREE = 2 };
unsigned pfs_config_md_kept(const struct pfs_config *cfg);
/* Local. 1 when phase is in cfg's -p list. */
int pfs_config_has_phase(const struct pfs_config *cfg, int phase);

/* Local. The bandwidth unit chosen with --units: its label ("MiB/s") and
 * the bytes/s it stands for. */
const char *pfs_units_label(int units);
double pfs_units_scale(int units);

/* Local. 1 when name is a file pfsbench makes: pfsbench.<run-id>.<stream>,
 * pfsbench.<run-id>.shared or a run's lock pfsbench.<run-id>.lock (what
 * --clean may remove), exactly as pfs/names.h formats them. Defined in
 * src/core/names.c. */
int pfs_is_leftover_name(const char *name);

/* Local. Prints the option table as --help. */
void pfs_config_usage(FILE *out);

/* Local. Writes "key=value" lines for every resolved option (for the results
 * file and the report header), walking the option table in its keys' order;
 * returns the number of bytes needed, like snprintf. */
size_t pfs_config_describe(const struct pfs_config *cfg, char *buf, size_t len);

/* One described option with its value typed as its table row says (the
 * results file's one attribute per option). */
enum pfs_field_type { PFS_FIELD_STR, PFS_FIELD_INT, PFS_FIELD_U64, PFS_FIELD_DBL };
struct pfs_field {
    const char *key;        /* the describe key */
    const char *unit;       /* "bytes", "seconds", "fraction" or NULL */
    enum pfs_field_type type;
    long long i;            /* PFS_FIELD_INT */
    uint64_t u;             /* PFS_FIELD_U64 */
    double d;               /* PFS_FIELD_DBL */
    const char *s;          /* the value as describe writes it (every type) */
};

/* Calls fn once per described option, in describe's order; stops at the
 * first nonzero return and returns it (0 when all returned 0). */
int pfs_config_fields(const struct pfs_config *cfg, int (*fn)(void *arg, const struct pfs_field *f), void *arg);

/* Local. --list-options=json: one JSON document with the options (long and
 * short name, takes_value, type, default, min/max, choices, the describe
 * key, unit, help; one option per line, long, short and takes_value first),
 * the phases and their descriptor fields, the bandwidth units, the size
 * syntax, the exit codes and the file names. docs/usage.md describes it. */
void pfs_config_list_json(FILE *out);

#endif
