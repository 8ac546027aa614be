"""check_cpu.py JSON [RESULTS SRC]: %CPU never passes 100.

JSON is pfsbench's --format json report; every repetition of every phase
must have 0 <= cpu_percent <= 100, i.e. the streams' CPU seconds no more
than the phase's seconds x streams (the formula divides by streams), and
some CPU at all. With RESULTS (the run's results file) and SRC (the source
tree), the same for pfsbench.open(RESULTS).summary()'s cpu_percent of the
last run. Prints each phase's figure.
"""
import json
import os
import sys


def main() -> int:
    doc = json.load(open(sys.argv[1]))
    streams = int(doc["streams"])
    seen = []
    for ph in doc["phases"]:
        for rep in ph["repetitions"]:
            pct, cpu = rep["cpu_percent"], rep["cpu_user_s"] + rep["cpu_sys_s"]
            seen.append("%s %.1f%%" % (ph["phase"], pct))
            assert 0 < pct <= 100, "%s rep %d: %%CPU %.1f (CPU %.4f s over %.4f s x %d streams)" % (
                ph["phase"], rep["rep"], pct, cpu, rep["seconds"], streams)
            assert cpu <= rep["seconds"] * streams * (1 + 1e-9), (ph["phase"], cpu, rep["seconds"])
    if len(sys.argv) > 3:
        sys.path.insert(0, os.path.join(sys.argv[3], "python"))
        import pfsbench
        with pfsbench.open(sys.argv[2]) as r:
            s = r.runs[-1].summary(as_frame=False)
            for phase, pct in zip(s["phase"], s["cpu_percent"]):
                assert 0 < pct <= 100, "results file: %s %%CPU %.1f" % (phase, pct)
    print(", ".join(seen))
    return 0


if __name__ == "__main__":
    sys.exit(main())
