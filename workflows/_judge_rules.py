"""How the offline analyst answers the LLM judge of :mod:`evaluators`: five anchored 0-10
grades read off the assessment JSON (and the data summary) quoted in the judge's prompt,
answered as the JSON object the judge asks for.

Grades (integers 0-10):

- accuracy: 9 when the risk level is the band of the credit score (LOW >= 720, MODERATE
  620-719, HIGH 520-619, CRITICAL < 520; CRITICAL also fits when a bankruptcy is cited),
  6 one band apart, 3 further apart, 5 when either is missing; 2 when no source had data
  (nothing supports any rating, as the judge's prompt says).
- completeness: ``2 + 2*min(risk factors, 2) + 2*min(positive factors, 2)``, plus 2 when
  the data gaps are stated (at most 10).
- consistency: 9 when the reasoning states the risk level and the score, 6 one of them,
  4 neither.
- actionability: ``2 + 2 * recommendations`` (at most 10).
- data_utilization: sources with data in the summary that the reasoning names:
  ``2 + round(8 * named / with_data)``; 0 when no source had data (nothing was used).

A pairwise prompt (two assessments) is answered by the higher total grade; equal -> tie.
A pairwise answer prompt (two answers to one question) prefers the answer of the higher
word-overlap F1 with the reference (with the question when there is none); equal -> tie.
An answer-grading prompt (an agent's answer against a reference) is graded by word overlap:
``round(10 * token_f1(answer, reference))``.
"""

from __future__ import annotations

import json
import re
from typing import Any

from evaluators import token_f1

from ._rules import risk_for_score

DIMENSIONS = ("accuracy", "completeness", "consistency", "actionability", "data_utilization")
_LEVELS = ("LOW", "MODERATE", "HIGH", "CRITICAL")


def is_judge_prompt(prompt: str) -> bool:
    return all(d in prompt for d in DIMENSIONS) and "Assessment to grade" in prompt


def is_pairwise_prompt(prompt: str) -> bool:
    return "Assessment 1" in prompt and "Assessment 2" in prompt


def is_answer_pairwise_prompt(prompt: str) -> bool:
    return "Reference answer:" in prompt and "\nAnswer 1:\n" in prompt and "\nAnswer 2:\n" in prompt


def answer_preference(prompt: str) -> dict[str, Any]:
    """The pairwise answer judge's JSON reply: the answer of the higher word-overlap F1 with
    the reference (with the question when there is none) is better; equal -> tie."""
    head, _, rest = prompt.partition("\nAnswer 1:\n")
    first, _, second = rest.rpartition("\nAnswer 2:\n")
    reference = head.split("Reference answer:", 1)[1].strip()
    if reference == "(none)":
        reference = head.split("Reference answer:", 1)[0].split("Question or task (JSON):", 1)[-1]
    overlaps = [token_f1(first.strip(), reference), token_f1(second.strip(), reference)]
    better = "tie" if overlaps[0] == overlaps[1] else ("1" if overlaps[0] > overlaps[1] else "2")
    return {"reasoning": f"word overlap with the reference: F1 {overlaps[0]:.2f} vs {overlaps[1]:.2f}",
            "better": better}


def is_answer_prompt(prompt: str) -> bool:
    return "Reference answer:" in prompt and "Agent's answer to grade:" in prompt


def answer_grade(prompt: str) -> dict[str, Any]:
    """The answer judge's JSON reply: the word-overlap F1 of answer and reference, on 0-10."""
    reference = prompt.split("Reference answer:", 1)[1].split("Agent's answer to grade:", 1)[0].strip()
    answer = prompt.split("Agent's answer to grade:", 1)[1].strip()
    overlap = token_f1(answer, reference)
    return {"reasoning": f"word overlap with the reference: F1 {overlap:.2f}", "score": round(10 * overlap)}


def json_after(prompt: str, label: str) -> Any:
    """The JSON value that follows ``label`` (and its line break) in the prompt; None if absent."""
    at = prompt.find(label)
    if at < 0:
        return None
    rest = prompt[at + len(label):].lstrip(" :\n")
    try:
        return json.JSONDecoder().raw_decode(rest)[0]
    except ValueError:
        return None


def grades(assessment: dict[str, Any], data_summary: Any) -> dict[str, tuple[int, str]]:
    """The five grades with a one-line reason each (rules in the module doc)."""
    level, score = assessment.get("risk_level"), assessment.get("credit_score")
    reasoning = str(assessment.get("reasoning") or "")
    summary = data_summary if isinstance(data_summary, dict) else {}
    with_data = [n for n, s in summary.items() if isinstance(s, dict) and s.get("status") == "ok" and s.get("records_found")]
    out: dict[str, tuple[int, str]] = {}
    if data_summary is not None and not with_data:
        out["accuracy"] = (2, "no source returned data: nothing supports the rating")
    elif level not in _LEVELS or not isinstance(score, (int, float)):
        out["accuracy"] = (5, "risk level or credit score missing")
    else:
        band = risk_for_score(int(score))
        gap = abs(_LEVELS.index(band) - _LEVELS.index(level))
        bankrupt = re.search(r"bankrupt|chapter 11", reasoning + json.dumps(assessment.get("risk_factors") or []), re.I)
        if gap == 0 or (level == "CRITICAL" and bankrupt):
            out["accuracy"] = (9, f"{level} fits score {score}")
        else:
            out["accuracy"] = (6 if gap == 1 else 3, f"{level} is {gap} band(s) from score {score} ({band})")
    risks, positives = len(assessment.get("risk_factors") or []), len(assessment.get("positive_factors") or [])
    gaps_stated = "data_gaps" in assessment
    out["completeness"] = (min(10, 2 + 2 * min(risks, 2) + 2 * min(positives, 2) + 2 * gaps_stated),
                           f"{risks} risk and {positives} positive factor(s){', data gaps stated' if gaps_stated else ''}")
    named = sum(bool(x) and str(x) in reasoning for x in (level, score))
    out["consistency"] = ((9, "the reasoning states the level and the score") if named == 2 else
                          (6, "the reasoning states one of level and score") if named == 1 else
                          (4, "the reasoning does not tie back to the conclusion"))
    recs = len(assessment.get("recommendations") or [])
    out["actionability"] = (min(10, 2 + 2 * recs), f"{recs} recommendation(s)")
    if not with_data:
        out["data_utilization"] = (0, "no source returned data")
    else:
        used = [n for n in with_data if n in reasoning]
        out["data_utilization"] = (2 + round(8 * len(used) / len(with_data)),
                                   f"the reasoning uses {len(used)} of {len(with_data)} source(s) with data")
    return out


def judge_answer(prompt: str) -> dict[str, Any]:
    """The judge's JSON answer for a grading prompt."""
    assessment = json_after(prompt, "Assessment to grade (JSON):")
    g = grades(assessment if isinstance(assessment, dict) else {}, json_after(prompt, "Data available to the analyst:"))
    weakest = min(g, key=lambda d: g[d][0])
    answer: dict[str, Any] = {d: {"reasoning": g[d][1], "score": g[d][0]} for d in DIMENSIONS}
    answer.update(
        overall_reasoning="; ".join(f"{d} {g[d][0]}/10" for d in DIMENSIONS),
        benchmark_alignment="no benchmark",
        benchmark_comparison="no benchmark",
        suggestions=f"Improve {weakest.replace('_', ' ')}: {g[weakest][1]}.",
    )
    return answer


def pairwise_answer(prompt: str) -> dict[str, Any]:
    """Which of two quoted assessments grades higher in total; equal -> tie."""
    totals = []
    for label in ("Assessment 1 (JSON):", "Assessment 2 (JSON):"):
        a = json_after(prompt, label)
        totals.append(sum(v for v, _ in grades(a if isinstance(a, dict) else {}, None).values()))
    better = "tie" if totals[0] == totals[1] else ("1" if totals[0] > totals[1] else "2")
    return {"reasoning": f"total grades {totals[0]} vs {totals[1]}", "better": better}
