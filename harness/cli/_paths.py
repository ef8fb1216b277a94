"""Output paths checked before any work starts, so a typo costs nothing. Every file the
CLI writes is then written through :mod:`harness.outputs` (beside the target, synced,
renamed over it; a link at the target replaced, not followed)."""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

from ._errors import UsageError


def writable_file(path: Path, option: str, suffix: str | None = None) -> Path:
    """``path`` if a file can be written there, else a :class:`UsageError` (exit 2) naming
    the option and the reason: a wrong suffix, a directory, a named pipe or a device at the
    path, a missing directory, or no permission (probed by creating and removing a file
    beside it, which also catches read-only file systems and privileges that permission bits
    do not show)."""
    from harness.inputs import not_regular

    shown = f"{option} {str(path)!r}"
    if path.is_dir():
        raise UsageError(f"{shown} is a directory; give a file name")
    try:
        mode = os.lstat(path).st_mode
    except OSError:
        mode = None
    if mode is not None and not stat.S_ISLNK(mode) and (what := not_regular(mode)) is not None:
        raise UsageError(f"{shown} is {what}, not a file; give a file name")
    if suffix is not None and path.suffix.lower() != suffix:
        raise UsageError(f"{shown}: the file name must end in {suffix}")
    parent = path.parent
    if not parent.is_dir():
        what = "is not a directory" if parent.exists() else "does not exist"
        raise UsageError(f"{shown}: directory {str(parent)!r} {what}")
    if path.exists() and not os.access(path, os.W_OK):
        raise UsageError(f"{shown}: permission denied")
    try:
        with tempfile.NamedTemporaryFile(dir=parent, prefix=f".{path.name}.", suffix=".check"):
            pass
    except OSError as exc:
        raise UsageError(f"{shown}: cannot write in {str(parent)!r} ({exc.strerror or exc})") from None
    return path
