/* The results schema's diagnosis tables (pfs/schema.h): the job's
 * slowest operations of a phase (--exemplars) and its storage targets
 * (pfs/tgstats.h). schema.c lists them. */
#include "schema_int.h"

#include "pfs/tgstats.h"

/* ---- the job's slowest operations of a phase (--exemplars) ---- */

const struct pfs_sch_field pfs_sch_exemplar_fields[PFS_SCH_EXEMPLAR_NFIELDS] = {
    MEMBER(struct pfs_exemplar_row, rep, "rep", I32, "", "repetition, from 0"),
    MEMBER(struct pfs_exemplar_row, rank, "rank", I32, "", "the rank that did it"),
    MEMBER(struct pfs_exemplar_row, host, "host", STR, "", "its host (as `placement`)"),
    MEMBER(struct pfs_exemplar_row, thread, "thread", I32, "", "its stream's thread on the rank (0 with one)"),
    MEMBER(struct pfs_exemplar_row, op, "op", STR, "",
           "the phase's name (`write`, `read`, `create` ...) for the phase's own operations (a transfer, a file's "
           "operation), else `open`, `fsync` or `close` of a data file"),
    MEMBER(struct pfs_exemplar_row, file, "file", I32, "",
           "the stream whose data file it was on (-1: the `--shared` file); in a metadata phase the stream whose "
           "small files"),
    MEMBER(struct pfs_exemplar_row, offset, "offset", U64, "bytes",
           "in the file (0 for open, fsync and close); in a metadata phase the file's (or directory's) number"),
    MEMBER(struct pfs_exemplar_row, length, "length", U64, "bytes",
           "bytes asked for (0 for open, fsync and close); in a metadata phase the bytes it moved"),
    MEMBER(struct pfs_exemplar_row, target, "target", I32, "",
           "the storage target holding its offset in its file: the row of the phase's `targets` (of its repetition); "
           "-1: none (a metadata phase)"),
    MEMBER(struct pfs_exemplar_row, target_name, "target_name", STR, "",
           "that target's name (`targets`' `name`); \"\" with -1"),
    MEMBER(struct pfs_exemplar_row, start, "start", F64, "s",
           "when it was issued, s since the epoch on rank 0's clock (its rank's clock plus its "
           "`clock_correction`, as `times`' `open_start`)"),
    MEMBER(struct pfs_exemplar_row, duration_ns, "duration_ns", U64, "ns", "from its issue to its completion"),
};

const char PFS_SCH_EXEMPLAR_UNITS[] =                                                                                             
    "one row per operation, every repetition's slowest first (rep, then duration_ns descending); start: s since "   
    "the epoch on rank 0's clock; duration_ns: ns; offset, length: bytes (metadata: the file's number, its "        
    "bytes); file: the stream whose file (-1: shared); target: the row of `targets`, -1 none; host, op, target_name: text (UTF-8)";

/* ---- a data phase's storage targets ---- */

const struct pfs_sch_field pfs_sch_target_fields[PFS_SCH_TARGET_NFIELDS] = {
    MEMBER(struct pfs_tg_row, rep, "rep", I32, "", "repetition, from 0"),
    MEMBER(struct pfs_tg_row, name, "name", STR, "",
           "the target, as its file system names it: a brick `HOST:PATH`, `OST0003`, `osd.4`, `pool:system`, "
           "`HOST:DEVICE`; `unknown` holds what no provider could place"),
    MEMBER(struct pfs_tg_row, bytes, "bytes", U64, "bytes",
           "bytes of the phase's transfers it holds (a transfer over several stripes split among them; a replicated "
           "stripe counted on its primary): the rows of a repetition add up to the phase's `bytes`"),
    MEMBER(struct pfs_tg_row, ops, "ops", U64, "", "transfers that touched it"),
    MEMBER(struct pfs_tg_row, busy_s, "busy_s", F64, "s",
           "the durations of those transfers, summed over every stream"),
    MEMBER(struct pfs_tg_row, bandwidth, "bandwidth", F64, "bytes/s",
           "`bytes / busy_s`: the rate a stream got from it while on it"),
    MEMBER(struct pfs_tg_row, p50_ns, "p50_ns", F64, "ns", "median latency of its transfers (within 1/128)"),
    MEMBER(struct pfs_tg_row, p99_ns, "p99_ns", F64, "ns", "99th percentile (within 1/128)"),
    MEMBER(struct pfs_tg_row, max_ns, "max_ns", F64, "ns", "its slowest transfer"),
    MEMBER(struct pfs_tg_row, p99_ratio, "p99_ratio", F64, "",
           "`p99_ns` / the median target's (NaN for `unknown`)"),
    MEMBER(struct pfs_tg_row, bw_ratio, "bandwidth_ratio", F64, "",
           "`bandwidth` / the median target's (NaN for `unknown`)"),
    MEMBER(struct pfs_tg_row, slow, "slow", I32, "",
           "1: its `bandwidth` is below `straggler` x the median target's (the stragglers' rule, among the targets "
           "that moved bytes, `unknown` left out)"),
};

const char PFS_SCH_TARGET_UNITS[] =
    "one row per target and repetition (rep, then the order the job met them); bytes: bytes; busy_s: s; bandwidth: "
    "bytes/s; p50_ns, p99_ns, max_ns: ns; ratios: fractions of the median target's; name: text (UTF-8)";
