#!/usr/bin/python3
"""Writes docs/pfsbench.1 from `pfsbench --help`, so the man page and the
help never differ (tests/mpi/test_docs.sh regenerates it and compares).

usage: gen-man.py PFSBENCH [OUT]    (OUT defaults to stdout)
"""
import os
import re
import subprocess
import sys


# The EXAMPLES section: what each does, then its command lines (docs/usage.md
# and docs/recipes.md have them at length, with real output).
EXAMPLES = [
    ("Write then read 4 GiB per rank, a file per rank, 1 MiB transfers, fsync at close, 3 repetitions, "
     "the results appended to results.h5:",
     ["mpirun -np 16 --map-by node pfsbench -d /scratch/me -t 1m -b 4g -F -p write,read -e -i 3 -o results.h5"]),
    ("The same as an IOR command line; the data files are /scratch/me/f.00000000 ...; -C reads another "
     "node's data:",
     ["mpirun -np 16 --map-by node pfsbench ior -w -r -F -C -e -t 1m -b 4g -i 3 -o /scratch/me/f"]),
    ("IOR's write and read in two jobs, the write stopped after 300 s (IO500's ior-easy): the read reads "
     "what the write reached:",
     ["mpirun -np 16 pfsbench ior -w -k -F -e -t 2m -b 100g -D 300 -O stoneWallingWearOut=1 "
      "-O stoneWallingStatusFile=/scratch/me/sw -o /scratch/me/easy/f",
      "mpirun -np 16 pfsbench ior -r -F -t 2m -b 100g -O stoneWallingStatusFile=/scratch/me/sw "
      "-o /scratch/me/easy/f"]),
    ("mdtest's phases in three jobs over one tree in /scratch/me/md (-C keeps it, -r removes it):",
     ["mpirun -np 16 pfsbench mdtest -C -F -n 10000 -d /scratch/me/md",
      "mpirun -np 16 pfsbench mdtest -T -F -n 10000 -d /scratch/me/md",
      "mpirun -np 16 pfsbench mdtest -r -F -n 10000 -d /scratch/me/md"]),
    ("IO500's phases in IO500's order, scored as IO500 scores them (not an IO500 submission):",
     ["mpirun -np 16 --map-by node pfsbench -f jobs/io500.job -o io500.h5", "pfs-io500 io500.h5"]),
    ("A page to share: the header, tables, warnings and charts of every run in a results file:",
     ["pfs-report results.h5 -o results.html"]),
]


def roff(text):
    return text.replace("\\", "\\e").replace("-", "\\-")


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    help_text = subprocess.run([sys.argv[1], "--help"], check=True, capture_output=True, text=True, env=env).stdout
    lines = help_text.splitlines()
    version = subprocess.run([sys.argv[1], "--version"], check=True, capture_output=True, text=True,
                             env=env).stdout.split()[1]
    out = [
        '.TH PFSBENCH 1 "" "pfsbench %s" "User Commands"' % version,
        ".SH NAME",
        "pfsbench \\- MPI benchmark of parallel file system bandwidth and metadata rates",
        ".SH SYNOPSIS",
        ".B mpirun \\-np N pfsbench \\-d DIR",
        "[\\fIoptions\\fR]",
        ".br",
        ".B mpirun \\-np N pfsbench ior|mdtest|iozone",
        "[\\fIthat tool's options\\fR]",
        ".SH DESCRIPTION",
    ]
    # The usage's further lines (indented): the front ends, said once more in
    # the description.
    i = 1
    front = []
    while i < len(lines) and lines[i].startswith("       "):
        front.append(lines[i].strip())
        i += 1
    desc = []
    while i < len(lines) and lines[i].strip() != "options:":
        if lines[i].strip():
            desc.append(lines[i].strip())
        i += 1
    out.append(roff(" ".join(desc)))
    if front:
        out.append(".PP")
        out.append(roff(" ".join(front)))
    out.append(".SH OPTIONS")
    opt = re.compile(r"^  (-(\w), )?\s*--([\w-]+)( (\S+))?\s{2,}(.*)$")
    i += 1
    while i < len(lines) and lines[i].strip():
        m = opt.match(lines[i])
        if not m:
            sys.exit("gen-man: cannot read help line: %r" % lines[i])
        short, name, arg, text = m.group(2), m.group(3), m.group(5), m.group(6)
        head = ("\\fB\\-%s\\fR, " % short if short else "") + "\\fB\\-\\-%s\\fR" % roff(name)
        if arg:
            head += " \\fI%s\\fR" % arg
        out += [".TP", head, roff(text)]
        i += 1
    while i < len(lines) and not lines[i].strip():
        i += 1
    if i < len(lines) and lines[i].startswith("backends"):
        # A section per backend: its name and line, then its own options.
        out += [".SH BACKENDS", roff(lines[i].rstrip(":").strip()) + "."]
        backend = re.compile(r"^  (\w+)\s+(.*)$")
        i += 1
        while i < len(lines) and lines[i].strip():
            m, b = opt.match(lines[i]), backend.match(lines[i])
            if m:
                head = "\\fB\\-\\-%s\\fR" % roff(m.group(3)) + (" \\fI%s\\fR" % m.group(5) if m.group(5) else "")
                out += [".RS", ".TP", head, roff(m.group(6)), ".RE"]
            elif b:
                out += [".TP", "\\fB%s\\fR" % b.group(1), roff(b.group(2))]
            else:
                sys.exit("gen-man: cannot read help line: %r" % lines[i])
            i += 1
    rest = " ".join(l.strip() for l in lines[i:] if l.strip())
    out += [".SH EXIT STATUS", roff(rest.replace("exit status: ", ""))]
    out += [".SH EXAMPLES"]
    for what, cmds in EXAMPLES:
        out += [".PP", roff(what), ".nf", ".RS"] + [roff(c) for c in cmds] + [".RE", ".fi"]
    out += [".SH FILES", "Data files are named \\fBpfsbench.\\fIRUNID\\fB.\\fISTREAM\\fR or "
            "\\fBpfsbench.\\fIRUNID\\fB.shared\\fR in DIR; metadata phases work in "
            "\\fBpfsbench.\\fIRUNID\\fB.md/\\fR. Results go to an HDF5 file (docs/results-format.md).",
            ".SH SEE ALSO", "docs/usage.md, docs/results-format.md, docs/running-on-clusters.md, "
            "docs/reliability.md; \\fBpfsrun\\fR(1) (scripts/pfsrun)"]
    text = "\n".join(out) + "\n"
    if len(sys.argv) > 2:
        with open(sys.argv[2], "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
