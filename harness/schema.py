"""The fifteen logging sheets, as data.

This module is the one declaration of every sheet: its name, its columns in spec order,
each column's spec type (the "Type" column of the spec tables: UUID, Text, LLM, Rule,
Formula, Measured, Count, Data, Label, ...), the value kind it is stored as, and the
sheet's ``generated_by`` label. Store tables, row builders, exporters and the audit are
all derived from it; nothing else lists columns.

Extra columns (``trace_id``, ``span_id``, ...) follow the spec columns at the end of a
sheet: they let a row lead to its OpenTelemetry span without disturbing spec order.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Kind = Literal["text", "int", "float", "json", "datetime"]


@dataclass(frozen=True, slots=True)
class Column:
    name: str
    spec_type: str  # the spec's "Type" column, verbatim ("Extra" for trailing columns)
    kind: Kind  # how the value is stored and exported


@dataclass(frozen=True, slots=True)
class Sheet:
    name: str
    generated_by: str  # "Us", "FW" or "Mixed"
    columns: tuple[Column, ...]  # spec columns, in spec order
    extra: tuple[Column, ...] = ()  # trailing columns beyond the spec

    @property
    def column_names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.columns)

    @property
    def all_columns(self) -> tuple[Column, ...]:
        return self.columns + self.extra

    @property
    def all_column_names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.all_columns)

    def column(self, name: str) -> Column:
        for c in self.all_columns:
            if c.name == name:
                return c
        raise KeyError(f"sheet {self.name!r} has no column {name!r}")


def _cols(spec: str) -> tuple[Column, ...]:
    """Parse ``name:SpecType:kind`` triples, one per line."""
    out = []
    for line in spec.split():
        name, spec_type, kind = line.split(":")
        out.append(Column(name, spec_type, kind))  # type: ignore[arg-type]
    return tuple(out)


_TRACE = _cols("trace_id:Extra:text span_id:Extra:text parent_span_id:Extra:text")

SHEETS: tuple[Sheet, ...] = (
    Sheet("runs", "Us", _cols("""
        run_id:UUID:text company_name:Text:text node:Text:text agent_name:Text:text
        model:Text:text temperature:Float:float status:Text:text started_at:ISO:datetime
        completed_at:ISO:datetime risk_level:LLM:text credit_score:LLM:int confidence:LLM:float
        total_time_ms:Measured:float total_steps:Count:int total_llm_calls:Count:int
        tools_used:List:json evaluation_score:Formula:float timestamp:ISO:datetime
        generated_by:Label:text"""),
        _cols("""workflow:Extra:text batch_id:Extra:text thread_id:Extra:text error:Extra:text
        total_tokens:Extra:int total_cost:Extra:float harness_errors:Extra:int""") + _TRACE[:2]
        + _cols("experiment:Extra:text case_id:Extra:text repeat_index:Extra:int note:Extra:text passed:Extra:int")),
    Sheet("tool_calls", "Us", _cols("""
        run_id:UUID:text company_name:Text:text node:Text:text node_type:Text:text
        agent_name:Text:text step_number:Int:int tool_name:Text:text tool_input:JSON:json
        tool_output:JSON:json parent_node:Text:text workflow_phase:Text:text call_depth:Int:int
        parent_tool_id:Text:text execution_time_ms:Measured:float status:Text:text
        error:Text:text timestamp:ISO:datetime generated_by:Label:text"""),
        _cols("tool_call_id:Extra:text") + _TRACE),
    Sheet("assessments", "Us", _cols("""
        run_id:UUID:text company_name:Text:text node:Text:text node_type:Text:text
        agent_name:Text:text step_number:Int:int model:Text:text temperature:Float:float
        prompt:Text:text risk_level:LLM:text credit_score:LLM:int confidence:LLM:float
        reasoning:LLM:text recommendations:LLM:json duration_ms:Measured:float
        status:Text:text timestamp:ISO:datetime generated_by:Label:text""")),
    Sheet("evaluations", "Us", _cols("""
        run_id:UUID:text company_name:Text:text node:Text:text node_type:Text:text
        agent_name:Text:text step_number:Int:int model:Text:text
        tool_selection_score:Rule:float tool_reasoning:Text:text data_quality_score:Rule:float
        data_reasoning:Text:text synthesis_score:Rule:float synthesis_reasoning:Text:text
        overall_score:Formula:float eval_status:Formula:text duration_ms:Measured:float
        status:Text:text timestamp:ISO:datetime generated_by:Label:text""")),
    Sheet("tool_selections", "Us", _cols("""
        run_id:UUID:text company_name:Text:text node:Text:text node_type:Text:text
        agent_name:Text:text step_number:Int:int model:Text:text selected_tools:List:json
        expected_tools:Rule:json correct_tools:Rule:json missing_tools:Rule:json
        extra_tools:Rule:json precision:Formula:float recall:Formula:float
        f1_score:Formula:float reasoning:Text:text duration_ms:Measured:float
        status:Text:text timestamp:ISO:datetime generated_by:Label:text""")),
    Sheet("llm_calls", "Mixed", _cols("""
        run_id:UUID:text company_name:Text:text node:Text:text node_type:Text:text
        agent_name:Text:text step_number:Int:int call_type:Text:text model:Text:text
        temperature:Float:float prompt:Text:text response:Text:text reasoning:Text:text
        context:Text:text current_task:Text:text prompt_tokens:Measured:int
        completion_tokens:Measured:int total_tokens:Formula:int input_cost:Formula:float
        output_cost:Formula:float total_cost:Formula:float execution_time_ms:Measured:float
        status:Text:text error:Text:text timestamp:ISO:datetime generated_by:Label:text"""),
        _cols("""llm_call_id:Extra:text usage_source:Extra:text time_to_first_token_ms:Extra:float
        price_table:Extra:text parent_tool_id:Extra:text""") + _TRACE),
    Sheet("consistency_scores", "Us", _cols("""
        run_id:UUID:text company_name:Text:text node:Text:text node_type:Text:text
        agent_name:Text:text step_number:Int:int model_name:Text:text evaluation_type:Label:text
        num_runs:Count:int risk_level_consistency:Formula:float score_consistency:Formula:float
        score_std:Formula:float overall_consistency:Formula:float eval_status:Formula:text
        risk_levels:Data:text credit_scores:Data:text duration_ms:Measured:float
        status:Text:text timestamp:ISO:datetime generated_by:Label:text"""),
        _cols("batch_id:Extra:text run_ids:Extra:json")),
    Sheet("data_sources", "Us", _cols("""
        run_id:UUID:text company_name:Text:text node:Text:text node_type:Text:text
        agent_name:Text:text step_number:Int:int source_name:Text:text records_found:Count:int
        data_summary:JSON:json execution_time_ms:Measured:float status:Text:text
        error:Text:text timestamp:ISO:datetime generated_by:Label:text""")),
    Sheet("langgraph_events", "FW", _cols("""
        run_id:UUID:text company_name:Text:text node:Text:text node_type:Text:text
        agent_name:Text:text step_number:Int:int event_type:Text:text event_name:Text:text
        model:Text:text temperature:Float:float tokens:Int:int input_preview:Text:text
        output_preview:Text:text duration_ms:Measured:float status:Text:text error:Text:text
        timestamp:ISO:datetime generated_by:Label:text"""),
        _cols("""event_id:Extra:text parent_event_id:Extra:text langgraph_step:Extra:int
        checkpoint_ns:Extra:text subgraph_depth:Extra:int thread_id:Extra:text
        event_kind:Extra:text""") + _TRACE),
    Sheet("plans", "Us", _cols("""
        run_id:UUID:text company_name:Text:text node:Text:text agent_name:Text:text
        num_tasks:Count:int plan_summary:Text:text full_plan:JSON:json
        task_1:JSON:json task_2:JSON:json task_3:JSON:json task_4:JSON:json task_5:JSON:json
        task_6:JSON:json task_7:JSON:json task_8:JSON:json task_9:JSON:json task_10:JSON:json
        created_at:ISO:datetime status:Text:text generated_by:Label:text""")),
    Sheet("prompts", "Us", _cols("""
        run_id:UUID:text company_name:Text:text node:Text:text agent_name:Text:text
        step_number:Int:int prompt_id:Text:text prompt_name:Text:text category:Text:text
        system_prompt:Text:text user_prompt:Text:text variables_json:JSON:json
        model:Text:text temperature:Float:float timestamp:ISO:datetime
        generated_by:Label:text"""),
        _cols("llm_call_id:Extra:text")),
    Sheet("cross_model_eval", "Us", _cols("""
        run_id:UUID:text company_name:Text:text node:Text:text node_type:Text:text
        agent_name:Text:text step_number:Int:int models_compared:List:json num_models:Count:int
        risk_level_agreement:Formula:float credit_score_mean:Formula:float
        credit_score_std:Formula:float credit_score_range:Formula:float
        confidence_agreement:Formula:float best_model:LLM:text best_model_reasoning:LLM:text
        cross_model_agreement:Formula:float eval_status:Formula:text llm_judge_analysis:LLM:text
        model_recommendations:LLM:text model_results:JSON:json pairwise_comparisons:JSON:json
        duration_ms:Measured:float status:Text:text timestamp:ISO:datetime
        generated_by:Label:text"""),
        _cols("run_ids:Extra:json")),
    Sheet("llm_judge_results", "Us", _cols("""
        run_id:UUID:text company_name:Text:text node:Text:text node_type:Text:text
        agent_name:Text:text step_number:Int:int model_used:Text:text temperature:Float:float
        accuracy_score:LLM:float completeness_score:LLM:float consistency_score:LLM:float
        actionability_score:LLM:float data_utilization_score:LLM:float
        overall_score:Formula:float eval_status:Formula:text accuracy_reasoning:LLM:text
        completeness_reasoning:LLM:text consistency_reasoning:LLM:text
        actionability_reasoning:LLM:text data_utilization_reasoning:LLM:text
        overall_reasoning:LLM:text benchmark_alignment:LLM:text benchmark_comparison:LLM:text
        suggestions:LLM:text tokens_used:Measured:int evaluation_cost:Formula:float
        duration_ms:Measured:float status:Text:text timestamp:ISO:datetime
        generated_by:Label:text"""),
        _cols("error:Extra:text")),
    Sheet("agent_metrics", "Us", _cols("""
        run_id:UUID:text company_name:Text:text node:Text:text node_type:Text:text
        agent_name:Text:text step_number:Int:int model:Text:text
        intent_correctness:Rule:float plan_quality:Rule:float
        tool_choice_correctness:Rule:float tool_completeness:Rule:float
        trajectory_match:Rule:float final_answer_quality:Rule:float step_count:Measured:int
        tool_calls:Measured:int latency_ms:Measured:float overall_score:Formula:float
        eval_status:Formula:text intent_details:JSON:json plan_details:JSON:json
        tool_details:JSON:json trajectory_details:JSON:json answer_details:JSON:json
        status:Text:text timestamp:ISO:datetime generated_by:Label:text""")),
    Sheet("log_tests", "Us", _cols("""
        run_id:UUID:text company_name:Text:text runs:Count:int langgraph_events:Count:int
        llm_calls:Count:int tool_calls:Count:int assessments:Count:int evaluations:Count:int
        tool_selections:Count:int consistency_scores:Count:int data_sources:Count:int
        plans:Count:int prompts:Count:int cross_model_eval:Count:int
        llm_judge_results:Count:int agent_metrics:Count:int total_sheets_logged:Count:int
        verification_status:Rule:text timestamp:ISO:datetime generated_by:Label:text"""),
        _cols("profile:Extra:text required_sheets:Extra:json written_rows:Extra:json")),
)

SHEET_NAMES: tuple[str, ...] = tuple(s.name for s in SHEETS)
SHEETS_BY_NAME: dict[str, Sheet] = {s.name: s for s in SHEETS}

#: Sheets whose rows ``log_tests`` counts, in the order of its columns.
COUNTED_SHEETS: tuple[str, ...] = tuple(
    c.name for c in SHEETS_BY_NAME["log_tests"].columns if c.spec_type == "Count"
    and c.name != "total_sheets_logged"
)

#: Node -> canonical agent name (spec, "Canonical Agent Names").
AGENT_NAMES: dict[str, str] = {
    "parse_input": "llm_parser",
    "validate_company": "supervisor",
    "create_plan": "tool_supervisor",
    "fetch_api_data": "api_agent",
    "search_web": "search_agent",
    "synthesize": "llm_analyst",
    "save_to_database": "db_writer",
    "evaluate_assessment": "workflow_evaluator",
}

RISK_LEVELS: tuple[str, ...] = ("LOW", "MODERATE", "HIGH", "CRITICAL")
CREDIT_SCORE_RANGE: tuple[int, int] = (300, 850)
EVAL_STATUSES: tuple[str, ...] = ("good", "average", "bad")
VERIFICATION_STATUSES: tuple[str, ...] = ("pass", "partial", "fail")


def truncation_marker(length: int, *, at_least: bool = False) -> str:
    """How a cell cut to a size limit ends (``…[truncated, {length} chars]``, ``length`` being
    the whole value's length; ``{length}+`` when only a lower bound is known, for a payload
    capture cut before reading it all): previews in the store, cells in Excel and Google
    Sheets; the audit recognises it."""
    return f"…[truncated, {length}{'+' if at_least else ''} chars]"


def sheet(name: str) -> Sheet:
    try:
        return SHEETS_BY_NAME[name]
    except KeyError:
        raise KeyError(f"unknown sheet {name!r}; sheets are {', '.join(SHEET_NAMES)}") from None
