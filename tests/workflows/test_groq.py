from __future__ import annotations

import pytest

from tests.support.groq_server import serve_groq
from workflows import ProviderError, RetryingChatGroq, ToolSelection, make_model, resolve_provider


@pytest.fixture
def groq():
    with serve_groq() as server:
        yield server


def model(server, **kw):
    return make_model("groq", api_key="gsk_test_secret_key", base_url=server.url, retry_wait=0.01, **kw)


def test_structured_output_goes_through_the_chat_completions_api(groq):
    answer = model(groq).with_structured_output(ToolSelection).invoke(
        'Plan.\n\nDATA:\n{"task": "tool_selection", "company": {"is_public": true, "country": "DE"}}')
    assert [t.name for t in answer.tools] == ["finnhub", "web_search"]
    request = groq.requests[-1]
    assert request["body"]["model"] == "llama-3.3-70b-versatile"
    assert request["body"]["tool_choice"]["function"]["name"] == "ToolSelection"
    assert request["headers"]["Authorization"] == "Bearer gsk_test_secret_key"


def test_429_and_503_are_retried_until_an_answer(groq):
    groq.script = [429, 503]
    message = model(groq).invoke("hello")
    assert message.response_metadata["model_name"] == "llama-3.3-70b-versatile"
    assert [r["status"] for r in groq.requests] == [429, 503, 200]


def test_retries_stop_after_the_attempt_limit(groq):
    groq.script = [429] * 10
    with pytest.raises(Exception) as info:
        RetryingChatGroq(model="llama-3.1-8b-instant", api_key="gsk_x", base_url=groq.url, max_retries=0,
                         retry_attempts=3, retry_wait=0.01).invoke("hi")
    assert getattr(info.value, "status_code", None) == 429
    assert len(groq.requests) == 3


def test_a_400_is_not_retried(groq):
    groq.script = [400]
    with pytest.raises(Exception):
        model(groq).invoke("hi")
    assert len(groq.requests) == 1


def test_missing_key_is_a_clear_provider_error(monkeypatch):
    monkeypatch.delenv("GROQ_API_KEY", raising=False)
    with pytest.raises(ProviderError, match="GROQ_API_KEY is not set"):
        make_model("groq")


def test_provider_comes_from_argument_then_environment_then_offline(monkeypatch):
    monkeypatch.setenv("HARNESS_PROVIDER", "groq")
    assert resolve_provider(None).name == "groq"
    assert resolve_provider("offline").secondary == "offline-analyst-lite"
    monkeypatch.delenv("HARNESS_PROVIDER")
    assert resolve_provider(None).primary == "offline-analyst-1"
    with pytest.raises(ProviderError):
        resolve_provider("openai")


def test_groq_run_is_labelled_and_priced_from_the_response(run_credit, groq):
    run, out, sheets = run_credit("Acme Corp", model=model(groq), judge_model=model(groq, temperature=0.0))
    assert run.status == "completed"
    llm = sheets["llm_calls"]
    assert set(llm["model"]) == {"llama-3.3-70b-versatile"}
    assert (llm["total_cost"] > 0).all()
    assert sheets["llm_judge_results"].iloc[0]["evaluation_cost"] > 0
    assert out["assessment"]["model"] == "llama-3.3-70b-versatile"
    assert "gsk_test_secret_key" not in sheets["llm_calls"].to_json(date_format="iso")


def test_secondary_model_is_really_the_secondary(groq, run_credit):
    _, _, sheets = run_credit("Acme Corp", model=model(groq, model="llama-3.1-8b-instant"), judge=False)
    assert set(sheets["llm_calls"]["model"]) == {"llama-3.1-8b-instant"}
    assert {r["body"]["model"] for r in groq.requests} == {"llama-3.1-8b-instant"}
