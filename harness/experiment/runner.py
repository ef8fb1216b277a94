"""Run a graph over a dataset's cases as a named experiment, recorded in the store.

Every (case, repeat) is one run of the harness, driven with ``ainvoke`` (LangGraph runs sync
nodes in its executor, so sync and async graphs both work) or ``invoke`` in a worker thread
(``sync=True``), at most ``concurrency`` at once. A run past ``timeout`` seconds is
cancelled and recorded ``failed`` with a ``TimeoutError``; the batch goes on. Each run has
its own callback handler and its own ``thread_id`` (unless the config names one), so no row
crosses between runs. Finished runs are written in the dataset's order (case, then
repeat), not in the order they finished.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import datetime as dt
import logging
import re
import subprocess
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from evaluators import fold_turns, pass_rate, turns_passed

from ..store import StoreError
from ..tracing.encode import run_payload
from ..tracing.record import workflow_name
from ..secrets import names as secret_names
from ..secrets.redact import host_redactor
from .answer import model_judge, score_answer
from .dataset import Case, Dataset, DatasetError, load_dataset, turn_mapping
from .errors import ExperimentError
from .loop import in_own_loop
from .scorer_call import DEFAULT_TIMEOUT, ScorerLimits
from .scoring import Interrupted, ScoringPipeline, scorers_of
from .threads import score_threads
from .turns import TurnsVerdict, asked_of, turn_case

if TYPE_CHECKING:
    import pandas as pd

logger = logging.getLogger("harness")

# The harness and its runs are typed loosely here: this module is what harness.Harness calls.
Harness = Run = Any


#: Characters of an experiment's name: it is a key in every row of its runs, and printed.
MAX_NAME_CHARS = 200
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")


def check_name(name: str) -> str:
    """``name`` if it can name an experiment: a text that is not blank, holds no control
    character (it is one line wherever it is shown) and has at most
    :data:`MAX_NAME_CHARS` characters; :class:`ExperimentError` otherwise."""
    if not isinstance(name, str) or not name.strip():
        raise ExperimentError(f"an experiment name must be a text that is not blank, not {name!r}")
    if len(name) > MAX_NAME_CHARS:
        raise ExperimentError(f"an experiment name has at most {MAX_NAME_CHARS} characters, not {len(name):,} "
                              f"({name[:40]!r}…)")
    if _CONTROL.search(name):
        raise ExperimentError(f"an experiment name holds no control character (tab, newline, escape ...), "
                              f"not {name!r}")
    try:
        return secret_names.check_name("experiment", name)
    except secret_names.UnsafeName as exc:
        raise ExperimentError(str(exc)) from None


@dataclass
class Experiment:
    """A finished experiment: its name, its runs (dataset order) and a summary per case."""

    harness: Harness
    name: str
    run_ids: list[str] = field(default_factory=list)
    #: what the experiment's scorers did (runs and scores written, failures), when it had any
    scoring: Any = None
    #: what its thread scorers did (``runs`` counts threads), when it had any
    thread_scoring: Any = None

    def summary(self) -> pd.DataFrame:
        """One row per case: ``runs``, ``pass_rate`` (over its runs that have a pass,
        ``runs_with_pass`` of them), ``failed_runs`` (runs that did not complete) and the means
        of answer score, tool F1, trajectory match, latency, tokens and cost."""
        return case_summary(self.harness, self.name)

    def __repr__(self) -> str:
        return f"Experiment({self.name!r}, runs={len(self.run_ids)})"


def default_name(target: str) -> str:
    """``<attr>-<UTC time>``: the graph's attribute name and when the experiment started."""
    attr = target.rsplit(":", 1)[-1].rsplit(".", 1)[-1] or "experiment"
    return f"{attr}-{dt.datetime.now(dt.timezone.utc).strftime('%Y%m%dT%H%M%SZ')}"


def git_commit(cwd: str | None = None) -> tuple[str | None, bool | None]:
    """The commit of the working directory's repository and whether it has uncommitted changes."""
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=cwd, capture_output=True, text=True, timeout=5)
        if head.returncode != 0:
            return None, None
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=cwd,
                               capture_output=True, text=True, timeout=5)
        return head.stdout.strip(), bool(dirty.stdout.strip()) if dirty.returncode == 0 else None
    except (OSError, subprocess.SubprocessError):
        return None, None


def parse_shard(text: str | None) -> tuple[int, int] | None:
    """``K/N`` -> (K, N) with 0 <= K < N."""
    if text is None:
        return None
    k, sep, n = text.partition("/")
    try:
        shard, shards = int(k), int(n)
    except ValueError:
        shard = shards = -1
    if not sep or shards < 1 or not 0 <= shard < shards:
        raise ExperimentError(f"--shard is K/N with 0 <= K < N (e.g. 0/4), not {text!r}")
    return shard, shards


def run_experiment(harness: Harness, graph: Any, dataset: Dataset | Any, *, name: str, target: str,
                   **options: Any) -> Experiment:
    """Run the experiment ``name`` to the end (see the module and :func:`run_cases`)."""
    scored: list[Any] = []
    threads: list[Any] = []
    runs = run_cases(harness, graph, dataset, name=name, target=target, on_scored=scored.append,
                     on_threads_scored=threads.append, **options)
    for summary in (*scored, *threads):
        if summary.failed:  # said where a script's output goes, as the CLI says it
            logger.warning("harness: experiment %r: %s (the runs and every other score are stored)", name,
                           summary.errors_line())
    return Experiment(harness, name, [run.run_id for run in runs], scored[0] if scored else None,
                      threads[0] if threads else None)


def run_cases(harness: Harness, graph: Any, dataset: Dataset | Any, *, name: str | None, target: str,
              repeats: int = 1, concurrency: int = 4, timeout: float | None = None,
              config: Mapping[str, Any] | None = None, context: Any = None, sync: bool = False,
              append: bool = False, shard: tuple[int, int] | None = None, judge: Any = None,
              scorers: Sequence[Any] = (), workflow: str | None = None, on_done: Callable[[Run], None] | None = None,
              on_scored: Callable[[Any], None] | None = None, thread_scorers: Sequence[Any] = (),
              on_threads_scored: Callable[[Any], None] | None = None, scorer_timeout: float = DEFAULT_TIMEOUT,
              scorer_isolation: str = "thread") -> list[Run]:
    """Run every case ``repeats`` times and return the runs in dataset order, every one
    written. With a ``name`` the runs form that experiment (recorded, with their checks and
    pass, then scored by ``scorers``: see :mod:`.scoring`); without, they are plain runs.
    Each scorer call, and a case's semantic or judge answer check, is limited to
    ``scorer_timeout`` seconds; ``scorer_isolation`` is ``thread`` or ``process``
    (:mod:`.scorer_call`). Their workflow is named by
    :func:`~harness.tracing.record.workflow_name`: ``workflow``, else the graph's own name,
    else the attribute of ``target`` (``module:ATTR``). From inside a running event loop (a
    notebook) the runs go on a thread of their own. Raises :class:`ExperimentError` or :class:`DatasetError` before any
    run starts when it cannot run; Ctrl-C raises :class:`~.scoring.Interrupted` (a
    ``KeyboardInterrupt``) saying what was stored and what was not scored."""
    if name is not None:
        check_name(name)
    limits = ScorerLimits(scorer_timeout, scorer_isolation)
    chosen = scorers_of(scorers)
    chosen_threads = scorers_of(thread_scorers)
    if (chosen or chosen_threads) and name is None:
        raise ExperimentError("scorers score the runs of an experiment: give it a name")
    data = dataset if isinstance(dataset, Dataset) else load_dataset(dataset)
    if repeats < 1 or concurrency < 1:
        raise ExperimentError("repeats and concurrency must be at least 1")
    if timeout is not None and not timeout > 0:
        raise ExperimentError(f"timeout must be a number of seconds > 0, not {timeout!r}")
    if not hasattr(graph, "invoke" if sync else "ainvoke"):
        raise ExperimentError(f"{target} is not a runnable graph (no {'invoke' if sync else 'ainvoke'})")
    grader = judge if judge is None or not hasattr(judge, "invoke") else model_judge(judge)
    if name is not None and grader is None and any(c.answer_check == "judge" for c in data.cases):
        raise ExperimentError("cases use answer_check 'judge': give a judge (a chat model)")
    cases = [c for i, c in enumerate(data.cases) if shard is None or i % shard[1] == shard[0]]
    if any(c.turns for c in cases):
        graph = with_checkpointer(graph, target)
    store = harness.store
    have: dict[str, int] = {}
    record: dict[str, Any] = {}
    if name is not None:
        harness.flush()
        try:
            known = store.experiment_record(name)
            have = _repeats_stored(store, name)
        except StoreError as exc:  # an experiment starts only where its name can be checked and recorded
            raise ExperimentError(f"experiment {name!r} cannot start: {exc}") from None
        if (known is not None or have) and not append and not _another_shard(known, shard, data):
            raise ExperimentError(f"experiment {name!r} already exists in the store; choose another name or append to it")
        record = dict(known or {})
        record.update(name=name, target=target, dataset=data.path, dataset_sha256=data.sha256, cases=len(data.cases),
                      repeats=repeats, started_at=record.get("started_at") or dt.datetime.now(dt.timezone.utc).isoformat())
        if shard is not None:
            record["shards"] = sorted({*map(tuple, record.get("shards") or []), shard})
        store.save_experiment(name, record)
    jobs = [(case, have.get(case.id, 0) + r) for case in cases for r in range(repeats)]
    named = workflow_name(workflow, getattr(graph, "name", None), target.rsplit(":", 1)[-1] if ":" in target else None)
    commit = None
    # Scored while the runs go, a batch at a time, as the writer stores them (a scorer named
    # like a built-in check, e.g. tool_f1(require=True), replaces that check's score).
    scoring = ScoringPipeline(harness, chosen, concurrency=concurrency, limits=limits) if chosen else None
    on_written = scoring.add if scoring is not None else None
    pending = tuple((s.name, s.spec) for s in chosen)  # each run holds its scorers' places until they run
    try:
        with contextlib.ExitStack() as stack:
            if name is not None:  # read while the runs go
                commit = stack.enter_context(concurrent.futures.ThreadPoolExecutor(1)).submit(git_commit)
            runs = in_own_loop(_run_all(harness, graph, jobs, name=name, workflow=named,
                                        concurrency=concurrency, timeout=timeout, config=dict(config or {}),
                                        context=context, sync=sync, judge=grader, on_done=on_done,
                                        on_written=on_written, pending=pending, check_timeout=limits.timeout))
        harness.flush()
        summary = scoring.finish() if scoring is not None else None  # (Ctrl-C in it stops it)
    except KeyboardInterrupt:
        if scoring is not None:
            scoring.stop()
        raise Interrupted(_interrupted(harness, name)) from None
    except BaseException:
        if scoring is not None:  # the runs stored are scored still; the failure is the experiment's
            with contextlib.suppress(Exception):
                scoring.finish()
        raise
    if summary is not None and on_scored is not None:
        on_scored(summary)
    if chosen_threads:  # each case's thread (one per case and repeat), scored whole once its turns are stored
        threads = list(dict.fromkeys(r["thread_id"] for r in store.rows("runs", [run.run_id for run in runs],
                                                                          columns=["thread_id"])
                                     if r["thread_id"] is not None))
        scored = score_threads(store, threads, chosen_threads, concurrency=concurrency, replace=True,
                               redact=host_redactor(harness.redact_rules), limits=limits)
        if on_threads_scored is not None:
            on_threads_scored(scored)
    if name is not None:
        record["git_commit"], record["git_dirty"] = commit.result() if commit is not None else (None, None)
        try:
            latest = store.experiment_record(name) or {}  # other shards may have recorded theirs meanwhile
            shards = {*map(tuple, latest.get("shards") or []), *map(tuple, record.get("shards") or [])}
            record.update(finished_at=dt.datetime.now(dt.timezone.utc).isoformat(), models=_models(store, name),
                          **({"shards": sorted(shards)} if shards else {}))
            store.save_experiment(name, record)
        except StoreError as exc:  # the runs are spooled and written later; only the record's end is missing
            logger.warning("harness: experiment %r ran, but its record could not be completed: %s", name, exc)
    return runs


def _interrupted(harness: Harness, name: str | None) -> str:
    """The one line Ctrl-C leaves: what of the experiment is stored, and what was not scored."""
    from evaluators import NOT_SCORED

    if name is None:
        return "interrupted"
    try:
        harness.flush(timeout=10)
        ids = [r["run_id"] for r in harness.store.rows("runs", columns=["run_id"], where={"experiment": name})]
        held: dict[str, int] = {}
        for start in range(0, len(ids), 500):
            for r in harness.store.rows("scores", ids[start:start + 500], columns=["name", "error"],
                                        where={"error": NOT_SCORED}):
                held[r["name"]] = held.get(r["name"], 0) + 1
    except Exception as exc:  # noqa: BLE001 - the line says what it can
        return f"interrupted: experiment {name!r} keeps what was stored ({type(exc).__name__} reading it back)"
    line = f"interrupted: experiment {name!r} has {len(ids)} run(s) stored"
    if held:
        line += ("; not scored (stored as errors, pass unknown): "
                 + ", ".join(f"{n} on {k} run(s)" for n, k in held.items()))
    return line


def _another_shard(known: Mapping[str, Any] | None, shard: tuple[int, int] | None, data: Dataset) -> bool:
    """Whether this run is a shard of the recorded experiment that has not run yet (same
    dataset, same number of shards): workers of one experiment share its name."""
    if known is None or shard is None or known.get("dataset_sha256") != data.sha256:
        return False
    done = {tuple(s) for s in known.get("shards") or []}
    return shard not in done and all(n == shard[1] for _, n in done)


def _repeats_stored(store: Any, name: str) -> dict[str, int]:
    """Case id -> the number of its repeats the store already holds in experiment ``name`` (a
    multi-turn case's turns are one repeat)."""
    seen: dict[str, set[Any]] = {}
    for row in store.rows("runs", columns=["case_id", "repeat_index"], where={"experiment": name}):
        seen.setdefault(row["case_id"], set()).add(row["repeat_index"])
    return {case: len(repeats) for case, repeats in seen.items()}


def _models(store: Any, name: str) -> list[str]:
    """The models the experiment's runs called (``llm_calls.model``)."""
    run_ids = [r["run_id"] for r in store.rows("runs", columns=["run_id"], where={"experiment": name})]
    seen: set[str] = set()
    for start in range(0, len(run_ids), 500):
        seen.update(r["model"] for r in store.rows("llm_calls", run_ids[start:start + 500], columns=["model"])
                    if r["model"])
    return sorted(seen)


async def _run_all(harness: Harness, graph: Any, jobs: list[tuple[Case, int]], *, name: str | None,
                   workflow: str | None, concurrency: int, timeout: float | None, config: dict[str, Any], context: Any, sync: bool,
                   judge: Any, on_done: Callable[[Run], None] | None,
                   on_written: Callable[[str], None] | None = None, pending: tuple[tuple[str, str], ...] = (),
                   check_timeout: float | None = None) -> list[Run]:
    gate = asyncio.Semaphore(concurrency)
    finished: list[list[Run] | None] = [None] * len(jobs)
    written = 0

    def write_in_order() -> None:  # the finished prefix goes to the writer, in dataset order
        nonlocal written
        while written < len(finished) and finished[written] is not None:
            for run in finished[written]:  # type: ignore[union-attr]  (a multi-turn case's turns, in order)
                run.write()
                if on_written is not None:
                    on_written(run.run_id)
            written += 1

    async def one(index: int, case: Case, repeat: int) -> None:
        async with gate:
            if case.turns:
                runs = await _play_turns(harness, graph, case, repeat, name=name, workflow=workflow,
                                         timeout=timeout, config=config, context=context, sync=sync, judge=judge,
                                         pending=pending, check_timeout=check_timeout)
            else:
                runs = [await _run_case(harness, graph, case, repeat, name=name, workflow=workflow, timeout=timeout,
                                        config=config, context=context, sync=sync, judge=judge, pending=pending,
                                        check_timeout=check_timeout)]
        finished[index] = runs
        write_in_order()
        if on_done is not None:
            on_done(runs[-1])

    await asyncio.gather(*(one(i, case, repeat) for i, (case, repeat) in enumerate(jobs)))
    return [run for runs in finished if runs is not None for run in runs]


async def _invoke(run: Run, graph: Any, given: Any, *, timeout: float | None, context: Any,
                  sync: bool) -> tuple[Any, bool]:
    """One invocation of the graph under ``run``: (its output, whether it completed)."""
    kwargs = {"context": context} if context is not None else {}
    output, completed = None, False
    with contextlib.suppress(Exception):  # the run records the graph's failure; the batch goes on
        async with run:
            deadline = asyncio.timeout(timeout)
            try:
                async with deadline:
                    # A thread cannot be cancelled: past the timeout it finishes unrecorded,
                    # and the loop waits for it at its end.
                    if sync:
                        output = await asyncio.to_thread(graph.invoke, given, config=run.config, **kwargs)
                    else:
                        output = await graph.ainvoke(given, config=run.config, **kwargs)
            except TimeoutError:
                if deadline.expired():
                    raise TimeoutError(f"the run took longer than its {timeout:g} s timeout and was cancelled") from None
                raise
            completed = True
    return output, completed


async def _run_case(harness: Harness, graph: Any, case: Case, repeat: int, *, name: str | None, workflow: str | None,
                    timeout: float | None, config: dict[str, Any], context: Any, sync: bool, judge: Any,
                    pending: tuple[tuple[str, str], ...] = (), check_timeout: float | None = None) -> Run:
    run_id = str(uuid.uuid4())
    # Each run its own thread: a checkpointer keeps the runs' states apart.
    configurable = {"thread_id": run_id, **(config.get("configurable") or {})}
    run = harness.run(subject=case.subject or case.id, workflow=workflow, run_id=run_id,
                      expected_tools=case.expected_tools, reference_trajectory=case.reference_trajectory,
                      config={**config, "configurable": configurable}, hold=True)
    if name is not None:
        run.set_result(experiment=name, case_id=case.id, repeat_index=repeat)
    output, completed = await _invoke(run, graph, case.input, timeout=timeout, context=context, sync=sync)
    if name is not None:
        answer = await score_answer(case, output, completed and run.status == "completed", judge,
                                    timeout=check_timeout)
        run.checks = {"answer": answer, "require_tools": case.require_tools, "pending": pending}
    # What the run can be scored again from: the input, the graph's own return value and the
    # case's reference fields (also for a run outside an experiment: `wrap --input`).
    redact = host_redactor(harness.redact_rules)
    run.set_result(inputs=run_payload(case.input, redact), reference=case_reference(case) or None,
                   outputs=run_payload(output, redact) if completed else None)
    return run


async def _play_turns(harness: Harness, graph: Any, case: Case, repeat: int, *, name: str | None, workflow: str | None,
                      timeout: float | None, config: dict[str, Any], context: Any, sync: bool,
                      judge: Any, pending: tuple[tuple[str, str], ...] = (),
                      check_timeout: float | None = None) -> list[Run]:
    """A multi-turn case played in order on one fresh thread (see :mod:`.turns`): a run per
    turn, until the last or until a turn fails or does not do what the case expects (its
    reason goes in the last run's ``turns`` score)."""
    from langgraph.types import Command

    thread = str(uuid.uuid4())
    configurable = {**(config.get("configurable") or {}), "thread_id": thread}  # fresh, whatever the config says
    turns = case.turns or ()
    runs: list[Run] = []
    verdict = TurnsVerdict(len(turns))
    for index, turn in enumerate(turns):
        run = harness.run(subject=case.subject or case.id, workflow=workflow,
                          config={**config, "configurable": configurable}, hold=True)
        if name is not None:
            run.set_result(experiment=name, case_id=case.id, repeat_index=repeat)
        given = Command(resume=turn.resume) if turn.is_resume else turn.input
        output, completed = await _invoke(run, graph, given, timeout=timeout, context=context, sync=sync)
        runs.append(run)
        last = index == len(turns) - 1
        ok = completed and run.status == "completed"
        verdict.played(index, ok=ok, asked=asked_of(output) if ok else None,
                       expected=case.expects_interrupt(index), error=run.error)
        if name is not None:
            check = turn_case(case, index) if (turn.reference_answer is not None or last) else None
            answer = (await score_answer(check, output, ok, judge, timeout=check_timeout)
                      if check is not None else None)
            redact = host_redactor(harness.redact_rules)
            run.checks = {"answer": answer, "require_tools": False, "pending": pending}
            run.set_result(inputs=run_payload({"resume": turn.resume} if turn.is_resume else turn.input, redact),
                           reference=case_reference(case), outputs=run_payload(output, redact) if completed else None)
        if verdict.stopped or last:
            break
    if name is not None:
        runs[-1].checks = {**(runs[-1].checks or {}), "turns": verdict.score()}
    return runs


def with_checkpointer(graph: Any, target: str) -> Any:
    """The graph as it plays multi-turn cases: its own checkpointer, else a copy of it with an
    in-memory one (the experiment's threads live as long as it runs); :class:`ExperimentError`
    for a graph that cannot be given one."""
    if getattr(graph, "checkpointer", None) not in (None, False):
        return graph
    try:
        from langgraph.checkpoint.memory import InMemorySaver

        return graph.copy(update={"checkpointer": InMemorySaver()})
    except Exception:  # noqa: BLE001 - not a compiled LangGraph graph
        raise ExperimentError(f"{target} has no checkpointer, which multi-turn cases need to keep a conversation "
                              "between turns: compile it with checkpointer=InMemorySaver() (from "
                              "langgraph.checkpoint.memory)") from None


def case_reference(case: Case) -> dict[str, Any]:
    """The case's fields a run is scored against, for ``runs.reference``."""
    fields = {"turns": [turn_mapping(t) for t in case.turns] if case.turns else None,
              "reference_answer": case.reference_answer, "expected_tools": case.expected_tools,
              "reference_trajectory": case.reference_trajectory, "answer_check": case.answer_check,
              "answer_path": case.answer_path, "threshold": case.threshold, "tolerance": case.tolerance,
              "require_tools": case.require_tools or None, "subject": case.subject, "metadata": case.metadata}
    return {k: list(v) if isinstance(v, tuple) else v for k, v in fields.items() if v is not None}


def case_summary(harness: Harness, name: str) -> pd.DataFrame:
    """Per case of experiment ``name``: runs, pass rate (over the runs with a pass), failed runs
    and mean scores and costs (see :meth:`Experiment.summary`)."""
    import pandas as pd

    frames = harness.sheets(experiment=name, sheets=["runs", "tool_selections", "agent_metrics"], columns={
        "runs": ["run_id", "case_id", "status", "passed", "total_time_ms", "total_tokens", "total_cost",
                 "repeat_index", "turn", "started_at"],
        "tool_selections": ["run_id", "f1_score"],
        "agent_metrics": ["run_id", "final_answer_quality", "trajectory_match"],
    })
    runs = frames["runs"]
    if not runs.empty and runs.duplicated(["case_id", "repeat_index"]).any():  # multi-turn cases: one per repeat
        records = runs.astype(object).where(runs.notna(), None).to_dict("records")
        folded = fold_turns(records)
        last = {ids[-1]: unit for unit, ids in folded}
        runs = pd.DataFrame([last[r] for r in last], columns=runs.columns)
    if runs.empty:
        return pd.DataFrame(columns=["case_id", "runs", "pass_rate", "runs_with_pass", "failed_runs", "answer_score",
                                     "tool_f1", "trajectory_match", "latency_ms", "total_tokens", "total_cost"])
    joined = (runs.merge(frames["tool_selections"], on="run_id", how="left")
              .merge(frames["agent_metrics"], on="run_id", how="left"))
    joined["failed_runs"] = (joined["status"] != "completed").astype(int)
    order = list(dict.fromkeys(joined["case_id"]))
    grouped = joined.groupby("case_id", sort=False).agg(
        runs=("run_id", "size"), pass_rate=("passed", lambda s: s.astype("float64").mean()),
        runs_with_pass=("passed", "count"), failed_runs=("failed_runs", "sum"),
        answer_score=("final_answer_quality", "mean"), tool_f1=("f1_score", "mean"),
        trajectory_match=("trajectory_match", "mean"), latency_ms=("total_time_ms", "mean"),
        total_tokens=("total_tokens", lambda s: s.astype("float64").mean()), total_cost=("total_cost", "mean"),
    )
    return grouped.loc[order].reset_index()


def experiment_table(store: Any) -> pd.DataFrame:
    """One row per experiment (recorded, or only named by runs, e.g. copied from another store);
    its pass rate is over the runs that have a pass (``runs_with_pass`` of them)."""
    import pandas as pd

    passes: dict[str, list[int | None]] = {}
    counted: dict[str, int] = {}
    turns: dict[tuple[Any, ...], list[int | None]] = {}  # a multi-turn case's repeat -> its turns' passes
    for row in store.rows("runs", columns=["run_id", "experiment", "passed", "case_id", "repeat_index"]):
        if row["experiment"] is not None:
            counted[row["experiment"]] = counted.get(row["experiment"], 0) + 1
            key = (row["case_id"], row["repeat_index"]) if row["case_id"] is not None else (row["run_id"],)
            turns.setdefault((row["experiment"], *key), []).append(row["passed"])
    for (experiment, *_), passed in turns.items():
        one = turns_passed(passed) if len(passed) > 1 else passed[0]
        passes.setdefault(experiment, []).append(None if one is None else int(one))
    records = {r["name"]: r for r in store.experiment_records()}
    for name in passes:
        records.setdefault(name, {"name": name})
    columns = ["name", "target", "dataset", "dataset_sha256", "cases", "repeats", "runs", "pass_rate", "runs_with_pass",
               "git_commit", "git_dirty", "models", "started_at", "finished_at"]
    rows = []
    for name, record in records.items():
        rate, judged = pass_rate(passes.get(name, []))
        rows.append({**{c: record.get(c) for c in columns}, "runs": counted.get(name, 0), "pass_rate": rate,
                     "runs_with_pass": judged})
    return pd.DataFrame(rows, columns=columns)


__all__ = ["Case", "Dataset", "DatasetError", "Experiment", "ExperimentError", "case_summary", "default_name", "experiment_table",
           "load_dataset", "parse_shard", "run_cases", "run_experiment"]
