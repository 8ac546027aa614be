#!/bin/bash
# Latency, IOPS, CPU and the time series from a real 2-rank run, in every
# output: the text report's latency table, JSON, CSV, the results file
# (checked with h5py against the phase's own counts and bytes), pfs-results
# --latency and --timeseries, pfs-compare --names bonnie's %CP; and a file
# without these datasets (an older run) still reads.
. "$(dirname "$0")/lib.sh"
SRC=${PFS_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
PR=$(dirname "$PFSBENCH")/pfs-results
PC=$(dirname "$PFSBENCH")/pfs-compare
D=$T/data
mkdir -p "$D"

# ---- text: the table after the summary, one screen wide ----
run_mpi 2 60 -d "$D" -t 64k -b 1m -p write,read,create -n 20 -i 2 -e -o "$T/r.h5"
check "text: exit 0" [ "$RC" -eq 0 ]
check "text: a latency table after the summary" \
    awk '/^summary over repetitions/ { s = 1 } s && /^latency per operation in (us|ms)/ { f = 1 } END { exit !f }' "$T/out"
check "text: rows for the transfers, open, fsync and close of write, and the files of create" \
    sh -c "grep -qE '^write +0 write +32 ' '$T/out' && grep -qE '^write +1 fsync +2 ' '$T/out' &&
           grep -qE '^read +0 open +2 ' '$T/out' && grep -qE '^create +1 create +40 ' '$T/out'"
check "text: the slowest node's p99 and the CPU seconds" grep -qE '^ +slowest node p99 [0-9.]+ (us|ms): node 0 .*CPU user [0-9.]+ s, sys [0-9.]+ s$' "$T/out"
check "text: the summary and the latency table within 100 columns" \
    awk '/^summary over repetitions/ { s = 1 } /^results / { s = 0 } s && length($0) > 100 { bad = 1 } END { exit bad }' "$T/out"

# ---- the results file, against the phase's own counts ----
pycheck "h5: latency, node_latency and the time series add up to the phase's ops and bytes" "$T/r.h5" <<'EOF'
import sys, h5py, numpy as np
run = h5py.File(sys.argv[1], "r")["runs/000001"]
K = int(run.attrs["nodes"])
for name in ("00_write", "01_read", "02_create"):
    g = run["phases"][name]
    R = int(g.attrs["repetitions"])
    assert g.attrs["latency_kinds"] == "op,open,fsync,close", g.attrs["latency_kinds"]
    lat, nl, ops, byts = g["latency"][()], g["node_latency"][()], g["ops"][()], g["bytes"][()]
    assert lat.shape == (R, 4, len(g["latency_bucket_lo"])) and nl.shape[:2] == (R, K), (lat.shape, nl.shape)
    summ = g["latency_summary"][()]
    for r in range(R):
        assert lat[r][0].sum() == ops[r] > 0, (name, r, lat[r][0].sum(), ops[r])
        assert nl[r].sum() == ops[r], (name, r, nl[r].sum(), ops[r])
        assert summ[r, 0]["count"] == ops[r] and summ[r, 0]["min_ns"] <= summ[r, 0]["p50_ns"] <= summ[r, 0]["p99_ns"] <= summ[r, 0]["max_ns"]
        ts = g["timeseries/rep_%03d" % r]
        n = int(ts.attrs["intervals"])
        assert ts["bytes"].shape == (n, K) and n >= 1 and ts.attrs["interval"] > 0
        assert ts["bytes"][()].sum() == byts[r], (name, r, ts["bytes"][()].sum(), byts[r])
        assert ts["ops"][()].sum() == ops[r] and ts["run_hist"][()].sum() == ops[r]
        for d in ("bytes", "ops", "p50_ns", "p99_ns", "max_ns", "run_hist"):
            assert "units" in ts[d].attrs, d
    if name == "00_write":  # -e: one fsync per file, and one open and one close
        assert (lat[:, 1].sum(axis=1) == 2).all() and (lat[:, 2].sum(axis=1) == 2).all() and (lat[:, 3].sum(axis=1) == 2).all()
    for d in ("latency", "latency_summary", "node_latency", "node_latency_summary", "cpu_user", "cpu_sys",
              "latency_bucket_lo", "latency_bucket_hi"):
        assert "units" in g[d].attrs, d
    assert g["cpu_user"].shape == (R, K) and {"cpu_user", "cpu_sys"} <= set(g["times"].dtype.names)
    assert np.allclose(g["cpu_user"][()].sum(axis=1), g["times"]["cpu_user"].sum(axis=1))
EOF

# ---- JSON and CSV carry the new fields ----
run_mpi 2 60 -d "$D" -t 64k -b 1m -p write,read -i 2 --no-results --format json
check "json: exit 0" [ "$RC" -eq 0 ]
pycheck "json: iops, cpu, latency per kind and the slowest node in every repetition" "$T/out" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
for p in d["phases"]:
    for r in p["repetitions"]:
        assert abs(r["iops"] - r["ops"] / r["seconds"]) <= 1e-6 * r["iops"]
        assert r["cpu_percent"] >= 0 and r["cpu_user_s"] >= 0 and r["cpu_sys_s"] >= 0
        lat = r["latency"]
        assert set(lat) == {"op", "open", "fsync", "close"} and lat["op"]["count"] == r["ops"]
        op = lat["op"]
        assert op["min_ns"] <= op["p50_ns"] <= op["p90_ns"] <= op["p99_ns"] <= op["p999_ns"] <= op["max_ns"]
        assert r["slowest_node"] == 0 and r["slowest_node_p99_ns"] > 0
EOF
run_mpi 2 60 -d "$D" -t 64k -b 1m -p write,read -i 2 --no-results --format csv
check "csv: exit 0" [ "$RC" -eq 0 ]
pycheck "csv: the old columns first, then iops, lat_*_us and cpu_percent" "$T/out" <<'EOF'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
head = rows[0]
assert head.index("fs_layout") < head.index("iops") < head.index("lat_p50_us") < head.index("cpu_percent"), head
for row in rows[1:]:
    r = dict(zip(head, row))
    assert len(row) == len(head)
    assert int(r["lat_count"]) == int(r["ops"]) == 32
    assert 0 < float(r["lat_min_us"]) <= float(r["lat_p50_us"]) <= float(r["lat_p99_us"]) <= float(r["lat_max_us"])
    assert abs(float(r["iops"]) - float(r["ops_per_s"])) <= 1e-6 * float(r["iops"])
    assert float(r["cpu_percent"]) >= 0
EOF

# ---- pfs-results and pfs-compare ----
RC=0
"$PY" "$PR" "$T/r.h5" --timeseries "$T/ts.csv" >"$T/out" 2>"$T/err" || RC=$?
check "pfs-results --timeseries: exit 0" [ "$RC" -eq 0 ]
pycheck "pfs-results --timeseries: rows per interval and node whose bytes add up to the phases'" "$T/ts.csv" "$T/r.h5" <<'EOF'
import csv, sys, h5py
rows = list(csv.DictReader(open(sys.argv[1])))
assert rows and list(rows[0]) == ["run", "phase", "rep", "interval", "t_start_s", "t_end_s", "node", "bytes", "ops",
                                  "p50_ns", "p99_ns", "max_ns"], list(rows[0]) if rows else rows
g = h5py.File(sys.argv[2], "r")["runs/000001/phases"]
for name, ph in (("00_write", "write"), ("01_read", "read")):
    for r in range(2):
        got = sum(int(x["bytes"]) for x in rows if x["phase"] == ph and x["rep"] == str(r))
        assert got == g[name]["bytes"][r], (ph, r, got)
        ts, tm = g[name]["timeseries/rep_%03d" % r], g[name]["times"][r]
        mine = [x for x in rows if x["phase"] == ph and x["rep"] == str(r)]
        for x in mine:  # each interval's true edges, as stored
            i = int(x["interval"])
            assert float(x["t_start_s"]) == ts["start"][i] and float(x["t_end_s"]) == ts["end"][i], x
        # the first starts at the phase's first open, the last ends at its last close
        assert min(float(x["t_start_s"]) for x in mine) == tm["open_start"].min(), ph
        assert max(float(x["t_end_s"]) for x in mine) == tm["close_end"].max(), ph
EOF
RC=0
"$PY" "$PR" "$T/r.h5" --latency >"$T/out" 2>"$T/err" || RC=$?
check "pfs-results --latency: exit 0, a row per phase and repetition" \
    sh -c "[ $RC -eq 0 ] && [ \$(grep -cE '^ +1 +(write|read|create) +[01] +[0-9]+ +[0-9.]+' '$T/out') -eq 6 ]"
RC=0
"$PY" "$PC" "$T/r.h5" --names bonnie --units KB --transpose --phases write,read >"$T/out" 2>"$T/err" || RC=$?
check "pfs-compare --names bonnie: %CP beside K/sec" \
    sh -c "[ $RC -eq 0 ] && grep -qE '^label .*Block output \[KB/s\] +%CP +Block input \[KB/s\] +%CP' '$T/out' &&
           grep -qE '^\(no label\) +[0-9.]+ +[0-9]+ +[0-9.]+ +[0-9]+$' '$T/out'"

# ---- an older file, without these datasets, still reads ----
cp "$T/r.h5" "$T/old.h5"
pycheck "old file: latency, time series and CPU datasets removed" "$T/old.h5" <<'EOF'
import sys, h5py
f = h5py.File(sys.argv[1], "r+")
for g in f["runs/000001/phases"].values():
    for d in ("latency", "latency_summary", "node_latency", "node_latency_summary", "latency_bucket_lo",
              "latency_bucket_hi", "cpu_user", "cpu_sys", "timeseries"):
        del g[d]
EOF
RC=0
"$PY" "$PR" "$T/old.h5" --latency >"$T/out" 2>"$T/err" || RC=$?
check "old file: --latency exits 0 with - for what was not recorded" \
    sh -c "[ $RC -eq 0 ] && grep -qE '^ +1 +write +0 +- +- ' '$T/out' && [ ! -s '$T/err' ]"
RC=0
"$PY" "$PR" "$T/old.h5" --timeseries - >"$T/out" 2>"$T/err" || RC=$?
check "old file: --timeseries writes the header alone" sh -c "[ $RC -eq 0 ] && [ \$(wc -l <'$T/out') -eq 1 ]"
RC=0
"$PY" "$PR" "$T/old.h5" >"$T/out" 2>"$T/err" || RC=$?
check "old file: the summary reads as before" sh -c "[ $RC -eq 0 ] && grep -qE '^ +1 .* write ' '$T/out'"
finish
