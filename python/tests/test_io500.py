"""pfs-io500's arithmetic and its rules on plain figures (pfsbench.cli.io500);
the whole job is tests/mpi/test_io500.sh's."""
import math
import os
import re

from pfsbench.cli import io500

HERE = os.path.dirname(os.path.abspath(__file__))
JOB = os.path.join(HERE, "..", "..", "jobs", "io500.job")


def job_sections():
    """The sections of jobs/io500.job that run a phase (not [global], not the clean-ups), in order."""
    names = re.findall(r"^\[([^\]]+)\]", open(JOB).read(), re.M)
    return [n for n in names if n != "global" and not n.endswith("-clean")]


def test_job_runs_io500s_order():
    # IO500's standard phases in its src/phase-definitions.h order, find as one section per mdtest tree.
    want = ["ior-easy-write", "mdtest-easy-write", "ior-hard-write", "mdtest-hard-write", "find-mdtest-easy",
            "find-mdtest-hard", "ior-easy-read", "mdtest-easy-stat", "ior-hard-read", "mdtest-hard-stat",
            "mdtest-easy-delete", "mdtest-hard-read", "mdtest-hard-delete", "ior-rnd4K-easy-read"]
    assert list(io500.SECTIONS) == want
    assert job_sections() == want


def test_job_ends_removing_the_kept_data():
    text = open(JOB).read()
    kept = set(re.findall(r"^run-id = (\S+)", text, re.M))
    cleaned = re.findall(r"^\[[^\]]+-clean\]\nclean\nyes\nrun-id = (\S+)", text, re.M)
    written = re.findall(r"^\[(\w+-\w+-write)\]\n(?:.*\n)*?run-id = (\S+)", text, re.M)
    assert len(written) == 4 and sorted(cleaned) == sorted(r for _, r in written) and set(cleaned) <= kept
    # The clean sections come last: nothing runs after them.
    assert all(n.endswith("-clean") for n in re.findall(r"^\[([^\]]+)\]", text, re.M)[-4:])


def test_order_note():
    numbers = {s: i + 1 for i, s in enumerate(io500.SECTIONS)}
    assert io500.order_note(numbers) is None
    # Each workload's phases back to back (the old io500-style job): listed, with the order found.
    numbers["ior-easy-read"] = 1.5
    note = io500.order_note(numbers)
    assert note is not None and note.startswith("phase order: the sections ran as ior-easy-write, ior-easy-read, "
                                                "mdtest-easy-write")
    # A section missing (rnd4K is optional) says nothing by itself.
    del numbers["ior-easy-read"]
    assert io500.order_note(numbers) is None


def test_find_is_every_file_over_the_sum_of_times():
    # 400 files in 0.5 s and 240 in 0.3 s (one rep each), and two reps of the second: means per section.
    v, s, reps = io500.find_figure([([800.0], [0.5], [400.0]), ([800.0], [0.3], [240.0])])
    assert math.isclose(v, 640 / 0.8 / 1000) and math.isclose(s, 0.8) and reps == 1
    v, s, reps = io500.find_figure([([800.0], [0.5], [400.0]), ([800.0, 600.0], [0.2, 0.4], [240.0, 240.0])])
    assert math.isclose(v, 640 / 0.8 / 1000) and reps == 1


def test_score_means():
    bw = [p.name for p in io500.PHASES if p.kind == "bw"]
    md = [p.name for p in io500.PHASES if p.kind == "md"]
    assert bw == ["ior-easy-write", "ior-hard-write", "ior-easy-read", "ior-hard-read"]
    assert len(md) == 8 and "find" in md
    assert [p.name for p in io500.PHASES if p.kind == "none"] == ["ior-rnd4K-easy-read"]
    assert math.isclose(io500.geomean([1.0, 4.0]), 2.0)
    assert math.isnan(io500.geomean([1.0, 0.0])) and math.isnan(io500.geomean([]))
