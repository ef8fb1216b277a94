"""Scores: one model for every judgement of a run, and the one definition of a run's pass.

A score is a value (a finite number, or none), a pass (yes, no, or none: a score that does
not gate), an explanation, a name, where it came from (``rule``: a built-in check; ``llm``: a
judge; ``code``: a user's scorer; ``human``: a label) and, when it could not be made, the
error. "Unscored" is an empty value and an empty pass with its error, never 0 and never a fail.

Pass, defined once (:func:`run_passed`), in three values (Kleene's logic): a run fails when it
did not complete or a score that gates it fails; otherwise its pass is unknown while one of
its scores could not be made (an error, or a scorer that has not run yet: its score is stored
as the error :data:`NOT_SCORED` until it runs); otherwise it passes when a score gates it,
and has no pass when none does.
"""

from __future__ import annotations

import math
import reprlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from numbers import Real
from typing import Any, Literal

ScoreSource = Literal["rule", "llm", "code", "human"]
SCORE_SOURCES: tuple[str, ...] = ("rule", "llm", "code", "human")
#: The longest score name taken (a longer one is an error score under the scorer's own name).
MAX_NAME_CHARS = 200
#: Scores one call of a scorer may return (a dict of more is one error score).
MAX_SCORES_PER_CALL = 100
#: The error of a scorer's score while the scorer has not run on the run (stored with the run,
#: replaced by the score once it is made; left as it is when the experiment stopped first).
NOT_SCORED = "not scored: its scorer has not run on this run"


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
    from being made (then no value and no pass: unknown, never a fail)."""

    name: str
    value: float | None
    passed: bool | None
    explanation: str = ""
    error: str | None = None
    higher_is_better: bool | None = None  # which way the score is better, when its scorer said


_SHORT = reprlib.Repr()
_SHORT.maxstring = _SHORT.maxother = _SHORT.maxlong = 60


def _shown(value: Any) -> str:
    """A bounded picture of what a scorer returned (reprlib: never the whole of a large value)."""
    try:
        return _SHORT.repr(value)
    except Exception:  # noqa: BLE001 - a value whose repr fails is named by its type alone
        return f"<{type(value).__name__}>"


def _problem(result: Any) -> str:
    return (f"a scorer returns a number, a bool, a harness.Score or a dict of name -> those, "
            f"not {type(result).__name__} {_shown(result)}")


def _is_bool(value: Any) -> bool:
    """A bool, or numpy's (``np.mean(x) > 0.5`` is one), without importing numpy."""
    return isinstance(value, bool) or (type(value).__module__ == "numpy" and type(value).__name__ in ("bool_", "bool"))


def _real(value: Any) -> tuple[float | None, str | None]:
    """A number a scorer gave, as a float: any :class:`numbers.Real` (numpy's, fractions) or a
    :class:`decimal.Decimal`; else None and the problem."""
    if _is_bool(value) or not isinstance(value, (Real, Decimal)):
        return None, _problem(value)
    try:
        number = float(value)
    except (TypeError, ValueError, OverflowError) as exc:
        return None, f"{type(value).__name__} {_shown(value)} is not a number ({exc})"
    return (number, None) if math.isfinite(number) else (None, f"{number!r}, not a finite number")


def _errored(name: str, error: str, explanation: Any = "") -> ScoreResult:
    return ScoreResult(name, None, None, _text(explanation), error)


def _text(value: Any) -> str:
    return value if isinstance(value, str) else "" if value is None else str(value)


def _one(name: str, result: Any) -> ScoreResult:
    if _is_bool(result):
        return ScoreResult(name, 1.0 if result else 0.0, bool(result))
    if isinstance(result, Score):
        value, passed = result.value, result.passed
        if passed is not None and not _is_bool(passed):
            return _errored(name, f"Score.passed must be True, False or None, not {type(passed).__name__} "
                                  f"{_shown(passed)}", result.explanation)
        if value is not None:
            if _is_bool(value):
                value = 1.0 if value else 0.0
            value, problem = _real(value)
            if problem is not None:
                return _errored(name, f"Score.value is {problem}" if "finite" in problem else f"Score.value: {problem}",
                                result.explanation)
        direction = result.higher_is_better if isinstance(result.higher_is_better, bool) else None
        return ScoreResult(name, value, None if passed is None else bool(passed), _text(result.explanation),
                           higher_is_better=direction)
    number, problem = _real(result)
    if problem is not None:
        return _errored(name, f"the scorer returned {problem}" if "finite" in problem else problem)
    return ScoreResult(name, number, None)


def _named(name: Any) -> str | None:
    """Why ``name`` cannot name a score, or None when it can."""
    if not isinstance(name, str) or not name.strip():
        return f"a score name must be a non-empty text, not {_shown(name)}"
    if len(name) > MAX_NAME_CHARS:
        return f"a score name has at most {MAX_NAME_CHARS} characters, not {len(name):,} ({_shown(name)})"
    return None


def score_results(name: str, result: Any) -> list[ScoreResult]:
    """A scorer's return value as named scores. ``name`` is the scorer's own name: a number
    (any :class:`numbers.Real`, numpy's too, or a :class:`decimal.Decimal`) is its value; a
    bool (numpy's too) is value 1 or 0 and its pass; a :class:`Score` keeps its fields (its
    ``name``, if set, replaces the scorer's); a mapping gives one score per key (the key is its
    name; at most :data:`MAX_SCORES_PER_CALL`), each any of those. Anything else, NaN, an
    infinity or a name longer than :data:`MAX_NAME_CHARS` is a score with an error, no value
    and no pass (the scorer failed: the run's pass is unknown, never failed by it)."""
    if isinstance(result, Mapping) and not isinstance(result, Score):
        if not result:
            return [_errored(name, "the scorer returned an empty dict")]
        if len(result) > MAX_SCORES_PER_CALL:
            return [_errored(name, f"the scorer returned {len(result):,} scores; at most {MAX_SCORES_PER_CALL} "
                                   "a call")]
        out: list[ScoreResult] = []
        for key, value in result.items():
            problem = _named(key)
            if problem is not None:
                out.append(_errored(name, problem))
            elif isinstance(value, Mapping):
                out.append(_errored(key.strip(), _problem(value)))
            else:
                out.append(_one(key.strip(), value))  # the key names it (a Score's own name is for a lone Score)
        return out
    if isinstance(result, Score) and result.name is not None:
        problem = _named(result.name)
        return [_errored(name, f"Score.name: {problem}") if problem else _one(result.name.strip(), result)]
    return [_one(name, result)]


def failed_score(name: str, error: BaseException | str) -> ScoreResult:
    """The score of a scorer that raised (any exception, ``SystemExit`` and
    ``KeyboardInterrupt`` it raised itself too) or could not finish: its error, no value,
    no pass."""
    if isinstance(error, str):
        return _errored(name, error)
    try:
        said = str(error)
    except Exception:  # noqa: BLE001 - an exception whose text fails is named by its type
        said = ""
    return _errored(name, f"{type(error).__name__}: {said}" if said else type(error).__name__)


#: Built-in scores that never gate a run, by their ``scorer``: their errors leave its pass as it is.
NEVER_GATE: frozenset[str] = frozenset({"evaluators.LLMJudge", "harness.scorers.trajectory_match",
                                        "evaluators.agent_overall"})


def _field(score: Any, key: str) -> Any:
    """A field of a score given as a row, a :class:`ScoreResult` or a :class:`SourcedScore`."""
    if isinstance(score, Mapping):
        return score.get(key)
    if isinstance(score, SourcedScore):
        return score.scorer if key == "scorer" else getattr(score.result, key, None)
    return getattr(score, key, None)


def run_passed(status: str | None, scores: Iterable[Any]) -> bool | None:
    """Whether a run passed, from its status and its scores (rows of the ``scores`` sheet,
    :class:`ScoreResult` or :class:`SourcedScore`: ``passed``, ``error``, ``scorer``), in three
    values (Kleene's "and" of "it completed" and its gates, an error being a gate unknown):

    - False when a score that gates it fails (``passed`` 0), or when it did not complete and
      a score gates it (or could: one that errored);
    - else None (unknown) when a score could not be made (its ``error``; a scorer that has not
      run yet is stored as :data:`NOT_SCORED`), unless it is a built-in that never gates
      (:data:`NEVER_GATE`, e.g. the credit workflow's judge);
    - else True when at least one score gates it;
    - else None: no score gates it, it has no pass, whatever its status (a traced run with
      no check), and is left out of pass rates, which say how many runs they cover."""
    known: list[bool] = []
    unknown = False
    for score in scores:
        if _field(score, "error"):
            unknown = unknown or _field(score, "scorer") not in NEVER_GATE
            continue
        passed = _field(score, "passed")
        if passed is not None:
            known.append(bool(passed))
    if not known and not unknown:
        return None
    if status != "completed" or not all(known):
        return False
    return None if unknown else True



def pass_unknown(status: str | None, scores: Iterable[Any]) -> bool:
    """Whether the run's pass is unknown (not merely absent): :func:`run_passed` gives None
    while a score that could gate it could not be made (shown ``?``, never ``—``)."""
    scores = list(scores)
    return run_passed(status, scores) is None and any(
        _field(s, "error") and _field(s, "scorer") not in NEVER_GATE for s in scores)

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
    could not be scored is an error (no value, no pass: the run's pass is unknown)."""
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
        return SourcedScore(ScoreResult("answer", None, None, explanation,
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
                  else ScoreResult("evaluation", None, None, "", "the run has no evaluation score"))
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
