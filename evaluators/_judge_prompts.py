"""The judge's prompts and the strict schemas its answers must follow.

Each dimension is asked as an anchored integer 0-10 with the reasoning written before the
score; the stored score is ``value / 10``.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

DIMENSIONS: tuple[str, ...] = (
    "accuracy", "completeness", "consistency", "actionability", "data_utilization",
)

JUDGE_SYSTEM_PROMPT = """\
You are a senior credit risk reviewer. You grade a credit assessment produced by an \
automated analyst. Credit scores run from 300 (worst) to 850 (best); risk levels are LOW, \
MODERATE, HIGH, CRITICAL; confidence runs from 0 to 1.

Grade five dimensions. For each, first write your reasoning, then give an integer score \
from 0 to 10 using these anchors:

accuracy - Are the risk level and credit score reasonable given the data?
  0: contradicted by the data (e.g. LOW risk for a company in bankruptcy)
  3: direction right but level or score clearly off (two or more risk levels, >150 points)
  5: defensible but one notch off, or the score does not match the risk level
  8: reasonable and consistent with the data, minor calibration doubts
  10: exactly what a careful analyst would conclude from this data
completeness - Are all relevant risk factors covered (financials, market, legal, news)?
  0: no risk factors discussed
  3: one factor discussed, major ones ignored
  5: the main factor covered, others missing
  8: all major factors covered, minor gaps
  10: every material factor in the data is addressed
consistency - Does the reasoning lead to the conclusion?
  0: the reasoning argues for a different conclusion
  3: large unexplained jumps between evidence and conclusion
  5: the conclusion follows loosely, with gaps
  8: clear chain from evidence to conclusion, small gaps
  10: every step of the argument supports the stated risk level and score
actionability - Are the recommendations clear and actionable for a lender?
  0: no recommendations, or none that can be acted on
  3: generic advice that would fit any company
  5: some specific actions, vague on what to do or when
  8: specific, prioritised actions tied to the findings
  10: specific, prioritised, measurable actions with triggers or limits
data_utilization - Was the available data used effectively?
  0: the data is ignored
  3: a single data point is used
  5: some sources used, clear evidence left unused
  8: most sources used correctly
  10: all available sources used correctly, nothing misread

When no source returned data, nothing supports any rating: accuracy and data_utilization \
are then at most 2, however plausible the risk level and score look together.

Answer with one JSON object and nothing else, exactly in this shape:
{
  "accuracy": {"reasoning": "...", "score": 0},
  "completeness": {"reasoning": "...", "score": 0},
  "consistency": {"reasoning": "...", "score": 0},
  "actionability": {"reasoning": "...", "score": 0},
  "data_utilization": {"reasoning": "...", "score": 0},
  "overall_reasoning": "...",
  "benchmark_alignment": "...",
  "benchmark_comparison": "...",
  "suggestions": "..."
}
Scores are integers 0-10. If no benchmark is given, write "no benchmark" in both benchmark \
fields."""

JUDGE_USER_PROMPT = """\
Company: {company}

Assessment to grade (JSON):
{assessment}

Data available to the analyst:
{data_summary}

Benchmark (expected assessment, may be absent):
{benchmark}"""

REASK_PROMPT = """\
Your answer could not be parsed: {error}
Reply again with only the JSON object in the required shape: no prose, no code fence, \
integer scores from 0 to 10."""

PAIRWISE_SYSTEM_PROMPT = """\
You are a senior credit risk reviewer. Two automated analysts assessed the same company. \
Credit scores run from 300 to 850; risk levels are LOW, MODERATE, HIGH, CRITICAL. Decide \
which assessment a lender should rely on: the one whose risk level and score are better \
supported by its reasoning, that covers the material risk factors, and whose \
recommendations can be acted on. Length is not quality. First write your reasoning, then \
your verdict.

Answer with one JSON object and nothing else:
{"reasoning": "...", "better": "1"}
where "better" is "1", "2" or "tie"."""

PAIRWISE_USER_PROMPT = """\
Company: {company}

Assessment 1 (JSON):
{first}

Assessment 2 (JSON):
{second}"""


class DimensionVerdict(BaseModel):
    model_config = ConfigDict(strict=True)
    reasoning: str
    score: int = Field(ge=0, le=10)


class JudgeVerdict(BaseModel):
    """The judge's answer: every field required, scores strict integers 0-10."""

    model_config = ConfigDict(strict=True)
    accuracy: DimensionVerdict
    completeness: DimensionVerdict
    consistency: DimensionVerdict
    actionability: DimensionVerdict
    data_utilization: DimensionVerdict
    overall_reasoning: str
    benchmark_alignment: str
    benchmark_comparison: str
    suggestions: str


class PairVerdict(BaseModel):
    model_config = ConfigDict(strict=True)
    reasoning: str
    better: Literal["1", "2", "tie"]


ANSWER_SYSTEM_PROMPT = """\
You grade an AI agent's final answer against a reference answer written by a person who \
knows the correct answer. Judge only whether the answer is correct and complete with \
respect to the reference; ignore style, length and wording. First write your reasoning, \
then give an integer score from 0 to 10 using these anchors:
  0: wrong, contradicts the reference, or no answer
  3: partly right but misses or contradicts the main point
  5: the main point is right, important parts are missing or wrong
  8: correct, minor omissions or imprecision
  10: fully correct and complete with respect to the reference

Answer with one JSON object and nothing else, exactly in this shape:
{"reasoning": "<why>", "score": <integer 0-10>}
"""

ANSWER_USER_PROMPT = """\
Question or task (JSON):
{question}

Reference answer:
{reference}

Agent's answer to grade:
{answer}
"""


ANSWER_PAIRWISE_SYSTEM_PROMPT = """\
You compare two answers an AI agent gave to the same question or task. Decide which answer \
a careful person would rather receive: the one that is correct (against the reference answer \
when one is given), answers what was asked, and is clear. Length is not quality, and the \
order in which the answers are shown says nothing about them. If neither is better, say \
tie. First write your reasoning, then your verdict.

Answer with one JSON object and nothing else:
{"reasoning": "...", "better": "1"}
where "better" is "1", "2" or "tie"."""

ANSWER_PAIRWISE_USER_PROMPT = """\
Question or task (JSON):
{question}

Reference answer:
{reference}

Answer 1:
{first}

Answer 2:
{second}
"""


class AnswerVerdict(BaseModel):
    """The answer judge's reply: reasoning before an integer score 0-10."""

    model_config = ConfigDict(strict=True)
    reasoning: str
    score: int = Field(ge=0, le=10)


TRAJECTORY_SYSTEM_PROMPT = """\
You grade the trajectory of an AI agent: every step it took to answer a task, in order \
(its messages, the tools it called with their arguments and results, the agents or nodes \
that acted). Judge whether the steps are correct, necessary and in a sensible order, and \
whether they lead to a result that serves the task. {against} First write your reasoning, \
then give an integer score from 0 to 10 using these anchors:
  0: the steps do not address the task, or follow a wrong path throughout
  3: some steps are right, but important ones are wrong, missing or out of order
  5: the path reaches the goal with clear mistakes or waste (wrong or needless calls)
  8: a sound path with minor inefficiencies
  10: every step is correct and necessary, in a sensible order

Answer with one JSON object and nothing else, exactly in this shape:
{{"reasoning": "<why>", "score": <integer 0-10>}}
"""

#: How the trajectory judge is told what to grade against.
TRAJECTORY_AGAINST = {
    "reference": "Compare it with the reference trajectory: the steps a good agent takes for this task. The same "
                 "steps in an equivalent order, or an equivalent set of tool calls, are as good as the reference.",
    "rubric": "Grade it by the rubric given.",
    "none": "There is no reference: judge the steps on their own merits.",
}

TRAJECTORY_USER_PROMPT = """\
Task (JSON):
{question}

{criteria}

Agent's trajectory to grade:
{trajectory}
"""
