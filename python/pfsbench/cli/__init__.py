"""The command-line tools, as modules: results (pfs-results), compare
(pfs-compare), plot (pfs-plot, needs matplotlib), sweep (pfs-sweep). Each
has main(argv=None) -> exit status; the console scripts and the
scripts/pfs-* launchers call it."""
