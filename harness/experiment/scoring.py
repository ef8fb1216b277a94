"""Scoring recorded runs: a user's scorers over an experiment's runs, read back from the store.

Every scorer sees the same thing whether it runs as part of an experiment or later
(:func:`rescore`): a :class:`RunSnapshot` rebuilt from the store (never the live graph, which
is neither imported nor run again) and the run's :class:`~harness.Case`, rebuilt from what the
run recorded of it (``runs.inputs`` and ``runs.reference``). A scorer is ``fn(run, case)``,
sync or async, returning a number, a bool, a :class:`harness.Score` or a dict of name -> those
(:func:`evaluators.score_results`). Scorers run at a bounded concurrency, a few hundred runs at
a time (memory stays flat however many runs there are); their scores and the runs' pass
(:func:`evaluators.run_passed`) are written per batch in one transaction each.
"""

from __future__ import annotations

import asyncio
import dataclasses
import importlib
import sys
import threading
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evaluators import MAX_NAME_CHARS as _MAX_NAME_CHARS
from evaluators import (
    NOT_SCORED,
    ScoreResult,
    SourcedScore,
    observed_trajectory,
    run_passed,
)

from ..schema import sheet as sheet_named
from ..store import StoreBusy
from ..tracing.record import now_iso, score_key, score_row
from ..secrets.names import UnsafeName, check_name
from ..secrets.redact import Redactor, host_redactor
from ..tracing.rows import NODE_START, redact_rows
from .answer import answer_of
from .dataset import Case
from .errors import ExperimentError
from .loop import in_own_loop
from .scorer_call import ScorerCalls, ScorerLimits
from .selection import RunSelection
from .versions import scorer_version
from .views import read_only, read_only_json

#: Runs read, scored and written at a time.
BATCH_RUNS = 200
_RUN_COLUMNS = ("run_id", "status", "error", "experiment", "case_id", "repeat_index", "total_time_ms",
                "total_tokens", "total_cost", "inputs", "outputs", "reference")
_TOOL_COLUMNS = ("run_id", "tool_name", "tool_input", "tool_output", "status", "error", "agent_name", "node")
_LLM_COLUMNS = ("run_id", "model", "prompt_tokens", "completion_tokens", "total_tokens", "total_cost", "status",
                "agent_name")
_EVENT_COLUMNS = ("run_id", "event_kind", "event_type", "event_name", "node", "subgraph_depth", "langgraph_step",
                  "timestamp")
#: The events a trajectory is made of (:func:`evaluators.observed_trajectory`): the top-level
#: graph's node starts, chosen in the store (a run's other events are not read).
_TRAJECTORY_ROWS = {"event_kind": "node", "event_type": NODE_START, "subgraph_depth": 0}


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One tool call of a run, as recorded."""

    name: str
    args: Any
    output: Any
    status: str  # "ok" or "fail"
    agent: str | None
    error: str | None = None


@dataclass(frozen=True, slots=True)
class LLMCall:
    """One model call of a run, as recorded."""

    model: str | None
    prompt_tokens: int | None
    completion_tokens: int | None
    total_tokens: int | None
    cost: float | None
    status: str | None
    agent: str | None = None


@dataclass(frozen=True, slots=True)
class RunSnapshot:
    """A recorded run as a scorer reads it (read-only).

    ``inputs``/``outputs``: what the graph was given and returned (JSON data; messages as
    dicts with ``type`` and ``content``); ``answer``: the answer text in the outputs (at the
    case's ``answer_path``, else the last AI message, else the output as text);
    ``trajectory``: the top-level node visits in order; ``messages``: the output's messages;
    ``tool_calls`` and ``llm_calls`` in the order they ended."""

    run_id: str
    status: str | None
    error: str | None
    inputs: Any
    outputs: Any
    answer: str | None
    tool_calls: tuple[ToolCall, ...]
    trajectory: tuple[str, ...]
    messages: tuple[Any, ...]
    llm_calls: tuple[LLMCall, ...]
    total_tokens: int | None
    latency_ms: float | None
    cost: float | None = None
    experiment: str | None = None
    case_id: str | None = None
    repeat_index: int | None = None


@dataclass(frozen=True)
class Scorer:
    """A user's scorer: the function, the name its scores take (the function's, unless it
    returns names of its own) and where it came from (``module:function``)."""

    fn: Callable[[RunSnapshot, Case], Any]
    name: str
    spec: str
    source: str = "code"  # "llm" for a judge: its function's score_source attribute says so
    _: dataclasses.KW_ONLY  # what a scorer gains later is named where it is made
    higher_is_better: bool | None = None  # the function's ``higher_is_better`` attribute
    version: str = ""  # its version (harness.experiment.versions): with run and name, a score's key online

    @classmethod
    def of(cls, fn: Any) -> Scorer:
        if isinstance(fn, Scorer):
            return fn
        if not callable(fn):
            raise ExperimentError(f"a scorer is a function of (run, case), not {type(fn).__name__}")
        name = getattr(fn, "score_name", None) or getattr(fn, "__name__", None) or type(fn).__name__
        module = getattr(fn, "__module__", None) or "?"
        qualified = getattr(fn, "__qualname__", None) or name
        source = getattr(fn, "score_source", None)
        if source not in (None, "code", "llm"):
            raise ExperimentError(f"scorer {name}: score_source is 'code' or 'llm' (a judge), not {source!r}")
        try:
            version = scorer_version(fn)
        except ValueError as exc:
            raise ExperimentError(f"scorer {name}: {exc}") from None
        direction = getattr(fn, "higher_is_better", None)
        return cls(fn, str(name), f"{module}:{qualified}", source or "code",
                   higher_is_better=direction if isinstance(direction, bool) else None, version=version)

    def directed(self, result: ScoreResult) -> ScoreResult:
        """``result`` with the scorer's direction where the score did not say its own."""
        if self.higher_is_better is None or result.higher_is_better is not None:
            return result
        return dataclasses.replace(result, higher_is_better=self.higher_is_better)


def load_scorer(spec: str) -> Scorer:
    """``module:function`` (the module found from the working directory first, as Python
    would run it); :class:`ExperimentError` with one line when it cannot be loaded."""
    scorer = Scorer.of(load_function(spec))
    return dataclasses.replace(scorer, spec=spec)


def load_function(spec: str, option: str = "--scorer", example: str = "my_scorers:under_50_words") -> Any:
    """The object ``module:attribute`` names (the module found from the working directory
    first); :class:`ExperimentError` naming ``option`` when it cannot be loaded."""
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        raise ExperimentError(f"{option} is MODULE:FUNCTION (e.g. {example}), not {spec!r}")
    here = str(Path.cwd())
    if here not in sys.path:
        sys.path.insert(0, here)
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ExperimentError(f"{option} {spec}: cannot import {module_name!r} ({exc})") from None
    except Exception as exc:  # noqa: BLE001 - the user's module failed while importing
        raise ExperimentError(f"{option} {spec}: importing {module_name!r} failed: {type(exc).__name__}: {exc}") from None
    value: Any = module
    for part in attr.split("."):
        value = getattr(value, part, None)
        if value is None:
            raise ExperimentError(f"{option} {spec}: {module_name!r} has no {attr!r}")
    return value


def scorers_of(given: Iterable[Any] | None) -> list[Scorer]:
    """Scorers from functions, :class:`Scorer` or ``module:function`` texts, their names distinct."""
    out = [load_scorer(s) if isinstance(s, str) else Scorer.of(s) for s in given or ()]
    names = [s.name for s in out]
    for name in names:
        safe_score_name(name)
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise ExperimentError(f"two scorers are named {twice[0]!r}: give one of them a score_name attribute or "
                              "return harness.Score(..., name=...)")
    return out


# --- snapshots from the store --------------------------------------------------------------

def case_of(run: Mapping[str, Any]) -> Case:
    """The dataset case a run recorded (its input and its reference fields)."""
    ref = run.get("reference") if isinstance(run.get("reference"), Mapping) else {}

    def names(key: str) -> tuple[str, ...] | None:
        value = ref.get(key)
        return tuple(str(v) for v in value) if isinstance(value, list) else None

    turns = None
    if isinstance(ref.get("turns"), list):  # a multi-turn case's conversation
        from .dataset import DatasetError, _turns

        def fail(key: str, problem: str) -> DatasetError:
            return DatasetError(f"runs.reference: {key}: {problem}")

        try:
            turns = _turns(ref["turns"], fail)
        except DatasetError:
            turns = None
    return Case(id=str(run.get("case_id") or run["run_id"]), input=read_only(run.get("inputs")), turns=turns,
                expected_tools=names("expected_tools"), reference_trajectory=names("reference_trajectory"),
                reference_answer=read_only(ref.get("reference_answer")), answer_check=ref.get("answer_check"),
                tolerance=ref.get("tolerance"), threshold=ref.get("threshold"),
                require_tools=bool(ref.get("require_tools")), answer_path=ref.get("answer_path"),
                subject=ref.get("subject"), metadata=read_only(ref.get("metadata")))


def snapshots(store: Any, run_ids: Sequence[str]) -> Iterator[tuple[RunSnapshot, Case]]:
    """Each run of ``run_ids`` the store has, with its case, in that order, read a batch at a time."""
    for start in range(0, len(run_ids), BATCH_RUNS):
        chunk = list(run_ids[start:start + BATCH_RUNS])
        runs = {r["run_id"]: r for r in _read_only_rows(store, "runs", chunk, _RUN_COLUMNS)}
        tools = _grouped(_read_only_rows(store, "tool_calls", chunk, _TOOL_COLUMNS))
        llm = _grouped(store.rows("llm_calls", chunk, columns=_LLM_COLUMNS))
        events = _grouped(store.rows("langgraph_events", chunk, columns=_EVENT_COLUMNS, where=_TRAJECTORY_ROWS))
        for run_id in chunk:
            run = runs.get(run_id)
            if run is not None:
                case = case_of(run)
                yield _snapshot(run, case, tools.get(run_id, []), llm.get(run_id, []), events.get(run_id, [])), case


def _read_only_rows(store: Any, sheet: str, run_ids: Sequence[str], columns: Sequence[str]) -> Iterator[dict[str, Any]]:
    """Rows of ``sheet`` with their JSON cells as read-only data (:func:`.views.read_only_json`)."""
    s = sheet_named(sheet)
    json_columns = [name for name in columns if s.column(name).kind == "json"]
    for row in store.rows(sheet, run_ids, columns=columns, decode_json=False):
        for name in json_columns:
            row[name] = read_only_json(row[name])
        yield row


def _grouped(rows: Iterable[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        out[row["run_id"]].append(row)
    return out


def _snapshot(run: Mapping[str, Any], case: Case, tools: list[dict[str, Any]], llm: list[dict[str, Any]],
              events: list[dict[str, Any]]) -> RunSnapshot:
    """The run as its scorers read it: built once, shared by them all, so read-only (:mod:`.views`)."""
    outputs = read_only(run.get("outputs"))
    messages = outputs.get("messages") if isinstance(outputs, Mapping) else None
    try:
        trajectory = tuple(observed_trajectory(events))
    except ValueError:  # rows without the fields a trajectory needs (an old store)
        trajectory = ()
    completed = run.get("status") == "completed" and outputs is not None
    return RunSnapshot(
        run_id=run["run_id"], status=run.get("status"), error=run.get("error"), inputs=read_only(run.get("inputs")),
        outputs=outputs, answer=answer_of(outputs, case.answer_path) if completed else None,
        tool_calls=tuple(ToolCall(t["tool_name"], read_only(t["tool_input"]), read_only(t["tool_output"]),
                                  t["status"], t.get("agent_name"), t.get("error")) for t in tools),
        trajectory=trajectory, messages=tuple(messages) if isinstance(messages, list) else (),
        llm_calls=tuple(LLMCall(c["model"], c["prompt_tokens"], c["completion_tokens"], c["total_tokens"],
                                c["total_cost"], c["status"], c.get("agent_name")) for c in llm),
        total_tokens=run.get("total_tokens"), latency_ms=run.get("total_time_ms"), cost=run.get("total_cost"),
        experiment=run.get("experiment"), case_id=run.get("case_id"), repeat_index=run.get("repeat_index"),
    )


# --- scoring ---------------------------------------------------------------------------------

@dataclass
class ScoringSummary:
    """What a scoring pass did: runs scored, scores written, scores that could not be made
    (``failed``; per scorer in ``errored``; the first few errors in ``errors``), names refused
    because the run already had a score of that name, and, when it was interrupted, the runs
    it did not score (``not_scored``)."""

    runs: int = 0
    scores: int = 0
    failed: int = 0
    errors: list[str] = field(default_factory=list)
    refused: dict[str, int] = field(default_factory=dict)
    errored: dict[str, int] = field(default_factory=dict)
    not_scored: int = 0

    def errors_line(self) -> str | None:
        """``N score(s) could not be made: NAME N, ...`` (per scorer), or None when all were made."""
        if not self.failed:
            return None
        per = ", ".join(f"{name} {count}" for name, count in sorted(self.errored.items(), key=lambda kv: -kv[1]))
        return f"{self.failed} score(s) could not be made: {per}"


class Interrupted(KeyboardInterrupt):
    """Ctrl-C while scoring: what is stored stays; the text says what was not scored."""


def _run_scorers(pairs: list[tuple[Any, Any]], scorers: Sequence[Scorer], concurrency: int,
                 calls: ScorerCalls) -> list[list[tuple[Scorer, list[SourcedScore]]]]:
    if calls.limits.isolation == "thread":
        # Scorer by scorer (each on every run): the calls of a quick scorer are not queued
        # behind a slow or hung one's (as when each run asks for its next scorer when one ends).
        work = [(scorer, run, case) for scorer in scorers for run, case in pairs]
        scored = calls.score_all(work, concurrency)
        return [[(scorer, scored[j * len(pairs) + i]) for j, scorer in enumerate(scorers)]
                for i in range(len(pairs))]

    async def main() -> list[list[tuple[Scorer, list[SourcedScore]]]]:  # each call in a worker process
        gate = asyncio.Semaphore(concurrency)

        async def one(run: Any, case: Any) -> list[tuple[Scorer, list[SourcedScore]]]:
            out = []
            for scorer in scorers:
                async with gate:
                    out.append((scorer, await calls.score(scorer, run, case)))
            return out

        return await asyncio.gather(*(one(run, case) for run, case in pairs))

    return in_own_loop(main())


def call_scorers(pairs: list[tuple[Any, Any]], scorers: Sequence[Scorer], concurrency: int,
                 calls: ScorerCalls) -> list[list[tuple[Scorer, list[SourcedScore]]]]:
    """Every scorer on every (subject, case) pair -- a run and its case, or a thread and its
    case (:mod:`.threads`) -- at most ``concurrency`` at once, each call through ``calls``
    (its time limit and isolation): the one engine that calls scorers."""
    return _run_scorers(pairs, scorers, concurrency, calls)


def score_runs(store: Any, run_ids: Sequence[str], scorers: Sequence[Scorer], *, concurrency: int = 4,
               replace: bool = False, summary: ScoringSummary | None = None,
               redact: Redactor | None = None, limits: ScorerLimits | None = None,
               calls: ScorerCalls | None = None) -> ScoringSummary:
    """Score the runs ``run_ids`` with ``scorers`` (see the module doc) and write their scores
    and pass. Without ``replace``, a score of a name a run already has is not written (it is
    counted in ``refused``); with it, it replaces the old one. ``summary``: added to.
    ``redact``: the harness's redactor, which scrubs what a scorer said (its explanation, its
    error) before it is stored, as every other text of a run is (default: the rules and this
    process's environment). ``limits``: each call's time limit and isolation
    (:class:`~.scorer_call.ScorerLimits`), or ``calls``, a session of them to use. Ctrl-C
    stops it: the batches written stay, and :class:`Interrupted` says how many runs were not scored."""
    if concurrency < 1:
        raise ExperimentError("concurrency must be at least 1")
    summary = summary if summary is not None else ScoringSummary()
    redact = redact or host_redactor(())
    session = calls or ScorerCalls(scorers, limits, redact=redact, workers=concurrency)
    batch: list[tuple[RunSnapshot, Case]] = []
    done = 0

    def flush() -> None:
        nonlocal done
        results = call_scorers(batch, scorers, concurrency, session)
        _write(store, batch, results, replace, summary, redact)
        done += len(batch)
        batch.clear()

    try:
        for pair in snapshots(store, run_ids):
            batch.append(pair)
            if len(batch) >= BATCH_RUNS:
                flush()
        if batch:
            flush()
    except KeyboardInterrupt:
        summary.not_scored += len(run_ids) - done
        raise Interrupted(f"interrupted: {done} of {len(run_ids)} run(s) scored and stored, "
                          f"{len(run_ids) - done} not scored") from None
    finally:
        if calls is None:
            session.close()
    return summary


def _write(store: Any, batch: list[tuple[RunSnapshot, Case]],
           results: list[list[tuple[Scorer, list[SourcedScore]]]], replace: bool,
           summary: ScoringSummary, redact: Redactor) -> None:
    ids = [run.run_id for run, _ in batch]
    had = set() if replace else {(r["run_id"], r["name"])  # what a score may not replace
                                 for r in store.rows("scores", ids, columns=["run_id", "name", "error"])
                                 if r["error"] != NOT_SCORED}  # (a scorer's place held for it, not a score)
    created = now_iso()
    # A name that holds a secret: the batch is refused before anything is stored (each name once).
    for name in {s.result.name for scored in results for _, scores in scored for s in scores}:
        safe_score_name(name, redact)
    rows, settled = [], []
    for (run, _), scored in zip(batch, results):
        summary.runs += 1
        for scorer, scores in scored:
            # The place held for the scorer under its own name (NOT_SCORED) gives way to its scores.
            for name in dict.fromkeys([scorer.name, *(s.result.name for s in scores)]):
                settled.append((run.run_id, score_key(run.run_id, name), NOT_SCORED))
            for s in scores:
                if not replace and (run.run_id, s.result.name) in had:
                    summary.refused[s.result.name] = summary.refused.get(s.result.name, 0) + 1
                    continue
                rows.append({**score_row(run.run_id, s, created), "scorer_version": scorer.version or None})
                if s.result.error == NOT_SCORED:  # stopped before it ran: its place stays held
                    summary.not_scored += 1
                elif s.result.error:
                    summary.failed += 1
                    summary.errored[scorer.name] = summary.errored.get(scorer.name, 0) + 1
                    if len(summary.errors) < 5:
                        summary.errors.append(f"{s.result.name} on run {run.run_id}: {s.result.error}")
    redact_rows(rows, redact)
    summary.scores += store.write_scores(rows, replace=replace, passed=run_passed, settled=settled)


class ScoringPipeline:
    """Scores an experiment's runs while the experiment goes on: each batch of runs handed to
    the writer is scored on a thread of its own once the writer has stored it, so scoring
    overlaps the runs that are still waiting on their models and only the last batch is left
    when the last run ends (:meth:`finish`). Every call of a scorer is limited
    (:class:`~.scorer_call.ScorerLimits`); :meth:`stop` (Ctrl-C) ends it without waiting for
    a scorer, and the runs it did not score keep their scores' places (:data:`NOT_SCORED`)."""

    def __init__(self, harness: Any, scorers: Sequence[Scorer], *, concurrency: int, replace: bool = True,
                 batch: int = 25, limits: ScorerLimits | None = None) -> None:
        self.harness, self.scorers, self.concurrency, self.replace = harness, list(scorers), concurrency, replace
        self.batch = batch
        self.summary = ScoringSummary()
        self.redact = host_redactor(harness.redact_rules)
        self.calls = ScorerCalls(self.scorers, limits, redact=self.redact, workers=concurrency)
        self._waiting: list[str] = []
        self._done = False
        self._stopped = False
        self._error: BaseException | None = None
        self._ready = threading.Condition()
        self._ended = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="harness-scoring", daemon=True)
        self._thread.start()

    def add(self, run_id: str) -> None:
        """A run has been handed to the writer (in the experiment's order)."""
        with self._ready:
            self._waiting.append(run_id)
            if len(self._waiting) >= self.batch:
                self._ready.notify()

    def finish(self) -> ScoringSummary:
        """Score what is left and return what was done (a scorer's failure is a score; a
        failure of scoring itself is raised here). Ctrl-C while it waits stops it (:meth:`stop`)."""
        with self._ready:
            self._done = True
            self._ready.notify()
        try:
            # (short waits on an event, not Thread.join: Ctrl-C is heard at once, and a join it
            # interrupts would take the thread for ended while it still writes)
            while not self._ended.wait(0.2):
                pass
        except KeyboardInterrupt:
            self.stop()
            raise
        self.calls.close()
        if self._error is not None:
            raise self._error
        return self.summary

    def stop(self, wait: float = 10.0) -> None:
        """Stop now: no further batch is scored; the scores already made are written, a call
        still running is abandoned (its score keeps its place, NOT_SCORED); worker processes
        are stopped. Waits at most ``wait`` seconds for that write."""
        with self._ready:
            self._stopped = self._done = True
            self._waiting = []
            self._ready.notify()
        self.calls.close()
        self._ended.wait(wait)

    def _loop(self) -> None:
        try:
            while True:
                with self._ready:
                    while not self._done and len(self._waiting) < self.batch:
                        self._ready.wait()
                    ids, self._waiting, last = self._waiting, [], self._done
                if self._stopped and not ids:
                    return
                if ids:
                    # The runs' rows first: the writer stores what it was handed, in order
                    # (the experiment's held runs are its own to hand on).
                    self.harness._writer.flush()
                    score_runs(self.harness.store, ids, self.scorers, concurrency=self.concurrency,
                               replace=self.replace, summary=self.summary, redact=self.redact, calls=self.calls)
                if last:
                    return
        except BaseException as exc:  # noqa: BLE001 - raised in the experiment's thread by finish()
            if not self._stopped:
                self._error = exc
        finally:
            self._ended.set()


def rescore(harness: Any, experiment: str | RunSelection | None, scorers: Iterable[Any], *, replace: bool = False,
            concurrency: int = 4, limits: ScorerLimits | None = None) -> ScoringSummary:
    """Score the runs of ``experiment`` (or of a :class:`~.selection.RunSelection`: named runs,
    a workflow's, those since a time, inside experiments or not) again with ``scorers``, from
    the store (the graph is not imported or run; no run, model call or tool call is added);
    ``runs.passed`` follows. A scorer whose name a selected run already has a score of is
    refused (the :class:`ExperimentError` names it), unless ``replace``. ``limits``: each
    call's time limit and isolation. One rescore of an experiment (or of runs outside one) at
    a time per store: another command rescoring it meanwhile is refused
    (:class:`ExperimentError`), so two never leave a mix of their scores."""
    chosen = scorers_of(scorers)
    if not chosen:
        raise ExperimentError("give at least one scorer (--scorer MODULE:FUNCTION)")
    harness.flush()
    store = harness.store
    selection = experiment if isinstance(experiment, RunSelection) else RunSelection.of(experiment)
    held = f"rescore:{selection.experiment}" if selection.experiment is not None else "rescore:runs"
    try:
        with store.exclusive(held):
            return _rescore(harness, store, selection, chosen, replace, concurrency, limits)
    except StoreBusy:
        what = (f"experiment {selection.experiment!r} is" if selection.experiment is not None
                else "runs outside experiments are")
        raise ExperimentError(f"{what} being rescored by another command; run this one again when it has "
                              "finished") from None


def _rescore(harness: Any, store: Any, selection: RunSelection, chosen: list[Scorer], replace: bool,
             concurrency: int, limits: ScorerLimits | None) -> ScoringSummary:
    run_ids = selection.run_ids(store)
    if not replace:
        taken = set()
        for start in range(0, len(run_ids), BATCH_RUNS * 5):
            taken |= {r["name"] for r in store.rows("scores", run_ids[start:start + BATCH_RUNS * 5],
                                                      columns=["name", "error"]) if r["error"] != NOT_SCORED}
        clash = sorted({s.name for s in chosen} & taken)
        if clash:
            raise ExperimentError(f"{selection.describe()} already has scores named {', '.join(map(repr, clash))}; "
                                  "give --replace to replace them")
    return score_runs(store, run_ids, chosen, concurrency=concurrency, replace=replace,
                      redact=host_redactor(harness.redact_rules), limits=limits)


# --- human labels ----------------------------------------------------------------------------

_TRUE, _FALSE = ("true", "yes", "pass", "passed"), ("false", "no", "fail", "failed")
#: The longest score name taken.
MAX_NAME_CHARS = _MAX_NAME_CHARS
#: The longest name of a person who labels.
MAX_RATER_CHARS = 100


def score_name(name: Any, kind: str = "score") -> str:
    """A score's name: a non-empty text without surrounding blanks, at most 200 characters,
    with no secret and no control or invisible character (:func:`~harness.secrets.names.check_name`)."""
    if not isinstance(name, str) or not name.strip():
        raise ValueError("a score name is a non-empty text")
    name = name.strip()
    if len(name) > MAX_NAME_CHARS:
        raise ValueError(f"a score name has at most {MAX_NAME_CHARS} characters, not {len(name):,}")
    return check_name(kind, name)


def safe_score_name(name: str, redact: Redactor | None = None) -> str:
    """``name`` if a scorer's score may take it (see :func:`score_name`; ``redact``: the
    harness's redactor, default this process's); :class:`ExperimentError` if not."""
    try:
        return check_name("score", name, redact)
    except UnsafeName as exc:
        raise ExperimentError(f"{exc}; nothing of it is stored") from None


def label_score(name: str, value: Any, comment: str | None = None) -> SourcedScore:
    """A person's label as a score: true/false (also yes/no, pass/fail) passes or fails the
    run (value 1 or 0); a number is a value that does not gate."""
    from evaluators import ScoreResult

    explanation = (comment or "").strip()
    if isinstance(value, str):
        word = value.strip().lower()
        if word in _TRUE or word in _FALSE:
            value = word in _TRUE
        else:
            try:
                value = float(word)
            except ValueError:
                raise ValueError(f"a label's value is true/false (pass/fail) or a number, not {value!r}") from None
    if isinstance(value, bool):
        return SourcedScore(ScoreResult(name, 1.0 if value else 0.0, value, explanation), "human", "harness label")
    if isinstance(value, (int, float)) and value == value and abs(value) != float("inf"):
        return SourcedScore(ScoreResult(name, float(value), None, explanation), "human", "harness label")
    raise ValueError(f"a label's value is true/false (pass/fail) or a finite number, not {value!r}")


def rater_name(by: Any) -> str | None:
    """Who gives a label: None (no name), or a one-line text of at most 100 characters."""
    if by is None:
        return None
    if not isinstance(by, str) or not by.strip():
        raise ValueError("--by names the person who labels: a non-empty text")
    by = by.strip()
    if len(by) > MAX_RATER_CHARS or any(ch < " " or "\x7f" <= ch <= "\x9f" for ch in by):
        raise ValueError(f"--by is one line of at most {MAX_RATER_CHARS} characters, not {by[:40]!r}")
    return check_name("rater", by)


def label_row(run_id: str, name: str, value: Any, *, comment: str | None = None, by: str | None = None,
              created_at: str | None = None) -> dict[str, Any]:
    """A person's label as its ``scores`` row: one per run, name and person (``by``)."""
    name, by = score_name(name, "label"), rater_name(by)
    row = score_row(run_id, label_score(name, value, comment), created_at)
    if by is not None:
        row.update(rater=by, row_key=score_key(run_id, name, by))
    return row


def label(store: Any, run: str, name: str, value: Any, *, comment: str | None = None, by: str | None = None,
          redact: Redactor | None = None) -> dict[str, Any]:
    """Write a person's label of the run ``run`` (a full id or a unique start of it) as its
    score ``name`` (source ``human``), replacing an earlier label of that name by the same
    person (``by``; labels by different people stand side by side), never a check's or a
    scorer's score; the run's pass follows. Returns the row written."""
    run_id = store.resolve_run_id(run)
    row = label_row(run_id, name, value, comment=comment, by=by)
    write_labels(store, [row], redact)
    return row


def write_labels(store: Any, rows: Sequence[dict[str, Any]], redact: Redactor | None = None) -> int:
    """Store labels (:func:`label_row`), refusing a name a run has a check's or a scorer's
    score of; the runs' pass follows."""
    ids = list(dict.fromkeys(r["run_id"] for r in rows))
    names = {(r["run_id"], r["name"]) for r in rows}
    for start in range(0, len(ids), BATCH_RUNS):
        for found in store.rows("scores", ids[start:start + BATCH_RUNS], columns=["run_id", "name", "source"]):
            if (found["run_id"], found["name"]) in names and found["source"] != "human":
                raise ValueError(f"run {found['run_id']} already has a {found['source']} score named "
                                 f"{found['name']!r}; a label takes another name")
    redact_rows(list(rows), redact or host_redactor(()))  # a comment may quote what it judges
    return store.write_scores(rows, replace=True, passed=run_passed)


def delete_scores(store: Any, selection: RunSelection, names: Iterable[str]) -> tuple[int, int]:
    """Delete the scores named ``names`` of the selected runs; each run's pass follows
    (:func:`evaluators.run_passed`). Returns (scores deleted, runs selected);
    :class:`ExperimentError` when no selected run has a score of those names."""
    wanted = [score_name(n) for n in names]
    run_ids = selection.run_ids(store)
    deleted = store.delete_scores(run_ids, wanted, passed=run_passed)
    if not deleted:
        raise ExperimentError(f"no score named {', '.join(map(repr, wanted))} on {selection.describe()}")
    return deleted, len(run_ids)
