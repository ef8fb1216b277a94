"""Where a finished run is written: in the caller (``inline``), by a background thread of
the host (``thread``), or by a second Python process (``process``, see :mod:`.process`).

:class:`RunWriter` is the one object that knows which; :class:`~harness.Harness` owns one
and hands it every finished run's record.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from ..store import Spool, Store
from ..tracing.record import RunRecord, store_run, write_record
from ..tracing.redact import host_secrets
from .process import WriterProcess, writer_process
from .thread import BackgroundWriter

ENV_WRITER = "HARNESS_WRITER"
WRITERS = ("process", "thread", "inline")  # who writes finished runs (see harness.Harness)


class RunWriter:
    """Writes finished runs to ``store`` the way ``kind`` (one of :data:`WRITERS`) says; counts
    the harness failures met on the way in :attr:`errors` (never raised into the host)."""

    def __init__(self, store: Store, kind: str) -> None:
        self.store = store
        self.kind = kind
        self.errors = 0
        #: runs the store cannot take now; what an earlier process left is written first
        self.spool = Spool(store.spool_paths)
        if self.spool.pending and store.problem is None:
            self.spool.replay(functools.partial(store_run, store))
        self.background = BackgroundWriter() if kind != "inline" else None
        # A store another process can open is written by the writer process; an in-memory
        # one only in this process.
        self.by_process = kind == "process" and store.shareable
        self.sent_to: set[WriterProcess] = set()

    def flush(self) -> None:
        """Wait until every finished run has been written to the store (and its spans emitted).

        Unless ``inline``, the caller of a run pays only for handing its record on: to the
        writer process, or, when spans are to be made or with ``thread``, to a background
        thread that emits the spans and writes or forwards the rows.
        """
        if self.background is not None:
            self.background.flush()
        if self.sent_to:
            for process in list(self.sent_to):
                process.sync()  # may hand runs back to the background thread
            if self.background is not None:
                self.background.flush()

    def process(self) -> WriterProcess | None:
        """The writer process runs go to (started now if needed), or None. While the store
        cannot be opened here, runs are written (spooled) here, where the warning was given."""
        return writer_process() if self.by_process and self.store.problem is None else None

    def persist(self, record: RunRecord, process: WriterProcess | None = None) -> None:
        """Store a finished run: through the writer process when there is one, else here."""
        process = process or self.process()
        if process is not None and record.portable:
            record.secrets = host_secrets()  # the host's environment, as of this run
            if process.submit(self, record):
                self.sent_to.add(process)
                return
            record.secrets = None
        self.write_here(record)

    def write_here(self, record: RunRecord) -> None:
        before = record.errors
        write_record(record, self.store, self.spool)
        self.errors += record.errors - before

    def write_later(self, record: RunRecord) -> None:
        """Write a run the writer process handed back, off the caller's path when possible."""
        self.run_later(lambda: self.write_here(record))

    def run_later(self, job: Callable[[], None]) -> None:
        """Run ``job`` on the background thread (now, if this is that thread or there is none)."""
        if self.background is None or self.background.is_worker():
            job()
        else:
            self.background.submit(job)
