"""LLM-as-judge over any LangChain chat model: anchored 0-10 scores per dimension, strict
JSON parsing, retries with backoff on transport errors and 429s, one re-ask on unparsable
output, and failures recorded as values (status ``error``, scores None, never a number)."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ValidationError
from tenacity import RetryCallState, Retrying, retry_if_exception, stop_after_attempt, wait_random_exponential

from ._checks import non_empty_text
from ._evaluation import judge_overall
from ._judge_prompts import (
    ANSWER_PAIRWISE_SYSTEM_PROMPT,
    ANSWER_PAIRWISE_USER_PROMPT,
    ANSWER_SYSTEM_PROMPT,
    ANSWER_USER_PROMPT,
    TRAJECTORY_AGAINST,
    TRAJECTORY_SYSTEM_PROMPT,
    TRAJECTORY_USER_PROMPT,
    DIMENSIONS,
    JUDGE_SYSTEM_PROMPT,
    JUDGE_USER_PROMPT,
    PAIRWISE_SYSTEM_PROMPT,
    PAIRWISE_USER_PROMPT,
    REASK_PROMPT,
    AnswerVerdict,
    JudgeVerdict,
    PairVerdict,
)

V = TypeVar("V", bound=BaseModel)

#: HTTP statuses worth retrying: rate limit, timeouts, server-side failures.
TRANSIENT_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504, 529})
#: Exception class names (any SDK) that mean "the request did not get through".
TRANSIENT_NAMES = frozenset({
    "RateLimitError", "APIConnectionError", "APITimeoutError", "InternalServerError",
    "ServiceUnavailableError", "TransportError", "TimeoutException", "ConnectError",
    "ReadTimeout", "ConnectTimeout", "RemoteProtocolError", "ReadError", "WriteError",
    "PoolTimeout", "NetworkError", "ConnectionError", "TimeoutError",
})
MAX_ERROR_CHARS = 500
_SECRET = re.compile(
    r"(?i)((?:api[_-]?key|token|secret|password|authorization)[\"']?\s*[=:]\s*[\"']?)[^\s&\"',}]+"
    r"|\bBearer\s+\S+|\b(?:gsk|sk)[-_][A-Za-z0-9_-]{8,}"
)


def _status_code(exc: BaseException) -> int | None:
    for holder in (exc, getattr(exc, "response", None)):
        code = getattr(holder, "status_code", None)
        if isinstance(code, int):
            return code
    return None


def is_transient(exc: BaseException) -> bool:
    """Retry-worthy: a 408/409/425/429/5xx status (on the exception or its ``response``), or
    a transport-level error recognised by class name (any class in its MRO) or type."""
    code = _status_code(exc)
    if code is not None:
        return code in TRANSIENT_STATUS
    if isinstance(exc, (ConnectionError, TimeoutError)):
        return True
    return any(cls.__name__ in TRANSIENT_NAMES for cls in type(exc).__mro__)


class RetryAfterWait:
    """A tenacity wait: the ``Retry-After`` seconds the server sent with the failure (on the
    exception's ``response``), capped at ``maximum``; else exponential backoff with full
    jitter (``initial`` seconds base, ``maximum`` cap). A date or other text is ignored."""

    def __init__(self, initial: float, maximum: float) -> None:
        self.backoff = wait_random_exponential(multiplier=initial, max=maximum)
        self.maximum = maximum

    def __call__(self, state: RetryCallState) -> float:
        exc = state.outcome.exception() if state.outcome else None
        headers = getattr(getattr(exc, "response", None), "headers", None)
        header = headers.get("retry-after") if hasattr(headers, "get") else None
        try:
            return min(max(float(header), 0.0), self.maximum) if header is not None else self.backoff(state)
        except (TypeError, ValueError):
            return self.backoff(state)


def scrub(text: str) -> str:
    """Drop credentials from a message (``api_key=...``, ``Bearer ...``, ``gsk_...``) and cap
    its length: error texts end up in rows."""
    cleaned = _SECRET.sub(lambda m: (m.group(1) or "") + "[redacted]", text)
    return cleaned if len(cleaned) <= MAX_ERROR_CHARS else cleaned[: MAX_ERROR_CHARS - 1] + "…"


def _parse(text: str, schema: type[V]) -> V:
    """Strict parse: the whole answer must be the JSON object (a surrounding code fence is
    the one thing tolerated)."""
    body = text.strip()
    fenced = re.fullmatch(r"```(?:json)?\s*(.*?)\s*```", body, re.S)
    return schema.model_validate_json(fenced.group(1) if fenced else body)


def _short(exc: ValidationError) -> str:
    return "; ".join(
        f"{'.'.join(map(str, e['loc'])) or 'answer'}: {e['msg']}" for e in exc.errors()[:5]
    )


def _dump(value: Any) -> str:
    if isinstance(value, str):
        return value or "(none)"
    return json.dumps(value, indent=1, ensure_ascii=False, default=str)


def at_temperature_zero(model: Any) -> Any:
    """A copy of the chat model at temperature 0 when its class has a ``temperature`` field
    (also inside a ``RunnableBinding`` from ``bind``/``with_config``); else the model as is."""
    fields = getattr(type(model), "model_fields", {})
    if "temperature" in fields:
        return model.model_copy(update={"temperature": 0.0})
    bound = getattr(model, "bound", None)
    if "bound" in fields and bound is not None:
        zeroed = at_temperature_zero(bound)
        return model if zeroed is bound else model.model_copy(update={"bound": zeroed})
    return model


class _Session:
    """One judgement's model calls: temperature 0, retries, usage and model name."""

    def __init__(self, model: Any, max_retries: int, retry_wait: float, retry_wait_max: float) -> None:
        if not hasattr(model, "invoke"):
            raise ValueError(f"model must be a LangChain chat model, got {model!r}")
        if not isinstance(max_retries, int) or max_retries < 0:
            raise ValueError(f"max_retries must be an integer >= 0, got {max_retries!r}")
        if retry_wait < 0 or retry_wait_max < 0:
            raise ValueError("retry waits must be >= 0")
        model = at_temperature_zero(model)
        temperature = getattr(model, "temperature", None)
        self.temperature: float | None = float(temperature) if isinstance(temperature, (int, float)) else None
        self.model = model
        self.model_name: str | None = None
        self.fallback_name = next(
            (v for v in (getattr(model, "model_name", None), getattr(model, "model", None))
             if isinstance(v, str) and v),
            None,
        )
        self.max_retries, self.retry_wait, self.retry_wait_max = max_retries, retry_wait, retry_wait_max
        self.responses = 0
        self.usage: dict[str, int] = {}

    def call(self, messages: list[Any]) -> str:
        retrying = Retrying(
            stop=stop_after_attempt(self.max_retries + 1),
            wait=RetryAfterWait(self.retry_wait, self.retry_wait_max),
            retry=retry_if_exception(is_transient),
            reraise=True,
        )
        message = retrying(self.model.invoke, messages)
        self.responses += 1
        for key, value in (getattr(message, "usage_metadata", None) or {}).items():
            if key in ("input_tokens", "output_tokens", "total_tokens") and isinstance(value, int):
                self.usage[key] = self.usage.get(key, 0) + value
        meta = getattr(message, "response_metadata", None) or {}
        name = meta.get("model_name") or meta.get("model")
        if isinstance(name, str) and name:
            self.model_name = name
        text = getattr(message, "text", message)
        return text if isinstance(text, str) else str(text)

    def ask(self, messages: list[Any], schema: type[V], reask: str = REASK_PROMPT) -> V:
        """Call, parse strictly; on unparsable output re-ask once with the parse error
        (``reask`` is the re-ask message, with ``{error}`` where the error goes)."""
        from langchain_core.messages import AIMessage, HumanMessage

        text = self.call(messages)
        try:
            return _parse(text, schema)
        except ValidationError as exc:
            retry = [*messages, AIMessage(content=text), HumanMessage(content=reask.format(error=_short(exc)))]
        text = self.call(retry)
        try:
            return _parse(text, schema)
        except ValidationError as exc:
            raise _Unparsable(f"judge output unparsable after one re-ask: {_short(exc)}") from None

    @property
    def name(self) -> str | None:
        return self.model_name or self.fallback_name

    @property
    def total_tokens(self) -> int | None:
        if "total_tokens" in self.usage:
            return self.usage["total_tokens"]
        if self.usage:
            return self.usage.get("input_tokens", 0) + self.usage.get("output_tokens", 0)
        return None


class _Unparsable(Exception):
    pass


def _failure(exc: BaseException) -> str:
    if isinstance(exc, _Unparsable):
        return str(exc)
    return scrub(f"{type(exc).__name__}: {exc}")


@dataclass(frozen=True, slots=True)
class JudgeResult:
    """One judgement. ``status == "error"`` -> every score and ``overall`` is None."""

    status: Literal["ok", "error"]
    scores: Mapping[str, float | None]  # dimension -> value/10
    reasoning: Mapping[str, str]  # dimension -> the judge's reasoning
    overall: float | None
    overall_reasoning: str
    benchmark_alignment: str
    benchmark_comparison: str
    suggestions: str
    model: str | None
    temperature: float | None
    input_tokens: int | None
    output_tokens: int | None
    total_tokens: int | None
    calls: int  # model responses received (a re-ask is a second one)
    duration_ms: float
    error: str | None = None


@dataclass(frozen=True, slots=True)
class PairwiseResult:
    """Both-order comparison. ``winner`` is set only when both orders pick the same one."""

    status: Literal["ok", "error"]
    winner: Literal["a", "b"] | None
    flipped: bool  # the verdict changed when the order was swapped
    verdicts: tuple[str | None, str | None]  # "a" | "b" | "tie", for order (a, b) then (b, a)
    reasoning: tuple[str, str]
    model: str | None
    total_tokens: int | None
    duration_ms: float
    error: str | None = None


class LLMJudge:
    """Grades a credit assessment on five dimensions with any LangChain chat model.

    Protocol: system prompt with anchored 0-10 scales (reasoning before score), JSON answer
    parsed strictly into :class:`~evaluators._judge_prompts.JudgeVerdict`; temperature
    bound to 0 when the model has a ``temperature`` field; transport errors and 408/429/5xx
    retried ``max_retries`` times, after the server's ``Retry-After`` when it sent one, else
    with exponential backoff and full jitter (``retry_wait`` seconds base, ``retry_wait_max``
    cap; see :class:`RetryAfterWait`); one re-ask quoting the parse error. Any final
    failure gives ``status="error"`` with an ``error`` text and all scores None.
    """

    def __init__(
        self, model: Any, *, max_retries: int = 3, retry_wait: float = 1.0, retry_wait_max: float = 20.0,
    ) -> None:
        self._session_args = (model, max_retries, retry_wait, retry_wait_max)
        _Session(*self._session_args)  # validate now, not at the first judgement

    def judge(
        self,
        assessment: Mapping[str, Any],
        *,
        company: str,
        data_summary: Mapping[str, Any] | str = "",
        benchmark: Mapping[str, Any] | str | None = None,
    ) -> JudgeResult:
        """Grade one assessment; never raises for a model failure (see the class doc)."""
        if not isinstance(assessment, Mapping):
            raise ValueError(f"assessment must be a mapping, got {assessment!r}")
        non_empty_text("company", company)
        from langchain_core.messages import HumanMessage, SystemMessage

        session = _Session(*self._session_args)
        user = JUDGE_USER_PROMPT.format(
            company=company, assessment=_dump(dict(assessment)), data_summary=_dump(data_summary),
            benchmark="(none)" if benchmark is None else _dump(benchmark),
        )
        start = time.perf_counter()
        try:
            messages = [SystemMessage(content=JUDGE_SYSTEM_PROMPT), HumanMessage(content=user)]
            verdict = session.ask(messages, JudgeVerdict)
        except Exception as exc:  # failures are values: the row says why
            return _judge_result(session, start, None, _failure(exc))
        return _judge_result(session, start, verdict, None)


def _judge_result(session: _Session, start: float, verdict: JudgeVerdict | None, error: str | None) -> JudgeResult:
    scores = {d: (getattr(verdict, d).score / 10 if verdict else None) for d in DIMENSIONS}
    reasoning = {d: (getattr(verdict, d).reasoning if verdict else "") for d in DIMENSIONS}
    return JudgeResult(
        status="ok" if verdict else "error",
        scores=MappingProxyType(scores),
        reasoning=MappingProxyType(reasoning),
        overall=judge_overall([scores[d] for d in DIMENSIONS]),
        overall_reasoning=verdict.overall_reasoning if verdict else "",
        benchmark_alignment=verdict.benchmark_alignment if verdict else "",
        benchmark_comparison=verdict.benchmark_comparison if verdict else "",
        suggestions=verdict.suggestions if verdict else "",
        model=session.name,
        temperature=session.temperature,
        input_tokens=session.usage.get("input_tokens"),
        output_tokens=session.usage.get("output_tokens"),
        total_tokens=session.total_tokens,
        calls=session.responses,
        duration_ms=(time.perf_counter() - start) * 1000,
        error=error,
    )


def pairwise(
    model: Any,
    a: Mapping[str, Any],
    b: Mapping[str, Any],
    *,
    company: str,
    max_retries: int = 3,
    retry_wait: float = 1.0,
    retry_wait_max: float = 20.0,
) -> PairwiseResult:
    """Ask which of two assessments is better, in both orders (a, b) and (b, a).

    A winner is reported only when both orders pick the same assessment; ``flipped`` is
    True when the verdict changed with the order (position bias), in which case there is
    no winner. A tie in both orders: no winner, not flipped. Either order failing after
    retries and one re-ask -> ``status="error"``, no winner.
    """
    if not isinstance(a, Mapping) or not isinstance(b, Mapping):
        raise ValueError("a and b must be assessment mappings")
    non_empty_text("company", company)
    from langchain_core.messages import HumanMessage, SystemMessage

    session = _Session(model, max_retries, retry_wait, retry_wait_max)
    start = time.perf_counter()
    verdicts: list[str | None] = []
    reasons: list[str] = []
    error = None
    for first, second, labels in ((a, b, ("a", "b")), (b, a, ("b", "a"))):
        user = PAIRWISE_USER_PROMPT.format(company=company, first=_dump(dict(first)), second=_dump(dict(second)))
        try:
            messages = [SystemMessage(content=PAIRWISE_SYSTEM_PROMPT), HumanMessage(content=user)]
            verdict = session.ask(messages, PairVerdict)
        except Exception as exc:  # failures are values
            error = _failure(exc)
            break
        verdicts.append({"1": labels[0], "2": labels[1]}.get(verdict.better, "tie"))
        reasons.append(verdict.reasoning)
    ok = error is None
    v1, v2 = (verdicts + [None, None])[:2]
    return PairwiseResult(
        status="ok" if ok else "error",
        winner=v1 if ok and v1 == v2 and v1 in ("a", "b") else None,  # type: ignore[arg-type]
        flipped=ok and v1 != v2,
        verdicts=(v1, v2),
        reasoning=tuple((reasons + ["", ""])[:2]),  # type: ignore[arg-type]
        model=session.name,
        total_tokens=session.total_tokens,
        duration_ms=(time.perf_counter() - start) * 1000,
        error=error,
    )



@dataclass(frozen=True, slots=True)
class AnswerGrade:
    """The judge's grade of an answer against a reference. ``score`` = grade / 10; None on error."""

    status: Literal["ok", "error"]
    score: float | None
    reasoning: str
    model: str | None
    total_tokens: int | None
    duration_ms: float
    error: str | None = None


def grade_answer(model: Any, answer: str, reference: str, *, question: Any = None, max_retries: int = 3,
                 retry_wait: float = 1.0, retry_wait_max: float = 20.0) -> AnswerGrade:
    """Grade ``answer`` against ``reference`` (anchored 0-10, reasoning first; prompt in
    :mod:`._judge_prompts`), with the same temperature-0, retry and re-ask protocol as
    :class:`LLMJudge`. Never raises for a model failure: ``status="error"`` says why."""
    user = ANSWER_USER_PROMPT.format(question=_dump(question), reference=reference, answer=answer)
    return _grade(_Session(model, max_retries, retry_wait, retry_wait_max), ANSWER_SYSTEM_PROMPT, user)


def _grade(session: _Session, system: str, user: str) -> AnswerGrade:
    """One anchored 0-10 grade asked of ``session`` (reasoning first), as a score /10; a model
    that fails after its retries gives ``status="error"`` and no score."""
    from langchain_core.messages import HumanMessage, SystemMessage

    start = time.perf_counter()
    verdict, error = None, None
    try:
        verdict = session.ask([SystemMessage(content=system), HumanMessage(content=user)], AnswerVerdict)
    except Exception as exc:  # failures are values
        error = _failure(exc)
    return AnswerGrade(
        status="ok" if verdict else "error", score=verdict.score / 10 if verdict else None,
        reasoning=verdict.reasoning if verdict else "", model=session.name, total_tokens=session.total_tokens,
        duration_ms=(time.perf_counter() - start) * 1000, error=error,
    )


def grade_trajectory(model: Any, trajectory: str, *, reference: str | None = None, rubric: str | None = None,
                     question: Any = None, max_retries: int = 3, retry_wait: float = 1.0,
                     retry_wait_max: float = 20.0) -> AnswerGrade:
    """Grade an agent's whole trajectory (its steps as text) against a ``reference`` trajectory
    and/or a ``rubric``, or on its own merits (anchored 0-10, reasoning first, /10; prompt in
    :mod:`._judge_prompts`, after agentevals' trajectory judge), with the same temperature-0,
    retry and re-ask protocol as :class:`LLMJudge`. Never raises for a model failure."""
    against = "reference" if reference else "rubric" if rubric else "none"
    criteria = "\n\n".join(part for part in (f"Reference trajectory:\n{reference}" if reference else "",
                                                f"Rubric:\n{rubric}" if rubric else "") if part)
    system = TRAJECTORY_SYSTEM_PROMPT.format(against=TRAJECTORY_AGAINST[against])
    user = TRAJECTORY_USER_PROMPT.format(question=_dump(question), criteria=criteria, trajectory=trajectory)
    return _grade(_Session(model, max_retries, retry_wait, retry_wait_max), system, user)


@dataclass(frozen=True, slots=True)
class PairGrade:
    """One order of a pairwise comparison of two answers: ``better`` is ``"1"`` (the answer
    shown first), ``"2"`` or ``"tie"``; None on error."""

    status: Literal["ok", "error"]
    better: Literal["1", "2", "tie"] | None
    reasoning: str
    model: str | None
    total_tokens: int | None
    duration_ms: float
    error: str | None = None


def prefer_answer(model: Any, first: str, second: str, *, question: Any = None, reference: Any = None,
                  max_retries: int = 3, retry_wait: float = 1.0, retry_wait_max: float = 20.0) -> PairGrade:
    """Ask which of two answers to one question is better, in the order given (a caller asks
    again with the answers swapped to control position bias: :func:`evaluators.preference`),
    with the same temperature-0, retry and re-ask protocol as :class:`LLMJudge`. Never raises
    for a model failure: ``status="error"`` says why."""
    from langchain_core.messages import HumanMessage, SystemMessage

    session = _Session(model, max_retries, retry_wait, retry_wait_max)
    user = ANSWER_PAIRWISE_USER_PROMPT.format(question=_dump(question),
                                              reference="(none)" if reference is None else _dump(reference),
                                              first=first or "(no answer)", second=second or "(no answer)")
    start = time.perf_counter()
    verdict, error = None, None
    try:
        verdict = session.ask([SystemMessage(content=ANSWER_PAIRWISE_SYSTEM_PROMPT), HumanMessage(content=user)],
                              PairVerdict)
    except Exception as exc:  # failures are values
        error = _failure(exc)
    return PairGrade(status="ok" if verdict else "error", better=verdict.better if verdict else None,
                     reasoning=verdict.reasoning if verdict else "", model=session.name,
                     total_tokens=session.total_tokens, duration_ms=(time.perf_counter() - start) * 1000, error=error)
