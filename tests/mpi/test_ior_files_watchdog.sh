#!/bin/bash
# The watchdog's clean-up in a --file-per-rep run (IOR's -m) removes only
# files of this run. Rank 0 removes the other ranks' files from what they
# reported after the last write phase; once the names move to the next
# repetition (drv_rep_files) that report is about files already removed,
# and a name of the new repetition holding that inode is not the run's.
# Here another process links DIR/f.00000001.1 (repetition 1's name) to
# stream 1's repetition-0 file during --rep-delay, and rank 1 is stopped;
# rank 0's watchdog ends the run in repetition 1 and must leave the link.
. "$(dirname "$0")/lib.sh"
D=$T/data
mkdir -p "$D"
timeout 120 mpirun -np 2 --oversubscribe --bind-to none "$PFSBENCH" -p write -F --file-per-rep -i 2 --rep-delay 4 \
    --timeout 3 -t 4k -b 64k --file-name "$D/f" --no-results >"$T/out" 2>"$T/err" &
job=$!
# Rank 1's pid: the pfsbench whose environment says rank 1.
rank1=""
for _ in $(seq 1 200); do
    for p in $(pgrep -x pfsbench); do
        tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=1" && grep -q "$D" "/proc/$p/cmdline" 2>/dev/null && rank1=$p
    done
    [ -n "$rank1" ] && [ -e "$D/f.00000001.0" ] && break
    sleep 0.1
done
sleep 1 # repetition 0 is written; every rank sleeps in --rep-delay
check "rank 1 found, repetition 0 written" [ -n "$rank1" ] && [ -e "$D/f.00000001.0" ]
ln "$D/f.00000001.0" "$D/f.00000001.1"
kill -STOP "$rank1"
wait "$job"
RC=$?
kill -CONT "$rank1" 2>/dev/null
kill -KILL "$rank1" 2>/dev/null
check "the watchdog ended the run (exit 3, or mpirun's)" [ "$RC" -ne 0 ]
check "the watchdog fired" grep -q "watchdog\|waits for" "$T/err"
check "the link another process made is still there" [ -e "$D/f.00000001.1" ]
finish
