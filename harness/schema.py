"""The fifteen logging sheets, as data: the one declaration of every column.

Each :class:`Column` carries its name, the spec's type (the "Type" column of the spec
tables: UUID, Text, LLM, Rule, Formula, Measured, Count, Data, Label, ...; "Extra" for a
column beyond the spec), the kind of value it is stored as, what it means, who writes it
(or the function whose result it is) and, for numbers and labels, the values it may hold.
Store tables, row builders, exporters, the audit's type and range checks and
``docs/sheets.md`` (``python docs/generate_sheets.py``) are all derived from it; nothing
else lists columns.

Extra columns (``trace_id``, ``span_id``, ...) follow the spec columns at the end of a
sheet: they let a row lead to its OpenTelemetry span without disturbing spec order.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any, Literal

Kind = Literal["text", "int", "float", "json", "datetime"]

RISK_LEVELS: tuple[str, ...] = ("LOW", "MODERATE", "HIGH", "CRITICAL")
CREDIT_SCORE_RANGE: tuple[int, int] = (300, 850)
EVAL_STATUSES: tuple[str, ...] = ("good", "average", "bad")
VERIFICATION_STATUSES: tuple[str, ...] = ("pass", "partial", "fail")
#: The bounds of a number that is not a score: any value >= 0.
UNBOUNDED: tuple[float, float] = (0.0, math.inf)
#: Spec types of the numbers a formula, a rule or a judge produces: scores in [0, 1] unless bounded otherwise.
_SCORE_TYPES = frozenset({"Rule", "Formula", "LLM"})


@dataclass(frozen=True, slots=True)
class Column:
    name: str
    spec_type: str  # the spec's "Type" column, verbatim ("Extra" for trailing columns)
    kind: Kind  # how the value is stored and exported
    meaning: str  # what the value is (docs/sheets.md shows it)
    written_by: str  # "captured", "the run", "node (name)", "the batch", or the function it is the result of
    bounds: tuple[float, float] | None = None  # a number's range, when not the default (see value_range)
    labels: tuple[str, ...] | None = None  # the closed set of values a label column holds (or empty)

    @property
    def value_range(self) -> tuple[float, float] | None:
        """A number's allowed range: ``bounds`` when given, [0, 1] for a float a rule, formula
        or judge produces (a score), else >= 0 (every number in the sheets is); None for
        columns that hold no number."""
        if self.kind not in ("int", "float"):
            return None
        if self.bounds is not None:
            return self.bounds
        return (0.0, 1.0) if self.kind == "float" and self.spec_type in _SCORE_TYPES else UNBOUNDED

    def but(self, **changes: Any) -> Column:
        """The same column with some fields changed (a shared column that means more on one sheet)."""
        return dataclasses.replace(self, **changes)


@dataclass(frozen=True, slots=True)
class Sheet:
    name: str
    generated_by: str  # "Us", "FW" or "Mixed" (see GENERATED_BY_LABELS)
    purpose: str  # what one row of the sheet is
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

    def columns_of(self, spec_type: str, kind: Kind) -> tuple[str, ...]:
        """The names of the spec columns of one spec type and kind, in spec order (e.g. the
        parts an overall score is made of)."""
        return tuple(c.name for c in self.columns if c.spec_type == spec_type and c.kind == kind)


# --- columns many sheets share (a sheet where one means more says so with .but(...)) --------
_RUN_ID = Column("run_id", "UUID", "text", "The run the row belongs to (a UUID; the runs row of the same id "
                 "describes it).", "the run")
_COMPANY_NAME = Column("company_name", "Text", "text", "The run's subject: the company of a credit run, "
                       "``subject=`` of a wrapped run.", "the run")
_NODE = Column("node", "Text", "text", "The graph node the row was produced in.", "captured")
_AGENT_NAME = Column("agent_name", "Text", "text", "The agent the row belongs to: in a multi-agent graph, the "
                     "outermost subgraph it ran in, named as the root graph's node that runs it (a supervisor's "
                     "``research_expert``, a swarm's ``Alice``); else its node. A root-level name is the declared "
                     "canonical agent name when there is one (e.g. ``llm_analyst`` for synthesize).", "captured")
_AGENT_PATH = Column("agent_path", "Extra", "text", "The chain of subgraphs the row ran in, outermost first, joined "
                     "with ``/`` (``research_team/research_expert`` in a supervisor of supervisors); agent_name "
                     "when it ran in no subgraph.", "captured")
_MODEL = Column("model", "Text", "text", "The model, as the model's response names it (not as configured).",
                "captured")
_TEMPERATURE = Column("temperature", "Float", "float", "Sampling temperature of the call or run.", "captured",
                      bounds=(0, 2))
_STATUS = Column("status", "Text", "text", "Outcome of what the row records: ``ok``, or ``error`` / ``fail`` with "
                 "the reason in ``error``.", "the writer of the row")
_TIMESTAMP = Column("timestamp", "ISO", "datetime", "When the row was made (UTC).", "the writer of the row")
_GENERATED_BY = Column("generated_by", "Label", "text", "Who produced the row: ``Us``, ``FW`` or ``Mixed`` (see the "
                       "top of this page).", "the writer of the row")
_ERROR = Column("error", "Text", "text", "Why it failed; empty when it did not.", "the writer of the row")
_TRACE_ID = Column("trace_id", "Extra", "text", "OpenTelemetry trace id of the run's spans (hex), when spans were "
                   "made.", "captured")
_SPAN_ID = Column("span_id", "Extra", "text", "OpenTelemetry span id of the span that records the same thing as the "
                  "row.", "captured")
_NODE_TYPE = Column("node_type", "Text", "text", "The kind of that node: ``agent``, ``tool``, ``llm``, ``graph`` or "
                    "the workflow's own label.", "captured")
_STEP_NUMBER = Column("step_number", "Int", "int", "1-based order of the node execution the row was produced in "
                      "(node executions of the run, by start time).", "captured")
_PARENT_SPAN_ID = Column("parent_span_id", "Extra", "text", "Span id of that span's parent.", "captured")
_TRACEBACK = Column("traceback", "Extra", "text", "Where it failed: the exception's traceback as Python prints "
                    "it (without the ``^^^`` markers), its innermost 40 frames, the last 8,192 characters led by "
                    "``…[truncated, N chars]`` when cut; secrets scrubbed; empty when it did not raise.", "captured")
_DURATION_MS = Column("duration_ms", "Measured", "float", "How long producing the row took, in milliseconds.",
                      "the writer of the row")
_EVAL_STATUS = Column("eval_status", "Formula", "text", "``good`` when the row's overall score is >= 0.80, "
                      "``average`` when >= 0.60, else ``bad``; empty when there is no score.",
                      "evaluators.eval_status(overall)", labels=EVAL_STATUSES)
_RUN_IDS = Column("run_ids", "Extra", "json", "Every run the group row covers, in input order (company, model, "
                  "repeat); ``run_id`` is the last of them, the run that completed the group. Written once per "
                  "group.", "the batch")

SHEETS: tuple[Sheet, ...] = (
    Sheet("runs", "Us", "One row per run: what was run, how it ended, the assessment it produced and its totals.", (
        _RUN_ID,
        _COMPANY_NAME,
        _NODE.but(meaning="The last node to finish.", written_by="the run"),
        _AGENT_NAME.but(meaning="The agent name of that node.", written_by="the run"),
        _MODEL.but(meaning="The run's primary model: the one it was started with (``--model``), else the model its "
                           "calls' responses name most often.", written_by="the run"),
        _TEMPERATURE.but(meaning="The temperature the run was started with, else that of its first model call.",
                                 written_by="the run"),
        _STATUS.but(meaning="``completed``, or ``failed`` when a root graph of the run raised (whether or not the "
                            "caller caught the exception) or an exception left the run's block. An interrupted run "
                            "(a human-in-the-loop interrupt) is completed.",
                            written_by="the run"),
        Column("started_at", "ISO", "datetime", "When the run started (UTC).", "the run"),
        Column("completed_at", "ISO", "datetime", "When the run ended (UTC).", "the run"),
        Column("risk_level", "LLM", "text", "Risk level of the run's last ``ok`` assessment: LOW, MODERATE, HIGH or "
               "CRITICAL.", "node (synthesize)", labels=RISK_LEVELS),
        Column("credit_score", "LLM", "int", "Credit score of that assessment, 300-850.", "node (synthesize)",
               bounds=CREDIT_SCORE_RANGE),
        Column("confidence", "LLM", "float", "Confidence of that assessment, 0-1; at most 0.2 when no source "
               "returned records.", "node (synthesize)", bounds=(0, 1)),
        Column("total_time_ms", "Measured", "float", "completed_at - started_at, in milliseconds.", "the run"),
        Column("total_steps", "Count", "int", "Node executions of the run (subgraph nodes included) = distinct "
               "``step_number`` of its node events.", "the run"),
        Column("total_llm_calls", "Count", "int", "The run's rows in llm_calls.", "the run"),
        Column("tools_used", "List", "json", "The distinct tools that really ran (its tool_calls rows), in order of "
               "first call.", "the run"),
        Column("evaluation_score", "Formula", "float", "The run's evaluations.overall_score.", "the run"),
        _TIMESTAMP,
        _GENERATED_BY,
    ), extra=(
        Column("workflow", "Extra", "text", "What ran, by one rule: the name given (``workflow=``, ``--workflow``; "
               "``credit_analysis`` for credit runs), else the graph's own name unless it is LangGraph's default, "
               "else the attribute it was loaded from (``harness wrap module:ATTR``).", "the run"),
        Column("batch_id", "Extra", "text", "The group of repeated or compared runs of one company it belongs to.",
               "the batch"),
        Column("thread_id", "Extra", "text", "LangGraph's ``thread_id`` the graph ran with, wherever it was given "
               "(the invoke config, or ``Harness.run(config=...)``).", "the run"),
        Column("error", "Extra", "text", "Why the run failed (the exception), or why its input was refused "
               "(``validation failed: ...``).", "the run"),
        Column("total_tokens", "Extra", "int", "Sum over the run's llm_calls of prompt_tokens + completion_tokens.",
               "the run"),
        Column("total_cost", "Extra", "float", "Sum over the run's llm_calls of total_cost (calls without a price "
               "left out); empty when no call has a price. Follows its calls when they are re-priced (``harness "
               "reprice``).", "the run", bounds=UNBOUNDED),
        Column("harness_errors", "Extra", "int", "Failures inside the harness while recording the run (logged, "
               "never raised into the graph); 0 normally.", "the run"),
        _TRACE_ID,
        _SPAN_ID.but(meaning="Span id of the run's root span.", written_by="captured"),
        Column("experiment", "Extra", "text", "The experiment the run belongs to, when it was run over a dataset.",
               "the run"),
        Column("case_id", "Extra", "text", "The dataset case the run answers, in an experiment.", "the run"),
        Column("repeat_index", "Extra", "int", "Which repeat of that case (0-based), in an experiment.", "the run"),
        Column("note", "Extra", "text", "What the run's data lacked: each planned source that returned no records, "
               "was skipped for a missing key (named) or failed, led by \"no evidence found\" when none returned "
               "records; empty when every source returned records.", "node (synthesize)"),
        Column("passed", "Extra", "int", "1 when the run passed, 0 when it did not, empty when its pass is unknown "
               "or it has none: a run fails when it did not complete or a score that gates it fails (scores "
               "sheet); else its pass is unknown while a score of it could not be made (an error, or a scorer "
               "not run yet); else it passes when a score gates it; a run none of whose scores gates it has no "
               "pass. An experiment's runs always have a gate (their completed score); a credit run's "
               "evaluation and log test gate it.", "evaluators.run_passed(status, scores)",
               bounds=(0, 1)),
        Column("inputs", "Extra", "json", "What the run gave the graph (a dataset case's input; under "
               "``Harness.run``, the input of the graph it invoked, a list of them for several), cut at 1 MB of "
               "JSON.", "the run"),
        Column("outputs", "Extra", "json", "What the graph returned, as JSON (a message as its type and content), "
               "cut at 1 MB of JSON; empty when the run failed.", "the run"),
        Column("reference", "Extra", "json", "The dataset case's reference fields (reference_answer, "
               "expected_tools, reference_trajectory, answer_check, answer_path, threshold, tolerance, "
               "require_tools, metadata), so a run can be scored again without the dataset.",
               "the experiment runner"),
        Column("turn", "Extra", "int", "The run's place in its thread: 1 for the first run stored with its "
               "``thread_id``, then one more per run, in order of ``started_at`` (ties by ``run_id``); empty "
               "without a thread_id. Numbered by the store as runs arrive, whatever order they are written in.",
               "the store (the runs of one thread_id by started_at)"),
        Column("interrupts", "Extra", "json", "The human-in-the-loop interrupts the run stopped at, in the order "
               "asked: a list of ``{id, node, value}`` (and ``tool`` when a tool asked): LangGraph's interrupt id, "
               "the graph node that called ``interrupt(...)`` (the innermost, inside a subgraph), the value it was "
               "given (redacted; cut at 10,000 characters with the truncation marker); empty when the run did not "
               "stop at one. A thread whose last run has interrupts is waiting.", "captured"),
        Column("resume", "Extra", "json", "What the run resumed its thread with, when its input was "
               "``Command(resume=...)``: the value as given (a map of interrupt id -> answer when several were "
               "answered at once; redacted, cut at 10,000 characters); empty otherwise.", "captured"),
        Column("resumed_from", "Extra", "text", "The run this one resumed: the run before it in its thread, when "
               "its input was a resume and that run stopped at an interrupt; empty otherwise.",
               "the store (the run before it in its thread)"),
        Column("cache_read_tokens", "Extra", "int", "Sum over the run's llm_calls of cache_read_tokens; empty when "
               "no call says.", "the run"),
        Column("cache_write_tokens", "Extra", "int", "Sum over the run's llm_calls of cache_write_5m_tokens + "
               "cache_write_1h_tokens; empty when no call says.", "the run"),
        Column("reasoning_tokens", "Extra", "int", "Sum over the run's llm_calls of reasoning_tokens; empty when no "
               "call says.", "the run"),
    )),
    Sheet("tool_calls", "Us", "One row per tool call that finished, with its input, output and place in the run.", (
        _RUN_ID,
        _COMPANY_NAME,
        _NODE,
        _NODE_TYPE.but(meaning="Always ``tool``.", written_by="captured"),
        _AGENT_NAME,
        _STEP_NUMBER,
        Column("tool_name", "Text", "text", "The tool's name.", "captured"),
        Column("tool_input", "JSON", "json", "The tool's input as it was when the call started (JSON).", "captured"),
        Column("tool_output", "JSON", "json", "The tool's output (JSON; a tool that returns text gives a JSON "
               "string); empty when it raised.", "captured"),
        Column("parent_node", "Text", "text", "The graph node that contains the call.", "captured"),
        Column("workflow_phase", "Text", "text", "The phase of that node (e.g. ``data_collection``), as the "
               "workflow declares it.", "captured"),
        Column("call_depth", "Int", "int", "Enclosing tool calls: 0 when a node called the tool, 1 inside another "
               "tool, ...", "captured"),
        Column("parent_tool_id", "Text", "text", "``tool_call_id`` of the enclosing tool call, for nested calls.",
               "captured"),
        Column("execution_time_ms", "Measured", "float", "How long the call took, in milliseconds.", "captured"),
        _STATUS.but(meaning="``ok``, or ``fail`` when the tool raised or answered with an error.",
                            written_by="captured"),
        _ERROR.but(meaning="The tool's error.", written_by="captured"),
        _TIMESTAMP.but(meaning="When the call ended (UTC).", written_by="captured"),
        _GENERATED_BY,
    ), extra=(
        Column("tool_call_id", "Extra", "text", "The call's id (LangChain's run id).", "captured"),
        _TRACE_ID,
        _SPAN_ID,
        _PARENT_SPAN_ID,
        _TRACEBACK,
        _AGENT_PATH,
        Column("handoff_to", "Extra", "text", "For a handoff tool (one that returned ``Command(goto=..., "
               "graph=Command.PARENT)``, e.g. ``transfer_to_math_expert``): the agent it handed off to; its "
               "tool_output is the command, ``goto`` first.", "captured"),
    )),
    Sheet("assessments", "Us", "One row per credit assessment the synthesize node produced.", (
        _RUN_ID,
        _COMPANY_NAME,
        _NODE,
        _NODE_TYPE,
        _AGENT_NAME,
        _STEP_NUMBER,
        _MODEL.but(meaning="The model that answered.", written_by="node (synthesize)"),
        _TEMPERATURE.but(meaning="The analyst's temperature.", written_by="node (synthesize)"),
        Column("prompt", "Text", "text", "Id of the prompt used (``credit_synthesis``, see prompts).",
               "node (synthesize)"),
        Column("risk_level", "LLM", "text", "LOW, MODERATE, HIGH or CRITICAL.", "node (synthesize)",
               labels=RISK_LEVELS),
        Column("credit_score", "LLM", "int", "300 (worst) to 850 (best).", "node (synthesize)",
               bounds=CREDIT_SCORE_RANGE),
        Column("confidence", "LLM", "float", "0-1, as the model stated it, capped at 0.2 when no source returned "
               "records.", "node (synthesize)", bounds=(0, 1)),
        Column("reasoning", "LLM", "text", "Why, citing the figures used.", "node (synthesize)"),
        Column("recommendations", "LLM", "json", "What a lender should do (JSON list).", "node (synthesize)"),
        _DURATION_MS,
        _STATUS.but(meaning="``ok``, or ``error`` when the model's answer could not be used (after one re-ask).",
                            written_by="node (synthesize)"),
        _TIMESTAMP,
        _GENERATED_BY,
    )),
    Sheet("evaluations", "Us", "One row per evaluated credit run: tool selection, data quality and synthesis scores.",
          (
        _RUN_ID,
        _COMPANY_NAME,
        _NODE,
        _NODE_TYPE,
        _AGENT_NAME,
        _STEP_NUMBER,
        _MODEL.but(meaning="The analyst model the evaluation is of.", written_by="node (evaluate_assessment)"),
        Column("tool_selection_score", "Rule", "float", "F1 of the tools that ran against the company type's "
               "expected tools.", "evaluators.tool_selection(selected, expected).f1"),
        Column("tool_reasoning", "Text", "text", "Precision, recall, F1 and the correct, missing and extra tools.",
               "evaluators.evaluation_row"),
        Column("data_quality_score", "Rule", "float", "Share of the expected fields of the selected sources for "
               "which a source returned real evidence (no placeholder, no error payload, a payload with records); 0 "
               "when the tools found nothing.", "evaluators.data_quality(selected, payloads)"),
        Column("data_reasoning", "Text", "text", "Fields present of fields expected, and what was missing, empty or "
               "failed.", "evaluators.evaluation_row"),
        Column("synthesis_score", "Rule", "float", "Share of risk_level, credit_score, confidence, reasoning, "
               "recommendations present and valid.", "evaluators.synthesis_quality(assessment)"),
        Column("synthesis_reasoning", "Text", "text", "Fields present and valid, missing, invalid.",
               "evaluators.evaluation_row"),
        Column("overall_score", "Formula", "float", "0.3 x tool_selection_score + 0.3 x data_quality_score + 0.4 x "
               "synthesis_score.", "evaluators.evaluation_overall"),
        _EVAL_STATUS,
        _DURATION_MS,
        _STATUS,
        _TIMESTAMP,
        _GENERATED_BY,
    )),
    Sheet("tool_selections", "Us", "One row per run with expected tools: which tools ran against which were "
          "expected.", (
        _RUN_ID,
        _COMPANY_NAME,
        _NODE,
        _NODE_TYPE,
        _AGENT_NAME,
        _STEP_NUMBER,
        _MODEL.but(meaning="The model that selected the tools.", written_by="node (evaluate_assessment)"),
        Column("selected_tools", "List", "json", "The tools that really ran (JSON list).", "the run's tool_calls"),
        Column("expected_tools", "Rule", "json", "The tools expected: by company type for credit runs, "
               "``expected_tools=`` for wrapped runs (JSON list).", "workflow / caller"),
        Column("correct_tools", "Rule", "json", "selected ∩ expected, sorted (JSON list).",
               "evaluators.tool_selection"),
        Column("missing_tools", "Rule", "json", "expected - selected, sorted (JSON list).",
               "evaluators.tool_selection"),
        Column("extra_tools", "Rule", "json", "selected - expected, sorted (JSON list).",
               "evaluators.tool_selection"),
        Column("precision", "Formula", "float", "|correct| / |selected| (1 when both are empty, 0 when only "
               "selected is).", "evaluators.tool_selection"),
        Column("recall", "Formula", "float", "|correct| / |expected| (1 when both are empty, 0 when only expected "
               "is).", "evaluators.tool_selection"),
        Column("f1_score", "Formula", "float", "2PR / (P + R); 0 when P + R = 0.", "evaluators.tool_selection"),
        Column("reasoning", "Text", "text", "Why these tools (the planner's words for credit runs; what ran for "
               "wrapped runs).", "node / evaluators"),
        _DURATION_MS,
        _STATUS,
        _TIMESTAMP,
        _GENERATED_BY,
    )),
    Sheet("llm_calls", "Mixed", "One row per model call that finished: prompt, response, tokens, cost and timing.", (
        _RUN_ID,
        _COMPANY_NAME,
        _NODE,
        _NODE_TYPE.but(meaning="Always ``llm``.", written_by="captured"),
        _AGENT_NAME,
        _STEP_NUMBER,
        Column("call_type", "Text", "text", "What the call was for (e.g. ``credit_synthesis``, ``llm_judge``); "
               "``chat`` or ``completion`` when unlabelled.", "captured (label of the caller)"),
        _MODEL,
        _TEMPERATURE,
        Column("prompt", "Text", "text", "The prompt as sent, one ``role: text`` block per message.", "captured"),
        Column("response", "Text", "text", "The model's answer (text, or the tool call's JSON).", "captured"),
        Column("reasoning", "Text", "text", "The model's stated reasoning, when its answer carries one.", "captured"),
        Column("context", "Text", "text", "What the caller said the call knew (e.g. ``2 directory match(es)``).",
               "captured (label of the caller)"),
        Column("current_task", "Text", "text", "The task the call served (e.g. ``assess credit risk of Acme Corp``).",
               "captured (label of the caller)"),
        Column("prompt_tokens", "Measured", "int", "Input tokens, as the provider reported them (see usage_source).",
               "captured"),
        Column("completion_tokens", "Measured", "int", "Output tokens, as the provider reported them.", "captured"),
        Column("total_tokens", "Formula", "int", "prompt_tokens + completion_tokens.", "captured"),
        Column("input_cost", "Formula", "float", "What the input cost as the provider bills it, in USD: the "
               "uncached input tokens (prompt_tokens less cache_read_tokens, cache_write_5m_tokens, "
               "cache_write_1h_tokens and audio_input_tokens) x the model's input price, plus each of those x its own "
               "price (cached input, cache write 5 min / 1 h, audio input), per 1M tokens / 1e6, rounded to 12 "
               "decimals; empty for a model without a price.", "harness.costs.cost_of",
               bounds=UNBOUNDED),
        Column("output_cost", "Formula", "float", "The same for the output: (completion_tokens less reasoning_tokens "
               "and audio_output_tokens) x the output price, plus reasoning_tokens x the reasoning price (default: the "
               "output price) and audio_output_tokens x the audio output price, / 1e6, in USD.",
               "harness.costs.cost_of", bounds=UNBOUNDED),
        Column("total_cost", "Formula", "float", "input_cost + output_cost, in USD.", "harness.costs.cost_of",
               bounds=UNBOUNDED),
        Column("execution_time_ms", "Measured", "float", "How long the call took, in milliseconds.", "captured"),
        _STATUS.but(meaning="``ok`` or ``error``.", written_by="captured"),
        _ERROR,
        _TIMESTAMP.but(meaning="When the call ended (UTC).", written_by="captured"),
        _GENERATED_BY,
    ), extra=(
        Column("llm_call_id", "Extra", "text", "The call's id (LangChain's run id); prompts rows carry it too.",
               "captured"),
        Column("usage_source", "Extra", "text", "Where the token counts come from: ``provider``, ``estimated`` "
               "(about 4 characters a token, when the provider said nothing) or ``missing``.", "captured"),
        Column("time_to_first_token_ms", "Extra", "float", "For a streamed call, milliseconds until the first token.",
               "captured"),
        Column("price_table", "Extra", "text", "The price table the cost comes from: the bundled table's date, "
               "``user`` for a price registered with ``harness.register_price`` or a prices file (``user "
               "YYYY-MM-DD`` when the file gives its ``as_of`` date).", "harness.costs"),
        Column("parent_tool_id", "Extra", "text", "``tool_call_id`` of the tool call the model was called in, if "
               "any.", "captured"),
        _TRACE_ID,
        _SPAN_ID,
        _PARENT_SPAN_ID,
        _TRACEBACK,
        _AGENT_PATH,
        Column("cache_read_tokens", "Extra", "int", "Of prompt_tokens, those read from the provider's prompt cache "
               "(LangChain's ``input_token_details.cache_read``; OpenAI's and Groq's ``cached_tokens``, Anthropic's "
               "``cache_read_input_tokens``, Gemini's ``cached_content_token_count``); empty when the response does "
               "not say.", "captured"),
        Column("cache_write_5m_tokens", "Extra", "int", "Of prompt_tokens, those written to the prompt cache for 5 "
               "minutes (Anthropic's ``ephemeral_5m_input_tokens``, and any cache write of no stated lifetime); empty "
               "when the response does not say.", "captured"),
        Column("cache_write_1h_tokens", "Extra", "int", "Of prompt_tokens, those written to the prompt cache for an "
               "hour (Anthropic's ``ephemeral_1h_input_tokens``).", "captured"),
        Column("reasoning_tokens", "Extra", "int", "Of completion_tokens, the hidden reasoning (thinking) tokens "
               "(``output_token_details.reasoning``); empty when the response does not say.", "captured"),
        Column("audio_input_tokens", "Extra", "int", "Of prompt_tokens, the audio tokens.", "captured"),
        Column("audio_output_tokens", "Extra", "int", "Of completion_tokens, the audio tokens.", "captured"),
        Column("usage_note", "Extra", "text", "What reading the token counts had to add or assume (a count that "
               "left its cached or reasoning part out, a service tier priced at standard prices); empty normally.",
               "captured"),
        Column("cost_note", "Extra", "text", "The token kinds priced at the input or output price because the "
               "model's price has no part for them (e.g. cache reads of a model without a cached-input price); "
               "empty when every kind had its own price.", "harness.costs.cost_of"),
        Column("priced_at", "Extra", "datetime", "When the cost was last re-priced (``harness reprice``); empty "
               "for the cost computed when the call was recorded.", "harness reprice"),
        Column("previous_total_cost", "Extra", "float", "The total_cost the call had before it was last re-priced.",
               "harness reprice", bounds=UNBOUNDED),
        Column("previous_price_table", "Extra", "text", "The price_table of that previous cost.", "harness reprice"),
    )),
    Sheet("consistency_scores", "Us", "One row per group of repeated runs of a company (per model, and across "
          "models).", (
        _RUN_ID.but(meaning="The run that completed the group (the last of run_ids).", written_by="the batch"),
        _COMPANY_NAME,
        _NODE,
        _NODE_TYPE,
        _AGENT_NAME,
        _STEP_NUMBER,
        Column("model_name", "Text", "text", "The model of a same_model row; the models joined by \", \" for a "
               "cross_model row.", "the batch"),
        Column("evaluation_type", "Label", "text", "``same_model`` (the repeats of one model) or ``cross_model`` "
               "(every result of every model).", "the batch", labels=('same_model', 'cross_model')),
        Column("num_runs", "Count", "int", "Results in the group: the number of risk_levels listed.", "the batch"),
        Column("risk_level_consistency", "Formula", "float", "count(modal risk level) / N.",
               "evaluators.consistency"),
        Column("score_consistency", "Formula", "float", "clamp(1 - score_std / mean credit score, 0, 1).",
               "evaluators.consistency"),
        Column("score_std", "Formula", "float", "Population standard deviation of the credit scores.",
               "evaluators.consistency", bounds=UNBOUNDED),
        Column("overall_consistency", "Formula", "float", "0.5 x risk_level_consistency + 0.5 x score_consistency.",
               "evaluators.consistency"),
        _EVAL_STATUS,
        Column("risk_levels", "Data", "text", "The group's risk levels, e.g. ``LOW, LOW, MODERATE`` (the inputs, so "
               "the figures can be recomputed).", "the batch"),
        Column("credit_scores", "Data", "text", "The group's credit scores, e.g. ``750, 745, 720``.", "the batch"),
        _DURATION_MS,
        _STATUS,
        _TIMESTAMP,
        _GENERATED_BY,
    ), extra=(
        Column("batch_id", "Extra", "text", "The batch of the group (runs.batch_id).", "the batch"),
        _RUN_IDS,
    )),
    Sheet("data_sources", "Us", "One row per data source a credit run queried, with what it returned.", (
        _RUN_ID,
        _COMPANY_NAME,
        _NODE,
        _NODE_TYPE,
        _AGENT_NAME,
        _STEP_NUMBER,
        Column("source_name", "Text", "text", "The source: sec_edgar, finnhub, court_listener or web_search.",
               "node (fetch_api_data, search_web)"),
        Column("records_found", "Count", "int", "Records in the payload: filings + financial facts (SEC); profile, "
               "quote, metrics (1 each) + news (Finnhub); dockets + opinions (CourtListener); results + news "
               "articles (web).", "workflows.count_records"),
        Column("data_summary", "JSON", "json", "The payload the source returned (JSON); empty when it failed.",
               "node (fetch_api_data, search_web)"),
        Column("execution_time_ms", "Measured", "float", "How long the source took, in milliseconds.",
               "node (fetch_api_data, search_web)"),
        _STATUS.but(meaning="``ok``, or ``fail`` (an HTTP error, a timeout, a missing key: see error).",
                            written_by="node (fetch_api_data, search_web)"),
        _ERROR.but(meaning="Why the source failed, naming it, e.g. ``web_search skipped: TAVILY_API_KEY is not "
                           "set``.", written_by="node (fetch_api_data, search_web)"),
        _TIMESTAMP,
        _GENERATED_BY,
    )),
    Sheet("langgraph_events", "FW", "A start row and an end (or error) row per execution of the graph, a node, a "
          "model or a tool.", (
        _RUN_ID,
        _COMPANY_NAME,
        _NODE.but(meaning="The node the event belongs to (the graph's name for graph events).",
                          written_by="captured"),
        _NODE_TYPE,
        _AGENT_NAME,
        _STEP_NUMBER.but(meaning="Step of the node the event belongs to.", written_by="captured"),
        Column("event_type", "Text", "text", "``on_chain_start`` / ``_end`` / ``_error`` for the graph and nodes, "
               "``on_chat_model_start`` / ``on_llm_end`` / ``on_llm_error`` for models, ``on_tool_start`` / "
               "``_end`` / ``_error`` for tools.", "captured"),
        Column("event_name", "Text", "text", "Name of what ran (node, model class, tool).", "captured"),
        _MODEL.but(meaning="For model events: the model (the response's, on end rows).", written_by="captured"),
        _TEMPERATURE.but(meaning="For model events: the temperature.", written_by="captured"),
        Column("tokens", "Int", "int", "For model end rows: prompt + completion tokens.", "captured"),
        Column("input_preview", "Text", "text", "Start rows: the input, as JSON text, cut at the preview limit.",
               "captured"),
        Column("output_preview", "Text", "text", "End rows: the output, as JSON text, cut at the preview limit.",
               "captured"),
        _DURATION_MS.but(meaning="End rows: how long the execution took, in milliseconds.", written_by="captured"),
        _STATUS.but(meaning="``started`` on start rows; ``ok``, ``error`` or ``interrupted`` (a human-in-the-loop "
                            "interrupt) on end rows; a handoff is ``ok`` (see handoff_to).",
                            written_by="captured"),
        _ERROR.but(meaning="Error rows: the exception.", written_by="captured"),
        _TIMESTAMP.but(meaning="When the event happened (UTC).", written_by="captured"),
        _GENERATED_BY,
    ), extra=(
        Column("event_id", "Extra", "text", "Id of the execution; its start and end rows share it.", "captured"),
        Column("parent_event_id", "Extra", "text", "event_id of the execution that contains this one.", "captured"),
        Column("langgraph_step", "Extra", "int", "LangGraph's superstep number.", "captured"),
        Column("checkpoint_ns", "Extra", "text", "LangGraph's checkpoint namespace (which subgraph).", "captured"),
        Column("subgraph_depth", "Extra", "int", "0 for the top graph's nodes, 1 or more inside subgraphs.",
               "captured"),
        Column("thread_id", "Extra", "text", "LangGraph's ``thread_id``.", "captured"),
        Column("event_kind", "Extra", "text", "``graph``, ``node``, ``llm`` or ``tool``.", "captured"),
        _TRACE_ID,
        _SPAN_ID,
        _PARENT_SPAN_ID,
        _TRACEBACK,
        _AGENT_PATH,
        Column("handoff_to", "Extra", "text", "End rows of a handoff (``Command(goto=..., "
               "graph=Command.PARENT)``): where it went (``math_expert``; several joined with ``, ``). The node "
               "or tool that handed off completed: its status is ``ok``.", "captured"),
    )),
    Sheet("plans", "Us", "One row per plan the create_plan node made: the tools it selected and the tasks that "
          "follow.", (
        _RUN_ID,
        _COMPANY_NAME,
        _NODE,
        _AGENT_NAME,
        Column("num_tasks", "Count", "int", "Tasks in the plan: one per selected tool, then synthesis, storage and "
               "evaluation.", "node (create_plan)"),
        Column("plan_summary", "Text", "text", "The tools selected and what follows, in one line.",
               "node (create_plan)"),
        Column("full_plan", "JSON", "json", "The whole plan: tools, reasoning, tasks, model, duration (JSON).",
               "node (create_plan)"),
        Column("task_1", "JSON", "json", "Task 1 of the plan (JSON: step, action, tool, node, reason).",
               "node (create_plan)"),
        Column("task_2", "JSON", "json", "Task 2 of the plan (JSON: step, action, tool, node, reason).",
               "node (create_plan)"),
        Column("task_3", "JSON", "json", "Task 3 of the plan (JSON: step, action, tool, node, reason).",
               "node (create_plan)"),
        Column("task_4", "JSON", "json", "Task 4 of the plan (JSON: step, action, tool, node, reason).",
               "node (create_plan)"),
        Column("task_5", "JSON", "json", "Task 5 of the plan (JSON: step, action, tool, node, reason).",
               "node (create_plan)"),
        Column("task_6", "JSON", "json", "Task 6 of the plan (JSON: step, action, tool, node, reason).",
               "node (create_plan)"),
        Column("task_7", "JSON", "json", "Task 7 of the plan (JSON: step, action, tool, node, reason).",
               "node (create_plan)"),
        Column("task_8", "JSON", "json", "Task 8 of the plan (JSON: step, action, tool, node, reason).",
               "node (create_plan)"),
        Column("task_9", "JSON", "json", "Task 9 of the plan (JSON: step, action, tool, node, reason).",
               "node (create_plan)"),
        Column("task_10", "JSON", "json", "Task 10 of the plan (JSON: step, action, tool, node, reason).",
               "node (create_plan)"),
        Column("created_at", "ISO", "datetime", "When the plan was made (UTC).", "node (create_plan)"),
        _STATUS.but(meaning="``ok``, or ``error`` when the tool selection could not be used.",
                            written_by="node (create_plan)"),
        _GENERATED_BY,
    )),
    Sheet("prompts", "Us", "One row per model call: the prompt as sent, split into system and user parts, with its "
          "registry labels.", (
        _RUN_ID,
        _COMPANY_NAME,
        _NODE,
        _AGENT_NAME,
        _STEP_NUMBER,
        Column("prompt_id", "Text", "text", "Id of the prompt in the workflow's registry (e.g. "
               "``credit_synthesis``).", "captured (label of the caller)"),
        Column("prompt_name", "Text", "text", "Its human name.", "captured (label of the caller)"),
        Column("category", "Text", "text", "Its category (input, planning, synthesis, evaluation).",
               "captured (label of the caller)"),
        Column("system_prompt", "Text", "text", "The system message(s) as sent.", "captured"),
        Column("user_prompt", "Text", "text", "The other messages as sent.", "captured"),
        Column("variables_json", "JSON", "json", "The variables the prompt was filled with (JSON).",
               "captured (label of the caller)"),
        _MODEL,
        _TEMPERATURE,
        _TIMESTAMP.but(meaning="When the call started (UTC).", written_by="captured"),
        _GENERATED_BY,
    ), extra=(
        Column("llm_call_id", "Extra", "text", "The llm_calls row of the same call.", "captured"),
        _AGENT_PATH,
    )),
    Sheet("cross_model_eval", "Us", "One row per company compared across models (``--compare-model``).", (
        _RUN_ID.but(meaning="The run that completed the comparison (the last of run_ids).", written_by="the batch"),
        _COMPANY_NAME,
        _NODE,
        _NODE_TYPE,
        _AGENT_NAME,
        _STEP_NUMBER,
        Column("models_compared", "List", "json", "The models compared, the batch's ``--model`` first (JSON list).",
               "the batch"),
        Column("num_models", "Count", "int", "How many models were compared.", "the batch"),
        Column("risk_level_agreement", "Formula", "float", "Share of the modal risk level among the models' modal "
               "risk levels (1.0 when all agree).", "evaluators.cross_model_agreement"),
        Column("credit_score_mean", "Formula", "float", "Mean of the models' mean credit scores.",
               "evaluators.cross_model_agreement", bounds=CREDIT_SCORE_RANGE),
        Column("credit_score_std", "Formula", "float", "Their population standard deviation.",
               "evaluators.cross_model_agreement", bounds=(0, 275.0)),
        Column("credit_score_range", "Formula", "float", "Their max - min.", "evaluators.cross_model_agreement",
               bounds=(0, 550)),
        Column("confidence_agreement", "Formula", "float", "clamp(1 - variance of the models' confidences / 0.25, "
               "0, 1).", "evaluators.cross_model_agreement"),
        Column("best_model", "LLM", "text", "The model the judge preferred in both orders, else the one with the "
               "higher mean judge score; empty when neither says.", "the batch (LLM judge)"),
        Column("best_model_reasoning", "LLM", "text", "Why that model.", "the batch (LLM judge)"),
        Column("cross_model_agreement", "Formula", "float", "0.4 x risk_level_agreement + 0.4 x (1 - "
               "credit_score_range / 550) + 0.2 x confidence_agreement.", "evaluators.cross_model_agreement"),
        _EVAL_STATUS,
        Column("llm_judge_analysis", "LLM", "text", "Mean judge score per model.", "the batch"),
        Column("model_recommendations", "LLM", "text", "Which model to prefer for this company.", "the batch"),
        Column("model_results", "JSON", "json", "Per model: modal risk level, mean credit score, mean confidence "
               "(JSON; the inputs of the figures).", "the batch"),
        Column("pairwise_comparisons", "JSON", "json", "The judge's pairwise verdicts, asked in both orders, with "
               "their model and tokens (JSON).", "evaluators.pairwise"),
        _DURATION_MS,
        _STATUS,
        _TIMESTAMP,
        _GENERATED_BY,
    ), extra=(
        _RUN_IDS,
    )),
    Sheet("llm_judge_results", "Us", "One row per assessment graded by the LLM judge (five dimensions, 0-10 each, "
          "stored as value/10).", (
        _RUN_ID,
        _COMPANY_NAME,
        _NODE,
        _NODE_TYPE,
        _AGENT_NAME,
        _STEP_NUMBER,
        Column("model_used", "Text", "text", "The judge's model (the provider's primary model, at temperature 0).",
               "node (evaluate_assessment)"),
        _TEMPERATURE.but(meaning="The judge's temperature (0).", written_by="node (evaluate_assessment)"),
        Column("accuracy_score", "LLM", "float", "Are the risk level and score reasonable given the data (0-10 "
               "anchors, /10)? The judge is told to give at most 2 when no source returned data.",
               "evaluators.LLMJudge"),
        Column("completeness_score", "LLM", "float", "Are the relevant risk factors covered? (/10)",
               "evaluators.LLMJudge"),
        Column("consistency_score", "LLM", "float", "Does the reasoning lead to the conclusion? (/10)",
               "evaluators.LLMJudge"),
        Column("actionability_score", "LLM", "float", "Are the recommendations actionable? (/10)",
               "evaluators.LLMJudge"),
        Column("data_utilization_score", "LLM", "float", "Was the available data used? (/10) At most 2 (of 10) when "
               "no source returned data.", "evaluators.LLMJudge"),
        Column("overall_score", "Formula", "float", "Mean of the five scores; empty when the judge failed.",
               "evaluators.judge_overall"),
        _EVAL_STATUS,
        Column("accuracy_reasoning", "LLM", "text", "The judge's reasoning for accuracy.", "evaluators.LLMJudge"),
        Column("completeness_reasoning", "LLM", "text", "... for completeness.", "evaluators.LLMJudge"),
        Column("consistency_reasoning", "LLM", "text", "... for consistency.", "evaluators.LLMJudge"),
        Column("actionability_reasoning", "LLM", "text", "... for actionability.", "evaluators.LLMJudge"),
        Column("data_utilization_reasoning", "LLM", "text", "... for data utilization.", "evaluators.LLMJudge"),
        Column("overall_reasoning", "LLM", "text", "The judge's summary.", "evaluators.LLMJudge"),
        Column("benchmark_alignment", "LLM", "text", "Agreement with a benchmark assessment, or ``no benchmark``.",
               "evaluators.LLMJudge"),
        Column("benchmark_comparison", "LLM", "text", "How the assessment compares with it.", "evaluators.LLMJudge"),
        Column("suggestions", "LLM", "text", "What would improve the assessment.", "evaluators.LLMJudge"),
        Column("tokens_used", "Measured", "int", "Tokens of the judge's call(s).", "evaluators.LLMJudge"),
        Column("evaluation_cost", "Formula", "float", "Their cost in USD; empty for a model without a price.",
               "harness.costs.cost", bounds=UNBOUNDED),
        _DURATION_MS,
        _STATUS.but(meaning="``ok``, or ``error`` when the judge failed after its retries (scores then stay empty, "
                            "never 0).", written_by="evaluators.LLMJudge"),
        _TIMESTAMP,
        _GENERATED_BY,
    ), extra=(
        Column("error", "Extra", "text", "Why the judge failed.", "evaluators.LLMJudge"),
    )),
    Sheet("agent_metrics", "Us", "One row per evaluated run: intent, plan, tool choice, trajectory and answer "
          "quality.", (
        _RUN_ID,
        _COMPANY_NAME,
        _NODE,
        _NODE_TYPE,
        _AGENT_NAME,
        _STEP_NUMBER,
        _MODEL.but(meaning="The analyst model (credit runs); the models of the run's calls (wrapped runs).",
                           written_by="node / the run"),
        Column("intent_correctness", "Rule", "float", "0.4 x [parsed name matches the input] + 0.3 x "
               "[public/private identified] + 0.3, 0.2 or 0.1 for the parser's confidence above 0.7, 0.5, 0.3.",
               "evaluators.intent_correctness"),
        Column("plan_quality", "Rule", "float", "0.3 x [3-10 tasks] + 0.35 x [a task gathers data] + 0.35 x [a task "
               "analyses].", "evaluators.plan_quality"),
        Column("tool_choice_correctness", "Rule", "float", "Precision of the tools that ran against the expected "
               "tools.", "evaluators.tool_selection"),
        Column("tool_completeness", "Rule", "float", "Recall of the tools that ran against the expected tools.",
               "evaluators.tool_selection"),
        Column("trajectory_match", "Rule", "float", "0.6 x Jaccard of the node sets + 0.4 x LCS(actual, expected) / "
               "max length; both empty -> 1.", "evaluators.trajectory_match"),
        Column("final_answer_quality", "Rule", "float", "Credit runs: 0.5 x share of the five assessment fields "
               "present + 0.15 x valid risk level + 0.15 x valid score + 0.1 x valid confidence + 0.1 x reasoning "
               "over 50 characters. Runs of a dataset case: the score of its answer check "
               "(evaluators.check_answer), 0 when the run gave no answer.", "evaluators.final_answer_quality / "
               "evaluators.check_answer"),
        Column("step_count", "Measured", "int", "Node executions of the run.", "node / the run"),
        Column("tool_calls", "Measured", "int", "Tool calls of the run.", "node / the run"),
        Column("latency_ms", "Measured", "float", "Wall time of the run up to the evaluation, in milliseconds.",
               "node / the run"),
        Column("overall_score", "Formula", "float", "0.15 x intent + 0.15 x plan + 0.20 x tool choice + 0.15 x "
               "completeness + 0.15 x trajectory + 0.20 x answer, renormalised over the parts that apply (a wrapped "
               "run has no intent, plan or answer).", "evaluators.agent_overall"),
        _EVAL_STATUS,
        Column("intent_details", "JSON", "json", "The parts of intent_correctness (JSON).",
               "evaluators.agent_metrics_row"),
        Column("plan_details", "JSON", "json", "The parts of plan_quality (JSON).", "evaluators.agent_metrics_row"),
        Column("tool_details", "JSON", "json", "Selected, expected, correct, missing, extra, P/R/F1 (JSON).",
               "evaluators.agent_metrics_row"),
        Column("trajectory_details", "JSON", "json", "Actual and expected paths, Jaccard, order, strict / unordered "
               "/ subset / superset matches, missing and extra nodes (JSON).", "evaluators.trajectory_match"),
        Column("answer_details", "JSON", "json", "The parts of final_answer_quality (JSON); for a dataset case: the "
               "check, its threshold, the answer and reference compared (cut at 2,000 characters), and "
               "require_tools.", "evaluators.agent_metrics_row / the experiment runner"),
        _STATUS,
        _TIMESTAMP,
        _GENERATED_BY,
    )),
    Sheet("log_tests", "Us", "One row per run: how many rows each sheet holds for it, and whether every sheet its "
          "profile requires got its rows.", (
        _RUN_ID,
        _COMPANY_NAME,
        Column("runs", "Count", "int", "The run's rows in runs.", "the run"),
        Column("langgraph_events", "Count", "int", "The run's rows in langgraph_events.", "the run"),
        Column("llm_calls", "Count", "int", "The run's rows in llm_calls.", "the run"),
        Column("tool_calls", "Count", "int", "The run's rows in tool_calls.", "the run"),
        Column("assessments", "Count", "int", "The run's rows in assessments.", "the run"),
        Column("evaluations", "Count", "int", "The run's rows in evaluations.", "the run"),
        Column("tool_selections", "Count", "int", "The run's rows in tool_selections.", "the run"),
        Column("consistency_scores", "Count", "int", "The run's rows in consistency_scores.", "the run"),
        Column("data_sources", "Count", "int", "The run's rows in data_sources.", "the run"),
        Column("plans", "Count", "int", "The run's rows in plans.", "the run"),
        Column("prompts", "Count", "int", "The run's rows in prompts.", "the run"),
        Column("cross_model_eval", "Count", "int", "The run's rows in cross_model_eval.", "the run"),
        Column("llm_judge_results", "Count", "int", "The run's rows in llm_judge_results.", "the run"),
        Column("agent_metrics", "Count", "int", "The run's rows in agent_metrics.", "the run"),
        Column("total_sheets_logged", "Count", "int", "Sheets with at least one row of the run.",
               "harness.tracing.verify"),
        Column("verification_status", "Rule", "text", "``fail`` without a runs row; ``partial`` when a sheet the "
               "profile requires is empty or holds fewer rows than the harness wrote; else ``pass``.",
               "harness.tracing.verify.verification_status", labels=VERIFICATION_STATUSES),
        _TIMESTAMP.but(meaning="When the counts were last taken (UTC).", written_by="the run"),
        _GENERATED_BY,
    ), extra=(
        Column("profile", "Extra", "text", "``credit`` or ``generic``: which sheets the run must fill.", "the run"),
        Column("required_sheets", "Extra", "json", "The sheets the profile requires (JSON list).", "the run"),
        Column("written_rows", "Extra", "json", "Rows the harness wrote per sheet (JSON), to compare with what the "
               "store holds.", "the run"),
    )),
)

#: What the ``generated_by`` label of a row says about who produced it.
GENERATED_BY_LABELS: dict[str, str] = {
    "Us": ("the harness, the credit workflow or the evaluators wrote the row: rows built from the run's callbacks, "
           "rows a node logged, evaluation rows and the runs and log_tests summaries"),
    "FW": ("the row records what the framework did, one row per LangChain/LangGraph callback event "
           "(langgraph_events); nothing in it was decided by the harness"),
    "Mixed": ("the row records a model call as the framework reported it (prompt, response, tokens, model) with "
              "labels the workflow attached (call_type, context, current_task) and a cost the harness priced "
              "(llm_calls)"),
}

#: Every judgement of a run, one row per score name: the sixteenth sheet, beyond the spec's fifteen.
SCORES = Sheet("scores", "Us", "One row per judgement of a run: a built-in check, a judge, a user's scorer or a "
               "person's label.", (
    _RUN_ID,
    Column("name", "Text", "text", "The score's name: a built-in check (completed, answer, tool_f1, trajectory_match, "
           "agent_metrics, evaluation, judge, log_test), a scorer's name or a label's.", "the scorer"),
    Column("value", "Measured", "float", "The score, a finite number; empty when the score has none (a pass/fail "
           "judgement) or could not be made (see error).", "the scorer", bounds=(-math.inf, math.inf)),
    Column("passed", "Rule", "int", "1 passes, 0 fails, empty when the score does not gate the run or could not "
           "be made (see error).", "the scorer", bounds=(0, 1)),
    Column("explanation", "Text", "text", "Why, in words: what was compared, the judge's reasoning, a label's "
           "comment.", "the scorer"),
    Column("source", "Label", "text", "``rule`` (a built-in check), ``llm`` (a judge), ``code`` (a user's scorer) or "
           "``human`` (a label).", "the scorer", labels=("rule", "llm", "code", "human")),
    Column("scorer", "Text", "text", "What made it: a built-in check's function, a scorer's ``module:function``, "
           "``harness label``.", "the scorer"),
    _ERROR.but(meaning="Why the score could not be made (the scorer raised, timed out, or returned NaN, an "
               "infinity or a wrong type; 'not scored: ...' while its scorer has not run); such a score has no "
               "pass and leaves its run's pass unknown, never failed. Cut at 16,384 characters.",
               written_by="the scorer"),
    Column("created_at", "ISO", "datetime", "When the score was made (UTC).", "the scorer"),
    Column("rater", "Text", "text", "Who gave a person's label (``harness label --by``): labels of one run and name "
           "by different people are kept side by side; empty for a label given without a name and for every other "
           "score.", "the scorer"),
), extra=(
    Column("thread_id", "Extra", "text", "The thread a thread scorer judged (its score is kept once per thread, on "
           "the thread's last run when it was scored); empty for a score of one run.", "the scorer"),
    Column("experiment", "Extra", "text", "The experiment of the score's run (its runs.experiment), so the sheet "
           "reads alone; empty for a run outside experiments.", "the run"),
    Column("case_id", "Extra", "text", "The dataset case of the score's run (its runs.case_id).", "the run"),
    Column("higher_is_better", "Extra", "int", "Which way the score is better, as its scorer declared it: 1 "
           "higher, 0 lower (a count of model calls, a cost), empty when it did not say (compare then takes higher "
           "as better).", "the scorer", bounds=(0, 1)),
    Column("scorer_version", "Extra", "text", "The version of the scorer that made it: its function's ``version`` "
           "attribute, else ``src-`` and a hash of its source code and the plain values it closes over. With "
           "run_id and name it is the score's key for online scoring: a run is scored once per scorer version.",
           "harness.experiment.versions.scorer_version"),
))
#: Sheets beyond the spec's fifteen, exported after them.
EXTRA_SHEETS: tuple[Sheet, ...] = (SCORES,)
#: The fifteen and the extra sheets: every table of the store, every tab of an export.
ALL_SHEETS: tuple[Sheet, ...] = SHEETS + EXTRA_SHEETS



@dataclass(frozen=True, slots=True)
class Table:
    """A table of the store beyond the sheets: the store's own bookkeeping, never exported.
    ``key`` is its primary key; ``indexes`` the column lists it is also looked up by."""

    name: str
    purpose: str
    columns: tuple[Column, ...]
    key: tuple[str, ...]
    indexes: tuple[tuple[str, ...], ...] = ()

    @property
    def column_names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.columns)


def _store(name: str, kind: Kind, meaning: str, written_by: str = "harness score") -> Column:
    return Column(name, "Store", kind, meaning, written_by)


#: Online scoring's claims: one row per (run, scorer, scorer version) a worker has seen.
SCORE_CLAIMS = Table("score_claims", "One row per run, scorer and scorer version that online scoring has seen: "
                     "whether the run is in the sample, who holds it and until when, and how it ended.", (
    _store("run_id", "text", "The run."),
    _store("scorer", "text", "The scorer's name (the name its scores take unless it returns names of its own)."),
    _store("version", "text", "The scorer's version (see scores.scorer_version)."),
    _store("state", "text", "``unsampled`` (not in the sample at the rate it was seen with), ``claimed`` (a worker "
           "holds it until lease_until), ``scored``, ``errored`` (a score could not be made; its error is stored) "
           "or ``budget`` (skipped: the scoring budget of its window was spent)."),
    _store("sample_point", "float", "Where the run's id hashes to in [0, 1): the run is in the sample at every rate "
           "above it."),
    _store("worker", "text", "The worker (or in-process harness) that last claimed or settled it."),
    _store("lease_until", "float", "While claimed: the store's clock (seconds since 1970) until which the claim "
           "holds; past it another worker takes the run back."),
    _store("attempts", "int", "How many times the run was claimed for this scorer."),
    _store("updated_at", "float", "When the state last changed (the store's clock, seconds since 1970)."),
    _store("error", "text", "Why it errored or was skipped, in one line."),
), key=("run_id", "scorer", "version"), indexes=(("state", "lease_until"), ("scorer", "version", "state")))

#: Online scoring's workers: one row per worker process (or in-process harness) that ran.
SCORE_WORKERS = Table("score_workers", "One row per scoring worker: where it runs, what it scores and its counts, "
                      "kept current while it runs.", (
    _store("worker", "text", "The worker's id (host, process id, a random part)."),
    _store("host", "text", "The host it runs on."),
    _store("pid", "int", "Its process id."),
    _store("started_at", "float", "When it started (the store's clock, seconds since 1970)."),
    _store("heartbeat_at", "float", "When it last said it was alive (the store's clock); a running worker silent "
           "for three leases is lost (killed)."),
    _store("stopped_at", "float", "When it stopped; empty while it runs (or when it was killed)."),
    _store("settings", "json", "What it scores and how: scorers and versions, workflow, sample rate, since, budget."),
    _store("counts", "json", "Its counts per scorer: seen, sampled, scored, errored, skipped by budget, returned "
           "(handed back unscored when it stopped), in flight."),
), key=("worker",))

#: Online scoring's spend: what scorers' model calls cost, per budget window.
SCORE_SPEND = Table("score_spend", "One row per budget window: what the scorers' model calls of every worker of "
                    "the store cost in it.", (
    _store("window_start", "float", "The window's start (the store's clock, seconds since 1970; windows are "
           "aligned to multiples of their length)."),
    _store("window_seconds", "float", "The window's length in seconds (``--per``)."),
    _store("spent", "float", "USD spent in the window by calls that ended."),
    _store("calls", "int", "Model calls that ended in the window."),
    _store("max_call", "float", "The dearest single call that ended in the window (a call in flight is reckoned "
           "to cost the dearest of any window of this length)."),
    _store("unpriced", "int", "Calls whose model has no price: their cost is unknown and not counted."),
    _store("refused", "int", "Calls refused because the window's budget was spent."),
), key=("window_start", "window_seconds"))

#: Online scoring's calls in flight: what each is reckoned to cost until it ends.
SCORE_HOLDS = Table("score_holds", "One row per scorer model call in flight under a budget: the share of the "
                    "window's budget it holds until it ends.", (
    _store("hold", "text", "The call's id."),
    _store("window_start", "float", "Its window (score_spend)."),
    _store("window_seconds", "float", "Its window's length."),
    _store("amount", "float", "USD it holds: the dearest call seen so far in windows of this length."),
    _store("until", "float", "When the hold lapses if the call never reports its end (its worker was killed)."),
), key=("hold",))

#: Tables of the store beyond the sheets (never exported), declared here like the sheets.
STORE_TABLES: tuple[Table, ...] = (SCORE_CLAIMS, SCORE_WORKERS, SCORE_SPEND, SCORE_HOLDS)

SHEET_NAMES: tuple[str, ...] = tuple(s.name for s in SHEETS)
ALL_SHEET_NAMES: tuple[str, ...] = tuple(s.name for s in ALL_SHEETS)
SHEETS_BY_NAME: dict[str, Sheet] = {s.name: s for s in ALL_SHEETS}

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
        raise KeyError(f"unknown sheet {name!r}; sheets are {', '.join(ALL_SHEET_NAMES)}") from None
