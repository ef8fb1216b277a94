"""``Harness`` and ``Run``: the public entry points that tie capture, rows, spans and the store.

Data flows one way: callbacks -> event records (:mod:`.tracing.callback`) -> a finished run's
record, handed to the harness's :class:`~harness.writers.Writer` -> rows
(:mod:`.tracing.rows`) and spans (:mod:`.tracing.spans`) -> the store. Nothing a run does
inside the harness can change
the graph's result: every step of :meth:`Run._finish` is guarded, failures are logged and
counted in ``runs.harness_errors``, and the graph's own exception propagates unchanged.
"""

from __future__ import annotations

import logging
import os
import threading
import time
import uuid
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any
from uuid import UUID

from opentelemetry import trace

from . import costs
from .schema import sheet as sheet_named
from .store import Store
from .tracing import rows as _rows
from .tracing.callback import HarnessCallbackHandler
from .tracing.events import is_control_flow, root_failure
from .tracing.tracebacks import describe_error
from .tracing.record import RunRecord, build_rows, log_tests_row, now_iso, valid_row
from .secrets.names import check_name
from .secrets.redact import ExtraRule, extra_rules, host_redactor
from .tracing.verify import PROFILES
from .writers import Writer, make_writer, writer_kind

if TYPE_CHECKING:
    from evaluators import Agreement

    from .costs.reprice import RepriceSummary
    from .experiment.compare import Comparison, Comparisons
    from .experiment.runner import Experiment
    from .experiment.scoring import ScoringSummary
    import pandas as pd

logger = logging.getLogger("harness")

#: What one callback log entry holds besides its payload (the tuple, ids, times, metadata).
ENTRY_BYTES = 512


class Harness:
    """Entry point: opens the store and starts runs.

    ``store`` is a path, a ``sqlite:///`` URL or a :class:`Store`; default ``$HARNESS_STORE``
    or ``./harness.db``. ``tracer_provider`` overrides where spans go (default: the global
    provider if the application set one, else OTLP/HTTP if ``OTEL_EXPORTER_OTLP_ENDPOINT``
    is set, else no spans). ``writer`` says who writes finished runs to the store (default
    ``$HARNESS_WRITER``, else ``process``): ``process``, a second Python process, so the host
    spends only the pickling of a run's record (the choice for a long-lived host); ``thread``,
    a background thread of the host (no process to start: the choice for one-shot commands);
    ``inline``, the caller, as the run ends. ``max_pending_bytes`` bounds the memory that
    finished runs not yet written hold in the host (default ``$HARNESS_MAX_PENDING_MB``, else
    64 MB): past it, the host waits for the writer.

    ``scorers``: score each finished run outside an experiment in the background, off the
    caller's thread, as ``harness score`` would (see :mod:`harness.online`): functions of
    ``(run, case)`` or ``"module:function"``, each run in the sample at rate ``sample`` (by a
    hash of its id), each scorer call limited to ``scorer_timeout`` seconds, the scorers'
    model calls held to ``max_cost`` USD per ``per`` (``"1h"``). A run is scored once per
    scorer version, by this harness or by a worker on the same store; :meth:`flush` waits
    for the scores of the runs written so far.

    ``strict``: a store that cannot be used (not a database, damaged, read-only, full, locked)
    raises :class:`StoreError` here; by default it logs one warning, counts an error and the graph
    runs on, its runs kept in a bounded spool until the store can take them.

    ``redact`` adds the application's own secrets to what is redacted (see
    :mod:`harness.secrets.rules` for what always is): a regular expression (text or
    compiled; its group ``secret``, if it has one, else the whole match becomes
    ``[REDACTED]``), a function from text to text applied after the rules, or a list of
    them. Runs of a harness with a function are written by a host thread, not the writer
    process, which never imports application code.
    """

    def __init__(
        self,
        store: str | os.PathLike[str] | Store | None = None,
        *,
        tracer_provider: trace.TracerProvider | None = None,
        writer: str | None = None,
        max_pending_bytes: int | None = None,
        redact: ExtraRule | Sequence[ExtraRule] | None = None,
        strict: bool = False,
        scorers: Sequence[Any] = (),
        sample: float = 1.0,
        max_cost: float | None = None,
        per: str | float = "1h",
        scorer_timeout: float = 60.0,
    ) -> None:
        self.writer = writer_kind(writer)
        self.redact_rules = extra_rules(redact)
        # A store that cannot be used now does not stop the host (unless strict): its runs are
        # spooled and written once it can be (see harness.store.spool).
        self.store = store if isinstance(store, Store) else Store(store, lazy=not strict, check=strict)
        self._writer: Writer = make_writer(self.store, self.writer, tracer_provider=tracer_provider,
                                           max_pending=max_pending_bytes)
        self._held: list[Run] = []  # finished runs started with hold=True, not yet written
        self._workflows: set[str] = set()  # workflow names checked already (see Harness.run)
        self._held_lock = threading.Lock()
        try:
            costs.load_env_prices()
        except ValueError as exc:  # a bad prices file never stops the host: its costs stay empty
            logger.warning("harness: %s; $HARNESS_PRICES ignored", exc)
        if self.store.problem is not None:
            logger.warning("harness: %s; runs are kept in a spool until it can be written", self.store.problem)
            self._writer.errors += 1
            self._writer.spool.warned = True
        self._online = None
        if scorers:
            from .online.inprocess import in_process_scoring

            self._online = in_process_scoring(self, scorers, sample=sample, max_cost=max_cost, per=per,
                                              scorer_timeout=scorer_timeout)

    @property
    def scoring(self) -> Any:
        """The counts of the in-process scorers (``scorers=``), per scorer: seen, sampled,
        scored, errored, skipped by budget (:class:`harness.online.Counts`); None without them."""
        return None if self._online is None else self._online.counts

    @property
    def tracer_provider(self) -> trace.TracerProvider | None:
        """Where the runs' spans go (None: the application's global provider, else OTLP when
        ``$OTEL_EXPORTER_OTLP_ENDPOINT`` is set, else nowhere)."""
        return self._writer.tracer_provider

    @tracer_provider.setter
    def tracer_provider(self, provider: trace.TracerProvider | None) -> None:
        self._writer.tracer_provider = provider

    @property
    def errors(self) -> int:
        """Harness-internal failures across runs (never raised into the host)."""
        return self._writer.errors

    @errors.setter
    def errors(self, value: int) -> None:
        self._writer.errors = value

    def flush(self, timeout: float | None = None) -> bool:
        """Wait until every finished run has been written to the store (and its spans
        emitted), held runs included; False when ``timeout`` seconds passed first. Every
        method that reads the store calls this first."""
        self._hand_off_held()
        if self._online is None:
            return self._writer.flush(timeout)
        return self._online.drain(timeout)  # (which flushes the writer first)

    def close(self) -> None:
        """Write every finished run, then close the store (SQLite folds its write-ahead log
        into the database file, so the ``.db`` file alone holds every row)."""
        self._hand_off_held()
        if self._online is not None:
            self._online.close()  # the runs written so far scored first
        self._writer.close()  # which flushes first
        self.store.close()

    def _hand_off_held(self) -> None:
        with self._held_lock:
            held, self._held = self._held, []
        for run in held:
            run._hand_off()

    def run(
        self,
        subject: str | None = None,
        workflow: str | None = None,
        *,
        expected_tools: Sequence[str] | None = None,
        reference_trajectory: Sequence[str] | None = None,
        profile: str = "generic",
        model: str | None = None,
        temperature: float | None = None,
        batch_id: str | None = None,
        agent_names: Mapping[str, str] | None = None,
        node_types: Mapping[str, str] | None = None,
        phases: Mapping[str, str] | None = None,
        config: Mapping[str, Any] | None = None,
        verify: bool = True,
        run_id: str | None = None,
        hold: bool = False,
    ) -> Run:
        """A run context (``with`` or ``async with``); pass ``run.config`` to the graph.

        ``workflow`` names what ran; without it, the graph's own name (``compile(name=...)``)
        unless it is LangGraph's default (:func:`harness.tracing.record.workflow_name`).

        ``hold=True``: the finished run waits to be written until :meth:`Run.write` (or the
        next :meth:`flush`), so a caller running several at once writes them in its own order."""
        if profile not in PROFILES:
            raise ValueError(f"unknown profile {profile!r}; profiles are {', '.join(PROFILES)}")
        if workflow is not None and workflow not in self._workflows:  # each name checked once
            check_name("workflow", workflow, host_redactor(self.redact_rules))
            self._workflows.add(workflow)
        self._writer.prepare()  # e.g. the writer process starts now, to be ready when the run ends
        return Run(
            self, subject=subject, workflow=workflow, expected_tools=expected_tools,
            reference_trajectory=reference_trajectory, profile=profile, model=model,
            temperature=temperature, batch_id=batch_id, agent_names=agent_names or {},
            node_types=node_types or {}, phases=phases or {}, config=config, verify=verify,
            run_id=run_id, hold=hold,
        )

    def experiment(self, name: str, graph: Any, dataset: Any, *, repeats: int = 1, concurrency: int = 4,
                   timeout: float | None = None, config: Mapping[str, Any] | None = None, context: Any = None,
                   sync: bool = False, append: bool = False, judge: Any = None, shard: tuple[int, int] | None = None,
                   target: str | None = None, scorers: Sequence[Any] = (), thread_scorers: Sequence[Any] = (),
                   scorer_timeout: float = 60.0, scorer_isolation: str = "thread",
                   workflow: str | None = None) -> Experiment:
        """Run ``graph`` over ``dataset`` (a .jsonl/.json/.csv path, or a list of cases) as the
        experiment ``name`` and return it when every run is written and scored (see
        :mod:`harness.experiment.runner`). ``judge`` is the chat model that grades cases
        whose ``answer_check`` is ``judge``; ``scorers`` are your own: functions of
        ``(run, case)``, sync or async, returning a number, a bool, a :class:`Score` or a dict
        of them (see :mod:`harness.experiment.scoring`), each call limited to ``scorer_timeout``
        seconds and isolated by ``scorer_isolation`` (``thread``, or ``process``: a worker
        process, so a scorer that crashes its process costs one error score; see
        :mod:`harness.experiment.scorer_call`); ``thread_scorers`` judge each case's whole
        thread (its turns) at once: functions of ``(thread, case)`` (see
        :mod:`harness.experiment.threads`), under the same limits; ``shard=(k, n)`` runs the
        cases whose index is k mod n. A taken name is refused unless ``append``. Scores that
        could not be made are counted in ``Experiment.scoring`` (per scorer) and said in a
        warning. ``workflow`` names the runs' workflow (default: the graph's own name unless it
        is LangGraph's default, else the attribute of ``target``, ``module:ATTR``)."""
        from .experiment.runner import run_experiment

        return run_experiment(
            self, graph, dataset, name=name, target=target or getattr(graph, "name", None) or type(graph).__name__,
            repeats=repeats, concurrency=concurrency, timeout=timeout, config=config, context=context, sync=sync,
            append=append, judge=judge, shard=shard, scorers=scorers, thread_scorers=thread_scorers,
            scorer_timeout=scorer_timeout, scorer_isolation=scorer_isolation, workflow=workflow,
        )

    def rescore(self, experiment: str | None = None, scorers: Sequence[Any] = (), *,
                runs: Sequence[str] | None = None, workflow: str | Sequence[str] | None = None,
                since: Any = None, replace: bool = False, concurrency: int = 4, scorer_timeout: float = 60.0,
                scorer_isolation: str = "thread") -> ScoringSummary:
        """Score stored runs with ``scorers`` (functions or ``"module:function"``) without
        running the graph again; ``runs.passed`` follows. The runs: those of ``experiment``,
        ``runs`` (ids or unique starts of them), a ``workflow``'s, those started ``since`` (a
        datetime, an ISO text or an age such as ``"7d"``), inside experiments or not; every
        one given must hold. A name a selected run already has a score of is refused unless
        ``replace``; so is a second rescore of an experiment while one runs. Limits as
        :meth:`experiment`."""
        from .experiment.scorer_call import ScorerLimits
        from .experiment.scoring import rescore
        from .experiment.selection import RunSelection

        chosen = RunSelection.of(experiment, runs=runs, workflows=workflow, since=since)
        return rescore(self, chosen, scorers, replace=replace, concurrency=concurrency,
                       limits=ScorerLimits(scorer_timeout, scorer_isolation))

    def delete_scores(self, name: str | Sequence[str], experiment: str | None = None, *,
                      runs: Sequence[str] | None = None, workflow: str | Sequence[str] | None = None,
                      since: Any = None) -> int:
        """Delete the scores named ``name`` (one name or several) of the runs chosen as
        :meth:`rescore` chooses them; each run's pass follows. Returns how many were deleted."""
        from .experiment.scoring import delete_scores
        from .experiment.selection import RunSelection

        self.flush()
        chosen = RunSelection.of(experiment, runs=runs, workflows=workflow, since=since)
        return delete_scores(self.store, chosen, [name] if isinstance(name, str) else list(name))[0]

    def reprice(self, *experiments: str, runs: Sequence[str] = (), since: Any = None, prices: Any = None,
                batch_runs: int | None = None) -> RepriceSummary:
        """Recompute the stored costs of runs from their stored tokens with ``prices`` (a
        prices file, or a mapping of model -> :class:`harness.costs.Price`) over the prices
        in force (see :mod:`harness.costs.reprice`): the runs of ``experiments``, among
        ``runs`` (ids or unique starts of them), started at or after ``since``; every run
        when none is given. Each run's ``total_cost`` follows; each changed call keeps its old
        cost in ``previous_total_cost``. One transaction per batch of runs."""
        from .costs.reprice import BATCH_RUNS, prices_of, reprice, select_runs

        chosen = prices_of(prices)
        self.flush()
        ids = select_runs(self.store, experiments=experiments, run_ids=self.store.resolve_run_ids(runs),
                          since=since)
        return reprice(self.store, ids, chosen, batch_runs=batch_runs or BATCH_RUNS)

    def score_threads(self, scorers: Sequence[Any], *, threads: Sequence[str] | None = None,
                      experiment: str | None = None, replace: bool = False, concurrency: int = 4,
                      scorer_timeout: float = 60.0, scorer_isolation: str = "thread") -> ScoringSummary:
        """Score whole threads (conversations) with thread ``scorers``, functions of ``(thread,
        case)`` or ``"module:function"`` (see :mod:`harness.experiment.threads`), from the store:
        the threads named (ids or unique starts), else those of ``experiment``, else every
        thread. Each score is kept once per thread, on its last turn; ``runs.passed`` follows. A
        name a thread already has a score of is refused unless ``replace``. Limits as
        :meth:`experiment`."""
        from .experiment.scorer_call import ScorerLimits
        from .experiment.threads import rescore_threads

        return rescore_threads(self, scorers, threads=threads, experiment=experiment, replace=replace,
                               concurrency=concurrency, limits=ScorerLimits(scorer_timeout, scorer_isolation))

    def label(self, run_id: str, name: str, value: Any, *, comment: str | None = None,
              by: str | None = None) -> dict[str, Any]:
        """A person's judgement of a run (``run_id``: the full id or a unique start of it):
        ``True``/``False`` (or ``"true"``/``"false"``) is a pass/fail label, a number a value.
        Written as the run's score ``name`` (source ``human``), replacing an earlier label of
        that name by the same person (``by``: labels by several people stand side by side);
        ``runs.passed`` follows. Returns the score's row."""
        from .experiment.scoring import label

        self.flush()
        return label(self.store, run_id, name, value, comment=comment, by=by,
                     redact=host_redactor(self.redact_rules))

    def agreement(self, score: str, against: str, *, experiments: Sequence[str] = (), threshold: float | None = None,
                  label_threshold: float | None = None, weights: str = "quadratic", by: str | None = None,
                  remember: bool = True) -> Agreement:
        """How far the score ``score`` (a judge's, or any) agrees with people's labels
        ``against`` over the runs that have both (of ``experiments``, else of the whole
        store): Cohen's κ of their passes (``threshold``: the score's pass is its value at
        it), weighted κ for labels on a scale, Spearman's ρ, each with a 95% interval, and
        the people's agreement with each other (see :mod:`harness.experiment.agreement`).
        ``remember``: ``compare`` then prints it beside the score."""
        from .experiment.agreement import measure

        self.flush()
        return measure(self.store, score, against, experiments=experiments, threshold=threshold,
                       label_threshold=label_threshold, weights=weights, by=by, remember=remember)

    def experiments(self) -> pd.DataFrame:
        """The store's experiments, oldest first: ``name``, what ran (target, dataset and its
        hash, git commit, models), when, and its runs and pass rate."""
        from .experiment.runner import experiment_table

        self.flush()
        return experiment_table(self.store)

    def compare(self, a: str, b: str, *more: str, alpha: float = 0.05, metrics: Sequence[str] | None = None,
                gate: Sequence[str] | None = None, margin: Any = None, lower_is_better: Sequence[str] = (),
                higher_is_better: Sequence[str] = (), strict: bool = False, sequential: bool = False,
                against: Any = None, min_agreement: float | None = None, min_labels: int = 30, pairwise: Any = None,
                concurrency: int = 4) -> Comparison | Comparisons:
        """Experiment ``b`` against ``a``, paired by case (see :mod:`harness.experiment.compare`):
        ``.regressed`` is the CI gate (``assert not h.compare("main", "candidate").regressed``),
        failed too by a gated metric that lost more than 10% of its cases to missing data
        (any, with ``strict``); ``gate`` names the gated metrics (default ``pass_rate``),
        ``margin`` the smallest change that matters (``0.03``, ``"5%"``, ``{"latency_ms": 200}``),
        ``lower_is_better`` the scores for which lower is better; ``sequential`` keeps the
        verdicts valid when compared again as runs arrive. Several candidates
        (``h.compare("main", "cand1", "cand2")``) give a :class:`Comparisons`, one Holm family.

        Judges: ``against`` pairs a gated score with people's label (``"LABEL"`` or
        ``{"score": "label"}``; else the pair ``h.agreement`` measured last) and
        ``.agreements`` holds its agreement; with ``min_agreement`` a gated judge's score
        whose agreement interval starts below it, or that has fewer than ``min_labels``
        labelled runs, is refused (:class:`~harness.experiment.instruments.GateRefused`).
        ``pairwise``: a judge (a chat model, a function ``(case, answer_a, answer_b)`` or
        ``"module:function"``) asked which answer is better case by case in both orders; its
        preference (``.pairwise``) is then the gate (see :mod:`harness.experiment.pairwise`)."""
        import dataclasses

        from .experiment.compare import compare_candidates
        from .experiment.errors import ExperimentError
        from .experiment.instruments import with_agreements
        from .experiment.pairwise import compare_pairwise

        if pairwise is not None and gate:
            raise ExperimentError("with a pairwise judge the judge's preference is the gate: leave out gate")
        if pairwise is not None and more:
            raise ExperimentError("a pairwise judge compares two experiments: give one candidate")
        self.flush()
        result = compare_candidates(self.store, a, [b, *more], alpha=alpha, metrics=metrics,
                                    gate=[] if pairwise is not None else gate, margin=margin,
                                    lower_is_better=lower_is_better, higher_is_better=higher_is_better,
                                    strict=strict, sequential=sequential)
        result = dataclasses.replace(result, comparisons=tuple(
            with_agreements(self.store, c, against=against, min_agreement=min_agreement, min_labels=min_labels)
            for c in result.comparisons))
        if more:
            return result
        comparison = result.comparisons[0]
        if pairwise is None:
            return comparison
        unit = margin if isinstance(margin, (int, float)) and not isinstance(margin, bool) else 0.05
        judged = compare_pairwise(self, a, b, pairwise, alpha=alpha, margin=float(unit), concurrency=concurrency)
        return dataclasses.replace(comparison, pairwise=judged)

    def sheets(self, run_ids: Sequence[str] | None = None, *, sheets: Iterable[str] | None = None,
               columns: Mapping[str, Sequence[str]] | Sequence[str] | None = None,
               experiment: str | Sequence[str] | None = None) -> dict[str, pd.DataFrame]:
        """The sixteen sheets (the spec's fifteen in spec order, then ``scores``) as DataFrames,
        spec columns first; ask for less (some runs, an experiment, some sheets, some columns)
        as :meth:`Store.sheets` says: whole sheets of a large store take memory in proportion
        to it."""
        self.flush()
        return self.store.sheets(run_ids, sheets=sheets, columns=columns, experiment=experiment)

    def log(self, run_id: str, sheet: str, rows: Iterable[Mapping[str, Any]]) -> int:
        """Append rows to a finished run (e.g. a batch's consistency rows); returns rows added."""
        self.flush()
        s = sheet_named(sheet)
        company = next(iter(self.store.rows("runs", [run_id])), {}).get("company_name")
        redact = host_redactor(self.redact_rules)
        complete = []
        for row in rows:
            full = {"run_id": run_id, "company_name": company, "timestamp": now_iso(),
                    "generated_by": s.generated_by, **row}
            complete.append(valid_row(s.name, full))
        _rows.redact_rows(complete, redact)  # the same scrub as a run's own rows, JSON cells included
        return self.store.write(s.name, complete)

    def verify(self, run_id: str, written: Mapping[str, int] | None = None, *, profile: str | None = None,
               required: Sequence[str] | None = None) -> dict[str, Any]:
        """(Re)write the run's ``log_tests`` row from the rows now in the store.

        Profile and required sheets default to those of the run's previous ``log_tests`` row.
        """
        self.flush()
        previous = next(iter(self.store.rows("log_tests", [run_id])), None)
        runs_row = next(iter(self.store.rows("runs", [run_id])), {})
        profile = profile or (previous or {}).get("profile") or "generic"
        if required is None:
            required = (previous or {}).get("required_sheets") or list(PROFILES.get(profile, ()))
        row = log_tests_row(run_id, runs_row.get("company_name"), self.store.counts(run_id), profile=profile,
                            required=required, written=written, redact=host_redactor(self.redact_rules),
                            written_rows=(previous or {}).get("written_rows"))
        self.store.replace("log_tests", [row])
        return row

    def export_excel(self, path: str | os.PathLike[str], run_ids: Sequence[str] | None = None):
        """Write the sixteen sheets (the fifteen and ``scores``) to an .xlsx workbook (see :mod:`exporters`)."""
        from exporters import write_excel

        self.flush()
        return write_excel(self.store, path, run_ids)

    def export_google_sheets(self, spreadsheet_id: str, credentials_file: str | None = None,
                             run_ids: Sequence[str] | None = None):
        """Append the run rows a spreadsheet has not acknowledged yet (exactly once)."""
        from exporters import push_google_sheets

        self.flush()
        return push_google_sheets(self.store, spreadsheet_id, credentials_file=credentials_file, run_ids=run_ids)


class Run:
    """One recorded run. Use as a context manager; pass :attr:`config` to the graph."""

    def __init__(self, harness: Harness, *, subject, workflow, expected_tools, reference_trajectory, profile,
                 model, temperature, batch_id, agent_names, node_types, phases, config, verify, run_id,
                 hold=False) -> None:
        self.harness = harness
        self.store = harness.store
        self.run_id = run_id or str(uuid.uuid4())
        self.subject = subject
        self.workflow = workflow
        self.expected_tools = list(expected_tools) if expected_tools is not None else None
        self.reference_trajectory = list(reference_trajectory) if reference_trajectory is not None else None
        self.profile = profile
        self.required_sheets: list[str] = list(PROFILES[profile])
        if profile == "generic":
            if expected_tools is not None:
                self.required_sheets.append("tool_selections")
            if expected_tools is not None or reference_trajectory is not None:
                self.required_sheets.append("agent_metrics")
        self.model, self.temperature, self.batch_id = model, temperature, batch_id
        self.agent_names, self.node_types, self.phases = agent_names, node_types, phases
        self.verify = verify
        self.hold = hold
        self.status = "running"
        self.error: str | None = None
        self.result: dict[str, Any] = {}
        self.handler = HarnessCallbackHandler(self)
        self._user_config = dict(config or {})
        self._logged: list[tuple[str, dict[str, Any], UUID | None]] = []
        self._lock = threading.Lock()
        self._start_ns = self._end_ns = 0
        self._outer_span: trace.Span | None = None
        self._errors = 0
        self._finished = False
        self.checks: dict[str, Any] | None = None  # a dataset case's scored checks (harness.experiment)

    # --- the config handed to the graph ------------------------------------------------
    @property
    def config(self) -> dict[str, Any]:
        user = self._user_config
        callbacks = user.get("callbacks")
        if callbacks is None:
            merged: Any = [self.handler]
        elif isinstance(callbacks, list):
            merged = [*callbacks, self.handler]
        else:  # a callback manager
            merged = callbacks.copy()
            merged.add_handler(self.handler, inherit=True)
        return {**user, "callbacks": merged}

    # --- context manager (sync and async) ---------------------------------------------
    def __enter__(self) -> Run:
        self._start_ns = time.time_ns()
        # The application's active span (if any) when the run starts becomes the parent of
        # the run's root span; nothing is attached to the context by the harness.
        self._outer_span = trace.get_current_span()
        self.status = "running"
        return self

    def __exit__(self, exc_type, exc, tb) -> bool:
        self._finish(exc)
        return False  # the graph's exception propagates unchanged

    async def __aenter__(self) -> Run:
        return self.__enter__()

    async def __aexit__(self, exc_type, exc, tb) -> bool:
        return self.__exit__(exc_type, exc, tb)

    # --- what nodes call ---------------------------------------------------------------
    def log(self, sheet: str, row: Mapping[str, Any], *, config: Mapping[str, Any] | None = None) -> None:
        """Record one domain row; node, step and agent are filled from the node in ``config``."""
        try:
            sheet_named(sheet)
            parent = _parent_run_id(config)
            node = self.handler.node_event(parent) if parent is not None else None
            with self._lock:
                self._logged.append((sheet, dict(row), node.id if node is not None else None))
        except Exception:  # noqa: BLE001
            self._count_error("log")

    def set_result(self, **fields: Any) -> None:
        """Fields of the ``runs`` row (risk_level, credit_score, confidence, evaluation_score, ...)."""
        allowed = set(sheet_named("runs").all_column_names)
        unknown = set(fields) - allowed
        if unknown:
            raise ValueError(f"runs has no column(s) {', '.join(sorted(unknown))}")
        self.result.update(fields)

    def rows(self, sheet: str) -> list[dict[str, Any]]:
        """The run's rows of ``sheet`` so far (captured and logged), before redaction."""
        sheet_named(sheet)
        return build_rows(self._record(time.time_ns())).get(sheet, [])

    # --- finishing ---------------------------------------------------------------------
    def _count_error(self, what: str) -> None:
        self._errors += 1
        self.harness.errors += 1
        logger.warning("harness: %s failed for run %s", what, self.run_id, exc_info=True)

    def _record(self, end_ns: int, *, release: bool = False) -> RunRecord:
        """The run as plain data: its log and logged rows as of now (``release``: handed over,
        and the handler's per-run state starts afresh; else copies)."""
        with self._lock:
            logged = self._logged if release else list(self._logged)
            if release:
                self._logged = []
        if release:
            log, streamed, held = self.handler.take()
        else:
            (log, streamed), held = self.handler.snapshot(), self.handler.held
        return RunRecord(
            run_id=self.run_id, subject=self.subject, workflow=self.workflow, profile=self.profile,
            required_sheets=self.required_sheets, expected_tools=self.expected_tools,
            reference_trajectory=self.reference_trajectory, model=self.model, temperature=self.temperature,
            batch_id=self.batch_id, agent_names=self.agent_names, node_types=self.node_types,
            phases=self.phases, thread_id=(self._user_config.get("configurable") or {}).get("thread_id"),
            verify=self.verify, status=self.status, error=self.error, result=dict(self.result),
            start_ns=self._start_ns, end_ns=end_ns, log=log, streamed=streamed, logged=logged,
            errors=self._errors + self.handler.failures, held=held + ENTRY_BYTES * len(log),
            redact_extra=self.harness.redact_rules, prices=costs.user_prices(), checks=self.checks,
            outer_context=_context_of(self._outer_span),
        )

    def _finish(self, exc: BaseException | None) -> None:
        if self._finished:
            return
        self._finished = True
        self._end_ns = time.time_ns()
        # Failed when an exception leaves the block, or when a root graph ended in an error
        # the caller caught inside it; control flow (an interrupt) is no failure.
        if exc is not None and not is_control_flow(exc):
            self.status, self.error = "failed", describe_error(exc)
        elif (failure := root_failure(self.handler.log, self.handler.failed_chains)) is not None:
            self.status, self.error = "failed", failure
        else:
            self.status = "completed"
            if exc is not None:
                self.error = describe_error(exc)
        if self.hold:
            with self.harness._held_lock:
                self.harness._held.append(self)
            return
        self._hand_off()

    def write(self) -> None:
        """Hand a run finished under ``hold=True`` to the writer; nothing for a run not held
        or already handed on."""
        with self.harness._held_lock:
            if self not in self.harness._held:
                return
            self.harness._held.remove(self)
        self._hand_off()

    def _hand_off(self) -> None:
        """Hand the finished run's record to the harness's writer (which writes it here, on a
        background thread or in the writer process: see :mod:`harness.writers`)."""
        try:
            record = self._record(self._end_ns, release=True)
        except Exception:  # noqa: BLE001 - the host never sees harness failures
            self._count_error("recording the run")
            return
        self.harness._writer.submit(record)
        online = self.harness._online
        if online is not None and "experiment" not in self.result:
            online.finished(self.run_id)


def _context_of(span: trace.Span | None) -> tuple[int, int, int, bool] | None:
    context = span.get_span_context() if span is not None else None
    if context is None or not context.is_valid:
        return None
    return context.trace_id, context.span_id, int(context.trace_flags), context.is_remote


def _parent_run_id(config: Mapping[str, Any] | None) -> UUID | None:
    callbacks = (config or {}).get("callbacks")
    return getattr(callbacks, "parent_run_id", None)


def _handlers(config: Mapping[str, Any] | None) -> list[Any]:
    callbacks = (config or {}).get("callbacks")
    if callbacks is None:
        return []
    if isinstance(callbacks, list):
        return callbacks
    return [*getattr(callbacks, "handlers", []), *getattr(callbacks, "inheritable_handlers", [])]


def current_run(config: Mapping[str, Any] | None) -> Run | None:
    """The harness run recording this graph invocation, found through ``config["callbacks"]``;
    None when the graph runs without the harness."""
    for handler in _handlers(config):
        if isinstance(handler, HarnessCallbackHandler) and handler.run is not None:
            return handler.run
    return None
