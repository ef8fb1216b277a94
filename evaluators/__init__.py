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
from ._generic import generic_run_rows, run_latency_ms
from ._judge import JudgeResult, LLMJudge, PairwiseResult, is_transient, pairwise
from ._judge_prompts import DIMENSIONS, JUDGE_SYSTEM_PROMPT, JudgeVerdict
from ._rows import (
    agent_metrics_row,
    consistency_rows,
    cross_model_row,
    evaluation_row,
    judge_row,
    tool_selection_row,
)
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
    "agent_metrics_row",
    "agent_overall",
    "consistency",
    "consistency_rows",
    "cross_model_agreement",
    "cross_model_row",
    "data_quality",
    "eval_status",
    "evaluation_overall",
    "evaluation_row",
    "final_answer_quality",
    "generic_run_rows",
    "intent_correctness",
    "is_transient",
    "judge_overall",
    "judge_row",
    "names_match",
    "observed_trajectory",
    "pairwise",
    "plan_quality",
    "run_latency_ms",
    "synthesis_quality",
    "tool_call_match",
    "tool_selection",
    "tool_selection_row",
    "trajectory_match",
]
