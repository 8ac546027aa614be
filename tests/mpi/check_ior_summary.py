"""check_ior_summary.py JSON RESULTS LABEL: pfsbench ior's -O
summaryFormat=JSON -O summaryFile=JSON wrote the run's JSON report to the
file JSON: one document, for the last run of results file RESULTS (the
same run id), labelled LABEL (IOR's -A as --label refnum=N) in both, with
every phase of the results file. Prints the run id and its phases.
"""
import json
import sys

import h5py


def text(v: object) -> str:
    return v.decode() if isinstance(v, bytes) else str(v)


def main() -> int:
    path, results, label = sys.argv[1], sys.argv[2], sys.argv[3]
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    with h5py.File(results, "r") as f:
        run = f["runs"][sorted(f["runs"])[-1]]
        run_id, h5_label = text(run.attrs["run_id"]), text(run.attrs["label"])
        phases = sorted(text(pg.attrs["phase"]) for pg in run["phases"].values())
    assert doc["status"] == "complete", doc["status"]
    assert doc["run_id"] == run_id, (doc["run_id"], run_id)
    assert doc["label"] == label == h5_label, (doc["label"], label, h5_label)
    got = sorted(p["phase"] for p in doc["phases"])
    assert got == phases, (got, phases)
    print("%s: %s, label %s" % (run_id, ",".join(got), label))
    return 0


if __name__ == "__main__":
    sys.exit(main())
