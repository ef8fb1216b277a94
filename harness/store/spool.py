"""Runs a store could not take, kept until it can: never lost, never unbounded.

A store can stop accepting writes under a running application (not a database any more,
read-only, disk full, locked by another program, a server down). The run's rows, already
built and scrubbed, are then spooled: appended as one JSON line to a file next to the
store (or, where that cannot be written, in the user's cache directory; where nothing can
be written, as on a full disk, held in memory), and written to the store, oldest first,
once a later write succeeds. A harness opened later on the same store writes what an
earlier process left. Engine-independent: any engine's writer spools through this.

Both the file and the memory are bounded; a run beyond the bounds is dropped with a
warning (and counted by the caller), rather than taking the host's disk or memory.
Replays are safe to repeat: rows have unique keys.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

try:
    import fcntl
except ImportError:  # not POSIX: replays are not serialised between processes
    fcntl = None  # type: ignore[assignment]

from .errors import StoreUnavailable
from .values import json_text

logger = logging.getLogger("harness")

MAX_FILE_BYTES = 256 * 1024 * 1024
MAX_MEMORY_BYTES = 32 * 1024 * 1024
#: after a store failure, runs go straight to the spool for this long (doubling to the max)
FIRST_BACKOFF_SECONDS, MAX_BACKOFF_SECONDS = 1.0, 60.0


class Spool:
    """The runs one store could not take (see the module's docstring). ``paths``: the spool
    files to use, in order of preference; all are read back on replay."""

    def __init__(self, paths: list[Path], *, max_file_bytes: int = MAX_FILE_BYTES,
                 max_memory_bytes: int = MAX_MEMORY_BYTES) -> None:
        self.paths = paths
        self.max_file_bytes, self.max_memory_bytes = max_file_bytes, max_memory_bytes
        self._memory: deque[str] = deque()
        self._memory_bytes = 0
        self._lock = threading.RLock()
        self._pending = any(p.exists() for p in paths)  # an earlier process may have left runs
        self._retry_at = 0.0
        self._backoff = FIRST_BACKOFF_SECONDS
        self.warned = False

    # --- when to try the store --------------------------------------------------------
    def store_may_work(self) -> bool:
        """False while backing off after a failure: the run goes to the spool at once."""
        return time.monotonic() >= self._retry_at

    def store_failed(self, error: BaseException) -> None:
        with self._lock:
            self._retry_at = time.monotonic() + self._backoff
            self._backoff = min(self._backoff * 2, MAX_BACKOFF_SECONDS)
            if not self.warned:
                self.warned = True
                logger.warning("harness: the store cannot be written (%s); runs are kept in a spool (%s) and "
                               "written when it can", error, self.paths[0] if self.paths else "memory")

    @property
    def pending(self) -> bool:
        return self._pending

    # --- keeping ----------------------------------------------------------------------
    def add(self, entry: Mapping[str, Any]) -> bool:
        """Keep one run; False when no room is left for it (it is dropped)."""
        line = json_text(entry) + "\n"
        with self._lock:
            for path in self.paths:
                with contextlib.suppress(OSError):
                    if self._append(path, line):
                        self._pending = True
                        return True
            if self._memory_bytes + len(line) <= self.max_memory_bytes:
                self._memory.append(line)
                self._memory_bytes += len(line)
                self._pending = True
                return True
        logger.warning("harness: the spool is full; run %s is dropped", entry.get("run_id"))
        return False

    def _append(self, path: Path, line: str) -> bool:
        path.parent.mkdir(parents=True, exist_ok=True)
        with _locked(path) as file:
            file.seek(0, os.SEEK_END)
            if file.tell() + len(line) > self.max_file_bytes:
                return False
            file.write(line.encode())
            file.flush()
            os.fsync(file.fileno())
        return True

    # --- giving back --------------------------------------------------------------------
    def replay(self, write: Callable[[dict[str, Any]], None]) -> int:
        """Write the spooled runs, oldest first, with ``write``; stops at the first
        :class:`StoreUnavailable` (the rest stay). A run that fails otherwise (it can never
        be written) is dropped with a warning. Returns the runs written."""
        written = 0
        with self._lock:
            while self._memory:
                outcome = _write_line(write, self._memory[0])
                if outcome is None:
                    return written
                line = self._memory.popleft()
                self._memory_bytes -= len(line)
                written += outcome
            for path in self.paths:
                if not path.exists():
                    continue
                try:
                    done, complete = self._replay_file(path, write)
                except OSError as exc:
                    logger.warning("harness: cannot read the spool %s: %s", path, exc)
                    return written
                written += done
                if not complete:
                    return written
            self._pending = False
        if written:
            logger.info("harness: %d spooled run(s) written to the store", written)
        return written

    def _replay_file(self, path: Path, write: Callable[[dict[str, Any]], None]) -> tuple[int, bool]:
        with _locked(path) as file:
            file.seek(0)
            lines = file.read().decode("utf-8", "replace").splitlines(keepends=True)
            written, left = 0, 0
            for i, line in enumerate(lines):
                outcome = _write_line(write, line)
                if outcome is None:
                    left = len(lines) - i
                    break
                written += outcome
            file.seek(0)
            file.truncate()
            file.write("".join(lines[len(lines) - left:]).encode())
            file.flush()
            os.fsync(file.fileno())
        if not left:
            with contextlib.suppress(OSError):
                path.unlink()
        return written, not left


def _write_line(write: Callable[[dict[str, Any]], None], line: str) -> int | None:
    """1 written, 0 dropped (it can never be written), None the store is unavailable."""
    try:
        entry = json.loads(line)
    except ValueError:
        logger.warning("harness: a damaged spool line is dropped")
        return 0
    try:
        write(entry)
    except StoreUnavailable:
        return None
    except Exception:  # noqa: BLE001 - one bad run must not hold back the rest
        logger.warning("harness: spooled run %s cannot be written and is dropped", entry.get("run_id"),
                       exc_info=True)
        return 0
    return 1


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[Any]:
    """The spool file, open for reading and appending, under an exclusive lock (processes
    sharing a store share its spool)."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    with os.fdopen(fd, "r+b") as file:
        if fcntl is not None:
            fcntl.flock(file.fileno(), fcntl.LOCK_EX)
        yield file
