"""Online scoring inside the application: ``Harness(store, scorers=[...], sample=R)``.

Each finished run outside an experiment is handed (its id only: one list append, on the
caller's path) to a daemon thread of the harness that scores it as a worker would: claimed in
the store with the same keys (run, scorer name, scorer version), so a ``harness score`` worker
on the same store never scores it again, nor this thread a run a worker scored. A run not yet
in the store (the writer has not stored it) is looked for again at the next wake-up;
:meth:`InProcessScoring.drain` (``Harness.flush``) waits until every run written so far is
scored, :meth:`close` (``Harness.close``) then hands back what is left.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any

from ..experiment.scoring import Scorer
from ..secrets.redact import Redactor
from .worker import Worker, WorkerSettings

logger = logging.getLogger("harness")

#: Seconds between looks for finished runs (and for runs the writer has not stored yet).
RETRY_SECONDS = 0.2
#: Runs still not in the store after this long are left to a worker (they were spooled).
GIVE_UP_SECONDS = 600.0


class InProcessScoring:
    """The scoring thread of one harness (see the module doc)."""

    def __init__(self, store: Any, scorers: Sequence[Scorer], settings: WorkerSettings, *,
                 redact: Redactor | None, flush: Callable[[float | None], bool]) -> None:
        self.worker = Worker(store, scorers, settings, redact=redact, kind="inprocess")
        self._flush = flush
        self._pending: deque[str] = deque()  # appended by callers, taken by the scoring thread
        self._waiting: dict[str, float] = {}  # run id -> when it was handed over (not found in the store yet)
        self._wake = threading.Event()
        self._idle = threading.Condition()
        self._busy = False
        self._drains = 0
        self._closed = False
        self._thread: threading.Thread | None = None
        self._start = threading.Lock()

    @property
    def counts(self) -> Any:
        return self.worker.counts

    def finished(self, run_id: str) -> None:
        """A run ended (called on the caller's path: one list append; the scoring thread looks
        every :data:`RETRY_SECONDS`, so the caller never wakes it)."""
        self._pending.append(run_id)
        if self._thread is None:
            with self._start:
                if self._thread is None and not self._closed:
                    self.worker.start()
                    self._thread = threading.Thread(target=self._loop, name="harness-online-scoring", daemon=True)
                    self._thread.start()

    def _loop(self) -> None:
        while not self._closed:
            self._wake.wait(RETRY_SECONDS)
            self._wake.clear()
            if not self._pending and not self._waiting:
                continue
            with self._idle:
                self._busy = True
                draining = self._drains > 0
            try:
                self._score_pending(draining)
            except Exception:  # noqa: BLE001 - the application never sees scoring fail; runs wait for a worker
                logger.warning("harness: in-process scoring failed; its runs are left to a worker", exc_info=True)
                self._waiting.clear()
            finally:
                with self._idle:
                    self._busy = False
                    self._idle.notify_all()

    def _score_pending(self, draining: bool) -> None:
        now = time.monotonic()
        while True:
            try:
                run_id = self._pending.popleft()
            except IndexError:
                break
            self._waiting.setdefault(run_id, now)
        ids = list(self._waiting)
        store = self.worker.store
        batch = self.worker.settings.batch
        for start in range(0, len(ids), batch):
            chunk = ids[start:start + batch]
            present = {r["run_id"] for r in store.rows("runs", chunk, columns=["run_id"])}
            if present:
                while self.worker.step(sorted(present)) and not self.worker.stopping:
                    pass
            for run_id in chunk:
                if run_id in present or draining or now - self._waiting[run_id] > GIVE_UP_SECONDS:
                    self._waiting.pop(run_id, None)

    def drain(self, timeout: float | None = None) -> bool:
        """Wait until every run handed over and written by now is scored; False when
        ``timeout`` passed first."""
        if self._thread is None:
            return True
        deadline = None if timeout is None else time.monotonic() + timeout
        if not self._flush(timeout):
            return False
        with self._idle:
            self._drains += 1
        try:
            self._wake.set()
            with self._idle:
                while self._busy or self._pending or self._waiting:
                    left = None if deadline is None else deadline - time.monotonic()
                    if left is not None and left <= 0:
                        return False
                    self._wake.set()
                    self._idle.wait(left if left is not None else 0.5)
            return True
        finally:
            with self._idle:
                self._drains -= 1

    def close(self) -> None:
        """Score what was handed over, then hand back anything still held and stop."""
        if self._closed:
            return
        self.drain()
        self._closed = True
        self._wake.set()
        self.worker.close()


def in_process_scoring(harness: Any, scorers: Sequence[Any], *, sample: float, max_cost: float | None,
                       per: str | float, scorer_timeout: float) -> InProcessScoring:
    """The scoring thread of ``harness`` (arguments as ``Harness`` takes them); ValueError or
    :class:`~harness.experiment.errors.ExperimentError` for a bad one."""
    from ..experiment.scorer_call import ScorerLimits
    from ..experiment.scoring import scorers_of
    from ..secrets.redact import host_redactor
    from .budget import Budget
    from .durations import seconds_of
    from .sampling import sample_rate

    budget = None if max_cost is None else Budget(max_cost, seconds_of(per, "per"))
    settings = WorkerSettings(sample=sample_rate(sample), budget=budget, limits=ScorerLimits(scorer_timeout))
    return InProcessScoring(harness.store, scorers_of(scorers), settings, redact=host_redactor(harness.redact_rules),
                            flush=harness._writer.flush)
