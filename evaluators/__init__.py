"""Evaluation metrics and evaluator row builders.

Pure metric functions (every formula once, with its edge cases in the docstring), an LLM
judge, and row builders that take a run's rows as plain records and return new rows keyed
by the column names of the target sheet. Imports nothing from ``harness``, ``workflows`` or
``exporters``.
"""

from ._agent import (
    AGENT_WEIGHTS,
    AnswerQuality,
    IntentCorrectness,
    PlanQuality,
    agent_overall,
    final_answer_quality,
    intent_correctness,
    names_match,
    plan_quality,
)
from ._consistency import (
    RISK_LEVELS,
    Consistency,
    CrossModelAgreement,
    consistency,
    cross_model_agreement,
)
from ._evaluation import (
    EXPECTED_FIELDS,
    REQUIRED_ASSESSMENT_FIELDS,
    DataQuality,
    SynthesisQuality,
    data_quality,
    evaluation_overall,
    judge_overall,
    synthesis_quality,
)
from ._judge import JudgeResult, LLMJudge, PairwiseResult, is_transient, pairwise
from ._judge_prompts import DIMENSIONS, JUDGE_SYSTEM_PROMPT, JudgeVerdict
from ._status import EvalStatus, eval_status
from ._tools import ToolCallMatch, ToolSelection, tool_call_match, tool_selection
from ._trajectory import TrajectoryMatch, observed_trajectory, trajectory_match

__all__ = [
    "AGENT_WEIGHTS",
    "DIMENSIONS",
    "EXPECTED_FIELDS",
    "JUDGE_SYSTEM_PROMPT",
    "REQUIRED_ASSESSMENT_FIELDS",
    "RISK_LEVELS",
    "AnswerQuality",
    "Consistency",
    "CrossModelAgreement",
    "DataQuality",
    "EvalStatus",
    "IntentCorrectness",
    "JudgeResult",
    "JudgeVerdict",
    "LLMJudge",
    "PairwiseResult",
    "PlanQuality",
    "SynthesisQuality",
    "ToolCallMatch",
    "ToolSelection",
    "TrajectoryMatch",
    "agent_overall",
    "consistency",
    "cross_model_agreement",
    "data_quality",
    "eval_status",
    "evaluation_overall",
    "final_answer_quality",
    "intent_correctness",
    "is_transient",
    "judge_overall",
    "names_match",
    "observed_trajectory",
    "pairwise",
    "plan_quality",
    "synthesis_quality",
    "tool_call_match",
    "tool_selection",
    "trajectory_match",
]
