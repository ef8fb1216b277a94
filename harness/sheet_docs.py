"""What each of the fifteen sheets and each of their columns means, who writes it and, for
derived columns, the formula. With :mod:`harness.schema` (names, order, types) it is the
text of ``docs/sheets.md``: ``python docs/generate_sheets.py`` writes that file and a test
fails when it is out of date, so a new column needs a line here.

Each column is ``(meaning, written by)``. "captured" means the harness built it from the
LangChain callbacks of the run; "the run" means the harness computed it when the run ended;
"node" means a node of the credit workflow logged it (through ``run.log``); a function name
means the value is that function's result, the same function the audit recomputes it with.
"""

from __future__ import annotations

from .schema import SHEETS, Sheet

#: What the ``generated_by`` label of a row says about who produced it.
GENERATED_BY: dict[str, str] = {
    "Us": "the harness, the credit workflow or the evaluators wrote the row: rows built from the run's "
          "callbacks, rows a node logged, evaluation rows and the runs and log_tests summaries",
    "FW": "the row records what the framework did, one row per LangChain/LangGraph callback event "
          "(langgraph_events); nothing in it was decided by the harness",
    "Mixed": "the row records a model call as the framework reported it (prompt, response, tokens, model) "
             "with labels the workflow attached (call_type, context, current_task) and a cost the harness "
             "priced (llm_calls)",
}

SHEET_PURPOSE: dict[str, str] = {
    "runs": "One row per run: what was run, how it ended, the assessment it produced and its totals.",
    "tool_calls": "One row per tool call that finished, with its input, output and place in the run.",
    "assessments": "One row per credit assessment the synthesize node produced.",
    "evaluations": "One row per evaluated credit run: tool selection, data quality and synthesis scores.",
    "tool_selections": "One row per run with expected tools: which tools ran against which were expected.",
    "llm_calls": "One row per model call that finished: prompt, response, tokens, cost and timing.",
    "consistency_scores": "One row per group of repeated runs of a company (per model, and across models).",
    "data_sources": "One row per data source a credit run queried, with what it returned.",
    "langgraph_events": "A start row and an end (or error) row per execution of the graph, a node, a model "
                        "or a tool.",
    "plans": "One row per plan the create_plan node made: the tools it selected and the tasks that follow.",
    "prompts": "One row per model call: the prompt as sent, split into system and user parts, with its "
               "registry labels.",
    "cross_model_eval": "One row per company compared across models (``--compare-model``).",
    "llm_judge_results": "One row per assessment graded by the LLM judge (five dimensions, 0-10 each, "
                         "stored as value/10).",
    "agent_metrics": "One row per evaluated run: intent, plan, tool choice, trajectory and answer quality.",
    "log_tests": "One row per run: how many rows each sheet holds for it, and whether every sheet its "
                 "profile requires got its rows.",
}

#: Columns that mean the same on every sheet that has them.
COMMON: dict[str, tuple[str, str]] = {
    "run_id": ("The run the row belongs to (a UUID; the runs row of the same id describes it).", "the run"),
    "company_name": ("The run's subject: the company of a credit run, ``subject=`` of a wrapped run.", "the run"),
    "node": ("The graph node the row was produced in.", "captured"),
    "node_type": ("The kind of that node: ``agent``, ``tool``, ``llm``, ``graph`` or the workflow's own label.",
                  "captured"),
    "agent_name": ("The node's canonical agent name (e.g. ``llm_analyst`` for synthesize); the node name when "
                   "none is declared.", "captured"),
    "step_number": ("1-based order of the node execution the row was produced in (node executions of the run, "
                    "by start time).", "captured"),
    "model": ("The model, as the model's response names it (not as configured).", "captured"),
    "temperature": ("Sampling temperature of the call or run.", "captured"),
    "duration_ms": ("How long producing the row took, in milliseconds.", "the writer of the row"),
    "status": ("Outcome of what the row records: ``ok``, or ``error`` / ``fail`` with the reason in ``error``.",
               "the writer of the row"),
    "error": ("Why it failed; empty when it did not.", "the writer of the row"),
    "timestamp": ("When the row was made (UTC).", "the writer of the row"),
    "generated_by": ("Who produced the row: ``Us``, ``FW`` or ``Mixed`` (see the top of this page).",
                     "the writer of the row"),
    "eval_status": ("``good`` when the row's overall score is >= 0.80, ``average`` when >= 0.60, else ``bad``; "
                    "empty when there is no score.", "evaluators.eval_status(overall)"),
    "trace_id": ("OpenTelemetry trace id of the run's spans (hex), when spans were made.", "captured"),
    "span_id": ("OpenTelemetry span id of the span that records the same thing as the row.", "captured"),
    "parent_span_id": ("Span id of that span's parent.", "captured"),
    "run_ids": ("Every run the group row covers, in input order (company, model, repeat); ``run_id`` is the "
                "last of them, the run that completed the group. Written once per group.", "the batch"),
}

COLUMNS: dict[str, dict[str, tuple[str, str]]] = {
    "runs": {
        "node": ("The last node to finish.", "the run"),
        "agent_name": ("The agent name of that node.", "the run"),
        "model": ("The run's primary model: the one it was started with (``--model``), else the model its "
                  "calls' responses name most often.", "the run"),
        "temperature": ("The temperature the run was started with, else that of its first model call.",
                        "the run"),
        "status": ("``completed`` or ``failed`` (the graph raised). An interrupted run is completed.", "the run"),
        "started_at": ("When the run started (UTC).", "the run"),
        "completed_at": ("When the run ended (UTC).", "the run"),
        "risk_level": ("Risk level of the run's last ``ok`` assessment: LOW, MODERATE, HIGH or CRITICAL.",
                       "node (synthesize)"),
        "credit_score": ("Credit score of that assessment, 300-850.", "node (synthesize)"),
        "confidence": ("Confidence of that assessment, 0-1; at most 0.2 when no source returned records.",
                       "node (synthesize)"),
        "total_time_ms": ("completed_at - started_at, in milliseconds.", "the run"),
        "total_steps": ("Node executions of the run (subgraph nodes included) = distinct ``step_number`` of its "
                        "node events.", "the run"),
        "total_llm_calls": ("The run's rows in llm_calls.", "the run"),
        "tools_used": ("The distinct tools that really ran (its tool_calls rows), in order of first call.",
                       "the run"),
        "evaluation_score": ("The run's evaluations.overall_score.", "the run"),
        "workflow": ("The name the run was started with (``workflow=``; ``credit_analysis`` for credit runs).",
                     "the run"),
        "batch_id": ("The group of repeated or compared runs of one company it belongs to.", "the batch"),
        "thread_id": ("LangGraph's ``thread_id`` from the run's config.", "the run"),
        "error": ("Why the run failed (the exception), or why its input was refused (``validation failed: "
                  "...``).", "the run"),
        "total_tokens": ("Sum over the run's llm_calls of prompt_tokens + completion_tokens.", "the run"),
        "total_cost": ("Sum over the run's llm_calls of total_cost (calls without a price left out); empty when "
                       "no call has a price.", "the run"),
        "harness_errors": ("Failures inside the harness while recording the run (logged, never raised into the "
                           "graph); 0 normally.", "the run"),
        "span_id": ("Span id of the run's root span.", "captured"),
        "experiment": ("The experiment the run belongs to, when it was run over a dataset.", "the run"),
        "case_id": ("The dataset case the run answers, in an experiment.", "the run"),
        "repeat_index": ("Which repeat of that case (0-based), in an experiment.", "the run"),
        "passed": ("1 when the run passed its case's checks, 0 when it did not; empty outside experiments. A run "
                   "passes when it completed and every check its case names holds: the answer check's score reaches "
                   "its threshold (1.0 for exact, contains, regex and numeric; the case's threshold or 0.8 for semantic "
                   "and judge) and, when the case sets require_tools, tool F1 is 1. A case without checks passes when "
                   "the run completes.", "the experiment runner"),
        "note": ("What the run's data lacked: each planned source that returned no records, was skipped for a "
                 "missing key (named) or failed, led by \"no evidence found\" when none returned records; empty "
                 "when every source returned records.", "node (synthesize)"),
    },
    "tool_calls": {
        "node_type": ("Always ``tool``.", "captured"),
        "tool_name": ("The tool's name.", "captured"),
        "tool_input": ("The tool's input as it was when the call started (JSON).", "captured"),
        "tool_output": ("The tool's output (JSON; a tool that returns text gives a JSON string); empty when it "
                        "raised.", "captured"),
        "parent_node": ("The graph node that contains the call.", "captured"),
        "workflow_phase": ("The phase of that node (e.g. ``data_collection``), as the workflow declares it.",
                           "captured"),
        "call_depth": ("Enclosing tool calls: 0 when a node called the tool, 1 inside another tool, ...",
                       "captured"),
        "parent_tool_id": ("``tool_call_id`` of the enclosing tool call, for nested calls.", "captured"),
        "execution_time_ms": ("How long the call took, in milliseconds.", "captured"),
        "status": ("``ok``, or ``fail`` when the tool raised or answered with an error.", "captured"),
        "error": ("The tool's error.", "captured"),
        "timestamp": ("When the call ended (UTC).", "captured"),
        "tool_call_id": ("The call's id (LangChain's run id).", "captured"),
    },
    "assessments": {
        "model": ("The model that answered.", "node (synthesize)"),
        "temperature": ("The analyst's temperature.", "node (synthesize)"),
        "prompt": ("Id of the prompt used (``credit_synthesis``, see prompts).", "node (synthesize)"),
        "risk_level": ("LOW, MODERATE, HIGH or CRITICAL.", "node (synthesize)"),
        "credit_score": ("300 (worst) to 850 (best).", "node (synthesize)"),
        "confidence": ("0-1, as the model stated it, capped at 0.2 when no source returned records.",
                       "node (synthesize)"),
        "reasoning": ("Why, citing the figures used.", "node (synthesize)"),
        "recommendations": ("What a lender should do (JSON list).", "node (synthesize)"),
        "status": ("``ok``, or ``error`` when the model's answer could not be used (after one re-ask).",
                   "node (synthesize)"),
    },
    "evaluations": {
        "model": ("The analyst model the evaluation is of.", "node (evaluate_assessment)"),
        "tool_selection_score": ("F1 of the tools that ran against the company type's expected tools.",
                                 "evaluators.tool_selection(selected, expected).f1"),
        "tool_reasoning": ("Precision, recall, F1 and the correct, missing and extra tools.",
                           "evaluators.evaluation_row"),
        "data_quality_score": ("Share of the expected fields of the selected sources for which a source "
                               "returned real evidence (no placeholder, no error payload, a payload with records); "
                               "0 when the tools found nothing.", "evaluators.data_quality(selected, payloads)"),
        "data_reasoning": ("Fields present of fields expected, and what was missing, empty or failed.",
                           "evaluators.evaluation_row"),
        "synthesis_score": ("Share of risk_level, credit_score, confidence, reasoning, recommendations present "
                            "and valid.", "evaluators.synthesis_quality(assessment)"),
        "synthesis_reasoning": ("Fields present and valid, missing, invalid.", "evaluators.evaluation_row"),
        "overall_score": ("0.3 x tool_selection_score + 0.3 x data_quality_score + 0.4 x synthesis_score.",
                          "evaluators.evaluation_overall"),
    },
    "tool_selections": {
        "model": ("The model that selected the tools.", "node (evaluate_assessment)"),
        "selected_tools": ("The tools that really ran (JSON list).", "the run's tool_calls"),
        "expected_tools": ("The tools expected: by company type for credit runs, ``expected_tools=`` for "
                           "wrapped runs (JSON list).", "workflow / caller"),
        "correct_tools": ("selected ∩ expected, sorted (JSON list).", "evaluators.tool_selection"),
        "missing_tools": ("expected - selected, sorted (JSON list).", "evaluators.tool_selection"),
        "extra_tools": ("selected - expected, sorted (JSON list).", "evaluators.tool_selection"),
        "precision": ("|correct| / |selected| (1 when both are empty, 0 when only selected is).",
                      "evaluators.tool_selection"),
        "recall": ("|correct| / |expected| (1 when both are empty, 0 when only expected is).",
                   "evaluators.tool_selection"),
        "f1_score": ("2PR / (P + R); 0 when P + R = 0.", "evaluators.tool_selection"),
        "reasoning": ("Why these tools (the planner's words for credit runs; what ran for wrapped runs).",
                      "node / evaluators"),
    },
    "llm_calls": {
        "node_type": ("Always ``llm``.", "captured"),
        "call_type": ("What the call was for (e.g. ``credit_synthesis``, ``llm_judge``); ``chat`` or "
                      "``completion`` when unlabelled.", "captured (label of the caller)"),
        "prompt": ("The prompt as sent, one ``role: text`` block per message.", "captured"),
        "response": ("The model's answer (text, or the tool call's JSON).", "captured"),
        "reasoning": ("The model's stated reasoning, when its answer carries one.", "captured"),
        "context": ("What the caller said the call knew (e.g. ``2 directory match(es)``).",
                    "captured (label of the caller)"),
        "current_task": ("The task the call served (e.g. ``assess credit risk of Acme Corp``).",
                         "captured (label of the caller)"),
        "prompt_tokens": ("Input tokens, as the provider reported them (see usage_source).", "captured"),
        "completion_tokens": ("Output tokens, as the provider reported them.", "captured"),
        "total_tokens": ("prompt_tokens + completion_tokens.", "captured"),
        "input_cost": ("prompt_tokens x the model's input price per 1M tokens / 1e6, in USD, rounded to 8 "
                       "decimals; empty for a model without a price.", "harness.costs.cost"),
        "output_cost": ("completion_tokens x the output price / 1e6, in USD.", "harness.costs.cost"),
        "total_cost": ("input_cost + output_cost, in USD.", "harness.costs.cost"),
        "execution_time_ms": ("How long the call took, in milliseconds.", "captured"),
        "status": ("``ok`` or ``error``.", "captured"),
        "timestamp": ("When the call ended (UTC).", "captured"),
        "llm_call_id": ("The call's id (LangChain's run id); prompts rows carry it too.", "captured"),
        "usage_source": ("Where the token counts come from: ``provider``, ``estimated`` (about 4 characters a "
                         "token, when the provider said nothing) or ``missing``.", "captured"),
        "time_to_first_token_ms": ("For a streamed call, milliseconds until the first token.", "captured"),
        "price_table": ("Date of the bundled price table the cost comes from, or ``user`` for a price registered "
                        "with ``harness.register_price`` or a prices file.", "harness.costs"),
        "parent_tool_id": ("``tool_call_id`` of the tool call the model was called in, if any.", "captured"),
    },
    "consistency_scores": {
        "run_id": ("The run that completed the group (the last of run_ids).", "the batch"),
        "model_name": ("The model of a same_model row; the models joined by \", \" for a cross_model row.",
                       "the batch"),
        "evaluation_type": ("``same_model`` (the repeats of one model) or ``cross_model`` (every result of "
                            "every model).", "the batch"),
        "num_runs": ("Results in the group: the number of risk_levels listed.", "the batch"),
        "risk_level_consistency": ("count(modal risk level) / N.", "evaluators.consistency"),
        "score_consistency": ("clamp(1 - score_std / mean credit score, 0, 1).", "evaluators.consistency"),
        "score_std": ("Population standard deviation of the credit scores.", "evaluators.consistency"),
        "overall_consistency": ("0.5 x risk_level_consistency + 0.5 x score_consistency.",
                                "evaluators.consistency"),
        "risk_levels": ("The group's risk levels, e.g. ``LOW, LOW, MODERATE`` (the inputs, so the figures can "
                        "be recomputed).", "the batch"),
        "credit_scores": ("The group's credit scores, e.g. ``750, 745, 720``.", "the batch"),
        "batch_id": ("The batch of the group (runs.batch_id).", "the batch"),
    },
    "data_sources": {
        "source_name": ("The source: sec_edgar, finnhub, court_listener or web_search.",
                        "node (fetch_api_data, search_web)"),
        "records_found": ("Records in the payload: filings + financial facts (SEC); profile, quote, metrics "
                          "(1 each) + news (Finnhub); dockets + opinions (CourtListener); results + news "
                          "articles (web).", "workflows.count_records"),
        "data_summary": ("The payload the source returned (JSON); empty when it failed.",
                         "node (fetch_api_data, search_web)"),
        "execution_time_ms": ("How long the source took, in milliseconds.", "node (fetch_api_data, search_web)"),
        "status": ("``ok``, or ``fail`` (an HTTP error, a timeout, a missing key: see error).",
                   "node (fetch_api_data, search_web)"),
        "error": ("Why the source failed, naming it, e.g. ``web_search skipped: TAVILY_API_KEY is not set``.",
                  "node (fetch_api_data, search_web)"),
    },
    "langgraph_events": {
        "node": ("The node the event belongs to (the graph's name for graph events).", "captured"),
        "step_number": ("Step of the node the event belongs to.", "captured"),
        "event_type": ("``on_chain_start`` / ``_end`` / ``_error`` for the graph and nodes, "
                       "``on_chat_model_start`` / ``on_llm_end`` / ``on_llm_error`` for models, ``on_tool_start`` / "
                       "``_end`` / ``_error`` for tools.", "captured"),
        "event_name": ("Name of what ran (node, model class, tool).", "captured"),
        "model": ("For model events: the model (the response's, on end rows).", "captured"),
        "temperature": ("For model events: the temperature.", "captured"),
        "tokens": ("For model end rows: prompt + completion tokens.", "captured"),
        "input_preview": ("Start rows: the input, as JSON text, cut at the preview limit.", "captured"),
        "output_preview": ("End rows: the output, as JSON text, cut at the preview limit.", "captured"),
        "duration_ms": ("End rows: how long the execution took, in milliseconds.", "captured"),
        "status": ("``started`` on start rows; ``ok``, ``error`` or ``interrupted`` on end rows.", "captured"),
        "error": ("Error rows: the exception.", "captured"),
        "timestamp": ("When the event happened (UTC).", "captured"),
        "event_id": ("Id of the execution; its start and end rows share it.", "captured"),
        "parent_event_id": ("event_id of the execution that contains this one.", "captured"),
        "langgraph_step": ("LangGraph's superstep number.", "captured"),
        "checkpoint_ns": ("LangGraph's checkpoint namespace (which subgraph).", "captured"),
        "subgraph_depth": ("0 for the top graph's nodes, 1 or more inside subgraphs.", "captured"),
        "thread_id": ("LangGraph's ``thread_id``.", "captured"),
        "event_kind": ("``graph``, ``node``, ``llm`` or ``tool``.", "captured"),
    },
    "plans": {
        "num_tasks": ("Tasks in the plan: one per selected tool, then synthesis, storage and evaluation.",
                      "node (create_plan)"),
        "plan_summary": ("The tools selected and what follows, in one line.", "node (create_plan)"),
        "full_plan": ("The whole plan: tools, reasoning, tasks, model, duration (JSON).", "node (create_plan)"),
        **{f"task_{i}": (f"Task {i} of the plan (JSON: step, action, tool, node, reason).", "node (create_plan)")
           for i in range(1, 11)},
        "created_at": ("When the plan was made (UTC).", "node (create_plan)"),
        "status": ("``ok``, or ``error`` when the tool selection could not be used.", "node (create_plan)"),
    },
    "prompts": {
        "prompt_id": ("Id of the prompt in the workflow's registry (e.g. ``credit_synthesis``).",
                      "captured (label of the caller)"),
        "prompt_name": ("Its human name.", "captured (label of the caller)"),
        "category": ("Its category (input, planning, synthesis, evaluation).", "captured (label of the caller)"),
        "system_prompt": ("The system message(s) as sent.", "captured"),
        "user_prompt": ("The other messages as sent.", "captured"),
        "variables_json": ("The variables the prompt was filled with (JSON).", "captured (label of the caller)"),
        "timestamp": ("When the call started (UTC).", "captured"),
        "llm_call_id": ("The llm_calls row of the same call.", "captured"),
    },
    "cross_model_eval": {
        "run_id": ("The run that completed the comparison (the last of run_ids).", "the batch"),
        "models_compared": ("The models compared, the batch's ``--model`` first (JSON list).", "the batch"),
        "num_models": ("How many models were compared.", "the batch"),
        "risk_level_agreement": ("Share of the modal risk level among the models' modal risk levels (1.0 when "
                                 "all agree).", "evaluators.cross_model_agreement"),
        "credit_score_mean": ("Mean of the models' mean credit scores.", "evaluators.cross_model_agreement"),
        "credit_score_std": ("Their population standard deviation.", "evaluators.cross_model_agreement"),
        "credit_score_range": ("Their max - min.", "evaluators.cross_model_agreement"),
        "confidence_agreement": ("clamp(1 - variance of the models' confidences / 0.25, 0, 1).",
                                 "evaluators.cross_model_agreement"),
        "best_model": ("The model the judge preferred in both orders, else the one with the higher mean judge "
                       "score; empty when neither says.", "the batch (LLM judge)"),
        "best_model_reasoning": ("Why that model.", "the batch (LLM judge)"),
        "cross_model_agreement": ("0.4 x risk_level_agreement + 0.4 x (1 - credit_score_range / 550) + 0.2 x "
                                  "confidence_agreement.", "evaluators.cross_model_agreement"),
        "llm_judge_analysis": ("Mean judge score per model.", "the batch"),
        "model_recommendations": ("Which model to prefer for this company.", "the batch"),
        "model_results": ("Per model: modal risk level, mean credit score, mean confidence (JSON; the inputs of "
                          "the figures).", "the batch"),
        "pairwise_comparisons": ("The judge's pairwise verdicts, asked in both orders, with their model and "
                                 "tokens (JSON).", "evaluators.pairwise"),
    },
    "llm_judge_results": {
        "model_used": ("The judge's model (the provider's primary model, at temperature 0).",
                       "node (evaluate_assessment)"),
        "temperature": ("The judge's temperature (0).", "node (evaluate_assessment)"),
        "accuracy_score": ("Are the risk level and score reasonable given the data (0-10 anchors, /10)? The judge "
                           "is told to give at most 2 when no source returned data.", "evaluators.LLMJudge"),
        "completeness_score": ("Are the relevant risk factors covered? (/10)", "evaluators.LLMJudge"),
        "consistency_score": ("Does the reasoning lead to the conclusion? (/10)", "evaluators.LLMJudge"),
        "actionability_score": ("Are the recommendations actionable? (/10)", "evaluators.LLMJudge"),
        "data_utilization_score": ("Was the available data used? (/10) At most 2 (of 10) when no source "
                                   "returned data.", "evaluators.LLMJudge"),
        "overall_score": ("Mean of the five scores; empty when the judge failed.", "evaluators.judge_overall"),
        "accuracy_reasoning": ("The judge's reasoning for accuracy.", "evaluators.LLMJudge"),
        "completeness_reasoning": ("... for completeness.", "evaluators.LLMJudge"),
        "consistency_reasoning": ("... for consistency.", "evaluators.LLMJudge"),
        "actionability_reasoning": ("... for actionability.", "evaluators.LLMJudge"),
        "data_utilization_reasoning": ("... for data utilization.", "evaluators.LLMJudge"),
        "overall_reasoning": ("The judge's summary.", "evaluators.LLMJudge"),
        "benchmark_alignment": ("Agreement with a benchmark assessment, or ``no benchmark``.",
                                "evaluators.LLMJudge"),
        "benchmark_comparison": ("How the assessment compares with it.", "evaluators.LLMJudge"),
        "suggestions": ("What would improve the assessment.", "evaluators.LLMJudge"),
        "tokens_used": ("Tokens of the judge's call(s).", "evaluators.LLMJudge"),
        "evaluation_cost": ("Their cost in USD; empty for a model without a price.", "harness.costs.cost"),
        "status": ("``ok``, or ``error`` when the judge failed after its retries (scores then stay empty, never "
                   "0).", "evaluators.LLMJudge"),
        "error": ("Why the judge failed.", "evaluators.LLMJudge"),
    },
    "agent_metrics": {
        "model": ("The analyst model (credit runs); the models of the run's calls (wrapped runs).",
                  "node / the run"),
        "intent_correctness": ("0.4 x [parsed name matches the input] + 0.3 x [public/private identified] + 0.3, "
                               "0.2 or 0.1 for the parser's confidence above 0.7, 0.5, 0.3.",
                               "evaluators.intent_correctness"),
        "plan_quality": ("0.3 x [3-10 tasks] + 0.35 x [a task gathers data] + 0.35 x [a task analyses].",
                         "evaluators.plan_quality"),
        "tool_choice_correctness": ("Precision of the tools that ran against the expected tools.",
                                    "evaluators.tool_selection"),
        "tool_completeness": ("Recall of the tools that ran against the expected tools.",
                              "evaluators.tool_selection"),
        "trajectory_match": ("0.6 x Jaccard of the node sets + 0.4 x LCS(actual, expected) / max length; both "
                             "empty -> 1.", "evaluators.trajectory_match"),
        "final_answer_quality": ("Credit runs: 0.5 x share of the five assessment fields present + 0.15 x valid "
                                 "risk level + 0.15 x valid score + 0.1 x valid confidence + 0.1 x reasoning over "
                                 "50 characters. Runs of a dataset case: the score of its answer check "
                                 "(evaluators.check_answer), 0 when the run gave no answer.",
                                 "evaluators.final_answer_quality / evaluators.check_answer"),
        "step_count": ("Node executions of the run.", "node / the run"),
        "tool_calls": ("Tool calls of the run.", "node / the run"),
        "latency_ms": ("Wall time of the run up to the evaluation, in milliseconds.", "node / the run"),
        "overall_score": ("0.15 x intent + 0.15 x plan + 0.20 x tool choice + 0.15 x completeness + 0.15 x "
                          "trajectory + 0.20 x answer, renormalised over the parts that apply (a wrapped run has "
                          "no intent, plan or answer).", "evaluators.agent_overall"),
        "intent_details": ("The parts of intent_correctness (JSON).", "evaluators.agent_metrics_row"),
        "plan_details": ("The parts of plan_quality (JSON).", "evaluators.agent_metrics_row"),
        "tool_details": ("Selected, expected, correct, missing, extra, P/R/F1 (JSON).",
                         "evaluators.agent_metrics_row"),
        "trajectory_details": ("Actual and expected paths, Jaccard, order, strict / unordered / subset / superset "
                               "matches, missing and extra nodes (JSON).", "evaluators.trajectory_match"),
        "answer_details": ("The parts of final_answer_quality (JSON); for a dataset case: the check, its "
                           "threshold, the answer and reference compared (cut at 2,000 characters), and "
                           "require_tools.", "evaluators.agent_metrics_row / the experiment runner"),
    },
    "log_tests": {
        **{name: (f"The run's rows in {name}.", "the run") for name in (
            "runs", "langgraph_events", "llm_calls", "tool_calls", "assessments", "evaluations", "tool_selections",
            "consistency_scores", "data_sources", "plans", "prompts", "cross_model_eval", "llm_judge_results",
            "agent_metrics")},
        "total_sheets_logged": ("Sheets with at least one row of the run.", "harness.tracing.verify"),
        "verification_status": ("``fail`` without a runs row; ``partial`` when a sheet the profile requires is "
                                "empty or holds fewer rows than the harness wrote; else ``pass``.",
                                "harness.tracing.verify.verification_status"),
        "timestamp": ("When the counts were last taken (UTC).", "the run"),
        "profile": ("``credit`` or ``generic``: which sheets the run must fill.", "the run"),
        "required_sheets": ("The sheets the profile requires (JSON list).", "the run"),
        "written_rows": ("Rows the harness wrote per sheet (JSON), to compare with what the store holds.",
                         "the run"),
    },
}


def column_doc(sheet: str, column: str) -> tuple[str, str] | None:
    """(meaning, written by) of a column; None when it is not documented."""
    return COLUMNS.get(sheet, {}).get(column) or COMMON.get(column)


def _cell(text: str) -> str:
    return text.replace("``", "`").replace("|", "\\|").replace("\n", " ")


def _sheet_section(sheet: Sheet) -> list[str]:
    lines = [f"## `{sheet.name}`", "", SHEET_PURPOSE[sheet.name], "",
             f"`generated_by`: `{sheet.generated_by}`. Columns {len(sheet.columns)} of the spec, then "
             f"{len(sheet.extra)} extra.", "",
             "| # | column | type (stored as) | meaning | written by / formula |", "|---|---|---|---|---|"]
    for i, column in enumerate(sheet.all_columns, start=1):
        meaning, writer = column_doc(sheet.name, column.name) or ("(not documented)", "")
        extra = " (extra)" if column.spec_type == "Extra" else ""
        lines.append(f"| {i} | `{column.name}`{extra} | {column.spec_type} ({column.kind}) | {_cell(meaning)} | "
                     f"{_cell(writer)} |")
    return [*lines, ""]


def render_markdown() -> str:
    """docs/sheets.md, from :mod:`harness.schema` and the text above."""
    lines = [
        "# The fifteen sheets",
        "",
        "Generated from `harness/schema.py` and `harness/sheet_docs.py` by `python docs/generate_sheets.py`; "
        "do not edit by hand (a test fails when this page and the schema differ).",
        "",
        "Every run writes rows to these sheets in the store; `harness export` and `harness run --out` write "
        "them to Excel or Google Sheets in this order, spec columns first, then the extra columns. Types: "
        "the spec's type, and how the value is stored (`text`, `int`, `float`, `json` as compact JSON text, "
        "`datetime` as ISO 8601 UTC text, an Excel date in a workbook, a pandas UTC datetime in "
        "`Harness.sheets()`). Floats are exact in every target; spreadsheets show scores to 3 decimals, "
        "milliseconds to 0.1 and costs to 8 decimals.",
        "",
        "## `generated_by`",
        "",
        *(f"- `{label}`: {text}." for label, text in GENERATED_BY.items()),
        "",
        "Written by: *captured* = built by the harness from the run's LangChain callbacks; *the run* = "
        "computed by the harness when the run ends; *node (name)* = logged by that node of the credit "
        "workflow (empty for wrapped runs); *the batch* = written by `harness run` after a group of runs; a "
        "function = the value is its result, and `harness audit` recomputes it with the same function.",
        "",
    ]
    for sheet in SHEETS:
        lines += _sheet_section(sheet)
    return "\n".join(lines)
