"""Scores: one model for every judgement of a run, and the one definition of a run's pass.

A score is a value (a finite number, or none), a pass (yes, no, or none: a score that does
not gate), an explanation, a name, where it came from (``rule``: a built-in check; ``llm``: a
judge; ``code``: a user's scorer; ``human``: a label) and, when it could not be made, the
error. "Unscored" is an empty value with its error, never 0.

Pass, defined once (:func:`run_passed`): a run passes when it completed and every score of it
that has a pass holds; a run with no such score has no pass.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from numbers import Real
from typing import Any, Literal

ScoreSource = Literal["rule", "llm", "code", "human"]
SCORE_SOURCES: tuple[str, ...] = ("rule", "llm", "code", "human")


@dataclass(frozen=True, slots=True)
class Score:
    """What a scorer returns: ``value`` (a finite number, or None), ``passed`` (True/False, or
    None for a score that does not gate the run), an ``explanation`` for people and, when the
    scorer names several scores or wants another name than its own, ``name``.
    ``higher_is_better=False`` says that a lower value is better (a count of model calls, a
    cost), so a comparison reads a fall as an improvement; None leaves it to the scorer's
    ``higher_is_better`` attribute, else higher."""

    value: float | None = None
    passed: bool | None = None
    explanation: str = ""
    name: str | None = None
    higher_is_better: bool | None = None


@dataclass(frozen=True, slots=True)
class ScoreResult:
    """One named score as it is stored: a :class:`Score` made plain, or the error that kept it
    from being made (then no value, and it does not pass)."""

    name: str
    value: float | None
    passed: bool | None
    explanation: str = ""
    error: str | None = None
    higher_is_better: bool | None = None  # which way the score is better, when its scorer said


def _problem(result: Any) -> str:
    shown = repr(result)
    shown = shown if len(shown) <= 80 else shown[:77] + "..."
    return (f"a scorer returns a number, a bool, a harness.Score or a dict of name -> those, "
            f"not {type(result).__name__} {shown}")


def _one(name: str, result: Any) -> ScoreResult:
    if isinstance(result, bool):
        return ScoreResult(name, 1.0 if result else 0.0, result)
    if isinstance(result, Score):
        value, passed = result.value, result.passed
        if value is not None and (isinstance(value, bool) or not isinstance(value, Real)):
            return ScoreResult(name, None, False, str(result.explanation or ""), f"Score.value: {_problem(value)}")
        if passed is not None and not isinstance(passed, bool):
            return ScoreResult(name, None, False, str(result.explanation or ""),
                               f"Score.passed must be True, False or None, not {passed!r}")
        if value is not None and not math.isfinite(float(value)):
            return ScoreResult(name, None, False, str(result.explanation or ""),
                               f"Score.value is {float(value)!r}, not a finite number")
        direction = result.higher_is_better if isinstance(result.higher_is_better, bool) else None
        return ScoreResult(name, None if value is None else float(value), passed, str(result.explanation or ""),
                           higher_is_better=direction)
    if isinstance(result, Real):
        if not math.isfinite(float(result)):
            return ScoreResult(name, None, False, "", f"the scorer returned {float(result)!r}, not a finite number")
        return ScoreResult(name, float(result), None)
    return ScoreResult(name, None, False, "", _problem(result))


def score_results(name: str, result: Any) -> list[ScoreResult]:
    """A scorer's return value as named scores. ``name`` is the scorer's own name: a number is
    its value; a bool is value 1 or 0 and its pass; a :class:`Score` keeps its fields (its
    ``name``, if set, replaces the scorer's); a mapping gives one score per key (the key is its
    name), each any of those. Anything else, NaN or an infinity is a score with an error and no value, which
    does not pass: the scorer failed, the run is not judged to have passed."""
    if isinstance(result, Mapping) and not isinstance(result, Score):
        if not result:
            return [ScoreResult(name, None, False, "", "the scorer returned an empty dict")]
        out = []
        for key, value in result.items():
            if not isinstance(key, str) or not key.strip():
                out.append(ScoreResult(name, None, False, "", f"a score name must be a non-empty text, not {key!r}"))
            elif isinstance(value, Mapping):
                out.append(ScoreResult(key, None, False, "", _problem(value)))
            else:
                out.append(_one(key, value))  # the key names it (a Score's own name is for a lone Score)
        return out
    if isinstance(result, Score) and result.name:
        return [_one(result.name, result)]
    return [_one(name, result)]


def failed_score(name: str, error: BaseException | str) -> ScoreResult:
    """The score of a scorer that raised: its error, no value, no pass."""
    text = error if isinstance(error, str) else (f"{type(error).__name__}: {error}" if str(error)
                                                 else type(error).__name__)
    return ScoreResult(name, None, False, "", text)


def run_passed(status: str | None, passes: Iterable[bool | int | None]) -> bool | None:
    """Whether a run passed: it completed and every score of it that has a pass holds. None
    (no pass) when none of its scores has a pass, whatever its status: such a run is left out
    of pass rates, which say how many runs they cover."""
    gates = [bool(p) for p in passes if p is not None]
    if not gates:
        return None
    return status == "completed" and all(gates)


def pass_rate(passes: Iterable[bool | int | None]) -> tuple[float | None, int]:
    """The share of runs that passed among those that have a pass, and how many have one
    (None and 0 when none has)."""
    known = [bool(p) for p in passes if p is not None]
    return (sum(known) / len(known) if known else None), len(known)


#: What each built-in score is made by (the ``scorer`` column), by name.
BUILT_IN_SCORERS: Mapping[str, str] = {
    "completed": "harness.scorers.completed", "answer": "harness.scorers", "tool_f1": "harness.scorers.tool_f1",
    "trajectory_match": "harness.scorers.trajectory_match", "agent_metrics": "evaluators.agent_overall",
    "evaluation": "evaluators.evaluation_overall", "judge": "evaluators.LLMJudge",
    "log_test": "harness.tracing.verify.verification_status",
}


@dataclass(frozen=True, slots=True)
class SourcedScore:
    """A score with where it came from: ``source`` (rule, llm, code, human) and ``scorer``."""

    result: ScoreResult
    source: ScoreSource
    scorer: str


def _last(rows_by_sheet: Mapping[str, Iterable[Mapping[str, Any]]], sheet: str) -> Mapping[str, Any] | None:
    rows = list(rows_by_sheet.get(sheet) or ())
    return rows[-1] if rows else None


def _number(value: Any) -> float | None:
    if value is None or isinstance(value, bool) or not isinstance(value, Real):
        return None
    return float(value) if math.isfinite(float(value)) else None


def answer_score(answer: Mapping[str, Any]) -> SourcedScore:
    """A dataset case's answer check (``{"check", "score", "threshold", "answer", "reference",
    "reason"}``) as the ``answer`` score: its score, passing at its threshold; a check that
    could not be scored is an error (no value) that does not pass."""
    check = str(answer.get("check") or "answer")
    score, threshold = _number(answer.get("score")), _number(answer.get("threshold"))
    explanation = (f"{check} check: answer {_quoted(answer.get('answer'))} against reference "
                   f"{_quoted(answer.get('reference'))}, passes at {threshold:g}" if threshold is not None
                   else f"{check} check")
    if answer.get("reason"):
        explanation += f" ({answer['reason']})"
    source = "llm" if check == "judge" else "rule"
    scorer = f"harness.scorers.{check}"
    if score is None:
        return SourcedScore(ScoreResult("answer", None, False, explanation,
                                        str(answer.get("reason") or "the answer could not be scored")), source, scorer)
    passed = threshold is None or score >= threshold - 1e-12
    return SourcedScore(ScoreResult("answer", score, passed, explanation), source, scorer)


def _quoted(value: Any, width: int = 80) -> str:
    text = "—" if value is None else str(value)
    return repr(text if len(text) <= width else text[:width - 1] + "…")


def built_in_scores(rows_by_sheet: Mapping[str, Iterable[Mapping[str, Any]]], *, status: str | None,
                    experiment: bool = False, answer: Mapping[str, Any] | None = None,
                    require_tools: bool = False) -> list[SourcedScore]:
    """The judgements a run's own rows hold, as scores (the sheets keep their columns):

    - ``completed`` (a run of an experiment): value 1 or 0, passes when the run completed, so
      a case without other checks passes when its run does;
    - ``answer`` (a case with an answer check): see :func:`answer_score`;
    - ``tool_f1`` (``tool_selections``): F1 of the tools that ran; it gates only a case that
      sets ``require_tools`` (then it passes at 1);
    - ``trajectory_match`` and ``agent_metrics`` (``agent_metrics``): values, never gates;
    - ``evaluation`` (a credit run's ``evaluations``): its overall score, passing when its
      eval_status is ``good``;
    - ``judge`` (``llm_judge_results``): the judge's overall score (an error when the judge
      failed), never a gate.

    A credit run's log test (``log_test``) is scored where the store counts its rows."""
    out: list[SourcedScore] = []
    if experiment:
        done = status == "completed"
        out.append(SourcedScore(ScoreResult("completed", 1.0 if done else 0.0, done,
                                            "the run completed" if done else f"the run {status or 'did not end'}"),
                                "rule", BUILT_IN_SCORERS["completed"]))
    if answer is not None:
        out.append(answer_score(answer))
    selection = _last(rows_by_sheet, "tool_selections")
    if selection is not None and _number(selection.get("f1_score")) is not None:
        f1 = _number(selection.get("f1_score"))
        passed = (f1 >= 1.0 - 1e-12) if require_tools else None
        out.append(SourcedScore(ScoreResult("tool_f1", f1, passed, str(selection.get("reasoning") or "")),
                                "rule", BUILT_IN_SCORERS["tool_f1"]))
    metrics = _last(rows_by_sheet, "agent_metrics")
    if metrics is not None:
        trajectory = _number(metrics.get("trajectory_match"))
        if trajectory is not None:
            details = metrics.get("trajectory_details")
            explanation = ""
            if isinstance(details, Mapping):
                explanation = f"actual {details.get('actual')} against expected {details.get('expected')}"
            out.append(SourcedScore(ScoreResult("trajectory_match", trajectory, None, explanation),
                                    "rule", BUILT_IN_SCORERS["trajectory_match"]))
        overall = _number(metrics.get("overall_score"))
        if overall is not None:
            out.append(SourcedScore(ScoreResult("agent_metrics", overall, None,
                                                f"eval_status {metrics.get('eval_status') or '—'}"),
                                    "rule", BUILT_IN_SCORERS["agent_metrics"]))
    evaluation = _last(rows_by_sheet, "evaluations")
    if evaluation is not None:
        overall = _number(evaluation.get("overall_score"))
        label = evaluation.get("eval_status")
        result = (ScoreResult("evaluation", overall, label == "good", f"eval_status {label}") if overall is not None
                  else ScoreResult("evaluation", None, False, "", "the run has no evaluation score"))
        out.append(SourcedScore(result, "rule", BUILT_IN_SCORERS["evaluation"]))
    judge = _last(rows_by_sheet, "llm_judge_results")
    if judge is not None:
        overall = _number(judge.get("overall_score"))
        reasoning = str(judge.get("overall_reasoning") or "")
        result = (ScoreResult("judge", overall, None, reasoning) if overall is not None
                  else ScoreResult("judge", None, None, reasoning, str(judge.get("error") or "the judge failed")))
        out.append(SourcedScore(result, "llm", BUILT_IN_SCORERS["judge"]))
    return out


def log_test_score(verification_status: str | None) -> SourcedScore:
    """A credit run's log test as a score: it passes when every sheet the run must fill got its rows."""
    passed = verification_status == "pass"
    return SourcedScore(ScoreResult("log_test", 1.0 if passed else 0.0, passed,
                                    f"verification_status {verification_status or '—'}"),
                        "rule", BUILT_IN_SCORERS["log_test"])


def score_row(scored: SourcedScore) -> dict[str, Any]:
    """A score as a row of the ``scores`` sheet (the run id, time and key are the caller's)."""
    r = scored.result
    return {"name": r.name, "value": r.value, "passed": None if r.passed is None else int(r.passed),
            "explanation": r.explanation or None, "source": scored.source, "scorer": scored.scorer,
            "error": r.error, "higher_is_better": None if r.higher_is_better is None else int(r.higher_is_better)}
