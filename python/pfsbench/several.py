"""pfsbench.open([a, b]) or pfsbench.open(a, b): several results files as one.

    with pfsbench.open(["ssd.h5", "hdd.h5"]) as rs:   # a ResultsSet
        rs.runs_frame()     # one row per run of every file: file, run, run_id, label, date, ranks, ...
        rs.summary()        # Results.summary's rows of every file, a first column `file` saying whose

Run numbers start at 1 in every file, so a row's run is (file, run). Each
file is a Results of its own (rs.results, in the order given); the frames
are theirs, joined, with the column file: the path as given.
"""

from __future__ import annotations

import os
from typing import List, Sequence, Tuple, Union

from . import frames
from .reader import Frame, Results, Run, RunsHeld

PathArg = Union[str, "os.PathLike[str]"]


class ResultsSet(RunsHeld):
    """Several open results files (pfsbench.open([a, b])): results (a
    Results per file, in the order given), runs (every readable run of
    every file, in that order; run.results.path names its file), problems
    ((where, what) of the damaged runs left out, where prefixed by the
    file); the frames of Results over all of them, each with a first
    column, file. A context manager, closing every file."""

    def __init__(self, paths: Sequence[PathArg], warn: bool = True) -> None:
        if not paths:
            raise ValueError("pfsbench.open([]): give at least one results file")
        for p in paths:
            if not isinstance(p, (str, os.PathLike)):
                raise TypeError("pfsbench.open: %r is not a path (warn is a keyword: open(a, b, warn=False))" % (p,))
        self.results: List[Results] = []
        try:
            for p in paths:
                self.results.append(Results(p, warn))
        except Exception:
            self.close()
            raise
        self.paths = [r.path for r in self.results]
        self.runs: List[Run] = [run for r in self.results for run in r.runs]
        self.problems = [("%s: %s" % (r.path, where), what) for r in self.results for where, what in r.problems]

    def close(self) -> None:
        for r in self.results:
            r.close()

    def __repr__(self) -> str:
        return "<pfsbench.ResultsSet %d files, %d run%s>" % (len(self.results), len(self.runs),
                                                             "" if len(self.runs) == 1 else "s")

    def _frame(self, what: str, as_frame: bool) -> Frame:
        parts: List[Tuple[str, Sequence[Run]]] = [(r.path, r.runs) for r in self.results]
        return frames.frame_of_files(what, parts, as_frame)

    def runs_frame(self, as_frame: bool = True) -> Frame:
        """One row per run of every file; see Results.runs_frame."""
        return self._frame("runs", as_frame)

    def summary(self, as_frame: bool = True) -> Frame:
        """file, then Results.summary's columns, for every file."""
        return self._frame("summary", as_frame)

    def nodes(self, as_frame: bool = True) -> Frame:
        """file, then Results.nodes's columns, for every file."""
        return self._frame("nodes", as_frame)

    def streams(self, as_frame: bool = True) -> Frame:
        """file, then Results.streams's columns, for every file."""
        return self._frame("streams", as_frame)

    def latency(self, hist: bool = False, per_node: bool = False, as_frame: bool = True) -> Frame:
        """file, then Results.latency's columns, for every file."""
        return self._frame(frames.latency_kind(hist, per_node), as_frame)

    def timeline(self, as_frame: bool = True) -> Frame:
        """file, then Results.timeline's columns, for every file."""
        return self._frame("timeline", as_frame)

    def placement(self, as_frame: bool = True) -> Frame:
        """file, then Results.placement's columns, for every file."""
        return self._frame("placement", as_frame)

    def ceilings(self, as_frame: bool = True) -> Frame:
        """file, then Results.ceilings's columns, for every file."""
        return self._frame("ceilings", as_frame)

    def load(self, as_frame: bool = True) -> Frame:
        """file, then Results.load's columns, for every file."""
        return self._frame("load", as_frame)

    def targets(self, as_frame: bool = True) -> Frame:
        """file, then Results.targets's columns, for every file."""
        return self._frame("targets", as_frame)

    def target_latency(self, as_frame: bool = True) -> Frame:
        """file, then Results.target_latency's columns, for every file."""
        return self._frame("target_latency", as_frame)
