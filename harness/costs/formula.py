"""A call's cost as the provider bills it: each kind of token at its own price.

The one formula (:func:`cost_of`) every cost in the sheets comes from: the rows of a run,
``harness reprice`` and the audit all call it. Token counts follow LangChain's
``usage_metadata``: ``input`` counts every input token, the cached ones included, and
``output`` every output token, reasoning included; the details say how many of them were
of each kind, so nothing is counted twice:

    input_cost  = (input - cache_read - cache_write_5m - cache_write_1h - audio_input) x input price
                  + cache_read x cached_input price + cache_write_5m x cache_write price
                  + cache_write_1h x cache_write_1h price + audio_input x audio_input price
    output_cost = (output - reasoning - audio_output) x output price
                  + reasoning x reasoning price + audio_output x audio_output price
    total_cost  = input_cost + output_cost

prices per million tokens, so each product is divided by 1e6; costs are rounded to 12
decimals (a millionth of a millionth of a dollar). A part the price does not give is
priced at the input price (cache reads and writes, audio input) or the output price
(reasoning, audio output); but for reasoning, whose default is the output price (every
provider bills it so), the cost's ``note`` names each part priced that way.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from .prices import Price, price_for

#: Decimals a cost is rounded to (USD).
COST_DECIMALS = 12


@dataclass(frozen=True, slots=True)
class Tokens:
    """A call's token counts: ``input`` and ``output`` in full, and how many of them were
    of each kind (None: the response did not say, priced as plain input or output)."""

    input: int
    output: int
    cache_read: int | None = None
    cache_write_5m: int | None = None
    cache_write_1h: int | None = None
    reasoning: int | None = None
    audio_input: int | None = None
    audio_output: int | None = None

    @property
    def cache_write(self) -> int | None:
        """Tokens written to the cache, both lifetimes; None when the response said nothing of it."""
        if self.cache_write_5m is None and self.cache_write_1h is None:
            return None
        return (self.cache_write_5m or 0) + (self.cache_write_1h or 0)


@dataclass(frozen=True, slots=True)
class Cost:
    input_cost: float
    output_cost: float
    total_cost: float
    #: the parts priced at the input or output price for want of their own price; None when none
    note: str | None = None


def usd(value: float) -> float:
    """A cost in USD as stored: rounded to :data:`COST_DECIMALS` (never -0.0)."""
    return round(value, COST_DECIMALS) + 0.0


def sum_costs(values: Iterable[float | None]) -> float | None:
    """The sum of the costs that are known (exactly, then rounded as a cost); None when none is."""
    known = [v for v in values if v is not None]
    return usd(math.fsum(known)) if known else None


#: (what the count is, its Tokens field, its price part), for the input and the output side
_INPUT_PARTS = (("cache reads", "cache_read", "cached_input_per_million"),
                ("5-minute cache writes", "cache_write_5m", "cache_write_per_million"),
                ("1-hour cache writes", "cache_write_1h", "cache_write_1h_per_million"),
                ("audio input", "audio_input", "audio_input_per_million"))
_OUTPUT_PARTS = (("reasoning", "reasoning", "reasoning_per_million"),
                 ("audio output", "audio_output", "audio_output_per_million"))


def _side(price: Price, tokens: Tokens, total: int, parts: tuple[tuple[str, str, str], ...], base: float,
          base_name: str, model: str | None, notes: list[str]) -> float:
    """One side's cost in USD (unrounded): its plain tokens at ``base``, each kind at its price."""
    plain, spent = total, []
    for what, field, key in parts:
        count = getattr(tokens, field)
        if not count:
            continue
        if count < 0:
            raise ValueError(f"{field} tokens cannot be negative, got {count}")
        plain -= count
        rate = getattr(price, key)
        if rate is None:
            rate = base
            if field != "reasoning":  # reasoning at the output price is the default, not a fallback
                notes.append(f"{what} at the {base_name} price (no {key}{f' for {model}' if model else ''})")
        spent.append(count * rate)
    if plain < 0:
        raise ValueError(f"the {base_name} token details ({total - plain}) exceed the {total} {base_name} tokens "
                         "they are part of")
    return (math.fsum([plain * base, *spent]) if spent else plain * base) / 1e6


def cost_of(price: Price, tokens: Tokens, model: str | None = None) -> Cost:
    """``tokens`` at ``price`` (the module's formula). ValueError when the details exceed
    the count they are part of (more cached tokens than input tokens): such counts cannot
    be priced without counting something twice."""
    if tokens.input < 0 or tokens.output < 0:
        raise ValueError(f"token counts cannot be negative, got {tokens.input} in, {tokens.output} out")
    notes: list[str] = []
    input_cost = usd(_side(price, tokens, tokens.input, _INPUT_PARTS, price.input_per_million, "input", model,
                           notes))
    output_cost = usd(_side(price, tokens, tokens.output, _OUTPUT_PARTS, price.output_per_million, "output", model,
                            notes))
    return Cost(input_cost, output_cost, usd(input_cost + output_cost), "; ".join(notes) or None)


def cost(model: str | None, prompt_tokens: int | None, completion_tokens: int | None,
         prices: Mapping[str, Any] | None = None, *, cache_read: int | None = None,
         cache_write_5m: int | None = None, cache_write_1h: int | None = None, reasoning: int | None = None,
         audio_input: int | None = None, audio_output: int | None = None) -> Cost | None:
    """The cost of a call of ``model`` (:func:`cost_of` at its :func:`.price_for`): its
    input and output tokens in full (the cached and reasoning tokens included, as LangChain's
    ``usage_metadata`` counts them) and, by keyword, how many were of each kind.

    None when the model has no price or a token count is missing.
    """
    price = price_for(model, prices)
    if price is None or prompt_tokens is None or completion_tokens is None:
        return None
    return cost_of(price, Tokens(int(prompt_tokens), int(completion_tokens), cache_read, cache_write_5m,
                                 cache_write_1h, reasoning, audio_input, audio_output), model)
