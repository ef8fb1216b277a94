"""The writer interface: what takes a finished run's record and writes it to the store.

Modelled on OpenTelemetry's ``SpanProcessor``: the facade (:class:`~harness.Harness`) hands
every finished run to its one :class:`Writer` and never knows where or when the rows are
written; :mod:`.dispatch` is the one place that decides which writer that is.
"""

from __future__ import annotations

import functools
import logging
from abc import ABC, abstractmethod

from opentelemetry import trace

from ..store import Spool, Store
from ..tracing.record import RunRecord, emit_record_spans
from ..tracing.telemetry import resolve_tracer
from .persist import store_entry, write_record

logger = logging.getLogger("harness")


class Writer(ABC):
    """Writes the records of finished runs to a store and makes their spans.

    The contract, for every writer:

    - :meth:`prepare` is called by the thread that starts a run, before the graph runs; a
      writer may get its workers ready (the process writer starts its process there, so the
      first run's end does not wait for it). Never raises.
    - :meth:`submit` is called once per run, by the thread (or asyncio task) whose run has
      just ended; many call it at once, so it is thread-safe. It takes the record over and
      does only what must happen on the caller's path: hand the record on. It blocks only
      when runs handed on but not yet written hold more than ``max_pending_bytes`` (the
      caller waits for the writer: memory stays bounded and no run is dropped) and, for the
      inline writer, while it writes. Never raises.
    - :meth:`flush` may be called from any thread but the writer's own: it returns True once
      every record submitted before the call is stored (or spooled, when the store cannot
      take it now) and its spans are emitted, False when ``timeout`` seconds passed first.
      Never raises.
    - :meth:`close` flushes, then lets the writer's threads and processes go; a record
      submitted afterwards is written by its caller. Never raises.

    Failures inside the harness are logged and counted in :attr:`errors`, never raised into
    the application.
    """

    errors: int = 0

    def prepare(self) -> None:  # noqa: B027 - optional: most writers have nothing to start
        """A run is about to start."""

    @abstractmethod
    def submit(self, record: RunRecord) -> None:
        """Write the finished run ``record`` (see the class's contract)."""

    @abstractmethod
    def flush(self, timeout: float | None = None) -> bool:
        """Wait until every run submitted so far is written; False when ``timeout`` passed first."""

    @abstractmethod
    def close(self, timeout: float | None = None) -> None:
        """Flush, then let the writer's workers go."""


class StoreWriter(Writer):
    """What every writer of this package shares: the store, the spool of runs the store
    cannot take now (what an earlier process left is written first), the spans made in this
    process, and writing a record here and now."""

    def __init__(self, store: Store, *, tracer_provider: trace.TracerProvider | None = None,
                 max_pending_bytes: int) -> None:
        self.store = store
        self.tracer_provider = tracer_provider
        self.max_pending_bytes = max_pending_bytes
        self.errors = 0
        self.spool = Spool(store.spool_paths)
        if self.spool.pending and store.problem is None:
            self.spool.replay(functools.partial(store_entry, store))

    def emit_spans(self, record: RunRecord) -> None:
        """Make the run's spans in this process, where the application's tracer provider
        lives (before its rows: they carry the spans' ids)."""
        try:
            tracer = resolve_tracer(self.tracer_provider)
        except Exception:  # noqa: BLE001
            record.count_error("span export")
            tracer = None
        if tracer is not None:
            before = record.errors
            emit_record_spans(record, tracer)
            self.errors += record.errors - before

    def store_record(self, record: RunRecord) -> None:
        """What :meth:`write_now` does with a record once its spans are made: here, it is written."""
        self.write_here(record)

    def write_here(self, record: RunRecord) -> None:
        """Build and store the run's rows in the calling thread (spooled when the store
        cannot take them now)."""
        before = record.errors
        write_record(record, self.store, self.spool)
        self.errors += record.errors - before

    def write_now(self, record: RunRecord) -> None:
        """Spans, then the record stored (:meth:`store_record`), in the calling thread; never raises."""
        try:
            self.emit_spans(record)
            self.store_record(record)
        except Exception:  # noqa: BLE001 - the host never sees harness failures
            self.errors += 1
            logger.warning("harness: writing run %s failed", record.run_id, exc_info=True)


class InlineWriter(StoreWriter):
    """Writes each run in its caller, as the run ends (``writer="inline"``)."""

    def submit(self, record: RunRecord) -> None:
        self.write_now(record)

    def flush(self, timeout: float | None = None) -> bool:
        return True

    def close(self, timeout: float | None = None) -> None:
        return None
