"""Recorded responses of four providers as their LangChain integrations hand them over, and a
chat model that answers with them (no network).

Each response is the provider's own usage object (what its API returned) and what the
integration built from it: ``usage_metadata`` (langchain-openai's, -anthropic's, -groq's and
-google-genai's ``_create_usage_metadata``), ``response_metadata`` and ``llm_output`` (which
langchain-core merges into ``response_metadata`` when there is one generation). Counts are
those of real calls of these shapes: a cache hit, a cache write of each lifetime, hidden
reasoning. The ``PUBLISHED`` prices are the bundled table's, copied from the providers'
pages, so that the tests' hand computations do not read the table they check.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration, ChatResult


@dataclass(frozen=True)
class Recorded:
    """One call's response as LangChain returns it, and its tokens by kind as billed."""

    name: str
    usage_metadata: dict[str, Any] | None
    response_metadata: dict[str, Any]
    llm_output: dict[str, Any] | None
    #: what the provider bills: input (all of it), output (all of it), and their kinds
    billed: dict[str, int] = field(default_factory=dict)
    text: str = "ok"

    def message(self) -> AIMessage:
        return AIMessage(content=self.text, usage_metadata=copy.deepcopy(self.usage_metadata),
                         response_metadata=copy.deepcopy(self.response_metadata))


# --- OpenAI (langchain-openai, chat completions) ------------------------------------------
_OPENAI_CACHED_RAW = {
    "prompt_tokens": 2006, "completion_tokens": 300, "total_tokens": 2306,
    "prompt_tokens_details": {"cached_tokens": 1920, "audio_tokens": 0},
    "completion_tokens_details": {"reasoning_tokens": 0, "audio_tokens": 0, "accepted_prediction_tokens": 0,
                                  "rejected_prediction_tokens": 0},
}
OPENAI_CACHE_HIT = Recorded(
    "openai gpt-4o-mini, cache hit",
    {"input_tokens": 2006, "output_tokens": 300, "total_tokens": 2306,
     "input_token_details": {"audio": 0, "cache_read": 1920}, "output_token_details": {"audio": 0, "reasoning": 0}},
    {"id": "chatcmpl-AXq1", "finish_reason": "stop", "logprobs": None, "model_provider": "openai"},
    {"token_usage": _OPENAI_CACHED_RAW, "model_name": "gpt-4o-mini-2024-07-18", "system_fingerprint": "fp_0ba0d124f1",
     "service_tier": "default"},
    {"input": 2006, "output": 300, "cache_read": 1920, "reasoning": 0},
)
_OPENAI_REASONING_RAW = {
    "prompt_tokens": 1200, "completion_tokens": 900, "total_tokens": 2100,
    "prompt_tokens_details": {"cached_tokens": 1024, "audio_tokens": 0},
    "completion_tokens_details": {"reasoning_tokens": 768, "audio_tokens": 0, "accepted_prediction_tokens": 0,
                                  "rejected_prediction_tokens": 0},
}
OPENAI_REASONING = Recorded(
    "openai o4-mini, reasoning and a cache hit",
    {"input_tokens": 1200, "output_tokens": 900, "total_tokens": 2100,
     "input_token_details": {"audio": 0, "cache_read": 1024}, "output_token_details": {"audio": 0, "reasoning": 768}},
    {"id": "chatcmpl-AXq2", "finish_reason": "stop", "logprobs": None, "model_provider": "openai"},
    {"token_usage": _OPENAI_REASONING_RAW, "model_name": "o4-mini-2025-04-16", "system_fingerprint": None,
     "service_tier": "default"},
    {"input": 1200, "output": 900, "cache_read": 1024, "reasoning": 768},
)

# --- Anthropic (langchain-anthropic) -------------------------------------------------------
# Anthropic's input_tokens leaves the cache out; the integration adds cache reads and writes.
_ANTHROPIC_WRITE_RAW = {
    "input_tokens": 12, "output_tokens": 480, "cache_creation_input_tokens": 3000, "cache_read_input_tokens": 0,
    "cache_creation": {"ephemeral_5m_input_tokens": 2000, "ephemeral_1h_input_tokens": 1000},
    "server_tool_use": None, "service_tier": "standard",
}
ANTHROPIC_CACHE_WRITE = Recorded(
    "anthropic claude-sonnet-4-5, cache writes of both lifetimes",
    # the current release: the lifetimes given, the undivided total zeroed so it is not counted twice
    {"input_tokens": 3012, "output_tokens": 480, "total_tokens": 3492,
     "input_token_details": {"cache_read": 0, "cache_creation": 0, "ephemeral_5m_input_tokens": 2000,
                             "ephemeral_1h_input_tokens": 1000}},
    {"id": "msg_01XFDUDYJgAACzvnptvVoYEL", "model": "claude-sonnet-4-5-20250929", "stop_reason": "end_turn",
     "stop_sequence": None, "usage": _ANTHROPIC_WRITE_RAW, "model_name": "claude-sonnet-4-5-20250929",
     "model_provider": "anthropic"},
    None,
    {"input": 3012, "output": 480, "cache_write_5m": 2000, "cache_write_1h": 1000, "cache_read": 0},
)
_ANTHROPIC_READ_RAW = {
    "input_tokens": 20, "output_tokens": 350, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 3000,
    "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 0},
    "server_tool_use": None, "service_tier": "standard",
}
ANTHROPIC_CACHE_HIT = Recorded(
    "anthropic claude-sonnet-4-5, cache hit",
    {"input_tokens": 3020, "output_tokens": 350, "total_tokens": 3370,
     "input_token_details": {"cache_read": 3000, "cache_creation": 0, "ephemeral_5m_input_tokens": 0,
                             "ephemeral_1h_input_tokens": 0}},
    {"id": "msg_01Q8Faay6S7QPTvEUUQARt7h", "model": "claude-sonnet-4-5-20250929", "stop_reason": "end_turn",
     "stop_sequence": None, "usage": _ANTHROPIC_READ_RAW, "model_name": "claude-sonnet-4-5-20250929",
     "model_provider": "anthropic"},
    None,
    {"input": 3020, "output": 350, "cache_read": 3000, "cache_write_5m": 0, "cache_write_1h": 0},
)
#: An earlier langchain-anthropic: the undivided total beside its lifetimes.
ANTHROPIC_CACHE_WRITE_EARLIER = Recorded(
    "anthropic, an earlier langchain-anthropic",
    {"input_tokens": 3012, "output_tokens": 480, "total_tokens": 3492,
     "input_token_details": {"cache_read": 0, "cache_creation": 3000, "ephemeral_5m_input_tokens": 2000,
                             "ephemeral_1h_input_tokens": 1000}},
    ANTHROPIC_CACHE_WRITE.response_metadata, None, ANTHROPIC_CACHE_WRITE.billed,
)
#: A write without its lifetimes (before Anthropic reported them): the default, 5 minutes.
ANTHROPIC_CACHE_WRITE_UNSPLIT = Recorded(
    "anthropic, a cache write without lifetimes",
    {"input_tokens": 3012, "output_tokens": 480, "total_tokens": 3492,
     "input_token_details": {"cache_read": 0, "cache_creation": 3000}},
    {"model": "claude-3-5-haiku-20241022", "usage": {"input_tokens": 12, "output_tokens": 480,
                                                     "cache_creation_input_tokens": 3000,
                                                     "cache_read_input_tokens": 0}},
    None,
    {"input": 3012, "output": 480, "cache_read": 0, "cache_write_5m": 3000, "cache_write_1h": 0},
)

# --- Google Gemini (langchain-google-genai) ------------------------------------------------
GEMINI_THINKING = Recorded(
    "gemini-2.5-flash, implicit cache hit and thinking",
    # prompt_token_count 5000 (cached_content_token_count 4096 of it), candidates 500, thoughts 800
    {"input_tokens": 5000, "output_tokens": 1300, "total_tokens": 6300,
     "input_token_details": {"cache_read": 4096}, "output_token_details": {"reasoning": 800}},
    {"prompt_feedback": {"block_reason": 0, "safety_ratings": []}, "finish_reason": "STOP",
     "model_name": "gemini-2.5-flash", "safety_ratings": [], "model_provider": "google_genai"},
    None,
    {"input": 5000, "output": 1300, "cache_read": 4096, "reasoning": 800},
)
#: langchain-google-genai 2.1 (April 2025): output_tokens without the thoughts, total with them.
GEMINI_THINKING_EARLIER = Recorded(
    "gemini-2.5-flash, langchain-google-genai 2.1",
    {"input_tokens": 5000, "output_tokens": 500, "total_tokens": 6300,
     "input_token_details": {"cache_read": 4096}, "output_token_details": {"reasoning": 800}},
    GEMINI_THINKING.response_metadata, None, GEMINI_THINKING.billed,
)

# --- Groq (langchain-groq) -------------------------------------------------------------------
_GROQ_RAW = {
    "queue_time": 0.051, "prompt_tokens": 2500, "prompt_time": 0.012, "completion_tokens": 700,
    "completion_time": 0.52, "total_tokens": 3200, "total_time": 0.532,
    "prompt_tokens_details": {"cached_tokens": 2048}, "completion_tokens_details": {"reasoning_tokens": 450},
}
GROQ_CACHED_REASONING = Recorded(
    "groq openai/gpt-oss-120b, cache hit and reasoning",
    {"input_tokens": 2500, "output_tokens": 700, "total_tokens": 3200,
     "input_token_details": {"cache_read": 2048}, "output_token_details": {"reasoning": 450}},
    {"finish_reason": "stop", "logprobs": None, "model_provider": "groq"},
    {"token_usage": _GROQ_RAW, "model_name": "openai/gpt-oss-120b", "system_fingerprint": "fp_e10890e4b9",
     "service_tier": "on_demand", "reasoning_effort": "medium"},
    {"input": 2500, "output": 700, "cache_read": 2048, "reasoning": 450},
)
#: langchain-groq before it read the details: they are only in the provider's token_usage.
GROQ_CACHED_REASONING_EARLIER = Recorded(
    "groq, langchain-groq 0.3",
    {"input_tokens": 2500, "output_tokens": 700, "total_tokens": 3200},
    GROQ_CACHED_REASONING.response_metadata, GROQ_CACHED_REASONING.llm_output, GROQ_CACHED_REASONING.billed,
)

#: Published USD per million tokens of the models above (the providers' pricing pages, as
#: the bundled table dated them): input, cached input, 5-minute write, 1-hour write, output.
PUBLISHED = {
    "gpt-4o-mini": {"input": "0.15", "cache_read": "0.075", "output": "0.60"},
    "o4-mini": {"input": "1.10", "cache_read": "0.275", "output": "4.40"},
    "claude-sonnet-4-5": {"input": "3", "cache_read": "0.30", "cache_write_5m": "3.75", "cache_write_1h": "6",
                          "output": "15"},
    "claude-3-5-haiku": {"input": "0.80", "cache_read": "0.08", "cache_write_5m": "1", "cache_write_1h": "1.60",
                         "output": "4"},
    "gemini-2.5-flash": {"input": "0.30", "cache_read": "0.03", "output": "2.50"},
    "gpt-oss-120b": {"input": "0.15", "cache_read": "0.075", "output": "0.75"},
}


def hand_cost(model: str, billed: dict[str, int]) -> tuple[Fraction, Fraction]:
    """(input cost, output cost) in exact USD: each kind of token at its published price,
    reasoning at the output price, the rest of input and output at theirs."""
    price = {k: Fraction(v) for k, v in PUBLISHED[model].items()}
    kinds = ("cache_read", "cache_write_5m", "cache_write_1h")
    plain_in = billed["input"] - sum(billed.get(k, 0) for k in kinds)
    spent_in = plain_in * price["input"] + sum(billed[k] * price[k] for k in kinds if billed.get(k))
    spent_out = billed["output"] * price["output"]  # reasoning bills as output
    return spent_in / 1_000_000, spent_out / 1_000_000


class RecordedModel(BaseChatModel):
    """Answers each call with the next recorded response, as its integration would."""

    responses: list[Recorded]
    calls: int = 0

    @property
    def _llm_type(self) -> str:
        return "recorded-provider"

    def _generate(self, messages, stop=None, run_manager=None, **kwargs: Any) -> ChatResult:
        recorded = self.responses[self.calls % len(self.responses)]
        self.calls += 1
        return ChatResult(generations=[ChatGeneration(message=recorded.message())],
                          llm_output=copy.deepcopy(recorded.llm_output))
