"""The thread writer: a background thread takes finished runs off the caller's path.

One daemon thread per :class:`~harness.Harness`, started on first use. It emits a run's
spans and then writes its rows (``writer="thread"``); the process writer (:mod:`.process`)
uses the same thread to emit spans the host must make before forwarding a record, and to
write the runs the writer process hands back. Anything that reads the store through the
harness (``sheets``, ``export_*``, ``log``, ``verify``) first waits for the queue to drain
(:meth:`BackgroundWriter.flush`), and so does interpreter exit. The memory the queue holds
is bounded in bytes: a host producing runs faster than they can be written waits, never
loses rows.
"""

from __future__ import annotations

import atexit
import logging
import os
import queue
import threading
import time
from collections.abc import Callable

from ..tracing.record import RunRecord
from .base import StoreWriter

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

    def flush(self, timeout: float | None = None) -> bool:
        """Block until every queued job has run (False when ``timeout`` seconds passed first)."""
        if self._thread is None or self._pid != os.getpid() or threading.current_thread() is self._thread:
            return True
        done = self._queue.all_tasks_done
        deadline = None if timeout is None else time.monotonic() + timeout
        with done:
            while self._queue.unfinished_tasks:
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    return False
                done.wait(left)
        return True

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


class ThreadWriter(StoreWriter):
    """Writes each run on a background thread of the host (``writer="thread"``): the caller
    pays for one queue entry; spans and rows are made on the thread."""

    def __init__(self, store, *, tracer_provider=None, max_pending_bytes: int) -> None:
        super().__init__(store, tracer_provider=tracer_provider, max_pending_bytes=max_pending_bytes)
        self.background = BackgroundWriter(max_pending_bytes)

    def submit(self, record: RunRecord) -> None:
        try:
            self.background.submit(lambda: self.write_now(record), record.held)
        except Exception:  # noqa: BLE001
            self.errors += 1
            logger.warning("harness: queueing run %s failed; writing it now", record.run_id, exc_info=True)
            self.write_now(record)

    def run_later(self, job: Callable[[], None], size: int = 0) -> None:
        """Run ``job`` on the background thread (now, if this is that thread)."""
        if self.background.is_worker():
            job()
        else:
            self.background.submit(job, size)

    def flush(self, timeout: float | None = None) -> bool:
        return self.background.flush(timeout)

    def close(self, timeout: float | None = None) -> None:
        self.flush(timeout)
