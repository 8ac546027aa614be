"""The checks tests/mpi/test_hdf5_backend.sh makes with h5py on the files
--api hdf5 writes and on the results file:

    hdf5_backend_checks.py CHECK FILE

exits 0 when the check holds, else raises an AssertionError naming what
differs. (The data pattern itself: tests/lib/h5pattern.py.)

  corrupt FILE     (not a check) flips byte 300001 of the dataset "data"
  chunk FILE       --hdf5-chunk 1m: the dataset is chunked in 1 MiB
  align FILE       --hdf5-align 1m: the data start at a multiple of 1 MiB
  chunk_align FILE chunk 512k aligned to 1m: 16 chunks, each at a multiple of 1 MiB
  results FILE     the one run says api hdf5, hdf5_chunk 65536
"""
import os
import sys

import h5py

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from runs import dispatch, one_run_attrs  # noqa: E402


def corrupt(path: str) -> None:
    with h5py.File(path, "r+") as f:
        f["data"][300001] ^= 0xFF


def chunk(path: str) -> None:
    with h5py.File(path, "r") as f:
        assert f["data"].chunks == (1048576,), f["data"].chunks


def align(path: str) -> None:
    with h5py.File(path, "r") as f:
        off = f["data"].id.get_offset()
        assert off and off % 1048576 == 0, off


def chunk_align(path: str) -> None:
    with h5py.File(path, "r") as f:
        ds = f["data"]
        n = ds.id.get_num_chunks()
        offs = [ds.id.get_chunk_info(i).byte_offset for i in range(n)]
        assert n == 16 and all(o % 1048576 == 0 for o in offs), (n, offs)


def results(path: str) -> None:
    a = one_run_attrs(path)
    assert a["api"] == "hdf5", a["api"]
    assert int(a["hdf5_chunk"]) == 65536, a["hdf5_chunk"]


if __name__ == "__main__":
    sys.exit(dispatch({"corrupt": corrupt, "chunk": chunk, "align": align, "chunk_align": chunk_align,
                       "results": results}, sys.argv))
