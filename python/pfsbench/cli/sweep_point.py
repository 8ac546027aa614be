"""One point of pfs-sweep: its launcher run in a session of its own, its
output appended to the log, stopped on --point-timeout or when the sweep
is stopped (SIGUSR1, then SIGTERM, then SIGKILL)."""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import sys
import threading
import time
from typing import Any, Dict, List, Optional, TextIO, Tuple

# What the running point gets on the first, second and third stop: SIGUSR1
# first, which mpirun and srun forward to the ranks and pfsbench ends on as
# interrupted, recording the run (mpirun itself, on SIGTERM or SIGINT, kills
# the ranks before they can); then SIGTERM; then SIGKILL.
ESCALATE = (signal.SIGUSR1, signal.SIGTERM, signal.SIGKILL)
KEEP_LINES = 400  # of a point's output, for the lines shown when it fails


def stop_point(pgid: int, step: int) -> bool:
    """Signals the point's process group (its launcher runs in a session of
    its own, so that stopping it reaches mpirun and all below it, and
    nothing above pfs-sweep). False when the group is gone."""
    try:
        os.killpg(pgid, ESCALATE[min(step, len(ESCALATE) - 1)])
        return True
    except OSError:
        return False


class Stop:
    """The signal that stops the sweep (0: none), the process group of the
    point running now (0: none) and how many stops it has had; on_signal is
    the handler of the signals that stop a sweep."""

    def __init__(self) -> None:
        self.signum = 0
        self.child = 0
        self.sent = 0

    def install(self) -> None:
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(sig, self.on_signal)

    def on_signal(self, signum: int, frame: Any = None) -> None:
        """A stop of the sweep (Ctrl-C, SIGTERM, SIGHUP): remembered, and
        passed on to the running point, harder each time."""
        if not self.signum:
            self.signum = signum
        if self.child:
            stop_point(self.child, self.sent)
            self.sent += 1


def _watchdog(pid: int, timeout: float, done: threading.Event, timed_out: threading.Event) -> None:
    """After timeout s of the point: SIGUSR1, SIGTERM, SIGKILL, 10 s apart, until it ends."""
    if done.wait(timeout):
        return
    timed_out.set()
    for step in range(len(ESCALATE)):
        if not stop_point(pid, step) or done.wait(10):
            return


def _pump(p: "subprocess.Popen[str]", lf: TextIO, verbose: bool) -> List[str]:
    """The point's output into the log (and here with verbose); its last lines."""
    tail: List[str] = []
    assert p.stdout is not None
    for line in p.stdout:
        lf.write(line)
        if verbose:
            sys.stdout.write(line)
            sys.stdout.flush()
        tail.append(line.rstrip("\n"))
        del tail[:-KEEP_LINES]
    return tail


def run_point(cmd: List[str], env: Dict[str, str], log: str, verbose: bool, timeout: Optional[float], head: str,
              stop: Stop) -> Tuple[int, List[str]]:
    """Runs one point, its output appended to log (and echoed with verbose).
    Returns (status, the last lines of its output): 124 when --point-timeout
    stopped it."""
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
        stop.child, stop.sent = p.pid, 0
        if stop.signum:  # a signal between the check and the start
            stop.on_signal(stop.signum)
        done, timed_out = threading.Event(), threading.Event()
        if timeout:
            threading.Thread(target=_watchdog, args=(p.pid, timeout, done, timed_out), daemon=True).start()
        tail = _pump(p, lf, verbose)
        rc = p.wait()
        stop.child = 0
        done.set()
        if stop.signum:
            lf.write("==== interrupted by signal %d\n" % stop.signum)
        elif timed_out.is_set():
            lf.write("==== stopped after --point-timeout %g s\n" % (timeout or 0))
        else:
            lf.write("==== exit %d\n" % rc)
    return (124 if timed_out.is_set() else rc), tail


def fmt_secs(s: float) -> str:
    if s < 10:
        return "%.1fs" % s
    s = int(round(s))
    if s < 60:
        return "%ds" % s
    if s < 3600:
        return "%dm%02ds" % (s // 60, s % 60)
    return "%dh%02dm" % (s // 3600, s % 3600 // 60)
