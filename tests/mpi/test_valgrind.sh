#!/bin/bash
# pfsbench under valgrind memcheck: 2 ranks, data and metadata phases, 2
# threads a rank, the progress line on, a results file. Fails on an invalid
# read/write/free, a use of uninitialised memory, or a definitely lost block
# whose stack passes through pfsbench's own code. Open MPI's own errors and leaks (there are
# dozens: PMIx, ORTE, hwloc, the op framework) are not pfsbench's and are
# filtered out by their stack frames; see FILTER below.
. "$(dirname "$0")/lib.sh"
SRC=${PFS_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
PY=/usr/bin/python3
OMPI_SUPP=/usr/share/openmpi/openmpi-valgrind.supp

if ! command -v valgrind >/dev/null; then
    echo "skip - valgrind is not installed"
    finish
    exit
fi
# A sanitizer build (cmake -DPFS_SANITIZE=ON) cannot run under valgrind:
# both replace malloc and shadow memory. That build has its own leak check.
if nm -D "$PFSBENCH" 2>/dev/null | grep -q '__asan_init' || ldd "$PFSBENCH" 2>/dev/null | grep -q 'libasan'; then
    echo "skip - $PFSBENCH is built with AddressSanitizer (PFS_SANITIZE=ON); memcheck needs a plain build"
    finish
    exit
fi
# The sanitizer test environment preloads a library for ASan; not wanted here.
unset LD_PRELOAD

# The filter. Reads memcheck logs, prints every record that is pfsbench's:
#  - an error record (Invalid read/write/free, mismatched free, overlapping
#    copy, fishy argument, anything about uninitialised values), or a
#    "definitely lost" leak record,
#  - with at least one frame of pfsbench's own code anywhere in the record
#    (the error's stack and the "Address ... alloc'd"/"freed" stacks under it):
#    a function named pfs_*, a file under src/core, src/mpi or src/results,
#    or any other function of the pfsbench binary itself,
#  - except the frame of main() in src/main.c. main() only calls MPI_Init,
#    pfs_main and MPI_Finalize, so every block Open MPI allocates in MPI_Init
#    and never frees (hundreds of bytes in strdup'd argv, op tables, PMIx
#    job data, the hwloc topology) has main() at the bottom of its stack. A
#    stack with main() alone is Open MPI's; a leak or a bad access in
#    pfsbench's own code has a pfs_* or src/... frame above main.
# Conversely an Open MPI error reached through pfsbench's calls (say in
# MPI_Allreduce called from agree()) counts: it may well be pfsbench passing
# a bad buffer. None occurs today; should Open MPI ever produce one that is
# its own fault, name it in tests/sanitizers/valgrind.supp (read below).
# Records without any pfsbench frame (the PMIx writev of uninitialised
# padding, run on PMIx's own thread) are Open MPI's and are ignored.
FILTER='
import re, sys
pfsbench = sys.argv[1]
ERR = re.compile(r"^(Invalid (read|write|free)|Mismatched free|Source and destination overlap|"
                 r"Argument .* has a fishy value|Conditional jump or move depends on uninitialised|"
                 r"Use of uninitialised value|Syscall param .* uninitialised|.* definitely lost in loss record)")
FRAME = re.compile(r"^\s+(at|by) 0x[0-9A-Fa-f]+: (\S+) \((.*)\)$")
def own(fn, where):
    if fn == "main" and re.search(r"(^|/)main\.c:\d+$", where):
        return False                            # main(): MPI_Init / MPI_Finalize leaks are Open MPI
    if fn.startswith("pfs_"):
        return True
    if re.search(r"(^|/)src/(core|mpi|results)/[^/]+\.[ch]:\d+$", where):
        return True
    return where == "in " + pfsbench            # a frame of the binary without line info
bad = 0
for log in sys.argv[2:]:
    recs, cur = [], None
    for line in open(log, errors="replace"):
        m = re.match(r"^==\d+== ?(.*)$", line.rstrip("\n"))
        if not m:
            continue
        t = m.group(1)
        if not t.strip():
            cur = None
        elif not t.startswith(" "):
            cur = [t]
            recs.append(cur)
        elif cur is not None:
            cur.append(t)
    for r in recs:
        if not ERR.match(r[0]):
            continue
        frames = [FRAME.match(x) for x in r[1:]]
        if any(f and own(f.group(2), f.group(3)) for f in frames):
            bad += 1
            print("%s: %s" % (log, r[0]))
            for x in r[1:]:
                print("    " + x)
sys.exit(1 if bad else 0)
'
flagged() { "$PY" -c "$FILTER" "$PFSBENCH" "$@"; }
flagged_quiet() { flagged "$@" >/dev/null; }

# The filter itself, on records cut from real logs: it must flag pfsbench's
# and pass Open MPI's. Without this a filter that flags nothing would pass.
cat >"$T/synthetic.log" <<EOF
==11== 688 bytes in 1 blocks are definitely lost in loss record 44 of 69
==11==    at 0x48417B4: malloc (in /usr/libexec/valgrind/vgpreload_memcheck-amd64-linux.so)
==11==    by 0x4A19D31: ompi_op_base_op_select (in /usr/lib/x86_64-linux-gnu/libmpi.so.40.30.4)
==11==    by 0x498C2CA: ompi_op_init (in /usr/lib/x86_64-linux-gnu/libmpi.so.40.30.4)
==11==    by 0x4A2BE2A: ompi_mpi_init (in /usr/lib/x86_64-linux-gnu/libmpi.so.40.30.4)
==11==    by 0x49BFB7C: PMPI_Init (in /usr/lib/x86_64-linux-gnu/libmpi.so.40.30.4)
==11==    by 0x10DA89: main (src/main.c:12)
==11== 
==11== Syscall param writev(vector[...]) points to uninitialised byte(s)
==11==    at 0x4F4AE9D: __writev (writev.c:26)
==11==    by 0x709890F: pmix_ptl_base_send_handler (in /usr/lib/x86_64-linux-gnu/pmix2/lib/libpmix.so.2.6.2)
==11==    by 0x4ED61F4: start_thread (pthread_create.c:442)
==11==  Address 0xacfa8b7 is 103 bytes inside a block of size 5,120 alloc'd
==11==    at 0x484682F: realloc (in /usr/libexec/valgrind/vgpreload_memcheck-amd64-linux.so)
==11==    by 0x7012B35: pmix_bfrop_buffer_extend (in /usr/lib/x86_64-linux-gnu/pmix2/lib/libpmix.so.2.6.2)
==11== 
EOF
check "filter: Open MPI's MPI_Init leak and PMIx writev are not pfsbench's" flagged_quiet "$T/synthetic.log"
cat >"$T/synthetic-own.log" <<EOF
==12== 100 bytes in 1 blocks are definitely lost in loss record 60 of 70
==12==    at 0x48417B4: malloc (in /usr/libexec/valgrind/vgpreload_memcheck-amd64-linux.so)
==12==    by 0x10F2C1: pfs_main (src/mpi/run.c:567)
==12==    by 0x10DA97: main (src/main.c:13)
==12== 
EOF
check "filter: a leak in pfs_main is pfsbench's" not flagged_quiet "$T/synthetic-own.log"
cat >"$T/synthetic-own2.log" <<EOF
==13== Invalid write of size 1
==13==    at 0x484E2A3: memcpy (in /usr/libexec/valgrind/vgpreload_memcheck-amd64-linux.so)
==13==    by 0x10E111: stream_main (src/mpi/run.c:392)
==13==    by 0x4ED61F4: start_thread (pthread_create.c:442)
==13==  Address 0x5a0 is 0 bytes after a block of size 16 alloc'd
==13==    at 0x48417B4: malloc (in /usr/libexec/valgrind/vgpreload_memcheck-amd64-linux.so)
==13== 
EOF
check "filter: an invalid write in a static function of run.c is pfsbench's" not flagged_quiet "$T/synthetic-own2.log"

D=$T/data
mkdir -p "$D"
supp=()
[ -f "$OMPI_SUPP" ] && supp+=(--suppressions="$OMPI_SUPP")
[ -f "$SRC/tests/sanitizers/valgrind.supp" ] && supp+=(--suppressions="$SRC/tests/sanitizers/valgrind.supp")
# --fullpath-after shows pfsbench's frames as src/..., the filter's anchor.
# One log per rank (%q{...} expands the rank Open MPI puts in the environment).
RC=0
timeout 240 mpirun -np 2 --oversubscribe --bind-to none \
    valgrind --tool=memcheck --leak-check=full --show-leak-kinds=definite --errors-for-leak-kinds=definite \
    --num-callers=50 --fullpath-after="$SRC/" "${supp[@]}" \
    --log-file="$T/vg.%q{OMPI_COMM_WORLD_RANK}.log" \
    "$PFSBENCH" -d "$D" -t 64k -b 1m -p write,rewrite,read,reread,create,stat,delete -n 20 --threads 2 --progress \
    -o "$T/r.h5" >"$T/out" 2>"$T/err" || RC=$?
check "the run under valgrind exits 0" [ "$RC" -eq 0 ]
check "the run under valgrind records its results" grep -q "results .*r.h5 .*(complete)" "$T/out"
check "the run under valgrind leaves the directory empty" [ -z "$(ls -A "$D")" ]
check "valgrind finished on both ranks" [ "$(cat "$T"/vg.*.log 2>/dev/null | grep -c 'ERROR SUMMARY')" -eq 2 ]
REPORT=$(flagged "$T"/vg.*.log) && vrc=0 || vrc=$?
[ -n "$REPORT" ] && printf '%s\n' "$REPORT"
check "no invalid access, uninitialised use or definite leak in pfsbench's code" [ "$vrc" -eq 0 ]
# Keep the logs for a look when something failed.
if [ "$FAILS" -ne 0 ]; then
    keep=$(mktemp -d "${TMPDIR:-/tmp}/pfs-valgrind-logs.XXXXXX")
    cp "$T"/vg.*.log "$keep/" 2>/dev/null || true
    echo "valgrind logs kept in $keep"
fi
finish
