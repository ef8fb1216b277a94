from __future__ import annotations

import asyncio
import threading

from harness import AGENT_NAMES
from tests.support.data_server import serve_data
from workflows import OfflineAnalyst, build_graph
from workflows._live import LiveSources
from workflows._sources import NO_EVIDENCE_CONFIDENCE

CREDIT_SHEETS = ("runs", "langgraph_events", "llm_calls", "tool_calls", "assessments", "evaluations", "tool_selections",
                 "data_sources", "plans", "prompts", "llm_judge_results", "agent_metrics", "log_tests")


def test_offline_public_us_run_fills_every_credit_sheet_and_passes_log_tests(run_credit):
    run, out, sheets = run_credit("Acme Corp")
    assert run.status == "completed"
    assert all(len(sheets[name]) >= 1 for name in CREDIT_SHEETS)
    assert sheets["log_tests"].iloc[0]["verification_status"] == "pass"
    runs = sheets["runs"].iloc[0]
    assert (runs["model"], runs["risk_level"], runs["total_cost"]) == ("offline-analyst-1", "LOW", 0.0)
    assert runs["evaluation_score"] == sheets["evaluations"].iloc[0]["overall_score"]
    assert out["assessment"]["risk_level"] == "LOW"


def test_an_offline_run_needs_four_llm_calls(run_credit):
    _, _, sheets = run_credit("Acme Corp")
    assert sorted(sheets["llm_calls"]["call_type"]) == ["company_parsing", "credit_synthesis", "llm_judge", "tool_selection"]
    assert set(sheets["llm_calls"]["model"]) == {"offline-analyst-1"}


def test_the_plan_is_executed_exactly(run_credit):
    for name, tools in (("Acme Corp", {"sec_edgar", "finnhub", "court_listener", "web_search"}),
                        ("Rheinstahl Werke AG", {"finnhub", "web_search"}),
                        ("Cobalt Ridge Partners", {"court_listener", "web_search"}),
                        ("Unheard Of Widgets", {"web_search"})):
        _, out, sheets = run_credit(name)
        assert set(out["plan"]["tools"]) == tools
        assert sorted(sheets["tool_calls"]["tool_name"]) == sorted(tools)
        assert set(sheets["tool_selections"].iloc[0]["selected_tools"]) == tools


def test_rows_carry_canonical_agent_names_and_their_node_step(run_credit):
    _, _, sheets = run_credit("Acme Corp")
    llm = sheets["llm_calls"]
    assert all(AGENT_NAMES[n] == a for n, a in zip(llm["node"], llm["agent_name"]))
    steps = {e["node"]: e["step_number"] for e in sheets["langgraph_events"].to_dict("records") if e["node"]}
    for sheet in ("data_sources", "assessments", "tool_calls", "evaluations"):
        for row in sheets[sheet].to_dict("records"):
            assert row["agent_name"] == AGENT_NAMES[row["node"]]
            assert row["step_number"] == steps[row["node"]]
    assert set(sheets["data_sources"]["node"]) == {"fetch_api_data", "search_web"}


def test_trajectory_is_the_observed_one(run_credit):
    _, out, sheets = run_credit("Unheard Of Widgets")
    details = sheets["agent_metrics"].iloc[0]["trajectory_details"]
    assert "fetch_api_data" not in details["actual"]
    assert details["actual"] == out["evaluation"]["trajectory"]
    assert details["actual"][-1] == "evaluate_assessment"


def test_invalid_company_ends_cleanly_with_a_recorded_reason(run_credit):
    run, out, sheets = run_credit('=HYPERLINK("http://x","y")')
    assert run.status == "completed"
    assert out["validation"] == {"valid": False, "reason": "company name starts like a spreadsheet formula"}
    assert "validation failed" in sheets["runs"].iloc[0]["error"]
    assert len(sheets["llm_calls"]) == 0 and len(sheets["tool_calls"]) == 0
    assert sheets["log_tests"].iloc[0]["verification_status"] == "pass"
    assert "create_plan" not in set(sheets["langgraph_events"]["node"])


def test_unknown_company_runs_and_the_assessment_says_so(run_credit):
    run, out, _ = run_credit("Zyx Quantum Holdings")
    assert run.status == "completed"
    assert out["company_type"] == "unknown"
    assert "No source returned data" in out["assessment"]["reasoning"]
    assert out["assessment"]["confidence"] <= 0.2


def test_assessment_is_upserted_by_run_id(run_credit, harness):
    run, out, _ = run_credit("Blue Harbor Logistics")
    harness.flush()
    record = harness.store.assessment(run.run_id)
    assert record["assessment"]["credit_score"] == out["assessment"]["credit_score"]
    assert record["company_type"] == "private"


def test_graph_runs_without_the_harness():
    out = build_graph().invoke({"company_name": "Acme Corp"})
    assert out["saved"] is False if "saved" in out else True
    assert out["node_results"]["save_to_database"].startswith("skipped")
    assert out["evaluation"]["overall_score"] > 0.9


def test_async_invocation_records_the_same_sheets(harness, graph):
    async def go():
        async with harness.run(subject="Acme Corp", profile="credit", agent_names=AGENT_NAMES) as r:
            await graph.ainvoke({"company_name": "Acme Corp"}, config=r.config)
        return r

    run = asyncio.run(go())
    assert harness.sheets(run_ids=[run.run_id])["log_tests"].iloc[0]["verification_status"] == "pass"


def test_judge_can_be_disabled(run_credit):
    _, _, sheets = run_credit("Acme Corp", judge=False)
    assert len(sheets["llm_judge_results"]) == 0
    assert "llm_judge" not in set(sheets["llm_calls"]["call_type"])


def test_failed_source_is_a_failed_call_and_never_data(run_credit):
    with serve_data() as server:
        server.fail["/finnhub/stock/metric"] = 500
        sources = LiveSources(keys={"finnhub": "k1", "court_listener": "k2", "web_search": "k3"}, urls=server.urls)
        run, out, sheets = run_credit("Acme Corp", sources=sources)
    assert run.status == "completed"
    calls = sheets["tool_calls"].set_index("tool_name")
    assert calls.loc["finnhub", "status"] == "fail" and "HTTP 500" in calls.loc["finnhub", "error"]
    ds = sheets["data_sources"].set_index("source_name")
    assert ds.loc["finnhub", "status"] == "fail" and ds.loc["finnhub", "records_found"] == 0
    assert "finnhub" in sheets["evaluations"].iloc[0]["data_reasoning"]
    assert "finnhub" in out["assessment"]["data_gaps"]
    assert set(calls.index) == {"sec_edgar", "finnhub", "court_listener", "web_search"}


def test_concurrent_runs_keep_their_rows_apart(harness, graph):
    names = ["Acme Corp", "Blue Harbor Logistics", "Sakura Robotics", "Unheard Of Widgets"]
    runs = {}

    def work(name):
        with harness.run(subject=name, profile="credit", agent_names=AGENT_NAMES) as r:
            graph.invoke({"company_name": name}, config=r.config)
        runs[name] = r.run_id

    threads = [threading.Thread(target=work, args=(n,)) for n in names]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    sheets = harness.sheets(run_ids=list(runs.values()))
    for name, run_id in runs.items():
        mine = sheets["data_sources"][sheets["data_sources"]["run_id"] == run_id]
        assert set(mine["company_name"]) == {name}
        assert len(sheets["assessments"][sheets["assessments"]["run_id"] == run_id]) == 1
    private = sheets["tool_calls"][sheets["tool_calls"]["run_id"] == runs["Blue Harbor Logistics"]]
    assert sorted(private["tool_name"]) == ["court_listener", "web_search"]


def test_a_run_whose_tools_found_nothing_is_not_a_good_assessment(run_credit):
    run, out, sheets = run_credit("Totally Unknown Widgets LLC")
    evaluation = sheets["evaluations"].iloc[0]
    assert evaluation["data_quality_score"] == 0.0 and evaluation["eval_status"] != "good"
    assert "no evidence found" in evaluation["data_reasoning"]
    assert out["assessment"]["confidence"] <= 0.2
    assert sheets["runs"].iloc[0]["note"] == "no evidence found: web_search returned no records"
    judge = sheets["llm_judge_results"].iloc[0]
    assert judge["data_utilization_score"] == 0.0 and judge["accuracy_score"] <= 0.2 and judge["eval_status"] != "good"


class Overconfident(OfflineAnalyst):
    """An analyst that claims 0.9 confidence whatever the data says."""

    def _answer(self, prompt, tool, rng):
        answer = super()._answer(prompt, tool, rng)
        return {**answer, "confidence": 0.9} if "credit_score" in answer else answer


def test_confidence_without_evidence_is_capped_whatever_the_model_claims(run_credit):
    _, out, _ = run_credit("Totally Unknown Widgets LLC", model=Overconfident())
    assert out["assessment"]["confidence"] == NO_EVIDENCE_CONFIDENCE
    _, out, _ = run_credit("Acme Corp", model=Overconfident())
    assert out["assessment"]["confidence"] == 0.9  # with evidence the model's confidence stands


def test_a_live_source_skipped_for_a_missing_key_is_named_in_the_note(run_credit, monkeypatch):
    monkeypatch.delenv("TAVILY_API_KEY", raising=False)
    with serve_data() as server:
        sources = LiveSources(keys={"finnhub": "k1", "court_listener": "k2"}, urls=server.urls)
        _, out, sheets = run_credit("Acme Corp", sources=sources)
        assert out["note"] == "web_search skipped: TAVILY_API_KEY is not set"
        _, out, sheets = run_credit("Totally Unknown Widgets LLC", sources=sources)
    assert sheets["runs"].iloc[0]["note"] == "no evidence found: web_search skipped: TAVILY_API_KEY is not set"
    assert sheets["evaluations"].iloc[0]["data_quality_score"] == 0.0
