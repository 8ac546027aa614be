/* The tables every option, unit and exit status comes from: the parser
 * (config.c), --help and describe (config_describe.c) and
 * --list-options=json (config_json.c) all walk these (the fio way).
 * --api's choices are the backend registry's (src/backends/registry.c),
 * -p's the phase registry's (src/core/phases/registry.c); a backend's own
 * options are its table (src/backends), not rows here. */
#include "pfs/config.h"

#include <stddef.h>

#include "config_table.h"

#define OFF(f) offsetof(struct pfs_config, f)
#define BLANK(f) (offsetof(struct pfs_config, f) + 1)
#define DESC(k, p, u) .key = k, .pos = p, .unit = u

const struct pfs_opt pfs_opt_table[] = {
    {"dir", 'd', T_STRING, OFF(dir), 0, 0, NULL, "DIR", "target directory; must exist (pfsbench creates only its own files)", DESC("dir", 1, NULL)},
    {"file-name", 0, T_STRING, OFF(file_name), 0, 0, NULL, "PATH", "name the data files (IOR's -o): PATH with --shared, PATH.00000000, PATH.00000001 ... per stream; DIR is PATH's directory. A write refuses a PATH already there; a list without write reads the files there and leaves them as they are", .key = NULL},
    {"stonewall-file", 0, T_STRING, OFF(stonewall_file), 0, 0, NULL, "PATH", "IOR's stoneWallingStatusFile: a run that writes records in a new file PATH the transfers per stream it wrote (the count -D's wear-out reached); a run that only reads reads that many per stream of files written so (IOR's format: one decimal number)", .key = NULL},
    {"file-per-rep", 0, T_FLAG, OFF(file_per_rep), 0, 0, "1", NULL, "with --file-name: a file set per repetition, .REP after each name (IOR's -m: PATH.0, PATH.00000000.0 ...); without -k each repetition's files go at its end", .key = NULL},
    {"file-per-process", 'F', T_FLAG, OFF(shared), 0, 0, "0", NULL, "one file per stream: rank, or rank x thread (default)", DESC("mode", 2, NULL), .vals = "file-per-process|shared"},
    {"shared", 0, T_FLAG, OFF(shared), 0, 0, "1", NULL, "one file shared by all ranks", .key = "mode", .vals = "file-per-process|shared"},
    {"layout", 0, T_CHOICE, OFF(layout), 0, 0, "segmented|strided", "L", "shared-file layout: segmented (rank r owns [r*b,(r+1)*b)) or strided", DESC("layout", 3, NULL)},
    {"segments", 0, T_INT, OFF(segments), 1, 1073741824, NULL, "N", "cut each rank's block in N segments; with --shared segment k of every rank comes before segment k+1 (IOR's -s; default 1)", DESC("segments", 51, NULL)},
    {"transfer", 't', T_SIZE, OFF(transfer), 0, 0, NULL, "SIZE", "bytes per I/O call (default 1m)", DESC("transfer", 4, "bytes")},
    {"block", 'b', T_SIZE, OFF(block), 0, 0, NULL, "SIZE", "bytes per rank, a multiple of the transfer (default 64m)", DESC("block", 5, "bytes")},
    {"total", 0, T_SIZE, OFF(total), 0, 0, NULL, "SIZE", "bytes over all ranks; block = total / ranks", DESC("total", 6, "bytes")},
    {"phases", 'p', T_PHASES, OFF(phases), 0, 0, NULL, "LIST", "the phases to run, in order (default write,read)", DESC("phases", 7, NULL)},
    {"reps", 'i', T_INT, OFF(reps), 1, 1000000, NULL, "N", "repetitions of the phase list (default 1); auto: until the 95% confidence interval of every phase's mean is within --ci", DESC("reps", 8, NULL), .vals = "auto"},
    {"ci", 0, T_DOUBLE, OFF(ci), 0.1, 100, NULL, "PCT", "with --reps auto: stop when every phase's 95% confidence interval is within +-PCT% of its mean (default 5)", DESC("ci", 39, "percent")},
    {"max-reps", 0, T_INT, OFF(max_reps), 2, 100000, NULL, "N", "with --reps auto: at most N measured repetitions, then stop and warn (default 20)", DESC("max_reps", 40, NULL)},
    {"warmup", 0, T_INT, OFF(warmup), 0, 100000, NULL, "N", "run the phase list N times first: stored, left out of the statistics (default 0)", DESC("warmup", 41, NULL)},
    {"rep-delay", 0, T_DOUBLE, OFF(rep_delay), 0.001, 1e6, NULL, "SECS", "sleep SECS between two repetitions of the phase list, outside every timed phase (IOR's -d; default 0: none)", DESC("rep_delay", 49, "seconds")},
    {"fsync", 'e', T_FLAG, OFF(fsync), 0, 0, "1", NULL, "fsync before close, inside the timed region", DESC("fsync", 9, NULL)},
    {"rmw", 0, T_FLAG, OFF(rmw), 0, 0, "1", NULL, "rewrite phases: read each transfer, change it and write it back in place (bonnie++'s rewrite)", DESC("rmw", 44, NULL)},
    {"fsync-every", 0, T_INT, OFF(fsync_every), 0, 1000000000, NULL, "N", "write phases: fsync after every N transfers of a stream, timed (fio's fsync=N; IOR's -Y is 1; default 0: none)", DESC("fsync_every", 37, NULL)},
    {"seeks", 0, T_INT, OFF(seeks), 1, 1000000000, NULL, "N", "the seeks phase: N seeks over all streams, split evenly (bonnie++'s default 8000)", DESC("seeks", 48, NULL)},
    {"sync", 0, T_CHOICE, OFF(sync_mode), 0, 0, "none|dsync|sync", "MODE", "open the data files O_DSYNC or O_SYNC (fio's sync=dsync|sync; default none)", DESC("sync", 38, NULL)},
    {"include-close", 0, T_ACTION, 0, 0, 0, NULL, NULL, "close is inside the timed region (always; IOzone's -c: pfsbench iozone takes it)", DESC("include_close", 23, NULL), .vals = "1"},
    {"keep", 'k', T_FLAG, OFF(keep), 0, 0, "1", NULL, "keep the data files (default: remove the files this run created)", DESC("keep", 10, NULL)},
    {"direct", 0, T_FLAG, OFF(direct), 0, 0, "1", NULL, "O_DIRECT; sizes must be multiples of the file system's alignment", DESC("direct", 11, NULL)},
    {"drop-caches", 0, T_FLAG, OFF(drop_caches), 0, 0, "1", NULL, "drop the page cache of each file before each read phase", DESC("drop_caches", 12, NULL)},
    {"verify", 0, T_FLAG, OFF(verify), 0, 0, "1", NULL, "write a checkable pattern and check every byte read", DESC("verify", 13, NULL)},
    {"random", 0, T_FLAG, OFF(random), 0, 0, "1", NULL, "visit each rank's transfers in a seeded random order", DESC("random", 14, NULL)},
    {"random-dist", 0, T_STRING, OFF(random_dist), 0, 0, NULL, "SPEC", "fio's random_distribution for random offsets (with --random: rewrite, read, reread, rwmix; and seeks): uniform, zipf:THETA, pareto:H or normal:PCT, each with an optional :CENTER in [0,1]; drawn with replacement from the run's seed over the blocks the write laid out, which stays a full pass (default: none, --random's permutation)", DESC("random_dist", 70, NULL)},
    {"buffer-compress", 0, T_INT, OFF(buffer_compress), 0, 99, NULL, "PCT", "writes: PCT percent of each 512-byte chunk (the transfer, when smaller) zeros, the rest the verification pattern, so the data compresses to about 100-PCT percent (fio's buffer_compress_percentage; default 0)", DESC("buffer_compress", 71, "percent")},
    {"dedupe", 0, T_INT, OFF(dedupe), 0, 100, NULL, "PCT", "writes: PCT percent of the transfers repeat another one of the same file (in each 100 transfers exactly PCT; fio's dedupe_percentage, the unit -t; default 0)", DESC("dedupe", 72, "percent")},
    {"rwmix", 0, T_INT, OFF(rwmix), 0, 100, NULL, "PCT", "the rwmix phase: PCT percent of its transfers are reads, the rest writes, drawn per transfer from the run's seed, exactly PCT in each hundred (fio's rwmixread; default 50)", DESC("rwmix", 87, "percent")},
    {"bssplit", 0, T_STRING, OFF(bssplit), 0, 0, NULL, "LIST", "fio's bssplit: each transfer's size drawn from LIST, SIZE/PCT:SIZE/PCT... (4k/70:64k/30; a size without a percentage shares what is left), exactly as given in each hundred transfers; each at the start of its -t slot, so no size may exceed -t (without -t, -t is the largest size). Phases over the block a write laid out (rewrite, read, reread, rwmix, seeks); the write lays it out in -t (default: -t alone)", DESC("bssplit", 88, NULL)},
    {"deadline", 'D', T_DOUBLE, OFF(deadline), 0.001, 1e9, NULL, "SECS", "stonewall: stop issuing transfers after SECS, then wear out to the largest count", DESC("deadline", 15, "seconds")},
    {"runtime", 0, T_DOUBLE, OFF(runtime), 0.001, 1e9, NULL, "SECS", "data phases: each runs SECS, wrapping around the block (fio's time_based + runtime; default off)", DESC("runtime", 42, "seconds")},
    {"ramp", 0, T_DOUBLE, OFF(ramp), 0.001, 1e9, NULL, "SECS", "data phases: each stream's first SECS run but are left out of the figures (fio's ramp_time; default off)", DESC("ramp", 43, "seconds")},
    {"reorder", 'C', T_FLAG, OFF(reorder), 0, 0, "1", NULL, "read the data a rank on another node wrote", DESC("reorder", 16, NULL)},
    {"reorder-nodes", 0, T_INT, OFF(reorder_nodes), 1, 1048576, NULL, "N", "with -C: read what the ranks N nodes on wrote (IOR's -Q N; default 1: the nearest other node)", DESC("reorder_nodes", 50, NULL)},
    {"reorder-seed", 0, T_INT, OFF(reorder_seed), 0, 2147483647, NULL, "S", "with -C: rank r reads the data of rank p(r), p a permutation of the ranks drawn from seed S, each reader on another node where the placement allows (IOR's -Z -X S; default: -C's fixed shift)", DESC("reorder_seed", 52, NULL)},
    {"api", 'a', T_CHOICE, OFF(api), 0, 0, NULL, "API", "I/O interface (default posix); null moves no data and measures pfsbench's own cost", DESC("api", 17, NULL), .registry = 1},
    {"collective", 'c', T_FLAG, OFF(collective), 0, 0, "1", NULL, "MPI-IO collective calls (with --shared; IOR's -c)", DESC("collective", 18, NULL)},
    {"hint", 0, T_HINT, OFF(hints), 0, 0, NULL, "K=V", "MPI-IO hint, repeatable", DESC("hints", 19, NULL)},
    {"results", 'o', T_STRING, OFF(results), 0, 0, NULL, "FILE", "HDF5 results file, a name ending in .h5 (default pfsbench-results.h5); IOR's -o test file is --file-name PATH", DESC("results", 20, NULL), .blank = BLANK(no_results)},
    {"no-results", 0, T_FLAG, OFF(no_results), 0, 0, "1", NULL, "write no results file", .key = NULL},
    {"label", 0, T_STRING, OFF(label), 0, 0, NULL, "TEXT", "a label stored with the run", DESC("label", 21, NULL)},
    {"run-id", 0, T_STRING, OFF(run_id), 0, 0, NULL, "ID", "name the data files pfsbench.ID.*; reuse with -p read to read files kept earlier", .key = NULL},
    {"straggler", 0, T_DOUBLE, OFF(straggler), 0.01, 1.0, NULL, "F", "flag a node below F x the median node bandwidth (default 0.8)", DESC("straggler", 22, "fraction")},
    {"threads", 0, T_INT, OFF(threads), 1, 4096, NULL, "N", "I/O threads per rank (gpfsperf -th); streams = ranks x N (default 1)", DESC("threads", 26, NULL)},
    {"files", 'n', T_INT, OFF(files), 1, 100000000, NULL, "N", "metadata phases: files per stream (default 1000)", DESC("files", 27, NULL)},
    {"file-size", 0, T_SIZE0, OFF(file_size), 0, 0, NULL, "SIZE", "metadata phases: bytes in each file (default 0: empty, like bonnie++ -n)", DESC("file_size", 28, "bytes")},
    {"dirs", 0, T_CHOICE, OFF(dirs), 0, 0, "shared|per-rank", "D", "metadata phases: one directory for all, or one per stream (default shared)", DESC("dirs", 29, NULL)},
    {"depth", 0, T_INT, OFF(md_depth), 0, 32, NULL, "D", "metadata phases: a tree of directories D deep under each stream's directory, --branch children each; files spread over all its directories (mdtest -z; default 0: flat)", DESC("depth", 45, NULL)},
    {"branch", 0, T_INT, OFF(md_branch), 1, 100000, NULL, "B", "with --depth: children of each directory of the tree (mdtest -b; default 1)", DESC("branch", 46, NULL)},
    {"leaf-only", 0, T_FLAG, OFF(md_leaf_only), 0, 0, "1", NULL, "with --depth: files in the tree's leaves only (mdtest -L; default: every directory)", DESC("leaf_only", 47, NULL)},
    {"order", 0, T_CHOICE, OFF(md_random), 0, 0, "sequential|random", "O", "metadata phases: names in order, or a seeded permutation (default sequential)", DESC("order", 30, NULL)},
    {"iodepth", 0, T_INT, OFF(iodepth), 1, 65536, NULL, "N", "transfers in flight per stream with an async --api (uring, aio, rados); 1: one at a time (default)", DESC("iodepth", 31, NULL)},
    {"ckpt", 0, T_STRING, OFF(ckpt), 0, 0, NULL, "PRESET", "the checkpoint the ckpt-save and ckpt-restore phases write and read: llama3-8b, llama3-70b, llama3-405b, llama3-1t (MLPerf Storage's sizes) or tiny, tiny-zero3, small (for tests)", DESC("ckpt", 54, NULL)},
    {"ckpt-tp", 0, T_INT, OFF(ckpt_tp), 1, 16777216, NULL, "N", "checkpoint: tensor-parallel degree (default: the preset's)", DESC("ckpt_tp", 55, NULL)},
    {"ckpt-pp", 0, T_INT, OFF(ckpt_pp), 1, 16777216, NULL, "N", "checkpoint: pipeline-parallel degree (default: the preset's)", DESC("ckpt_pp", 56, NULL)},
    {"ckpt-dp", 0, T_INT, OFF(ckpt_dp), 1, 16777216, NULL, "N", "checkpoint: data-parallel degree (default: ranks / (TP x PP)); TP x PP x DP must be the rank count", DESC("ckpt_dp", 57, NULL)},
    {"ckpt-zero", 0, T_INT, OFF(ckpt_zero), 0, 3, NULL, "Z", "checkpoint: ZeRO stage 0..3 (default: the preset's)", DESC("ckpt_zero", 58, NULL)},
    {"ckpt-layout", 0, T_CHOICE, OFF(ckpt_layout), 0, 0, "shard|rank|shared", "L", "checkpoint files: one per shard (DLIO, DeepSpeed; default), one per writing rank (torch.distributed.checkpoint) or one shared", DESC("ckpt_layout", 59, NULL)},
    {"ckpt-restore", 0, T_CHOICE, OFF(ckpt_restore), 0, 0, "spread|leader|each", "P", "checkpoint restore: replicated parts read in pieces by every replica (default), all by the first, or whole by each", DESC("ckpt_restore", 60, NULL)},
    {"ckpt-saved", 0, T_STRING, OFF(ckpt_saved), 0, 0, NULL, "TPxPPxDP", "ckpt-restore of a kept checkpoint (--run-id): the degrees it was saved with (default: this run's)", DESC("ckpt_saved", 61, NULL)},
    {"rate", 0, T_STRING, OFF(rate), 0, 0, NULL, "R", "data phases: an open-loop rate per stream (or the job's, --rate-scope job): R operations/s, or bytes/s with a size unit (200MiB); each transfer has an intended start and its response time runs from it (default: none, closed loop)", DESC("rate", 62, NULL)},
    {"rate-scope", 0, T_CHOICE, OFF(rate_scope), 0, 0, "stream|job", "S", "with --rate: R for each stream (default), or for the whole job, split evenly over the streams", DESC("rate_scope", 63, NULL)},
    {"arrivals", 0, T_CHOICE, OFF(arrivals), 0, 0, "fixed|poisson", "A", "with --rate: evenly spaced intended starts (default), or a Poisson process drawn from the run's seed", DESC("arrivals", 64, NULL)},
    {"rate-sweep", 0, T_STRING, OFF(rate_sweep), 0, 0, NULL, "LIST", "data phases: a latency-load curve in one launch, a repetition at each rate of LIST (as --rate: 100,200,400 or 1MiB,2MiB), or at each percentage of what a first closed-loop repetition achieved (20%,50%,100%: the job's rate); the report marks the knee", DESC("rate_sweep", 85, NULL)},
    {"latency-target", 0, T_STRING, OFF(lat_target), 0, 0, NULL, "P=T", "data phase: the largest job rate whose response-time percentile P (p50, p99, p99.9) stays within T (2ms, 500us), searched cluster-wide: a closed-loop repetition, then a bisection of rates below its peak, at most 10 (one phase in -p)", DESC("latency_target", 86, NULL)},
    {"train", 0, T_STRING, OFF(train), 0, 0, NULL, "PRESET", "the data set and training the train-gen and train phases make and read: unet3d, resnet50, cosmoflow (MLPerf Storage's H100 workloads) or tiny, tiny-records, small (for tests)", DESC("train", 75, NULL)},
    {"train-files", 0, T_INT, OFF(train_files), 1, 1073741824, NULL, "F", "training data set: files (default: the preset's)", DESC("train_files", 76, NULL)},
    {"train-records", 0, T_INT, OFF(train_records), 1, 1073741824, NULL, "R", "training data set: samples per file (default: the preset's)", DESC("train_records", 77, NULL)},
    {"train-sample", 0, T_SIZE, OFF(train_sample), 0, 0, NULL, "SIZE", "training data set: bytes per sample (default: the preset's)", DESC("train_sample", 78, "bytes")},
    {"train-batch", 0, T_INT, OFF(train_batch), 1, 16777216, NULL, "B", "train: samples per batch (default: the preset's)", DESC("train_batch", 79, NULL)},
    {"train-compute", 0, T_DOUBLE, OFF(train_compute), 0, 1e7, NULL, "MS", "train: an accelerator's compute per batch, milliseconds (default: the preset's)", DESC("train_compute", 80, "milliseconds")},
    {"train-epochs", 0, T_INT, OFF(train_epochs), 1, 1000000, NULL, "E", "train: epochs (default: the preset's)", DESC("train_epochs", 81, NULL)},
    {"accelerators", 0, T_INT, OFF(accelerators), 1, 64, NULL, "N", "train: emulated accelerators per rank, each its own batches (default 1)", DESC("accelerators", 82, NULL)},
    {"prefetch", 0, T_INT, OFF(prefetch), 1, 4096, NULL, "P", "train: batches read ahead of the accelerators (default 2)", DESC("prefetch", 83, NULL)},
    {"au-gate", 0, T_DOUBLE, OFF(au_gate), 0.001, 100, NULL, "PCT", "train: the accelerator-utilisation gate a run passes or fails (default: the preset's, MLPerf's 90 or 70)", DESC("au_gate", 84, "percent")},
    {"find-max-accelerators", 0, T_FLAG, OFF(find_max_acc), 0, 0, "1", NULL, "train: search the most accelerators per rank that keep the AU gate (trials of the whole training, 1, 2, 4, ... then halving the gap), then run at that count", .key = NULL},
    {"format", 0, T_CHOICE, OFF(format), 0, 0, "text|json|csv|ior|mdtest", "F", "the report on stdout (default text; ior and mdtest: those tools' summaries, at the end); messages go to stderr", .key = NULL},
    {"units", 0, T_CHOICE, OFF(units), 0, 0, "MiB|KB|MB|GB", "U", "bandwidth unit: MiB/s (default), KB/s (1024 B/s, the seeds'), MB/s or GB/s (decimal)", .key = NULL},
    {"progress", 0, T_FLAG, OFF(progress), 0, 0, "1", NULL, "show the live progress line even when stdout is not a terminal", .key = NULL},
    {"timeout", 0, T_DOUBLE, OFF(timeout), 0.001, 1e9, NULL, "SECS", "watchdog: abort (exit 3) naming the ranks a phase waits for past SECS (default off)", DESC("timeout", 24, "seconds")},
    {"interval", 0, T_DOUBLE, OFF(interval), 0.01, 3600, NULL, "SECS", "time series: bytes, operations and latency per node every SECS (default 1; coarsened past 512 intervals)", DESC("interval", 32, "seconds")},
    {"exemplars", 0, T_INT, OFF(exemplars), 0, 64, NULL, "K", "the K slowest operations of each phase across the job (rank, host, thread, op, file, offset, length, start, duration): in the results file and --format json, printed with -v; 0: none (default 16)", DESC("exemplars", 53, NULL)},
    {"stall-warn", 0, T_DOUBLE, OFF(stall_warn), 0.01, 1e9, NULL, "SECS", "warn of a call blocked SECS or longer, e.g. on a storage server that stopped answering (default 10)", DESC("stall_warn", 25, "seconds")},
    {"force", 0, T_FLAG, OFF(force), 0, 0, "1", NULL, "accept a world-writable DIR without the sticky bit", .key = NULL},
    {"job", 'f', T_STRING, OFF(job), 0, 0, NULL, "JOBFILE", "run every [section] of a job file (fio's syntax: pfsbench's long options, or fio's bs, size, rw ...) in this one MPI job", .key = NULL},
    {"ranks", 0, T_STRING, OFF(ranks), 0, 0, NULL, "LIST", "rank sweep in this one job: a run per point with that many ranks (pow2, all, or e.g. 1,2,4,8), taken round-robin across nodes; the others wait", .key = NULL},
    {"stop-on-error", 0, T_FLAG, OFF(stop_on_error), 0, 0, "1", NULL, "with -f: stop at the first section that fails (default: record it and go on)", .key = NULL},
    {"clean", 0, T_FLAG, OFF(clean), 0, 0, "1", NULL, "list pfsbench leftovers in DIR (remove them with --yes), then exit; with --api rados and its pool, or --api s3 and its bucket, a dead run's objects too", .key = NULL},
    {"yes", 0, T_FLAG, OFF(yes), 0, 0, "1", NULL, "with --clean: remove the leftovers it lists", .key = NULL},
    {"any-owner", 0, T_FLAG, OFF(any_owner), 0, 0, "1", NULL, "with --clean: include leftovers owned by other users (default: only your own)", .key = NULL},
    {"iozone-lines", 0, T_FLAG, OFF(iozone_lines), 0, 0, "1", NULL, "after the text report, IOzone's throughput lines for each phase (Children see, Parent sees, Min/Max/Avg throughput per process, Min xfer; pfsbench iozone -t N gives it)", .key = NULL},
    {"ceilings", 0, T_FLAG, OFF(ceilings), 0, 0, "1", NULL, "before the phases, untimed: each node's memory-copy rate (one core, all cores) and the network rate between nodes; each data phase is then read as a share of them", .key = NULL},
    {"quiet", 'q', T_FLAG, OFF(quiet), 0, 0, "1", NULL, "print only the summary and the kept files' line (-k)", .key = NULL},
    {"verbose", 'v', T_FLAG, OFF(verbose), 0, 0, "1", NULL, "also the placement table, timed region, page cache lines, open/fsync/close and per-repetition latency", .key = NULL},
    {"list-options", 0, T_ACTION, 0, 0, 0, "json", "FORMAT", "print the options, phases, units, exit codes and file names for scripts, then exit", .key = NULL},
    {"help", 'h', T_ACTION, 0, 0, 0, NULL, NULL, "this help", .key = NULL},
    {"version", 0, T_ACTION, 0, 0, 0, NULL, NULL, "print the version", .key = NULL},
};
const size_t pfs_opt_count = sizeof(pfs_opt_table) / sizeof(pfs_opt_table[0]);
_Static_assert(sizeof(pfs_opt_table) / sizeof(pfs_opt_table[0]) <= PFS_OPT_MAX, "raise PFS_OPT_MAX");

const struct pfs_unit_row pfs_units_table[] = {
    {"MiB", "MiB/s", 1048576.0}, {"KB", "KB/s", 1024.0}, {"MB", "MB/s", 1e6}, {"GB", "GB/s", 1e9},
};
const int pfs_units_count = (int)(sizeof(pfs_units_table) / sizeof(pfs_units_table[0]));

const char *pfs_units_label(int units) { return pfs_units_table[units >= 0 && units < pfs_units_count ? units : 0].label; }
double pfs_units_scale(int units) { return pfs_units_table[units >= 0 && units < pfs_units_count ? units : 0].scale; }

/* Exit statuses as --help and --list-options=json say them (docs/usage.md too). */
const struct pfs_exit_row pfs_exit_table[] = {
    {PFS_EXIT_OK, "success"},
    {PFS_EXIT_IO, "I/O error or verification failure"},
    {PFS_EXIT_USAGE, "bad input"},
    {PFS_EXIT_TIMEOUT, "watchdog timeout"},
};
const size_t pfs_exit_count = sizeof(pfs_exit_table) / sizeof(pfs_exit_table[0]);
const char *const pfs_exit_signals[] = {"SIGHUP", "SIGINT", "SIGPIPE", "SIGTERM", "SIGUSR1", "SIGUSR2"};
const size_t pfs_exit_nsignals = sizeof(pfs_exit_signals) / sizeof(pfs_exit_signals[0]);
