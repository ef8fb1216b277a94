"""The LLM judge: strict JSON, retries on 429/transport errors, one re-ask, failures as values."""

from __future__ import annotations

import json
import time

import groq
import httpx
import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from tenacity import RetryCallState, Retrying

from evaluators import (
    DIMENSIONS,
    LLMJudge,
    RetryAfterWait,
    is_transient,
    judge_row,
    pairwise,
)

ASSESSMENT = {"risk_level": "LOW", "credit_score": 760, "confidence": 0.85, "reasoning": "Strong cash flow.",
              "recommendations": ["Approve a 5M line"]}


def verdict(scores=(8, 7, 9, 6, 5), **extra) -> str:
    body = {d: {"reasoning": f"{d} reasoning", "score": s} for d, s in zip(DIMENSIONS, scores, strict=True)}
    body.update(overall_reasoning="sound", benchmark_alignment="no benchmark", benchmark_comparison="no benchmark",
                suggestions="cite filings")
    body.update(extra)
    return json.dumps(body)


def fast_judge(model, **kw) -> LLMJudge:
    return LLMJudge(model, retry_wait=0, **kw)


def rate_limited(retry_after: str | None = None) -> groq.RateLimitError:
    request = httpx.Request("POST", "http://127.0.0.1/openai/v1/chat/completions")
    headers = {"Retry-After": retry_after} if retry_after is not None else {}
    return groq.RateLimitError("rate limit reached", response=httpx.Response(429, request=request, headers=headers),
                               body=None)


def test_good_json_gives_scores_over_ten_and_their_mean(scripted):
    model = scripted(verdict())
    r = fast_judge(model).judge(ASSESSMENT, company="Acme Corp")
    assert r.status == "ok" and r.error is None
    assert dict(r.scores) == {"accuracy": 0.8, "completeness": 0.7, "consistency": 0.9, "actionability": 0.6,
                              "data_utilization": 0.5}
    assert r.overall == pytest.approx(0.7)
    assert r.reasoning["accuracy"] == "accuracy reasoning"
    assert r.calls == 1


def test_judge_runs_at_temperature_zero(scripted):
    model = scripted(verdict())
    r = fast_judge(model).judge(ASSESSMENT, company="Acme Corp")
    assert model.seen[0][1] == 0.0
    assert r.temperature == 0.0
    assert model.temperature == 0.7  # the caller's model is left as it was


def test_temperature_zero_reaches_a_model_wrapped_by_with_config(scripted):
    model = scripted(verdict())
    r = fast_judge(model.with_config(metadata={"purpose": "judge"})).judge(ASSESSMENT, company="Acme Corp")
    assert r.status == "ok" and model.seen[0][1] == 0.0 and r.temperature == 0.0


def test_model_and_tokens_come_from_the_response(scripted):
    r = fast_judge(scripted(verdict())).judge(ASSESSMENT, company="Acme Corp")
    assert r.model == "llama-3.3-70b-versatile"
    assert (r.input_tokens, r.output_tokens, r.total_tokens) == (100, 20, 120)


def test_prompt_carries_anchors_company_assessment_and_benchmark(scripted):
    model = scripted(verdict())
    fast_judge(model).judge(ASSESSMENT, company="Acme Corp", data_summary={"sec_edgar": {"revenue": 5}},
                            benchmark={"risk_level": "LOW"})
    system, user = model.seen[0][0]
    assert "10: exactly what a careful analyst would conclude" in system.content
    assert "Acme Corp" in user.content and '"credit_score": 760' in user.content
    assert '"revenue": 5' in user.content and '"risk_level": "LOW"' in user.content


def test_bad_json_then_good_is_reasked_once_with_the_error(scripted):
    model = scripted("I think it is quite good, 8/10.", verdict())
    r = fast_judge(model).judge(ASSESSMENT, company="Acme Corp")
    assert r.status == "ok" and r.overall == pytest.approx(0.7)
    assert r.calls == 2
    reask = model.seen[1][0]
    assert reask[-2].content == "I think it is quite good, 8/10."
    assert "could not be parsed" in reask[-1].content
    assert r.total_tokens == 240  # both calls counted


def test_score_outside_zero_ten_is_unparsable(scripted):
    model = scripted(verdict(scores=(80, 7, 9, 6, 5)), verdict())
    r = fast_judge(model).judge(ASSESSMENT, company="Acme Corp")
    assert r.status == "ok" and r.calls == 2
    assert "less than or equal to 10" in model.seen[1][0][-1].content


def test_bad_twice_gives_an_error_row_with_no_scores(scripted):
    r = fast_judge(scripted("not json", '{"accuracy": 5}')).judge(ASSESSMENT, company="Acme Corp")
    assert r.status == "error"
    assert "unparsable after one re-ask" in r.error
    assert all(v is None for v in r.scores.values()) and r.overall is None
    row = judge_row(r)
    assert row["status"] == "error" and row["overall_score"] is None and row["eval_status"] is None
    assert all(row[f"{d}_score"] is None for d in DIMENSIONS)
    assert row["tokens_used"] == 240


def test_429_twice_then_success_is_retried(scripted):
    model = scripted(rate_limited(), rate_limited(), verdict())
    r = fast_judge(model).judge(ASSESSMENT, company="Acme Corp")
    assert r.status == "ok"
    assert len(model.seen) == 3 and r.calls == 1


def test_the_judge_waits_the_retry_after_the_server_sent(scripted):
    # Without a Retry-After the backoff here is 0 s (retry_wait=0): only the header makes it wait.
    model = scripted(rate_limited(retry_after="0.3"), verdict())
    start = time.perf_counter()
    r = LLMJudge(model, retry_wait=0, retry_wait_max=10).judge(ASSESSMENT, company="Acme Corp")
    assert r.status == "ok" and len(model.seen) == 2
    assert time.perf_counter() - start >= 0.3


@pytest.mark.parametrize(("header", "expected"), [("2", 2.0), ("0.5", 0.5), ("120", 30.0), ("-3", 0.0)])
def test_retry_after_is_waited_as_sent_up_to_the_cap(header, expected):
    state = RetryCallState(Retrying(), None, (), {})
    state.set_exception((groq.RateLimitError, rate_limited(retry_after=header), None))
    assert RetryAfterWait(1.0, 30.0)(state) == expected


@pytest.mark.parametrize("header", [None, "Wed, 21 Oct 2026 07:28:00 GMT"])
def test_without_a_usable_retry_after_the_wait_is_jittered_backoff(header):
    state = RetryCallState(Retrying(), None, (), {})
    state.set_exception((groq.RateLimitError, rate_limited(retry_after=header), None))
    waits = {RetryAfterWait(1.0, 30.0)(state) for _ in range(20)}
    assert len(waits) > 1 and all(0 <= w <= 30 for w in waits)


def test_always_failing_transport_gives_error_with_none_scores(scripted):
    request = httpx.Request("POST", "http://127.0.0.1/")
    model = scripted(*[httpx.ConnectError("connection refused", request=request) for _ in range(4)])
    r = fast_judge(model, max_retries=3).judge(ASSESSMENT, company="Acme Corp")
    assert r.status == "error" and "ConnectError" in r.error
    assert len(model.seen) == 4  # first try + 3 retries
    assert r.overall is None and all(v is None for v in r.scores.values())
    assert r.calls == 0 and r.total_tokens is None


def test_non_transient_errors_are_not_retried(scripted):
    model = scripted(ValueError("bad request"), verdict())
    r = fast_judge(model).judge(ASSESSMENT, company="Acme Corp")
    assert r.status == "error" and len(model.seen) == 1


def test_error_text_never_carries_a_key(scripted):
    model = scripted(RuntimeError("POST https://api.example/v1?api_key=gsk_abcdefghijklmnop failed"))
    r = fast_judge(model).judge(ASSESSMENT, company="Acme Corp")
    assert "gsk_abcdefghijklmnop" not in r.error and "[redacted]" in r.error


@pytest.mark.parametrize(
    ("exc", "transient"),
    [
        (rate_limited(), True),
        (httpx.HTTPStatusError("503", request=httpx.Request("GET", "http://127.0.0.1/"),
                               response=httpx.Response(503)), True),
        (httpx.HTTPStatusError("401", request=httpx.Request("GET", "http://127.0.0.1/"),
                               response=httpx.Response(401)), False),
        (httpx.ReadTimeout("slow"), True),
        (ConnectionResetError(), True),
        (ValueError("nope"), False),
    ],
)
def test_is_transient(exc, transient):
    assert is_transient(exc) is transient


def test_generic_fake_chat_model_works_as_judge_and_model_falls_back_to_none():
    model = GenericFakeChatModel(messages=iter([AIMessage(content=f"```json\n{verdict()}\n```")]))
    r = fast_judge(model).judge(ASSESSMENT, company="Acme Corp")
    assert r.status == "ok" and r.model is None and r.temperature is None


def test_judge_row_has_every_judge_column(scripted):
    row = judge_row(fast_judge(scripted(verdict())).judge(ASSESSMENT, company="Acme"), cost_usd=0.0012)
    assert row["overall_score"] == pytest.approx(0.7) and row["eval_status"] == "average"
    assert row["evaluation_cost"] == 0.0012 and row["tokens_used"] == 120
    assert row["model_used"] == "llama-3.3-70b-versatile" and row["temperature"] == 0.0


def test_judge_refuses_a_missing_company(scripted):
    with pytest.raises(ValueError, match="company"):
        fast_judge(scripted()).judge(ASSESSMENT, company=" ")


def pair(better: str) -> str:
    return json.dumps({"reasoning": "because", "better": better})


def test_pairwise_reports_a_winner_when_both_orders_agree(scripted):
    # order (a, b): "1" is a; order (b, a): "2" is a
    model = scripted(pair("1"), pair("2"))
    r = pairwise(model, {"risk_level": "LOW"}, {"risk_level": "HIGH"}, company="Acme", retry_wait=0)
    assert (r.winner, r.flipped, r.verdicts) == ("a", False, ("a", "a"))
    assert "Assessment 1" in model.seen[0][0][1].content
    assert '"LOW"' in model.seen[1][0][1].content.split("Assessment 2")[1]  # a is second in the swapped order


def test_pairwise_position_bias_gives_no_winner_and_flipped(scripted):
    r = pairwise(scripted(pair("1"), pair("1")), {"x": 1}, {"x": 2}, company="Acme", retry_wait=0)
    assert (r.winner, r.flipped, r.verdicts) == (None, True, ("a", "b"))


def test_pairwise_tie_in_both_orders(scripted):
    r = pairwise(scripted(pair("tie"), pair("tie")), {"x": 1}, {"x": 2}, company="Acme", retry_wait=0)
    assert (r.winner, r.flipped) == (None, False)


def test_pairwise_failure_is_an_error_value(scripted):
    r = pairwise(scripted(pair("1"), "??", "still no"), {"x": 1}, {"x": 2}, company="Acme", retry_wait=0)
    assert r.status == "error" and r.winner is None and not r.flipped
