"""pfs-io500: IO500's score over the runs of an IO500-shaped job (pfsbench.cli.io500).

    pfs-io500 FILE                  the runs labelled ior-easy, mdtest-easy, ior-hard
                                    and mdtest-hard (jobs/io500-style.job), the last of each
    pfs-io500 FILE --prefix X-      the runs labelled X-ior-easy, ...
    pfs-io500 FILE --format json

IO500's arithmetic on the stored figures: each ior phase in GiB/s (2^30
bytes/s: the bytes all ranks moved over the phase's time, which with the
stonewall's wear-out is IO500's figure), each mdtest phase in kIOPS (1000
files/s); bandwidth = geometric mean of the four ior phases, metadata =
geometric mean of the seven mdtest phases and find (8 values), score =
sqrt(bandwidth x metadata). find is the mdtest-hard run's find phase (files
examined / its time, in kIOPS). With more than one repetition a phase's figure is the mean over
them.

This is not an IO500 result, and the output says so first: pfsbench runs
each workload's phases back to back (IO500 interleaves all writes, find,
then the reads), its find walks only mdtest-hard's files (IO500's walks
both mdtest workloads').
Every IO500 rule a run did not meet is listed (write phases under 300 s,
shapes other than IO500's, no reads from another node, no fsync at close).

Exit status: 0 scored, 2 bad input (not a results file, a workload missing
or failed).
"""

import argparse
import json
import math
import sys
from typing import Any, Dict, Iterable, List, Optional, Sequence, TextIO, Tuple

from ..reader import Results, Run
from .common import Usage, fail, open_results

PROG = "pfs-io500"

WORKLOADS = ("ior-easy", "mdtest-easy", "ior-hard", "mdtest-hard")
# IO500's phase names, in its score's order: (name, workload label, pfsbench phase, kind)
PHASES = (
    ("ior-easy-write", "ior-easy", "write", "bw"),
    ("ior-easy-read", "ior-easy", "read", "bw"),
    ("ior-hard-write", "ior-hard", "write", "bw"),
    ("ior-hard-read", "ior-hard", "read", "bw"),
    ("mdtest-easy-write", "mdtest-easy", "create", "md"),
    ("mdtest-easy-stat", "mdtest-easy", "stat", "md"),
    ("mdtest-easy-delete", "mdtest-easy", "delete", "md"),
    ("mdtest-hard-write", "mdtest-hard", "create", "md"),
    ("mdtest-hard-stat", "mdtest-hard", "stat", "md"),
    ("mdtest-hard-read", "mdtest-hard", "read-files", "md"),
    ("mdtest-hard-delete", "mdtest-hard", "delete", "md"),
    ("find", "mdtest-hard", "find", "md"),
)
WRITE_PHASES = ("ior-easy-write", "ior-hard-write", "mdtest-easy-write", "mdtest-hard-write")
MIN_WRITE_S = 300.0
GIB = float(1 << 30)
# IO500's shapes: workload -> [(attribute, wanted, how IO500 says it)]
SHAPES = {
    "ior-easy": [("mode", "file-per-process", "-F"), ("transfer", 2 << 20, "-t 2m")],
    "ior-hard": [("mode", "shared", "one shared file"), ("layout", "strided", "-s segments (strided)"),
                 ("transfer", 47008, "-t 47008")],
    "mdtest-easy": [("file_size", 0, "empty files"), ("dirs", "per-rank", "-u")],
    "mdtest-hard": [("file_size", 3901, "-w 3901 -e 3901"), ("dirs", "shared", "one shared directory")],
}


def geomean(values: Sequence[float]) -> float:
    """The geometric mean of positive values; NaN when one is missing or not positive."""
    if not values or any(not (v > 0) for v in values):
        return float("nan")
    return math.exp(sum(math.log(v) for v in values) / len(values))


def pick_runs(results: Results, prefix: str) -> Dict[str, Run]:
    """{workload: the last run labelled prefix+workload}; Usage when one is missing."""
    runs = {}
    for run in results:
        for w in WORKLOADS:
            if run.label == prefix + w:
                runs[w] = run
    missing = [prefix + w for w in WORKLOADS if w not in runs]
    if missing:
        raise Usage("no run labelled %s in the file (jobs/io500-style.job names its sections ior-easy, mdtest-easy, "
                    "ior-hard and mdtest-hard; give --prefix if yours carry one)" % ", ".join(missing))
    return runs


def phase_figures(runs: Dict[str, Run]) -> Dict[str, Tuple[float, float, int]]:
    """{IO500 phase: (value in GiB/s or kIOPS, seconds, reps)} from the runs' summaries (mean over reps)."""
    out: Dict[str, Tuple[float, float, int]] = {}
    summaries: Dict[str, Dict[str, Any]] = {}
    for name, w, phase, kind in PHASES:
        if w not in summaries:  # one read of each run's summary, not one per IO500 phase
            summaries[w] = runs[w].summary(as_frame=False)
        s = summaries[w]
        rows = [i for i in range(len(s["phase"])) if s["phase"][i] == phase and s["warmup"][i] != 1]
        if not rows:
            raise Usage("run %d (%s) has no %s phase: %s needs it" % (runs[w].number, runs[w].label, phase, name))
        col = "bandwidth" if kind == "bw" else "rate"
        vals = [float(s[col][i]) for i in rows]
        secs = [float(s["seconds"][i]) for i in rows]
        scale = GIB if kind == "bw" else 1000.0
        out[name] = (sum(vals) / len(vals) / scale, sum(secs) / len(secs), len(rows))
    return out


def rules_not_met(runs: Dict[str, Run], figs: Dict[str, Tuple[float, float, int]]) -> List[str]:
    """The IO500 rules this run did not meet, one sentence each."""
    notes = ["phase order: each workload's phases ran back to back; IO500 runs all write phases, then find, then "
             "the reads, stats and deletes",
             "find: walks the mdtest-hard run's files only (its own section); IO500's find walks the files of "
             "both mdtest workloads"]
    for name in WRITE_PHASES:
        s = figs[name][1]
        if s < MIN_WRITE_S:
            notes.append("%s ran %.3g s; IO500 requires at least %.0f s" % (name, s, MIN_WRITE_S))
    for w in WORKLOADS:
        d = float(runs[w].attrs.get("deadline", 0) or 0)
        if d != MIN_WRITE_S:
            notes.append("%s: stonewall %s; IO500's is %s 300 with wear-out" % (w, "%g s" % d if d > 0 else "off",
                                                                             "-D" if w.startswith("ior") else "-W"))
    for w, shape in SHAPES.items():
        a = runs[w].attrs
        for key, want, how in shape:
            if a.get(key) != want:
                notes.append("%s: %s %s, IO500's is %s (%s)" % (w, key, a.get(key), want, how))
    for w in WORKLOADS:
        a = runs[w].attrs
        if not a.get("reorder"):
            notes.append("%s: reads of the rank's own data; IO500 reads another node's (-C, --reorder)" % w)
        elif int(a.get("nodes", 1)) < 2:
            notes.append("%s: one node, so no read came from another node (IO500's -C)" % w)
        if w.startswith("ior") and not a.get("fsync"):
            notes.append("%s: no fsync at close; IO500's ior runs with -e (--fsync)" % w)
        if runs[w].status != "complete":
            notes.append("%s: run %d is %s" % (w, runs[w].number, runs[w].status))
    return notes


def score(path: str, prefix: str = "") -> Dict[str, Any]:
    """The whole computation: a dict (phases, bw, md, score, notes, runs)."""
    try:
        results = open_results(path, PROG)
    except Usage:
        raise
    except Exception as e:  # noqa: BLE001 - any unreadable file is bad input
        raise Usage(str(e))
    with results:
        runs = pick_runs(results, prefix)
        figs = phase_figures(runs)
        notes = rules_not_met(runs, figs)
    bw = geomean([figs[n][0] for n, _, _, k in PHASES if k == "bw"])
    md = geomean([figs[n][0] for n, _, _, k in PHASES if k == "md"])
    return {"file": path, "phases": figs, "bw": bw, "md": md, "score": math.sqrt(bw * md),
            "runs": {w: runs[w].number for w in WORKLOADS}, "notes": notes,
            "ranks": runs["ior-easy"].ranks, "nodes": runs["ior-easy"].nodes}


def print_text(r: Dict[str, Any], out: TextIO) -> None:
    out.write("IO500-SHAPED RUN, NOT AN IO500 RESULT (rules not met are listed below)\n")
    out.write("file %s, runs %s; %d ranks on %d node(s)\n\n" % (
        r["file"], ", ".join("%s %d" % (w, n) for w, n in r["runs"].items()), r["ranks"], r["nodes"]))
    for name, _, _, kind in PHASES:
        v, s, reps = r["phases"][name]
        out.write("[RESULT] %-20s %14.6f %-5s : time %10.4f seconds%s\n" % (
            name, v, "GiB/s" if kind == "bw" else "kIOPS", s, "" if reps == 1 else " (mean of %d reps)" % reps))
    out.write("\n[SCORE ] Bandwidth %.6f GiB/s : IOPS %.6f kiops (7 mdtest phases and find) : TOTAL %.6f\n" % (
        r["bw"], r["md"], r["score"]))
    out.write("\nIO500 rules this run did not meet:\n")
    for n in r["notes"]:
        out.write("  - %s\n" % n)


def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0])
    ap.add_argument("file", help="a pfsbench results file holding the runs of jobs/io500-style.job")
    ap.add_argument("--prefix", default="", help="the labels' common prefix (default none)")
    ap.add_argument("--format", choices=("text", "json"), default="text")
    a = ap.parse_args(argv)
    try:
        r = score(a.file, a.prefix)
    except Usage as e:
        return fail(PROG, e)
    if a.format == "json":
        j = dict(r)
        j["phases"] = {n: {"value": v, "unit": "GiB/s" if k == "bw" else "kIOPS", "seconds": s, "reps": reps}
                       for (n, _, _, k), (v, s, reps) in ((p, r["phases"][p[0]]) for p in PHASES)}
        j["md_phases"] = "7 mdtest phases and find"
        json.dump(j, sys.stdout, indent=1, allow_nan=True)
        sys.stdout.write("\n")
    else:
        print_text(r, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
