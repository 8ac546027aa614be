"""pfsbench: pfsbench's HDF5 results files where analysts work.

    import pfsbench
    with pfsbench.open("results.h5") as r:
        r.summary()          # one row per run, phase and repetition (pandas DataFrame)
        r.nodes()            # per node: host, bytes, seconds, bandwidth, straggler, rate, CPU
        r.streams()          # the raw times of every stream, relative to the run's start
        r.latency()          # latency_summary per kind; latency(hist=True): the histograms
        r.timeline()         # the time series per interval and node
        run = r.runs[0]      # a Run: number, run_id, label, status, attrs; the same frames

Pure Python over h5py and numpy; pandas is imported only for the frames
(each frame method takes as_frame=False for a dict of numpy arrays). The
tools pfs-results, pfs-compare, pfs-plot and pfs-sweep are pfsbench.cli.*.
docs/python.md has a worked example; docs/results-format.md the file.
"""

from ._api import Results, Run, open  # noqa: F401
from .reader import FORMAT, VERSION, NoSuchRun, NotResultsFile  # noqa: F401

__version__ = "0.1.0"
__all__ = ["open", "Results", "Run", "NotResultsFile", "NoSuchRun", "FORMAT", "VERSION", "__version__"]
