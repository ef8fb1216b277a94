"""Seeing runs: a run read back from the store as a tree of what happened, with its scores,
and the newest runs; rendered as rich text (``harness list`` / ``show``), JSON and one
self-contained HTML report (``harness report``).
"""

from .model import RunView, TreeEntry
from .read import LIST_COLUMNS, list_runs, load_run, load_runs
from .report import Report, write_report

__all__ = [
    "LIST_COLUMNS",
    "Report",
    "RunView",
    "TreeEntry",
    "list_runs",
    "load_run",
    "load_runs",
    "write_report",
]
