"""The ``agent_metrics`` sheet's rules (the sheets' spec, on this project's scales): intent
correctness, plan quality, final answer quality, and the weighted overall."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from ._checks import clamp01, is_number, unit_or_none
from ._evaluation import REQUIRED_ASSESSMENT_FIELDS, has_value, valid_field

AGENT_WEIGHTS: Mapping[str, float] = MappingProxyType({
    "intent": 0.15, "plan": 0.15, "tool_choice": 0.20,
    "tool_completeness": 0.15, "trajectory": 0.15, "answer": 0.20,
})

#: Legal-form words ignored when comparing company names.
LEGAL_SUFFIXES = frozenset(
    "inc incorporated corp corporation co company ltd limited llc llp plc sa ag nv bv gmbh "
    "se spa pte pvt the".split()
)
#: Words that mark a plan task as data gathering (the four credit tools included) or analysis.
DATA_WORDS: tuple[str, ...] = ("data", "fetch", "search", "sec_edgar", "finnhub", "court_listener")
ANALYSIS_WORDS: tuple[str, ...] = ("analy", "synthe", "assess")
PLAN_SIZE = (3, 10)
REASONING_MIN_CHARS = 50


@dataclass(frozen=True, slots=True)
class IntentCorrectness:
    score: float
    name_match: bool
    type_identified: bool
    confidence: float | None
    confidence_points: float


@dataclass(frozen=True, slots=True)
class PlanQuality:
    score: float
    num_tasks: int
    size_ok: bool
    has_data_gathering: bool
    has_analysis: bool


@dataclass(frozen=True, slots=True)
class AnswerQuality:
    score: float
    present: tuple[str, ...]
    valid_risk_level: bool
    valid_credit_score: bool
    valid_confidence: bool
    substantive_reasoning: bool


def _name_tokens(name: str) -> list[str]:
    return [t for t in re.split(r"[^0-9a-z]+", name.casefold()) if t and t not in LEGAL_SUFFIXES]


def _contains(outer: list[str], inner: list[str]) -> bool:
    n = len(inner)
    return any(outer[i:i + n] == inner for i in range(len(outer) - n + 1))


def names_match(a: str, b: str) -> bool:
    """Company names match when, case-folded, split on non-alphanumerics and without legal
    suffixes (Inc, Corp, Ltd, ...), one word sequence contains the other ("Apple" ~ "Apple
    Inc.", "Tesla" ~ "Tesla Motors"). A name of only suffixes matches nothing."""
    ta, tb = _name_tokens(a), _name_tokens(b)
    if not ta or not tb:
        return False
    return _contains(ta, tb) or _contains(tb, ta)


def intent_correctness(company_input: str, company_info: Mapping[str, Any] | None) -> IntentCorrectness:
    """Did the parser understand which company is meant?

    ``score = 0.4·name_match + 0.3·type_identified + confidence_points`` where name_match
    compares ``company_info["company_name"]`` (or ``"name"``) with the input by
    :func:`names_match`; type_identified = ``is_public_company`` (or ``is_public``) is a
    bool; confidence_points = 0.3 if confidence > 0.7, 0.2 if > 0.5, 0.1 if > 0.3, else 0
    (confidence 0–1; missing or out of range -> 0). ``company_info`` None -> 0.
    """
    if not isinstance(company_input, str):
        raise ValueError(f"company_input must be a string, got {company_input!r}")
    if company_info is None:
        return IntentCorrectness(0.0, False, False, None, 0.0)
    if not isinstance(company_info, Mapping):
        raise ValueError(f"company_info must be a mapping, got {company_info!r}")
    parsed = company_info.get("company_name") or company_info.get("name") or ""
    name_ok = isinstance(parsed, str) and names_match(company_input, parsed)
    flag = company_info.get("is_public_company", company_info.get("is_public"))
    type_ok = isinstance(flag, bool)
    raw = company_info.get("confidence")
    conf = float(raw) if is_number(raw) and 0.0 <= raw <= 1.0 else None
    points = 0.0
    if conf is not None:
        points = 0.3 if conf > 0.7 else 0.2 if conf > 0.5 else 0.1 if conf > 0.3 else 0.0
    score = clamp01(0.4 * name_ok + 0.3 * type_ok + points)
    return IntentCorrectness(score, name_ok, type_ok, conf, points)


def _task_text(task: Any) -> str:
    if isinstance(task, str):
        return task
    if isinstance(task, Mapping):
        return " ".join(str(task[k]) for k in ("action", "tool", "name") if task.get(k))
    raise ValueError(f"plan tasks must be strings or mappings with an 'action', got {task!r}")


def plan_quality(plan: Sequence[Any] | Mapping[str, Any] | None) -> PlanQuality:
    """Is the plan a workable credit-analysis plan?

    ``score = 0.3·[3 <= tasks <= 10] + 0.35·[a task gathers data] + 0.35·[a task analyses]``.
    A task is a string or a mapping whose ``action`` (and ``tool``/``name``) text is
    searched, case-insensitively: data words ``data``, ``fetch``, ``search`` or one of the
    four credit tools; analysis words ``analy``, ``synthe``, ``assess``. A mapping with a
    ``tasks`` list is accepted as the plan. None or no tasks -> 0.
    """
    if isinstance(plan, Mapping):
        plan = plan.get("tasks")
    if plan is None:
        return PlanQuality(0.0, 0, False, False, False)
    if isinstance(plan, (str, bytes)) or not isinstance(plan, Sequence):
        raise ValueError(f"plan must be a list of tasks, got {plan!r}")
    texts = [_task_text(t).casefold() for t in plan]
    size_ok = PLAN_SIZE[0] <= len(texts) <= PLAN_SIZE[1]
    data = any(w in t for t in texts for w in DATA_WORDS)
    analysis = any(w in t for t in texts for w in ANALYSIS_WORDS)
    return PlanQuality(clamp01(0.3 * size_ok + 0.35 * data + 0.35 * analysis), len(texts), size_ok, data, analysis)


def final_answer_quality(assessment: Mapping[str, Any] | None) -> AnswerQuality:
    """Is the final assessment complete and valid?

    ``score = 0.5·(share of risk_level, credit_score, confidence, reasoning, recommendations
    present) + 0.15·[risk level in LOW|MODERATE|HIGH|CRITICAL] + 0.15·[credit score an
    integer in 300–850] + 0.1·[confidence in 0–1] + 0.1·[reasoning longer than 50
    characters]``. None -> 0.
    """
    if assessment is None:
        return AnswerQuality(0.0, (), False, False, False, False)
    if not isinstance(assessment, Mapping):
        raise ValueError(f"assessment must be a mapping, got {assessment!r}")
    present = tuple(f for f in REQUIRED_ASSESSMENT_FIELDS if has_value(assessment.get(f)))
    risk_ok = valid_field("risk_level", assessment.get("risk_level"))
    score_ok = valid_field("credit_score", assessment.get("credit_score"))
    conf_ok = valid_field("confidence", assessment.get("confidence"))
    reasoning = assessment.get("reasoning")
    long_ok = isinstance(reasoning, str) and len(reasoning.strip()) > REASONING_MIN_CHARS
    score = (
        0.5 * len(present) / len(REQUIRED_ASSESSMENT_FIELDS)
        + 0.15 * risk_ok + 0.15 * score_ok + 0.1 * conf_ok + 0.1 * long_ok
    )
    return AnswerQuality(clamp01(score), present, risk_ok, score_ok, conf_ok, long_ok)


def agent_overall(
    *,
    intent: float | None,
    plan: float | None,
    tool_choice: float | None,
    tool_completeness: float | None,
    trajectory: float | None,
    answer: float | None,
) -> float | None:
    """``0.15·intent + 0.15·plan + 0.20·tool_choice + 0.15·tool_completeness +
    0.15·trajectory + 0.20·answer``.

    A part that is None or NaN is not applicable (a generic wrapped run has no intent, plan
    or answer rules): the weights are renormalised over the parts present, i.e. the result
    is ``Σ w·x / Σ w`` over those parts. All parts None -> None.
    """
    parts = {
        "intent": intent, "plan": plan, "tool_choice": tool_choice,
        "tool_completeness": tool_completeness, "trajectory": trajectory, "answer": answer,
    }
    present = {k: v for k, v in ((k, unit_or_none(k, v)) for k, v in parts.items()) if v is not None}
    if not present:
        return None
    total = math.fsum(AGENT_WEIGHTS[k] for k in present)
    return clamp01(math.fsum(AGENT_WEIGHTS[k] * v for k, v in present.items()) / total)
