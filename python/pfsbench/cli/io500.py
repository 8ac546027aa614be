"""pfs-io500: IO500's score over the runs of jobs/io500.job (pfsbench.cli.io500).

    pfs-io500 FILE                  the runs labelled as IO500's phases
                                    (ior-easy-write, mdtest-easy-write, ...),
                                    the last of each
    pfs-io500 FILE --prefix X-      the runs labelled X-ior-easy-write, ...
    pfs-io500 FILE --format json

jobs/io500.job runs one section per IO500 phase, in IO500's order, the
writes keeping their files for the later sections. IO500's arithmetic on
the stored figures: each ior phase in GiB/s (2^30 bytes/s: the bytes all
ranks moved over the phase's time, which with the stonewall's wear-out is
IO500's figure), each mdtest phase in kIOPS (1000 files/s); bandwidth =
geometric mean of the four ior phases, metadata = geometric mean of the
seven mdtest phases and find (8 values), score = sqrt(bandwidth x
metadata). find is the files the two find sections (one per mdtest tree)
examined over the sum of their times. ior-rnd4K-easy-read is shown, in
IO500's unscored line ("[      ]"), and enters no mean, as in IO500. With
more than one repetition a phase's figure is the mean over them.

This is not an IO500 result, and the output says so first. Every IO500
rule a run did not meet is listed (phases out of IO500's order, write
phases under 300 s, stonewalls other than 300 s, shapes other than
IO500's, no reads from another node, no fsync at close).

Exit status: 0 scored, 2 bad input (not a results file, a phase missing).
"""

import argparse
import json
import math
import sys
from typing import Any, Dict, List, NamedTuple, Optional, Sequence, TextIO, Tuple

from ..reader import Results, Run
from .common import Usage, fail, open_results

PROG = "pfs-io500"


class Phase(NamedTuple):
    name: str       # IO500's, and the job's section (the run's label)
    step: str       # the pfsbench phase the section runs
    kind: str       # bw, md (in the score) or none (shown, not scored)
    workload: str   # IO500's workload, whose shape the write section sets


# IO500's phases in its order (io500's src/phase-definitions.h, standard
# mode); find is two sections, one per mdtest tree (FIND_SECTIONS).
PHASES = (
    Phase("ior-easy-write", "write", "bw", "ior-easy"),
    Phase("mdtest-easy-write", "create", "md", "mdtest-easy"),
    Phase("ior-hard-write", "write", "bw", "ior-hard"),
    Phase("mdtest-hard-write", "create", "md", "mdtest-hard"),
    Phase("find", "find", "md", "find"),
    Phase("ior-easy-read", "read", "bw", "ior-easy"),
    Phase("mdtest-easy-stat", "stat", "md", "mdtest-easy"),
    Phase("ior-hard-read", "read", "bw", "ior-hard"),
    Phase("mdtest-hard-stat", "stat", "md", "mdtest-hard"),
    Phase("mdtest-easy-delete", "delete", "md", "mdtest-easy"),
    Phase("mdtest-hard-read", "read-files", "md", "mdtest-hard"),
    Phase("mdtest-hard-delete", "delete", "md", "mdtest-hard"),
    Phase("ior-rnd4K-easy-read", "read", "none", "ior-easy"),
)
FIND_SECTIONS = ("find-mdtest-easy", "find-mdtest-hard")
# The sections in the job's order: find's two where IO500's find is.
SECTIONS = tuple(s for p in PHASES for s in (FIND_SECTIONS if p.name == "find" else (p.name,)))
WRITE_PHASES = ("ior-easy-write", "mdtest-easy-write", "ior-hard-write", "mdtest-hard-write")
STONEWALLED = WRITE_PHASES + ("ior-rnd4K-easy-read",)
# Sections that read another rank's data in IO500 (its -C, or mdtest's -N 1).
REORDERED = ("ior-easy-read", "mdtest-easy-stat", "ior-hard-read", "mdtest-hard-stat", "mdtest-hard-read",
             "ior-rnd4K-easy-read")
MIN_WRITE_S = 300.0
GIB = float(1 << 30)
# IO500's shapes: section -> [(attribute, wanted, how IO500 says it)]
SHAPES: Dict[str, List[Tuple[str, Any, str]]] = {
    "ior-easy-write": [("mode", "file-per-process", "-F"), ("transfer", 2 << 20, "-t 2m")],
    "ior-hard-write": [("mode", "shared", "one shared file"), ("layout", "strided", "-s segments (strided)"),
                       ("transfer", 47008, "-t 47008")],
    "mdtest-easy-write": [("file_size", 0, "empty files"), ("dirs", "per-rank", "-u")],
    "mdtest-hard-write": [("file_size", 3901, "-w 3901 -e 3901"), ("dirs", "shared", "one shared directory")],
    "ior-rnd4K-easy-read": [("transfer", 4096, "-t 4096"), ("random", 1, "-z"), ("reorder_nodes", 2, "-Q 2")],
}
Figure = Tuple[float, float, int]  # (GiB/s or kIOPS, seconds, reps)


def geomean(values: Sequence[float]) -> float:
    """The geometric mean of positive values; NaN when one is missing or not positive."""
    if not values or any(not (v > 0) for v in values):
        return float("nan")
    return math.exp(sum(math.log(v) for v in values) / len(values))


def pick_runs(results: Results, prefix: str) -> Dict[str, Run]:
    """{section: the last run labelled prefix+section}; Usage when a scored one is missing."""
    runs = {}
    for run in results:
        for s in SECTIONS:
            if run.label == prefix + s:
                runs[s] = run
    missing = [prefix + s for s in SECTIONS if s not in runs and s != "ior-rnd4K-easy-read"]
    if missing:
        raise Usage("no run labelled %s in the file (jobs/io500.job names its sections after IO500's phases; "
                    "give --prefix if yours carry one)" % ", ".join(missing))
    return runs


def step_rows(run: Run, step: str, what: str) -> Tuple[List[float], List[float], List[float]]:
    """The measured repetitions of run's phase step: ([bytes/s or files/s], [seconds], [ops])."""
    s = run.summary(as_frame=False)
    rows = [i for i in range(len(s["phase"])) if s["phase"][i] == step and s["warmup"][i] != 1]
    if not rows:
        raise Usage("run %d (%s) has no %s phase: %s needs it" % (run.number, run.label, step, what))
    col = "bandwidth" if step in ("write", "read") else "rate"
    return ([float(s[col][i]) for i in rows], [float(s["seconds"][i]) for i in rows],
            [float(s["ops"][i]) for i in rows])


def mean(v: Sequence[float]) -> float:
    return sum(v) / len(v)


def find_figure(parts: Sequence[Tuple[List[float], List[float], List[float]]]) -> Figure:
    """IO500's find over the trees the sections walked one after the other: every
    file examined over the sum of the times (each section's mean over its reps)."""
    files = sum(mean(p[2]) for p in parts)
    secs = sum(mean(p[1]) for p in parts)
    return (files / secs / 1000.0 if secs > 0 else float("nan"), secs, min(len(p[1]) for p in parts))


def phase_figures(runs: Dict[str, Run]) -> Dict[str, Figure]:
    """{IO500 phase: (value in GiB/s or kIOPS, seconds, reps)} from the runs' summaries (mean over reps)."""
    out: Dict[str, Figure] = {}
    for p in PHASES:
        if p.name == "find":
            out[p.name] = find_figure([step_rows(runs[s], "find", "find") for s in FIND_SECTIONS])
        elif p.name in runs:
            vals, secs, _ = step_rows(runs[p.name], p.step, p.name)
            out[p.name] = (mean(vals) / (GIB if p.step in ("write", "read") else 1000.0), mean(secs), len(vals))
    return out


def order_note(numbers: Dict[str, int]) -> Optional[str]:
    """None when the sections ran in IO500's order (increasing run numbers), else the rule, with the order found."""
    ran = [s for s in SECTIONS if s in numbers]
    found = sorted(ran, key=lambda s: numbers[s])
    if found == ran:
        return None
    return "phase order: the sections ran as %s; IO500 runs %s" % (", ".join(found), ", ".join(ran))


def stonewall_notes(runs: Dict[str, Run], figs: Dict[str, Figure]) -> List[str]:
    """Write phases under 300 s; stonewalls other than IO500's 300 s with wear-out."""
    notes = ["%s ran %.3g s; IO500 requires at least %.0f s" % (n, figs[n][1], MIN_WRITE_S)
             for n in WRITE_PHASES if figs[n][1] < MIN_WRITE_S]
    for s in STONEWALLED:
        if s in runs:
            d = float(runs[s].attrs.get("deadline", 0) or 0)
            if d != MIN_WRITE_S:
                notes.append("%s: stonewall %s; IO500's is %s 300 with wear-out" % (
                    s, "%g s" % d if d > 0 else "off", "-W" if s.startswith("mdtest") else "-D"))
    return notes


def shape_notes(runs: Dict[str, Run]) -> List[str]:
    """Shapes other than IO500's; reads of the rank's own data; ior without fsync; runs not complete."""
    notes = []
    for s, shape in SHAPES.items():
        if s in runs:
            a = runs[s].attrs
            notes += ["%s: %s %s, IO500's is %s (%s)" % (s, key, a.get(key), want, how)
                      for key, want, how in shape if a.get(key) != want]
    for s in REORDERED:
        if s in runs and not runs[s].attrs.get("reorder"):
            notes.append("%s: reads of the rank's own data; IO500 reads another node's (-C, --reorder)" % s)
        elif s in runs and int(runs[s].attrs.get("nodes", 1)) < 2:
            notes.append("%s: one node, so no read came from another node (IO500's -C)" % s)
    for s, run in runs.items():
        if s.startswith("ior") and not run.attrs.get("fsync"):
            notes.append("%s: no fsync at close; IO500's ior runs with -e (--fsync)" % s)
        if run.status != "complete":
            notes.append("%s: run %d is %s" % (s, run.number, run.status))
    return notes


def rules_not_met(runs: Dict[str, Run], figs: Dict[str, Figure]) -> List[str]:
    """The IO500 rules this run did not meet, one sentence each."""
    notes = []
    order = order_note({s: r.number for s, r in runs.items()})
    if order:
        notes.append(order)
    if "ior-rnd4K-easy-read" not in runs:
        notes.append("ior-rnd4K-easy-read: not run (IO500 runs it last, unscored)")
    return notes + stonewall_notes(runs, figs) + shape_notes(runs)


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
    bw = geomean([figs[p.name][0] for p in PHASES if p.kind == "bw"])
    md = geomean([figs[p.name][0] for p in PHASES if p.kind == "md"])
    return {"file": path, "phases": figs, "bw": bw, "md": md, "score": math.sqrt(bw * md),
            "runs": {s: runs[s].number for s in SECTIONS if s in runs}, "notes": notes,
            "ranks": runs["ior-easy-write"].ranks, "nodes": runs["ior-easy-write"].nodes}


def print_text(r: Dict[str, Any], out: TextIO) -> None:
    out.write("IO500-SHAPED RUN, NOT AN IO500 RESULT (rules not met are listed below)\n")
    out.write("file %s, runs %d..%d; %d ranks on %d node(s)\n\n" % (
        r["file"], min(r["runs"].values()), max(r["runs"].values()), r["ranks"], r["nodes"]))
    for p in PHASES:
        if p.name not in r["phases"]:
            continue
        v, s, reps = r["phases"][p.name]
        out.write("%s %-20s %14.6f %-5s : time %10.4f seconds%s\n" % (
            "[      ]" if p.kind == "none" else "[RESULT]", p.name, v, "kIOPS" if p.kind == "md" else "GiB/s", s,
            "" if reps == 1 else " (mean of %d reps)" % reps))
    out.write("\n[SCORE ] Bandwidth %.6f GiB/s : IOPS %.6f kiops (7 mdtest phases and find) : TOTAL %.6f\n" % (
        r["bw"], r["md"], r["score"]))
    out.write("\nIO500 rules this run did not meet:\n")
    for n in r["notes"]:
        out.write("  - %s\n" % n)


def as_json(r: Dict[str, Any]) -> Dict[str, Any]:
    j = dict(r)
    phases: Dict[str, Figure] = r["phases"]
    j["phases"] = {p.name: {"value": phases[p.name][0], "unit": "kIOPS" if p.kind == "md" else "GiB/s",
                            "seconds": phases[p.name][1], "reps": phases[p.name][2], "scored": p.kind != "none"}
                   for p in PHASES if p.name in phases}
    j["md_phases"] = "7 mdtest phases and find"
    return j


def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0])
    ap.add_argument("file", help="a pfsbench results file holding the runs of jobs/io500.job")
    ap.add_argument("--prefix", default="", help="the labels' common prefix (default none)")
    ap.add_argument("--format", choices=("text", "json"), default="text")
    a = ap.parse_args(argv)
    try:
        r = score(a.file, a.prefix)
    except Usage as e:
        return fail(PROG, e)
    if a.format == "json":
        json.dump(as_json(r), sys.stdout, indent=1, allow_nan=True)
        sys.stdout.write("\n")
    else:
        print_text(r, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
