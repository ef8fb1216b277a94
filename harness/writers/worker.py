"""The writer process's side of :mod:`.process`: read records from the host, store their
rows, answer.

Records are written in batches: once one has arrived, those that follow within a short
window (or are already waiting in the pipe) join it, and each store's share of a batch is
written in one transaction that takes the write lock at its start. When several host
processes share one SQLite file, each writer process then takes the lock once per batch
instead of once per run, which is what lets them share it without waiting on each other
most of the time. A run's rows still commit together or not at all, and a store that cannot
take them has them spooled (:mod:`harness.store.spool`).
"""

from __future__ import annotations

import logging
import os
import pickle
import select
import signal
import sys
import time
from collections import OrderedDict

from ..store import Spool, Store
from ..tracing.record import RunRecord, prepare_entry
from ..tracing.telemetry import flush_own_providers
from .persist import deliver, store_entry
from .process import FRAME, HELLO

logger = logging.getLogger("harness")

OPEN_STORES = 8  # stores kept open at once
BATCH_RUNS = 64  # records written in one transaction at most
BATCH_BYTES = 16 << 20  # ... or this many bytes of them
BATCH_WINDOW = 0.01  # seconds a batch waits for the next record once one has arrived


class Requests:
    """Frames from the host, read from a pipe without blocking past what is asked for."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.buffer = bytearray()
        self.closed = False

    def _fill(self, timeout: float | None) -> bool:
        """Read what the pipe has (waiting up to ``timeout``; None: until something comes)."""
        if self.closed:
            return False
        if timeout is not None and not select.select([self.fd], [], [], timeout)[0]:
            return False
        chunk = os.read(self.fd, 1 << 20)
        if not chunk:
            self.closed = True
            return False
        self.buffer += chunk
        return True

    def next(self, timeout: float | None) -> tuple[bytes, int, bytes] | None:
        """The next whole frame, or None when none came within ``timeout`` (or the host closed)."""
        while True:
            if len(self.buffer) >= FRAME.size:
                kind, seq, length = FRAME.unpack_from(self.buffer)
                end = FRAME.size + length
                if len(self.buffer) >= end:
                    payload = bytes(self.buffer[FRAME.size:end])
                    del self.buffer[:end]
                    return kind, seq, payload
            if not self._fill(timeout):
                return None


def main() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the host decides when to stop (stdin closes)
    answers = os.fdopen(os.dup(1), "wb", buffering=0)
    os.dup2(2, 1)  # anything printed by a library goes to stderr, never into the answers
    answers.write(HELLO)
    requests = Requests(sys.stdin.fileno())
    stores: OrderedDict[str, tuple[Store, Spool]] = OrderedDict()
    while True:
        frame = requests.next(None)
        if frame is None:
            flush_own_providers()
            return
        batch: list[tuple[int, str, RunRecord]] = []
        size, deadline = 0, time.monotonic() + BATCH_WINDOW
        while frame is not None:
            kind, seq, payload = frame
            if kind == b"S":  # done means stored and exported: what came before goes out now
                _write(batch, stores, answers)
                batch, size = [], 0
                flush_own_providers()
                answers.write(FRAME.pack(b"S", seq, 0))
            else:
                try:
                    path, record = pickle.loads(payload)
                except Exception:  # noqa: BLE001 - the host writes it
                    logger.debug("cannot read a run record; the host writes it", exc_info=True)
                    answers.write(FRAME.pack(b"L", seq, 0))
                else:
                    batch.append((seq, path, record))
                    size += len(payload)
            if len(batch) >= BATCH_RUNS or size >= BATCH_BYTES:
                break
            frame = requests.next(max(deadline - time.monotonic(), 0.0))
        _write(batch, stores, answers)


def _write(batch: list[tuple[int, str, RunRecord]], stores: OrderedDict[str, tuple[Store, Spool]],
           answers) -> None:
    """Each store's records in one transaction, then every record acknowledged in order.

    A store that has a problem, a spool to replay, or a batch that does not commit gets its
    runs one by one instead, each stored or spooled on its own (never lost)."""
    before = {seq: record.errors for seq, _, record in batch}
    for path in dict.fromkeys(path for _, path, _ in batch):
        records = [record for _, p, record in batch if p == path]
        try:
            if path not in stores:
                store = Store(path, lazy=True)  # one the writer cannot open now: its runs are spooled
                stores[path] = (store, Spool(store.spool_paths))
            stores.move_to_end(path)
            while len(stores) > OPEN_STORES:
                stores.popitem(last=False)[1][0].close()
            store, spool = stores[path]
        except Exception:  # noqa: BLE001
            for record in records:
                record.count_error("opening the store")
            continue
        entries = [(record, prepare_entry(record)) for record in records]
        entries = [(record, entry) for record, entry in entries if entry is not None]
        if store.problem is None and not spool.pending and _store_together(store, entries):
            continue
        for record, entry in entries:
            deliver(entry, store, spool, record)
    for seq, _, record in batch:
        answers.write(FRAME.pack(b"A", seq, record.errors - before[seq]))


def _store_together(store: Store, entries: list[tuple[RunRecord, dict]]) -> bool:
    """The runs' rows in one transaction that takes the write lock at its start; False (and
    nothing stored) when it did not commit."""
    problems: list[tuple[RunRecord, list[str]]] = []
    try:
        with store.transaction(immediate=True):
            for record, entry in entries:
                problems.append((record, store_entry(store, entry)))
    except Exception:  # noqa: BLE001 - rolled back: the runs go one by one
        logger.debug("a batch of %d run(s) did not commit; writing them one by one", len(entries), exc_info=True)
        return False
    for record, found in problems:
        for problem in found:
            record.count_error(problem)
    return True
