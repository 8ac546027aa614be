"""docs/results-format.md stays true: every dataset, compound field and
phase attribute its tables name is in a real file, and every one a real
file has is in its tables (the fixture run: write, read, create, stat, 2
repetitions, 2 threads per rank, -e)."""
import os
import re

import h5py
import pytest

DOC = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "docs",
                   "results-format.md")
# Written only by phases the fixture does not run, or under options it does not give.
CONDITIONAL = {"find_matched", "find_criteria", "rate_min", "rate_max", "rate_mean", "rate_median", "rate_stddev",
               # the page cache's figures: a phase that reads, or writes without -e, and was measured
               "cache_bytes", "cache_resident", "cache_dirty_probed", "cache_dirty", "node_cache_bytes",
               "node_cache_resident", "node_cache_dirty_probed", "node_cache_dirty",
               # --ceilings' shares: a data phase of a run made with it (tests/mpi/test_ceilings.sh)
               "memory_ceiling_percent", "network_ceiling_percent", "binding_ceiling",
               # --rate's figures: a run paced by it (tests/mpi/test_rate.sh)
               "offered_rate", "offered_bandwidth", "scheduled_rate", "rate_short", "submit_lag_mean", "submit_lag_max",
               # a phase that draws reads and writes (rwmix; tests/mpi/test_rwmix.sh)
               "read_ops", "write_ops", "read_bytes", "write_bytes", "read_rate", "write_rate", "read_bandwidth",
               "write_bandwidth",
               # a phase that feeds emulated accelerators (train; tests/mpi/test_train.sh)
               "train_au", "train_au_min", "train_au_pass", "train_samples", "train_samples_per_s", "train_compute",
               "train_stall", "train_stall_max", "train_stall_1ms", "train_stall_10ms", "train_stall_100ms",
               "train_stall_more", "node_train_au", "train_accelerators", "train_accelerators_per_node",
               "train_trials",
               # --rate-sweep's curve and knee (tests/mpi/test_rate_sweep.sh)
               "load_p50", "load_p99", "load_p999", "knee_found", "knee_rate", "knee_below_rep", "knee_above_rep",
               "knee_base_p99", "knee_saturated_rep",
               # --latency-target's answer (tests/mpi/test_rate_sweep.sh)
               "latency_target", "target_rate", "target_rep"}


def _table_after(text, heading):
    """The first-column names of the first table after heading, `a`, `_b`
    expanded as a_b from the first name's prefix."""
    i = text.index(heading)
    lines = text[i:].splitlines()
    start = next(k for k, ln in enumerate(lines) if ln.startswith("|"))
    names = set()
    for ln in lines[start + 2:]:
        if not ln.startswith("|"):
            break
        cell = ln.split("|")[1]
        found = re.findall(r"`([A-Za-z0-9_/]+)`", cell)
        if found and "/" in found[0]:  # a group's members (timeseries/rep_NNN/...): the group
            found = found[:1]
        for n in found:
            if n.startswith("_") and found:
                n = found[0].rsplit("_", 1)[0] + n
            names.add(n)
    return names


def test_doc_tables_match_a_real_file(files):
    text = open(DOC).read()
    with h5py.File(files["new"], "r") as f:
        run = f["runs/000001"]
        pg = run["phases/00_write"]
        meta = run["phases/02_create"]
        phase_ds = {k for k in pg.keys() if isinstance(pg[k], h5py.Dataset)}
        want = {
            "phase datasets": (_table_after(text, "Datasets (R = `repetitions`")
                               | _table_after(text, "### Latency, CPU and time series"), phase_ds),
            "times fields": (_table_after(text, "`times` fields, one record"), set(pg["times"].dtype.names)),
            "placement fields": (_table_after(text, "### `/runs/NNNNNN/placement`"),
                                 set(run["placement"].dtype.names)),
            "summary fields": (_table_after(text, "### `/summary`"), set(f["summary"].dtype.names)),
            "phase attributes": (_table_after(text, "### `/runs/NNNNNN/phases/NN_<phase>`"),
                                 set(pg.attrs.keys()) | set(meta.attrs.keys())),
        }
    bad = []
    for what, (doc, real) in want.items():
        doc = {d.split("/")[0] for d in doc}  # timeseries/... is the group
        real = {r for r in real}
        missing = doc - real - CONDITIONAL
        extra = real - doc
        if what == "phase datasets":
            missing -= {"timeseries"}
        if missing or extra:
            bad.append("%s: documented but not in the file %s; in the file but not documented %s"
                       % (what, sorted(missing), sorted(extra)))
    assert not bad, "\n".join(bad)


def test_doc_listing_is_a_real_files(files):
    """The h5dump -n listing's datasets of 00_write are the file's."""
    text = open(DOC).read()
    listed = set(re.findall(r"dataset +/runs/000001/phases/00_write/([a-z_0-9]+)\n", text))
    with h5py.File(files["new"], "r") as f:
        pg = f["runs/000001/phases/00_write"]
        real = {k for k in pg.keys() if isinstance(pg[k], h5py.Dataset)}
    assert listed == real


def _results_doc():
    """scripts/results_doc.py, loaded as a module (it is a script, not in the package)."""
    import importlib.util
    path = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "scripts",
                        "results_doc.py")
    spec = importlib.util.spec_from_file_location("results_doc", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod, path


def test_doc_tables_are_the_schema():
    """Every table docs/results-format.md marks is what scripts/results_doc.py
    makes of the schema pfsbench --list-options=json gives: the doc cannot
    drift from src/core/schema.c (a change there is a --write away)."""
    from conftest import pfsbench_binary
    binary = pfsbench_binary()
    if binary is None:
        pytest.skip("no pfsbench binary")
    rd, _ = _results_doc()
    text = open(DOC).read()
    want = {"placement", "ceilings", "phase_attributes", "phase_datasets", "times", "latency_datasets",
            "latency_summary", "exemplar", "target", "summary", "report"}
    assert set(rd.marked(text)) == want
    new = rd.render_doc(text, rd.load_schema(binary, None))
    assert new == text, "docs/results-format.md's tables are not the schema's: run scripts/results_doc.py --write " \
                        "docs/results-format.md (--pfsbench build/pfsbench)"


def test_doc_table_check_fails_on_drift(tmp_path):
    """--check exits 1 on a doc whose table says something the schema does not."""
    from conftest import pfsbench_binary
    binary = pfsbench_binary()
    if binary is None:
        pytest.skip("no pfsbench binary")
    rd, _ = _results_doc()
    doc = tmp_path / "doc.md"
    doc.write_text(open(DOC).read().replace("| `open_end` | float64, s | open() returned |",
                                            "| `open_end` | float64, s | open() returned, roughly |"))
    assert rd.main(["--pfsbench", binary, "--check", str(doc)]) == 1
    assert rd.main(["--pfsbench", binary, "--write", str(doc)]) == 0
    assert rd.main(["--pfsbench", binary, "--check", str(doc)]) == 0


def test_results_doc_is_typed():
    """The generator passes mypy --strict (Debian's mypy; skipped without it)."""
    import subprocess
    import sys
    _, path = _results_doc()
    probe = subprocess.run([sys.executable, "-m", "mypy", "--version"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if probe.returncode != 0:
        pytest.skip("no mypy")
    r = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-incremental", path], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, universal_newlines=True)
    assert r.returncode == 0, r.stdout
