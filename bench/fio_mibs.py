"""fio's JSON output as "OP MIBS" lines, one per job (bench/lib.sh's fio_mibs).

    python3 bench/fio_mibs.py FIO.json [--rewrite]

A job named w* is a write, any other a read; MiB/s = io_bytes / runtime
(2^20 B/s). --rewrite prints each write again as "rewrite". Exit status 1
(with the job named) when a job failed or moved nothing.
"""
import json
import sys

d = json.load(open(sys.argv[1]))
rewrite = "--rewrite" in sys.argv[2:]
for j in d["jobs"]:
    op = "write" if j["jobname"].startswith("w") else "read"
    s = j[op]
    if j.get("error", 0) or s["runtime"] <= 0 or s["io_bytes"] <= 0:
        sys.exit("fio %s: error %s, %d bytes" % (j["jobname"], j.get("error"), s["io_bytes"]))
    mibs = "%.2f" % (s["io_bytes"] / (s["runtime"] / 1000.0) / 1048576.0)
    print(op, mibs)
    if op == "write" and rewrite:
        print("rewrite", mibs)
