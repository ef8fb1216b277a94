"""What a writer needs of whoever handed it a run: where to store it, and how to write it
in the host when it cannot (the writer process hands back what it cannot write)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from ..store import Store
from ..tracing.record import RunRecord


class RecordSink(Protocol):
    store: Store
    errors: int  # harness failures met while writing its runs (never raised into the host)
    max_pending_bytes: int  # runs handed on but not yet written may hold this much; then the host waits

    def write_here(self, record: RunRecord) -> None:
        """Write the run now, in the calling thread."""

    def write_later(self, record: RunRecord) -> None:
        """Write the run off the caller's path when possible."""

    def run_later(self, job: Callable[[], None]) -> None:
        """Run ``job`` on the background thread (now, if there is none or this is it)."""
