"""The harness command line as a user runs it: ``python -m harness`` in a child process."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def harness_cli(*args: str, cwd: Path | None = None, timeout: float = 120,
                **kwargs) -> subprocess.CompletedProcess[str]:
    """The installed command, as a user runs it (``kwargs`` go to :func:`subprocess.run`, ``env`` say)."""
    return subprocess.run([sys.executable, "-m", "harness", *args], capture_output=True, text=True, timeout=timeout,
                          cwd=cwd, **kwargs)
