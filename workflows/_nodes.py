"""The graph's nodes. Each reads what it needs from the state and from
``config["configurable"]`` (model, judge model, data sources), writes its own keys, and logs
its domain rows through the harness run when there is one; without a harness every node
still works (e.g. under ``langgraph dev``).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.runnables.config import get_executor_for_config
from pydantic import BaseModel

from harness import current_run

from ._answers import CreditAssessment, ToolSelection
from ._evaluate import evaluate
from ._company import API_TOOLS, TOOL_NAMES, CompanyInfo, classify_company, validate_company_name
from ._prompts import COMPANY_PARSER, CREDIT_SYNTHESIS, TOOL_SELECTION, Prompt
from ._sources import NO_EVIDENCE_CONFIDENCE, DataSources, SourceError, count_records, evidence_note
from ._state import CreditState, SourceResult
from ._tools import SOURCES_KEY, TOOLS, tool_input


@dataclass(frozen=True)
class Defaults:
    """What a node uses when ``config["configurable"]`` does not say: a model factory (a fresh
    model per call, so no state is shared between runs) and the data sources."""

    model: Callable[[], BaseChatModel]
    sources: DataSources


@dataclass(frozen=True)
class Deps:
    model: BaseChatModel
    judge_model: BaseChatModel
    sources: DataSources
    judge: bool


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="microseconds")


def model_label(model: BaseChatModel) -> str | None:
    """The configured model name (for plans; rows that quote a response use the response's)."""
    return getattr(model, "model_name", None) or getattr(model, "model", None)


@dataclass(frozen=True)
class Answer:
    parsed: BaseModel | None
    error: str | None
    model: str | None  # as reported by the response
    duration_ms: float


def ask(model: BaseChatModel, schema: type[BaseModel], prompt: Prompt, data: dict[str, Any],
        config: RunnableConfig, *, call_type: str, task: str, context: str = "",
        variables: Mapping[str, Any] | None = None) -> Answer:
    """One structured call, labelled for the harness; one re-ask when the answer does not
    parse. Transport errors (after the provider's retries) propagate."""
    variables = dict(variables or {})
    metadata = {**(config.get("metadata") or {}), **prompt.metadata(call_type, task, variables, context)}
    messages = prompt.messages(data, **variables)
    runnable = model.with_structured_output(schema, include_raw=True)
    start = time.perf_counter()
    error, reported = None, None
    for _ in range(2):
        out = runnable.invoke(messages, config={**config, "metadata": metadata})
        raw = out.get("raw")
        reported = (getattr(raw, "response_metadata", None) or {}).get("model_name") or reported
        if out.get("parsed") is not None:
            return Answer(out["parsed"], None, reported, (time.perf_counter() - start) * 1000)
        error = str(out.get("parsing_error") or "the model returned no structured answer")[:500]
        messages = [*messages, HumanMessage(f"Your answer could not be used ({error}). Answer again with the {schema.__name__} tool.")]
    return Answer(None, error, reported, (time.perf_counter() - start) * 1000)


class CreditNodes:
    """The node functions, bound to the graph's defaults."""

    def __init__(self, defaults: Defaults) -> None:
        self.defaults = defaults

    def deps(self, config: RunnableConfig) -> Deps:
        conf = config.get("configurable") or {}
        model = conf.get("model") or self.defaults.model()
        return Deps(model=model, judge_model=conf.get("judge_model") or model,
                    sources=conf.get(SOURCES_KEY) or self.defaults.sources, judge=bool(conf.get("judge", True)))

    # --- parse_input / llm_parser -----------------------------------------------------
    def parse_input(self, state: CreditState, config: RunnableConfig) -> dict[str, Any]:
        """Identify the company with the model, from the directory entries the sources know.
        An input that fails validation is not sent to the model."""
        raw = state.get("company_name")
        if not validate_company_name(raw).valid:
            return {"company_info": None, "node_results": {"parse_input": "skipped: invalid input"}}
        name = str(raw).strip()
        d = self.deps(config)
        try:
            matches, lookup_error = d.sources.lookup(name)[:10], None
        except SourceError as exc:
            matches, lookup_error = [], str(exc)
        hints = {"ticker": state.get("ticker"), "jurisdiction": state.get("jurisdiction")}
        data = {"task": "company_parser", "input": name, "hints": hints, "directory_matches": matches}
        answer = ask(d.model, CompanyInfo, COMPANY_PARSER, data, config, call_type="company_parsing",
                     task=f"identify {name}", variables={"company": name},
                     context=f"{len(matches)} directory match(es)" + (f"; lookup failed: {lookup_error}" if lookup_error else ""))
        if answer.parsed is None:
            info = CompanyInfo(company_name=name, reasoning=f"parsing failed: {answer.error}")
            return {"company_info": info.model_dump(), "node_results": {"parse_input": f"error: {answer.error}"}}
        return {"company_info": answer.parsed.model_dump(), "node_results": {"parse_input": "ok"}}

    # --- validate_company / supervisor ------------------------------------------------
    def validate_company(self, state: CreditState, config: RunnableConfig) -> dict[str, Any]:
        """Check the input name (rules of ``validate_company_name``) and classify the company."""
        check = validate_company_name(state.get("company_name"))
        if not check.valid:
            run = current_run(config)
            if run is not None:
                run.set_result(error=f"validation failed: {check.reason}")
            return {"validation": {"valid": False, "reason": check.reason}, "company_type": "unknown",
                    "node_results": {"validate_company": f"invalid: {check.reason}"}}
        kind = classify_company(state.get("company_info"))
        return {"validation": {"valid": True, "reason": "ok"}, "company_type": kind,
                "node_results": {"validate_company": "ok"}}

    # --- create_plan / tool_supervisor ------------------------------------------------
    def create_plan(self, state: CreditState, config: RunnableConfig) -> dict[str, Any]:
        """The model selects the tools; the plan lists one task per tool, then synthesis,
        storage and evaluation. The plan is what the next nodes execute."""
        d = self.deps(config)
        info = state.get("company_info") or {}
        name = info.get("company_name") or state.get("company_name") or ""
        data = {"task": "tool_selection", "company": info, "company_type": state.get("company_type"),
                "available_tools": list(TOOL_NAMES)}
        answer = ask(d.model, ToolSelection, TOOL_SELECTION, data, config, call_type="tool_selection",
                     task=f"select data tools for {name}", variables={"company": name},
                     context=f"company type {state.get('company_type')}")
        chosen: list[dict[str, str]] = []
        if answer.parsed is not None:
            seen = set()
            for choice in answer.parsed.tools:  # type: ignore[attr-defined]
                if choice.name not in seen:
                    seen.add(choice.name)
                    chosen.append({"name": choice.name, "reason": choice.reason})
        tools = [c["name"] for c in sorted(chosen, key=lambda c: TOOL_NAMES.index(c["name"]))]
        reasons = {c["name"]: c["reason"] for c in chosen}
        tasks = [{"step": i + 1, "action": f"fetch_{t}", "tool": t,
                  "node": "fetch_api_data" if t in API_TOOLS else "search_web", "reason": reasons[t]}
                 for i, t in enumerate(tools)]
        for action, node in (("synthesize_assessment", "synthesize"), ("save_assessment", "save_to_database"),
                             ("evaluate_assessment", "evaluate_assessment")):
            tasks.append({"step": len(tasks) + 1, "action": action, "tool": None, "node": node, "reason": ""})
        status = "ok" if answer.parsed is not None else "error"
        reasoning = answer.parsed.reasoning if answer.parsed is not None else f"tool selection failed: {answer.error}"  # type: ignore[attr-defined]
        plan = {"tools": tools, "reasoning": reasoning, "tasks": tasks, "duration_ms": answer.duration_ms,
                "model": answer.model or model_label(d.model), "status": status}
        run = current_run(config)
        if run is not None:
            row = {"num_tasks": len(tasks), "plan_summary": f"{len(tools)} tool(s): {', '.join(tools) or 'none'}; then "
                   "synthesize, save, evaluate", "full_plan": plan, "created_at": now_iso(), "status": status}
            row.update({f"task_{i + 1}": task for i, task in enumerate(tasks[:10])})
            run.log("plans", row, config=config)
        return {"plan": plan, "node_results": {"create_plan": status if status == "ok" else f"error: {answer.error}"}}

    # --- fetch_api_data / api_agent and search_web / search_agent ---------------------
    def fetch_api_data(self, state: CreditState, config: RunnableConfig) -> dict[str, Any]:
        """Run the plan's API tools (sec_edgar, finnhub, court_listener) in parallel."""
        return self._run_tools(state, config, "fetch_api_data", [t for t in state["plan"]["tools"] if t in API_TOOLS])

    def search_web(self, state: CreditState, config: RunnableConfig) -> dict[str, Any]:
        """Run the plan's web search."""
        return self._run_tools(state, config, "search_web", [t for t in state["plan"]["tools"] if t == "web_search"])

    def _run_tools(self, state: CreditState, config: RunnableConfig, node: str, tools: list[str]) -> dict[str, Any]:
        d = self.deps(config)
        company = {**(state.get("company_info") or {})}
        company["company_name"] = company.get("company_name") or state.get("company_name")
        tool_config: RunnableConfig = {**config, "configurable": {**(config.get("configurable") or {}), SOURCES_KEY: d.sources}}

        def call(name: str) -> SourceResult:
            start = time.perf_counter()
            try:
                payload = TOOLS[name].invoke(tool_input(name, company), config=tool_config)
            except Exception as exc:  # noqa: BLE001 - the tool call is recorded as failed; the run goes on
                error = str(exc) if isinstance(exc, SourceError) else f"{type(exc).__name__}: {exc}"  # names the source
                return SourceResult(status="fail", records_found=0, data=None, error=error[:500],
                                    execution_time_ms=(time.perf_counter() - start) * 1000)
            return SourceResult(status="ok", records_found=count_records(name, payload), data=payload, error=None,
                                execution_time_ms=(time.perf_counter() - start) * 1000)

        if len(tools) > 1:
            with get_executor_for_config(config) as executor:
                results = dict(zip(tools, executor.map(call, tools)))
        else:
            results = {name: call(name) for name in tools}
        run = current_run(config)
        if run is not None:
            for name, r in results.items():
                run.log("data_sources", {"source_name": name, "records_found": r["records_found"], "data_summary": r["data"],
                                         "execution_time_ms": r["execution_time_ms"], "status": r["status"],
                                         "error": r["error"]}, config=config)
        failed = [n for n, r in results.items() if r["status"] != "ok"]
        outcome = "ok" if not failed else f"failed: {', '.join(failed)}"
        return {"source_results": results, "node_results": {node: outcome}}

    # --- synthesize / llm_analyst -----------------------------------------------------
    def synthesize(self, state: CreditState, config: RunnableConfig) -> dict[str, Any]:
        """The model assesses credit risk from the data the executed tools returned. When no
        source returned records, the assessment's confidence is capped at
        ``NO_EVIDENCE_CONFIDENCE`` whatever the model said, and the run is noted as such."""
        d = self.deps(config)
        info = state.get("company_info") or {}
        name = info.get("company_name") or state.get("company_name") or ""
        results = state.get("source_results") or {}
        sources = {n: {"status": r["status"], "records_found": r["records_found"],
                       "data": r["data"] if r["status"] == "ok" else None, "error": r["error"]}
                   for n, r in results.items()}
        planned = (state.get("plan") or {}).get("tools", [])
        data = {"task": "credit_synthesis", "company": info, "company_type": state.get("company_type"),
                "planned_tools": planned, "sources": sources}
        with_data = [n for n, s in sources.items() if s["status"] == "ok" and s["records_found"]]
        answer = ask(d.model, CreditAssessment, CREDIT_SYNTHESIS, data, config, call_type="credit_synthesis",
                     task=f"assess credit risk of {name}", variables={"company": name},
                     context=f"sources with data: {', '.join(with_data) or 'none'}")
        temperature = getattr(d.model, "temperature", None)
        note = evidence_note(planned, results)
        if answer.parsed is not None:
            assessment = {**answer.parsed.model_dump(), "status": "ok", "error": None}
            if not with_data:
                assessment["confidence"] = min(assessment["confidence"], NO_EVIDENCE_CONFIDENCE)
        else:
            assessment = {"risk_level": None, "credit_score": None, "confidence": None, "reasoning": "",
                          "risk_factors": [], "positive_factors": [], "recommendations": [], "data_gaps": planned,
                          "status": "error", "error": answer.error}
        assessment.update(model=answer.model or model_label(d.model), temperature=temperature, duration_ms=answer.duration_ms)
        run = current_run(config)
        if run is not None:
            run.set_result(note=note)
            run.log("assessments", {"model": assessment["model"], "temperature": temperature, "prompt": CREDIT_SYNTHESIS.id,
                                    **{k: assessment[k] for k in ("risk_level", "credit_score", "confidence", "reasoning",
                                                                  "recommendations", "duration_ms", "status")}},
                    config=config)
            if assessment["status"] == "ok":
                run.set_result(risk_level=assessment["risk_level"], credit_score=assessment["credit_score"],
                               confidence=assessment["confidence"])
        return {"assessment": assessment, "note": note, "node_results": {"synthesize": assessment["status"]}}

    # --- save_to_database / db_writer -------------------------------------------------
    def save_to_database(self, state: CreditState, config: RunnableConfig) -> dict[str, Any]:
        """Upsert the assessment record by run id into the harness store; skipped without a run."""
        run = current_run(config)
        if run is None:
            return {"saved": False, "node_results": {"save_to_database": "skipped: no harness run"}}
        record = {"company_name": state.get("company_name"), "company_info": state.get("company_info"),
                  "company_type": state.get("company_type"), "tools": (state.get("plan") or {}).get("tools", []),
                  "sources": {n: {k: r[k] for k in ("status", "records_found", "error")}
                              for n, r in (state.get("source_results") or {}).items()},
                  "assessment": state.get("assessment")}
        run.store.upsert_assessment(run.run_id, str(state.get("company_name") or ""), json.loads(json.dumps(record, default=str)),
                                    now_iso())
        return {"saved": True, "node_results": {"save_to_database": "ok"}}

    # --- evaluate_assessment / workflow_evaluator -------------------------------------
    def evaluate_assessment(self, state: CreditState, config: RunnableConfig) -> dict[str, Any]:
        """Tool selection, evaluation, agent metrics and (unless disabled) the LLM judge."""
        d = self.deps(config)
        return evaluate(state, config, judge_model=d.judge_model, judge=d.judge)
