"""The scoring worker: scores stored runs outside experiments as they arrive, sampled, within a
budget, each run once per scorer version, however many workers share the store.

One cycle (:meth:`Worker.step`): claim a batch of runs in the store (:mod:`harness.store.claims`:
runs whose lease ran out first, then new ones; the sample decided by :mod:`.sampling`), read
them as scorers see every run (:func:`harness.experiment.scoring.snapshots`), call each
scorer through the one scorer-calling engine (:class:`~harness.experiment.scorer_call.ScorerCalls`:
time limits, isolation, bounded results), then settle the batch: its claims marked and its
scores written in one transaction, so a worker killed at any moment has either settled a run
or left it to be taken back. A thread of the worker renews its leases and records its counts
(:mod:`.counts`) while it works.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import threading
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from evaluators import NOT_SCORED, SourcedScore, failed_score, run_passed

from ..experiment.loop import in_own_loop
from ..experiment.scorer_call import ScorerCalls, ScorerLimits
from ..experiment.scoring import Scorer, snapshots
from ..secrets.redact import Redactor, host_redactor
from ..store import claims
from ..store.claims import Claimed, Outcome, RunFilter, ScorerKey
from ..tracing.record import now_iso, score_key, score_row
from ..tracing.rows import redact_rows
from .budget import REFUSAL, Budget, CostMeter
from .counts import Counts
from .sampling import sample_point, sample_rate

logger = logging.getLogger("harness")

#: Runs claimed at a time.
BATCH = 50
#: Seconds a claim holds before another worker may take the run back (renewed while working).
LEASE_SECONDS = 30.0
#: Seconds between looks for new runs while there are none.
POLL_SECONDS = 0.25
#: A run claimed this many times whose workers never finished it gets an error score.
MAX_ATTEMPTS = 3


@dataclass(frozen=True, slots=True)
class WorkerSettings:
    """How a worker scores: ``sample`` rate, which runs (``filters``), a ``budget``, each
    scorer call's ``limits``, scorer calls at once (``concurrency``), runs per claim
    (``batch``), the ``lease``, how often it looks for new runs (``poll``)."""

    sample: float = 1.0
    filters: RunFilter = RunFilter()
    budget: Budget | None = None
    limits: ScorerLimits = ScorerLimits()
    concurrency: int = 4
    batch: int = BATCH
    lease: float = LEASE_SECONDS
    poll: float = POLL_SECONDS
    max_attempts: int = MAX_ATTEMPTS

    def __post_init__(self) -> None:
        sample_rate(self.sample)
        for name in ("concurrency", "batch", "max_attempts"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1")
        if not self.lease > 0 or not self.poll > 0:
            raise ValueError("the lease and the poll interval are seconds above 0")
        if self.budget is not None and self.limits.isolation == "process":
            # (the budget meets each model call in the process that makes it, holding the store)
            raise ValueError("a scoring budget (--max-cost) counts the model calls scorers make in this process: "
                             "give it with --scorer-isolation thread, not process")


def worker_id(kind: str = "worker") -> str:
    """A worker's id: host, process id and a random part (unique across restarts)."""
    return f"{kind}:{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


class Worker:
    """Scores the store's runs outside experiments with ``scorers`` (see the module doc).

    Use :meth:`run` (``follow``: until :meth:`stop`; else until nothing is left), or
    :meth:`step` cycle by cycle. :meth:`close` hands back what it still holds and records
    that it stopped. Counts in :attr:`counts`; ``on_report(lines)`` is called every
    ``report_every`` seconds and on :meth:`report_now` (from the worker's heartbeat thread).
    """

    def __init__(self, store: Any, scorers: Sequence[Scorer], settings: WorkerSettings = WorkerSettings(), *,
                 redact: Redactor | None = None, kind: str = "worker",
                 on_report: Callable[[list[str]], None] | None = None, report_every: float | None = None) -> None:
        if not scorers:
            raise ValueError("give at least one scorer")
        self.store, self.settings = store, settings
        self.id = worker_id(kind)
        self.redact = redact or host_redactor(())
        self.meter = (CostMeter(store, settings.budget, hold_seconds=settings.limits.timeout + 30.0)
                      if settings.budget is not None else None)
        self.scorers = [self._metered(s) for s in scorers]
        self.by_key = {ScorerKey(s.name, s.version): s for s in self.scorers}
        self.keys = list(self.by_key)
        self.counts = Counts(self.keys)
        self.calls = ScorerCalls(self.scorers, settings.limits, redact=self.redact, workers=settings.concurrency)
        self.cursor = 0
        self.retaken = 0
        self._swept = time.monotonic()
        self._stop = threading.Event()
        self._report = threading.Event()
        self._closed = False
        self._started = False
        self._heart: threading.Thread | None = None
        self.on_report, self.report_every = on_report, report_every
        self.errors: list[str] = []  # the first few score errors, for the summary

    def _metered(self, scorer: Scorer) -> Scorer:
        if self.meter is None:
            return scorer
        return replace(scorer, fn=self.meter.metered(scorer.fn, scorer.name))

    # --- life ------------------------------------------------------------------------------
    def start(self) -> None:
        """Record the worker in the store and start its heartbeat (renewing its leases)."""
        if self._started:
            return
        self._started = True
        s = self.settings
        claims.register_worker(self.store, self.id, socket.gethostname(), os.getpid(), {
            "scorers": [{"name": k.name, "version": k.version, "spec": self.by_key[k].spec} for k in self.keys],
            "sample": s.sample, "workflows": list(s.filters.workflows), "since": s.filters.since,
            "budget": None if s.budget is None else {"max_cost": s.budget.max_cost, "per": s.budget.per},
            "lease": s.lease, "concurrency": s.concurrency})
        self._heart = threading.Thread(target=self._beat, name="harness-scoring-heartbeat", daemon=True)
        self._heart.start()

    def _beat(self) -> None:
        every = max(0.05, self.settings.lease / 3)
        next_report = time.monotonic() + self.report_every if self.report_every else None
        while not self._closed:
            timeout = every if next_report is None else max(0.0, min(every, next_report - time.monotonic()))
            asked = self._report.wait(timeout)
            if self._closed:
                return
            try:
                claims.renew(self.store, self.id, self.settings.lease)
                claims.heartbeat(self.store, self.id, self.counts.as_dict())
            except Exception as exc:  # noqa: BLE001 - the store is back next time, or the leases run out
                logger.warning("harness: the scoring worker could not renew its leases: %s: %s",
                               type(exc).__name__, exc)
            due = next_report is not None and time.monotonic() >= next_report
            if (asked or due) and self.on_report is not None:
                self._report.clear()
                try:  # (the heartbeat goes on whatever printing the counts meets)
                    self.on_report(self.counts.lines())
                except Exception as exc:  # noqa: BLE001
                    logger.warning("harness: the scoring worker could not report its counts: %s", exc)
            if due:
                next_report = time.monotonic() + self.report_every  # type: ignore[operator]

    def report_now(self) -> None:
        """Have the counts reported now (safe from a signal handler: it only sets an event)."""
        self._report.set()

    def stop(self) -> None:
        """Stop soon: no further claim; scorer calls in flight end now, their runs handed back.
        Safe from a signal handler: the calls are ended on a thread of their own, since the
        handler may interrupt the very code that holds their lock."""
        self._stop.set()
        threading.Thread(target=self.calls.close, name="harness-scoring-stop", daemon=True).start()

    @property
    def stopping(self) -> bool:
        return self._stop.is_set()

    def close(self) -> None:
        """Hand back every claim still held, record the counts and that the worker stopped."""
        if self._closed:
            return
        self._closed = True
        self._report.set()
        self.calls.close()
        if not self._started:
            return
        self.counts.hand_back()
        try:
            claims.release_all(self.store, self.id)
            claims.heartbeat(self.store, self.id, self.counts.as_dict(), stopped=True)
        except Exception as exc:  # noqa: BLE001 - the leases run out by themselves
            logger.warning("harness: the scoring worker could not hand back its claims: %s: %s",
                           type(exc).__name__, exc)

    # --- work ------------------------------------------------------------------------------
    def run(self, *, follow: bool = True) -> Counts:
        """Score until :meth:`stop` (``follow``) or until nothing is left to claim; then
        :meth:`close`. Ctrl-C stops it the same way (what was settled stays)."""
        self.start()
        swept = self.store.visible_in_order  # (else one last look over every run before leaving)
        try:
            while not self._stop.is_set():
                if self.step():
                    continue
                if not follow:
                    if not swept:
                        swept = self._sweep(force=True) or True
                        continue
                    break
                self._stop.wait(self.settings.poll)
        finally:
            self.close()
        return self.counts

    def _sweep(self, force: bool = False) -> bool:
        """Where rows may become visible out of order, move the cursor back (every
        :data:`~harness.store.claims.SWEEP_SECONDS`, or now when ``force``); whether it moved."""
        if self.store.visible_in_order and not force:
            return False
        if not force and time.monotonic() - self._swept < claims.SWEEP_SECONDS:
            return False
        self._swept = time.monotonic()
        before = self.cursor
        self.cursor = 0 if force else max(0, self.cursor - claims.SWEEP_ROWS)
        return before != self.cursor

    def step(self, run_ids: Sequence[str] | None = None) -> int:
        """One cycle: claim a batch (of ``run_ids`` only, when given), score it, settle it.
        Returns how many runs it met."""
        s = self.settings
        if run_ids is None:
            self._sweep()
            filters, after = s.filters, self.cursor
        else:
            filters, after = replace(s.filters, run_ids=tuple(run_ids)), 0
        found = claims.claim(self.store, self.id, self.keys, rate=s.sample, point=sample_point, filters=filters,
                             after=after, limit=s.batch, lease=s.lease, max_attempts=s.max_attempts,
                             scored=score_key)
        if run_ids is None:
            self.cursor = max(self.cursor, found.last_seq)
        for key, count in found.unsampled.items():
            self.counts.unsampled(key, count)
        for key, count in found.already.items():
            self.counts.already(key, count)
        self.retaken += found.retaken
        for _, key, _ in found.poisoned:
            self.counts.claimed(key)
        for keys in found.work.values():
            for key in keys:
                self.counts.claimed(key)
        if found.empty:
            return 0
        outcomes, rows = self._score(found)
        self._settle(outcomes, rows)
        met = set(found.work) | {run_id for run_id, _, _ in found.poisoned}
        return len(met) + sum(found.unsampled.values()) + sum(found.already.values())

    def _score(self, found: Claimed) -> tuple[list[Outcome], dict[tuple[str, ScorerKey], list[dict[str, Any]]]]:
        outcomes: list[Outcome] = []
        rows: dict[tuple[str, ScorerKey], list[dict[str, Any]]] = {}
        created = now_iso()
        for run_id, key, attempts in found.poisoned:
            why = (f"not scored: the workers that claimed this run stopped {attempts} times before scoring it "
                   "(killed, or out of memory?)")
            outcomes.append(Outcome(run_id, key, claims.ERRORED, why))
            rows[(run_id, key)] = [self._row(run_id, key, SourcedScore(failed_score(key.name, why),
                                                                       self.by_key[key].source,
                                                                       self.by_key[key].spec), created)]
        pairs = {run.run_id: (run, case) for run, case in snapshots(self.store, list(found.work))}
        spent = self.meter is not None and any(self._spends(k) for keys in found.work.values() for k in keys) \
            and self.meter.spent()
        jobs: list[tuple[str, ScorerKey]] = []
        for run_id, keys in found.work.items():
            for key in keys:
                if run_id not in pairs:
                    outcomes.append(Outcome(run_id, key, claims.ERRORED, "the run is no longer in the store"))
                elif spent and self._spends(key):
                    outcomes.append(Outcome(run_id, key, claims.BUDGET, f"the budget of {self.settings.budget} "
                                                                        "was spent"))
                else:
                    jobs.append((run_id, key))
        results = self._call(jobs, pairs) if jobs else []
        existing = self._existing([(run_id, name) for (run_id, _), scores in zip(jobs, results)
                                   for name in {s.result.name for s in scores}])
        for (run_id, key), scores in zip(jobs, results):
            outcome, made = self._judge(run_id, key, scores, existing, created)
            outcomes.append(outcome)
            if made:
                rows[(run_id, key)] = made
        return outcomes, rows

    def _spends(self, key: ScorerKey) -> bool:
        scorer = self.by_key[key]
        return self.meter is not None and (scorer.source == "llm" or scorer.name in self.meter.spenders)

    def _call(self, jobs: list[tuple[str, ScorerKey]], pairs: dict[str, tuple[Any, Any]]) -> list[list[SourcedScore]]:
        async def main() -> list[list[SourcedScore]]:
            gate = asyncio.Semaphore(self.settings.concurrency)

            async def one(run_id: str, key: ScorerKey) -> list[SourcedScore]:
                run, case = pairs[run_id]
                async with gate:
                    return await self.calls.score(self.by_key[key], run, case)

            return await asyncio.gather(*(one(run_id, key) for run_id, key in jobs))

        return in_own_loop(main())

    def _existing(self, pairs: list[tuple[str, str]]) -> dict[str, str]:
        """Row key -> source of scores already stored under the names the scorers gave."""
        keys = list(dict.fromkeys(score_key(run_id, name) for run_id, name in pairs))
        out: dict[str, str] = {}
        ids = list(dict.fromkeys(run_id for run_id, _ in pairs))
        if ids:
            wanted = set(keys)
            for row in self.store.rows("scores", ids, columns=["source"], with_keys=True):
                if row["row_key"] in wanted:
                    out[row["row_key"]] = row["source"]
        return out

    def _judge(self, run_id: str, key: ScorerKey, scores: list[SourcedScore], existing: dict[str, str],
               created: str) -> tuple[Outcome, list[dict[str, Any]]]:
        """What a scorer's scores of a run make of its claim, and the rows to store."""
        errors = [s.result.error for s in scores if s.result.error]
        if any(e == NOT_SCORED for e in errors):  # stopped before it finished: the next worker scores it
            return Outcome(run_id, key, None), []
        if any(e.startswith(REFUSAL) for e in errors):
            return Outcome(run_id, key, claims.BUDGET, f"the budget of {self.settings.budget} was spent"), []
        taken = [s.result.name for s in scores if existing.get(score_key(run_id, s.result.name)) in ("human", "rule")]
        if taken:
            why = (f"the run already has a {existing[score_key(run_id, taken[0])]} score named {taken[0]!r}; "
                   "give the scorer another name (a score_name attribute)")
            return Outcome(run_id, key, claims.ERRORED, why), []
        made = [self._row(run_id, key, s, created) for s in scores]
        if errors:
            return Outcome(run_id, key, claims.ERRORED, errors[0].splitlines()[0] if errors[0] else "error"), made
        return Outcome(run_id, key, claims.SCORED), made

    def _row(self, run_id: str, key: ScorerKey, scored: SourcedScore, created: str) -> dict[str, Any]:
        return {**score_row(run_id, scored, created), "scorer_version": key.version}

    def _settle(self, outcomes: list[Outcome], rows: dict[tuple[str, ScorerKey], list[dict[str, Any]]]) -> None:
        def write(held: set[tuple[str, ScorerKey]]) -> None:
            chosen = [row for pair, made in rows.items() if pair in held for row in made]
            # Read again in the settling transaction: a person's label (or a built-in check) stored
            # since the batch was judged is never replaced.
            owned = self._existing([(row["run_id"], row["name"]) for row in chosen])
            chosen = [row for row in chosen if owned.get(row["row_key"]) not in ("human", "rule")]
            redact_rows(chosen, self.redact)
            self.store.write_scores(chosen, replace=True, passed=run_passed)

        held = claims.settle(self.store, self.id, outcomes, write)
        for o in outcomes:
            if (o.run_id, o.key) not in held:
                self.counts.ended(o.key, "lost")
                continue
            outcome = {claims.SCORED: "scored", claims.ERRORED: "errored", claims.BUDGET: "budget",
                       None: "returned"}[o.state]
            self.counts.ended(o.key, outcome)
            if o.state == claims.ERRORED and len(self.errors) < 5:
                self.errors.append(f"{o.key.name} on run {o.run_id}: {o.error}")
