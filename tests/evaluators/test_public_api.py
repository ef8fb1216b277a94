"""The public surface of ``evaluators`` is pinned, and the package imports nothing of ours."""

from __future__ import annotations

import ast
import pathlib

import evaluators

PUBLIC = {
    # constants
    "AGENT_WEIGHTS", "CRITERIA", "DIMENSIONS", "EXPECTED_FIELDS", "JUDGE_SYSTEM_PROMPT", "QUALITY_WEIGHTS",
    "RECORD_FIELDS", "REQUIRED_ASSESSMENT_FIELDS", "RISK_LEVELS", "RUBRIC",
    # result types and classes
    "AnswerQuality", "Consistency", "Criterion", "CriterionResult", "CrossModelAgreement", "DataQuality", "EvalStatus", "EvaluationRunner",
    "IntentCorrectness", "JudgeResult", "JudgeVerdict", "LLMJudge", "MonitorMetrics", "PairwiseResult",
    "PlanQuality", "ProductionMonitor", "QualityScore", "Recommendation", "RubricDimension", "RunSummary",
    "Sample", "Statistics", "SynthesisQuality", "TestResult", "TestSet", "ToolCallMatch", "ToolSelection",
    "TrajectoryMatch",
    # credit / agent metrics
    "agent_overall", "consistency", "cross_model_agreement", "data_quality", "eval_status", "evaluation_overall",
    "final_answer_quality", "intent_correctness", "judge_overall", "names_match", "observed_trajectory",
    "plan_quality", "synthesis_quality", "tool_call_match", "tool_selection", "trajectory_match",
    # judge
    "RetryAfterWait", "is_transient", "pairwise",
    # row builders
    "agent_metrics_row", "consistency_rows", "cross_model_row", "evaluation_row", "generic_run_rows", "judge_row",
    "run_latency_ms", "tool_selection_row",
    # answer checks of dataset cases
    "ANSWER_CHECKS", "DEFAULT_THRESHOLDS", "GRADED_CHECKS", "AnswerGrade", "answer_threshold",
    "check_answer", "default_check", "grade_answer", "grade_trajectory", "last_number", "token_f1",
    # scores: every judgement of a run, and the one pass
    "SCORE_SOURCES", "Score", "ScoreResult", "SourcedScore", "answer_score", "built_in_scores",
    "expected_pass", "failed_score", "log_test_score", "pass_rate", "run_passed", "score_results", "score_row",
    "MAX_NAME_CHARS", "MAX_SCORES_PER_CALL", "NEVER_GATE", "NOT_SCORED", "pass_unknown",
    # judges: agreement with people, several raters, pairwise preference
    "KAPPA_WEIGHTS", "Agreement", "Estimate", "Judgement", "PairGrade", "Preference", "Rated", "agreement",
    "clopper_pearson", "cohen_kappa", "fleiss_estimate", "fleiss_kappa", "fleiss_table", "kappa_estimate",
    "krippendorff_alpha", "krippendorff_estimate", "preference", "prefer_answer", "spearman", "spearman_estimate",
    # threads: a conversation's status, pass, totals and messages; an experiment's turns folded by case
    "THREAD_STATUSES", "conversation", "fold_turns", "thread_passed", "thread_status", "total", "turns_passed",
    # paired statistics and verdicts (compare)
    "SIGN_FLIP_DRAWS", "SIGN_FLIP_EXACT_MAX", "SIGN_FLIP_SEED", "VERDICTS", "PairedTest", "SignFlips", "Verdict",
    "binomial_tail", "exact", "exact_mean", "holm", "holm_levels", "mean_of_repeats", "needed_cases", "paired_test", "round_sig", "verdict",
    # statistics over repeated runs
    "aggregate", "composite_score", "cost_delta", "cost_of_pass", "letter_grade", "pass_at_k", "pass_hat_k",
    "population_variance", "tier_uplift",
    # the three-tier evaluation framework
    "communication_overhead", "coordination_centrality", "cosine_similarity", "jaccard_similarity",
    "path_convergence", "recommendation", "run_graph", "semantic_similarity", "task_distribution_balance",
    "task_success", "tier_composite", "time_score", "tool_selection_accuracy",
    "assess_constructiveness", "assess_planning_rationality", "assess_technical_accuracy", "criterion_score",
    # response quality
    "coherence_score", "completeness_score", "length_score", "quality_score", "structure_score", "vocabulary_score",
    # the weighted rubric
    "rubric_score",
    # the production monitor's windows: figures with intervals, status, thresholds
    "PASS_RATE_CRITICAL", "PASS_RATE_WARNING", "Alert", "Figure", "WindowMetrics", "check_threshold", "mean_figure",
    "production_status", "proportion_figure", "quantile_figure", "window_metrics",
}


def test_all_is_pinned():
    assert set(evaluators.__all__) == PUBLIC
    assert len(evaluators.__all__) == len(PUBLIC)


def test_every_exported_name_exists():
    for name in evaluators.__all__:
        assert getattr(evaluators, name) is not None


def test_implementation_modules_are_private():
    package = pathlib.Path(evaluators.__file__).parent
    assert all(p.name.startswith("_") for p in package.glob("*.py"))


def test_evaluators_import_nothing_from_harness_workflows_or_exporters():
    package = pathlib.Path(evaluators.__file__).parent
    for path in package.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                roots = {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                roots = {(node.module or "").split(".")[0]}
            else:
                continue
            assert not roots & {"harness", "workflows", "exporters"}, f"{path.name} imports {roots}"
