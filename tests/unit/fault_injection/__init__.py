"""Fault injection: model endpoint, database, index, record store, disk, kill -9.

For every fault: the user gets a clear message (no traceback from the CLI, no exception out of ``ask``), no
acknowledged record is lost, and the next request works once the fault is gone. ``pytest -s`` prints the
summary table (also written to ``<pytest tmp>/faults-summary.md``); docs/benchmarks.md "Robustness" holds it.
"""
