"""What every tool shares: its error exit, its output set-up, sizes as pfsbench prints them."""

from __future__ import annotations

import sys
from typing import Any, Callable, List, Optional, Sequence

from ..reader import Results
from ..text import display


class Usage(Exception):
    """Bad input: the message says what to do instead. Exit status 2."""


def fail(prog: str, msg: object) -> int:
    """One line on stderr, 'PROG: error: MSG'; returns the exit status of
    bad input, 2. Text of the file in msg is the caller's to escape."""
    sys.stderr.write("%s: error: %s\n" % (prog, msg))
    return 2


def report_problems(prog: str, problems: Sequence[Any]) -> None:
    """One line on stderr per damaged thing a view left out: 'PROG: WHERE: WHAT; skipped'."""
    for where, what in problems:
        sys.stderr.write("%s: %s: %s; skipped\n" % (prog, display(where), display(what)))


def escape_output() -> None:
    """Whatever the locale, text that cannot be encoded is escaped, not fatal."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.reconfigure(errors="backslashreplace")  # type: ignore[attr-defined]
        except (AttributeError, ValueError):
            pass


def size_text(n: Any) -> str:
    """Bytes as the largest exact 1024-based unit, as pfsbench prints them."""
    n = int(n)
    for unit, f in (("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= f and n % f == 0:
            return "%d %s" % (n // f, unit)
    return "%d B" % n


def open_results(path: str, prog: str, problems: Optional[List[Any]] = None) -> Results:
    """pfsbench.open(path) for a tool: damaged runs go to problems (or, with
    none given, to stderr as PROG's lines), never to Python's warnings;
    Usage for a path that is not a results file."""
    from .. import reader
    from ..h5file import NotResultsFile
    try:
        res = reader.open(path, warn=False)
    except NotResultsFile as e:
        raise Usage(str(e))
    if problems is None:
        report_problems(prog, res.problems)
    else:
        problems += res.problems
    return res


def run_main(prog: str, body: Callable[[], int]) -> int:
    """body()'s exit status; a Usage is one line and 2, a closed pipe 0."""
    try:
        return body()
    except Usage as e:
        return fail(prog, e)
    except BrokenPipeError:
        return 0
