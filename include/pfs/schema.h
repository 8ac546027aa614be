/* The results schema: every compound type, per-phase dataset and phase
 * attribute of the results file, and the per-repetition figures of the
 * JSON and CSV reports, as one set of tables (name, type, unit, meaning,
 * and where the value is in its C struct). The HDF5 types and datasets
 * (src/results), the reports' figure columns (report_json.c,
 * report_csv.c), --list-options=json's "schema" and the tables of
 * docs/results-format.md (scripts/results_doc.py) all follow it. Pure: no
 * HDF5, no MPI. */
#ifndef PFS_SCHEMA_H
#define PFS_SCHEMA_H

#include <stddef.h>
#include <stdint.h>

/* A value's type in the file (and in its C struct, unless said). */
enum pfs_sch_type {
    PFS_SCH_INT32,
    PFS_SCH_INT64,
    PFS_SCH_UINT32,
    PFS_SCH_UINT64,
    PFS_SCH_FLOAT64,
    PFS_SCH_STRING,
    PFS_SCH_RECORD, /* a compound, laid out as the table its field's compound names */
};

/* Where a field's values are. */
enum pfs_sch_from {
    PFS_SCH_MEMBER,     /* a member of the table's C struct, at offset: a compound's field */
    PFS_SCH_REP,        /* a [R] dataset: the member at offset of each repetition's figures (struct pfs_rep_figs) */
    PFS_SCH_REP_NODE,   /* a [R][K] dataset: of each repetition's figures, the array whose pointer is at
                         * offset: of each of its K elements (stride bytes), the member at sub */
    PFS_SCH_REP_STREAM, /* a [R][N] dataset: likewise, N elements */
    PFS_SCH_OWN,        /* written by its own code (raw records, histograms, attributes): listed to be
                         * documented and checked */
};

/* When the results file has it. */
enum pfs_sch_when {
    PFS_SCH_ALWAYS,
    PFS_SCH_META,     /* metadata phases only */
    PFS_SCH_FIND,     /* find phases only */
    PFS_SCH_RESIDENT, /* phases that read, when some repetition's page cache was measured */
    PFS_SCH_DIRTY,    /* phases that write without -e, when measured */
    PFS_SCH_LATENCY,  /* phases that recorded latencies */
    PFS_SCH_CEILING,  /* data phases of a run that measured its ceilings (--ceilings) */
    PFS_SCH_RATE,     /* data phases of a run paced by --rate */
    PFS_SCH_TRAIN,    /* phases that feed emulated accelerators (train) */
    PFS_SCH_SWEEP,    /* data phases of a run of --rate-sweep or --latency-target */
    PFS_SCH_TARGET,   /* data phases of a run of --latency-target */
    PFS_SCH_TARGETS,  /* data phases that kept per-target figures (pfs/tgstats.h) */
    PFS_SCH_MIX,      /* phases that draw reads and writes (rwmix) */
};

/* A figure in the reports (JSON and CSV): its scale and when it is absent. */
enum pfs_sch_report {
    PFS_SCH_PLAIN = 0,
    PFS_SCH_UNITS = 1u << 0,     /* divided by the --units bytes/s: JSON "bandwidth", CSV bandwidth_<unit> */
    PFS_SCH_KB = 1u << 1,        /* divided by 1024 */
    PFS_SCH_STONEWALL = 1u << 2, /* absent (JSON null, CSV empty) where no stonewall applies */
    PFS_SCH_TRAINS = 1u << 3,    /* absent where the phase feeds no emulated accelerators */
    PFS_SCH_MIXED = 1u << 4,     /* absent where the phase draws no reads and writes (rwmix) */
    PFS_SCH_CSV_TAIL = 1u << 5,  /* a CSV column at the row's end, after the older ones (their indices stay) */
};

struct pfs_sch_field {
    const char *name;      /* in the results file */
    enum pfs_sch_type type;
    const char *unit;      /* "bytes", "s", "bytes/s", "ops/s", "ns"; "" where none applies */
    const char *meaning;   /* docs/results-format.md's text */
    enum pfs_sch_from from;
    size_t offset, sub, stride;
    const char *shape;     /* a dataset's: "[R]", "[R][K]", "[R][4][B]"; "" for a compound's field or an attribute */
    enum pfs_sch_when when;
    const char *units;     /* a dataset's units attribute, when it says more than unit; NULL: unit */
    const char *compound;  /* PFS_SCH_RECORD: the table of its fields */
    /* The reports: a per-repetition figure's JSON member and CSV column
     * (NULL: not there), its scale and absence (enum pfs_sch_report) and
     * the CSV's printf conversion. */
    const char *json, *csv;
    unsigned report;
    const char *csv_fmt;
};

enum pfs_sch_kind { PFS_SCH_COMPOUND, PFS_SCH_DATASETS, PFS_SCH_ATTRIBUTES, PFS_SCH_COLUMNS };

struct pfs_sch_table {
    const char *name;      /* "times", "summary", "placement", "latency_summary", "phase_datasets",
                            * "latency_datasets", "phase_attributes", "report" */
    enum pfs_sch_kind kind;
    const char *where;     /* where in the file (or the outputs) it is */
    const char *c_struct;  /* what offset is into */
    size_t size;           /* its size */
    const char *units;     /* a compound dataset's units attribute */
    const struct pfs_sch_field *field;
    size_t n;
};

/* The row of /summary and of placement, as the writer fills them (text as
 * pointers: variable-length UTF-8 in the file). */
struct pfs_summary_row {
    int run;
    const char *run_id, *label, *status, *phase;
    int rep, ranks, nodes, threads;
    uint64_t transfer, block, bytes;
    double seconds, bandwidth, utilization, stonewall_bandwidth, stonewall_rate;
    uint64_t ops;
    double rate;
    int warmup;
};

struct pfs_placement_row {
    int rank, node;
    const char *host;
    double clock_correction, clock_uncertainty;
    int reads_from_rank, reads_from_node;
    const char *cpu_affinity;
    int32_t cpus;
    const char *numa_nodes;
};

/* A row of a run's ceilings (--ceilings), one per node. */
struct pfs_ceiling_row {
    int node;
    const char *host;
    double memcpy_one_core, memcpy_all_cores, network;
};

extern const struct pfs_sch_table pfs_schema[];
extern const size_t pfs_schema_count;

/* Local. The table of that name; NULL when there is none. */
const struct pfs_sch_table *pfs_schema_table(const char *name);

/* Local. The field of that name in t; NULL when there is none. */
const struct pfs_sch_field *pfs_schema_field(const struct pfs_sch_table *t, const char *name);

/* Local. "int32", "int64", "uint32", "uint64", "float64", "string", "compound". */
const char *pfs_sch_type_name(enum pfs_sch_type t);

/* Local. A field's size in its C struct (a string: a pointer). */
size_t pfs_sch_type_size(enum pfs_sch_type t);

/* Local. "member", "rep", "rep_node", "rep_stream", "own"; "always",
 * "metadata", "find", "resident", "dirty", "latency", "ceilings"; "compound",
 * "datasets", "attributes", "columns": the words --list-options=json
 * gives them. */
const char *pfs_sch_from_name(enum pfs_sch_from f);
const char *pfs_sch_when_name(enum pfs_sch_when w);
const char *pfs_sch_kind_name(enum pfs_sch_kind k);

#endif
