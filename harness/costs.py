"""LLM prices: one dated table, USD per million tokens.

Cost is computed on the client from the model name the *response* reported. A model the
table does not know gets no cost (None), never a guessed one: a wrong number in a sheet is
worse than an empty cell. Matching is exact after normalising case and a provider prefix
(``groq/llama-3.3-70b-versatile`` -> ``llama-3.3-70b-versatile``).
"""

from __future__ import annotations

from dataclasses import dataclass

PRICE_TABLE_VERSION = "2026-11-01"


@dataclass(frozen=True, slots=True)
class Price:
    input_per_million: float
    output_per_million: float


#: Prices as published by the providers on :data:`PRICE_TABLE_VERSION`.
PRICES: dict[str, Price] = {
    # Groq
    "llama-3.3-70b-versatile": Price(0.59, 0.79),
    "llama-3.1-70b-versatile": Price(0.59, 0.79),
    "llama3-70b-8192": Price(0.59, 0.79),
    "llama-3.1-8b-instant": Price(0.05, 0.08),
    "llama3-8b-8192": Price(0.05, 0.08),
    "gemma2-9b-it": Price(0.20, 0.20),
    # The offline analyst models shipped with the project run locally and cost nothing.
    "offline-analyst-1": Price(0.0, 0.0),
    "offline-analyst-lite": Price(0.0, 0.0),
}


@dataclass(frozen=True, slots=True)
class Cost:
    input_cost: float
    output_cost: float
    total_cost: float


def normalise_model(model: str | None) -> str | None:
    if not model:
        return None
    name = model.strip().lower()
    return name.rsplit("/", 1)[-1] if "/" in name else name


def price_for(model: str | None) -> Price | None:
    name = normalise_model(model)
    return PRICES.get(name) if name else None


def cost(model: str | None, prompt_tokens: int | None, completion_tokens: int | None) -> Cost | None:
    """``input = prompt_tokens * in_rate / 1e6``, ``output = completion_tokens * out_rate / 1e6``,
    ``total = input + output``, each rounded to 8 decimals.

    None when the model has no price or a token count is missing.
    """
    price = price_for(model)
    if price is None or prompt_tokens is None or completion_tokens is None:
        return None
    input_cost = round(prompt_tokens * price.input_per_million / 1e6, 8)
    output_cost = round(completion_tokens * price.output_per_million / 1e6, 8)
    return Cost(input_cost, output_cost, round(input_cost + output_cost, 8))
