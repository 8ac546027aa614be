"""fio's JSON output as "OP MIBS" lines, one per job (bench/lib.sh's fio_mibs).

    python3 bench/fio_mibs.py FIO.json [--rewrite|--mix]

A job named w* is a write, any other a read; MiB/s = io_bytes / runtime
(2^20 B/s). --rewrite prints each write again as "rewrite"; --mix prints
each job as "rwmix", its read and write bytes together over the longer of
their runtimes (a randrw job). Exit status 1 (with the job named) when a
job failed or moved nothing.
"""
import json
import sys

d = json.load(open(sys.argv[1]))
rewrite = "--rewrite" in sys.argv[2:]
for j in d["jobs"]:
    if "--mix" in sys.argv[2:]:
        moved = j["read"]["io_bytes"] + j["write"]["io_bytes"]
        ms = max(j["read"]["runtime"], j["write"]["runtime"])
        if j.get("error", 0) or ms <= 0 or moved <= 0:
            sys.exit("fio %s: error %s, %d bytes" % (j["jobname"], j.get("error"), moved))
        print("rwmix", "%.2f" % (moved / (ms / 1000.0) / 1048576.0))
        continue
    op = "write" if j["jobname"].startswith("w") else "read"
    s = j[op]
    if j.get("error", 0) or s["runtime"] <= 0 or s["io_bytes"] <= 0:
        sys.exit("fio %s: error %s, %d bytes" % (j["jobname"], j.get("error"), s["io_bytes"]))
    mibs = "%.2f" % (s["io_bytes"] / (s["runtime"] / 1000.0) / 1048576.0)
    print(op, mibs)
    if op == "write" and rewrite:
        print("rewrite", mibs)
