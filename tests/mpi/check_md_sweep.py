"""check_md_sweep.py RESULTS COUNTS N PHASE...: mdtest's -f/-l/-s as
--ranks COUNTS made one run per rank count in results file RESULTS, in
order, each complete, labelled ID:n=K, with K ranks, and each PHASE with
K x N operations in every repetition (N files per process). Prints the
runs.
"""
import sys

import h5py


def text(v: object) -> str:
    return v.decode() if isinstance(v, bytes) else str(v)


def main() -> int:
    path, counts, per = sys.argv[1], [int(k) for k in sys.argv[2].split(",")], int(sys.argv[3])
    want_phases = sys.argv[4:]
    seen = []
    with h5py.File(path, "r") as f:
        runs = [f["runs"][name] for name in sorted(f["runs"])]
        assert len(runs) == len(counts), "%d runs, want %d" % (len(runs), len(counts))
        for run, k in zip(runs, counts):
            label = text(run.attrs["label"])
            assert text(run.attrs["status"]) == "complete", text(run.attrs["status"])
            assert label.endswith(":n=%d" % k), (label, k)
            assert int(run.attrs["ranks"]) == k, (int(run.attrs["ranks"]), k)
            ops = {text(pg.attrs["phase"]): [int(x) for x in pg["ops"][()]] for pg in run["phases"].values()}
            assert sorted(ops) == sorted(want_phases), (sorted(ops), want_phases)
            for phase, got in ops.items():
                assert got and all(x == k * per for x in got), (k, phase, got, k * per)
            seen.append("%s: %s" % (label, ops))
    print("; ".join(seen))
    return 0


if __name__ == "__main__":
    sys.exit(main())
