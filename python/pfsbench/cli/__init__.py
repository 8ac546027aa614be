"""The command-line tools, as modules: results (pfs-results), compare
(pfs-compare), plot (pfs-plot, needs matplotlib), sweep (pfs-sweep). Each
has main(argv=None) -> exit status; the pfs-* commands (pip's console
scripts, and those CMake writes from python/pfs-tool.in) call it;
`python3 -m pfsbench TOOL` runs it from a checkout."""
