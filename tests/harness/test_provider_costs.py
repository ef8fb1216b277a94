"""Costs that match the bill: a graph whose models answer with four providers' recorded
responses (cache hits, cache writes of both lifetimes, hidden reasoning) is priced call by
call and run by run exactly as the providers bill, to the nanodollar, and the audit agrees."""

from __future__ import annotations

import operator
from fractions import Fraction
from typing import Annotated, TypedDict

import pandas as pd
import pytest
from langgraph.graph import END, START, StateGraph
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from harness import Harness
from harness.audit import audit_frames

from .provider_usage import (
    ANTHROPIC_CACHE_HIT,
    ANTHROPIC_CACHE_WRITE,
    GEMINI_THINKING,
    GEMINI_THINKING_EARLIER,
    GROQ_CACHED_REASONING,
    GROQ_CACHED_REASONING_EARLIER,
    OPENAI_CACHE_HIT,
    OPENAI_REASONING,
    Recorded,
    RecordedModel,
    hand_cost,
)

NANODOLLAR = 1e-9

#: node -> (its model's recorded responses, in call order; the model each is priced as)
CALLS = {
    "openai": ([OPENAI_CACHE_HIT, OPENAI_REASONING], ["gpt-4o-mini", "o4-mini"]),
    "anthropic": ([ANTHROPIC_CACHE_WRITE, ANTHROPIC_CACHE_HIT], ["claude-sonnet-4-5", "claude-sonnet-4-5"]),
    "gemini": ([GEMINI_THINKING, GEMINI_THINKING_EARLIER], ["gemini-2.5-flash", "gemini-2.5-flash"]),
    "groq": ([GROQ_CACHED_REASONING, GROQ_CACHED_REASONING_EARLIER], ["gpt-oss-120b", "gpt-oss-120b"]),
}


class State(TypedDict, total=False):
    log: Annotated[list, operator.add]


def _node(name: str):
    model = RecordedModel(responses=CALLS[name][0])

    def call(state: State) -> dict:
        for _ in CALLS[name][0]:
            model.invoke(f"{name}: answer from the long, cached system prompt")
        return {"log": [name]}

    return call


def provider_graph():
    """Four nodes, one per provider, each calling its model twice; openai and anthropic run
    in parallel."""
    builder = StateGraph(State)
    for name in CALLS:
        builder.add_node(name, _node(name))
    builder.add_edge(START, "openai")
    builder.add_edge(START, "anthropic")
    builder.add_edge("openai", "gemini")
    builder.add_edge("anthropic", "gemini")
    builder.add_edge("gemini", "groq")
    builder.add_edge("groq", END)
    return builder.compile()


@pytest.fixture
def exporter():
    return InMemorySpanExporter()


@pytest.fixture
def traced(tmp_path, exporter):
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    harness = Harness(store=tmp_path / "runs.db", tracer_provider=provider)
    with harness.run(subject="bill", workflow="providers") as run:
        provider_graph().invoke({"log": []}, run.config)
    frames = harness.sheets([run.run_id])
    yield harness, frames, exporter.get_finished_spans()
    harness.close()


def _expected():
    """Each call's (node, recorded response, model, exact input cost, exact output cost)."""
    for node, (responses, models) in CALLS.items():
        for recorded, model in zip(responses, models):
            yield (node, recorded, model, *hand_cost(model, recorded.billed))


def test_every_call_costs_what_its_provider_bills_for_its_cached_written_and_reasoning_tokens(traced):
    _, frames, _ = traced
    calls = frames["llm_calls"]
    assert len(calls) == 8
    seen: dict[str, int] = {}
    for node, recorded, model, spent_in, spent_out in _expected():
        row = calls[calls.node == node].sort_values("timestamp").iloc[seen.setdefault(node, 0)]
        seen[node] += 1
        billed = recorded.billed
        assert (row.prompt_tokens, row.completion_tokens) == (billed["input"], billed["output"]), recorded.name
        for column, kind in (("cache_read_tokens", "cache_read"), ("cache_write_5m_tokens", "cache_write_5m"),
                             ("cache_write_1h_tokens", "cache_write_1h"), ("reasoning_tokens", "reasoning")):
            found = row[column]
            assert (None if pd.isna(found) else int(found)) == billed.get(kind), (recorded.name, column)
        assert abs(row.input_cost - float(spent_in)) <= NANODOLLAR, recorded.name
        assert abs(row.output_cost - float(spent_out)) <= NANODOLLAR, recorded.name
        assert abs(row.total_cost - float(spent_in + spent_out)) <= NANODOLLAR, recorded.name
        assert row.price_table == "2025-11-24" and pd.isna(row.cost_note), recorded.name


def test_the_run_costs_the_sum_of_its_calls_and_sums_its_cached_and_reasoning_tokens(traced):
    _, frames, _ = traced
    run = frames["runs"].iloc[0]
    expected = sum((spent_in + spent_out for *_, spent_in, spent_out in _expected()), Fraction(0))
    assert abs(run.total_cost - float(expected)) <= NANODOLLAR
    billed = [recorded.billed for _, recorded, *_ in _expected()]
    assert run.cache_read_tokens == sum(b.get("cache_read", 0) for b in billed) == 1920 + 1024 + 3000 + 2 * 4096 + 2 * 2048
    assert run.cache_write_tokens == 3000
    assert run.reasoning_tokens == 768 + 2 * 800 + 2 * 450
    assert run.total_tokens == sum(b["input"] + b["output"] for b in billed)


def test_a_cached_token_is_billed_once_not_again_as_input(traced):
    """The naive bill (every input token at the input price, as peers compute it) is what
    the cached tokens' discount saves: the stored cost is below it by exactly that."""
    _, frames, _ = traced
    calls = frames["llm_calls"]
    anthropic_hit = calls[(calls.node == "anthropic") & (calls.cache_read_tokens == 3000)].iloc[0]
    naive = 3020 * 3 / 1e6
    assert abs(naive - anthropic_hit.input_cost - 3000 * (3 - 0.30) / 1e6) <= NANODOLLAR
    write = calls[(calls.node == "anthropic") & (calls.cache_write_1h_tokens == 1000)].iloc[0]
    assert abs(write.input_cost - (12 * 3 + 2000 * 3.75 + 1000 * 6) / 1e6) <= NANODOLLAR


def test_spans_carry_the_token_kinds_under_the_genai_conventions_names(traced):
    _, _, spans = traced
    llm = {s.attributes["llm.token_count.prompt"]: s.attributes for s in spans
           if s.attributes.get("openinference.span.kind") == "LLM"}
    write = llm[3012]
    assert write["gen_ai.usage.input_tokens"] == 3012
    assert write["gen_ai.usage.cache_creation.input_tokens"] == 3000
    assert (write["harness.usage.cache_write_5m.input_tokens"], write["harness.usage.cache_write_1h.input_tokens"]) \
        == (2000, 1000)
    assert write["gen_ai.usage.cache_read.input_tokens"] == 0
    assert "gen_ai.usage.reasoning.output_tokens" not in write  # Anthropic does not report it apart
    o4 = llm[1200]
    assert (o4["gen_ai.usage.cache_read.input_tokens"], o4["gen_ai.usage.reasoning.output_tokens"]) == (1024, 768)
    assert (o4["llm.token_count.prompt_details.cache_read"], o4["llm.token_count.completion_details.reasoning"]) \
        == (1024, 768)
    gemini = [a for a in llm.values() if a.get("gen_ai.response.model") == "gemini-2.5-flash"]
    assert gemini[0]["gen_ai.usage.output_tokens"] == 1300 and gemini[0]["gen_ai.usage.reasoning.output_tokens"] == 800


def test_the_audit_recomputes_every_cost_and_sum_from_the_sheets(traced):
    _, frames, _ = traced
    assert audit_frames(frames).findings == ()
    edited = {name: frame.copy() for name, frame in frames.items()}
    calls = edited["llm_calls"]
    row = calls.index[calls.cache_read_tokens == 3000][0]
    calls.loc[row, "cache_read_tokens"] = 0  # the hit re-read as plain input: its cost no longer adds up
    findings = audit_frames(edited).findings
    assert {(f.sheet, f.column) for f in findings} == {("llm_calls", "input_cost"), ("llm_calls", "total_cost"),
                                                      ("runs", "cache_read_tokens"), ("runs", "total_cost")}
    (cost,) = [f for f in findings if f.column == "input_cost"]
    assert cost.expected == pytest.approx(3020 * 3 / 1e6) and "price table 2025-11-24" in cost.rule


def test_a_part_without_its_own_price_is_priced_at_the_input_price_and_the_call_says_so(tmp_path):
    from harness.costs import PRICES, register_price

    register_price("house-cached-1", 2.0, 8.0)  # no cached_input_per_million
    try:
        harness = Harness(store=tmp_path / "runs.db", writer="process")
        recorded = OPENAI_CACHE_HIT.message()
        recorded.response_metadata["model_name"] = "house-cached-1"
        model = RecordedModel(responses=[Recorded("house", OPENAI_CACHE_HIT.usage_metadata,
                                                  recorded.response_metadata, None)])
        with harness.run(subject="house") as run:
            model.invoke("hi", run.config)
        (row,) = harness.sheets([run.run_id])["llm_calls"].itertuples()
        harness.close()
    finally:
        PRICES.pop("house-cached-1", None)
    assert row.cache_read_tokens == 1920 and row.input_cost == pytest.approx(2006 * 2.0 / 1e6, abs=1e-12)
    assert row.cost_note == "cache reads at the input price (no cached_input_per_million for house-cached-1)"
    assert row.price_table == "user"


def test_langchain_groq_against_a_server_speaking_groqs_api_is_priced_with_its_cache_and_reasoning(tmp_path):
    """The real integration end to end: Groq's usage with ``prompt_tokens_details`` and
    ``completion_tokens_details``, read by langchain-groq, priced at gpt-oss-120b's parts."""
    from langchain_groq import ChatGroq

    from tests.support.groq_server import serve_groq

    harness = Harness(store=tmp_path / "runs.db", writer="thread")
    with serve_groq() as groq:
        groq.usage_details = lambda prompt, completion: {
            "prompt_tokens_details": {"cached_tokens": prompt // 2},
            "completion_tokens_details": {"reasoning_tokens": completion // 3}}
        model = ChatGroq(model="openai/gpt-oss-120b", api_key="gsk_test_secret_key", base_url=groq.url,
                         max_retries=0)
        with harness.run(subject="groq") as run:
            model.invoke("What is the credit risk of Acme Corp?", run.config)
    (row,) = harness.sheets([run.run_id])["llm_calls"].itertuples()
    harness.close()
    prompt, completion = int(row.prompt_tokens), int(row.completion_tokens)
    assert (row.cache_read_tokens, row.reasoning_tokens) == (prompt // 2, completion // 3) and prompt > 1
    expected = (Fraction(prompt - prompt // 2) * Fraction("0.15") + Fraction(prompt // 2) * Fraction("0.075")
                + Fraction(completion) * Fraction("0.75")) / 10**6
    assert abs(row.total_cost - float(expected)) <= NANODOLLAR and row.model == "openai/gpt-oss-120b"
