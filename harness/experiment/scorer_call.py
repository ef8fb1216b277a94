"""One call of a user's scorer on one (run, case): a time limit, isolation, bounded results.

Every scorer call goes through :meth:`ScorerCalls.score_all` (a batch of calls on threads: an
experiment's scorers, ``rescore``) or :meth:`ScorerCalls.score` (one call: worker processes,
online scoring), so whatever a scorer does, it gives scores, never a stopped, hung or
corrupted experiment:

- **Time limit** (``timeout``, default 60 s): past it the call is an error score ("timed out
  after 60 s") and the experiment goes on. A sync scorer runs on a daemon thread (one kept
  idle from an earlier call, else a new one; abandoned when late: it cannot keep the process
  alive) or in a worker process (killed when
  late); an async one on an event loop of its own (cancelled when late; a loop it blocks is
  abandoned and the next calls get a new one), so a scorer that blocks never stalls the others.
- **Isolation**: ``thread`` (the default) catches every exception a scorer raises, ``SystemExit``,
  ``KeyboardInterrupt`` it raises itself and other ``BaseException`` included; ``process``
  also runs each call in a worker process (forked, at most ``workers`` at once, reused), so a
  scorer that ends its process (``os._exit``, a crash in a C extension) or hangs holding the
  GIL costs one error score and a new worker.
- **Bounded results**: names at most 200 characters and 100 scores a call
  (:func:`evaluators.score_results`); explanations and errors cut to :data:`TEXT_CHARS` with
  the visible marker, redacted over what is kept, before anything else sees them.

The run and the case a scorer reads are read-only (:mod:`.views`), so they are shared, not copied.
"""

from __future__ import annotations

import asyncio
import collections
import contextvars
import inspect
import multiprocessing
import os
import queue
import signal
import sys
import threading
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from evaluators import NOT_SCORED, ScoreResult, SourcedScore, failed_score, score_results

from ..secrets.redact import Redactor
from ..tracing.encode import cut
from .errors import ExperimentError

#: How scorers are isolated from the experiment.
ISOLATIONS: tuple[str, ...] = ("thread", "process")
#: Seconds a scorer call may take by default.
DEFAULT_TIMEOUT = 60.0
#: Characters kept of a score's explanation and of its error (the cut is marked).
TEXT_CHARS = 16_384
#: Bytes a worker process's answer may take (100 scores of two cut texts each fit well).
_ANSWER_BYTES = 64 * 1024 * 1024


@dataclass(frozen=True)
class ScorerLimits:
    """How every scorer call is limited: ``timeout`` seconds, ``isolation`` thread or process."""

    timeout: float = DEFAULT_TIMEOUT
    isolation: str = "thread"

    def __post_init__(self) -> None:
        if not isinstance(self.timeout, (int, float)) or isinstance(self.timeout, bool) or not self.timeout > 0:
            raise ExperimentError(f"a scorer's time limit is a number of seconds > 0, not {self.timeout!r}")
        if self.isolation not in ISOLATIONS:
            raise ExperimentError(f"scorer isolation is {' or '.join(ISOLATIONS)}, not {self.isolation!r}")


def seconds(value: float) -> str:
    return f"{value:g} s"


def bounded(results: Sequence[ScoreResult], redact: Redactor | None) -> list[ScoreResult]:
    """``results`` with each explanation and error cut to :data:`TEXT_CHARS` characters (marked;
    redacted over the kept part and the redactor's margin beyond it, before the cut)."""
    out = []
    for r in results:
        explanation, error = r.explanation, r.error
        if len(explanation) > TEXT_CHARS:
            explanation = cut(explanation, TEXT_CHARS, redact)
        if error is not None and len(error) > TEXT_CHARS:
            error = cut(error, TEXT_CHARS, redact)
        out.append(r if (explanation, error) == (r.explanation, r.error)
                   else replace(r, explanation=explanation, error=error))
    return out


def _is_async(fn: Any) -> bool:
    return inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(getattr(fn, "__call__", None))


def _results_of(name: str, fn: Callable[..., Any], run: Any, case: Any,
                redact: Redactor | None) -> list[ScoreResult]:
    """Call a sync scorer to its end (an awaitable it returns too) and make its scores: every
    exception, any ``BaseException``, is its error score."""
    try:
        result = fn(run, case)
        if inspect.isawaitable(result):
            result = asyncio.run(_awaited(result))
        return bounded(score_results(name, result), redact)
    except BaseException as exc:  # noqa: BLE001 - SystemExit, KeyboardInterrupt... raised by the scorer
        return bounded([failed_score(name, exc)], redact)


async def _awaited(awaitable: Any) -> Any:
    return await awaitable


async def _async_results(name: str, fn: Callable[..., Any], run: Any, case: Any,
                         redact: Redactor | None) -> list[ScoreResult]:
    """An async scorer's scores; every exception it raises (any ``BaseException``, caught
    here so it never reaches the loop) is its error score."""
    try:
        return bounded(score_results(name, await fn(run, case)), redact)
    except BaseException as exc:  # noqa: BLE001
        return bounded([failed_score(name, exc)], redact)


class _DaemonThreads:
    """Daemon threads that each run one job at a time and wait a while for the next, so a
    call does not pay for starting a thread (milliseconds on a busy machine). A thread still
    running a late job is busy until the job ends: the next calls get other threads. Each job
    runs in a fresh ``contextvars`` context, as on a new thread."""

    IDLE_SECONDS = 30.0

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._idle: list[queue.SimpleQueue[Callable[[], Any]]] = []

    def run(self, job: Callable[[], Any]) -> None:
        with self._lock:
            inbox = self._idle.pop() if self._idle else None
        if inbox is None:
            inbox = queue.SimpleQueue()
            threading.Thread(target=self._serve, args=(inbox,), name="harness-scorer", daemon=True).start()
        inbox.put(job)

    def _serve(self, inbox: queue.SimpleQueue[Callable[[], Any]]) -> None:
        while True:
            try:
                job = inbox.get(timeout=self.IDLE_SECONDS)
            except queue.Empty:
                with self._lock:
                    if inbox in self._idle:  # nobody handed it a job meanwhile: it ends
                        self._idle.remove(inbox)
                        return
                continue
            contextvars.Context().run(job)
            with self._lock:
                self._idle.append(inbox)


    def forget(self) -> None:
        """In a forked child: the idle threads did not come along."""
        self._lock = threading.Lock()
        self._idle = []


_threads = _DaemonThreads()
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_threads.forget)


def on_daemon_thread(loop: asyncio.AbstractEventLoop, work: Callable[[], Any]) -> asyncio.Future[Any]:
    """``work()`` on a daemon thread (one idle of :class:`_DaemonThreads`, else a new one), its
    result (or exception) as a future of ``loop``; a thread still running when the process ends
    does not keep it alive."""
    future = loop.create_future()

    def settle(outcome: tuple[bool, Any]) -> None:
        if not future.done():
            ok, value = outcome
            future.set_result(value) if ok else future.set_exception(value)

    def target() -> None:
        try:
            outcome: tuple[bool, Any] = (True, work())
        except BaseException as exc:  # noqa: BLE001 - handed to the caller
            outcome = (False, exc)
        try:
            loop.call_soon_threadsafe(settle, outcome)
        except RuntimeError:  # the caller's loop is gone: nobody waits for this any more
            pass

    _threads.run(target)
    return future


class _AsyncLane:
    """An event loop on a daemon thread where async scorers run, away from the loop that keeps
    their time: a scorer that blocks it cannot stall the time limits."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        threading.Thread(target=self.loop.run_forever, name="harness-async-scorers", daemon=True).start()

    async def responsive(self, within: float = 0.5) -> bool:
        """Whether the lane's loop still runs (a scorer may block it for good)."""
        try:
            ping = asyncio.run_coroutine_threadsafe(asyncio.sleep(0), self.loop)
            await asyncio.wait_for(asyncio.wrap_future(ping), within)
            return True
        except (TimeoutError, RuntimeError):
            return False

    def close(self) -> None:
        try:
            self.loop.call_soon_threadsafe(self.loop.stop)
        except RuntimeError:
            pass


class _Worker:
    """A worker process that calls scorers (their index in the session's list) one at a time."""

    def __init__(self, context: Any, scorers: Sequence[Any], redact: Redactor | None) -> None:
        self.conn, child = context.Pipe()
        self.process = context.Process(target=_worker_main, args=(child, scorers, redact), daemon=True,
                                       name="harness-scorer-worker")
        with warnings.catch_warnings():  # (fork with threads running: the child only calls scorers)
            warnings.simplefilter("ignore", DeprecationWarning)
            self.process.start()
        child.close()

    def call(self, index: int, run: Any, case: Any, timeout: float) -> tuple[bool, Any]:
        """(True, the pickled scores) or (False, why there are none; the worker is stopped)."""
        try:
            self.conn.send((index, run, case))
            if not self.conn.poll(timeout):
                self.stop()
                return False, f"TimeoutError: timed out after {seconds(timeout)} (its worker process was stopped)"
            return True, self.conn.recv_bytes(_ANSWER_BYTES)
        except (EOFError, OSError):
            self.process.join(5)
            code = self.process.exitcode
            how = (f"it ended its worker process (exit code {code})" if code is not None and code >= 0 else
                   f"its worker process was killed by {_signal_name(-code)}" if code is not None else
                   "its worker process stopped answering")
            self.stop()
            return False, f"the scorer did not finish: {how}"
        except Exception as exc:  # noqa: BLE001 - e.g. a run that would not pickle
            self.stop()
            return False, f"the scorer could not be called in a worker process: {type(exc).__name__}: {exc}"

    def stop(self) -> None:
        if self.process.is_alive():
            self.process.kill()
        self.process.join(5)
        self.conn.close()


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def _worker_main(conn: Any, scorers: Sequence[Any], redact: Redactor | None) -> None:
    """A worker process's loop: (index, run, case) in, the pickled scores out, until the pipe closes."""
    import pickle

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the experiment's to handle: it stops workers
    while True:
        try:
            index, run, case = conn.recv()
        except (EOFError, OSError, KeyboardInterrupt):
            return
        scorer = scorers[index]
        if _is_async(scorer.fn):
            results = asyncio.run(_async_results(scorer.name, scorer.fn, run, case, redact))
        else:
            results = _results_of(scorer.name, scorer.fn, run, case, redact)
        try:
            data = pickle.dumps(results)
        except Exception as exc:  # noqa: BLE001 - e.g. a str subclass that will not pickle
            data = pickle.dumps([failed_score(scorer.name, f"its scores could not be sent back: {exc}")])
        try:
            conn.send_bytes(data)
        except (OSError, KeyboardInterrupt):
            return


def _process_context() -> Any:
    """Fork where it is safe (Linux: no pickling, closures work); spawn elsewhere (scorers
    importable by name)."""
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if "fork" in methods and sys.platform.startswith("linux") else "spawn")


class ScorerCalls:
    """A session of scorer calls (one experiment's or one rescore's): holds the async lane and
    the worker processes, which :meth:`close` ends. :meth:`score` is the one way a scorer is
    called; it never raises for what a scorer does."""

    def __init__(self, scorers: Sequence[Any], limits: ScorerLimits | None = None, *,
                 redact: Redactor | None = None, workers: int = 4) -> None:
        self.scorers = list(scorers)
        self.limits = limits or ScorerLimits()
        self.redact = redact
        self.size = max(1, workers)
        self._index = {id(s): i for i, s in enumerate(self.scorers)}
        self._lane: _AsyncLane | None = None
        self._lock = threading.Lock()
        self._idle: list[_Worker] = []
        self._live: set[_Worker] = set()
        self._slots: asyncio.Semaphore | None = None
        self._slots_loop: asyncio.AbstractEventLoop | None = None
        self._context = _process_context() if self.limits.isolation == "process" else None
        self._running: dict[asyncio.Task[Any], asyncio.AbstractEventLoop] = {}
        self._batches: set[_Batch] = set()
        self.closed = False

    # --- the one call -------------------------------------------------------------------
    async def score(self, scorer: Any, run: Any, case: Any) -> list[SourcedScore]:
        """``scorer(run, case)`` under the limits, as its scores (source ``code``): what it
        returned, or one error score saying why it gave none (raised, timed out, ended its
        process)."""
        timeout = self.limits.timeout
        task = asyncio.current_task()
        with self._lock:
            if self.closed:  # stopped (Ctrl-C): its place stays held, never a guess
                return [SourcedScore(failed_score(scorer.name, NOT_SCORED), getattr(scorer, "source", "code"),
                                     scorer.spec)]
            self._running[task] = asyncio.get_running_loop()
        try:
            if self.limits.isolation == "process":
                results = await self._in_worker(scorer, run, case, timeout)
            elif _is_async(scorer.fn):
                results = await self._on_lane(scorer, run, case, timeout)
            else:
                work = on_daemon_thread(asyncio.get_running_loop(),
                                         lambda: _results_of(scorer.name, scorer.fn, run, case, self.redact))
                try:
                    results = await asyncio.wait_for(work, timeout)
                except TimeoutError:
                    results = [self._late(scorer, "its thread was left to finish on its own")]
        except asyncio.CancelledError:
            if not self.closed:
                raise
            results = [failed_score(scorer.name, NOT_SCORED)]  # cancelled by close(): left unscored
        except Exception as exc:  # noqa: BLE001 - a failure of the calling itself is the score's error too
            results = bounded([failed_score(scorer.name, exc)], self.redact)
        finally:
            with self._lock:
                self._running.pop(task, None)
        return _sourced(scorer, results)

    def score_all(self, work: Sequence[tuple[Any, Any, Any]], concurrency: int) -> list[list[SourcedScore]]:
        """``scorer(run, case)`` for each ``(scorer, run, case)`` of ``work``, at most
        ``concurrency`` at once, under the limits (as :meth:`score`): their scores, in order.

        With thread isolation the calls run on daemon threads that each take the next call
        when one ends, and this thread only keeps their time (it wakes when a call is due or
        all are done): a call costs no event-loop round trip, and a late one is abandoned with
        its thread while the rest go on. Ctrl-C here stops the batch (calls not started are
        never started) and is raised."""
        if self.limits.isolation != "thread":
            raise ExperimentError("score_all calls scorers on threads: with process isolation, call score")
        batch = _Batch(self, work)
        with self._lock:
            if self.closed:
                return [_sourced(s, [failed_score(s.name, NOT_SCORED)]) for s, _, _ in work]
            self._batches.add(batch)
        try:
            batch.run(max(1, concurrency))
        except BaseException:
            batch.stop()
            raise
        finally:
            with self._lock:
                self._batches.discard(batch)
        return [_sourced(scorer, results) for (scorer, _, _), results in zip(work, batch.results)]

    def _late(self, scorer: Any, what: str) -> ScoreResult:
        return failed_score(scorer.name, f"TimeoutError: timed out after {seconds(self.limits.timeout)} ({what})")

    async def _on_lane(self, scorer: Any, run: Any, case: Any, timeout: float) -> list[ScoreResult]:
        with self._lock:
            if self._lane is None:
                self._lane = _AsyncLane()
            lane = self._lane
        call = asyncio.run_coroutine_threadsafe(_async_results(scorer.name, scorer.fn, run, case, self.redact),
                                                lane.loop)
        try:
            return await asyncio.wait_for(asyncio.wrap_future(call), timeout)
        except TimeoutError:
            call.cancel()
            if await lane.responsive():
                return [self._late(scorer, "it was cancelled")]
            with self._lock:  # it blocks its loop: the next calls get a loop of their own
                if self._lane is lane:
                    self._lane = None
            return [self._late(scorer, "it blocked its event loop, which was left to finish on its own")]

    async def _in_worker(self, scorer: Any, run: Any, case: Any, timeout: float) -> list[ScoreResult]:
        import pickle

        loop = asyncio.get_running_loop()
        if self._slots is None or self._slots_loop is not loop:
            self._slots, self._slots_loop = asyncio.Semaphore(self.size), loop
        index = self._index.get(id(scorer))
        if index is None:
            raise ExperimentError(f"scorer {scorer.name!r} is not one of this session's")
        async with self._slots:
            worker = self._take()
            ok, answer = await on_daemon_thread(loop, lambda: worker.call(index, run, case, timeout))
            if not ok:
                with self._lock:
                    self._live.discard(worker)
                return bounded([failed_score(scorer.name, answer)], self.redact)
            with self._lock:
                if self.closed:
                    worker.stop()
                else:
                    self._idle.append(worker)
            return pickle.loads(answer)

    def _take(self) -> _Worker:
        with self._lock:
            if self.closed:
                raise ExperimentError("the scoring session is closed")
            if self._idle:
                return self._idle.pop()
            worker = _Worker(self._context, self.scorers, self.redact)
            self._live.add(worker)
            return worker

    def close(self) -> None:
        """End the session: calls still waiting end at once with the score :data:`NOT_SCORED`
        (so is any later call), worker processes are stopped (one still working is killed),
        the async lane's loop stops. A thread still running a late sync scorer is left to end
        on its own (a daemon: it does not keep the process alive)."""
        with self._lock:
            self.closed = True
            workers, self._idle, self._live = list(self._live), [], set()
            lane, self._lane = self._lane, None
            running, self._running = dict(self._running), {}
            batches, self._batches = list(self._batches), set()
        for batch in batches:  # each batch ends now: what has not ended is NOT_SCORED
            batch.stop()
        for task, loop in running.items():  # each call still waiting ends now, its score NOT_SCORED
            _cancel(task, loop)
        for worker in workers:
            worker.stop()
        if lane is not None:
            lane.close()

    def __enter__(self) -> ScorerCalls:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def _sourced(scorer: Any, results: Sequence[ScoreResult]) -> list[SourcedScore]:
    """A call's results as its scorer's scores (source ``code`` unless it says otherwise), in
    the direction a scorer's attribute declares."""
    directed = getattr(scorer, "directed", None)
    return [SourcedScore(directed(r) if directed else r, getattr(scorer, "source", "code"), scorer.spec)
            for r in results]


class _Runner:
    """One daemon thread of a batch: the call it runs now (its index in the batch, since when;
    for an async scorer, its task and the runner's own event loop), how many calls it has
    ended, and whether the batch gave up on it (its call was late)."""

    __slots__ = ("job", "started", "task", "loop", "ended", "abandoned", "asyncio_runner")

    def __init__(self) -> None:
        self.job: int | None = None
        self.started = 0.0
        self.task: asyncio.Task[Any] | None = None
        self.loop: asyncio.AbstractEventLoop | None = None
        self.ended = 0
        self.abandoned = False
        self.asyncio_runner: asyncio.Runner | None = None


#: Seconds a call runs, while every runner is in one and calls are waiting, before another
#: runner joins the batch (up to its concurrency). Quick scorers then share one thread
#: (threads that only take turns holding the GIL cost more than they give: 600 cheap calls in
#: batches of 75 took 37 ms of CPU on 8 threads, 10 ms on one), while scorers that wait on a
#: model or the network soon have every thread they may use.
JOIN_AFTER = 0.002


class _Batch:
    """Calls of one :meth:`ScorerCalls.score_all` with thread isolation: runners take the next
    call from a queue and run it to its end (an async scorer on the runner's own event loop);
    the caller's thread keeps each call's time limit and brings more runners when calls are
    slow (:meth:`run`)."""

    def __init__(self, calls: ScorerCalls, work: Sequence[tuple[Any, Any, Any]]) -> None:
        self.calls, self.work = calls, work
        self.results: list[list[ScoreResult] | None] = [None] * len(work)
        self.left = len(work)
        self.queue = collections.deque(range(len(work)))
        self.runners: list[_Runner] = []
        self.lock = threading.Lock()
        self.woken = threading.Event()  # all done, or stopped
        self.stopped = False

    def run(self, concurrency: int) -> None:
        timeout = self.calls.limits.timeout
        self._start()  # one runner; others join while every runner is in a slow call (JOIN_AFTER)
        while True:
            late: list[tuple[_Runner, int]] = []
            join = False
            with self.lock:
                if not self.left or self.stopped:
                    break
                now, due = time.monotonic(), float("inf")
                active = [runner for runner in self.runners if not runner.abandoned]
                for runner in active:
                    if runner.job is None:
                        continue
                    if now - runner.started >= timeout:
                        runner.abandoned = True
                        late.append((runner, runner.job))
                    else:
                        due = min(due, runner.started + timeout)
                if self.queue and len(active) < concurrency:
                    busy = [runner.started for runner in active if runner.job is not None]
                    # (a runner between two calls: it takes the next one; look again soon)
                    slow_from = (max(busy) if len(busy) == len(active) else now) + JOIN_AFTER
                    join = not active or now >= slow_from
                    due = min(due, slow_from)
            for runner, job in late:
                self._give_up(runner, job)
            if late:
                continue
            if join:
                self._start()
                continue
            # (no call under way: a runner is between two calls, or not started yet; look again soon)
            self.woken.wait(max(0.0, due - time.monotonic()) if due != float("inf") else 0.01)
        with self.lock:  # stopped: what has not ended is not scored, never a guess
            self.stopped = True
            for i, results in enumerate(self.results):
                if results is None:
                    self.results[i] = [failed_score(self.work[i][0].name, NOT_SCORED)]

    def stop(self) -> None:
        """No call is started any more, async calls are cancelled; :meth:`run` ends now."""
        with self.lock:
            self.stopped = True
            running = [runner for runner in self.runners if runner.task is not None]
        for runner in running:
            _cancel(runner.task, runner.loop)
        self.woken.set()

    def _give_up(self, runner: _Runner, job: int) -> None:
        """``runner``'s call is late: its score says so, another runner takes its place."""
        scorer = self.work[job][0]
        if runner.task is not None:  # an async scorer: cancelled on its loop, unless it blocks it
            ended = runner.ended
            _cancel(runner.task, runner.loop)
            deadline = time.monotonic() + 0.5
            while runner.ended == ended and time.monotonic() < deadline:
                time.sleep(0.005)
            late = self.calls._late(scorer, "it was cancelled" if runner.ended != ended else
                                    "it blocked its event loop, which was left to finish on its own")
        else:
            late = self.calls._late(scorer, "its thread was left to finish on its own")
        self._settle(job, [late])
        with self.lock:
            more = bool(self.queue) and not self.stopped
            self.runners.remove(runner)
        if more:
            self._start()

    def _settle(self, job: int, results: list[ScoreResult]) -> None:
        with self.lock:
            if self.results[job] is None:
                self.results[job] = results
                self.left -= 1
                if not self.left:
                    self.woken.set()

    def _start(self) -> None:
        runner = _Runner()
        with self.lock:
            self.runners.append(runner)
        _threads.run(lambda: self._serve(runner))

    def _serve(self, runner: _Runner) -> None:
        try:
            while True:
                with self.lock:
                    if runner.abandoned or self.stopped or not self.queue:
                        runner.job = None
                        return
                    job = runner.job = self.queue.popleft()
                    runner.started = time.monotonic()
                scorer, run, case = self.work[job]
                try:
                    results = self._call(runner, scorer, run, case)
                except BaseException as exc:  # noqa: BLE001 - a failure of the calling itself is the score's error too
                    results = bounded([failed_score(scorer.name, exc)], self.calls.redact)
                with self.lock:
                    runner.task = None
                    runner.ended += 1
                    if runner.abandoned:  # late: its score is given already
                        return
                self._settle(job, results)
        finally:
            if runner.asyncio_runner is not None:
                runner.asyncio_runner.close()

    def _call(self, runner: _Runner, scorer: Any, run: Any, case: Any) -> list[ScoreResult]:
        redact = self.calls.redact
        if not _is_async(scorer.fn):
            return contextvars.Context().run(_results_of, scorer.name, scorer.fn, run, case, redact)

        async def call() -> list[ScoreResult]:
            with self.lock:
                runner.task, runner.loop = asyncio.current_task(), asyncio.get_running_loop()
                given_up = runner.abandoned or self.stopped
            if given_up:
                return [failed_score(scorer.name, NOT_SCORED)]
            return await _async_results(scorer.name, scorer.fn, run, case, redact)

        if runner.asyncio_runner is None:
            runner.asyncio_runner = asyncio.Runner()
        return runner.asyncio_runner.run(call(), context=contextvars.Context())


def _cancel(task: asyncio.Task[Any] | None, loop: asyncio.AbstractEventLoop | None) -> None:
    """Cancel an async call's ``task`` on its ``loop``, from another thread (nothing when its
    loop has ended)."""
    if task is not None and loop is not None:
        try:
            loop.call_soon_threadsafe(task.cancel)
        except RuntimeError:  # its loop has ended
            pass
