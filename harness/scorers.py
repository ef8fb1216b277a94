"""The built-in scorers, as factories: each takes its options and returns a scorer, a function
of ``(run, case)`` like your own, so a dataset's checks and Python use the same functions::

    from harness.scorers import contains, judge, tool_f1, trajectory_judge

    h.experiment("cand", graph, "cases.jsonl", scorers=[contains("Paris"), tool_f1(require=True)])

A reference left out is taken from the case (``reference_answer``, ``expected_tools``,
``reference_trajectory``). Each scorer's score is named after its factory unless ``name=``
says otherwise; the formulas are :mod:`evaluators`' (:func:`evaluators.check_answer`,
:func:`evaluators.tool_selection`, :func:`evaluators.trajectory_match`, the judges of
:mod:`evaluators`). A judge that cannot answer raises, which records the score with its error
(never a 0).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

import evaluators
from evaluators import Score

Scorer = Callable[[Any, Any], Score]

__all__ = ["Score", "completed", "contains", "exact", "judge", "numeric", "regex", "semantic", "tool_f1",
           "trajectory_judge", "trajectory_match"]


def _named(fn: Scorer, name: str, source: str = "code") -> Scorer:
    fn.__name__ = fn.score_name = name  # type: ignore[attr-defined]
    fn.score_source = source  # type: ignore[attr-defined]  # "llm": a judge's score
    fn.__qualname__ = name
    fn.__module__ = __name__
    return fn


def _reference(given: Any, case: Any, field: str) -> Any:
    value = given if given is not None else getattr(case, field, None)
    if value is None:
        raise ValueError(f"no {field} to score against: give one to the scorer or set it on the case")
    return value


def _answer_check(check: str, reference: Any, threshold: float | None, name: str, *, tolerance: float | None = None,
                  grader: Callable[[str, str, Any], float] | None = None) -> Scorer:
    def score(run: Any, case: Any) -> Score:
        ref = _reference(reference, case, "reference_answer")
        bar = evaluators.answer_threshold(check, threshold)
        if run.answer is None:
            return Score(0.0, False, "the run gave no answer" if run.status == "completed" else
                         f"the run {run.status or 'did not end'}")
        judged = (lambda a, r: grader(a, r, case.input)) if grader is not None else None
        value = evaluators.check_answer(check, run.answer, ref, tolerance=tolerance, judge=judged)
        shown = run.answer if len(run.answer) <= 80 else run.answer[:79] + "…"
        return Score(value, value >= bar - 1e-12, f"{check}: {shown!r} against {ref!r}, passes at {bar:g}")

    return _named(score, name, "llm" if check == "judge" else "code")


def exact(reference: Any = None, *, name: str = "exact") -> Scorer:
    """1 when the answer equals the reference (or one of a list) after trimming spaces; passes at 1."""
    return _answer_check("exact", reference, None, name)


def contains(reference: Any = None, *, name: str = "contains") -> Scorer:
    """1 when the reference (or one of a list) occurs in the answer, ignoring case; passes at 1."""
    return _answer_check("contains", reference, None, name)


def regex(pattern: Any = None, *, name: str = "regex") -> Scorer:
    """1 when the pattern matches somewhere in the answer; passes at 1."""
    return _answer_check("regex", pattern, None, name)


def numeric(reference: Any = None, *, tolerance: float | None = None, name: str = "numeric") -> Scorer:
    """1 when the answer's last number is within ``tolerance`` of the reference; passes at 1."""
    return _answer_check("numeric", reference, None, name, tolerance=tolerance)


def semantic(reference: Any = None, *, threshold: float | None = None, name: str = "semantic") -> Scorer:
    """The embedding cosine of answer and reference (the ``semantic`` extra); passes at
    ``threshold`` (0.8)."""
    return _answer_check("semantic", reference, threshold, name)


def judge(model: Any, reference: Any = None, *, threshold: float | None = None, name: str = "judge") -> Scorer:
    """An LLM judge's 0-10 grade of the answer against the reference, /10; passes at
    ``threshold`` (0.8). ``model`` is a LangChain chat model (asked at temperature 0, with
    retries)."""
    from .experiment.answer import model_judge  # the dataset's judge check grades the same way

    return _answer_check("judge", reference, threshold, name, grader=model_judge(model))


def completed(*, name: str = "completed") -> Scorer:
    """1 when the run completed (passes), 0 when it failed."""
    def score(run: Any, case: Any) -> Score:
        done = run.status == "completed"
        return Score(1.0 if done else 0.0, done, "the run completed" if done else f"the run {run.status}")

    return _named(score, name)


def tool_f1(expected: Sequence[str] | None = None, *, require: bool = False, name: str = "tool_f1") -> Scorer:
    """F1 of the tools the run called against the expected tools; with ``require`` it gates
    the run and passes only at 1 (every expected tool called, nothing else)."""
    def score(run: Any, case: Any) -> Score:
        wanted = list(_reference(expected, case, "expected_tools"))
        used = list(dict.fromkeys(call.name for call in run.tool_calls))
        ts = evaluators.tool_selection(used, wanted)
        return Score(ts.f1, (ts.f1 >= 1.0 - 1e-12) if require else None,
                     f"called {used}, expected {wanted}: precision {ts.precision:.2f}, recall {ts.recall:.2f}")

    return _named(score, name)


def trajectory_match(reference: Sequence[str] | None = None, *, threshold: float | None = None,
                     name: str = "trajectory_match") -> Scorer:
    """0.6·Jaccard + 0.4·LCS order of the run's node visits against the reference trajectory;
    gates the run only when ``threshold`` is given."""
    def score(run: Any, case: Any) -> Score:
        wanted = list(_reference(reference, case, "reference_trajectory"))
        tm = evaluators.trajectory_match(list(run.trajectory), wanted)
        passed = None if threshold is None else tm.score >= threshold - 1e-12
        return Score(tm.score, passed, f"visited {list(run.trajectory)}, expected {wanted}; missing {list(tm.missing)}, "
                                       f"extra {list(tm.extra)}")

    return _named(score, name)


def render_trajectory(run: Any, limit: int = 4_000) -> str:
    """A run's steps as text for a judge: its messages (role, text, tool calls), else its node
    visits and tool calls; each part cut at ``limit`` characters."""
    def short(value: Any) -> str:
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
        return text if len(text) <= limit else text[:limit] + f"…[{len(text):,} chars]"

    lines = []
    for i, message in enumerate(run.messages, start=1):
        if isinstance(message, dict):
            role = message.get("type") or message.get("role") or "message"
            who = f" ({message['name']})" if message.get("name") else ""
            lines.append(f"{i}. {role}{who}: {short(message.get('content') or '')}")
            for call in message.get("tool_calls") or ():
                lines.append(f"   calls {call.get('name')}({short(call.get('args'))})")
        else:
            lines.append(f"{i}. {short(message)}")
    if not lines:
        lines.append("nodes: " + " -> ".join(run.trajectory))
        for call in run.tool_calls:
            agent = f" [{call.agent}]" if call.agent else ""
            lines.append(f"tool {call.name}{agent}({short(call.args)}) -> {short(call.output)}")
    return "\n".join(lines)


def trajectory_judge(model: Any, reference: Any = None, *, rubric: str | None = None, threshold: float = 0.8,
                     name: str = "trajectory_judge") -> Scorer:
    """An LLM judge of the run's whole trajectory (messages, tool calls, the agents that acted)
    against a reference trajectory (given, else the case's ``reference_trajectory`` when it
    has one) and/or a ``rubric``, or on its own merits: 0-10 anchored, /10; passes at
    ``threshold``. After agentevals' trajectory judge, with this project's judge protocol
    (temperature 0, retries, one re-ask)."""
    def score(run: Any, case: Any) -> Score:
        ref = reference if reference is not None else getattr(case, "reference_trajectory", None)
        shown = ref if ref is None or isinstance(ref, str) else json.dumps(list(ref) if isinstance(ref, tuple) else ref,
                                                                          ensure_ascii=False, default=str)
        grade = evaluators.grade_trajectory(model, render_trajectory(run), reference=shown, rubric=rubric,
                                            question=getattr(case, "input", None))
        if grade.score is None:
            raise RuntimeError(f"the trajectory judge failed: {grade.error}")
        return Score(grade.score, grade.score >= threshold - 1e-12, grade.reasoning)

    return _named(score, name, "llm")
