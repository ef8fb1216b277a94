"""One way to write a file: to a temporary file in the target's directory, synced to disk,
then renamed over the target in one step.

So the target is never seen half written (a full disk, a file size limit or a kill leaves it
as it was, and no partial file beside it once a later write runs); a symbolic link at the
target is replaced by the file, never followed (writing through it would overwrite whatever
it points at); a directory, a named pipe or a device at the target is refused before anything
is written (a pipe would block the writer until a reader came); and an existing file keeps
its permission bits (a workbook kept private stays private).
"""

from __future__ import annotations

import contextlib
import glob
import os
import re
import shutil
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import TextIO

from ..inputs import not_regular


class NotAFile(ValueError):
    """The target is a directory, a named pipe, a device or a socket: it is not replaced."""


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _mode_for(target: Path) -> int:
    """The permission bits the written file gets: those of the file it replaces, else the
    usual ones for a new file (0666 less the umask). Refuses a target that is no file."""
    try:
        st = os.lstat(target)
    except FileNotFoundError:
        return 0o666 & ~_umask()
    if stat.S_ISLNK(st.st_mode):  # replaced, not followed: the link's target is not consulted
        return 0o666 & ~_umask()
    what = not_regular(st.st_mode)
    if what is not None:
        raise NotAFile(f"{str(target)!r} is {what}, not a file: it is not replaced")
    return stat.S_IMODE(st.st_mode)


@contextlib.contextmanager
def replacing(path: str | os.PathLike[str]) -> Iterator[Path]:
    """A temporary path beside ``path`` to write; when the block ends without an error the
    file there is synced and renamed over ``path`` (see the module's docstring), else removed.
    Raises :class:`NotAFile` for a target that is no file, before the block runs."""
    target = Path(path)
    mode = _mode_for(target)
    directory = target.parent
    _remove_leftovers(directory, target.name)
    fd, name = tempfile.mkstemp(prefix=f".{target.name}.{os.getpid()}.", suffix=".tmp", dir=directory)
    os.close(fd)
    written = Path(name)
    try:
        yield written
        with open(written, "rb+") as file:
            os.fsync(file.fileno())
        os.chmod(written, mode)
        os.replace(written, target)
    except BaseException:
        written.unlink(missing_ok=True)
        raise
    _sync_directory(directory)


def write_text(path: str | os.PathLike[str], text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` as :func:`replacing` does; returns the path."""
    with text_file(path) as out:
        out.write(text)
    return Path(path)


@contextlib.contextmanager
def text_file(path: str | os.PathLike[str]) -> Iterator[TextIO]:
    """A UTF-8 text stream to write ``path`` a piece at a time, as :func:`replacing` does."""
    with replacing(path) as written, open(written, "w", encoding="utf-8") as out:
        yield out


def _sync_directory(directory: Path) -> None:
    """The rename itself on disk (where a directory can be opened to sync it)."""
    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _remove_leftovers(directory: Path, name: str) -> None:
    """The temporary files (and scratch directories) earlier writes of ``name`` left when
    they were killed: their process is gone (a live writer's are left alone)."""
    pattern = re.compile(rf"\.{re.escape(name)}\.(\d+)\..+")
    for leftover in directory.glob(f".{glob.escape(name)}.*"):
        found = pattern.fullmatch(leftover.name)
        if found is None or _alive(int(found.group(1))):
            continue
        if leftover.is_dir() and not leftover.is_symlink():
            shutil.rmtree(leftover, ignore_errors=True)
        else:
            leftover.unlink(missing_ok=True)


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's live process
        return True
    return True
