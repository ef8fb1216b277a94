"""Fixtures shared by every test package."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture
def unwritable_dir(tmp_path: Path) -> Iterator[Path]:
    """A directory in which this process cannot create a file: a read-only directory, or
    ``/sys`` for root, whom permission bits do not stop."""
    if os.geteuid() == 0:
        yield Path("/sys")
        return
    directory = tmp_path / "read-only"
    directory.mkdir()
    directory.chmod(0o500)
    yield directory
    directory.chmod(0o700)
