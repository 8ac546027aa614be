#!/usr/bin/python3
"""What keeping tail exemplars costs (issue 29, --exemplars): the same runs
with --exemplars 16 (the default), --exemplars 0 (the one compare per
operation, nothing kept) and, when given, a pfsbench built before the
exemplars, interleaved round by round.

    exemplar_cost.py [--base OLD_PFSBENCH] [--rounds 3] [--reps 5] [--shm DIR]

Cases: the null backend (nothing but pfsbench's own work per transfer) at
4 KiB and 1 MiB, 2M transfers per phase, and /dev/shm (tmpfs) at 4 KiB
(-b 256m) and 1 MiB (-b 1g); write and read phases, -i REPS each launch.
Per phase: the median over the repetitions of the wall ns per transfer
(seconds / ops) and of the CPU ns per transfer ((cpu_user_s + cpu_sys_s) /
ops: on a loaded machine the thread's CPU clock moves less than the wall
clock with other people's work). One line per launch, then the medians over
rounds per case and configuration.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from typing import Dict, List, Tuple

CASES = [("null", "4k", "8g"), ("null", "1m", "2t"), ("shm", "4k", "256m"), ("shm", "1m", "1g")]


def launch(binary: str, extra: List[str], where: str, api: str, t: str, b: str, reps: int) -> Dict[str, Tuple[float, float]]:
    """phase -> (median wall ns per transfer, median CPU ns per transfer)."""
    cmd = ["mpirun", "-np", "1", "--bind-to", "none", binary, "-d", where, "-t", t, "-b", b, "-p", "write,read",
           "-i", str(reps), "--no-results", "-q", "--format", "json"] + (["-a", "null"] if api == "null" else [])
    out = subprocess.run(cmd + extra, check=True, stdout=subprocess.PIPE, universal_newlines=True, timeout=600).stdout
    got = {}
    for ph in json.loads(out)["phases"]:
        reps_ = ph["repetitions"]
        wall = statistics.median(r["seconds"] / r["ops"] * 1e9 for r in reps_)
        cpu = statistics.median((r["cpu_user_s"] + r["cpu_sys_s"]) / r["ops"] * 1e9 for r in reps_)
        got[ph["phase"]] = (wall, cpu)
    return got


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pfsbench", default=os.path.join(os.path.dirname(__file__), "..", "build", "pfsbench"))
    ap.add_argument("--base")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--shm", default="/dev/shm")
    a = ap.parse_args()
    configs = [("K16", a.pfsbench, ["--exemplars", "16"]), ("K0", a.pfsbench, ["--exemplars", "0"])]
    if a.base:
        configs.append(("base", a.base, []))
    res: Dict[Tuple[str, str, str, str], List[Tuple[float, float]]] = {}
    with tempfile.TemporaryDirectory(dir=a.shm, prefix="pfsex.") as shm:
        for rnd in range(a.rounds):
            for api, t, b in CASES:
                order = configs if rnd % 2 == 0 else configs[::-1]
                for name, binary, extra in order:
                    got = launch(binary, extra, shm, api, t, b, a.reps)
                    for ph, v in got.items():
                        res.setdefault((api, t, ph, name), []).append(v)
                        print("round %d %-4s %-2s %-5s %-4s wall %8.1f ns  cpu %8.1f ns" % (rnd, api, t, ph, name,
                                                                                      v[0], v[1]), flush=True)
    print("\nmedian over %d rounds (ns per transfer, wall / CPU); K16 - K0 and K16 - base" % a.rounds)
    names = [c[0] for c in configs]
    for api, t, _ in CASES:
        for ph in ("write", "read"):
            med = {n: (statistics.median(x[0] for x in res[(api, t, ph, n)]),
                       statistics.median(x[1] for x in res[(api, t, ph, n)])) for n in names}
            cells = "  ".join("%s %.1f / %.1f" % (n, med[n][0], med[n][1]) for n in names)
            d0 = (med["K16"][0] - med["K0"][0], med["K16"][1] - med["K0"][1])
            line = "%-4s %-2s %-5s %s  | K16-K0 %+.1f / %+.1f" % (api, t, ph, cells, d0[0], d0[1])
            if "base" in med:
                line += "  K16-base %+.1f / %+.1f (%+.2f%% / %+.2f%%)" % (
                    med["K16"][0] - med["base"][0], med["K16"][1] - med["base"][1],
                    100 * (med["K16"][0] / med["base"][0] - 1), 100 * (med["K16"][1] / med["base"][1] - 1))
            print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
