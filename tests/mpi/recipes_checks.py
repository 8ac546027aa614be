"""What tests/mpi/test_recipes.sh does in Python with docs/recipes.md and
the tables its recipes print:

    recipes_checks.py CHECK ARGS...

  extract DOC DIR            writes each marked recipe block of DOC to
                             DIR/NAME.KIND.sh and prints "NAME KIND NEEDS" per
                             block; fails unless every marker found its block
  shape UNIT COLS ROWS OUT   the text table in OUT has UNIT in its title, the
                             columns COLS (|-separated) after its corner cell,
                             the rows ROWS (|-separated) in order, and a number
                             in every cell
  png FILE                   FILE starts with the PNG signature

A check exits 0 when it holds, else raises an AssertionError naming what
differs.
"""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from runs import dispatch  # noqa: E402


def extract(doc: str, out_dir: str) -> None:
    with open(doc) as f:
        text = f.read()
    pat = re.compile(r"<!-- recipe ([a-z0-9-]+): (run|job|table [a-z0-9-]+)(?:, needs (\S+))? -->\n```sh\n(.*?)```",
                     re.S)
    n = 0
    for m in pat.finditer(text):
        name, kind, needs, body = m.group(1), m.group(2), m.group(3) or "-", m.group(4)
        key = kind.replace(" ", ".")
        with open("%s/%s.%s.sh" % (out_dir, name, key), "w") as b:
            b.write(body)
        print(name, key, needs)
        n += 1
    # Every marker must have found its block.
    assert n == text.count("<!-- recipe "), (n, text.count("<!-- recipe "))


def shape(unit: str, cols_s: str, rows_s: str, out: str) -> None:
    cols, rows = cols_s.split("|"), rows_s.split("|")
    with open(out) as f:
        lines = f.read().splitlines()
    assert unit in lines[0], ("unit not in the title", unit, lines[0])
    head = re.split(r"\s{2,}", lines[1].strip())
    assert head[1:] == cols, ("columns", head, cols)
    if not any("[" in c for c in cols):
        assert head[0].startswith("[%s] phase \\ " % unit), ("corner", head[0])
    body = [re.split(r"\s{2,}", line.strip()) for line in lines[2:]]
    assert [b[0] for b in body] == rows, ("rows", [b[0] for b in body], rows)
    num = re.compile(r"^[0-9]+\.[0-9]+( \([0-9]+\.[0-9]+\.\.[0-9]+\.[0-9]+\))?$")
    for b in body:
        assert len(b) == len(cols) + 1, ("cells", b)
        for h, c in zip(cols, b[1:]):
            # bonnie++'s %CP beside each figure is a whole percentage
            assert (re.match(r"^[0-9]+$", c) if h == "%CP" else num.match(c)), ("not a number", c, b)


def png(path: str) -> None:
    with open(path, "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n"


if __name__ == "__main__":
    sys.exit(dispatch({"extract": extract, "shape": shape, "png": png}, sys.argv))
