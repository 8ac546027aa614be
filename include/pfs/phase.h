/* A phase as data, as fio makes its engines data: one ops structure per
 * phase, defined in its family's file under src/core/phases/ (data.c:
 * write, rewrite, read, reread, rwmix; seeks.c; files.c: create, stat,
 * read-files, find, delete; tree.c: mkdir, stat-dirs, rmdir; ckpt.c:
 * ckpt-save, ckpt-restore; train.c: train-gen, train) and listed
 * once in pfs/phases.def. The -p list and its help, --list-options=json,
 * the ordering rules, the per-stream work count, the units of the report
 * and of the progress line, the checks of the options and the untimed
 * work the run driver does around a phase all read it from there: no code
 * outside a phase's own file tests which phase it is, only what its ops
 * say. Pure: no MPI, no HDF5. Every function here is local. */
#ifndef PFS_PHASE_H
#define PFS_PHASE_H

#include <stddef.h>
#include <stdint.h>

struct pfs_config;
struct pfs_backend;
struct pfs_stream;
struct pfs_phase_ctx;

enum pfs_phase {
#define PFS_PHASE(ID, ops) PFS_PH_##ID,
#include "pfs/phases.def"
#undef PFS_PHASE
    PFS_PH_KINDS
};

/* data: bytes and bandwidth; metadata: files (or directories) per second. */
enum pfs_phase_kind { PFS_PHASE_DATA, PFS_PHASE_META };
#define PFS_PHASE_ANY (-1) /* pfs_phase_listed, pfs_phase_names: either kind */

/* What a phase does, for the code that must know it without asking which
 * phase it is. */
enum {
    PFS_PHF_READS = 1u << 0,      /* reads file content */
    PFS_PHF_WRITES = 1u << 1,     /* writes file content */
    PFS_PHF_CREATES = 1u << 2,    /* makes the files (or with DIRS the directories) it works on */
    PFS_PHF_REMOVES = 1u << 3,    /* removes them */
    PFS_PHF_OTHERS = 1u << 4,     /* -C applies: works on files a stream on another node made */
    PFS_PHF_STONEWALL = 1u << 5,  /* -D applies */
    PFS_PHF_SETS_COUNT = 1u << 6, /* under -D, the count it reaches is what later phases work on */
    PFS_PHF_DIRS = 1u << 7,       /* works on the directories of the --depth tree, not on files */
    PFS_PHF_WEARS_OUT = 1u << 8,  /* under -D, streams go on to the largest count any reached (seeks: no
                                   * content depends on their count, so they stop at the wall) */
    PFS_PHF_RMW = 1u << 9,        /* --rmw applies: each transfer read, changed and written back */
    PFS_PHF_SYNCS = 1u << 10,     /* --fsync-every applies */
    PFS_PHF_SIZED = 1u << 11,     /* checks each file's size against --file-size */
    PFS_PHF_WALKS = 1u << 12,     /* walks the directories itself (readdir, lstat: POSIX whatever --api);
                                   * a stream's current item is a directory of its tree */
    PFS_PHF_MATCHES = 1u << 13,   /* counts the files that match (IO500's find): the run sums the streams' */
    PFS_PHF_OWN_FILES = 1u << 14, /* a data phase on files of its own (the checkpoint's), not the streams'
                                   * data files: none of their rules (order, kept files, page cache) apply;
                                   * the report names its slowest stream */
    PFS_PHF_ACCEL = 1u << 15,     /* feeds emulated accelerators (train): the accelerator-utilisation
                                   * figures apply */
    PFS_PHF_MIXES = 1u << 16,     /* each transfer a read or a write, drawn (--rwmix): counted and timed per
                                   * direction besides together */
};

/* What a phase's rate counts: the report's headers, the progress line. */
enum pfs_phase_unit { PFS_UNIT_BYTES, PFS_UNIT_FILES, PFS_UNIT_DIRS, PFS_UNIT_SEEKS };

/* What the untimed hooks around a phase work on: this rank's streams and
 * the repetition about to run (the run driver fills it, src/mpi/phases.c). */
struct pfs_phase_env {
    const struct pfs_config *cfg;
    const struct pfs_backend *be;
    void *bectx;
    struct pfs_stream *streams;  /* this rank's */
    int nthreads;                /* how many */
    int rank;
    int lowest_on_node;          /* the lowest rank of its node (it may drop the node's cache) */
    int dir_fd;                  /* DIR, held open since the run's start */
    int rep;                     /* the repetition about to run */
    int dropped;                 /* out: this rank wrote /proc/sys/vm/drop_caches */
    /* A failure, named as the driver names its own (it keeps the first). */
    void (*fail)(void *arg, const char *op, const char *path, int err, const char *detail);
    void *arg;
};

struct pfs_phase_ops {
    const char *name;            /* as -p, the report and the results file spell it */
    const char *iozone;          /* IOzone's name of the test in its throughput lines ("initial writers";
                                  * pfs/report_iozone.h), NULL: IOzone has none */
    enum pfs_phase_kind kind;
    unsigned flags;              /* PFS_PHF_* */
    enum pfs_phase_unit unit;
    int needs;                   /* the phase that must come earlier in the list, -1: none (a data
                                  * phase may instead work on a kept run's files, --run-id) */
    const char *op;              /* what its calls do, for error messages ("open, read and close") */
    const char *help;
    /* The items one stream works on, given the counts p holds (transfers,
     * seeks, files, directories): its loop runs to it, the progress line
     * adds it up over the streams. */
    uint64_t (*work)(const struct pfs_phase_ctx *p, int stream);
    /* The timed work of one stream: fills s->t and, on failure, s->fail. */
    void (*run)(const struct pfs_phase_ctx *p, struct pfs_stream *s);
    /* Optional. What the options must agree on when the phase is in the
     * list: 0, or -1 with err set. */
    int (*check)(const struct pfs_config *cfg, char *err, size_t len);
    /* Optional. Warnings (pfs_config_warn) of options given (given[row of
     * the option table]) that do nothing with or without it (listed). */
    void (*warn)(struct pfs_config *cfg, const unsigned char *given, int listed);
    /* Optional, when in the list. Warnings once the stream count is known. */
    void (*resolve)(struct pfs_config *cfg, uint64_t streams);
    /* Optional. Untimed, before each repetition of the phase, on every rank. */
    void (*before)(struct pfs_phase_env *e);
    /* Optional, when in the list. What the stream count must agree on:
     * 0, or -1 with err set (the run is refused, nothing made). */
    int (*fits)(struct pfs_config *cfg, uint64_t streams, char *err, size_t len);
    /* Optional. A line of the report's header on what it works on (the
     * checkpoint's geometry), its 13-column label first; its length. */
    size_t (*header)(const struct pfs_config *cfg, int nranks, char *buf, size_t len);
    /* Optional, when in the list. Untimed, at the run's end on every rank:
     * removes the files it made (not with -k); the count it could not. */
    int (*finish)(struct pfs_phase_env *e);
};

/* The phase's ops (NULL out of range); a phase by name (len bytes of name,
 * -1 when none); 1 when it has all of flags. */
const struct pfs_phase_ops *pfs_phase_desc(int phase);
int pfs_phase_find(const char *name, size_t len);
int pfs_phase_has(int phase, unsigned flags);

/* pfs_phase_name is "?" out of range. is_read and is_write are of data
 * phases only (read, reread, seeks; write, rewrite, seeks): a metadata
 * phase that reads or writes small files is neither, nor is a phase on
 * files of its own (OWN_FILES: the checkpoint's). */
const char *pfs_phase_name(int phase);
int pfs_phase_is_read(int phase);
int pfs_phase_is_write(int phase);
int pfs_phase_is_meta(int phase);

/* Its unit ("bytes", "files", "dirs", "seeks") and that per second. */
const char *pfs_phase_unit_name(int phase);
const char *pfs_phase_rate_unit(int phase);

/* 1 when cfg's list holds a phase of kind (PFS_PHASE_ANY: either) with all
 * of flags and none of without. */
int pfs_phase_listed(const struct pfs_config *cfg, int kind, unsigned flags, unsigned without);

/* The names of the registry's phases of kind with all of flags and none of
 * without, in its order, joined by sep ("write, rewrite"); like snprintf. */
size_t pfs_phase_names(char *buf, size_t len, const char *sep, int kind, unsigned flags, unsigned without);

/* The default -p list into phases (PFS_MAX_PHASES at least): its length. */
int pfs_phase_defaults(int *phases);

/* The phase p->kind: one stream's work count, and its timed run. */
uint64_t pfs_phase_work(const struct pfs_phase_ctx *p, int stream);
void pfs_stream_run(const struct pfs_phase_ctx *p, struct pfs_stream *s);

/* The untimed hook before a repetition of phase (nothing when it has none). */
void pfs_phase_before(int phase, struct pfs_phase_env *e);

/* For the parser (config_check.c): each listed phase's own check, in the
 * registry's order (0 or -1 with err); the rules on the list's order
 * (a phase's needs, the --depth tree's, a kept run's metadata); the data
 * phases' order (a read before any write needs --run-id); every phase's
 * warnings; once the streams are known, the listed phases' warnings. */
int pfs_phase_checks(const struct pfs_config *cfg, char *err, size_t len);
int pfs_phase_list_check(const struct pfs_config *cfg, char *err, size_t len);
int pfs_phase_data_order(const struct pfs_config *cfg, char *err, size_t len);
void pfs_phase_warnings(struct pfs_config *cfg, const unsigned char *given);
void pfs_phase_resolved(struct pfs_config *cfg, uint64_t streams);
/* Once the streams are known: the listed phases' fits (0 or -1 with err);
 * they may resolve their own options (the checkpoint's degrees). */
int pfs_phase_fits(struct pfs_config *cfg, uint64_t streams, char *err, size_t len);
/* At the run's end, every listed phase's finish: the files left. */
int pfs_phase_finish(struct pfs_phase_env *e);

#endif
