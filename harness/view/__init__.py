"""Seeing runs: a run read back from the store as a tree of what happened, with its scores,
and the newest runs; rendered as rich text (``harness list`` / ``show``), JSON and one
self-contained HTML report (``harness report``).
"""

from .model import RunView, TreeEntry
from .read import LIST_COLUMNS, MIN_PREFIX, RunIdError, list_runs, load_run, load_runs, resolve_run_id, resolve_run_ids
from .report import Report, write_report

__all__ = [
    "LIST_COLUMNS",
    "MIN_PREFIX",
    "Report",
    "RunIdError",
    "RunView",
    "TreeEntry",
    "list_runs",
    "load_run",
    "load_runs",
    "resolve_run_id",
    "resolve_run_ids",
    "write_report",
]
