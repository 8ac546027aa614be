#!/bin/bash
# pfs-plot timeline and latency on real runs (two fake nodes, 2 ranks each):
# PNG and SVG (by -o's extension) and both from a prefix, valid files (PNG
# signature, SVG parsed as XML, its text: units and phase names), the
# plotted series (--data-csv) against the results file (the timeline's bytes
# and ops sum to each phase's, per node too; each step is an interval's bytes
# over its overlap with the phase, and the steps span the phase from its
# first open to its last close; each CDF rises to 1.0 with its
# count = the phase's ops, percentiles = pfsbench's summary), several runs
# compared, 1 node per line, and a file from before latencies and time series
# (datasets deleted in a copy): a clear message and exit 2, no traceback.
. "$PFS_TESTS/mpi/lib.sh"
. "$PFS_TESTS/lib/fakenodes.sh"
PY=/usr/bin/python3          # has h5py and matplotlib; the pyenv python3 on PATH does not
S=$(dirname "$PFSBENCH")      # the pfs-* commands CMake writes beside pfsbench
export MPLBACKEND=Agg
D=$T/data
mkdir -p "$D"
R=$T/r.h5

# bench ARGS... : pfsbench on 4 ranks over 2 fake nodes, under timeout.
bench() {
    fakenodes_setup 2 2
    RC=0
    fakenodes_mpirun 4 90 "$PFSBENCH" "$@" >"$T/out" 2>"$T/err" || RC=$?
}
# plot ARGS... : pfs-plot; stdout in $T/out, stderr in $T/err, status in RC.
plot() {
    RC=0
    timeout 120 "$PY" "$S/pfs-plot" "$@" >"$T/out" 2>"$T/err" || RC=$?
}
rc_is() { [ "$RC" -eq "$1" ]; }
is_png() { [ -s "$1" ] && [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]; }
is_svg() { "$PY" -c 'import sys, xml.etree.ElementTree as E; r = E.parse(sys.argv[1]).getroot(); sys.exit(not r.tag.endswith("svg"))' "$1"; }
svg_has() { grep -qF -- "$2" "$1"; }
err_has() { grep -qF -- "$1" "$T/err"; }
no_traceback() { ! grep -q "Traceback" "$T/err"; }

bench -d "$D" -t 64k -b 4m -p write,read,create,stat,delete -n 60 -i 2 -e --interval 0.02 -o "$R" --label first
check "run 1 (2 nodes, 4 ranks, 2 repetitions): exit 0" rc_is 0
bench -d "$D" -t 64k -b 2m -p write,read -i 1 --interval 0.02 -o "$R" --label second
check "run 2: exit 0" rc_is 0

# ---- timeline ----
plot timeline "$R" --run 1 --iops -o "$T/tl.png" --data-csv "$T/tl.csv"
check "timeline -o X.png: exit 0" rc_is 0
check "timeline -o X.png: prints the one file it wrote" [ "$(cat "$T/out")" = "wrote $T/tl.png" ]
check "timeline PNG is a PNG" is_png "$T/tl.png"
check "timeline -o X.png: no SVG beside it" [ ! -e "$T/tl.svg" ]
plot timeline "$R" --run 1 -o "$T/tl.svg"
check "timeline -o X.svg: exit 0" rc_is 0
check "timeline SVG parses as XML" is_svg "$T/tl.svg"
check "timeline SVG: the unit on the y axis" svg_has "$T/tl.svg" "MiB/s = 2^20 B/s"
check "timeline SVG: the x axis in seconds" svg_has "$T/tl.svg" "time since the run's first phase started (s)"
check "timeline SVG: the phases labelled (repetitions numbered)" \
    sh -c "grep -qF 'write #1' '$T/tl.svg' && grep -qF 'delete #0' '$T/tl.svg'"
check "timeline SVG: a legend entry per node, with its host" \
    sh -c "grep -qF 'node 0 (node1)' '$T/tl.svg' && grep -qF 'node 1 (node2)' '$T/tl.svg'"
plot timeline "$R" -o "$T/last"
check "timeline -o PREFIX: PNG and SVG of the last run" \
    sh -c "[ \"\$(cat '$T/out')\" = \"wrote $T/last.png
wrote $T/last.svg\" ]"
check "timeline without --run: run 2 (its title)" svg_has "$T/last.svg" "run 2 (second)"

pycheck "timeline CSV: per phase, repetition and node, bytes and ops sum to the results file's" "$R" "$T/tl.csv" <<'EOF'
import sys, csv, h5py, numpy as np
rows = list(csv.DictReader(open(sys.argv[2])))
ph = h5py.File(sys.argv[1], "r")["runs/000001/phases"]
seen = set()
for g in ph.values():
    name = g.attrs["phase"]
    name = name.decode() if isinstance(name, bytes) else name
    for rep in range(int(g.attrs["repetitions"])):
        rs = [r for r in rows if r["phase"] == name and int(r["rep"]) == rep]
        assert rs, (name, rep)
        seen.add((name, rep))
        assert sum(int(r["bytes"]) for r in rs) == int(g["bytes"][rep]), (name, rep)
        assert sum(int(r["ops"]) for r in rs) == int(g["ops"][rep]), (name, rep)
        for k in range(g["node_bytes"].shape[1]):
            assert sum(int(r["bytes"]) for r in rs if int(r["node"]) == k) == int(g["node_bytes"][rep][k]), (name, k)
        ts = g["timeseries/rep_%03d" % rep]
        dt = float(ts.attrs["interval"])
        lo, hi = ts["start"][()], ts["end"][()]
        tm = g["times"][rep]
        first = min(float(r["t_start_s"]) for r in rs)
        last = max(float(r["t_end_s"]) for r in rs)
        # the band and the steps end where the phase does: first open to last close, on the plot's axis
        assert abs((last - first) - (tm["close_end"].max() - tm["open_start"].min())) < 2e-6, (name, rep)
        # the first interval starts at the first open: before rank 0 left the start agreement (the
        # grid's origin t0) when another node's clock put its open there, by up to that skew
        early = max(0.0, float(ts.attrs["t0"]) - lo[0])
        for r in rs:  # the plotted rate is the interval's bytes / its overlap with the phase
            i = int(r["interval"])
            span = hi[i] - lo[i]
            assert 0 < span <= 1.25 * dt + (early if i == 0 else 0) + 1e-9, (r, span, early)
            assert abs(float(r["bytes_per_s"]) - int(r["bytes"]) / span) <= 1e-5 * max(1.0, int(r["bytes"]) / span), r
            assert abs(float(r["t_end_s"]) - float(r["t_start_s"]) - span) < 2e-6, r
            assert r["straggler"] == str(int(g["node_straggler"][rep][int(r["node"])])), r
assert len(seen) == 10, seen
t = [float(r["t_start_s"]) for r in rows]
assert min(t) == 0, min(t)   # x: since the run's first phase started, where its first interval starts
starts = {}
for r in rows:
    starts.setdefault((r["phase"], int(r["rep"])), float(r["t_start_s"]))
order = sorted(starts, key=starts.get)
assert order[0] == ("write", 0), order   # the phases one after another on one axis
EOF

# ---- latency ----
plot latency "$R" --run 1 -o "$T/lat.png" --data-csv "$T/lat.csv"
check "latency -o X.png: exit 0" rc_is 0
check "latency PNG is a PNG" is_png "$T/lat.png"
plot latency "$R" --run 1 -o "$T/lat.svg"
check "latency SVG parses as XML" is_svg "$T/lat.svg"
check "latency SVG: the unit and log scale on the x axis" svg_has "$T/lat.svg" "s, log scale), from submission to completion"
check "latency SVG: p50, p99 and p99.9 labelled" \
    sh -c "grep -qE '>p50 [0-9.,]+<' '$T/lat.svg' && grep -qE '>p99 [0-9.,]+<' '$T/lat.svg' && grep -qE '>p99.9 [0-9.,]+<' '$T/lat.svg'"
check "latency SVG: says where the CDF steps are" svg_has "$T/lat.svg" "bucket's upper edge"

pycheck "latency CSV: a CDF per phase ending at 1.0 with count = ops, percentiles = pfsbench's" "$R" "$T/lat.csv" <<'EOF'
import sys, csv, h5py
rows = list(csv.DictReader(open(sys.argv[2])))
ph = h5py.File(sys.argv[1], "r")["runs/000001/phases"]
for g in ph.values():
    name = g.attrs["phase"]
    name = name.decode() if isinstance(name, bytes) else name
    e = [r for r in rows if r["series"] == name and r["point"] == "edge"]
    assert e, name
    fr = [float(r["fraction"]) for r in e]
    cnt = [int(r["cum_count"]) for r in e]
    x = [float(r["x_ns"]) for r in e]
    assert fr[0] == 0 and fr[-1] == 1.0, (name, fr[0], fr[-1])
    assert all(b >= a for a, b in zip(fr, fr[1:])) and all(b >= a for a, b in zip(x, x[1:])), name
    assert cnt[-1] == int(g["ops"][()].sum()), (name, cnt[-1], g["ops"][()])
    summ = g["latency_summary"][()]
    assert x[0] == min(summ[r, 0]["min_ns"] for r in range(len(summ))), name
    assert x[-1] == max(summ[r, 0]["max_ns"] for r in range(len(summ))), name
EOF
plot latency "$R" --run 1 --rep 0 -o "$T/rep1.svg" --data-csv "$T/rep1.csv"
check "latency --rep 0: exit 0" rc_is 0
pycheck "latency --rep 0: p50, p99, p99.9 = latency_summary of repetition 0" "$R" "$T/rep1.csv" <<'EOF'
import sys, csv, h5py
rows = list(csv.DictReader(open(sys.argv[2])))
ph = h5py.File(sys.argv[1], "r")["runs/000001/phases"]
for g in ph.values():
    name = g.attrs["phase"]
    name = name.decode() if isinstance(name, bytes) else name
    s = g["latency_summary"][0, 0]
    got = {r["point"]: float(r["x_ns"]) for r in rows if r["series"] == name and r["point"] != "edge"}
    want = {"p50": s["p50_ns"], "p99": s["p99_ns"], "p99.9": s["p999_ns"]}
    assert all(abs(got[k] - want[k]) <= 0.5 for k in want), (name, got, want)
    e = [r for r in rows if r["series"] == name and r["point"] == "edge"]
    assert int(e[-1]["cum_count"]) == int(g["ops"][0]) == int(s["count"]), name
EOF

plot latency "$R" --run 1 --per node --phase read -o "$T/node.svg" --data-csv "$T/node.csv"
check "latency --per node: exit 0" rc_is 0
check "latency --per node: a line per node and all nodes" \
    sh -c "grep -qF 'node 0 (node1)' '$T/node.svg' && grep -qF 'node 1 (node2)' '$T/node.svg' && grep -qF 'all nodes' '$T/node.svg'"
pycheck "latency --per node: each node's CDF ends at 1.0 with its count = node_latency's" "$R" "$T/node.csv" <<'EOF'
import sys, csv, h5py
rows = list(csv.DictReader(open(sys.argv[2])))
g = h5py.File(sys.argv[1], "r")["runs/000001/phases/01_read"]
nl = g["node_latency"][()]
for k in range(nl.shape[1]):
    e = [r for r in rows if r["node"] == str(k) and r["point"] == "edge"]
    assert float(e[-1]["fraction"]) == 1.0 and int(e[-1]["cum_count"]) == int(nl[:, k].sum()), k
EOF

plot latency "$R" --run 1 --run 2 --phase write -o "$T/runs.svg"
check "latency --run 1 --run 2: exit 0" rc_is 0
check "latency, two runs: a line per run, with its label" \
    sh -c "grep -qF 'run 1 (first)' '$T/runs.svg' && grep -qF 'run 2 (second)' '$T/runs.svg'"
plot latency "$R" --kind fsync --run 1 -o "$T/fsync.png"
check "latency --kind fsync (-e): exit 0" rc_is 0
plot latency "$R" --kind fsync --run 2 -o "$T/fsync2.png"
check "latency --kind fsync of a run without -e: exit 2, says why" sh -c "[ $RC -eq 2 ] && grep -qF 'fsync is timed with -e' '$T/err'"
plot latency "$R" --phase nosuch
check "latency --phase nosuch: exit 2, lists the phases" sh -c "[ $RC -eq 2 ] && grep -qF 'run 2 has write, read' '$T/err'"
plot timeline "$R" --run 1 -o "$T/nodir/x.png"
check "timeline into a missing directory: exit 2" rc_is 2

# ---- a results file from before these datasets ----
cp "$R" "$T/old.h5"
"$PY" - "$T/old.h5" <<'EOF'
import sys, h5py
f = h5py.File(sys.argv[1], "r+")
for run in f["runs"].values():
    for g in run["phases"].values():
        for k in ("latency", "latency_bucket_lo", "latency_bucket_hi", "latency_summary", "node_latency",
                  "node_latency_summary", "timeseries", "cpu_user", "cpu_sys"):
            if k in g:
                del g[k]
EOF
for sub in "timeline" "latency" "latency --per node" "latency --run 1 --run 2"; do
    # shellcheck disable=SC2086
    plot $sub "$T/old.h5" -o "$T/old.png"
    check "older file, $sub: exit 2" rc_is 2
    check "older file, $sub: says the file has no latency/time series" err_has "before pfsbench recorded latencies and time series"
    check "older file, $sub: no traceback" no_traceback
    check "older file, $sub: no chart" [ ! -e "$T/old.png" ]
done
finish
