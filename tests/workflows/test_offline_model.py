from __future__ import annotations

import pytest
from langchain_core.messages import HumanMessage, SystemMessage

from workflows import CompanyInfo, CreditAssessment, OfflineAnalyst, ToolSelection
from workflows._prompts import COMPANY_PARSER, CREDIT_SYNTHESIS, TOOL_SELECTION
from workflows._sources import SnapshotSources


def synthesis_messages(name: str = "Acme Corp"):
    snap = SnapshotSources()
    company = snap.record({"company_name": name})
    sources = {t: {"status": "ok", "records_found": 5, "data": company[t]} for t in
               ("sec_edgar", "finnhub", "court_listener", "web_search") if company[t]}
    data = {"task": "credit_synthesis", "company": {"company_name": name}, "planned_tools": list(sources), "sources": sources}
    return CREDIT_SYNTHESIS.messages(data, company=name)


def test_structured_output_returns_the_requested_schema():
    model = OfflineAnalyst()
    data = {"task": "company_parser", "input": "Acme Corp", "hints": {},
            "directory_matches": SnapshotSources().lookup("Acme Corp")}
    info = model.with_structured_output(CompanyInfo).invoke(COMPANY_PARSER.messages(data, company="Acme Corp"))
    assert isinstance(info, CompanyInfo)
    assert (info.ticker, info.country, info.is_public) == ("ACME", "US", True)


def test_answer_is_a_tool_call_with_usage_and_model_name():
    message = OfflineAnalyst().bind_tools([ToolSelection], tool_choice="ToolSelection").invoke(
        TOOL_SELECTION.messages({"task": "tool_selection", "company": {"is_public": False}}, company="X"))
    assert message.tool_calls[0]["name"] == "ToolSelection"
    assert [t["name"] for t in message.tool_calls[0]["args"]["tools"]] == ["court_listener", "web_search"]
    assert message.usage_metadata["input_tokens"] > 0 and message.usage_metadata["output_tokens"] > 0
    assert message.usage_metadata["total_tokens"] == message.usage_metadata["input_tokens"] + message.usage_metadata["output_tokens"]
    assert message.response_metadata["model_name"] == "offline-analyst-1"


def test_plain_invoke_answers_json_text():
    message = OfflineAnalyst().invoke(synthesis_messages())
    assert '"risk_level": "LOW"' in message.content


def test_temperature_zero_is_deterministic_across_instances_and_calls():
    answers = [OfflineAnalyst().with_structured_output(CreditAssessment).invoke(synthesis_messages()) for _ in range(2)]
    model = OfflineAnalyst()
    answers += [model.with_structured_output(CreditAssessment).invoke(synthesis_messages()) for _ in range(2)]
    assert len({a.credit_score for a in answers}) == 1


def test_temperature_adds_variation_from_the_per_instance_counter():
    model = OfflineAnalyst(temperature=0.7)
    scores = [model.with_structured_output(CreditAssessment).invoke(synthesis_messages()).credit_score for _ in range(6)]
    assert len(set(scores)) > 1


def test_seeded_variation_is_reproducible_by_a_new_instance():
    def scores(seed):
        model = OfflineAnalyst(temperature=0.7, seed=seed)
        return [model.with_structured_output(CreditAssessment).invoke(synthesis_messages()).credit_score for _ in range(3)]

    assert scores(3) == scores(3)
    assert scores(3) != scores(4)


def test_lite_model_reads_fewer_signals():
    full = OfflineAnalyst().with_structured_output(CreditAssessment).invoke(synthesis_messages("Sakura Robotics"))
    lite = OfflineAnalyst(model_name="offline-analyst-lite").with_structured_output(CreditAssessment).invoke(
        synthesis_messages("Sakura Robotics"))
    assert lite.credit_score < full.credit_score
    assert "web sentiment" not in lite.reasoning


def test_unknown_model_name_and_bad_temperature_are_rejected():
    with pytest.raises(ValueError, match="unknown offline model"):
        OfflineAnalyst(model_name="gpt-4")
    with pytest.raises(ValueError, match="temperature"):
        OfflineAnalyst(temperature=5)


def test_unrelated_prompt_gets_an_explicit_refusal_not_an_invention():
    message = OfflineAnalyst().invoke([SystemMessage("hi"), HumanMessage("write a poem")])
    assert "answers the credit workflow's prompts only" in message.content
