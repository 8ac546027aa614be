#!/bin/bash
# The CPU binding in the placement provenance (issue 17): each rank's CPU
# affinity (a cpulist and its count) and NUMA nodes, as the launcher left
# them. --bind-to core: one core per rank (its hardware threads), different
# for each rank; --bind-to none: the CPUs a plain process here has. The
# results file's placement fields read back with h5py, the -v table prints
# the same, and NUMA nodes match /sys/devices/system/node.
. "$(dirname "$0")/lib.sh"
D=$T/data
mkdir -p "$D"

# canon LIST: a cpulist as its members, one comma-separated list ("0-2,5" -> "0,1,2,5").
canon() {
    "$PY" -c '
import re, sys
m = set()
for a, b in re.findall(r"(\d+)(?:-(\d+))?", sys.argv[1]):
    m |= set(range(int(a), int(b or a) + 1))
print(",".join(map(str, sorted(m))))' "$1"
}
# The CPUs a plain process has here (mpirun --bind-to none hands them on).
PLAIN=$(canon "$(taskset -pc $$ | sed 's/.*: *//')")
NPLAIN=$(nproc)
# canon_rows: $T/rows or the table's rows with the affinity canonical.
canon_rows() { while read -r r n a rest; do echo "$r $n $(canon "$a")"; done; }
# CPUs per core: --bind-to core binds to all of them.
SMT=$("$PY" -c '
import re
s = open("/sys/devices/system/cpu/cpu0/topology/thread_siblings_list").read().strip()
print(sum(int(b) - int(a) + 1 if b else 1 for a, b in re.findall(r"(\d+)(?:-(\d+))?", s)))' 2>/dev/null || echo 1)

# run_bind BIND NP ARGS... : pfsbench under mpirun --bind-to BIND, output as run_mpi.
run_bind() {
    local bind=$1 np=$2
    shift 2
    RC=0
    timeout 60 mpirun -np "$np" --bind-to "$bind" "$PFSBENCH" "$@" >"$T/out" 2>"$T/err" || RC=$?
}
# table_rows: rank cpus affinity numa of each row of the -v placement table.
table_rows() {
    awk '/^placement \(rank node host .* cpus affinity numa\)/ { on = 1; next }
         on && NF == 0 { on = 0 }
         on { print $1, $6, $7, $8 }' "$T/out"
}
# pyaff FILE WANT... : checks the placement fields of the file's last run;
# prints "rank cpus affinity numa" per rank to $T/rows (the table's form).
PYAFF='
import sys, os, re, glob, h5py

def members(s):
    out = set()
    for a, b in re.findall(r"(\d+)(?:-(\d+))?", s):
        out |= set(range(int(a), int(b or a) + 1))
    return out

f = h5py.File(sys.argv[1], "r")
run = f["runs"][sorted(f["runs"])[-1]]
p = run["placement"][()]
names = p.dtype.names
assert names[-3:] == ("cpu_affinity", "cpus", "numa_nodes"), names
nodes = {}
for d in glob.glob("/sys/devices/system/node/node[0-9]*"):
    nodes[int(os.path.basename(d)[4:])] = members(open(d + "/cpulist").read())
rows = []
for row in p:
    aff, cpus, numa = row["cpu_affinity"].decode(), int(row["cpus"]), row["numa_nodes"].decode()
    m = members(aff)
    assert len(m) == cpus > 0, (aff, cpus)
    want = ",".join(str(n) for n in sorted(n for n, c in nodes.items() if c & m))
    got = ",".join(str(n) for n in sorted(members(numa)))
    assert got == want, ("numa", numa, want)
    rows.append((int(row["rank"]), cpus, aff, numa or "-"))
open(sys.argv[2], "w").write("".join("%d %d %s %s\n" % r for r in rows))
'
aff_file() { "$PY" -c "$PYAFF" "$1" "$T/rows" >"$T/py" 2>&1; }

# ---- --bind-to none: every rank has what a plain process has ---------------
run_bind none 2 -d "$D" -t 64k -b 256k -v -o "$T/none.h5"
check "none: pfsbench exits 0" [ "$RC" -eq 0 ]
check "none: the results file's placement reads back (cpus = the cpulist's count, NUMA from sysfs)" aff_file "$T/none.h5"
check "none: each rank has the plain process's CPUs ($NPLAIN: $PLAIN)" \
    [ "$(canon_rows <"$T/rows")" = "$(printf '0 %s %s\n1 %s %s' "$NPLAIN" "$PLAIN" "$NPLAIN" "$PLAIN")" ]
check "none: the -v table prints the same rank, cpus, affinity, numa" [ "$(table_rows)" = "$(cat "$T/rows")" ]
check "none: the -v placement table stays within 100 columns" \
    awk '/^placement \(rank/ { on = 1 } on && NF == 0 { on = 0 } on && length > 100 { bad = 1 } END { exit bad }' "$T/out"

# ---- --bind-to core: one core each, different cores -------------------------
if [ "$(nproc)" -lt 2 ]; then
    echo "# skipped --bind-to core: fewer than 2 CPUs here"
else
    run_bind core 2 -d "$D" -t 64k -b 256k -v -o "$T/core.h5"
    check "core: pfsbench exits 0" [ "$RC" -eq 0 ]
    check "core: the results file's placement reads back" aff_file "$T/core.h5"
    check "core: each rank has one core ($SMT CPU(s))" \
        [ "$(awk '{print $2}' "$T/rows" | sort -u)" = "$SMT" ]
    check "core: the two ranks' CPUs differ" [ "$(awk '{print $3}' "$T/rows" | sort -u | wc -l)" -eq 2 ]
    check "core: the -v table prints the same" [ "$(table_rows)" = "$(cat "$T/rows")" ]
fi

# ---- a mask set before mpirun (taskset) is what is recorded -------------------
LAST=$(echo "$PLAIN" | tr ',' '\n' | tail -1)
RC=0
timeout 60 taskset -c "$LAST" mpirun -np 1 "${ONE_RANK[@]}" --bind-to none "$PFSBENCH" -d "$D" -t 64k -b 256k -v \
    -o "$T/ts.h5" >"$T/out" 2>"$T/err" || RC=$?
check "taskset -c $LAST: pfsbench exits 0" [ "$RC" -eq 0 ]
check "taskset -c $LAST: the file reads back" aff_file "$T/ts.h5"
check "taskset -c $LAST: rank 0 has CPU $LAST alone" [ "$(canon_rows <"$T/rows")" = "0 1 $LAST" ]

# ---- threads inherit: --threads 2 records the rank's affinity, once per rank ---------
run_bind none 1 -d "$D" -t 64k -b 256k --threads 2 -v -o "$T/thr.h5"
check "--threads 2: pfsbench exits 0" [ "$RC" -eq 0 ]
check "--threads 2: one placement row, the rank's affinity" \
    [ "$(table_rows | canon_rows)" = "0 $NPLAIN $PLAIN" ]

# ---- an appended run keeps the old rows: a second run in the same file ----
run_bind none 1 -d "$D" -t 64k -b 256k -q -o "$T/none.h5"
check "append: a second run into the file exits 0" [ "$RC" -eq 0 ]
check "append: its placement has the fields too" aff_file "$T/none.h5"

finish
