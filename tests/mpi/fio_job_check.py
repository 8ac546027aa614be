"""fio_job_check.py RESULTS DIR NRANKS: a plain fio job file run by pfsbench
(tests/mpi/test_jobfile.sh): [global] bs=1m size=16m numjobs=2 direct=1
ioengine=psync; [seq-write] rw=write unlink=0; [seq-read] rw=read.

Checks, in the results file: two runs labelled with the sections' names,
complete; transfer 1 MiB, block 16 MiB per stream, 2 threads, O_DIRECT,
the posix API; the write run's one phase and the read run's write (fio's
lay-out) then read, each moving NRANKS x 2 x 16 MiB in 16-transfer streams.
In DIR: the write run's data files kept (unlink=0), one per stream, 16 MiB
each, and nothing of the read run's.
"""
import os
import sys
from typing import Any, List

import h5py

MIB = 1 << 20


def text(v: Any) -> str:
    return v.decode() if isinstance(v, bytes) else str(v)


def main(argv: List[str]) -> None:
    path, data, nranks = argv[1], argv[2], int(argv[3])
    streams = nranks * 2
    with h5py.File(path, "r") as f:
        runs = [f["runs"][k] for k in sorted(f["runs"])]
        assert [text(r.attrs["label"]) for r in runs] == ["seq-write", "seq-read"], [r.attrs["label"] for r in runs]
        want_phases = [["00_write"], ["00_write", "01_read"]]
        for r, phases in zip(runs, want_phases):
            a = r.attrs
            assert text(a["status"]) == "complete", a["status"]
            assert int(a["transfer"]) == MIB and int(a["block"]) == 16 * MIB, (a["transfer"], a["block"])
            assert int(a["threads"]) == 2 and int(a["direct"]) == 1 and text(a["api"]) == "posix"
            assert list(r["phases"]) == phases, list(r["phases"])
            for p in phases:
                g = r["phases"][p]
                assert int(g["bytes"][()].sum()) == streams * 16 * MIB, (p, g["bytes"][()])
                assert int(g["ops"][()].sum()) == streams * 16, (p, g["ops"][()])
        kept_id = text(runs[0].attrs["run_id"])
        read_id = text(runs[1].attrs["run_id"])
    names = sorted(os.listdir(data))
    kept = [n for n in names if n.startswith("pfsbench.%s." % kept_id) and not n.endswith((".lock", ".kept"))]
    assert len(kept) == streams, names
    for n in kept:
        assert os.path.getsize(os.path.join(data, n)) == 16 * MIB, (n, os.path.getsize(os.path.join(data, n)))
    assert not [n for n in names if read_id in n], names
    print("fio job: %d runs, %d kept files of 16 MiB" % (len(runs), len(kept)))


if __name__ == "__main__":
    main(sys.argv)
