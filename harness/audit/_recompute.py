"""Recomputing the Rule and Formula columns of a row from the row's other columns.

Every value is recomputed with the function that produced it (:mod:`evaluators`,
:func:`harness.costs.cost`); nothing here re-states a formula. A derived value is checked
against what the *inputs* give, never against another derived cell, so one edited cell
yields one finding. A row whose inputs are partly empty cannot be recomputed and is
skipped; a row whose inputs are all empty must have its derived cells empty too.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import evaluators

from .. import costs
from ..schema import sheet
from ..store import json_text
from ._model import Finding, FindingKind
from ._tables import Table
from ._values import (
    as_int,
    as_number,
    is_empty,
    number_or_none,
    is_truncated,
    parse_json,
    parse_list,
    parse_numbers,
    same,
)

#: The five judge dimensions (the judge's scores), in the order ``judge_overall`` takes them.
JUDGE_DIMENSIONS = sheet("llm_judge_results").columns_of("LLM", "float")
#: The six agent_metrics parts (its rule scores), in the order ``agent_overall`` takes them.
AGENT_PARTS = sheet("agent_metrics").columns_of("Rule", "float")
#: The three parts of an evaluation's overall score.
EVALUATION_PARTS = sheet("evaluations").columns_of("Rule", "float")


class Checker:
    """Collects findings for one table: ``check(i, column, expected, rule)`` compares the
    cell of row ``i`` with the expected value."""

    def __init__(self, table: Table, tolerance: float) -> None:
        self.table = table
        self.tolerance = tolerance
        self.findings: list[Finding] = []

    def check(self, i: int, row: Mapping[str, Any], column: str, expected: Any, rule: str,
              kind: FindingKind = "recompute") -> None:
        if not self.table.has(column):
            return
        found = row[column]
        if not same(found, expected, self.tolerance):
            tab, number = self.table.locate(i)
            if isinstance(expected, (list, tuple, dict)):  # shown as the cell holds a list: compact JSON
                expected = json_text(expected)
            self.findings.append(Finding(tab, number, column, found, expected, rule, kind))

    def invalid(self, i: int, row: Mapping[str, Any], column: str, error: Exception, rule: str) -> None:
        tab, number = self.table.locate(i)
        self.findings.append(Finding(tab, number, column, row[column], f"valid input ({error})", rule, "recompute"))


def _numbers(row: Mapping[str, Any], columns: Sequence[str]) -> list[float | None] | None:
    """The cells as numbers; None when one does not parse (the type check reports it)."""
    try:
        return [as_number(row[c]) for c in columns]
    except ValueError:
        return None


def status_of(score: float | None) -> str | None:
    """``evaluators.eval_status``, or None for a score it refuses (reported elsewhere)."""
    try:
        return evaluators.eval_status(score)
    except ValueError:
        return None


def _overall(check: Checker, i: int, row: Mapping[str, Any], parts: Sequence[str], column: str,
             compute: Callable[[list[float | None]], float | None], rule: str,
             all_required: bool = True, known: Mapping[str, float] | None = None) -> float | None:
    """Check ``column`` (and ``eval_status``) against ``compute(parts)``, taking a part from
    ``known`` (its value recomputed elsewhere) before the cell. Returns the recomputed
    overall, or the cell's own value when the parts cannot give one."""
    values = _numbers(row, parts)
    if values is None:
        return None
    if known:
        values = [known.get(name, value) for name, value in zip(parts, values)]
    filled = [v for v in values if v is not None]
    if all_required and 0 < len(filled) < len(values):
        expected = number_or_none(row[column])
    else:
        try:
            expected = compute(values) if filled else None
        except ValueError as exc:
            check.invalid(i, row, parts[0], exc, rule)
            return None
        check.check(i, row, column, expected, rule)
    if "eval_status" in row:
        check.check(i, row, "eval_status", status_of(expected), f"eval_status = eval_status({column})")
    return expected


# --- per sheet ------------------------------------------------------------------------------

def tool_selections(table: Table, check: Checker) -> dict[str, Any]:
    """correct/missing/extra tools, precision, recall, f1 from selected and expected tools.
    Returns run_id -> (the recomputed :class:`evaluators.ToolSelection`, the expected tools)
    of the last row of each run."""
    rule = "{} = tool_selection(selected_tools, expected_tools).{}"
    fields = {"correct_tools": "correct", "missing_tools": "missing", "extra_tools": "extra",
              "precision": "precision", "recall": "recall", "f1_score": "f1"}
    by_run: dict[str, Any] = {}
    for i, row in table.records():
        try:
            selected, expected = parse_list(row["selected_tools"]), parse_list(row["expected_tools"])
        except ValueError:
            continue
        if selected is None or expected is None:
            continue
        try:
            result = evaluators.tool_selection(selected, expected)
        except ValueError as exc:
            check.invalid(i, row, "selected_tools", exc, "tool_selection(selected_tools, expected_tools)")
            continue
        for column, attr in fields.items():
            value = getattr(result, attr)
            check.check(i, row, column, list(value) if isinstance(value, tuple) else value,
                        rule.format(column, attr))
        by_run[row["run_id"]] = (result, frozenset(expected))
    return by_run


#: The llm_calls columns that count a kind of the call's tokens, as :class:`harness.costs.Tokens` names them.
TOKEN_KINDS = {"cache_read_tokens": "cache_read", "cache_write_5m_tokens": "cache_write_5m",
               "cache_write_1h_tokens": "cache_write_1h", "reasoning_tokens": "reasoning",
               "audio_input_tokens": "audio_input", "audio_output_tokens": "audio_output"}
#: What :func:`llm_calls` sums per run, in this order (the runs columns :mod:`._crossref` checks).
CALL_SUMS = ("total_tokens", "total_cost", "cache_read_tokens", "cache_write_tokens", "reasoning_tokens")

CallSums = list[float | int | None]


def llm_calls(table: Table, check: Checker) -> dict[str, CallSums | None]:
    """total_tokens = prompt + completion; the three costs and cost_note from
    ``harness.costs.cost_of`` at the price of the model the response reported in the table
    the row names (``price_table``: a bundled table of that date, or the registered prices
    this audit was given; an empty one: the prices in force), over the row's tokens by kind
    (an unknown model has empty costs). Returns run -> the sums over its calls of
    :data:`CALL_SUMS` as its calls' inputs give them (each None when no call has one), or None
    for a run with a call whose token counts are not whole numbers (the type check reports
    that cell)."""
    by_run: dict[str, CallSums | None] = {}
    for i, row in table.records():
        sums = by_run.setdefault(row["run_id"], [None] * len(CALL_SUMS))
        try:
            prompt, completion = as_int(row["prompt_tokens"]), as_int(row["completion_tokens"])
            kinds = {name: as_int(row.get(column)) for column, name in TOKEN_KINDS.items()}
        except ValueError:
            by_run[row["run_id"]] = None
            continue
        total = None if prompt is None else prompt + (completion or 0)
        check.check(i, row, "total_tokens", total, "total_tokens = prompt_tokens + completion_tokens")
        price = _call_cost(i, row, check, prompt, completion, kinds)
        if sums is not None:
            written = (None if kinds["cache_write_5m"] is None and kinds["cache_write_1h"] is None
                       else (kinds["cache_write_5m"] or 0) + (kinds["cache_write_1h"] or 0))
            for k, value in enumerate((total, price.total_cost if price is not None else None, kinds["cache_read"],
                                       written, kinds["reasoning"])):
                sums[k] = _plus(sums[k], value)
    return by_run


def _plus(a: Any, b: Any) -> Any:
    return a if b is None else b if a is None else a + b


def _call_cost(i: int, row: dict[str, Any], check: Checker, prompt: int | None, completion: int | None,
               kinds: dict[str, int | None]) -> costs.Cost | None:
    """Check the row's costs against what its tokens give at its price; returns the cost it
    should have (as written, for a price this audit was not given)."""
    model = row["model"] if type(row["model"]) is str and row["model"] else None
    table = row.get("price_table")
    table = table.strip() if type(table) is str and table.strip() else None
    if table is None:
        price, where = costs.price_for(model), "the prices in force"
    else:
        price, where = costs.price_in_table(model, table), f"price table {table}"
        if price is None:  # priced where it ran, with prices this audit was not given
            return _own_cost(i, row, check, table)
    expected = None
    if price is not None and prompt is not None and completion is not None:
        try:
            expected = costs.cost_of(price, costs.Tokens(prompt, completion, **kinds), model)
        except ValueError as exc:
            check.invalid(i, row, "prompt_tokens", exc, "harness.costs.cost_of(price, tokens by kind)")
            return None
    values = ({"input_cost": expected.input_cost, "output_cost": expected.output_cost,
               "total_cost": expected.total_cost, "cost_note": expected.note} if expected is not None else {})
    for column in ("input_cost", "output_cost", "total_cost", "cost_note"):
        check.check(i, row, column, values.get(column),
                    f"{column} = harness.costs.cost_of(the price of model in {where}, its tokens by kind)"
                    f".{column.replace('cost_note', 'note')}"
                    + ("" if price is not None else " (no price for this model: empty)"))
    return expected


def _own_cost(i: int, row: dict[str, Any], check: Checker, table: str) -> costs.Cost | None:
    """A call priced with prices this audit does not know (``price_table`` names a
    registered price or a prices file it was not given with ``--prices``, or a bundled
    table this harness does not ship): its input and output costs are taken as written,
    their sum checked."""
    spent = [number_or_none(row[c]) for c in ("input_cost", "output_cost")]
    if any(v is None for v in spent):
        return None
    total = costs.usd(spent[0] + spent[1])
    check.check(i, row, "total_cost", total, f"total_cost = input_cost + output_cost (priced with {table}: give "
                "the audit --prices to recompute each)")
    return costs.Cost(spent[0], spent[1], total)


def evaluations(table: Table, check: Checker, selections: Mapping[str, Any]) -> dict[str, float | None]:
    """tool_selection_score = the F1 of the run's tool selection (``selections`` as
    :func:`tool_selections` returns them); overall_score = evaluation_overall(
    tool, data, synthesis); eval_status. Returns run_id -> the overall the parts give (the
    last row of a run with one)."""
    by_run: dict[str, float | None] = {}
    for i, row in table.records():
        selection, _ = selections.get(row["run_id"], (None, None))
        known = {}
        if selection is not None:
            known["tool_selection_score"] = selection.f1
            check.check(i, row, "tool_selection_score", selection.f1,
                        "tool_selection_score = tool_selection(selected_tools, expected_tools).f1 "
                        "of the run's tool_selections row", "cross-sheet")
        overall = _overall(check, i, row, EVALUATION_PARTS, "overall_score",
                           lambda v: evaluators.evaluation_overall(*v),
                           "overall_score = evaluation_overall(tool_selection_score, data_quality_score, "
                           "synthesis_score)", known=known)
        if overall is not None or row["run_id"] not in by_run:
            by_run[row["run_id"]] = overall
    return by_run


def llm_judge_results(table: Table, check: Checker) -> dict[str, float | None]:
    """overall_score = judge_overall(five dimensions) (empty when any is empty); eval_status."""
    by_run: dict[str, float | None] = {}
    for i, row in table.records():
        by_run[row["run_id"]] = _overall(
            check, i, row, JUDGE_DIMENSIONS, "overall_score", evaluators.judge_overall,
            "overall_score = judge_overall(the five dimension scores)", all_required=False)
    return by_run


def agent_metrics(table: Table, check: Checker) -> None:
    """tool_choice_correctness / tool_completeness = precision / recall of tool_selection(
    tool_details.selected, tool_details.expected); trajectory_match = trajectory_match(
    trajectory_details.actual, trajectory_details.expected).score; overall_score =
    agent_overall(six parts) (empty parts renormalised away); eval_status."""
    tools = Memo(lambda cell: _from_details(cell, ("selected", "expected"), evaluators.tool_selection))
    paths = Memo(lambda cell: _from_details(cell, ("actual", "expected"), evaluators.trajectory_match))
    for i, row in table.records():
        known: dict[str, float] = {}
        ts, error = tools(row.get("tool_details"))
        if error is not None:
            check.invalid(i, row, "tool_details", error, "tool_selection(selected, expected)")
        if ts is not None:
            known.update(tool_choice_correctness=ts.precision, tool_completeness=ts.recall)
            check.check(i, row, "tool_choice_correctness", ts.precision,
                        "tool_choice_correctness = tool_selection(tool_details.selected, "
                        "tool_details.expected).precision")
            check.check(i, row, "tool_completeness", ts.recall,
                        "tool_completeness = tool_selection(tool_details.selected, tool_details.expected).recall")
        tm, error = paths(row.get("trajectory_details"))
        if error is not None:
            check.invalid(i, row, "trajectory_details", error, "trajectory_match(actual, expected)")
        if tm is not None:
            known["trajectory_match"] = tm.score
            check.check(i, row, "trajectory_match", tm.score,
                        "trajectory_match = trajectory_match(trajectory_details.actual, "
                        "trajectory_details.expected).score")
        _overall(check, i, row, AGENT_PARTS, "overall_score", lambda v: evaluators.agent_overall(**dict(zip(
                     ("intent", "plan", "tool_choice", "tool_completeness", "trajectory", "answer"), v))),
                 "overall_score = agent_overall(" + ", ".join(AGENT_PARTS) + ")", all_required=False,
                 known=known)


def _from_details(value: Any, keys: tuple[str, str], fn: Callable[[list[str], list[str]], Any]) -> Any:
    """``fn`` of two name lists in a JSON details cell; None when the cell is empty, cut, or
    not of that shape."""
    if value is None or is_truncated(value):
        return None
    try:
        data = parse_json(value)
    except ValueError:
        return None
    if not isinstance(data, dict) or not all(isinstance(data.get(k), list) for k in keys):
        return None
    return fn(data[keys[0]], data[keys[1]])


class Memo:
    """Recomputations cached by their input cells, for group rows (consistency, cross-model)
    whose inputs repeat (workbooks written before each group row was written once held one
    per run of the group). A ValueError is a result too."""

    def __init__(self, fn: Callable[..., Any]) -> None:
        self._fn = fn
        self._done: dict[tuple[Any, ...], tuple[Any, ValueError | None]] = {}

    def __call__(self, *cells: Any) -> tuple[Any, ValueError | None]:
        if cells not in self._done:
            try:
                self._done[cells] = (self._fn(*cells), None)
            except ValueError as exc:
                self._done[cells] = (None, exc)
        return self._done[cells]


def _consistency(levels_cell: Any, scores_cell: Any) -> tuple[int, Any] | None:
    levels, scores = parse_list(levels_cell), parse_numbers(scores_cell)
    if levels is None and scores is None:
        return None
    return len(levels or []), evaluators.consistency(levels or [], scores or [])


def consistency_scores(table: Table, check: Checker) -> None:
    """The four consistency numbers and eval_status from the risk_levels and credit_scores
    text; num_runs = the number of results listed."""
    rule = "{} = consistency(risk_levels, credit_scores).{}"
    fields = {"risk_level_consistency": "risk_level_consistency", "score_consistency": "score_consistency",
              "score_std": "score_std", "overall_consistency": "overall", "eval_status": "eval_status"}
    recompute = Memo(_consistency)
    for i, row in table.records():
        found, error = recompute(row["risk_levels"], row["credit_scores"])
        if error is not None:
            check.invalid(i, row, "risk_levels", error, "consistency(risk_levels, credit_scores)")
        if found is None:
            continue
        n, result = found
        check.check(i, row, "num_runs", n, "num_runs = number of risk_levels listed")
        for column, attr in fields.items():
            check.check(i, row, column, getattr(result, attr), rule.format(column, attr))


def group_run_ids(table: Table, check: Checker, known: set[str] | None) -> None:
    """``run_ids`` of a group row (consistency, cross-model): runs of the ``runs`` sheet,
    the row's own ``run_id`` (the run that completed the group) among them, and for a
    consistency row one per result listed in ``risk_levels``."""
    if not table.has("run_ids"):
        return
    for i, row in table.records():
        try:
            ids = parse_list(row["run_ids"])
        except ValueError as exc:
            check.invalid(i, row, "run_ids", exc, "run_ids = the runs the row covers")
            continue
        if ids is None:
            continue
        unknown = [r for r in ids if known is not None and r not in known]
        if unknown:
            check.check(i, row, "run_ids", [r for r in ids if r not in unknown],
                        "run_ids = runs of the runs sheet", "reference")
        elif row["run_id"] not in ids:
            check.check(i, row, "run_ids", [*ids, row["run_id"]],
                        "run_ids holds the row's run_id (the run that completed the group)", "cross-sheet")
        elif table.has("risk_levels"):
            try:
                levels = parse_list(row["risk_levels"])
            except ValueError:  # reported by consistency_scores
                continue
            if levels is not None and len(levels) != len(ids):
                tab, number = table.locate(i)
                check.findings.append(Finding(tab, number, "run_ids", row["run_ids"], f"{len(levels)} run ids",
                                              "run_ids = one run per result in risk_levels", "recompute"))


def model_results(value: Any) -> dict[str, tuple[Any, Any, Any]] | None:
    """``model_results`` JSON as model -> (risk_level, credit_score, confidence). Accepts a
    mapping of model -> ``{risk_level, credit_score, confidence}`` or -> a 3-list, or a list
    of such objects carrying ``model``. None when empty or cut by the exporter."""
    if is_empty(value) or is_truncated(value):
        return None
    data = json.loads(value) if isinstance(value, str) else value
    items = data.items() if isinstance(data, dict) else (
        (entry.get("model"), entry) for entry in data if isinstance(entry, dict))
    results: dict[str, tuple[Any, Any, Any]] = {}
    for model, result in items:
        if isinstance(result, dict):
            result = (result.get("risk_level"), result.get("credit_score"), result.get("confidence"))
        if not isinstance(result, (list, tuple)) or len(result) != 3:
            raise ValueError(f"result of {model!r} is not (risk_level, credit_score, confidence)")
        results[str(model)] = tuple(result)  # type: ignore[assignment]
    return results


def _agreement(cell: Any) -> tuple[dict[str, Any], Any] | None:
    try:
        results = model_results(cell)
    except (TypeError, AttributeError) as exc:
        raise ValueError(str(exc)) from None
    return None if results is None else (results, evaluators.cross_model_agreement(results))


def cross_model_eval(table: Table, check: Checker, notes: list[str]) -> None:
    """The agreement numbers and eval_status from model_results; num_models and
    models_compared from its models."""
    rule = "{} = cross_model_agreement(model_results).{}"
    fields = ("risk_level_agreement", "credit_score_mean", "credit_score_std", "credit_score_range",
              "confidence_agreement", "cross_model_agreement", "eval_status")
    recompute = Memo(_agreement)
    for i, row in table.records():
        if is_truncated(row["model_results"]):
            tab, number = table.locate(i)
            notes.append(f"{tab} row {number}: model_results was cut by the exporter; not recomputed")
            continue
        found, error = recompute(row["model_results"])
        if error is not None:
            check.invalid(i, row, "model_results", error, "cross_model_agreement(model_results)")
        if found is None:
            continue
        results, agreement = found
        check.check(i, row, "num_models", len(results), "num_models = number of models in model_results")
        check.check(i, row, "models_compared", list(results), "models_compared = the models of model_results")
        for column in fields:
            check.check(i, row, column, getattr(agreement, column), rule.format(column, column))
