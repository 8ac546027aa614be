"""pfsbench: pfsbench's HDF5 results files where analysts work.

    import pfsbench
    with pfsbench.open("results.h5") as r:
        r.summary()          # one row per run, phase and repetition (pandas DataFrame)
        r.nodes()            # per node: host, bytes, seconds, bandwidth, straggler, rate, CPU
        r.streams()          # the raw times of every stream, relative to the run's start
        r.latency()          # latency_summary per kind; latency(hist=True): the histograms
        r.timeline()         # the time series per interval and node
        r.runs_frame()       # one row per run: file, run id, label, date, ranks, nodes, phases, api, ...
        run = r.runs[0]      # a Run: number, run_id, label, status, attrs; the same frames
    with pfsbench.open(["a.h5", "b.h5"]) as rs:   # several files (or open("a.h5", "b.h5")): a ResultsSet
        rs.summary()         # every run of every file; a first column, file, says whose

Pure Python over h5py and numpy; pandas is imported only for the frames
(each frame method takes as_frame=False for a dict of numpy arrays).
pfsbench.rows holds the same data as plain dicts, as the tools read it;
the tools pfs-results, pfs-compare, pfs-plot, pfs-sweep, pfs-io500 and
pfs-report are pfsbench.cli.* (python3 -m pfsbench TOOL). docs/python.md has a worked
example and the package's layout; docs/results-format.md the file.
"""

from .h5file import FORMAT, VERSION, NoSuchRun, NotResultsFile
from .reader import Phase, Results, Run, open
from .several import ResultsSet

__version__ = "0.1.0"
__all__ = ["open", "Results", "ResultsSet", "Run", "Phase", "NotResultsFile", "NoSuchRun", "FORMAT", "VERSION", "__version__"]
