"""A scratch directory for a benchmark's stores and files, removed when the benchmark ends.

Benchmarks write stores of many runs (gigabytes, for the large-state sweep and the bomb
workbooks); left in the temporary directory, repeated runs fill the disk."""

from __future__ import annotations

import atexit
import shutil
import tempfile
from pathlib import Path


def scratch() -> Path:
    """A new directory, removed when the process ends: after the harness's exit handlers
    (registered later, so run first) have written what they hold into it."""
    path = Path(tempfile.mkdtemp())
    atexit.register(shutil.rmtree, path, ignore_errors=True)
    return path
