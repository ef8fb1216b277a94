"""A store of consistent credit runs, built with the evaluators' row builders, and its
workbook as ``exporters.write_excel`` writes it."""

from __future__ import annotations

import random
import shutil
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

import evaluators
from harness import Store
from harness.tracing.verify import PROFILES, total_sheets_logged, verification_status
from harness.costs import cost
from harness.schema import COUNTED_SHEETS

MODELS = ("llama-3.3-70b-versatile", "llama-3.1-8b-instant")
COMPANIES = {  # name -> (selected tools, expected tools)
    "Acme Corp": (["sec_edgar", "finnhub", "court_listener", "web_search"],
                  ["sec_edgar", "finnhub", "court_listener", "web_search"]),
    "Globex GmbH": (["finnhub", "web_search", "sec_edgar"], ["finnhub", "web_search"]),
}
REPEATS = 3
NODES = ("parse_input", "validate_company", "create_plan", "fetch_api_data", "search_web",
         "synthesize", "save_to_database", "evaluate_assessment")
LLM_NODES = ("parse_input", "create_plan", "synthesize")
UNKNOWN_MODEL = "house-model-x"  # not in the price table: its costs stay empty
PAYLOADS: dict[str, Any] = {
    "sec_edgar": {"cik": "1", "company_name": "Acme", "sic": "3571", "fiscal_year_end": "1231",
                  "recent_filings": ["10-K"], "financials": {"revenue": 10, "net_income": 1}},
    "finnhub": {"symbol": "ACME", "profile": {"name": "Acme", "country": "US"}, "quote": {"current_price": 10}},
    "court_listener": {"company": "Acme", "total_dockets": 2, "total_opinions": 0},
    "web_search": {"company": "Acme", "web_results": [{"title": "news"}], "key_findings": ["growth"]},
}
RISKS = ("LOW", "MODERATE", "HIGH")


def _iso(moment: datetime) -> str:
    return moment.isoformat(timespec="microseconds")


def _common(run_id: str, company: str, node: str | None, step: int | None, when: datetime, **extra: Any) -> dict:
    return {"run_id": run_id, "company_name": company, "node": node,
            "agent_name": evaluators_agent(node), "step_number": step, "timestamp": _iso(when), **extra}


def evaluators_agent(node: str | None) -> str | None:
    from harness.schema import AGENT_NAMES

    return AGENT_NAMES.get(node) if node else None


def _one_run(store: Store, rnd: random.Random, company: str, model: str, start: datetime,
             *, judge_fails: bool = False, unknown_model_call: bool = False) -> dict[str, Any]:
    run_id = str(uuid.UUID(int=rnd.getrandbits(128), version=4))
    selected, expected = COMPANIES[company]
    rows: dict[str, list[dict]] = {name: [] for name in COUNTED_SHEETS}
    tick = lambda ms: start + timedelta(milliseconds=ms)
    rows["langgraph_events"].append({**_common(run_id, company, "LangGraph", None, tick(0)),
                                     "node_type": "graph", "event_type": "on_chain_start", "event_name": "LangGraph",
                                     "status": "started", "event_kind": "graph", "generated_by": "FW"})
    llm_count = 0
    for step, node in enumerate(NODES, start=1):
        t0 = step * 100
        rows["langgraph_events"].append({**_common(run_id, company, node, step, tick(t0)), "node_type": "agent",
                                         "event_type": "on_chain_start", "event_name": node, "status": "started",
                                         "event_kind": "node", "generated_by": "FW"})
        if node in LLM_NODES:
            llm_count += 1
            call_model = UNKNOWN_MODEL if unknown_model_call and node == "parse_input" else model
            p, c = rnd.randint(200, 2000), rnd.randint(50, 500)
            price = cost(call_model, p, c)
            rows["langgraph_events"].append({**_common(run_id, company, node, step, tick(t0 + 10)),
                                             "node_type": "llm", "event_type": "on_llm_end", "event_name": "ChatModel",
                                             "model": call_model, "tokens": p + c, "duration_ms": 40.0,
                                             "status": "ok", "event_kind": "llm", "generated_by": "FW"})
            rows["llm_calls"].append({
                **_common(run_id, company, node, step, tick(t0 + 50)), "node_type": "llm",
                "call_type": node, "model": call_model, "temperature": 0.1,
                "prompt": f"system: analyse {company}", "response": '{"ok": true}',
                "prompt_tokens": p, "completion_tokens": c, "total_tokens": p + c,
                "input_cost": price.input_cost if price else None,
                "output_cost": price.output_cost if price else None,
                "total_cost": price.total_cost if price else None,
                "execution_time_ms": 40.0, "status": "ok", "generated_by": "Mixed",
                "llm_call_id": str(uuid.UUID(int=rnd.getrandbits(128), version=4)),
            })
            rows["prompts"].append({**_common(run_id, company, node, step, tick(t0 + 5)), "prompt_id": node,
                                    "prompt_name": node.replace("_", " "), "category": "input",
                                    "system_prompt": "You are a credit analyst.", "user_prompt": company,
                                    "variables_json": {"company": company}, "model": call_model,
                                    "temperature": 0.1, "generated_by": "Us"})
        if node in ("fetch_api_data", "search_web"):
            for tool in selected:
                if (tool == "web_search") != (node == "search_web"):
                    continue
                rows["tool_calls"].append({
                    **_common(run_id, company, node, step, tick(t0 + 30)), "node_type": "tool", "tool_name": tool,
                    "tool_input": {"company": company}, "tool_output": PAYLOADS[tool], "parent_node": node,
                    "workflow_phase": "data_collection", "call_depth": 0, "execution_time_ms": 12.5,
                    "status": "ok", "generated_by": "Us",
                })
                rows["data_sources"].append({
                    **_common(run_id, company, node, step, tick(t0 + 31)), "node_type": "tool", "source_name": tool,
                    "records_found": 3, "data_summary": PAYLOADS[tool], "execution_time_ms": 12.5,
                    "status": "ok", "generated_by": "Us",
                })
        rows["langgraph_events"].append({**_common(run_id, company, node, step, tick(t0 + 90)), "node_type": "agent",
                                         "event_type": "on_chain_end", "event_name": node, "status": "ok",
                                         "duration_ms": 90.0 + step, "event_kind": "node", "generated_by": "FW"})
    assessment = {"risk_level": rnd.choice(RISKS), "credit_score": rnd.randint(560, 800),
                  "confidence": round(rnd.uniform(0.6, 0.95), 2),
                  "reasoning": "=Revenue grew while leverage stayed moderate; liquidity is adequate for obligations.",
                  "recommendations": ["Monitor leverage quarterly"]}
    synth_step = NODES.index("synthesize") + 1
    eval_step = NODES.index("evaluate_assessment") + 1
    plan_step = NODES.index("create_plan") + 1
    rows["assessments"].append({**_common(run_id, company, "synthesize", synth_step, tick(700)), "node_type": "agent",
                                "model": model, "temperature": 0.1, "prompt": "credit_synthesis", **assessment,
                                "duration_ms": 40.0, "status": "ok", "generated_by": "Us"})
    tasks = [{"step": i + 1, "action": f"fetch_{t}", "tool": t} for i, t in enumerate(selected)]
    tasks += [{"step": len(tasks) + 1, "action": "synthesize_assessment", "tool": None}]
    rows["plans"].append({"run_id": run_id, "company_name": company, "node": "create_plan",
                          "agent_name": "tool_supervisor", "num_tasks": len(tasks), "plan_summary": "plan",
                          "full_plan": {"tools": selected, "tasks": tasks}, "task_1": tasks[0],
                          "created_at": _iso(tick(300)), "status": "ok", "generated_by": "Us"})
    node_cols = lambda node, step, ms: {**_common(run_id, company, node, step, tick(ms)), "node_type": "agent"}
    rows["tool_selections"].append({**node_cols("create_plan", plan_step, 350), "generated_by": "Us",
                                    **evaluators.tool_selection_row(selected, expected, model=model, duration_ms=5.0)})
    evaluation = evaluators.evaluation_row(selected_tools=selected, expected_tools=expected,
                                           source_payloads=PAYLOADS, assessment=assessment, model=model,
                                           duration_ms=3.0)
    rows["evaluations"].append({**node_cols("evaluate_assessment", eval_step, 880), "generated_by": "Us", **evaluation})
    trajectory = list(NODES)
    rows["agent_metrics"].append({**node_cols("evaluate_assessment", eval_step, 885), "generated_by": "Us",
                                  **evaluators.agent_metrics_row(
                                      company_input=company, company_info={"company_name": company,
                                                                           "is_public_company": True,
                                                                           "confidence": 0.9},
                                      plan=tasks, selected_tools=selected, expected_tools=expected,
                                      actual_trajectory=trajectory, expected_trajectory=trajectory,
                                      assessment=assessment, step_count=len(NODES),
                                      tool_calls=len(rows["tool_calls"]), latency_ms=900.0, model=model)})
    judge = _judge_result(rnd, model, fails=judge_fails)
    rows["llm_judge_results"].append({**_common(run_id, company, "evaluate_assessment", eval_step, tick(890)),
                                      "node_type": "llm", "generated_by": "Us", **evaluators.judge_row(judge)})
    total_cost = [r["total_cost"] for r in rows["llm_calls"] if r["total_cost"] is not None]
    rows["runs"].append({
        "run_id": run_id, "company_name": company, "node": "evaluate_assessment", "agent_name": "workflow_evaluator",
        "model": model, "temperature": 0.1, "status": "completed", "started_at": _iso(start),
        "completed_at": _iso(tick(900)), "risk_level": assessment["risk_level"],
        "credit_score": assessment["credit_score"], "confidence": assessment["confidence"],
        "total_time_ms": 900.0, "total_steps": len(NODES), "total_llm_calls": llm_count,
        "tools_used": list(dict.fromkeys(r["tool_name"] for r in rows["tool_calls"])),
        "evaluation_score": evaluation["overall_score"], "timestamp": _iso(tick(900)), "generated_by": "Us",
        "workflow": "credit_analysis", "total_cost": round(sum(total_cost), 8),
        "total_tokens": sum(r["total_tokens"] for r in rows["llm_calls"] if r["total_tokens"] is not None) or None,
    })
    for sheet, sheet_rows in rows.items():
        store.write(sheet, sheet_rows)
    return {"run_id": run_id, "company": company, "model": model, "assessment": assessment}


def _judge_result(rnd: random.Random, model: str, *, fails: bool) -> Any:
    from evaluators import JudgeResult

    dims = evaluators.DIMENSIONS
    if fails:
        scores: dict[str, float | None] = {d: None for d in dims}
        overall = None
    else:
        scores = {d: rnd.randint(6, 10) / 10 for d in dims}
        overall = evaluators.judge_overall([scores[d] for d in dims])
    return JudgeResult(
        status="error" if fails else "ok", scores=scores, reasoning={d: f"{d} reasoning" for d in dims},
        overall=overall, overall_reasoning="sound", benchmark_alignment="aligned", benchmark_comparison="close",
        suggestions="none", model=model, temperature=0.0, input_tokens=300, output_tokens=80, total_tokens=380,
        calls=1, duration_ms=12.0, error="judge timed out" if fails else None,
    )


def build_store(path: Path, *, seed: int = 7) -> Store:
    """Twelve credit runs (two companies x two models x three repeats), consistency rows per
    company, a cross-model row per company, and every run's log_tests row."""
    rnd = random.Random(seed)
    store = Store(path)
    start = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
    runs = []
    for c, company in enumerate(COMPANIES):
        for m, model in enumerate(MODELS):
            for r in range(REPEATS):
                runs.append(_one_run(store, rnd, company, model, start + timedelta(minutes=len(runs)),
                                     judge_fails=(c, m, r) == (1, 1, 2), unknown_model_call=(c, m, r) == (0, 1, 1)))
    for company in COMPANIES:
        mine = [r for r in runs if r["company"] == company]
        per_model = {m: [(r["assessment"]["risk_level"], r["assessment"]["credit_score"])
                         for r in mine if r["model"] == m] for m in MODELS}
        last = mine[-1]
        when = _iso(start + timedelta(hours=1))
        store.write("consistency_scores", [
            {"run_id": last["run_id"], "company_name": company, "node": "evaluate_assessment", "node_type": "agent",
             "agent_name": "workflow_evaluator", "step_number": len(NODES), "timestamp": when,
             "generated_by": "Us", "duration_ms": 1.0, **row}
            for row in evaluators.consistency_rows(per_model)
        ])
        results = {m: next((r["assessment"]["risk_level"], r["assessment"]["credit_score"],
                            r["assessment"]["confidence"]) for r in mine if r["model"] == m) for m in MODELS}
        store.write("cross_model_eval", [{
            "run_id": str(uuid.UUID(int=rnd.getrandbits(128), version=4)), "company_name": company,
            "node": "synthesize", "node_type": "agent", "agent_name": "workflow_evaluator",
            "step_number": None, "timestamp": when, "generated_by": "Us", "duration_ms": 2.0,
            **evaluators.cross_model_row(results, best_model=MODELS[0], best_model_reasoning="more complete"),
        }])
    for run in runs:
        counts = store.counts(run["run_id"])
        required = list(PROFILES["credit"])
        store.write("log_tests", [{
            "run_id": run["run_id"], "company_name": run["company"], **{n: counts[n] for n in COUNTED_SHEETS},
            "total_sheets_logged": total_sheets_logged(counts),
            "verification_status": verification_status(counts, required, None),
            "timestamp": _iso(start + timedelta(hours=2)), "generated_by": "Us", "profile": "credit",
            "required_sheets": required,
        }])
    _score(store, [run["run_id"] for run in runs])
    return store


def _score(store: Store, run_ids: list[str]) -> None:
    """Each run's scores as the harness writes them (its built-in checks, from its rows, and its
    log test), and its pass from them."""
    from harness.tracing.record import score_row

    rows = []
    for run_id in run_ids:
        sheets = {name: list(store.rows(name, [run_id])) for name in
                  ("tool_selections", "agent_metrics", "evaluations", "llm_judge_results", "log_tests")}
        scored = evaluators.built_in_scores(sheets, status="completed")
        scored.append(evaluators.log_test_score(sheets["log_tests"][0]["verification_status"]))
        rows += [score_row(run_id, s, "2026-01-05T12:00:00.000000+00:00") for s in scored]
    store.write_scores(rows, passed=evaluators.run_passed)


@pytest.fixture(scope="session")
def clean_store(tmp_path_factory: pytest.TempPathFactory) -> Store:
    return build_store(tmp_path_factory.mktemp("audit_store") / "runs.db")


@pytest.fixture(scope="session")
def _exported(tmp_path_factory: pytest.TempPathFactory, clean_store: Store) -> Path:
    from exporters import write_excel

    path = tmp_path_factory.mktemp("audit_book") / "runs.xlsx"
    write_excel(clean_store, path)
    return path


@pytest.fixture
def workbook(tmp_path: Path, _exported: Path) -> Path:
    """A fresh copy of the clean export, free to edit."""
    copy = tmp_path / "runs.xlsx"
    shutil.copy(_exported, copy)
    return copy


# --- editing a workbook with openpyxl ---------------------------------------------------------

def column_number(ws: Any, name: str) -> int:
    """1-based column of a header name."""
    for cell in ws[1]:
        if cell.value == name:
            return cell.column
    raise KeyError(name)


def _grid(path: Path, sheet: str) -> list[list[Any]]:
    import python_calamine

    return python_calamine.CalamineWorkbook.from_path(str(path)).get_sheet_by_name(sheet).to_python()


def cell_value(path: Path, sheet: str, row: int, column: str) -> Any:
    """A cell as python-calamine reads it (numbers as float), None when empty."""
    grid = _grid(path, sheet)
    value = grid[row - 1][grid[0].index(column)]
    return None if value == "" else value


def edit(path: Path, *changes: tuple[str, int, str, Any]) -> None:
    """Set (sheet, row, column, value) cells and save."""
    import openpyxl

    book = openpyxl.load_workbook(path)
    for sheet, row, column, value in changes:
        ws = book[sheet]
        ws.cell(row=row, column=column_number(ws, column)).value = value
    book.save(path)


def row_of(path: Path, sheet: str, column: str, value: Any) -> int:
    """The first row (Excel numbering) whose ``column`` holds ``value``."""
    grid = _grid(path, sheet)
    col = grid[0].index(column)
    return next(r + 1 for r in range(1, len(grid)) if grid[r][col] == value)


def edited_frames(frames: dict[str, Any], *changes: tuple[str, int, str, Any]) -> dict[str, Any]:
    """A copy of the sheets' data frames with (sheet, Excel row, column, value) cells set."""
    copy = {name: frame.copy() for name, frame in frames.items()}
    for sheet, row, column, value in changes:
        copy[sheet] = copy[sheet].astype({column: object})
        copy[sheet].at[row - 2, column] = value
    return copy


def frame_value(frames: dict[str, Any], sheet: str, row: int, column: str) -> Any:
    return frames[sheet].at[row - 2, column]


@pytest.fixture(scope="session")
def frames(clean_store: Store) -> dict[str, Any]:
    """The clean store's sheets as data frames (``Store.sheets``): copy before editing."""
    return clean_store.sheets()


def where(findings: Any) -> set[tuple[str, int | None, str | None, str]]:
    return {(f.sheet, f.row, f.column, f.kind) for f in findings}
