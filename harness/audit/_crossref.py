"""Checks across sheets: the ``runs`` summary columns and the ``log_tests`` counts against
the rows the other sheets actually hold.

While the sheets are read one by one, :class:`Facts` keeps what these checks (and the
aggregates) need from each, so a big sheet can be dropped as soon as it has been checked.
Rules (the project's sheet decisions, docs/decisions.md, and the run builder):

- ``total_llm_calls`` = the run's ``llm_calls`` rows;
- ``total_tokens`` = the sum over the run's calls of prompt + completion tokens, and
  ``total_cost`` = the sum of their costs by :func:`harness.costs.cost_of` (calls without
  tokens or without a price left out; empty when none is left), ``cache_read_tokens``,
  ``cache_write_tokens`` and ``reasoning_tokens`` the sums of those kinds, all from the
  calls' own inputs, so an edited ``llm_calls`` total is one finding, in ``llm_calls``;
- ``total_steps`` = node executions = distinct ``step_number`` values of the run's
  ``langgraph_events`` rows with ``event_kind == "node"`` (every row when a workbook has no
  ``event_kind`` column: each row made inside a node carries that node's step);
- ``tools_used`` = the distinct ``tool_name`` values of the run's ``tool_calls`` rows (the
  tools that really ran), compared as sets;
- ``evaluation_score`` = the run's ``evaluations.overall_score`` as its parts give it;
- ``risk_level``, ``credit_score``, ``confidence`` = those of the run's last ``assessments``
  row, when it has one;
- ``turn`` and ``resumed_from`` = the run's place in its thread and the run before it, when it
  resumed that run's interrupt (:func:`thread_links`, from the ``runs`` rows alone);
- every ``log_tests`` count = the run's rows in that sheet; ``total_sheets_logged`` and
  ``verification_status`` by :mod:`harness.tracing.verify` from those counts, the row's
  ``required_sheets`` (else its profile's) and ``written_rows``.
"""

from __future__ import annotations

import json

import evaluators
from collections import Counter, defaultdict
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from itertools import repeat
from typing import Any

from ..tracing.verify import PROFILES, total_sheets_logged, verification_status
from ..schema import COUNTED_SHEETS
from ._model import Finding
from .. import costs
from ._recompute import CALL_SUMS, CallSums, Checker, status_of
from ._tables import Table
from ._values import as_int, is_empty, number_or_none, parse_list

#: The ``call_type`` of a call that graded the run (a judge), not one the run made to answer.
JUDGE_CALL = "llm_judge"


@dataclass(slots=True)
class Facts:
    """Per-run facts gathered from every sheet as it is read."""

    counts: dict[str, Counter[str]] = field(default_factory=dict)
    steps: dict[str, set[int]] = field(default_factory=lambda: defaultdict(set))
    tools: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    cost: dict[str, float] = field(default_factory=lambda: defaultdict(float))
    cost_unknown: set[str] = field(default_factory=set)
    # run -> the sums of recompute.CALL_SUMS its calls' token counts give (each None: no call
    # has one), or None when a call's counts are not whole numbers (recompute.llm_calls)
    call_totals: dict[str, CallSums | None] = field(default_factory=dict)
    evaluation: dict[str, float | None] = field(default_factory=dict)
    judge: dict[str, float | None] = field(default_factory=dict)
    assessment: dict[str, dict[str, Any]] = field(default_factory=dict)
    f1: dict[str, float] = field(default_factory=dict)
    expected_tools: dict[str, frozenset[str]] = field(default_factory=dict)  # run -> tool_selections.expected_tools
    latency: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    verified: dict[str, str] = field(default_factory=dict)  # run -> verification status the rows give
    primaries: Counter[str] = field(default_factory=Counter)  # batch primary model -> group rows naming it
    # run -> (answer score, its threshold, require_tools) of a dataset case (agent_metrics)
    checks: dict[str, tuple[float | None, float | None, bool]] = field(default_factory=dict)
    # run -> model -> the summed total_cost of the run's calls of that model (None: a call
    # without a cost), models in the order of their first call; judge calls left out
    model_costs: dict[str, dict[str, float | None]] = field(default_factory=dict)
    #: run -> (runs.experiment, runs.case_id): what its scores rows say beside them
    places: dict[str, tuple[Any, Any]] = field(default_factory=dict)
    scored: bool = False  # the source has a scores sheet
    score_passes: dict[str, list[dict[str, Any]]] = field(default_factory=lambda: defaultdict(list))
    # (run, name, value, passed, source, error, rater) of labels, judges and scorers (scores sheet)
    judgements: list[tuple[Any, ...]] = field(default_factory=list)

    def count(self, table: Table) -> None:
        self.counts.setdefault(table.name, Counter()).update(table.column("run_id"))

    def add_call_totals(self, by_run: dict[str, CallSums | None]) -> None:
        """Per-run sums of a chunk of ``llm_calls`` (:func:`recompute.llm_calls`) added to
        those of the chunks before it (None, a call without whole token counts, stays None)."""
        totals = self.call_totals
        for run, sums in by_run.items():
            if run not in totals:
                totals[run] = sums
            elif totals[run] is not None:
                totals[run] = None if sums is None else [_plus(a, b) for a, b in zip(totals[run], sums)]

    def from_events(self, table: Table) -> None:
        """Node steps per run, and node latencies (a node's end row carries its duration)."""
        runs, steps = table.column("run_id"), table.column("step_number")
        kinds = table.column("event_kind") if table.has("event_kind") else repeat("node")
        for run, step, kind in set(zip(runs, steps, kinds)):
            if kind != "node":
                continue
            try:
                number = as_int(step)
            except ValueError:
                continue
            if number is not None:
                self.steps[run].add(number)
        if not table.has("event_kind"):
            return
        for node, duration, kind in zip(table.column("node"), table.column("duration_ms"), table.column("event_kind")):
            if kind == "node" and type(duration) is not str and type(node) is str:
                self.latency[node].append(duration)
            elif kind == "node" and duration != "" and type(node) is str:
                number = number_or_none(duration)
                if number is not None:
                    self.latency[node].append(number)

    def from_tool_calls(self, table: Table) -> None:
        for run, tool in zip(table.column("run_id"), table.column("tool_name")):
            if type(tool) is str and tool:
                self.tools[run].add(tool)

    def from_llm_calls(self, table: Table) -> None:
        """Cost per run: the sum of its calls' total_cost; unknown if any call has none (or
        one that is not a cost, which the type check reports)."""
        for run, total in zip(table.column("run_id"), table.column("total_cost")):
            value = number_or_none(total)
            if value is None or value < 0:
                self.cost_unknown.add(run)
            else:
                self.cost[run] += value
        self._model_costs(table)

    def _model_costs(self, table: Table) -> None:
        """The models each run called and what each cost it (:attr:`model_costs`). A call
        labelled ``llm_judge`` (``call_type``) graded the run: its model is not one the run used."""
        kinds = table.column("call_type") if table.has("call_type") else repeat(None)
        for run, model, total, kind in zip(table.column("run_id"), table.column("model"), table.column("total_cost"),
                                           kinds):
            if type(model) is not str or not model or kind == JUDGE_CALL:
                continue
            costs = self.model_costs.setdefault(run, {})
            value = number_or_none(total)
            known = costs.get(model, 0.0)
            costs[model] = None if known is None or value is None or value < 0 else known + value

    def from_cross_model(self, table: Table) -> None:
        """The primary model of each compared batch: the first of ``models_compared`` (a
        batch lists its ``--model`` before its ``--compare-model``)."""
        for cell in table.column("models_compared"):
            try:
                models = parse_list(cell)
            except ValueError:
                continue
            if models and isinstance(models[0], str):
                self.primaries[models[0]] += 1

    def from_agent_metrics(self, table: Table) -> None:
        """A dataset case's checks, from ``answer_details`` (threshold, require_tools) and
        ``final_answer_quality`` (the score)."""
        for run, score, details in zip(table.column("run_id"), table.column("final_answer_quality"),
                                       table.column("answer_details")):
            try:
                found = json.loads(details) if isinstance(details, str) else details
            except ValueError:
                continue
            if isinstance(found, dict):
                self.checks[run] = (number_or_none(score), number_or_none(found.get("threshold")),
                                    found.get("require_tools") is True)

    def from_runs(self, table: Table) -> None:
        for run, experiment, case in zip(table.column("run_id"), _column(table, "experiment"),
                                         _column(table, "case_id")):
            self.places[run] = (None if is_empty(experiment) else experiment, None if is_empty(case) else case)

    def from_scores(self, table: Table) -> None:
        """The pass, error and scorer of each score of each run (an empty pass: a score that
        does not gate its run; an error: a score that could not be made, whose pass is
        unknown), the pass being the one its value gives where a rule decides it (see
        :func:`check_scores`), else its cell; and the judgements agreement reads: people's
        labels and the judges' and scorers' scores."""
        for _, row in table.records():
            stored, expected = self.score_pass(row)
            error, scorer = row.get("error"), row.get("scorer")
            self.score_passes[row["run_id"]].append({
                "passed": int(expected) if expected is not None else stored,
                "error": None if is_empty(error) else error,
                "scorer": None if is_empty(scorer) else str(scorer).strip()})
        raters = table.column("rater") if table.has("rater") else repeat(None)
        for row in zip(table.column("run_id"), table.column("name"), table.column("value"), table.column("passed"),
                       table.column("source"), table.column("error"), raters):
            if row[4] in ("human", "llm", "code") and is_empty(row[5]) and type(row[1]) is str:
                self.judgements.append(row)

    def score_pass(self, row: Mapping[str, Any]) -> tuple[int | None, bool | None]:
        """A score row's pass as its cell says (1, 0 or None) and as its value gives it
        (:func:`evaluators.expected_pass`; None where no rule decides it)."""
        cell = row.get("passed")
        number = number_or_none(cell) if not is_empty(cell) else None
        stored = None if number is None else int(number == 1)
        value = number_or_none(row.get("value")) if not is_empty(row.get("value")) else None
        name = str(row.get("name"))
        threshold = self.checks.get(row["run_id"], (None, None, False))[1] if name == "answer" else None
        return stored, evaluators.expected_pass(name, row.get("source"), value, stored, threshold=threshold)

    def passed(self, row: Mapping[str, Any]) -> bool | None:
        """The run's pass as the sheets give it: from its scores (:func:`evaluators.run_passed`)
        when the source has a scores sheet; in an older export without one, from the checks
        that were scores before they had a sheet: a dataset case's completion, answer check
        and required tools; a credit run's evaluation status and log test."""
        run, status = row["run_id"], row.get("status")
        if self.scored:
            return evaluators.run_passed(status, self.score_passes.get(run, []))
        gates: list[bool | None] = []
        if not is_empty(row.get("case_id")):  # a run of a dataset case
            score, threshold, require_tools = self.checks.get(run, (None, None, False))
            gates.append(status == "completed")
            if threshold is not None:
                gates.append(score is not None and score >= threshold - 1e-12)
            if require_tools:
                f1 = self.f1.get(run)
                gates.append(f1 is not None and f1 >= 1.0 - 1e-12)
        elif run in self.evaluation:  # a credit run: its evaluation and its log test
            gates += [status_of(self.evaluation[run]) == "good", self.verified.get(run) == "pass"]
        return evaluators.run_passed(status, [{"passed": gate} for gate in gates])

    def from_assessments(self, table: Table) -> None:
        for _, row in table.records():
            if row.get("status") == "ok":
                self.assessment[row["run_id"]] = row


def _column(table: Table, name: str) -> Any:
    return table.column(name) if table.has(name) else repeat(None)


def check_scores(table: Table, facts: Facts, check: Checker) -> None:
    """Each score row against what its inputs give: a pass a rule decides from the value
    (:func:`evaluators.expected_pass`; an answer check at its case's threshold, from
    ``agent_metrics.answer_details``), and its ``experiment`` and ``case_id``, its run's."""
    for i, row in table.records():
        run, name = row["run_id"], row.get("name")
        _, expected = facts.score_pass(row)
        if expected is not None:
            threshold = facts.checks.get(run, (None, None, False))[1] if name == "answer" else None
            check.check(i, row, "passed", int(expected),
                        f"passed = evaluators.expected_pass({name}, its value"
                        + (f", threshold {threshold:g})" if threshold is not None else ")"), "recompute")
        if run in facts.places:
            experiment, case = facts.places[run]
            check.check(i, row, "experiment", experiment, "experiment = the run's runs.experiment", "cross-sheet")
            check.check(i, row, "case_id", case, "case_id = the run's runs.case_id", "cross-sheet")


def _plus(a: float | None, b: float | None) -> float | None:
    return a if b is None else b if a is None else a + b


def thread_links(runs: Table) -> dict[int, tuple[int, str | None]]:
    """Row -> (its turn, the run it resumed) as its thread gives them: the rows of one
    ``thread_id`` ordered by ``started_at`` (ties by ``run_id``) are turns 1, 2, ...; a row
    with a ``resume`` resumed the row before it when that one has ``interrupts``."""
    if not runs.has("thread_id"):
        return {}
    threads: dict[str, list[tuple[str, str, int, bool, bool]]] = defaultdict(list)
    for i, row in runs.records():
        if not is_empty(row.get("thread_id")):
            threads[str(row["thread_id"])].append((str(row.get("started_at") or ""), str(row["run_id"]), i,
                                                   not is_empty(row.get("resume")),
                                                   not is_empty(row.get("interrupts"))))
    out: dict[int, tuple[int, str | None]] = {}
    for members in threads.values():
        members.sort()
        for turn, (_, run_id, i, resumes, _asked) in enumerate(members, start=1):
            before = members[turn - 2] if turn > 1 else None
            out[i] = (turn, before[1] if before is not None and resumes and before[4] else None)
    return out


def check_runs(runs: Table, facts: Facts, tolerance: float) -> Iterator[Finding]:
    check = Checker(runs, tolerance)
    llm_counts = facts.counts.get("llm_calls", Counter())
    links = thread_links(runs)
    for i, row in runs.records():
        run = row["run_id"]
        if runs.has("turn") and runs.has("started_at"):
            turn, resumed = links.get(i, (None, None))
            check.check(i, row, "turn", turn, "turn = the run's place among the runs of its thread_id by "
                        "started_at (ties by run_id)", "recompute")
            check.check(i, row, "resumed_from", resumed, "resumed_from = the run before it in its thread, when "
                        "it has a resume and that run has interrupts", "recompute")
        check.check(i, row, "total_llm_calls", llm_counts.get(run, 0),
                    "total_llm_calls = the run's rows in llm_calls", "cross-sheet")
        totals = facts.call_totals.get(run, [None] * len(CALL_SUMS))
        if totals is not None:
            tokens, cost, cache_read, cache_write, reasoning = totals
            check.check(i, row, "total_tokens", tokens,
                        "total_tokens = the sum of prompt_tokens + completion_tokens over the run's llm_calls",
                        "cross-sheet")
            check.check(i, row, "total_cost", costs.usd(cost) if cost is not None else None,
                        "total_cost = the sum over the run's llm_calls of harness.costs.cost_of(the call's price, its "
                        "tokens by kind).total_cost (calls without a price left out)", "cross-sheet")
            for column, value, parts in (("cache_read_tokens", cache_read, "cache_read_tokens"),
                                         ("cache_write_tokens", cache_write,
                                          "cache_write_5m_tokens + cache_write_1h_tokens"),
                                         ("reasoning_tokens", reasoning, "reasoning_tokens")):
                check.check(i, row, column, value, f"{column} = the sum of {parts} over the run's llm_calls",
                            "cross-sheet")
        check.check(i, row, "total_steps", len(facts.steps.get(run, ())),
                    "total_steps = distinct step_number of the run's node events in langgraph_events",
                    "cross-sheet")
        check.check(i, row, "tools_used", sorted(facts.tools.get(run, ())),
                    "tools_used = the distinct tool_name of the run's tool_calls rows", "cross-sheet")
        check.check(i, row, "evaluation_score", facts.evaluation.get(run),
                    "evaluation_score = the run's evaluations.overall_score", "cross-sheet")
        if facts.scored or not is_empty(row.get("passed")):
            expected = facts.passed(row)
            check.check(i, row, "passed", None if expected is None else int(expected),
                        "passed = evaluators.run_passed(status, the run's scores: passes, errors)" if facts.scored else
                        "passed = evaluators.run_passed(status, [completed, the answer check at its threshold, "
                        "tool F1 = 1 when the case requires its tools])", "cross-sheet")
        assessment = facts.assessment.get(run)
        if assessment is not None:
            for column in ("risk_level", "credit_score", "confidence"):
                value = assessment.get(column)
                expected = value.strip() if isinstance(value, str) else number_or_none(value)
                check.check(i, row, column, expected if not is_empty(value) else None,
                            f"{column} = the run's assessments.{column}", "cross-sheet")
    yield from check.findings


def check_log_tests(log_tests: Table, facts: Facts, tolerance: float) -> Iterator[Finding]:
    check = Checker(log_tests, tolerance)
    for i, row in log_tests.records():
        run = row["run_id"]
        counts = {name: facts.counts.get(name, Counter()).get(run, 0) for name in COUNTED_SHEETS}
        for name in COUNTED_SHEETS:
            check.check(i, row, name, counts[name], f"{name} = the run's rows in {name}", "cross-sheet")
        check.check(i, row, "total_sheets_logged", total_sheets_logged(counts),
                    "total_sheets_logged = sheets with at least one row of the run", "cross-sheet")
        required, written = _profile(row)
        status = facts.verified[run] = verification_status(counts, required, written)
        check.check(i, row, "verification_status", status,
                    "verification_status = pass / partial / fail from the rows present "
                    "(required sheets of the run's profile, rows written)", "cross-sheet")
    yield from check.findings


def _profile(row: dict[str, Any]) -> tuple[list[str], dict[str, int] | None]:
    """Required sheets (``required_sheets``, else the profile's) and rows written."""
    try:
        required = parse_list(row.get("required_sheets"))
    except ValueError:
        required = None
    if required is None:
        profile = row.get("profile") if isinstance(row.get("profile"), str) else ""
        required = list(PROFILES.get(profile or "generic", PROFILES["generic"]))
    written: dict[str, int] | None = None
    raw = row.get("written_rows")
    if isinstance(raw, str) and raw.strip().startswith("{"):
        try:
            data = json.loads(raw)
            written = {str(k): int(v) for k, v in data.items()}
        except (ValueError, TypeError):
            written = None
    return required, written
