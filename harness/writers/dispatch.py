"""Where a finished run is written: in the caller (``inline``), by a background thread of
the host (``thread``), or by a second Python process (``process``, see :mod:`.process`).

:class:`RunWriter` is the one object that knows which; :class:`~harness.Harness` owns one
and hands it every finished run's record.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable

from ..store import Spool, Store
from ..tracing.record import RunRecord, store_run, write_record
from ..tracing.redact import host_secrets
from .process import WriterProcess, writer_process
from .thread import BackgroundWriter

ENV_WRITER = "HARNESS_WRITER"
WRITERS = ("process", "thread", "inline")  # who writes finished runs (see harness.Harness)
ENV_MAX_PENDING = "HARNESS_MAX_PENDING_MB"
#: What runs handed on but not yet written may hold in the host before it waits for the writer.
MAX_PENDING_BYTES = 64 << 20


def max_pending_bytes(value: int | None = None) -> int:
    """The argument > ``$HARNESS_MAX_PENDING_MB`` > 64 MB."""
    if value is not None:
        if value < 1:
            raise ValueError(f"max_pending_bytes must be at least 1, not {value}")
        return value
    raw = os.environ.get(ENV_MAX_PENDING)
    if not raw:
        return MAX_PENDING_BYTES
    try:
        megabytes = float(raw)
    except ValueError:
        raise ValueError(f"${ENV_MAX_PENDING} must be a number of megabytes, not {raw!r}") from None
    if not megabytes > 0:
        raise ValueError(f"${ENV_MAX_PENDING} must be more than 0, not {raw!r}")
    return int(megabytes * (1 << 20))


class RunWriter:
    """Writes finished runs to ``store`` the way ``kind`` (one of :data:`WRITERS`) says; counts
    the harness failures met on the way in :attr:`errors` (never raised into the host)."""

    def __init__(self, store: Store, kind: str, max_pending: int = MAX_PENDING_BYTES) -> None:
        self.store = store
        self.kind = kind
        self.errors = 0
        self.max_pending_bytes = max_pending
        #: runs the store cannot take now; what an earlier process left is written first
        self.spool = Spool(store.spool_paths)
        if self.spool.pending and store.problem is None:
            self.spool.replay(functools.partial(store_run, store))
        self.background = BackgroundWriter(max_pending) if kind != "inline" else None
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
        self.run_later(lambda: self.write_here(record), record.held)

    def run_later(self, job: Callable[[], None], size: int = 0) -> None:
        """Run ``job`` on the background thread (now, if this is that thread or there is none);
        ``size``: about how many bytes it holds until it has run."""
        if self.background is None or self.background.is_worker():
            job()
        else:
            self.background.submit(job, size)
