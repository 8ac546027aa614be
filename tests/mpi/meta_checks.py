"""The checks tests/mpi/test_meta.sh makes on run 000001 of a metadata run
stopped by the stonewall (-D) in its create phase:

    meta_checks.py stonewall RESULTS
    meta_checks.py mdtest_stonewall STDOUT RESULTS

exit 0 when the check holds, else raise an AssertionError naming what
differs. stonewall: every stream made the same count, cut short, and the
later phases did exactly those. mdtest_stonewall: the --format mdtest
report says so as mdtest does, from the results file's figures: a
"Continue stonewall hit min: max: avg:" line per repetition (the streams'
counts at the stonewall; the most is what every stream wore out to), and
the "File create (stonewall)" rows (the files by the stonewall / the
seconds to it, and those seconds).
"""
import os
import re
import sys

import h5py

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from runs import dispatch  # noqa: E402


def stonewall(path: str) -> None:
    f = h5py.File(path, "r")
    ph = f["runs/000001/phases"]
    names = sorted(ph)
    t = {n.split("_", 1)[1]: ph[n]["times"][0] for n in names}
    c = t["create"]["transfers"]
    assert len(set(c)) == 1 and 0 < c[0] < 1000000, c
    for n in ("stat", "read-files", "delete"):
        assert list(t[n]["transfers"]) == list(c), (n, t[n]["transfers"], c)
    sw = t["create"]["stonewall_transfers"]
    assert all(0 < x <= c[0] for x in sw), sw
    assert sum(t["create"]["stonewall_end"] > 0) >= 1
    rows = {r["phase"].decode(): r for r in f["summary"][()]}
    assert rows["create"]["stonewall_rate"] > 0 and rows["stat"]["stonewall_rate"] == 0, rows
    assert rows["create"]["ops"] == 3 * c[0], rows["create"]["ops"]


def mdtest_stonewall(stdout: str, path: str) -> None:
    with open(stdout, encoding="utf-8") as out:
        lines = out.read().split("\n")
    with h5py.File(path, "r") as f:
        pg = next(g for n, g in f["runs/000001/phases"].items() if n.endswith("_create"))
        times, rates = pg["times"][()], pg["stonewall_rate"][()]
    hit = [t for t in times if (t["stonewall_end"] > 0).any()]
    assert hit, "no repetition stopped at the stonewall"
    want = ["Continue stonewall hit min: %d max: %d avg: %.1f " % (t["stonewall_transfers"].min(),
            t["stonewall_transfers"].max(), t["stonewall_transfers"].mean()) for t in hit]
    got = [ln for ln in lines if ln.startswith("Continue stonewall")]
    assert got == want, (got, want)
    for t in hit:
        assert (t["transfers"] == t["stonewall_transfers"].max()).all(), ("the wear-out's count", t["transfers"])
    ops = sum(int(t["stonewall_transfers"].sum()) for t in hit)
    secs = sum(int(t["stonewall_transfers"].sum()) / r for t, r in zip(times, rates) if r > 0)
    rows = [ln for ln in lines if ln.startswith("   File create (stonewall)")]
    assert len(rows) == 2, rows
    for ln, want_v in zip(rows, (ops / secs, secs)):
        m = re.fullmatch(r"   File create \(stonewall\)   : +NA +NA +(\d+\.\d{3}) +NA", ln)
        assert m and abs(float(m.group(1)) - want_v) <= 0.0005 + 1e-9 * want_v, (ln, want_v)
    for ln in rows:  # after the file rows, before the tree's, as mdtest prints it
        i = lines.index(ln)
        assert lines[i - 1].startswith("   File removal ") and lines[i + 1].startswith("   Tree creation "), lines[i - 1:i + 2]


if __name__ == "__main__":
    sys.exit(dispatch({"stonewall": stonewall, "mdtest_stonewall": mdtest_stonewall}, sys.argv))
