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

Frames, both ways, are ``kind (1 byte), sequence number, length`` then ``length`` bytes:
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
import pickle
import select
import signal
import struct
import subprocess
import sys
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import BinaryIO

try:
    import fcntl
except ImportError:  # not POSIX: the pipe keeps its default size
    fcntl = None  # type: ignore[assignment]

from ..tracing.events import Event
from ..tracing.frozen import dumps, register
from ..tracing.record import RunRecord, write_record
from .sink import RecordSink

logger = logging.getLogger("harness")

FRAME = struct.Struct("!cQI")
MAX_PENDING = 1_000  # records sent but not yet acknowledged; the host waits beyond this
STALL_SECONDS = 120.0  # a writer process silent this long with work outstanding is replaced
_BOOT = "import sys; sys.path.extend(sys.argv[1:]); from harness.writers.process import main; main()"
#: The writer process's first frame: anything else on its stdout is not a writer process.
HELLO = FRAME.pack(b"H", int.from_bytes(b"harness", "big"), 1)
START_SECONDS = 30.0  # a writer process not greeting within this long is replaced
MAX_FRAME_BYTES = (1 << 32) - 1  # a record pickled larger than this is written in the host
PIPE_BYTES = 1 << 20  # asked of the kernel for the pipe to the writer process
_OPEN_STORES = 8

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
        self._pending: dict[int, tuple[RunRecord, RecordSink]] = {}
        self._returned: list[tuple[RunRecord, RecordSink]] = []  # to be written in the host
        self._seq = 0
        self._synced = 0
        self._last_answer = self._started = time.monotonic()
        self._greeted = False
        self._draining = False
        self.alive = True

    # --- host side --------------------------------------------------------------------
    def submit(self, sink: RecordSink, record: RunRecord) -> bool:
        """Send the record; False when the writer process cannot take it (write it here)."""
        if not self.alive:
            return False
        try:
            payload = dumps((sink.store.location, record))
        except Exception:  # noqa: BLE001 - an unpicklable payload: written in the host
            logger.debug("run %s is written in the host: its record does not pickle", record.run_id, exc_info=True)
            return False
        if len(payload) > MAX_FRAME_BYTES:
            return False
        with self._lock:
            if not self.alive:
                return False
            self._seq += 1
            self._pending[self._seq] = (record, sink)
            self._outbox += FRAME.pack(b"R", self._seq, len(payload))
            self._outbox += payload
            self._pump()
            if len(self._pending) >= MAX_PENDING:  # the writer process is behind: wait for it
                self._wait(lambda: len(self._pending) < MAX_PENDING)
            drain = bool(self._outbox) and not self._draining
            self._draining = self._draining or drain
        if drain:  # the pipe is full: a background thread pushes the rest through
            sink.run_later(self.drain)
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

    def sync(self) -> None:
        """Return when every record sent so far is written (records handed back to the host
        are queued on their sink's background writer)."""
        with self._lock:
            self._sync_locked(STALL_SECONDS)
        self._hand_back()

    def close(self, timeout: float = 30.0) -> None:
        """Let the writer process finish what it has and exit (at interpreter exit)."""
        if self.owner_pid != os.getpid():
            return
        with self._lock:
            self._sync_locked(timeout)
            self.alive = False
            returned, self._returned = self._returned + list(self._pending.values()), []
            self._pending.clear()
        for record, sink in returned:  # at exit: written here and now
            sink.write_here(record)
        with contextlib.suppress(OSError):
            self._proc.stdin.close()  # type: ignore[union-attr]
        try:
            self._proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self._proc.kill()

    # --- under the lock ---------------------------------------------------------------
    def _sync_locked(self, give_up_after: float) -> None:
        """Send a sync marker and wait for its answer (nothing to do once the process ended)."""
        if self.alive:
            self._seq += 1
            seq = self._seq
            self._outbox += FRAME.pack(b"S", seq, 0)
            self._wait(lambda: self._synced >= seq, give_up_after=give_up_after)

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
                record, sink = self._pending.pop(seq, (None, None))
                if sink is None:
                    continue
                if kind == b"A":
                    sink.errors += value
                else:  # the writer process could not read the record
                    self._returned.append((record, sink))
            else:
                return self._refuse(f"it answered with an unknown frame {kind!r}")
        del self._inbox[:offset]

    def _refuse(self, why: str) -> None:
        logger.warning("harness writer process replaced by writing in the host: %s", why)
        self._inbox.clear()
        self._ended()

    def _wait(self, done: Callable[[], bool], give_up_after: float = STALL_SECONDS) -> None:
        self._last_answer = time.monotonic()
        while self.alive and not done():
            self._pump()
            if not self.alive or done():
                return
            with contextlib.suppress(OSError, ValueError):
                select.select([self._from], [self._to] if self._outbox else [], [], 0.5)
            if not self._greeted and time.monotonic() - self._started > START_SECONDS:
                self._refuse("it did not start")
            elif time.monotonic() - self._last_answer > give_up_after:
                logger.warning("harness writer process stopped answering; writing its runs in the host")
                self._proc.kill()
                self._ended()

    def _ended(self) -> None:
        """The writer process is gone: everything it held is written in the host instead."""
        if not self.alive:
            return
        self.alive = False
        outstanding = list(self._pending.values())
        self._pending.clear()
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
        for record, sink in returned:
            sink.write_later(record)


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


# --- the writer process itself -----------------------------------------------------------

def _read_exactly(stream: BinaryIO, size: int) -> bytes:
    return stream.read(size) if size else b""


def main() -> None:
    from ..store import Spool, Store
    from ..tracing.telemetry import flush_own_providers

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the host decides when to stop (stdin closes)
    answers = os.fdopen(os.dup(1), "wb", buffering=0)
    os.dup2(2, 1)  # anything printed by a library goes to stderr, never into the answers
    answers.write(HELLO)
    requests = sys.stdin.buffer
    stores: OrderedDict[str, tuple[Store, Spool]] = OrderedDict()
    while True:
        header = _read_exactly(requests, FRAME.size)
        if len(header) < FRAME.size:
            flush_own_providers()
            return
        kind, seq, length = FRAME.unpack(header)
        payload = _read_exactly(requests, length)
        if kind == b"S":  # done means exported too: spans this process made go out now
            flush_own_providers()
            answers.write(FRAME.pack(b"S", seq, 0))
            continue
        try:
            path, record = pickle.loads(payload)
            before = record.errors
        except Exception:  # noqa: BLE001 - the host writes it
            logger.debug("cannot read a run record; the host writes it", exc_info=True)
            answers.write(FRAME.pack(b"L", seq, 0))
            continue
        try:
            if path not in stores:
                store = Store(path, lazy=True)  # one the writer cannot open now: its runs are spooled
                stores[path] = (store, Spool(store.spool_paths))
            stores.move_to_end(path)
            while len(stores) > _OPEN_STORES:
                stores.popitem(last=False)[1][0].close()
            write_record(record, *stores[path])
        except Exception:  # noqa: BLE001
            record.count_error("opening the store")
        answers.write(FRAME.pack(b"A", seq, record.errors - before))

