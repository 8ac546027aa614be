"""pfs-sweep's command line: its own options, pfsrun's, and pfsbench's.

pfsbench's options (which take a value) and its SIZE syntax are not kept
here: Table reads them from `pfsbench --list-options=json`.
"""

from __future__ import annotations

import re
from typing import Any, Dict, Iterator, List, Optional, Sequence, Set, Tuple

from ..binary import exit_code
from .common import Usage

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


LAUNCHER_VALUE = {"--hostfile", "--clients", "--mpirun-args", "--srun-args"}
LAUNCHER_FLAG = {"--srun"}
OWN_VALUE = {"--total": "total", "--block": "block", "-b": "block", "-o": "results", "--results": "results",
             "--id": "id", "--max": "max", "--min": "min", "--points": "points", "-i": "reps", "--reps": "reps",
             "--over": "over", "--ranks": "ranks", "--point-timeout": "point_timeout", "--log": "log",
             "--pfsrun": "pfsrun", "--pfsbench": "pfsbench"}
OWN_FLAG = {"--force": "force", "--dry-run": "dry_run", "-v": "verbose", "--verbose": "verbose"}
# pfsbench's -b, --total, -i and -o mean the same to the sweep: taken from
# after `--` too, in every spelling (-i 3, -i3, --reps=3).
SHARED = {"-b": "block", "--block": "block", "--total": "total", "-i": "reps", "--reps": "reps",
          "-o": "results", "--results": "results"}
# pfsbench's options the sweep sets itself at every point, and what to give instead.
CONTROLLED = {"--label": "--id (labels are ID:n=N)",
              "--run-id": "nothing: every point needs its own run id",
              "--no-results": "nothing: the sweep needs the results",
              "--threads": "--over threads and --max/--points for the thread counts"}
DEFAULTS: Dict[str, Any] = {
    "total": None, "block": None, "results": None, "id": "sweep", "max": None, "min": 1, "points": None,
    "reps": 1, "over": "ranks", "ranks": None, "force": False, "dry_run": False, "point_timeout": None,
    "log": None, "verbose": False, "pfsrun": None, "pfsbench": None}


class Table:
    """What pfs-sweep needs of pfsbench's --list-options=json: the options
    that take a value, its SIZE syntax, the exit status of bad input."""

    def __init__(self, table: Dict[str, Any]) -> None:
        self.takes: Set[str] = set()
        for o in table["options"]:
            if o["takes_value"]:
                self.takes.add("--" + o["long"])
                if o["short"]:
                    self.takes.add("-" + o["short"])
        self.sizes = dict(table["sizes"])
        self.bad_input = exit_code(table, "bad input")

    def size(self, s: str) -> int:
        """SIZE as pfsbench reads it (its "sizes": k, KiB ... 1024-based, KB ... 1000-based)."""
        v = None
        sz = self.sizes
        m = re.fullmatch(r"([0-9]+)(.*)", s) if re.fullmatch(sz["syntax"], s) else None
        unit = "" if m is None else m.group(2) if sz.get("suffix_case") == "exact" else m.group(2).lower()
        if m and unit in sz["suffixes"]:
            v = int(m.group(1)) * int(sz["suffixes"][unit])
        if v is None or not int(sz["min"]) <= v <= int(sz["max"]):
            raise Usage("'%s' is not a size; give a whole number of bytes with an optional unit: k, m, g, t or "
                        "KiB, MiB, GiB, TiB (1024-based), KB, MB, GB, TB (1000-based), e.g. 4m" % s)
        return v


class BenchArgs:
    """pfsbench's arguments, read as pfsbench reads them: an option that
    takes a value (Table.takes) swallows the next word."""

    def __init__(self, words: List[str], takes: Set[str]) -> None:
        self.words = words
        self.takes = takes

    def options(self) -> Iterator[Tuple[str, Optional[str]]]:
        """(option, value or None) for each word that is an option, in order,
        in every spelling: --name=value, --name value, -x value, -xvalue."""
        w, i = self.words, 0
        while i < len(w):
            a = w[i]
            if a.startswith("--") and "=" in a:
                name, _, val = a.partition("=")
                yield name, val
            elif a in self.takes:
                yield a, w[i + 1] if i + 1 < len(w) else None
                i += 1
            elif len(a) > 2 and a[0] == "-" and a[1] != "-" and a[:2] in self.takes:
                yield a[:2], a[2:]
            elif a.startswith("-"):
                yield a, None
            i += 1

    def value(self, names: Sequence[str], default: Optional[str] = None) -> Optional[str]:
        """The last value given for one of the option names, else default."""
        val = default
        for name, v in self.options():
            if name in names and v is not None:
                val = v
        return val

    def has(self, names: Sequence[str]) -> bool:
        return any(name in names for name, _ in self.options())

    def check(self, over: str) -> None:
        """Usage for an option the sweep sets itself, or -n (which pfsrun and pfsbench read apart)."""
        for name, _ in self.options():
            if name == "-n":
                raise Usage("-n is ambiguous here (pfsrun: ranks; pfsbench: files per stream of the metadata "
                            "phases): give --files N for pfsbench, and --max/--points for the ranks")
            if name in CONTROLLED and not (name == "--threads" and over == "ranks"):
                raise Usage("%s is set by pfs-sweep at every point; give %s" % (name, CONTROLLED[name]))


def _value_of(argv: List[str], i: int, eq: str, val: str) -> Tuple[str, int]:
    """(the value of the option at argv[i], the index of its last word)."""
    if eq:
        return val, i
    if i + 1 >= len(argv):
        raise Usage("%s needs a value" % argv[i])
    return argv[i + 1], i + 1


def _keep(words: List[str], i: int, eq: str, takes: Set[str], out: List[str]) -> int:
    """Keeps pfsbench's word words[i] in out, and the next word when it is
    the value of that option; returns the index of the last word kept."""
    out.append(words[i])
    if not eq and words[i] in takes and i + 1 < len(words):
        out.append(words[i + 1])
        return i + 1
    return i


def _split(argv: List[str], takes: Set[str], o: Dict[str, Any],
           launcher: List[str]) -> List[str]:
    """Takes the sweep's own options into o and pfsrun's into launcher;
    returns the rest, pfsbench's (a value of a pfsbench option is never
    taken for an option of ours)."""
    rest: List[str] = []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--":
            return rest + argv[i + 1:]
        name, eq, val = a.partition("=") if a.startswith("--") else (a, "", "")
        if name in OWN_VALUE:
            o[OWN_VALUE[name]], i = _value_of(argv, i, eq, val)
        elif a in OWN_FLAG:
            o[OWN_FLAG[a]] = True
        elif name in LAUNCHER_VALUE:
            v, i = _value_of(argv, i, eq, val)
            launcher += [name, v]
        elif a in LAUNCHER_FLAG:
            launcher.append(a)
        else:
            i = _keep(argv, i, eq, takes, rest)
        i += 1
    return rest


def _shared(rest: List[str], takes: Set[str], o: Dict[str, Any]) -> List[str]:
    """Takes pfsbench's -b, --total, -i and -o into o; returns the rest."""
    bench: List[str] = []
    i = 0
    while i < len(rest):
        a = rest[i]
        name, eq, val = a.partition("=") if a.startswith("--") else (a, "", "")
        short = not a.startswith("--") and len(a) > 2 and a[:2] in SHARED
        if name in SHARED and not eq:
            if i + 1 >= len(rest):
                raise Usage("%s needs a value" % a)
            o[SHARED[name]] = rest[i + 1]
            i += 2
            continue
        if name in SHARED or short:
            o[SHARED[name] if name in SHARED else SHARED[a[:2]]] = val if name in SHARED else a[2:]
            i += 1
            continue
        i = _keep(rest, i, eq, takes, bench) + 1
    return bench


def wants_help(argv: Sequence[str]) -> bool:
    """-h or --help among the sweep's own words (before `--`)."""
    for a in argv:
        if a == "--":
            return False
        if a in ("-h", "--help"):
            return True
    return False


def parse_args(argv: List[str], takes: Set[str]) -> Tuple[Dict[str, Any], List[str], BenchArgs]:
    """Splits argv into the sweep's settings, pfsrun's options and pfsbench's."""
    o = dict(DEFAULTS)
    launcher: List[str] = []
    rest = _split(argv, takes, o, launcher)
    return o, launcher, BenchArgs(_shared(rest, takes, o), takes)


def to_count(s: object, what: str) -> int:
    try:
        n = int(str(s))
    except ValueError:
        raise Usage("%s '%s' is not a whole number" % (what, s))
    if n < 1:
        raise Usage("%s must be 1 or more" % what)
    return n


def launcher_source(launcher: List[str]) -> List[str]:
    """The node-source options among launcher's, for pfsrun --show-slots."""
    out, i = [], 0
    while i < len(launcher):
        if launcher[i] in ("--hostfile", "--clients"):
            out += launcher[i:i + 2]
        i += 2 if launcher[i] in LAUNCHER_VALUE else 1
    return out


def pfsbench_flag(argv: Sequence[str]) -> Optional[str]:
    """--pfsbench PATH among the sweep's own words, which must be known
    before they are split: the split needs that pfsbench's options."""
    binary = None
    for i, a in enumerate(argv):
        if a == "--":
            break
        if a == "--pfsbench" and i + 1 < len(argv):
            binary = argv[i + 1]
        elif a.startswith("--pfsbench="):
            binary = a.split("=", 1)[1]
    return binary
