"""A call's tokens by kind, read from each provider's response as its LangChain integration
hands it over, each token counted once: whether ``input_tokens`` includes the cached part is
stated per provider and checked against the provider's own usage object."""

from __future__ import annotations

import pytest
from langchain_core.messages import AIMessage

from harness.costs import cost_of, price_for
from harness.tracing.usage import read_usage

from . import provider_usage as recorded
from .provider_usage import RecordedModel, hand_cost


def usage_of(response):
    """The counts as the harness reads them from the message LangChain returns."""
    return read_usage(RecordedModel(responses=[response]).invoke("hi"), None)


def kinds(u):
    return {"input": u.prompt_tokens, "output": u.completion_tokens, "cache_read": u.cache_read,
            "cache_write_5m": u.cache_write_5m, "cache_write_1h": u.cache_write_1h, "reasoning": u.reasoning}


@pytest.mark.parametrize("response", [
    recorded.OPENAI_CACHE_HIT, recorded.OPENAI_REASONING, recorded.ANTHROPIC_CACHE_WRITE,
    recorded.ANTHROPIC_CACHE_HIT, recorded.ANTHROPIC_CACHE_WRITE_EARLIER, recorded.ANTHROPIC_CACHE_WRITE_UNSPLIT,
    recorded.GEMINI_THINKING, recorded.GEMINI_THINKING_EARLIER, recorded.GROQ_CACHED_REASONING,
    recorded.GROQ_CACHED_REASONING_EARLIER,
], ids=lambda r: r.name)
def test_each_providers_response_gives_its_billed_tokens_by_kind(response):
    u = usage_of(response)
    found = {k: v for k, v in kinds(u).items() if k in response.billed}
    assert found == response.billed
    assert u.source == "provider"


def test_openai_and_groq_count_cached_tokens_inside_prompt_tokens():
    for response in (recorded.OPENAI_CACHE_HIT, recorded.GROQ_CACHED_REASONING):
        raw = response.llm_output["token_usage"]
        u = usage_of(response)
        assert u.prompt_tokens == raw["prompt_tokens"]  # not prompt_tokens + cached_tokens
        assert u.cache_read == raw["prompt_tokens_details"]["cached_tokens"] < u.prompt_tokens
        assert u.completion_tokens == raw["completion_tokens"]  # reasoning inside, not added
        assert (u.reasoning or 0) == raw["completion_tokens_details"]["reasoning_tokens"] <= u.completion_tokens


def test_anthropic_input_tokens_leaves_the_cache_out_and_langchain_adds_it_back_once():
    raw = recorded.ANTHROPIC_CACHE_WRITE.response_metadata["usage"]
    u = usage_of(recorded.ANTHROPIC_CACHE_WRITE)
    assert u.prompt_tokens == raw["input_tokens"] + raw["cache_read_input_tokens"] + raw["cache_creation_input_tokens"]
    assert u.prompt_tokens - u.cache_read - u.cache_write_5m - u.cache_write_1h == raw["input_tokens"] == 12
    # an earlier langchain-anthropic gave the undivided total beside its lifetimes: still one write of 3000
    earlier = usage_of(recorded.ANTHROPIC_CACHE_WRITE_EARLIER)
    assert (earlier.prompt_tokens, earlier.cache_write_5m, earlier.cache_write_1h) == (3012, 2000, 1000)


def test_an_anthropic_count_copied_without_the_cache_gets_it_added_and_says_so():
    """An integration that copied Anthropic's own input_tokens (12) and no details: the cache
    counts come from the provider's usage object and are added to the input, once."""
    response = recorded.Recorded("copied", {"input_tokens": 20, "output_tokens": 350, "total_tokens": 370},
                                 recorded.ANTHROPIC_CACHE_HIT.response_metadata, None)
    u = usage_of(response)
    assert (u.prompt_tokens, u.cache_read, u.cache_write_5m) == (3020, 3000, 0)
    assert "without the cached tokens: added" in u.note


def test_gemini_counts_thinking_as_output_even_where_an_older_integration_left_it_out():
    current, earlier = usage_of(recorded.GEMINI_THINKING), usage_of(recorded.GEMINI_THINKING_EARLIER)
    assert (current.completion_tokens, current.reasoning, current.note) == (1300, 800, None)
    assert (earlier.completion_tokens, earlier.reasoning) == (1300, 800)
    assert "left out the 800 reasoning tokens" in earlier.note
    assert current.prompt_tokens == 5000 and current.cache_read == 4096  # cached content is inside the prompt count


def test_details_larger_than_their_count_are_taken_as_outside_it_and_noted():
    message = AIMessage(content="x", usage_metadata={"input_tokens": 100, "output_tokens": 10, "total_tokens": 110,
                                                     "input_token_details": {"cache_read": 900}},
                        response_metadata={"model_name": "gpt-4o"})
    u = read_usage(message, None)
    assert (u.prompt_tokens, u.cache_read) == (1000, 900) and "exceed input_tokens" in u.note


def test_a_flex_tier_call_reads_its_prefixed_details_and_notes_the_standard_prices():
    """langchain-openai names a service tier's details ``flex_cache_read``, ``flex_reasoning``."""
    message = AIMessage(content="x", usage_metadata={
        "input_tokens": 1000, "output_tokens": 500, "total_tokens": 1500,
        "input_token_details": {"audio": 0, "flex_cache_read": 600, "flex": 400},
        "output_token_details": {"audio": 0, "flex_reasoning": 300, "flex": 200}},
        response_metadata={"model_name": "o3", "service_tier": "flex"})
    u = read_usage(message, None)
    assert (u.cache_read, u.reasoning) == (600, 300)
    assert "flex service tier" in u.note


def test_without_usage_metadata_the_providers_own_usage_is_read_in_its_own_terms():
    openai = AIMessage(content="x", response_metadata={"token_usage": recorded.OPENAI_REASONING.llm_output["token_usage"]})
    assert kinds(read_usage(openai, None)) == {"input": 1200, "output": 900, "cache_read": 1024, "cache_write_5m": None,
                                               "cache_write_1h": None, "reasoning": 768}
    anthropic = AIMessage(content="x", response_metadata=recorded.ANTHROPIC_CACHE_WRITE.response_metadata)
    assert kinds(read_usage(anthropic, None)) == {"input": 3012, "output": 480, "cache_read": 0, "cache_write_5m": 2000,
                                                  "cache_write_1h": 1000, "reasoning": None}
    gemini = AIMessage(content="x", response_metadata={"usage_metadata": {
        "prompt_token_count": 5000, "candidates_token_count": 500, "thoughts_token_count": 800,
        "cached_content_token_count": 4096, "total_token_count": 6300}})
    assert kinds(read_usage(gemini, None)) == {"input": 5000, "output": 1300, "cache_read": 4096, "cache_write_5m": None,
                                               "cache_write_1h": None, "reasoning": 800}
    groq_llm_output = {"token_usage": recorded.GROQ_CACHED_REASONING.llm_output["token_usage"]}
    assert kinds(read_usage(AIMessage(content="x"), groq_llm_output))["cache_read"] == 2048
    assert read_usage(AIMessage(content="x"), None) is None


@pytest.mark.parametrize("response,model", [
    (recorded.OPENAI_CACHE_HIT, "gpt-4o-mini"), (recorded.OPENAI_REASONING, "o4-mini"),
    (recorded.ANTHROPIC_CACHE_WRITE, "claude-sonnet-4-5"), (recorded.ANTHROPIC_CACHE_HIT, "claude-sonnet-4-5"),
    (recorded.ANTHROPIC_CACHE_WRITE_UNSPLIT, "claude-3-5-haiku"), (recorded.GEMINI_THINKING, "gemini-2.5-flash"),
    (recorded.GEMINI_THINKING_EARLIER, "gemini-2.5-flash"), (recorded.GROQ_CACHED_REASONING, "gpt-oss-120b"),
    (recorded.GROQ_CACHED_REASONING_EARLIER, "gpt-oss-120b"),
], ids=lambda v: getattr(v, "name", v))
def test_each_recorded_response_costs_the_hand_computed_bill(response, model):
    u = usage_of(response)
    spent = cost_of(price_for(model), u.tokens, model)
    spent_in, spent_out = hand_cost(model, response.billed)
    assert abs(spent.input_cost - float(spent_in)) <= 1e-12 and abs(spent.output_cost - float(spent_out)) <= 1e-12
    assert spent.note is None
