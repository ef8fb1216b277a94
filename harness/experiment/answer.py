"""Where a run's answer is in the graph's output, and the scoring of a case's answer check."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from evaluators import answer_threshold, check_answer, grade_answer

from ..store import json_text
from .dataset import Case
from .scorer_call import on_daemon_thread

_MISSING = object()
ANSWER_CHARS = 2_000  # of the answer and reference kept in agent_metrics.answer_details


def answer_of(output: Any, path: str | None = None) -> str | None:
    """The answer text in ``output``: at ``path`` (dotted keys, attributes and list indices,
    negative ones too: ``messages.-1.content``, ``structured_response.answer``) when given,
    else the last AI message's text when the output has ``messages``, else the output
    itself as text (JSON for anything but a string). None when there is none."""
    if path:
        value = output
        for part in path.split("."):
            value = _step(value, part)
            if value is _MISSING:
                return None
        return _text(value)
    messages = output.get("messages") if isinstance(output, Mapping) else getattr(output, "messages", None)
    if isinstance(messages, Sequence) and not isinstance(messages, str):
        for message in reversed(messages):
            if _role(message) in ("ai", "assistant"):
                return _text(message)
        return None
    return _text(output)


def _step(value: Any, part: str) -> Any:
    if isinstance(value, Mapping):
        return value.get(part, _MISSING)
    if isinstance(value, Sequence) and not isinstance(value, str):
        try:
            return value[int(part)]
        except (ValueError, IndexError):
            return _MISSING
    return getattr(value, part, _MISSING)


def _role(message: Any) -> str | None:
    if isinstance(message, Mapping):
        return message.get("role") or message.get("type")
    if isinstance(message, (tuple, list)) and len(message) == 2:
        return message[0]
    return getattr(message, "type", None)


def _text(value: Any) -> str | None:
    """A message's text (its content's text blocks), a string as it is, else compact JSON."""
    if value is None:
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, (tuple, list)) and len(value) == 2 and isinstance(value[0], str) and value[0] in (
            "ai", "assistant", "human", "user", "system", "tool"):
        return _text(value[1])
    content = value.get("content", _MISSING) if isinstance(value, Mapping) else getattr(value, "content", _MISSING)
    if content is not _MISSING and (isinstance(value, Mapping) and ("role" in value or "type" in value)
                                    or not isinstance(value, Mapping)):
        if isinstance(content, str):
            return content
        if isinstance(content, list):
            return "".join(b if isinstance(b, str) else str(b.get("text", "")) for b in content
                           if isinstance(b, str) or (isinstance(b, Mapping) and b.get("type") == "text"))
    return json_text(value)


async def score_answer(case: Case, output: Any, completed: bool,
                       judge: Callable[[str, str, Any], float] | None,
                       timeout: float | None = None) -> dict[str, Any] | None:
    """The case's answer check on the run's output: ``{"check", "score", "threshold",
    "answer", "reference", ...}``, or None when the case has no answer check. A run that did
    not complete, or an output without an answer, scores 0; a judge that fails, or a model
    check past ``timeout`` seconds, leaves the score empty (None) with the reason: the run's
    pass is unknown."""
    if case.answer_check is None:
        return None
    check = case.answer_check
    answer = answer_of(output, case.answer_path) if completed else None
    details: dict[str, Any] = {
        "check": check, "threshold": answer_threshold(check, case.threshold),
        "reference": _short(case.reference_answer), "answer": _short(answer),
    }
    if case.answer_path:
        details["answer_path"] = case.answer_path
    if case.tolerance is not None:
        details["tolerance"] = case.tolerance
    if answer is None:
        details.update(score=0.0, reason="the run did not complete" if not completed else "no answer in the output")
        return details
    try:
        if check in ("semantic", "judge"):  # a model: off the event loop, on a thread left behind when late
            grader = (lambda a, r: judge(a, r, case.input)) if judge is not None else None
            work = on_daemon_thread(asyncio.get_running_loop(),
                                    lambda: check_answer(check, answer, case.reference_answer, judge=grader))
            try:
                score = await asyncio.wait_for(work, timeout)
            except TimeoutError:
                raise TimeoutError(f"the {check} check timed out after {timeout:g} s") from None
        else:
            score = check_answer(check, answer, case.reference_answer, tolerance=case.tolerance)
    except Exception as exc:  # noqa: BLE001 - a check that cannot be scored fails the case, it does not stop the batch
        details.update(score=None, reason=f"{type(exc).__name__}: {exc}")
        return details
    details["score"] = score
    return details


def model_judge(model: Any) -> Callable[[str, str, Any], float]:
    """A judge for the ``judge`` check from a LangChain chat model (:func:`evaluators.grade_answer`);
    a failed grading raises, so the case is recorded unscored with the reason."""

    def judge(answer: str, reference: str, question: Any) -> float:
        grade = grade_answer(model, answer, reference, question=question)
        if grade.score is None:
            raise RuntimeError(f"the judge failed: {grade.error}")
        return grade.score

    return judge


def _short(value: Any) -> Any:
    if isinstance(value, str) and len(value) > ANSWER_CHARS:
        return value[:ANSWER_CHARS] + f"…[truncated, {len(value)} chars]"
    return value
