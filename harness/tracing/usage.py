"""A model call's token counts as the provider reported them, each kind once.

LangChain's ``usage_metadata`` is read first: ``input_tokens`` counts every input token and
``output_tokens`` every output token, and ``input_token_details`` (``cache_read``,
``cache_creation``, ``ephemeral_5m_input_tokens``, ``ephemeral_1h_input_tokens``, ``audio``)
and ``output_token_details`` (``reasoning``, ``audio``) say how many of them were of each
kind. Whether the provider's own count included the cached part differs, and the
integrations make it so:

=========================  ==========================================  ==========================================
provider (integration)     input_tokens                                output_tokens
=========================  ==========================================  ==========================================
OpenAI (langchain-openai)  prompt_tokens: includes cached_tokens        completion_tokens: includes reasoning_tokens
Anthropic (-anthropic)     Anthropic's input_tokens (which leaves the   output_tokens: includes thinking (not
                           cache out) + cache_read_input_tokens +       reported apart)
                           cache_creation_input_tokens: includes them
Gemini (-google-genai)     prompt_token_count: includes cached          candidates + thoughts_token_count
                           content                                      (older releases left thoughts out)
Groq (langchain-groq)      prompt_tokens: includes cached_tokens        completion_tokens: includes reasoning_tokens
=========================  ==========================================  ==========================================

A detail LangChain left only in the provider's own usage (``response_metadata`` /
``llm_output``: OpenAI's and Groq's ``prompt_tokens_details.cached_tokens`` and
``completion_tokens_details.reasoning_tokens``, Anthropic's ``cache_read_input_tokens``
and ``cache_creation``) is taken from there. Counts that leave a part out (an integration
whose ``total_tokens`` shows it, or details larger than the count they belong to) get the
part added back, and the call's note says so. Without ``usage_metadata`` the provider's own
usage is read in its own terms; without either, tokens are estimated (about 4 characters a
token) and flagged as such.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..costs import Tokens

#: Service tiers langchain-openai prefixes detail keys with (``flex_cache_read``), billed at
#: their own rates: the cost uses the standard price and the note says so.
_TIERS = ("priority", "flex")


@dataclass(frozen=True, slots=True)
class Usage:
    prompt_tokens: int | None
    completion_tokens: int | None
    source: str  # "provider" | "estimated" | "missing"
    cache_read: int | None = None
    cache_write_5m: int | None = None
    cache_write_1h: int | None = None
    reasoning: int | None = None
    audio_input: int | None = None
    audio_output: int | None = None
    note: str | None = None  # what reading the counts had to add or assume

    @property
    def tokens(self) -> Tokens | None:
        """The counts the cost is computed from; None when the input count is unknown."""
        if self.prompt_tokens is None:
            return None
        return Tokens(self.prompt_tokens, self.completion_tokens or 0, self.cache_read, self.cache_write_5m,
                      self.cache_write_1h, self.reasoning, self.audio_input, self.audio_output)


def _count(value: Any) -> int | None:
    """A token count, or None for anything that is not a whole number >= 0."""
    if type(value) is int:  # the common case, first
        return value if value >= 0 else None
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return value if isinstance(value, int) and value >= 0 else None


_EMPTY: Mapping[str, Any] = {}


def _mapping(value: Any) -> Mapping[str, Any]:
    if type(value) is dict:  # the common case, first
        return value
    if value is None:
        return _EMPTY
    if isinstance(value, Mapping):
        return value
    dump = getattr(value, "model_dump", None)  # a provider SDK's pydantic object
    if callable(dump):
        try:
            dumped = dump()
        except Exception:  # noqa: BLE001
            return {}
        return dumped if isinstance(dumped, Mapping) else {}
    return {}


def _provider_usage(meta: Mapping[str, Any], llm_output: Mapping[str, Any]) -> Mapping[str, Any]:
    """The provider's own usage object: ``token_usage`` (OpenAI, Groq) or ``usage``
    (Anthropic, OpenAI's Responses API) of the message's metadata, else of ``llm_output``."""
    for holder in (meta, llm_output):
        if not holder:
            continue
        for key in ("token_usage", "usage"):
            found = _mapping(holder.get(key))
            if found:
                return found
    return _EMPTY


def _is_anthropic(raw: Mapping[str, Any]) -> bool:
    """Anthropic's usage: ``input_tokens`` beside the cache counts it leaves out."""
    return "input_tokens" in raw and ("cache_read_input_tokens" in raw or "cache_creation_input_tokens" in raw)


def _raw_details(raw: Mapping[str, Any]) -> dict[str, int | None]:
    """The details of a provider's own usage, in :class:`Usage`'s names."""
    if _is_anthropic(raw):
        split = _mapping(raw.get("cache_creation"))
        return {"cache_read": _count(raw.get("cache_read_input_tokens")),
                "cache_creation": _count(raw.get("cache_creation_input_tokens")),
                "cache_write_5m": _count(split.get("ephemeral_5m_input_tokens")),
                "cache_write_1h": _count(split.get("ephemeral_1h_input_tokens"))}
    prompt = _mapping(raw.get("prompt_tokens_details") or raw.get("input_tokens_details"))
    completion = _mapping(raw.get("completion_tokens_details") or raw.get("output_tokens_details"))
    return {"cache_read": _count(prompt.get("cached_tokens")), "audio_input": _count(prompt.get("audio_tokens")),
            "reasoning": _count(completion.get("reasoning_tokens")),
            "audio_output": _count(completion.get("audio_tokens"))}


def _writes(creation: int | None, five: int | None, hour: int | None) -> tuple[int | None, int | None]:
    """Cache writes by lifetime. The total (``cache_creation``) and its split may both be
    given, or either (langchain-anthropic zeroes the total when it gives the split); a part
    of the total the split does not cover has no stated lifetime and is a 5-minute write,
    the default one."""
    if creation is None and five is None and hour is None:
        return None, None
    split = (five or 0) + (hour or 0)
    unstated = max((creation or 0) - split, 0)
    return (five or 0) + unstated, hour or 0


def _detail(details: Mapping[str, Any], key: str, tier: str | None) -> int | None:
    """A detail count; on a service tier, langchain-openai's ``<tier>_<key>`` when the plain key is absent."""
    found = _count(details.get(key))
    return found if found is not None or tier is None else _count(details.get(f"{tier}_{key}"))


def read_usage(message: Any, llm_output: Any) -> Usage | None:
    """The call's counts from its response message (``usage_metadata``, ``response_metadata``)
    and the result's ``llm_output``; None when the provider reported none."""
    meta = _mapping(getattr(message, "response_metadata", None))
    raw = _provider_usage(meta, _mapping(llm_output))
    um = _mapping(getattr(message, "usage_metadata", None))
    notes: list[str] = []
    if um:
        inp, out = _count(um.get("input_tokens")) or 0, _count(um.get("output_tokens")) or 0
        total = _count(um.get("total_tokens"))
        idet, odet = _mapping(um.get("input_token_details")), _mapping(um.get("output_token_details"))
        tier = next((t for t in _TIERS if t in idet or t in odet), None) if idet or odet else None
        read, creation = _detail(idet, "cache_read", tier), _detail(idet, "cache_creation", tier)
        five, hour = _count(idet.get("ephemeral_5m_input_tokens")), _count(idet.get("ephemeral_1h_input_tokens"))
        reasoning, audio_in = _detail(odet, "reasoning", tier), _count(idet.get("audio"))
        audio_out = _count(odet.get("audio"))
        if raw:  # what LangChain left in the provider's own usage
            extra = _raw_details(raw)
            taken = [key for key, value in extra.items() if value and {
                "cache_read": read, "cache_creation": creation, "cache_write_5m": five, "cache_write_1h": hour,
                "reasoning": reasoning, "audio_input": audio_in, "audio_output": audio_out}[key] is None]
            if taken:
                read = read if read is not None else extra.get("cache_read")
                creation = creation if creation is not None else extra.get("cache_creation")
                five = five if five is not None else extra.get("cache_write_5m")
                hour = hour if hour is not None else extra.get("cache_write_1h")
                reasoning = reasoning if reasoning is not None else extra.get("reasoning")
                audio_in = audio_in if audio_in is not None else extra.get("audio_input")
                audio_out = audio_out if audio_out is not None else extra.get("audio_output")
                if _is_anthropic(raw) and inp == _count(raw.get("input_tokens")):
                    total = None  # LangChain copied Anthropic's count, which leaves the cache out (added below)
                    notes.append("input_tokens was Anthropic's count, without the cached tokens: added")
                    inp += (read or 0) + max(creation or 0, (five or 0) + (hour or 0))
        w5, w1 = _writes(creation, five, hour)
        cached = (read or 0) + (w5 or 0) + (w1 or 0)
        if total is not None and total != inp + out:  # the integration's total shows a part left out
            if reasoning and total == inp + out + reasoning:
                out += reasoning
                notes.append(f"output_tokens left out the {reasoning} reasoning tokens (total_tokens counts them): "
                             "added")
            elif cached and total in (inp + cached + out, inp + cached + out + (reasoning or 0)):
                if total != inp + cached + out:
                    out += reasoning or 0
                inp += cached
                notes.append(f"input_tokens left out the {cached} cached tokens (total_tokens counts them): added")
        if cached + (audio_in or 0) > inp:
            notes.append(f"the cached tokens ({cached}) exceed input_tokens ({inp}): taken as not counted in it")
            inp += cached
        if (reasoning or 0) + (audio_out or 0) > out:
            notes.append(f"the reasoning tokens ({reasoning}) exceed output_tokens ({out}): taken as not counted in it")
            out += reasoning or 0
        if tier is not None or str(meta.get("service_tier") or "") in _TIERS:
            notes.append(f"ran on the {tier or meta.get('service_tier')} service tier, priced at standard prices")
        return Usage(inp, out, "provider", read, w5, w1, reasoning, audio_in, audio_out, "; ".join(notes) or None)
    return _from_provider(raw, meta)


def _from_provider(raw: Mapping[str, Any], meta: Mapping[str, Any]) -> Usage | None:
    """Counts from the provider's own usage alone, in its own terms."""
    gemini = _mapping(meta.get("usage_metadata"))
    if not raw and _count(gemini.get("prompt_token_count")) is not None:
        thoughts = _count(gemini.get("thoughts_token_count"))
        return Usage(_count(gemini.get("prompt_token_count")),
                     (_count(gemini.get("candidates_token_count")) or 0) + (thoughts or 0), "provider",
                     cache_read=_count(gemini.get("cached_content_token_count")), reasoning=thoughts)
    if not raw:
        return None
    details = _raw_details(raw)
    if _is_anthropic(raw):
        w5, w1 = _writes(details["cache_creation"], details["cache_write_5m"], details["cache_write_1h"])
        inp = (_count(raw.get("input_tokens")) or 0) + (details["cache_read"] or 0) + (w5 or 0) + (w1 or 0)
        return Usage(inp, _count(raw.get("output_tokens")) or 0, "provider", details["cache_read"], w5, w1)
    inp = _count(raw.get("prompt_tokens"))
    inp = inp if inp is not None else _count(raw.get("input_tokens"))
    if inp is None:
        return None
    out = _count(raw.get("completion_tokens"))
    out = out if out is not None else _count(raw.get("output_tokens"))
    return Usage(inp, out or 0, "provider", details["cache_read"], reasoning=details["reasoning"],
                 audio_input=details["audio_input"], audio_output=details["audio_output"])
