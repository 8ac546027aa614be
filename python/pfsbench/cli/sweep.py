"""pfs-sweep: a rank sweep of pfsbench through pfsrun, into one results file, resumable
(pfsbench.cli.sweep).

    pfs-sweep --total 8t --max 512 -o fs.h5 --id pixstor -- -d /gpfs/fs1/bench -t 16m -e
    pfs-sweep --block 4g --max 64 -o fs.h5 --id per-rank --hostfile hosts -- -d /lustre/me -t 1m

Runs pfsbench on 1, 2, 4, ... ranks (powers of two up to --max, and --max
itself), each point one pfsbench run appended to the results file and
labelled 'ID:n=RANKS'. Run it again with the same command and it resumes:
the points the file already holds as complete runs with the same pfsbench
options are skipped. See --help and docs/sweeps-and-plots.md.
"""

import json
import math
import os
import re
import shlex
import signal
import subprocess
import sys
import threading
import time

from .. import _paths
from . import results as PR

PROG = "pfs-sweep"

USAGE = """\
usage: pfs-sweep (--total SIZE | --block SIZE) -o FILE [sweep options] [launcher options]
                 [--] PFSBENCH_OPTIONS...

Runs pfsbench through pfsrun on 1, 2, 4, ... ranks up to --max (and --max
itself when it is no power of two), one pfsbench run per point, every run
appended to FILE and labelled ID:n=RANKS. Run the same command again to
resume: points FILE holds as complete runs of this sweep, with the same
pfsbench options, are skipped. One status line per point, with an ETA.

size per point (one of):
  --total SIZE         bytes moved by all ranks together, divided by the ranks: every point
                       moves the same data (IOzone cluster mode, the PixStor method). Make it
                       at least twice the memory of all nodes together.
  --block SIZE         bytes per rank: the data grows with the ranks (gpfsperf, IOR -b)

sweep options:
  -o, --results FILE   the HDF5 results file (created, or appended to)
      --id ID          the sweep id (letters, digits, . _ + -; default 'sweep'): labels ID:n=N
      --max N          the last point (default: pfsrun --show-slots, every slot of the
                       allocation or --hostfile/--clients)
      --min N          the first point (default 1)
      --points LIST    explicit rank counts instead, e.g. 1,2,3,4,6,8
  -i, --reps R         repetitions of the phase list at every point (default 1)
      --over threads   sweep threads per rank instead (pfsbench --threads; labels ID:n=R:t=T),
                       on --ranks R ranks (default 1)
      --ranks R        with --over threads: the ranks of every point
      --force          skip points that are complete even if they ran with other options
      --dry-run        print the plan and each point's launch line; run nothing
      --point-timeout S  stop a point after S seconds: SIGUSR1 to its launcher (mpirun and srun
                       pass it to the ranks, and pfsbench records the run as interrupted),
                       SIGTERM 10 s later, SIGKILL 10 s after that
      --log FILE       where pfsbench's own output goes (default: FILE's name with
                       -ID.log instead of .h5, appended to)
  -v, --verbose        also show pfsbench's output as it runs
      --pfsrun PATH    the launcher (default: pfsrun beside this script, else on PATH)
      --pfsbench PATH  the pfsbench binary (default: $PFSBENCH, else what pfsrun finds)

launcher options (passed to pfsrun):
  --hostfile FILE, --clients FILE, --srun, --mpirun-args S, --srun-args S

Every other option goes to pfsbench unchanged, and so does everything after
`--`: -d DIR (required), -t, -p, -e, -C, --shared, --direct, --threads ... pfsbench's
-b, --total, -i and -o are the sweep's own, before or after `--`. Refused:
--label (the sweep labels each point), --run-id, --no-results, and -n
(pfsrun's -n is the ranks, pfsbench's the files of metadata phases: give
--files N).

exit status: 0 every point complete, 1 some point failed, 2 bad usage or
pfsbench refused the options, 128+N stopped by signal N (130: Ctrl-C, 143:
SIGTERM; the signal goes on to the running point; run the command again to
resume).
"""


class Usage(Exception):
    pass


def die(msg, rc=2):
    sys.stderr.write("%s: error: %s\n" % (PROG, msg))
    sys.exit(rc)


def say(msg):
    sys.stdout.write("%s: %s\n" % (PROG, msg))
    sys.stdout.flush()


# ---- sizes, as pfsbench reads them ----

# How pfsbench reads SIZE: the "sizes" of its --list-options=json, set by
# pfsbench_table before any size is read.
SIZES = {}


def parse_size(s):
    v = None
    m = re.fullmatch(r"([0-9]+)(.*)", s) if re.fullmatch(SIZES["syntax"], s) else None
    if m and m.group(2).lower() in SIZES["suffixes"]:
        v = int(m.group(1)) * SIZES["suffixes"][m.group(2).lower()]
    if v is None or not SIZES["min"] <= v <= SIZES["max"]:
        raise Usage("'%s' is not a size; give a positive whole number with an optional k, m, g or t "
                    "(1024-based), e.g. 4m" % s)
    return v


def fmt_size(n):
    """Bytes as the largest exact 1024-based unit, as pfsbench prints them."""
    return PR._size(n)


def fmt_secs(s):
    if s < 10:
        return "%.1fs" % s
    s = int(round(s))
    if s < 60:
        return "%ds" % s
    if s < 3600:
        return "%dm%02ds" % (s // 60, s % 60)
    return "%dh%02dm" % (s // 3600, s % 3600 // 60)


# ---- pfsbench's options ----

def table_options(table):
    """(options that take a value, every long option) from --list-options=json."""
    takes, longs = set(), set()
    for o in table["options"]:
        longs.add("--" + o["long"])
        if o["takes_value"]:
            takes.add("--" + o["long"])
            if o["short"]:
                takes.add("-" + o["short"])
    return takes, longs


LAUNCHER_VALUE = {"--hostfile", "--clients", "--mpirun-args", "--srun-args"}
LAUNCHER_FLAG = {"--srun"}


def parse_args(argv):
    """Splits argv into the sweep's settings, pfsrun's options and pfsbench's."""
    o = {"total": None, "block": None, "results": None, "id": "sweep", "max": None, "min": 1, "points": None,
         "reps": 1, "over": "ranks", "ranks": None, "force": False, "dry_run": False, "point_timeout": None,
         "log": None, "verbose": False, "pfsrun": None, "pfsbench": None}
    launcher, bench = [], []
    own_value = {"--total": "total", "--block": "block", "-b": "block", "-o": "results", "--results": "results",
                 "--id": "id", "--max": "max", "--min": "min", "--points": "points", "-i": "reps",
                 "--reps": "reps", "--over": "over", "--ranks": "ranks", "--point-timeout": "point_timeout",
                 "--log": "log", "--pfsrun": "pfsrun", "--pfsbench": "pfsbench"}
    own_flag = {"--force": "force", "--dry-run": "dry_run", "-v": "verbose", "--verbose": "verbose"}
    i = 0
    rest_raw = []
    while i < len(argv):
        a = argv[i]
        if a == "--":
            rest_raw += argv[i + 1:]
            break
        name, eq, val = a.partition("=") if a.startswith("--") else (a, "", "")
        if a in ("-h", "--help"):
            sys.stdout.write(USAGE)
            sys.exit(0)
        if name in own_value:
            if not eq:
                if i + 1 >= len(argv):
                    raise Usage("%s needs a value" % a)
                val = argv[i + 1]
                i += 1
            o[own_value[name]] = val
        elif a in own_flag:
            o[own_flag[a]] = True
        elif name in LAUNCHER_VALUE:
            if not eq:
                if i + 1 >= len(argv):
                    raise Usage("%s needs a value" % a)
                val = argv[i + 1]
                i += 1
            launcher += [name, val]
        elif a in LAUNCHER_FLAG:
            launcher.append(a)
        else:
            rest_raw.append(a)
            # A value of a pfsbench option is never taken for an option of ours.
            if not eq and a in VALUE_OPTS_ALL and i + 1 < len(argv):
                rest_raw.append(argv[i + 1])
                i += 1
        i += 1
    # pfsbench's -b, --total, -i and -o mean the same to the sweep: taken
    # from after `--` too, in every spelling (-i 3, -i3, --reps=3).
    shared = {"-b": "block", "--block": "block", "--total": "total", "-i": "reps", "--reps": "reps",
              "-o": "results", "--results": "results"}
    i = 0
    while i < len(rest_raw):
        a = rest_raw[i]
        name, eq, val = a.partition("=") if a.startswith("--") else (a, "", "")
        short = not a.startswith("--") and len(a) > 2 and a[:2] in shared
        if name in shared and not eq:
            if i + 1 >= len(rest_raw):
                raise Usage("%s needs a value" % a)
            o[shared[name]] = rest_raw[i + 1]
            i += 2
            continue
        if name in shared or short:
            o[shared[name] if name in shared else shared[a[:2]]] = val if name in shared else a[2:]
            i += 1
            continue
        bench.append(a)
        if not eq and a in VALUE_OPTS_ALL and i + 1 < len(rest_raw):
            bench.append(rest_raw[i + 1])
            i += 1
        i += 1
    return o, launcher, bench


# pfsbench's options that take a value (from pfsbench itself, see main).
VALUE_OPTS_ALL = set()


def options_of(bench):
    """(option, value or None) for each word of pfsbench's arguments that is
    an option, in order, in every spelling: --name=value, --name value,
    -x value, -xvalue."""
    i = 0
    while i < len(bench):
        a = bench[i]
        if a.startswith("--") and "=" in a:
            name, _, val = a.partition("=")
            yield name, val
        elif a in VALUE_OPTS_ALL:
            yield a, bench[i + 1] if i + 1 < len(bench) else None
            i += 1
        elif len(a) > 2 and a[0] == "-" and a[1] != "-" and a[:2] in VALUE_OPTS_ALL:
            yield a[:2], a[2:]
        elif a.startswith("-"):
            yield a, None
        i += 1


# pfsbench's options the sweep sets itself at every point, and what to give instead.
CONTROLLED = {"--label": "--id (labels are ID:n=N)",
              "--run-id": "nothing: every point needs its own run id",
              "--no-results": "nothing: the sweep needs the results",
              "--threads": "--over threads and --max/--points for the thread counts"}


def check_bench_args(bench, over):
    for name, _ in options_of(bench):
        if name == "-n":
            raise Usage("-n is ambiguous here (pfsrun: ranks; pfsbench: files per stream of the metadata phases): "
                        "give --files N for pfsbench, and --max/--points for the ranks")
        if name in CONTROLLED and not (name == "--threads" and over == "ranks"):
            raise Usage("%s is set by pfs-sweep at every point; give %s" % (name, CONTROLLED[name]))


def option_value(bench, names, default=None):
    """The last value given for one of the option names, else default."""
    val = default
    for name, v in options_of(bench):
        if name in names and v is not None:
            val = v
    return val


def has_option(bench, names):
    return any(name in names for name, _ in options_of(bench))


# ---- finding the tools ----

def find_pfsrun(given):
    if given:
        return given
    for d in _paths.tool_dirs():
        p = os.path.join(d, "pfsrun")
        if os.path.isfile(p) and os.access(p, os.X_OK):
            return p
    q = which("pfsrun")
    if q:
        return q
    raise Usage("pfsrun not found beside %s or on PATH; give --pfsrun PATH" % _paths.script_dir())


def find_pfsbench():
    """pfsbench as pfsrun finds it: $PFSBENCH, PATH, beside pfsrun, ../build."""
    p = os.environ.get("PFSBENCH")
    if p:
        return p if "/" in p else (which(p) or p)
    q = which("pfsbench")
    if q:
        return q
    for d in _paths.tool_dirs():
        for c in (os.path.join(d, "pfsbench"), os.path.join(d, "..", "build", "pfsbench")):
            if os.access(c, os.X_OK):
                return os.path.realpath(c)
    return None


def which(name):
    for d in os.environ.get("PATH", "").split(os.pathsep):
        q = os.path.join(d, name)
        if os.path.isfile(q) and os.access(q, os.X_OK):
            return q
    return None


def pfsbench_ask(binary, option):
    """pfsbench's stdout for one option (started without mpirun: a singleton
    MPI process), or '' when it fails."""
    if not binary:
        return ""
    try:
        r = subprocess.run([binary, option], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                           stdin=subprocess.DEVNULL, timeout=60, universal_newlines=True)
        return r.stdout if r.returncode == 0 else ""
    except (OSError, subprocess.SubprocessError):
        return ""


def pfsbench_table(binary):
    """(options that take a value, every long option) as pfsbench says them:
    its --list-options=json, which also sets SIZES and META. Usage when
    pfsbench cannot be asked."""
    global META
    text = pfsbench_ask(binary, "--list-options=json")
    try:
        table = json.loads(text) if text else None
    except ValueError:
        table = None
    if not table:
        raise Usage("cannot ask pfsbench (%s) for its options (--list-options=json); give --pfsbench PATH or set "
                    "PFSBENCH" % (binary or "not found on PATH, beside pfsrun or in ../build"))
    SIZES.update(table["sizes"])
    META = tuple(p["name"] for p in table["phases"] if p["kind"] == "metadata")
    return table_options(table)


# ---- the sweep ----

def points_of(o, pfsrun, launcher):
    if o["points"]:
        try:
            pts = [int(x) for x in o["points"].replace(" ", ",").split(",") if x]
        except ValueError:
            raise Usage("--points '%s': give whole numbers, e.g. 1,2,4,8" % o["points"])
        if not pts or min(pts) < 1:
            raise Usage("--points '%s': give counts of 1 or more" % o["points"])
        return sorted(set(pts))
    lo = to_count(o["min"], "--min")
    if o["max"] is None:
        if o["over"] == "threads":
            raise Usage("--over threads needs --max (the most threads per rank) or --points")
        try:
            r = subprocess.run([pfsrun, "--show-slots"] + launcher_source(launcher), stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, universal_newlines=True, timeout=60)
        except (OSError, subprocess.SubprocessError) as e:
            raise Usage("cannot ask pfsrun for the slots: %s; give --max N" % e)
        if r.returncode != 0 or not r.stdout.strip().isdigit():
            raise Usage("--max N is needed (pfsrun --show-slots: %s)"
                        % (r.stderr.strip().splitlines() or ["no answer"])[-1])
        hi = int(r.stdout.strip())
    else:
        hi = to_count(o["max"], "--max")
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


def to_count(s, what):
    try:
        n = int(str(s))
    except ValueError:
        raise Usage("%s '%s' is not a whole number" % (what, s))
    if n < 1:
        raise Usage("%s must be 1 or more" % what)
    return n


def launcher_source(launcher):
    """The node-source options among launcher's, for pfsrun --show-slots."""
    out, i = [], 0
    while i < len(launcher):
        if launcher[i] in ("--hostfile", "--clients"):
            out += launcher[i:i + 2]
        i += 2 if launcher[i] in LAUNCHER_VALUE else 1
    return out


def main(argv=None):
    if argv is None:
        argv = sys.argv[1:]
    global VALUE_OPTS_ALL
    try:
        binary = None
        # --pfsbench must be known before the split, to read its --help.
        for i, a in enumerate(argv):
            if a == "--":
                break
            if a == "--pfsbench" and i + 1 < len(argv):
                binary = argv[i + 1]
            elif a.startswith("--pfsbench="):
                binary = a.split("=", 1)[1]
        if binary:
            if not (os.path.isfile(binary) and os.access(binary, os.X_OK)):
                raise Usage("--pfsbench '%s' is not an executable file" % binary)
            binary = os.path.realpath(binary)
            os.environ["PFSBENCH"] = binary
        else:
            binary = find_pfsbench()
        takes, longs = pfsbench_table(binary)
        VALUE_OPTS_ALL = takes
        o, launcher, bench = parse_args(argv)
        return sweep(o, launcher, bench, binary, longs)
    except Usage as e:
        die(str(e))
    except KeyboardInterrupt:  # before the sweep's own handlers are in place
        say("interrupted; run the same command again to resume (complete points are kept)")
        return 130


def sweep(o, launcher, bench, binary, longs):
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
    reps = to_count(o["reps"], "--reps")
    size_opt = "--total" if o["total"] is not None else "-b"
    size = parse_size(o["total"] if o["total"] is not None else o["block"])
    check_bench_args(bench, o["over"])
    if not has_option(bench, ("-d", "--dir")):
        raise Usage("no -d DIR for pfsbench: the directory on the file system under test")
    pfsrun = find_pfsrun(o["pfsrun"])
    ranks_fixed = to_count(o["ranks"], "--ranks") if o["ranks"] is not None else 1
    points = points_of(o, pfsrun, launcher)
    timeout = float(o["point_timeout"]) if o["point_timeout"] else None

    threads_fixed = 1
    if o["over"] == "ranks" and has_option(bench, ("--threads",)):
        threads_fixed = to_count(option_value(bench, ("--threads",), "1"), "--threads")
    transfer = parse_size(option_value(bench, ("-t", "--transfer"), "1m"))
    results = os.path.abspath(o["results"])
    stem = results[:-3] if results.endswith(".h5") else results
    log = o["log"] or "%s-%s.log" % (stem, o["id"])

    def streams(n):
        return n * threads_fixed if o["over"] == "ranks" else ranks_fixed * n

    def nranks(n):
        return n if o["over"] == "ranks" else ranks_fixed

    def label(n):
        return "%s:n=%d" % (o["id"], n) if o["over"] == "ranks" else "%s:n=%d:t=%d" % (o["id"], ranks_fixed, n)

    def bench_args(n):
        a = list(bench) + [size_opt, o["total"] if size_opt == "--total" else o["block"]]
        if o["over"] == "threads":
            a += ["--threads", str(n)]
        return a + ["-i", str(reps), "-o", results, "--label", label(n)]

    # Sizes that cannot work are found now, not after hours of earlier points.
    bad = []
    for n in points:
        s = streams(n)
        if size_opt == "--total" and size % (s * transfer):
            unit = "stream" if s != nranks(n) else "rank"
            what = "%d %s%s" % (s, unit, "s" if s > 1 else "")
            bad.append("%d (%s / %s = %s per %s)" % (n, fmt_size(size), what, fmt_size(size // s), unit)
                       if size % s == 0 else "%d (%s does not divide by %s)" % (n, fmt_size(size), what))
        elif size_opt == "-b" and size % transfer:
            bad.append("%d" % n)
    if bad:
        if size_opt == "--total":
            need = 1
            for n in points:
                need = need * (streams(n) * transfer) // math.gcd(need, streams(n) * transfer)
            raise Usage("--total %s does not divide into whole %s transfers at the point%s %s; make the total a "
                        "multiple of %s, or drop those points with --points"
                        % (o["total"], fmt_size(transfer), "s" if len(bad) > 1 else "", ", ".join(bad),
                           fmt_size(need)))
        raise Usage("--block %s is not a multiple of the transfer %s" % (o["block"], fmt_size(transfer)))

    def weight(n):  # bytes per phase of the point: the ETA scales with it
        return size if size_opt == "--total" else size * streams(n)

    done = {}        # point -> run number of a complete run
    mismatched = {}  # point -> its command line
    if os.path.exists(results):
        try:
            runs = PR.runs(results)
        except PR.NotResultsFile as e:
            raise Usage("-o: %s" % e)
        for n in points:
            want = " ".join(bench_args(n))
            complete = [r for r in runs if r.get("label") == label(n) and r.get("status") == "complete"
                        and int(r.get("ranks", 0)) == nranks(n)]
            same = [r for r in complete if o["force"] or r.get("command_line") == want
                    or str(r.get("command_line", "")).endswith(" " + want)]
            if same:
                done[n] = same[-1]["run"]
            elif complete:
                mismatched[n] = str(complete[-1].get("command_line", ""))
        if mismatched and not o["force"]:
            n = sorted(mismatched)[0]
            raise Usage("sweep '%s' in %s already has %s complete with other pfsbench options:\n  it ran:   %s\n"
                        "  this one: pfsbench %s\ngive this sweep another --id, or --force to count those points as "
                        "done" % (o["id"], results, ", ".join("n=%d" % x for x in sorted(mismatched)), mismatched[n],
                                  " ".join(bench_args(n))))
    todo = [n for n in points if n not in done]
    what = "ranks" if o["over"] == "ranks" else "threads per rank (on %d rank%s)" % (ranks_fixed,
                                                                                   "" if ranks_fixed == 1 else "s")
    per = ("total %s per point (divided by the %s)" % (fmt_size(size), "streams" if threads_fixed > 1 or
                                                       o["over"] == "threads" else "ranks")
           if size_opt == "--total" else "%s per %s" % (fmt_size(size), "rank" if threads_fixed == 1 and
                                                          o["over"] == "ranks" else "stream"))
    say("sweep '%s' into %s: %s %s; %s; %d rep%s; %d of %d point%s to run%s"
        % (o["id"], results, what, " ".join(str(n) for n in points), per, reps, "" if reps == 1 else "s",
           len(todo), len(points), "" if len(points) == 1 else "s",
           "" if len(todo) == len(points) else " (%d complete in the file)" % (len(points) - len(todo))))
    if not o["dry_run"]:
        say("pfsbench output goes to %s%s" % (log, " (and here)" if o["verbose"] else ""))

    failed = []
    spent, spent_weight = 0.0, 0
    env = dict(os.environ)
    if binary and not env.get("PFSBENCH"):
        env["PFSBENCH"] = binary
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, on_signal)
    width = len(str(max(points)))
    for idx, n in enumerate(points, 1):
        if STOP.signum:
            say("interrupted by signal %d before the point n=%d; run the same command again to resume"
                % (STOP.signum, n))
            return 128 + STOP.signum
        head = "[%d/%d] %s=%-*d" % (idx, len(points), "n" if o["over"] == "ranks" else "t", width, n)
        if n in done:
            say("%s  complete in the file (run %d), skipped" % (head, done[n]))
            continue
        cmd = [pfsrun, "-n", str(nranks(n))] + launcher + ["--"] + bench_args(n)
        if o["dry_run"]:
            r = subprocess.run([pfsrun, "--dry-run", "-n", str(nranks(n))] + launcher + ["--"] + bench_args(n),
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, universal_newlines=True,
                               env=env)
            say("%s  would run: %s" % (head, r.stdout.strip() or " ".join(shlex.quote(c) for c in cmd)))
            continue
        before = max([0] + [r["run"] for r in (PR.runs(results) if os.path.exists(results) else [])])
        t0 = time.time()
        rc, tail = run_point(cmd, env, log, o["verbose"], timeout, head)
        wall = time.time() - t0
        if STOP.signum:
            say("%s  interrupted by signal %d; run the same command again to resume (complete points are kept)"
                % (head, STOP.signum))
            return 128 + STOP.signum
        new = []
        if os.path.exists(results):
            try:
                new = [r for r in PR.runs(results) if r["run"] > before and r.get("label") == label(n)]
            except PR.NotResultsFile:
                new = []
        run = new[-1] if new else None
        # The file decides: a run recorded complete is a done point, as it
        # will be for a resume, even when the launcher ended badly after it.
        if run is not None and run.get("status") == "complete":
            spent += wall
            spent_weight += weight(n)
            remaining = sum(weight(m) for m in points[idx:] if m not in done)
            eta = "ETA %s" % fmt_secs(spent / spent_weight * remaining) if remaining else "last point"
            unit = "stream" if streams(n) != nranks(n) else "rank"
            say("%s  %s  %s  run %d  %s  %s" % (head, size_text(size_opt, size, streams(n), unit),
                                               means_text(results, run["run"]), run["run"], fmt_secs(wall), eta))
            if rc != 0:
                say("%s  warning: the run is complete, but the launcher then exited with status %d (see %s)"
                    % (head, rc, log))
            continue
        failed.append(n)
        why = "exit %d" % rc if rc != 124 else "stopped after --point-timeout %s s" % o["point_timeout"]
        if run is not None:
            why += ", run %d %s" % (run["run"], run.get("status"))
        # pfsbench's own error lines say more than mpirun's epilogue.
        errs = [x for x in tail if x.startswith(("pfsbench:", "pfsrun: error", "error")) or " error: " in x]
        say("%s  FAILED (%s) after %s; its output is in %s, %s:" % (head, why, fmt_secs(wall), log,
                                                                    "errors" if errs else "ending"))
        for line in (errs or tail)[-8:]:
            sys.stdout.write("    | %s\n" % line)
        if rc == 2 and run is None:
            say("pfsbench refused the options (exit 2); the sweep stops here")
            return 2
    if o["dry_run"]:
        return 0
    ok = len(points) - len(failed)
    say("%d of %d points complete in %s (labels %s); failed: %s"
        % (ok, len(points), results, "%s:n=N" % o["id"] if o["over"] == "ranks" else "%s:n=%d:t=T"
           % (o["id"], ranks_fixed), " ".join(map(str, failed)) or "none"))
    say("tables: pfs-compare %s --sweep %s   plots: pfs-plot sweep %s --sweep %s"
        % (shlex.quote(results), o["id"], shlex.quote(results), o["id"]))
    return 1 if failed else 0


def size_text(size_opt, size, streams, per):
    """What each stream (per: "rank" or "stream") moves at this point, or the total."""
    if size_opt == "--total":
        return "%s/%s" % (fmt_size(size // streams), per)
    return "%s total" % fmt_size(size * streams)


def means_text(results, run):
    """'write 1234.56  read 2345.67 MiB/s (mean of R)' from the summary rows
    of run; metadata phases in files/s."""
    rows = [r for r in PR.summary_rows(results) if r["run"] == run]
    phases, vals = [], {}
    for r in rows:
        if r["phase"] not in vals:
            phases.append(r["phase"])
        meta = r["phase"] in META
        v = (r.get("rate") if meta else r["bandwidth"] / PR.MIB)
        if v is not None:
            vals.setdefault(r["phase"], []).append(v)
    reps = max((len(v) for v in vals.values()), default=0)
    parts = []
    for unit, want in (("MiB/s", False), ("files/s", True)):
        cells = ["%s %.*f" % (p, 2 if not want else 1, sum(vals[p]) / len(vals[p])) for p in phases
                 if p in vals and (p in META) == want]
        if cells:
            parts.append("  ".join(cells) + " " + unit)
    return "; ".join(parts) + (" (mean of %d)" % reps if reps > 1 else "")


# The metadata phases (their figures are files/s): from pfsbench's
# --list-options=json (pfsbench_table).
META = ()


class STOP:
    """The signal that stops the sweep (0: none), and the process group of
    the point running now (0: none)."""
    signum = 0
    child = 0
    sent = 0


# What the running point gets on the first, second and third stop: SIGUSR1
# first, which mpirun and srun forward to the ranks and pfsbench ends on as
# interrupted, recording the run (mpirun itself, on SIGTERM or SIGINT, kills
# the ranks before they can); then SIGTERM; then SIGKILL.
ESCALATE = (signal.SIGUSR1, signal.SIGTERM, signal.SIGKILL)


def stop_point(pgid, step):
    """Signals the point's process group (its launcher runs in a session of
    its own, so that stopping it reaches mpirun and all below it, and
    nothing above pfs-sweep). False when the group is gone."""
    try:
        os.killpg(pgid, ESCALATE[min(step, len(ESCALATE) - 1)])
        return True
    except OSError:
        return False


def on_signal(signum, frame):
    """A stop of the sweep (Ctrl-C, SIGTERM, SIGHUP): remembered, and passed
    on to the running point, harder each time."""
    if not STOP.signum:
        STOP.signum = signum
    if STOP.child:
        stop_point(STOP.child, STOP.sent)
        STOP.sent += 1


def run_point(cmd, env, log, verbose, timeout, head):
    """Runs one point, its output appended to log (and echoed with verbose).
    Returns (status, the last lines of its output): 124 when --point-timeout
    stopped it."""
    tail = []
    with open(log, "a") as lf:
        lf.write("==== %s %s\n==== %s\n" % (time.strftime("%Y-%m-%dT%H:%M:%S"), head,
                                           " ".join(shlex.quote(c) for c in cmd)))
        lf.flush()
        try:
            p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env,
                                 universal_newlines=True, errors="replace", start_new_session=True)
        except OSError as e:
            lf.write("cannot start: %s\n" % e)
            return 127, ["cannot start %s: %s" % (cmd[0], e)]
        STOP.child, STOP.sent = p.pid, 0
        if STOP.signum:  # a signal between the check and the start
            on_signal(STOP.signum, None)
        timed_out = threading.Event()
        if timeout:
            def watchdog():
                if p_done.wait(timeout):
                    return
                timed_out.set()
                for step in range(len(ESCALATE)):
                    if not stop_point(p.pid, step) or p_done.wait(10):
                        return
            p_done = threading.Event()
            threading.Thread(target=watchdog, daemon=True).start()
        for line in p.stdout:
            lf.write(line)
            if verbose:
                sys.stdout.write(line)
                sys.stdout.flush()
            tail.append(line.rstrip("\n"))
            del tail[:-400]
        rc = p.wait()
        STOP.child = 0
        if timeout:
            p_done.set()
        if STOP.signum:
            lf.write("==== interrupted by signal %d\n" % STOP.signum)
        elif timed_out.is_set():
            lf.write("==== stopped after --point-timeout %g s\n" % timeout)
        else:
            lf.write("==== exit %d\n" % rc)
    return (124 if timed_out.is_set() else rc), tail


if __name__ == "__main__":
    sys.exit(main())
