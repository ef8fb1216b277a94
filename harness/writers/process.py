"""The writer process: finished runs are turned into rows and stored by a second Python
process, so building and writing rows takes neither CPU time nor the GIL from the host.

One writer process per host process, shared by every :class:`~harness.Harness` whose store
another process can open, started on first use. The host sends each finished :class:`RunRecord` down a
pipe (a pickle of plain data: payload objects of the host's own types travel as their JSON
form, which is all the rows keep of them) and keeps it until the writer process
acknowledges it. Nothing is lost when the writer process cannot help: a record that does
not pickle, that it cannot read, or that is outstanding when it dies is written in the host
instead (rows have idempotent keys, so a half-written run is completed, never doubled); a
writer process that stops answering is killed and replaced by writing in the host.

:class:`ProcessWriter` is the writer a harness talks to (``writer="process"``); the rest of
this module is the host's side of the pipe, and :mod:`.worker` is the writer process's. Frames, both ways,
are ``kind (1 byte), sequence number, length`` then ``length`` bytes:
``R`` a record, ``S`` a sync marker; answers ``H`` the greeting (always first: a program
that answers anything else is not a writer process), ``A`` written (length = harness errors
met), ``L`` write it in the host, ``S`` every frame before the marker is done.
"""

from __future__ import annotations

import atexit
import contextlib
import dataclasses
import logging
import operator
import os
import select
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Callable

try:
    import fcntl
except ImportError:  # not POSIX: the pipe keeps its default size
    fcntl = None  # type: ignore[assignment]

from ..tracing.events import Event
from ..tracing.frozen import dumps, register
from ..tracing.record import RunRecord
from ..secrets.redact import host_secrets
from ..tracing.telemetry import otlp_endpoint, span_destination
from .thread import ThreadWriter

logger = logging.getLogger("harness")

FRAME = struct.Struct("!cQI")
STALL_SECONDS = 120.0  # a writer process silent this long with work outstanding is replaced
_BOOT = "import sys; sys.path.extend(sys.argv[1:]); from harness.writers.worker import main; main()"
#: The writer process's first frame: anything else on its stdout is not a writer process.
HELLO = FRAME.pack(b"H", int.from_bytes(b"harness", "big"), 1)
START_SECONDS = 30.0  # a writer process not greeting within this long is replaced
MAX_FRAME_BYTES = (1 << 32) - 1  # a record pickled larger than this is written in the host
PIPE_BYTES = 1 << 20  # asked of the kernel for the pipe to the writer process

_event_fields = operator.attrgetter(*(f.name for f in dataclasses.fields(Event)))
_record_fields = operator.attrgetter(*(f.name for f in dataclasses.fields(RunRecord)))
register(Event, lambda obj: (Event, _event_fields(obj)))
register(RunRecord, lambda obj: (RunRecord, _record_fields(obj)))


def _command() -> list[str]:
    return [sys.executable, "-I", "-c", _BOOT, *(p for p in sys.path if p)]


class WriterProcess:
    """The host's side of the writer process.

    Nothing here waits on the writer process in the ordinary course, and no host thread is
    woken by it: the pipe ends are non-blocking, a frame the pipe cannot take yet stays in an
    outbox (pushed through by the background thread, :meth:`drain`), and answers are read
    whenever the host sends or syncs. So a run's caller pays for pickling its record and one
    ``write``, never for a thread switch.
    """

    def __init__(self) -> None:
        self.owner_pid = os.getpid()
        # Isolated mode (no current directory or PYTHONPATH in front of the standard library:
        # an application's own types.py or queue.py cannot shadow it there), then the host's
        # import path appended, so the same harness and libraries are found.
        self._proc = subprocess.Popen(
            _command(),
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, close_fds=True,
        )
        assert self._proc.stdin is not None and self._proc.stdout is not None
        self._to, self._from = self._proc.stdin.fileno(), self._proc.stdout.fileno()
        os.set_blocking(self._to, False)
        os.set_blocking(self._from, False)
        with contextlib.suppress(OSError, AttributeError):  # AttributeError: not Linux
            fcntl.fcntl(self._to, fcntl.F_SETPIPE_SZ, PIPE_BYTES)  # type: ignore[union-attr]
        self._lock = threading.RLock()
        self._outbox = bytearray()
        self._inbox = bytearray()
        self._pending: dict[int, tuple[RunRecord, ProcessWriter]] = {}
        self._sizes: dict[int, int] = {}  # bytes of each pending record as sent
        self.pending_bytes = 0  # records sent but not yet acknowledged, as pickled
        self._returned: list[tuple[RunRecord, ProcessWriter]] = []  # to be written in the host
        self._seq = 0
        self._synced = 0
        self._last_answer = self._started = time.monotonic()
        self._greeted = False
        self._draining = False
        self.alive = True

    # --- host side --------------------------------------------------------------------
    def submit(self, owner: ProcessWriter, record: RunRecord) -> bool:
        """Send the record; False when the writer process cannot take it (write it here)."""
        if not self.alive:
            return False
        try:
            payload = dumps((owner.store.location, record))
        except Exception:  # noqa: BLE001 - an unpicklable payload: written in the host
            logger.debug("run %s is written in the host: its record does not pickle", record.run_id, exc_info=True)
            return False
        if len(payload) > MAX_FRAME_BYTES:
            return False
        with self._lock:
            if not self.alive:
                return False
            self._seq += 1
            self._pending[self._seq] = (record, owner)
            self._sizes[self._seq] = len(payload)
            self.pending_bytes += len(payload)
            self._outbox += FRAME.pack(b"R", self._seq, len(payload))
            self._outbox += payload
            self._pump()
            limit = owner.max_pending_bytes
            if self.pending_bytes > limit:  # the writer process is behind: the host waits for it
                self._wait(lambda: self.pending_bytes <= limit or len(self._pending) <= 1)
            drain = bool(self._outbox) and not self._draining
            self._draining = self._draining or drain
        if drain:  # the pipe is full: a background thread pushes the rest through
            owner.run_later(self.drain)
        self._hand_back()
        return True

    def drain(self) -> None:
        """Push the outbox through the pipe, waiting for room (a background thread's job), so
        a run reaches the store without waiting for the next run or a flush."""
        progress = time.monotonic()
        try:
            while True:
                with self._lock:
                    before = len(self._outbox)
                    self._pump()
                    if not self.alive or not self._outbox:
                        self._draining = False
                        break
                    if len(self._outbox) < before:
                        progress = time.monotonic()
                    elif time.monotonic() - progress > STALL_SECONDS:
                        self._refuse("it stopped reading")
                        self._draining = False
                        break
                with contextlib.suppress(OSError, ValueError):
                    select.select([], [self._to], [], 0.5)
        except BaseException:
            self._draining = False
            raise
        self._hand_back()

    def sync(self, timeout: float | None = None) -> bool:
        """Return when every record sent so far is written (records handed back to the host
        are queued on their writer's background thread); False when ``timeout`` seconds
        passed first (a writer process silent for ``STALL_SECONDS`` is given up on).

        The lock is held only to send the marker and to read answers, never while waiting
        for them: runs go on being sent meanwhile (an experiment that scores its runs as they
        are stored waits here for each batch, and its graphs must not wait with it)."""
        with self._lock:
            seq = self._mark()
        # (other threads may read the answer waited for: the wait between two looks is short)
        done = seq is None or self._wait(lambda: self._synced >= seq, timeout=timeout, poll=0.01)
        self._hand_back()
        return done

    def close(self, timeout: float = 30.0) -> None:
        """Let the writer process finish what it has and exit (at interpreter exit)."""
        if self.owner_pid != os.getpid():
            return
        with self._lock:
            self._sync_locked(timeout, timeout)
            self.alive = False
            returned, self._returned = self._returned + list(self._pending.values()), []
            self._forget_pending()
        for record, owner in returned:  # at exit: written here and now
            owner.write_here(record)
        with contextlib.suppress(OSError):
            self._proc.stdin.close()  # type: ignore[union-attr]
        try:
            self._proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self._proc.kill()

    # --- under the lock ---------------------------------------------------------------
    def _sync_locked(self, give_up_after: float, timeout: float | None = None) -> bool:
        """Send a sync marker and wait for its answer (nothing to do once the process ended);
        False when ``timeout`` seconds passed first."""
        seq = self._mark()
        return seq is None or self._wait(lambda: self._synced >= seq, give_up_after=give_up_after, timeout=timeout)

    def _mark(self) -> int | None:
        """Queue a sync marker; its number, or None once the process has ended."""
        if not self.alive:
            return None
        self._seq += 1
        self._outbox += FRAME.pack(b"S", self._seq, 0)
        return self._seq

    def _pump(self) -> None:
        """Write what the pipe takes; read and act on the answers that have arrived."""
        try:
            while self._outbox:
                written = os.write(self._to, self._outbox)
                del self._outbox[:written]
        except BlockingIOError:
            pass
        except OSError:
            self._ended()
            return
        try:
            while True:
                chunk = os.read(self._from, 1 << 16)
                if not chunk:
                    self._ended()
                    return
                self._inbox += chunk
                if len(chunk) < 1 << 16:  # all there was (answers are 16 bytes each)
                    break
        except BlockingIOError:
            pass
        except OSError:
            self._ended()
            return
        offset = 0
        while len(self._inbox) - offset >= FRAME.size:
            frame = bytes(self._inbox[offset:offset + FRAME.size])
            kind, seq, value = FRAME.unpack(frame)
            offset += FRAME.size
            self._last_answer = time.monotonic()
            if not self._greeted:
                if frame != HELLO:
                    return self._refuse("its first answer is not a harness writer process's greeting")
                self._greeted = True
            elif kind == b"S":
                self._synced = seq
            elif kind in (b"A", b"L"):
                record, owner = self._pending.pop(seq, (None, None))
                self.pending_bytes -= self._sizes.pop(seq, 0)
                if owner is None:
                    continue
                if kind == b"A":
                    owner.errors += value
                else:  # the writer process could not read the record
                    self._returned.append((record, owner))
            else:
                return self._refuse(f"it answered with an unknown frame {kind!r}")
        del self._inbox[:offset]

    def _forget_pending(self) -> None:
        self._pending.clear()
        self._sizes.clear()
        self.pending_bytes = 0

    def _refuse(self, why: str) -> None:
        logger.warning("harness writer process replaced by writing in the host: %s", why)
        self._inbox.clear()
        self._ended()

    def _wait(self, done: Callable[[], bool], give_up_after: float = STALL_SECONDS,
              timeout: float | None = None, poll: float = 0.5) -> bool:
        """Pump until ``done()``; False when ``timeout`` seconds passed first. The lock (it is
        re-entrant) is taken to pump and look, and let go between two looks (at most ``poll``
        seconds apart) unless the caller holds it."""
        started = time.monotonic()
        with self._lock:
            self._last_answer = started
        while True:
            with self._lock:
                if self.alive and not done():
                    self._pump()
                if not self.alive or done():
                    return True
                if timeout is not None and time.monotonic() - started >= timeout:
                    return False
                if not self._greeted and time.monotonic() - self._started > START_SECONDS:
                    self._refuse("it did not start")
                    continue
                if time.monotonic() - self._last_answer > give_up_after:
                    logger.warning("harness writer process stopped answering; writing its runs in the host")
                    self._proc.kill()
                    self._ended()
                    continue
                writing = [self._to] if self._outbox else []
            with contextlib.suppress(OSError, ValueError):
                select.select([self._from], writing, [], poll)

    def _ended(self) -> None:
        """The writer process is gone: everything it held is written in the host instead."""
        if not self.alive:
            return
        self.alive = False
        outstanding = list(self._pending.values())
        self._forget_pending()
        self._outbox.clear()
        if outstanding:
            logger.warning("harness writer process ended with %d run(s) unwritten; writing them in the host",
                           len(outstanding))
        self._returned.extend(outstanding)
        with contextlib.suppress(Exception):
            self._proc.kill()
            self._proc.wait(1.0)

    def forget(self) -> None:
        """In a forked copy of the host: close the inherited pipe ends (the writer process
        belongs to the parent, and must see its own end of file when the parent closes)."""
        self.alive = False
        for pipe in (self._proc.stdin, self._proc.stdout):
            with contextlib.suppress(OSError, AttributeError):
                pipe.close()  # type: ignore[union-attr]

    # --- outside the lock -------------------------------------------------------------
    def _hand_back(self) -> None:
        if not self._returned:
            return
        with self._lock:
            returned, self._returned = self._returned, []
        for record, owner in returned:
            owner.write_later(record)


MAX_STARTS = 3  # writer processes started per host process; after that, runs are written here

_lock = threading.Lock()
_current: WriterProcess | None = None
_starts = 0


def writer_process() -> WriterProcess | None:
    """The host's writer process (started now if needed), or None when no writer process
    could be started (runs are then written in the host)."""
    global _current, _starts
    current = _current
    if current is not None and current.alive and current.owner_pid == os.getpid():
        return current
    with _lock:
        if _current is not None and _current.alive:
            return _current
        if _starts >= MAX_STARTS or not sys.executable or getattr(sys, "frozen", False):
            # (a frozen application's executable is the application, not a Python)
            return None
        _starts += 1
        try:
            _current = WriterProcess()
        except Exception:  # noqa: BLE001
            _current = None
            _starts = MAX_STARTS
            logger.warning("harness writer process could not start; runs are written in the host", exc_info=True)
            return None
        atexit.register(_current.close)
        return _current


def _after_fork_in_child() -> None:
    global _current, _starts, _lock
    _lock = threading.Lock()
    if _current is not None:
        _current.forget()
    _current, _starts = None, 0


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


class ProcessWriter(ThreadWriter):
    """Writes runs in the writer process (``writer="process"``, the library's default): the
    caller pays for pickling its run's record and one ``write`` to a pipe.

    A record goes through the background thread instead when it must meet the host first:
    its spans go to the application's own tracer provider (made here, then the record is
    forwarded), or its redaction rules include a function of the application (written
    here: the writer process never imports application code). A store another process
    cannot open (in memory), or one that cannot be opened now, is written here.
    """

    def __init__(self, store, *, tracer_provider=None, max_pending_bytes: int) -> None:
        super().__init__(store, tracer_provider=tracer_provider, max_pending_bytes=max_pending_bytes)
        self.by_process = store.shareable
        self.sent_to: set[WriterProcess] = set()  # the writer processes that have runs of this writer

    def process(self) -> WriterProcess | None:
        """The writer process runs go to (started now if needed), or None. While the store
        cannot be opened here, runs are written (spooled) here, where the warning was given."""
        return writer_process() if self.by_process and self.store.problem is None else None

    def prepare(self) -> None:
        try:
            self.process()
        except Exception:  # noqa: BLE001
            self.errors += 1
            logger.warning("harness: the writer process could not be readied", exc_info=True)

    def submit(self, record: RunRecord) -> None:
        try:
            process = self.process() if record.portable else None
            spans = span_destination(self.tracer_provider)
            if process is not None and spans != "host":
                # No spans to make in the host: the record goes straight to the writer process
                # (which makes them when they go over OTLP).
                if spans == "otlp":
                    record.otlp_endpoint = otlp_endpoint()
                self.forward(record, process)
                return
        except Exception:  # noqa: BLE001
            record.count_error("handing the run to the writer process")
        super().submit(record)  # via the background thread: see store_record

    def store_record(self, record: RunRecord) -> None:
        """On the background thread, once the host made the spans: the record forwarded."""
        self.forward(record)

    def forward(self, record: RunRecord, process: WriterProcess | None = None) -> None:
        """Hand the record to the writer process when there is one and it can write it, else
        write it here."""
        process = process or self.process()
        if process is not None and record.portable:
            record.secrets = host_secrets()  # the host's environment, as of this run
            if process.submit(self, record):
                self.sent_to.add(process)
                return
            record.secrets = None
        self.write_here(record)

    def write_later(self, record: RunRecord) -> None:
        """Write a run the writer process handed back, off the caller's path when possible."""
        self.run_later(lambda: self.write_here(record), record.held)

    def flush(self, timeout: float | None = None) -> bool:
        """The background thread's queue, then every writer process this writer sent runs to
        (which may hand runs back to the thread), then the thread again."""
        deadline = None if timeout is None else time.monotonic() + timeout

        def left() -> float | None:
            return None if deadline is None else max(0.0, deadline - time.monotonic())

        done = self.background.flush(left())
        for process in list(self.sent_to):
            done = process.sync(left()) and done
        return self.background.flush(left()) and done
