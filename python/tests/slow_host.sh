#!/bin/sh
# slow_host.sh HOST PROGRAM [ARGS...]: PROGRAM, with each pwrite delayed by
# the delay shim ($PFS_DELAY_LIB, PFS_DELAY_SECS seconds) on the fake node
# named HOST only: a run on fake nodes whose one node's device is slow.
host=$1
shift
if [ "$(hostname)" = "$host" ]; then
    LD_PRELOAD=$PFS_DELAY_LIB PFS_DELAY_CALL=pwrite
    export LD_PRELOAD PFS_DELAY_CALL
fi
exec "$@"
