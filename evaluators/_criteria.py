"""The tier-2 judge criteria of the three-tier evaluation framework: technical accuracy, constructiveness and planning
rationality. A chat model scores three aspects of each from 1 (poor) to 5 (excellent), and
the framework's weights combine them:

    technical_accuracy   = (0.5·factual_correctness + 0.3·methodology_understanding
                            + 0.2·domain_knowledge) / 5
    constructiveness     = (actionable_feedback + balanced_critique + improvement_guidance) / 15
    planning_rationality = (0.3·logical_flow + 0.5·decision_quality + 0.2·resource_efficiency) / 5

The framework states the range as [0, 1], "normalized from 1-5", but its formulas give [0.2, 1]:
a 1 on every aspect is 0.2. The formulas win, so 0.2 is the worst score a judge can give.

The framework judges a paper review. Here the subject is any agent's work: ``source`` is the
material the agent had (the framework's paper; the prompt keeps its first 2,000 characters, as
the framework does), ``output`` is what the agent produced (the framework's review), and ``trace`` is
its execution (steps, decisions, tool calls) as text or JSON-like data. The judging protocol
is :class:`~evaluators.LLMJudge`'s: temperature 0, retries on transient errors, a strict
JSON answer, one re-ask, and failures returned as values.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, create_model

from ._checks import non_empty_text, number
from ._judge import _dump, _failure, _Session

SOURCE_CHARS = 2_000  # the framework keeps the paper's first 2,000 characters in the prompt


@dataclass(frozen=True, slots=True)
class Criterion:
    """One tier-2 criterion (named by its key in :data:`CRITERIA`): its aspects (name ->
    weight, the judge's question), the divisor of the weighted sum, and what the judge is
    told it rates."""

    aspects: Mapping[str, tuple[float, str]]
    divisor: float
    rates: str


CRITERIA: Mapping[str, Criterion] = MappingProxyType({
    "technical_accuracy": Criterion(MappingProxyType({
        "factual_correctness": (0.5, "Are its claims supported by the source material?"),
        "methodology_understanding": (0.3, "Does it grasp the approach the source material takes?"),
        "domain_knowledge": (0.2, "Does it use the domain's technical terminology appropriately?"),
    }), 5.0, "the technical accuracy of an agent's output against its source material"),
    "constructiveness": Criterion(MappingProxyType({
        "actionable_feedback": (1.0, "Are its suggestions specific and implementable?"),
        "balanced_critique": (1.0, "Does it note both strengths and weaknesses?"),
        "improvement_guidance": (1.0, "Does it give a clear direction for what to do next?"),
    }), 15.0, "how constructive an agent's output is"),
    "planning_rationality": Criterion(MappingProxyType({
        "logical_flow": (0.3, "Do the steps progress coherently?"),
        "decision_quality": (0.5, "Were the choices made at decision points appropriate?"),
        "resource_efficiency": (0.2, "Were the available tools and agents used economically?"),
    }), 5.0, "the planning rationality of an agent's execution"),
})


def _criterion(name: str) -> Criterion:
    try:
        return CRITERIA[name]
    except (KeyError, TypeError):
        raise ValueError(f"criterion must be one of {', '.join(CRITERIA)}, got {name!r}") from None


def criterion_score(criterion: str, scores: Mapping[str, float]) -> float:
    """The framework's weighted combination for ``criterion`` (see the module doc): Σ weight·score
    / divisor. Every aspect of the criterion must be in ``scores``, each from 1 to 5."""
    c = _criterion(criterion)
    if not isinstance(scores, Mapping):
        raise ValueError(f"scores must map aspect -> score, got {scores!r}")
    missing = [a for a in c.aspects if a not in scores]
    if missing:
        raise ValueError(f"scores lacks {', '.join(missing)}")
    values = {a: number(a, scores[a]) for a in c.aspects}
    for aspect, value in values.items():
        if not 1 <= value <= 5:
            raise ValueError(f"{aspect} must be from 1 to 5, got {value!r}")
    return math.fsum(weight * values[a] for a, (weight, _) in c.aspects.items()) / c.divisor


@dataclass(frozen=True, slots=True)
class CriterionResult:
    """One criterion judged. ``status == "error"``: every score and ``overall`` are None."""

    criterion: str
    status: Literal["ok", "error"]
    scores: Mapping[str, float | None]  # aspect -> the judge's 1-5
    reasoning: str
    overall: float | None  # criterion_score of the scores
    model: str | None
    temperature: float | None
    total_tokens: int | None
    calls: int  # model responses received (a re-ask is a second one)
    duration_ms: float
    error: str | None = None


_SYSTEM = """\
You are an evaluation judge. You rate {rates}. Rate each aspect below from 1 (poor) to 5 \
(excellent):
{questions}

Answer with only a JSON object, no prose and no code fence: {{"reasoning": "<why, written \
before the scores>", {shape}}}"""

_REASK = """\
Your answer could not be parsed: {error}
Reply again with only the JSON object in the required shape: no prose, no code fence, \
each score a number from 1 to 5."""

_ANSWERS = {
    name: create_model(
        f"{name.title().replace('_', '')}Answer",
        __config__=ConfigDict(strict=True, extra="forbid"),
        reasoning=(str, ...),
        **{aspect: (float, Field(ge=1, le=5)) for aspect in c.aspects},
    )
    for name, c in CRITERIA.items()
}


def _assess(model: Any, criterion: str, subject: str, *, max_retries: int, retry_wait: float,
            retry_wait_max: float) -> CriterionResult:
    from langchain_core.messages import HumanMessage, SystemMessage

    c = CRITERIA[criterion]
    session = _Session(model, max_retries, retry_wait, retry_wait_max)
    system = _SYSTEM.format(
        rates=c.rates,
        questions="\n".join(f"- {aspect}: {question}" for aspect, (_, question) in c.aspects.items()),
        shape=", ".join(f'"{aspect}": <1-5>' for aspect in c.aspects),
    )
    start = time.perf_counter()
    answer: BaseModel | None = None
    error = None
    try:
        answer = session.ask([SystemMessage(content=system), HumanMessage(content=subject)], _ANSWERS[criterion],
                             reask=_REASK)
    except Exception as exc:  # noqa: BLE001 - failures are values: the result says why
        error = _failure(exc)
    scores = {aspect: (getattr(answer, aspect) if answer else None) for aspect in c.aspects}
    return CriterionResult(
        criterion=criterion,
        status="ok" if answer else "error",
        scores=MappingProxyType(scores),
        reasoning=answer.reasoning if answer else "",  # type: ignore[attr-defined]
        overall=criterion_score(criterion, scores) if answer else None,  # type: ignore[arg-type]
        model=session.name,
        temperature=session.temperature,
        total_tokens=session.total_tokens,
        calls=session.responses,
        duration_ms=(time.perf_counter() - start) * 1000,
        error=error,
    )


def assess_technical_accuracy(model: Any, source: str, output: str, *, max_retries: int = 3,
                              retry_wait: float = 1.0, retry_wait_max: float = 20.0) -> CriterionResult:
    """Technical accuracy of ``output`` against ``source`` (its first 2,000 characters), by
    any LangChain chat model; never raises for a model failure (``status="error"``)."""
    source, output = non_empty_text("source", source), non_empty_text("output", output)
    subject = f"Source material (first {SOURCE_CHARS:,} characters):\n{source[:SOURCE_CHARS]}\n\nOutput:\n{output}"
    return _assess(model, "technical_accuracy", subject, max_retries=max_retries, retry_wait=retry_wait,
                   retry_wait_max=retry_wait_max)


def assess_constructiveness(model: Any, output: str, *, max_retries: int = 3, retry_wait: float = 1.0,
                            retry_wait_max: float = 20.0) -> CriterionResult:
    """How constructive ``output`` is, by any LangChain chat model; never raises for a model
    failure (``status="error"``)."""
    subject = f"Output:\n{non_empty_text('output', output)}"
    return _assess(model, "constructiveness", subject, max_retries=max_retries, retry_wait=retry_wait,
                   retry_wait_max=retry_wait_max)


def assess_planning_rationality(model: Any, trace: Any, *, max_retries: int = 3, retry_wait: float = 1.0,
                                retry_wait_max: float = 20.0) -> CriterionResult:
    """Planning rationality of an execution ``trace`` (text, or steps / decisions / tool
    calls as JSON-like data), by any LangChain chat model; never raises for a model failure
    (``status="error"``)."""
    if trace is None or (isinstance(trace, str | Mapping | list | tuple) and not trace):
        raise ValueError("trace must not be empty")
    return _assess(model, "planning_rationality", f"Execution trace:\n{_dump(trace)}", max_retries=max_retries,
                   retry_wait=retry_wait, retry_wait_max=retry_wait_max)
