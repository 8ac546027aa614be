"""The command-line tools, one module each: results (pfs-results), compare
(pfs-compare), plot (pfs-plot, a package: one module per chart family; needs
matplotlib), sweep (pfs-sweep), io500 (pfs-io500), report (pfs-report, a package: one
HTML page). Each has main(argv=None)
-> exit status, which the installed pfs-* commands call; run them from a
checkout as `python3 -m pfsbench TOOL` or `python3 -m pfsbench.cli.TOOL`.
They read results files through pfsbench.open() only (table.Data for
compare and plot) and share common.py (errors, sizes), names.py (units,
phase names) and table.py (the comparison model)."""
