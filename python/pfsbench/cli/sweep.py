"""pfs-sweep: a rank sweep of pfsbench through pfsrun, into one results file, resumable
(pfsbench.cli.sweep).

    pfs-sweep --total 8t --max 512 -o fs.h5 --id pixstor -- -d /gpfs/fs1/bench -t 16m -e
    pfs-sweep --block 4g --max 64 -o fs.h5 --id per-rank --hostfile hosts -- -d /lustre/me -t 1m

Runs pfsbench on 1, 2, 4, ... ranks (powers of two up to --max, and --max
itself), each point one pfsbench run appended to the results file and
labelled 'ID:n=RANKS'. Run it again with the same command and it resumes:
the points the file already holds as complete runs with the same pfsbench
options are skipped. See --help and docs/sweeps-and-plots.md. The command
line is sweep_args.py, a point's run sweep_point.py.
"""

from __future__ import annotations

import math
import os
import re
import shlex
import subprocess
import sys
import time
from typing import Any, Dict, List, Optional, Sequence

from .. import binary as B
from .. import rows as R
from ..h5file import NotResultsFile
from ..reader import MIB, Results
from .common import Usage, report_problems, size_text
from .sweep_args import USAGE, BenchArgs, Table, launcher_source, parse_args, pfsbench_flag, to_count, wants_help
from .sweep_point import Stop, fmt_secs, run_point

PROG = "pfs-sweep"


def say(msg: str) -> None:
    sys.stdout.write("%s: %s\n" % (PROG, msg))
    sys.stdout.flush()


def read_runs(results: str) -> List[R.Row]:
    """The runs of the results file (rows.runs); its damaged runs named on stderr."""
    with Results(results, warn=False) as res:
        report_problems(PROG, res.problems)
        return R.runs(res)


def means_text(results: str, run: int) -> str:
    """'write 1234.56  read 2345.67 MiB/s (mean of R)' from the summary rows
    of run; metadata phases in files/s."""
    with Results(results, warn=False) as res:
        rows = [r for r in R.summary_rows(res) if r["run"] == run]
    phases: List[str] = []
    vals: Dict[str, List[float]] = {}
    meta = {r["phase"] for r in rows if r["kind"] == "metadata"}
    for r in rows:
        if r["phase"] not in vals:
            phases.append(r["phase"])
        v = r.get("rate") if r["phase"] in meta else r["bandwidth"] / MIB
        if v is not None:
            vals.setdefault(r["phase"], []).append(v)
    reps = max((len(v) for v in vals.values()), default=0)
    parts = []
    for unit, want in (("MiB/s", False), ("files/s", True)):
        cells = ["%s %.*f" % (p, 2 if not want else 1, sum(vals[p]) / len(vals[p])) for p in phases
                 if p in vals and (p in meta) == want]
        if cells:
            parts.append("  ".join(cells) + " " + unit)
    return "; ".join(parts) + (" (mean of %d)" % reps if reps > 1 else "")


def points_of(o: Dict[str, Any], pfsrun: str, launcher: List[str]) -> List[int]:
    """--points, else 1, 2, 4 ... from --min to --max (pfsrun --show-slots without it), both included."""
    if o["points"]:
        try:
            pts = [int(x) for x in o["points"].replace(" ", ",").split(",") if x]
        except ValueError:
            raise Usage("--points '%s': give whole numbers, e.g. 1,2,4,8" % o["points"])
        if not pts or min(pts) < 1:
            raise Usage("--points '%s': give counts of 1 or more" % o["points"])
        return sorted(set(pts))
    lo = to_count(o["min"], "--min")
    hi = to_count(o["max"], "--max") if o["max"] is not None else _slots(o, pfsrun, launcher)
    if hi < lo:
        raise Usage("--max %d is below --min %d" % (hi, lo))
    pts, n = [], 1
    while n < lo:
        n *= 2
    while n <= hi:
        pts.append(n)
        n *= 2
    if lo not in pts:
        pts.insert(0, lo)
    if hi not in pts:
        pts.append(hi)
    return pts


def _slots(o: Dict[str, Any], pfsrun: str, launcher: List[str]) -> int:
    if o["over"] == "threads":
        raise Usage("--over threads needs --max (the most threads per rank) or --points")
    try:
        r = subprocess.run([pfsrun, "--show-slots"] + launcher_source(launcher), stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, universal_newlines=True, timeout=60)
    except (OSError, subprocess.SubprocessError) as e:
        raise Usage("cannot ask pfsrun for the slots: %s; give --max N" % e)
    if r.returncode != 0 or not r.stdout.strip().isdigit():
        raise Usage("--max N is needed (pfsrun --show-slots: %s)" % (r.stderr.strip().splitlines() or ["no answer"])[-1])
    return int(r.stdout.strip())


class Plan:
    """A sweep: its settings checked, its points, and what each runs."""

    def __init__(self, o: Dict[str, Any], launcher: List[str], bench: BenchArgs, table: Table) -> None:
        _check(o)
        self.o, self.launcher, self.bench = o, launcher, bench
        self.reps = to_count(o["reps"], "--reps")
        self.size_opt = "--total" if o["total"] is not None else "-b"
        self.size = table.size(o["total"] if o["total"] is not None else o["block"])
        bench.check(o["over"])
        if not bench.has(("-d", "--dir")):
            raise Usage("no -d DIR for pfsbench: the directory on the file system under test")
        pfsrun = o["pfsrun"] or B.find_pfsrun()
        if not pfsrun:
            raise Usage("pfsrun not found beside %s or on PATH; give --pfsrun PATH" % B.tool_place())
        self.pfsrun: str = pfsrun
        self.ranks_fixed = to_count(o["ranks"], "--ranks") if o["ranks"] is not None else 1
        self.points = points_of(o, self.pfsrun, launcher)
        self.timeout = float(o["point_timeout"]) if o["point_timeout"] else None
        self.threads_fixed = 1
        if o["over"] == "ranks" and bench.has(("--threads",)):
            self.threads_fixed = to_count(bench.value(("--threads",), "1"), "--threads")
        self.transfer = table.size(bench.value(("-t", "--transfer"), "1m") or "1m")
        self.bad_input = table.bad_input
        self.results = os.path.abspath(o["results"])
        stem = self.results[:-3] if self.results.endswith(".h5") else self.results
        self.log = o["log"] or "%s-%s.log" % (stem, o["id"])

    def streams(self, n: int) -> int:
        return n * self.threads_fixed if self.o["over"] == "ranks" else self.ranks_fixed * n

    def nranks(self, n: int) -> int:
        return n if self.o["over"] == "ranks" else self.ranks_fixed

    def label(self, n: int) -> str:
        o = self.o
        return "%s:n=%d" % (o["id"], n) if o["over"] == "ranks" else "%s:n=%d:t=%d" % (o["id"], self.ranks_fixed, n)

    def bench_args(self, n: int) -> List[str]:
        o = self.o
        a = list(self.bench.words) + [self.size_opt, o["total"] if self.size_opt == "--total" else o["block"]]
        if o["over"] == "threads":
            a += ["--threads", str(n)]
        return a + ["-i", str(self.reps), "-o", self.results, "--label", self.label(n)]

    def command(self, n: int, dry_run: bool = False) -> List[str]:
        return [self.pfsrun] + (["--dry-run"] if dry_run else []) + ["-n", str(self.nranks(n))] + self.launcher + \
            ["--"] + self.bench_args(n)

    def weight(self, n: int) -> int:
        """Bytes per phase of the point: the ETA scales with it."""
        return self.size if self.size_opt == "--total" else self.size * self.streams(n)

    def per_point(self, n: int) -> str:
        """What each stream (or rank) moves at point n, or the total."""
        per = "stream" if self.streams(n) != self.nranks(n) else "rank"
        if self.size_opt == "--total":
            return "%s/%s" % (size_text(self.size // self.streams(n)), per)
        return "%s total" % size_text(self.size * self.streams(n))


def _check(o: Dict[str, Any]) -> None:
    if not o["results"]:
        raise Usage("-o FILE is needed: the results file every point is appended to")
    if (o["total"] is None) == (o["block"] is None):
        raise Usage("give one of --total SIZE (fixed total, divided by the ranks) or --block SIZE (per rank)")
    if not re.match(r"^[A-Za-z0-9._+-]{1,96}$", o["id"]):
        raise Usage("--id '%s': use 1 to 96 letters, digits, '.', '_', '+' or '-'" % o["id"])
    if o["over"] not in ("ranks", "threads"):
        raise Usage("--over '%s': ranks or threads" % o["over"])
    if o["ranks"] is not None and o["over"] != "threads":
        raise Usage("--ranks R goes with --over threads; a rank sweep's points are --max/--points")


def check_sizes(plan: Plan) -> None:
    """Sizes that cannot work are found now, not after hours of earlier points."""
    size, transfer, bad = plan.size, plan.transfer, []
    for n in plan.points:
        s = plan.streams(n)
        if plan.size_opt == "--total" and size % (s * transfer):
            unit = "stream" if s != plan.nranks(n) else "rank"
            what = "%d %s%s" % (s, unit, "s" if s > 1 else "")
            bad.append("%d (%s / %s = %s per %s)" % (n, size_text(size), what, size_text(size // s), unit)
                       if size % s == 0 else "%d (%s does not divide by %s)" % (n, size_text(size), what))
        elif plan.size_opt == "-b" and size % transfer:
            bad.append("%d" % n)
    if not bad:
        return
    if plan.size_opt == "--total":
        need = 1
        for n in plan.points:
            need = need * (plan.streams(n) * transfer) // math.gcd(need, plan.streams(n) * transfer)
        raise Usage("--total %s does not divide into whole %s transfers at the point%s %s; make the total a "
                    "multiple of %s, or drop those points with --points"
                    % (plan.o["total"], size_text(transfer), "s" if len(bad) > 1 else "", ", ".join(bad),
                       size_text(need)))
    raise Usage("--block %s is not a multiple of the transfer %s" % (plan.o["block"], size_text(transfer)))


def done_points(plan: Plan) -> Dict[int, int]:
    """{point: the run number of a complete run of it in the file, with the
    same pfsbench options (or any, with --force)}; Usage for a point done
    with other options."""
    if not os.path.exists(plan.results):
        return {}
    try:
        runs = read_runs(plan.results)
    except NotResultsFile as e:
        raise Usage("-o: %s" % e)
    done, mismatched = {}, {}
    for n in plan.points:
        want = " ".join(plan.bench_args(n))
        complete = [r for r in runs if r.get("label") == plan.label(n) and r.get("status") == "complete"
                    and int(r.get("ranks", 0)) == plan.nranks(n)]
        same = [r for r in complete if plan.o["force"] or r.get("command_line") == want
                or str(r.get("command_line", "")).endswith(" " + want)]
        if same:
            done[n] = same[-1]["run"]
        elif complete:
            mismatched[n] = str(complete[-1].get("command_line", ""))
    if mismatched and not plan.o["force"]:
        n = sorted(mismatched)[0]
        raise Usage("sweep '%s' in %s already has %s complete with other pfsbench options:\n  it ran:   %s\n"
                    "  this one: pfsbench %s\ngive this sweep another --id, or --force to count those points as "
                    "done" % (plan.o["id"], plan.results, ", ".join("n=%d" % x for x in sorted(mismatched)),
                              mismatched[n], " ".join(plan.bench_args(n))))
    return done


def announce(plan: Plan, done: Dict[int, int]) -> None:
    o, points = plan.o, plan.points
    todo = [n for n in points if n not in done]
    rf = plan.ranks_fixed
    what = "ranks" if o["over"] == "ranks" else "threads per rank (on %d rank%s)" % (rf, "" if rf == 1 else "s")
    per = ("total %s per point (divided by the %s)" % (size_text(plan.size), "streams" if plan.threads_fixed > 1 or
                                                       o["over"] == "threads" else "ranks")
           if plan.size_opt == "--total" else "%s per %s" % (size_text(plan.size), "rank" if plan.threads_fixed == 1
                                                              and o["over"] == "ranks" else "stream"))
    say("sweep '%s' into %s: %s %s; %s; %d rep%s; %d of %d point%s to run%s"
        % (o["id"], plan.results, what, " ".join(str(n) for n in points), per, plan.reps,
           "" if plan.reps == 1 else "s", len(todo), len(points), "" if len(points) == 1 else "s",
           "" if len(todo) == len(points) else " (%d complete in the file)" % (len(points) - len(todo))))
    if not o["dry_run"]:
        say("pfsbench output goes to %s%s" % (plan.log, " (and here)" if o["verbose"] else ""))


class Progress:
    """The time spent on complete points and their weight: the ETA of the rest."""

    def __init__(self) -> None:
        self.spent = 0.0
        self.weight = 0

    def eta(self, plan: Plan, done: Dict[int, int], idx: int) -> str:
        remaining = sum(plan.weight(m) for m in plan.points[idx:] if m not in done)
        return "ETA %s" % fmt_secs(self.spent / self.weight * remaining) if remaining else "last point"


def _new_run(plan: Plan, n: int, before: int) -> Optional[R.Row]:
    """The run point n added to the file (its last run labelled so after run number before), or None."""
    if not os.path.exists(plan.results):
        return None
    try:
        new = [r for r in read_runs(plan.results) if r["run"] > before and r.get("label") == plan.label(n)]
    except NotResultsFile:
        return None
    return new[-1] if new else None


def _failed(plan: Plan, head: str, rc: int, run: Optional[R.Row], tail: List[str], wall: float) -> None:
    why = "exit %d" % rc if rc != 124 else "stopped after --point-timeout %s s" % plan.o["point_timeout"]
    if run is not None:
        why += ", run %d %s" % (run["run"], run.get("status"))
    # pfsbench's own error lines say more than mpirun's epilogue.
    errs = [x for x in tail if x.startswith(("pfsbench:", "pfsrun: error", "error")) or " error: " in x]
    say("%s  FAILED (%s) after %s; its output is in %s, %s:" % (head, why, fmt_secs(wall), plan.log,
                                                                "errors" if errs else "ending"))
    for line in (errs or tail)[-8:]:
        sys.stdout.write("    | %s\n" % line)


def _point(plan: Plan, n: int, head: str, env: Dict[str, str], stop: Stop, progress: Progress,
           done: Dict[int, int], idx: int) -> str:
    """Runs point n: "complete", "failed", "refused" (pfsbench refused the
    options: nothing recorded) or "stopped" (the sweep was, during it)."""
    before = max([0] + [r["run"] for r in (read_runs(plan.results) if os.path.exists(plan.results) else [])])
    t0 = time.time()
    rc, tail = run_point(plan.command(n), env, plan.log, plan.o["verbose"], plan.timeout, head, stop)
    wall = time.time() - t0
    if stop.signum:
        say("%s  interrupted by signal %d; run the same command again to resume (complete points are kept)"
            % (head, stop.signum))
        return "stopped"
    run = _new_run(plan, n, before)
    # The file decides: a run recorded complete is a done point, as it
    # will be for a resume, even when the launcher ended badly after it.
    if run is not None and run.get("status") == "complete":
        progress.spent += wall
        progress.weight += plan.weight(n)
        say("%s  %s  %s  run %d  %s  %s" % (head, plan.per_point(n), means_text(plan.results, run["run"]),
                                           run["run"], fmt_secs(wall), progress.eta(plan, done, idx)))
        if rc != 0:
            say("%s  warning: the run is complete, but the launcher then exited with status %d (see %s)"
                % (head, rc, plan.log))
        return "complete"
    _failed(plan, head, rc, run, tail, wall)
    return "refused" if rc == plan.bad_input and run is None else "failed"


def run_sweep(plan: Plan, done: Dict[int, int], binary: Optional[str]) -> int:
    """Runs (or with --dry-run shows) every point not done; the sweep's exit status."""
    o, points = plan.o, plan.points
    failed: List[int] = []
    env = dict(os.environ)
    if binary and not env.get("PFSBENCH"):
        env["PFSBENCH"] = binary
    stop, progress = Stop(), Progress()
    stop.install()
    width = len(str(max(points)))
    for idx, n in enumerate(points, 1):
        if stop.signum:
            say("interrupted by signal %d before the point n=%d; run the same command again to resume"
                % (stop.signum, n))
            return 128 + stop.signum
        head = "[%d/%d] %s=%-*d" % (idx, len(points), "n" if o["over"] == "ranks" else "t", width, n)
        if n in done:
            say("%s  complete in the file (run %d), skipped" % (head, done[n]))
            continue
        if o["dry_run"]:
            r = subprocess.run(plan.command(n, dry_run=True), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                               universal_newlines=True, env=env)
            say("%s  would run: %s" % (head, r.stdout.strip() or " ".join(shlex.quote(c) for c in plan.command(n))))
            continue
        state = _point(plan, n, head, env, stop, progress, done, idx)
        if state == "stopped":
            return 128 + stop.signum
        if state != "complete":
            failed.append(n)
        if state == "refused":
            say("pfsbench refused the options (exit %d); the sweep stops here" % plan.bad_input)
            return plan.bad_input
    if o["dry_run"]:
        return 0
    say("%d of %d points complete in %s (labels %s); failed: %s"
        % (len(points) - len(failed), len(points), plan.results, "%s:n=N" % o["id"] if o["over"] == "ranks"
           else "%s:n=%d:t=T" % (o["id"], plan.ranks_fixed), " ".join(map(str, failed)) or "none"))
    say("tables: pfs-compare %s --sweep %s   plots: pfs-plot sweep %s --sweep %s"
        % (shlex.quote(plan.results), o["id"], shlex.quote(plan.results), o["id"]))
    return 1 if failed else 0


def _binary(argv: Sequence[str]) -> Optional[str]:
    """The pfsbench to ask and run: --pfsbench PATH (then also $PFSBENCH for pfsrun), else find_pfsbench."""
    binary = pfsbench_flag(argv)
    if not binary:
        return B.find_pfsbench()
    if not (os.path.isfile(binary) and os.access(binary, os.X_OK)):
        raise Usage("--pfsbench '%s' is not an executable file" % binary)
    binary = os.path.realpath(binary)
    os.environ["PFSBENCH"] = binary
    return binary


def _sweep(argv: List[str]) -> int:
    binary = _binary(argv)
    answer = B.list_options(binary)
    if answer is None:
        raise Usage("cannot ask pfsbench (%s) for its options (--list-options=json); give --pfsbench PATH or set "
                    "PFSBENCH" % (binary or "not found on PATH, beside pfsrun or in ../build"))
    table = Table(answer)
    o, launcher, bench = parse_args(argv, table.takes)
    plan = Plan(o, launcher, bench, table)
    check_sizes(plan)
    done = done_points(plan)
    announce(plan, done)
    return run_sweep(plan, done, binary)


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if wants_help(args):
        sys.stdout.write(USAGE)
        sys.exit(0)
    try:
        return _sweep(args)
    except Usage as e:
        sys.stderr.write("%s: error: %s\n" % (PROG, e))
        sys.exit(2)
    except KeyboardInterrupt:  # before the sweep's own handlers are in place
        say("interrupted; run the same command again to resume (complete points are kept)")
        return 130


if __name__ == "__main__":
    sys.exit(main())
