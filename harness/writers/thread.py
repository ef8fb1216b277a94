"""The background writer: a thread that takes finished runs off the caller's path.

One daemon thread per :class:`~harness.Harness`, started on first use. It emits a run's
spans and then writes its rows (``writer="thread"``) or forwards its record to the writer
process (:mod:`.process`); it also writes the runs the writer process hands back.
Anything that reads the store through the harness (``sheets``, ``export_*``, ``log``,
``verify``) first waits for the queue to drain (:meth:`flush`), and so does interpreter exit.
The memory the queue holds is bounded in bytes: a host producing runs faster than they can
be written waits, never loses rows.
"""

from __future__ import annotations

import atexit
import logging
import os
import queue
import threading
from collections.abc import Callable

logger = logging.getLogger("harness")

class BackgroundWriter:
    """A daemon thread running the jobs it is handed, in order. ``max_bytes`` bounds the
    memory the queued jobs hold (each job says about how much): a host producing runs faster
    than they can be written waits until there is room, never loses rows, and a single job
    larger than the bound still goes when the queue is empty."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.pending_bytes = 0
        self._queue: queue.Queue[tuple[Callable[[], None], int]] = queue.Queue()
        self._room = threading.Condition()
        self._thread: threading.Thread | None = None
        self._start_lock = threading.Lock()
        self._pid = os.getpid()

    def submit(self, job: Callable[[], None], size: int = 0) -> None:
        if self._pid != os.getpid():  # a forked copy of the host: the thread did not come along
            self._queue, self._thread, self._pid = queue.Queue(), None, os.getpid()
            self._start_lock, self._room, self.pending_bytes = threading.Lock(), threading.Condition(), 0
        if self._thread is None:
            with self._start_lock:
                if self._thread is None:
                    self._thread = threading.Thread(target=self._loop, name="harness-writer", daemon=True)
                    self._thread.start()
                    # Registered now, after the application set up its tracing, so that
                    # (exit handlers running last-in first-out) queued runs are written and
                    # their spans emitted before the application's span processors shut down.
                    atexit.register(self.flush)
        with self._room:
            if not self.is_worker():  # (the writer's own follow-up jobs never wait for it)
                while self.pending_bytes and self.pending_bytes + size > self.max_bytes:
                    self._room.wait()
            self.pending_bytes += size
        self._queue.put((job, size))

    def is_worker(self) -> bool:
        """Whether the calling thread is this writer's thread."""
        return self._thread is not None and threading.current_thread() is self._thread

    def flush(self) -> None:
        """Block until every queued run has been written."""
        if self._thread is not None and self._pid == os.getpid() and threading.current_thread() is not self._thread:
            self._queue.join()

    def _loop(self) -> None:
        while True:
            job, size = self._queue.get()
            try:
                job()
            except Exception:  # noqa: BLE001 - a job already counts its own failures
                logger.warning("harness background write failed", exc_info=True)
            finally:
                with self._room:
                    self.pending_bytes -= size
                    self._room.notify_all()
                self._queue.task_done()
