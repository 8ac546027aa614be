/* The results schema (pfs/schema.h): the tables. A field added to the
 * results file is a row here (and, for a figure, a member of struct
 * pfs_rep_figs); the HDF5 type, the dataset, --list-options=json and the
 * docs follow. */
#include "pfs/schema.h"

#include <string.h>

#include "pfs/core.h"
#include "pfs/figures.h"
#include "pfs/pagecache.h"

#include "schema_int.h"

/* ---- times: one record per repetition and stream ---- */

static const struct pfs_sch_field times_fields[] = {
    MEMBER(struct pfs_times, open_start, "open_start", F64, "s",
           "just before open(); the timed region starts here (after the opening barrier)"),
    MEMBER(struct pfs_times, open_end, "open_end", F64, "s", "open() returned"),
    MEMBER(struct pfs_times, xfer_end, "xfer_end", F64, "s", "the last transfer returned (before fsync)"),
    MEMBER(struct pfs_times, close_end, "close_end", F64, "s",
           "fsync (with `-e`) and close() returned; the timed region ends here"),
    MEMBER(struct pfs_times, sw_end, "stonewall_end", F64, "s",
           "when the rank stopped issuing at the stonewall; 0 when it did not reach it"),
    MEMBER(struct pfs_times, verify_s, "verify_seconds", F64, "s",
           "time pfsbench spent on its own work inside the span (making/checking the data pattern, finding the "
           "file's storage targets), already taken out of `xfer_end` and `close_end`: add it back for the wall "
           "clock's end"),
    MEMBER(struct pfs_times, bytes, "bytes", U64, "bytes", "bytes this rank moved"),
    MEMBER(struct pfs_times, xfers, "transfers", U64, "", "I/O calls; files handled in a metadata phase"),
    MEMBER(struct pfs_times, sw_bytes, "stonewall_bytes", U64, "bytes",
           "bytes done when the rank stopped at the stonewall"),
    MEMBER(struct pfs_times, sw_xfers, "stonewall_transfers", U64, "", "transfers (files, in `create`) done then"),
    MEMBER(struct pfs_times, errors, "verify_errors", U64, "", "mismatching 8-byte words found by `--verify`"),
    MEMBER(struct pfs_times, rd_bytes, "read_bytes", U64, "bytes",
           "`rwmix`: of `bytes`, those read (the rest were written); 0 in other phases; files written before "
           "rwmix lack the fields"),
    MEMBER(struct pfs_times, rd_xfers, "read_transfers", U64, "",
           "`rwmix`: of `transfers`, the reads (the rest were writes)"),
    MEMBER(struct pfs_times, cpu_user, "cpu_user", F64, "s",
           "CPU seconds (user, system) of the stream's thread over the phase; files written before them lack the "
           "fields"),
    MEMBER(struct pfs_times, cpu_sys, "cpu_sys", F64, "s",
           "CPU seconds (user, system) of the stream's thread over the phase; files written before them lack the "
           "fields"),
    MEMBER(struct pfs_times, cache_bytes, "cache_bytes", U64, "bytes",
           "bytes of the file (or shared-file segment) the stream read or wrote, probed in the page cache outside "
           "the timed region"),
    MEMBER(struct pfs_times, cache_resident, "cache_resident", U64, "bytes",
           "a phase that reads: of `cache_bytes`, those in the node's page cache before it"),
    MEMBER(struct pfs_times, cache_dirty, "cache_dirty", U64, "bytes",
           "a phase that writes (without `-e`): of `cache_bytes`, those dirty or under write-back after its close"),
    MEMBER(struct pfs_times, cache_method, "cache_method", I32, "",
           "how each was had: 0 not probed, 1 cachestat, 2 mincore, 3 unknown, 4 bypassed (`--direct`)"),
    MEMBER(struct pfs_times, dirty_method, "dirty_method", I32, "",
           "how each was had: 0 not probed, 1 cachestat, 2 mincore, 3 unknown, 4 bypassed (`--direct`)"),
    MEMBER(struct pfs_times, lag_sum_ns, "submit_lag_sum", U64, "ns",
           "`--rate`: how late its transfers were submitted after their intended starts, summed (0 without; "
           "files written before it lack the fields)"),
    MEMBER(struct pfs_times, lag_max_ns, "submit_lag_max", U64, "ns", "`--rate`: the same, the largest"),
    MEMBER(struct pfs_times, due_first_ns, "due_first", U64, "ns",
           "`--rate`: the intended start of its first transfer in the measured span (after `--ramp`), from the "
           "schedules' start (the last arrival at the phase's opening barrier, the same instant on every rank)"),
    MEMBER(struct pfs_times, due_last_ns, "due_last", U64, "ns",
           "`--rate`: the intended start of its last transfer, from the schedules' start: the schedule's, the "
           "same on every run of the same seed (`--arrivals poisson` too)"),
    MEMBER(struct pfs_times, train_compute_s, "train_compute", F64, "s",
           "`train`: seconds the rank's emulated accelerators computed, summed over them (0 in other phases)"),
    MEMBER(struct pfs_times, train_stall_s, "train_stall", F64, "s",
           "`train`: seconds they waited for a batch to be read (stalled on data), summed over them"),
    MEMBER(struct pfs_times, train_au_min, "train_au_min", F64, "percent",
           "`train`: the lowest AU (compute / (compute + stall)) of the rank's accelerators"),
    MEMBER(struct pfs_times, train_samples, "train_samples", U64, "", "`train`: samples handed to them"),
    MEMBER(struct pfs_times, train_batches, "train_batches", U64, "", "`train`: batches handed to them"),
    MEMBER(struct pfs_times, train_stall_1ms, "train_stall_1ms", U64, "",
           "`train`: batches whose accelerator stalled under 1 ms for them (none: the data was there)"),
    MEMBER(struct pfs_times, train_stall_10ms, "train_stall_10ms", U64, "", "`train`: batches stalled 1-10 ms"),
    MEMBER(struct pfs_times, train_stall_100ms, "train_stall_100ms", U64, "", "`train`: batches stalled 10-100 ms"),
    MEMBER(struct pfs_times, train_stall_more, "train_stall_more", U64, "", "`train`: batches stalled 100 ms or more"),
    MEMBER(struct pfs_times, train_stall_max_s, "train_stall_max", F64, "s", "`train`: the longest stall"),
    MEMBER(struct pfs_times, train_accelerators, "train_accelerators", U64, "",
           "`train`: the rank's accelerators in the run recorded (with `--find-max-accelerators`, the count found)"),
    MEMBER(struct pfs_times, train_trials, "train_trials", U64, "",
           "`train` with `--find-max-accelerators`: the search's trials before that run; 0 without"),
};

#define TIMES_UNITS                                                                                                \
    "open_start, open_end, xfer_end, close_end, stonewall_end: s since the Unix epoch on rank 0's clock; "          \
    "verify_seconds: s (already taken out of xfer_end and close_end); bytes, stonewall_bytes: bytes; transfers, "   \
    "stonewall_transfers: count (files in a metadata phase); verify_errors: mismatching 8-byte words; cpu_user, "   \
    "cpu_sys: CPU s of the stream's thread; cache_bytes: bytes of the file it read (before the phase) or wrote "    \
    "(after it) probed in the page cache, cache_resident: of them resident before a read, cache_dirty: dirty or "   \
    "under write-back after a write; cache_method, dirty_method: 0 not probed, 1 cachestat, 2 mincore, 3 "          \
    "unknown, 4 bypassed (--direct); submit_lag_sum, submit_lag_max, due_first, due_last: ns (--rate); "    \
    "train_compute, train_stall, train_stall_max: s, train_au_min: percent, train_samples, train_batches, " \
    "train_stall_*, train_accelerators, train_trials: count (train only, else 0); one column per stream (rank x " \
    "threads + thread)"

/* ---- placement: one row per rank ---- */

static const struct pfs_sch_field placement_fields[] = {
    MEMBER(struct pfs_placement_row, rank, "rank", I32, "", "MPI rank in MPI_COMM_WORLD"),
    MEMBER(struct pfs_placement_row, node, "node", I32, "",
           "node index: nodes are numbered in rank order of first appearance of their host name"),
    MEMBER(struct pfs_placement_row, host, "host", STR, "", "MPI_Get_processor_name"),
    MEMBER(struct pfs_placement_row, clock_correction, "clock_correction", F64, "s",
           "added to this rank's timestamps to put them on rank 0's clock (ping-pong, best round); 0 when the "
           "estimate was no larger than its uncertainty"),
    MEMBER(struct pfs_placement_row, clock_uncertainty, "clock_uncertainty", F64, "s",
           "half the round trip of that round"),
    MEMBER(struct pfs_placement_row, reads_from_rank, "reads_from_rank", I32, "",
           "whose file this rank reads in read phases (itself without `-C`)"),
    MEMBER(struct pfs_placement_row, reads_from_node, "reads_from_node", I32, "",
           "the node of the rank whose file this rank reads in read phases (its own without `-C`)"),
    MEMBER(struct pfs_placement_row, cpu_affinity, "cpu_affinity", STR, "",
           "the CPUs the rank may run on (`sched_getaffinity` of its main thread at start-up, as a Linux cpulist: "
           "`0-3,8`), as the launcher bound it (`mpirun --bind-to`, `srun --cpu-bind`, `taskset`); a list too long "
           "for the field ends in `,...` after a whole entry (`cpus` stays exact); `\"\"` when it could not be read"),
    MEMBER(struct pfs_placement_row, cpus, "cpus", I32, "",
           "how many CPUs that is; `1` (or one core's hardware threads) under `--bind-to core`; -1 when it could "
           "not be read"),
    MEMBER(struct pfs_placement_row, numa_nodes, "numa_nodes", STR, "",
           "the NUMA nodes those CPUs belong to (from `/sys/devices/system/node/node*/cpulist`), a cpulist of node "
           "numbers; `\"\"` where the system has no NUMA information"),
};

#define PLACEMENT_UNITS                                                                                            \
    "clock_correction, clock_uncertainty: s (added to a rank's clock to put it on rank 0's); node: index in rank " \
    "order of first appearance; reads_from_*: whose data the rank read; cpu_affinity: the rank's CPUs "            \
    "(sched_getaffinity, a cpulist), cpus: how many (-1: unknown), numa_nodes: their NUMA nodes (\"\": no NUMA "   \
    "information); threads inherit them; host, cpu_affinity, numa_nodes: text (UTF-8)"

/* ---- ceilings (--ceilings): one row per node ---- */

#define CEIL_COPY                                                                                                  \
    "memcpy of 1 MiB copies, into a pre-faulted region and out of it: twice the bytes over the time of a pass "    \
    "each way (the medians of 5 passes)"
static const struct pfs_sch_field ceiling_fields[] = {
    MEMBER(struct pfs_ceiling_row, node, "node", I32, "", "node index, as `placement`'s"),
    MEMBER(struct pfs_ceiling_row, host, "host", STR, "", "the node's host name (its lowest rank's)"),
    MEMBER(struct pfs_ceiling_row, memcpy_one_core, "memcpy_one_core", F64, "bytes/s",
           "one core of the node (its lowest rank's thread): " CEIL_COPY),
    MEMBER(struct pfs_ceiling_row, memcpy_all_cores, "memcpy_all_cores", F64, "bytes/s",
           "every online CPU of the node at once, a thread pinned to each: their bytes over each pass's span"),
    MEMBER(struct pfs_ceiling_row, network, "network", F64, "bytes/s",
           "the bytes the node's lowest rank sent to the next node's (4 MiB messages, 4 in flight, 8 rounds, MPI "
           "point to point) while receiving as many from the previous node's, over its time; NaN with one node"),
};

#define CEILING_UNITS                                                                                              \
    "memcpy_one_core, memcpy_all_cores, network: bytes/s (network: sent, as many received at once; NaN with one "  \
    "node); host: text (UTF-8)"

/* ---- /summary: one row per run, phase and repetition ---- */

static const struct pfs_sch_field summary_fields[] = {
    MEMBER(struct pfs_summary_row, run, "run", I32, "", "the run's number: the row belongs to `/runs/%06d`"),
    MEMBER(struct pfs_summary_row, run_id, "run_id", STR, "", "as the run's attributes"),
    MEMBER(struct pfs_summary_row, label, "label", STR, "", "as the run's attributes"),
    MEMBER(struct pfs_summary_row, status, "status", STR, "", "as the run's attributes"),
    MEMBER(struct pfs_summary_row, phase, "phase", STR, "", "the phase name, as above"),
    MEMBER(struct pfs_summary_row, rep, "rep", I32, "", "repetition, from 0"),
    MEMBER(struct pfs_summary_row, ranks, "ranks", I32, "", "as the run's attributes"),
    MEMBER(struct pfs_summary_row, nodes, "nodes", I32, "", "as the run's attributes"),
    MEMBER(struct pfs_summary_row, threads, "threads", I32, "", "as the run's attributes"),
    MEMBER(struct pfs_summary_row, transfer, "transfer", U64, "bytes", "as the run's attributes"),
    MEMBER(struct pfs_summary_row, block, "block", U64, "bytes", "as the run's attributes"),
    MEMBER(struct pfs_summary_row, bytes, "bytes", U64, "bytes", "as the phase's `bytes[rep]`"),
    MEMBER(struct pfs_summary_row, seconds, "seconds", F64, "s", "as the phase's `seconds[rep]`"),
    MEMBER(struct pfs_summary_row, bandwidth, "bandwidth", F64, "bytes/s", "as the phase's `bandwidth[rep]`"),
    MEMBER(struct pfs_summary_row, utilization, "utilization", F64, "fraction", "as the phase's `utilization[rep]`"),
    MEMBER(struct pfs_summary_row, stonewall_bandwidth, "stonewall_bandwidth", F64, "bytes/s",
           "0 without a stonewall"),
    MEMBER(struct pfs_summary_row, stonewall_rate, "stonewall_rate", F64, "ops/s",
           "transfers, or files in `create`; 0 without a stonewall"),
    MEMBER(struct pfs_summary_row, ops, "ops", U64, "", "as the phase's `ops[rep]`"),
    MEMBER(struct pfs_summary_row, rate, "rate", F64, "ops/s",
           "files/s in a metadata phase, as the phase's `rate[rep]`"),
    MEMBER(struct pfs_summary_row, warmup, "warmup", I32, "",
           "1 for a warm-up repetition (left out of the statistics); absent in files written before it: read it as "
           "0 (the reader takes the run's `warmup` attribute)"),
};

#define SUMMARY_UNITS                                                                                              \
    "transfer, block, bytes: bytes; seconds: s; bandwidth, stonewall_bandwidth: bytes/s (1024-based MiB = "        \
    "1048576 bytes); utilization: fraction; ops: transfers (data phases) or files (metadata phases); rate, "        \
    "stonewall_rate: ops/s; warmup: 1 for a warm-up repetition (left out of the statistics); run_id, label, "      \
    "status, phase: text (UTF-8)"

/* ---- a latency histogram's summary ---- */

#define PCT "nearest-rank percentiles within 1/128; min and max exact"
static const struct pfs_sch_field lat_sum_fields[] = {
    MEMBER(struct pfs_lat_sum, count, "count", U64, "", "operations"),
    MEMBER(struct pfs_lat_sum, sum_ns, "sum_ns", U64, "ns", "their total latency, exact"),
    MEMBER(struct pfs_lat_sum, min_ns, "min_ns", F64, "ns", PCT),
    MEMBER(struct pfs_lat_sum, p50_ns, "p50_ns", F64, "ns", PCT),
    MEMBER(struct pfs_lat_sum, p90_ns, "p90_ns", F64, "ns", PCT),
    MEMBER(struct pfs_lat_sum, p99_ns, "p99_ns", F64, "ns", PCT),
    MEMBER(struct pfs_lat_sum, p999_ns, "p999_ns", F64, "ns", PCT),
    MEMBER(struct pfs_lat_sum, max_ns, "max_ns", F64, "ns", PCT),
    MEMBER(struct pfs_lat_sum, mean_ns, "mean_ns", F64, "ns", "sum_ns / count"),
};

#define LAT_SUM_UNITS                                                                                              \
    "count: operations; sum_ns, min_ns .. max_ns, mean_ns: ns (percentiles nearest-rank, within 1/128)"

/* ---- a phase group's datasets ---- */

#define PC_RES "bytes of the files the phase read, probed before it (streams whose probe measured)"
#define PC_RES_IN "bytes: of cache_bytes, those in the node's page cache before the phase"
#define PC_DIRTY "bytes of the files the phase wrote, probed after its close (streams whose probe measured)"
#define PC_DIRTY_IN "bytes: of cache_dirty_probed, those dirty or under write-back after the close"
#define NODE_PC(m, nm, attr, w, mean) NODE(node_cache, struct pfs_pc_fig, offsetof(struct pfs_pc_fig, m), nm, U64,   \
                                           "bytes", attr, w, mean)
#define NODE_PC_MEAN "the same per node (its streams); each row sums to the run's"

static const struct pfs_sch_field phase_fields[] = {
    RECORD("times", "[R][N]", "times", TIMES_UNITS, ALWAYS,
           "the raw timings, below; N = streams, column s = rank x threads + thread (with one thread per rank, the "
           "rank)"),
    REP(s.bytes, "bytes", U64, "bytes", NULL, ALWAYS, "bytes moved by all streams"),
    REP(s.seconds, "seconds", F64, "s", NULL, ALWAYS,
        "max over streams of `close_end` - min over streams of `open_start`"),
    REP(s.bandwidth, "bandwidth", F64, "bytes/s", NULL, ALWAYS,
        "`bytes / seconds`: the aggregate bandwidth, as IOR defines it"),
    REP(s.utilization, "utilization", F64, "fraction", NULL, ALWAYS,
        "sum over streams of (`close_end` - `open_start`) / (N x `seconds`): gpfsperf's thread utilization"),
    REP(s.sw_bandwidth, "stonewall_bandwidth", F64, "bytes/s", "bytes/s (0: no stonewall)", ALWAYS,
        "with `-D`: bytes done by the stonewall / time to the last stream's stop; 0 without a stonewall"),
    REP(s.sw_rate, "stonewall_rate", F64, "ops/s", "operations/s: transfers, or files in create (0: no stonewall)",
        ALWAYS,
        "with `-D`: transfers (files, in `create`) done by the stonewall / the same time; 0 without a stonewall, "
        "and in the phases it does not stop"),
    REP(warmup, "warmup", I32, "", "1: a warm-up repetition, left out of the statistics", ALWAYS,
        "1 for a warm-up repetition (the first `warmup` rows of every dataset of the group), 0 for a measured one"),
    NODE(node_bytes, uint64_t, 0, "node_bytes", U64, "bytes", NULL, ALWAYS,
         "bytes moved by the streams of each node (a stream is on its rank's node); each row sums to `bytes`"),
    NODE(node_seconds, double, 0, "node_seconds", F64, "s", NULL, ALWAYS,
         "the node's last `close_end` - its first `open_start`, over its streams"),
    NODE(node_bw, double, 0, "node_bandwidth", F64, "bytes/s", NULL, ALWAYS, "`node_bytes / node_seconds`"),
    NODE(node_straggler, int, 0, "node_straggler", I32, "",
         "1: below straggler x median node (bandwidth; files/s in a metadata phase)", ALWAYS,
         "1 when the node's bandwidth (its `node_rate` in a metadata phase) is below `straggler` x the median "
         "node's"),
    {.name = "stream_bandwidth", .type = F64, .unit = "bytes/s", .from = PFS_SCH_REP_STREAM,
     .offset = offsetof(struct pfs_rep_figs, stream_bw), .stride = sizeof(double), .shape = "[R][N]",
     .units = "bytes/s: each stream's bytes / (its close_end - its open_start)",
     .meaning = "per stream (per rank with one thread): its `bytes` / (its `close_end` - its `open_start`)"},
    REP(s.ops, "ops", U64, "", "transfers, or files in a metadata phase", ALWAYS,
        "transfers, or files in a metadata phase, by all streams"),
    REP(s.rate, "rate", F64, "ops/s", "ops/s (files/s in a metadata phase)", ALWAYS,
        "`ops / seconds`: files/s in a metadata phase"),
    NODE(node_rate, double, 0, "node_rate", F64, "ops/s", NULL, ALWAYS, "the node's ops / `node_seconds`"),
    OWN("find_matched", "[R]", U64, "files", "files", PFS_SCH_FIND,
        "find phases only: the files that matched IO500's criteria over all streams; the files examined are `ops`"),
    REP(cache.bytes, "cache_bytes", U64, "bytes", PC_RES, PFS_SCH_RESIDENT,
        "phases that read, when probed: the bytes of the files the streams were about to read, and of them those "
        "in their node's page cache before the phase (streams whose probe measured; below)"),
    REP(cache.resident, "cache_resident", U64, "bytes", PC_RES_IN, PFS_SCH_RESIDENT,
        "phases that read, when probed: the bytes of the files the streams were about to read, and of them those "
        "in their node's page cache before the phase (streams whose probe measured; below)"),
    REP(cache.dirty_bytes, "cache_dirty_probed", U64, "bytes", PC_DIRTY, PFS_SCH_DIRTY,
        "phases that write without `-e`, when probed: the bytes of the files the streams wrote, and of them those "
        "still dirty or under write-back after the close"),
    REP(cache.dirty, "cache_dirty", U64, "bytes", PC_DIRTY_IN, PFS_SCH_DIRTY,
        "phases that write without `-e`, when probed: the bytes of the files the streams wrote, and of them those "
        "still dirty or under write-back after the close"),
    NODE_PC(bytes, "node_cache_bytes", PC_RES, PFS_SCH_RESIDENT, NODE_PC_MEAN),
    NODE_PC(resident, "node_cache_resident", PC_RES_IN, PFS_SCH_RESIDENT, NODE_PC_MEAN),
    NODE_PC(dirty_bytes, "node_cache_dirty_probed", PC_DIRTY, PFS_SCH_DIRTY, NODE_PC_MEAN),
    NODE_PC(dirty, "node_cache_dirty", PC_DIRTY_IN, PFS_SCH_DIRTY, NODE_PC_MEAN),
    REP(ceil_mem_pct, "memory_ceiling_percent", F64, "percent", NULL, PFS_SCH_CEILING,
        "with `--ceilings`, data phases: 100 x `bandwidth` / the run's `ceiling_memory` (the clients' memory "
        "ceiling, below)"),
    REP(ceil_net_pct, "network_ceiling_percent", F64, "percent",
        "percent (NaN: one node, no network between clients)", PFS_SCH_CEILING,
        "with `--ceilings`, data phases: 100 x `bandwidth` / the run's `ceiling_network`; NaN with one node"),
    REP(ceil_binding, "binding_ceiling", I32, "", "1: memory, 2: network", PFS_SCH_CEILING,
        "with `--ceilings`, data phases: the lower ceiling, which binds the phase first: 1 memory, 2 network"),
    REP(offered_ops, "offered_rate", F64, "ops/s", NULL, PFS_SCH_RATE,
        "with `--rate`: the job's offered rate, every stream's share together (achieved: `rate`)"),
    REP(offered_bytes, "offered_bandwidth", F64, "bytes/s", NULL, PFS_SCH_RATE,
        "with `--rate`: `offered_rate` x the transfer size (achieved: `bandwidth`)"),
    REP(sched_ops, "scheduled_rate", F64, "ops/s", NULL, PFS_SCH_RATE,
        "with `--rate`: what the schedule offered for the transfers made: `ops` / the streams' longest schedule "
        "(`due_last` - `due_first` + one mean gap); `offered_rate` with fixed arrivals, within the arrivals' own "
        "spread of it with poisson"),
    REP(rate_short, "rate_short", I32, "", "1: the achieved rate fell more than 2% short of the scheduled",
        PFS_SCH_RATE, "with `--rate`: 1 when `rate` < 0.98 x `scheduled_rate` (the report warns)"),
    REP(lag_mean_ns, "submit_lag_mean", F64, "ns", NULL, PFS_SCH_RATE,
        "with `--rate`: how late transfers were submitted after their intended start, the mean over all"),
    REP(lag_max_ns, "submit_lag_max", F64, "ns", NULL, PFS_SCH_RATE,
        "with `--rate`: the same, the largest"),
    REP(load_p50_ns, "load_p50", F64, "ns", NULL, PFS_SCH_SWEEP,
        "with `--rate-sweep`: the repetition as a point of the latency-load curve (offered `offered_rate`, 0 for "
        "a closed-loop one; achieved `rate`): the response time's p50, the op kind's where nothing was paced"),
    REP(load_p99_ns, "load_p99", F64, "ns", NULL, PFS_SCH_SWEEP, "the same, p99 (the knee's percentile)"),
    REP(load_p999_ns, "load_p999", F64, "ns", NULL, PFS_SCH_SWEEP, "the same, p99.9"),
    REP(mix_read_ops, "read_ops", U64, "", NULL, PFS_SCH_MIX,
        "`rwmix`: of `ops`, the reads (`--rwmix` percent of them, exactly where every stream's count is a "
        "multiple of 100)"),
    REP(mix_write_ops, "write_ops", U64, "", NULL, PFS_SCH_MIX, "`rwmix`: of `ops`, the writes"),
    REP(mix_read_bytes, "read_bytes", U64, "bytes", NULL, PFS_SCH_MIX, "`rwmix`: of `bytes`, those read"),
    REP(mix_write_bytes, "write_bytes", U64, "bytes", NULL, PFS_SCH_MIX, "`rwmix`: of `bytes`, those written"),
    REP(mix_read_rate, "read_rate", F64, "ops/s", NULL, PFS_SCH_MIX,
        "`rwmix`: `read_ops` over the phase's `seconds` (with `write_rate` it adds up to `rate`)"),
    REP(mix_write_rate, "write_rate", F64, "ops/s", NULL, PFS_SCH_MIX, "`rwmix`: `write_ops` over `seconds`"),
    REP(mix_read_bw, "read_bandwidth", F64, "bytes/s", NULL, PFS_SCH_MIX,
        "`rwmix`: `read_bytes` over `seconds` (with `write_bandwidth` it adds up to `bandwidth`)"),
    REP(mix_write_bw, "write_bandwidth", F64, "bytes/s", NULL, PFS_SCH_MIX, "`rwmix`: `write_bytes` over `seconds`"),
    REP(cpu_per_gib, "cpu_seconds_per_gib", F64, "s/GiB", NULL, ALWAYS,
        "client CPU seconds (every stream's user + system) per GiB the phase moved; 0 when it moved none"),
    REP(train_au, "train_au", F64, "percent", NULL, PFS_SCH_TRAIN,
        "accelerator utilisation of the job: compute / (compute + stall on data) over every emulated accelerator"),
    REP(train_au_min, "train_au_min", F64, "percent", NULL, PFS_SCH_TRAIN, "the lowest accelerator's AU"),
    REP(train_pass, "train_au_pass", I32, "", "1: train_au >= --au-gate, 0: below", PFS_SCH_TRAIN,
        "the job's AU against the gate (`au_gate` of the run's attributes)"),
    REP(train_samples, "train_samples", U64, "", NULL, PFS_SCH_TRAIN, "samples handed to the accelerators"),
    REP(train_samples_s, "train_samples_per_s", F64, "samples/s", NULL, PFS_SCH_TRAIN,
        "train_samples over the phase's seconds"),
    REP(train_compute_s, "train_compute", F64, "s", NULL, PFS_SCH_TRAIN, "compute seconds, summed over the accelerators"),
    REP(train_stall_s, "train_stall", F64, "s", NULL, PFS_SCH_TRAIN, "stall seconds, summed over the accelerators"),
    REP(train_stall_max_s, "train_stall_max", F64, "s", NULL, PFS_SCH_TRAIN, "the longest stall of any accelerator"),
    REP(train_stall_1ms, "train_stall_1ms", U64, "", NULL, PFS_SCH_TRAIN,
        "the stall distribution: batches stalled under 1 ms"),
    REP(train_stall_10ms, "train_stall_10ms", U64, "", NULL, PFS_SCH_TRAIN, "batches stalled 1-10 ms"),
    REP(train_stall_100ms, "train_stall_100ms", U64, "", NULL, PFS_SCH_TRAIN, "batches stalled 10-100 ms"),
    REP(train_stall_more, "train_stall_more", U64, "", NULL, PFS_SCH_TRAIN, "batches stalled 100 ms or more"),
    REP(train_accelerators, "train_accelerators", U64, "", NULL, PFS_SCH_TRAIN,
        "accelerators a rank ran (the most of any rank); with `--find-max-accelerators` the most that kept the gate"),
    REP(train_acc_node, "train_accelerators_per_node", U64, "", NULL, PFS_SCH_TRAIN,
        "the most on one node: its ranks' accelerators summed"),
    REP(train_trials, "train_trials", U64, "", NULL, PFS_SCH_TRAIN,
        "`--find-max-accelerators`: the search's trials (0 without)"),
};

/* ---- a phase group's latency, CPU and time series ---- */

#define LAT PFS_SCH_LATENCY
#define EDGES                                                                                                      \
    "where interval i truly starts and ends, s since the epoch on rank 0's clock: `start[0]` is the repetition's " \
    "first open (`times` `open_start.min()`), `end[n-1]` its last close (`close_end.max()`), the edges between on " \
    "the grid `t0 + (first_interval + i) x interval`; `end[i] == start[i+1]`. An interval's rates are its "        \
    "`bytes` and `ops` over `end - start`, its overlap with the phase"
#define TS_LAT "the interval's latencies on that node (from the coarse histogram; max exact); 0 when it completed nothing"
#define CPU_MEAN                                                                                                   \
    "CPU seconds of the node's streams' threads over the phase (the thread's CPU clock, split user:system as "     \
    "getrusage has it), in the same window as the phase's time: `--verify`'s pattern work is out of both, and a "  \
    "stream is never counted more CPU than its span, so %CPU is at most 100 x streams"

static const struct pfs_sch_field latency_fields[] = {
    OWN("latency_bucket_lo", "[B]", U64, "ns", "ns: the smallest value of each bucket", LAT,
        "each bucket's smallest and largest (inclusive) value; 2^64-1 for the last"),
    OWN("latency_bucket_hi", "[B]", U64, "ns", "ns: the largest value of each bucket, inclusive (2^64-1 for the last)",
        LAT, "each bucket's smallest and largest (inclusive) value; 2^64-1 for the last"),
    OWN("latency", "[R][7][B]", U64, "",
        "operations per bucket ([rep][kind][bucket]; kinds op,open,fsync,close,response,read,write, fsync holding --fsync-every's and "
        "-e's; buckets latency_bucket_lo .. latency_bucket_hi, ns)",
        LAT,
        "operations per bucket, all streams, per kind. The `fsync` kind holds every fsync of the phase: those of "
        "`--fsync-every N` (floor(n / N) per stream of n transfers) and `-e`'s at close (1 per stream). The "
        "`response` kind (`--rate`) counts each transfer from its intended start (`op` then from its submission: "
        "its service time); it is empty without `--rate`, and absent from files written before it. The `read` and "
        "`write` kinds (rwmix) each count one direction's transfers (`op` both); empty in other phases. Chunked "
        "[1][7][B], deflate level 4 (unfiltered where HDF5 has no deflate encoder)"),
    RECORD("latency_summary", "[R][7]", "latency_summary", LAT_SUM_UNITS, LAT,
           "`count`, `sum_ns` (uint64), `min_ns`, `p50_ns`, `p90_ns`, `p99_ns`, `p999_ns`, `max_ns`, `mean_ns` "
           "(float64, ns), of each kind"),
    OWN("node_latency", "[R][K][B]", U64, "",
        "operations of the phase's own kind (op) per bucket ([rep][node][bucket]; buckets latency_bucket_lo .. "
        "latency_bucket_hi, ns)",
        LAT,
        "the `op` kind's operations per bucket, per node (its streams merged). Chunked [1][min(K,8)][B], deflate 4"),
    RECORD("node_latency_summary", "[R][K]", "latency_summary", LAT_SUM_UNITS, LAT,
           "as `latency_summary`, per node"),
    RECORD("exemplars", "[E]", "exemplar", PFS_SCH_EXEMPLAR_UNITS, LAT,
           "the job's `--exemplars` slowest operations of each repetition (min(K, operations) rows per repetition, "
           "none with `--exemplars 0`), slowest first; ties go to the lower rank, thread, then the earlier "
           "operation"),
    RECORD("targets", "[G]", "target", PFS_SCH_TARGET_UNITS, PFS_SCH_TARGETS,
           "the phase's storage targets, every repetition's rows in turn (each repetition the targets its transfers "
           "touched, merged by name over every stream; at most 1024): bytes, transfers, busy time, bandwidth over it, "
           "latency and the slow flag"),
    OWN("target_latency", "[G][B]", U64, "",
        "transfers per bucket of each row of `targets` (buckets latency_bucket_lo .. latency_bucket_hi, ns)",
        PFS_SCH_TARGETS, "each target's latency histogram, its rows those of `targets`. Chunked [1][B], deflate 4"),
    NODE(node_cpu_user, double, 0, "cpu_user", F64, "s", "s: user CPU of the node's streams' threads", ALWAYS,
         CPU_MEAN),
    NODE(node_train_au, double, 0, "node_train_au", F64, "percent", NULL, PFS_SCH_TRAIN,
         "the AU of the node's accelerators: their compute / (compute + stall)"),
    NODE(node_cpu_sys, double, 0, "cpu_sys", F64, "s", "s: system CPU of the node's streams' threads", ALWAYS,
         CPU_MEAN),
    OWN("timeseries/ts_bucket_lo", "[TB]", U64, "ns",
        "ns: the smallest value of each coarse bucket of run_hist (4 per power of two)", LAT,
        "each coarse bucket's smallest value"),
    OWN("timeseries/rep_NNN/start", "[n]", F64, "s",
        "s since the Unix epoch on rank 0's clock: where each interval starts (the first: the phase's first open)",
        LAT, EDGES),
    OWN("timeseries/rep_NNN/end", "[n]", F64, "s",
        "s since the Unix epoch on rank 0's clock: where each interval ends (the last: the phase's last close); "
        "rates are bytes and ops over end - start",
        LAT, EDGES),
    OWN("timeseries/rep_NNN/bytes", "[n][K]", U64, "", "bytes per [interval][node]", LAT,
        "what the node's streams completed in interval i"),
    OWN("timeseries/rep_NNN/ops", "[n][K]", U64, "", "operations completed per [interval][node]", LAT,
        "what the node's streams completed in interval i"),
    OWN("timeseries/rep_NNN/p50_ns", "[n][K]", F64, "ns", "ns, within 12.5% (0: no operation)", LAT, TS_LAT),
    OWN("timeseries/rep_NNN/p99_ns", "[n][K]", F64, "ns", "ns, within 12.5% (0: no operation)", LAT, TS_LAT),
    OWN("timeseries/rep_NNN/max_ns", "[n][K]", F64, "ns", "ns, exact (0: no operation)", LAT, TS_LAT),
    OWN("timeseries/rep_NNN/run_hist", "[n][TB]", U32, "",
        "operations of every stream per [interval][coarse bucket] (buckets: ../ts_bucket_lo, ns)", LAT,
        "the coarse histogram of every stream's operations in interval i"),
};

/* ---- a phase group's attributes ---- */

#define ATTR(nm, ty, un, w, mean) OWN(nm, "", ty, un, NULL, w, mean)
#define BW_STAT                                                                                                    \
    "over the measured values of `bandwidth` (rows `warmup` .. R-1); stddev is the sample standard deviation "     \
    "(n-1), **NaN** for one measured repetition (where the text report prints `n/a` and the JSON report `null`; "   \
    "files written before issue 18 stored 0); all five are NaN when no repetition was measured (a run that "       \
    "failed in its warm-up)"
#define RATE_STAT "metadata phases only: over the measured values of `rate` (rows `warmup` .. R-1); NaN as for " \
                  "`bandwidth_*`"
#define CACHE_METHOD                                                                                               \
    "how the page cache was probed (below): before a phase that reads, and after one that writes; `cachestat`, "   \
    "`mincore`, `unknown` (neither worked), `bypassed` (`--direct`), several joined by `+` when streams differed " \
    "(`cachestat+unknown`), empty when not probed (a phase that reads nothing, or writes with `-e`)"

static const struct pfs_sch_field attr_fields[] = {
    ATTR("phase", STR, "", ALWAYS,
         "`write`, `rewrite`, `read`, `reread`, `create`, `stat`, `read-files`, `find`, `delete`, `mkdir`, "
         "`stat-dirs`, `rmdir` or `seeks` (a data phase: random one-transfer reads, `ops` the seeks, `rate` "
         "seeks/s), `ckpt-save` or `ckpt-restore` (data phases on the checkpoint's files: `bytes` the "
         "checkpoint's, or what the restore read)"),
    ATTR("kind", STR, "", ALWAYS,
         "`data` or `metadata` (create, stat, read-files, find, delete: judged by `rate`, files/s; mkdir, "
         "stat-dirs, rmdir: directories/s)"),
    ATTR("interference_bw_ratio", F64, "", ALWAYS,
         "the together run of a group with `interference = 1`: this phase's `bandwidth_mean` (`rate_mean` in a "
         "metadata phase) over the same section's run alone; NaN in every other run, and where either run has no "
         "figure (it failed, or measured no repetition)"),
    ATTR("interference_p99_ratio", F64, "", ALWAYS,
         "likewise, the op p99 (every measured repetition's op histograms merged) together over alone; NaN as "
         "above"),
    ATTR("find_criteria", STR, "", PFS_SCH_FIND,
         "find phases only: the criteria in words, e.g. \"name contains 01, a regular file of 3901 bytes, modified "
         "at or after the run's start\""),
    ATTR("index", I64, "", ALWAYS, "position in `-p`, = NN"),
    ATTR("repetitions", I64, "", ALWAYS,
         "repetitions recorded, R, the warm-up ones included (reps are numbered from 0; 0 .. `warmup`-1 are the "
         "warm-up). Less than the run's `warmup` + `reps` when the run failed; under `--reps auto` between "
         "`warmup` + 3 and `warmup` + `max_reps`; 0 means the group holds no datasets"),
    ATTR("bandwidth_min", F64, "bytes/s", ALWAYS, BW_STAT),
    ATTR("bandwidth_max", F64, "bytes/s", ALWAYS, BW_STAT),
    ATTR("bandwidth_mean", F64, "bytes/s", ALWAYS, BW_STAT),
    ATTR("bandwidth_median", F64, "bytes/s", ALWAYS, BW_STAT),
    ATTR("bandwidth_stddev", F64, "bytes/s", ALWAYS, BW_STAT),
    ATTR("bandwidth_units", STR, "", ALWAYS, "the unit of the above"),
    ATTR("rate_min", F64, "files/s", PFS_SCH_META, RATE_STAT),
    ATTR("rate_max", F64, "files/s", PFS_SCH_META, RATE_STAT),
    ATTR("rate_mean", F64, "files/s", PFS_SCH_META, RATE_STAT),
    ATTR("rate_median", F64, "files/s", PFS_SCH_META, RATE_STAT),
    ATTR("rate_stddev", F64, "files/s", PFS_SCH_META, RATE_STAT),
    ATTR("warmup", I64, "", ALWAYS,
         "how many of the R repetitions are warm-up ones (the run's `warmup`, or fewer when the run failed first)"),
    ATTR("reps_measured", I64, "", ALWAYS, "R - `warmup`: the repetitions the statistics are over"),
    ATTR("ci95_half_width", F64, "", ALWAYS,
         "the half-width of the 95% confidence interval of the mean of the phase's figure over the measured "
         "repetitions: t(0.975, n-1) x s / sqrt(n); bytes/s (of `bandwidth`) in a data phase, files/s (of `rate`) "
         "in a metadata phase; NaN for one measured repetition (never 0)"),
    ATTR("ci95_percent", F64, "percent", ALWAYS, "`ci95_half_width` in percent of the mean; NaN for one measured repetition"),
    ATTR("ci_target_percent", F64, "percent", ALWAYS, "`--ci` under `--reps auto`; NaN with a fixed `-i`"),
    ATTR("ci_target_met", I64, "", ALWAYS,
         "under `--reps auto`: 1 when `ci95_percent` <= `ci_target_percent` with at least 3 measured repetitions, "
         "0 when not (the run stopped at `max_reps` and warned); -1 with a fixed `-i` (no target)"),
    ATTR("ci95_units", STR, "", ALWAYS, "the units of the two above"),
    ATTR("latency_kinds", STR, "", LAT,
         "where latencies were recorded: the kinds of the latency datasets' second axis, "
         "`op,open,fsync,close,response,read,write` (below; `response`, with `--rate`, from each transfer's intended "
         "start, `op` then from its submission; `read` and `write`, in rwmix, each direction's transfers, `op` both; "
         "files before them have the first four or five)"),
    ATTR("cache_method", STR, "", ALWAYS, CACHE_METHOD),
    ATTR("cache_dirty_method", STR, "", ALWAYS, CACHE_METHOD),
    ATTR("knee_found", I64, "", PFS_SCH_SWEEP,
         "with `--rate-sweep`: 1 when `load_p99` rose above 2 x its value at the lowest offered load and stayed "
         "above to the highest (the closed-loop point left out), else 0"),
    ATTR("knee_rate", F64, "ops/s", PFS_SCH_SWEEP,
         "the achieved rate where `load_p99` crosses 2 x that value, interpolated between the two points below; "
         "NaN without a knee"),
    ATTR("knee_below_rep", I64, "", PFS_SCH_SWEEP, "the repetition of the last point within it; -1 without"),
    ATTR("knee_above_rep", I64, "", PFS_SCH_SWEEP, "the repetition of the first point above it for good; -1 without"),
    ATTR("knee_base_p99", F64, "ns", PFS_SCH_SWEEP, "`load_p99` at the lowest offered load"),
    ATTR("knee_saturated_rep", I64, "", PFS_SCH_SWEEP,
         "the first repetition, by offered load, whose achieved rate fell more than 2% short of it; -1 none"),
    ATTR("latency_target", STR, "", PFS_SCH_TARGET,
         "`--latency-target` as given (`p99=2ms`); repetition 0 ran closed loop, each later one at the rate the "
         "search chose (`offered_rate`)"),
    ATTR("target_rate", F64, "ops/s", PFS_SCH_TARGET,
         "the largest offered rate that met it (within the percentile's bound, achieved within 2%); NaN: none"),
    ATTR("target_rep", I64, "", PFS_SCH_TARGET, "its repetition; -1 none"),
};

/* ---- the reports' figures of a repetition (JSON members, CSV columns) ---- */

static const struct pfs_sch_field report_fields[] = {
    COLUMN(s.bytes, "bytes", U64, "bytes", "bytes", "bytes", PFS_SCH_PLAIN, "%llu", "bytes moved by all streams"),
    COLUMN(s.ops, "ops", U64, "", "ops", "ops", PFS_SCH_PLAIN, "%llu",
           "transfers, or files in a metadata phase, by all streams"),
    COLUMN(s.seconds, "seconds", F64, "s", "seconds", "seconds", PFS_SCH_PLAIN, "%.9g",
           "the first open to the last close"),
    COLUMN(s.bandwidth, "bandwidth", F64, "bytes/s", "bandwidth_bytes_per_s", "bandwidth_bytes_per_s",
           PFS_SCH_PLAIN, "%.9g", "the aggregate bandwidth"),
    COLUMN(s.bandwidth, "bandwidth", F64, "--units", "bandwidth", "bandwidth_", PFS_SCH_UNITS, "%.9g",
           "the same in the report's unit (--units: MiB/s, KB/s, MB/s or GB/s); the CSV column's name ends in it, "
           "'/' as 'p' (bandwidth_MiBps)"),
    COLUMN(s.bandwidth, "bandwidth", F64, "KB/s", NULL, "KBps", PFS_SCH_KB, "%.9g",
           "the same in KB/s (1024 bytes/s, the seeds' unit)"),
    COLUMN(s.rate, "rate", F64, "ops/s", "ops_per_s", "ops_per_s", PFS_SCH_PLAIN, "%.9g",
           "operations per second (files/s in a metadata phase)"),
    COLUMN(s.utilization, "utilization", F64, "fraction", "utilization", "utilization", PFS_SCH_PLAIN, "%.6f",
           "gpfsperf's thread utilization"),
    COLUMN(s.sw_bandwidth, "stonewall_bandwidth", F64, "bytes/s", "stonewall_bandwidth_bytes_per_s",
           "stonewall_bandwidth_bytes_per_s", PFS_SCH_STONEWALL, "%.9g",
           "up to the stonewall (-D); absent in a phase it does not stop"),
    COLUMN(s.sw_rate, "stonewall_rate", F64, "ops/s", "stonewall_ops_per_s", NULL, PFS_SCH_STONEWALL, "%.9g",
           "operations (files/s in create) up to the stonewall; absent in a phase it does not stop"),
    COLUMN(cpu_per_gib, "cpu_seconds_per_gib", F64, "s/GiB", "cpu_seconds_per_gib", NULL, PFS_SCH_PLAIN, "%.6g",
           "client CPU seconds (user + system, every stream) per GiB moved"),
    COLUMN(train_au, "train_au", F64, "percent", "train_au", NULL, PFS_SCH_TRAINS, "%.6g",
           "`train`: the job's accelerator utilisation; absent in other phases"),
    COLUMN(train_au_min, "train_au_min", F64, "percent", "train_au_min", NULL, PFS_SCH_TRAINS, "%.6g",
           "`train`: the lowest accelerator's AU; absent in other phases"),
    COLUMN(train_samples_s, "train_samples_per_s", F64, "samples/s", "train_samples_per_s", NULL, PFS_SCH_TRAINS,
           "%.9g", "`train`: samples per second; absent in other phases"),
    COLUMN(train_stall_max_s, "train_stall_max", F64, "s", "train_stall_max_seconds", NULL, PFS_SCH_TRAINS, "%.9g",
           "`train`: the longest stall; absent in other phases"),
    COLUMN(mix_read_rate, "read_rate", F64, "ops/s", NULL, "read_ops_per_s", PFS_SCH_MIXED | PFS_SCH_CSV_TAIL,
           "%.9g", "`rwmix`: the reads per second (JSON: its `mix` member); absent in other phases"),
    COLUMN(mix_write_rate, "write_rate", F64, "ops/s", NULL, "write_ops_per_s", PFS_SCH_MIXED | PFS_SCH_CSV_TAIL,
           "%.9g", "`rwmix`: the writes per second; absent in other phases"),
    COLUMN(mix_read_bw, "read_bandwidth", F64, "bytes/s", NULL, "read_bandwidth_bytes_per_s",
           PFS_SCH_MIXED | PFS_SCH_CSV_TAIL, "%.9g", "`rwmix`: the bytes read per second; absent in other phases"),
    COLUMN(mix_write_bw, "write_bandwidth", F64, "bytes/s", NULL, "write_bandwidth_bytes_per_s",
           PFS_SCH_MIXED | PFS_SCH_CSV_TAIL, "%.9g", "`rwmix`: the bytes written per second; absent in other phases"),
};

#define TABLE(nm, k, wh, S, u, f) {nm, k, wh, #S, sizeof(S), u, f, NELEM(f)}
#define TABLE0(nm, k, wh, f) {nm, k, wh, "", 0, NULL, f, NELEM(f)}

const struct pfs_sch_table pfs_schema[] = {
    TABLE("times", PFS_SCH_COMPOUND, "/runs/NNNNNN/phases/NN_<phase>/times", struct pfs_times, TIMES_UNITS,
          times_fields),
    TABLE("placement", PFS_SCH_COMPOUND, "/runs/NNNNNN/placement", struct pfs_placement_row, PLACEMENT_UNITS,
          placement_fields),
    TABLE("ceilings", PFS_SCH_COMPOUND, "/runs/NNNNNN/ceilings", struct pfs_ceiling_row, CEILING_UNITS,
          ceiling_fields),
    TABLE("summary", PFS_SCH_COMPOUND, "/summary", struct pfs_summary_row, SUMMARY_UNITS, summary_fields),
    TABLE("latency_summary", PFS_SCH_COMPOUND, "/runs/NNNNNN/phases/NN_<phase>/latency_summary",
          struct pfs_lat_sum, LAT_SUM_UNITS, lat_sum_fields),
    TABLE("exemplar", PFS_SCH_COMPOUND, "/runs/NNNNNN/phases/NN_<phase>/exemplars", struct pfs_exemplar_row,
          PFS_SCH_EXEMPLAR_UNITS, pfs_sch_exemplar_fields),
    TABLE("target", PFS_SCH_COMPOUND, "/runs/NNNNNN/phases/NN_<phase>/targets", struct pfs_tg_row,
          PFS_SCH_TARGET_UNITS, pfs_sch_target_fields),
    TABLE("phase_datasets", PFS_SCH_DATASETS, "/runs/NNNNNN/phases/NN_<phase>", struct pfs_rep_figs, NULL,
          phase_fields),
    TABLE("latency_datasets", PFS_SCH_DATASETS, "/runs/NNNNNN/phases/NN_<phase>", struct pfs_rep_figs, NULL,
          latency_fields),
    TABLE0("phase_attributes", PFS_SCH_ATTRIBUTES, "/runs/NNNNNN/phases/NN_<phase>", attr_fields),
    TABLE("report", PFS_SCH_COLUMNS, "--format json: phases[].repetitions[]; --format csv: a row",
          struct pfs_rep_figs, NULL, report_fields),
};

const size_t pfs_schema_count = NELEM(pfs_schema);
