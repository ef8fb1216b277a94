"""LLM prices: one dated table, USD per million tokens.

Cost is computed on the client from the model name the *response* reported. A model the
table does not know gets no cost (None), never a guessed one: a wrong number in a sheet is
worse than an empty cell. Matching is exact after normalising case and a provider prefix
(``groq/llama-3.3-70b-versatile`` -> ``llama-3.3-70b-versatile``).
"""

from __future__ import annotations

import json
import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from . import config
from .inputs import PRICES as _PRICES_FILE, read_text

PRICE_TABLE_VERSION = "2025-10-15"
#: ``price_table`` of a cost from a price the application registered or a prices file named.
USER_PRICE_TABLE = "user"


@dataclass(frozen=True, slots=True)
class Price:
    input_per_million: float
    output_per_million: float


#: Standard (non-batch, non-cached) prices of the providers' current chat models, USD per
#: million tokens, as published on :data:`PRICE_TABLE_VERSION`. Long-context tiers are not
#: modelled: the base tier is used.
BUNDLED_PRICES: Mapping[str, Price] = MappingProxyType({
    # OpenAI
    "gpt-5": Price(1.25, 10.0),
    "gpt-5-mini": Price(0.25, 2.0),
    "gpt-5-nano": Price(0.05, 0.40),
    "gpt-4.1": Price(2.0, 8.0),
    "gpt-4.1-mini": Price(0.40, 1.60),
    "gpt-4.1-nano": Price(0.10, 0.40),
    "gpt-4o": Price(2.50, 10.0),
    "gpt-4o-mini": Price(0.15, 0.60),
    "o3": Price(2.0, 8.0),
    "o4-mini": Price(1.10, 4.40),
    "o3-mini": Price(1.10, 4.40),
    # Anthropic
    "claude-opus-4-1": Price(15.0, 75.0),
    "claude-opus-4": Price(15.0, 75.0),
    "claude-sonnet-4-5": Price(3.0, 15.0),
    "claude-sonnet-4": Price(3.0, 15.0),
    "claude-3-7-sonnet": Price(3.0, 15.0),
    "claude-haiku-4-5": Price(1.0, 5.0),
    "claude-3-5-haiku": Price(0.80, 4.0),
    "claude-3-haiku": Price(0.25, 1.25),
    # Google
    "gemini-2.5-pro": Price(1.25, 10.0),
    "gemini-2.5-flash": Price(0.30, 2.50),
    "gemini-2.5-flash-lite": Price(0.10, 0.40),
    "gemini-2.0-flash": Price(0.10, 0.40),
    "gemini-2.0-flash-lite": Price(0.075, 0.30),
    # Groq
    "llama-3.3-70b-versatile": Price(0.59, 0.79),
    "llama-3.1-8b-instant": Price(0.05, 0.08),
    "llama-4-scout-17b-16e-instruct": Price(0.11, 0.34),
    "llama-4-maverick-17b-128e-instruct": Price(0.20, 0.60),
    "gpt-oss-120b": Price(0.15, 0.75),
    "gpt-oss-20b": Price(0.10, 0.50),
    "qwen3-32b": Price(0.29, 0.59),
    "kimi-k2-instruct": Price(1.0, 3.0),
    "llama-3.1-70b-versatile": Price(0.59, 0.79),  # retired by Groq; kept so older runs still price
    "llama3-70b-8192": Price(0.59, 0.79),
    "llama3-8b-8192": Price(0.05, 0.08),
    "gemma2-9b-it": Price(0.20, 0.20),
    # Mistral
    "mistral-large": Price(2.0, 6.0),
    "mistral-medium": Price(0.40, 2.0),
    "mistral-small": Price(0.10, 0.30),
    "codestral": Price(0.30, 0.90),
    "ministral-8b": Price(0.10, 0.10),
    "ministral-3b": Price(0.04, 0.04),
    # The offline analyst models shipped with the project run locally and cost nothing.
    "offline-analyst-1": Price(0.0, 0.0),
    "offline-analyst-lite": Price(0.0, 0.0),
})

#: The prices in force: the bundled table, then prices registered with :func:`register_price`
#: or read from a prices file (these win). Edits made here are honoured by every writer.
PRICES: dict[str, Price] = dict(BUNDLED_PRICES)


def register_price(model: str, input_per_million: float, output_per_million: float) -> None:
    """Price ``model`` (USD per million input and output tokens) for the runs written from now
    on, by every writer: the inline and thread writers read :data:`PRICES`, the writer
    process gets the prices that differ from the bundled table with each run."""
    name = normalise_model(model)
    if not name:
        raise ValueError("register_price needs a model name")
    rates = (input_per_million, output_per_million)
    if not all(isinstance(r, (int, float)) and not isinstance(r, bool) and 0 <= r < float("inf") for r in rates):
        raise ValueError(f"prices of {model!r} must be finite numbers >= 0, got {rates}")
    PRICES[name] = Price(float(input_per_million), float(output_per_million))


def load_prices(path: str | os.PathLike[str]) -> dict[str, Price]:
    """Read a prices file (TOML: ``[prices."model"]`` tables with ``input_per_million`` and
    ``output_per_million``) and register every price in it; ValueError naming the file and
    the entry when it is not one. Only a regular file of at most 10 MB is read
    (:data:`harness.inputs.PRICES`): a FIFO or a device never hangs the caller."""
    where = os.fspath(path)
    try:
        data = tomllib.loads(read_text(where, _PRICES_FILE))
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"prices file {where!r} is not TOML: {exc}") from None
    except RecursionError:
        raise ValueError(f"prices file {where!r}: arrays or tables nested too deeply") from None
    table = data.get("prices")
    if not isinstance(table, dict) or not table:
        raise ValueError(f'prices file {where!r} has no [prices."MODEL"] tables')
    found = {}
    for model, entry in table.items():
        try:
            found[model] = Price(float(entry["input_per_million"]), float(entry["output_per_million"]))
        except (TypeError, KeyError, ValueError):
            raise ValueError(f"prices file {where!r}: [prices.{json.dumps(model)}] needs numbers "
                             "input_per_million and output_per_million") from None
    for model, price in found.items():
        register_price(model, price.input_per_million, price.output_per_million)
    return found


def load_env_prices() -> None:
    """Register the prices of the file named by ``$HARNESS_PRICES``, if set (once per file)."""
    path = config.value("HARNESS_PRICES")
    if path and path not in _LOADED:
        load_prices(path)
        _LOADED.add(path)


_LOADED: set[str] = set()


def user_prices() -> dict[str, tuple[float, float]]:
    """The prices in force that differ from the bundled table, as plain data to travel with a run."""
    return {name: (p.input_per_million, p.output_per_million)
            for name, p in PRICES.items() if BUNDLED_PRICES.get(name) != p}


@dataclass(frozen=True, slots=True)
class Cost:
    input_cost: float
    output_cost: float
    total_cost: float


#: A release suffix providers add to a model's name in responses: ``-2024-07-18``,
#: ``-20250514``, ``-latest``, ``-001``.
_RELEASE = re.compile(r"-(?:\d{4}-\d{2}-\d{2}|\d{8}|latest|\d{3,4})$")


def normalise_model(model: str | None) -> str | None:
    if not model:
        return None
    name = model.strip().lower()
    return name.rsplit("/", 1)[-1] if "/" in name else name


def price_for(model: str | None, prices: Mapping[str, Any] | None = None) -> Price | None:
    """The price of ``model``: its exact (normalised) name, else its name without a release
    suffix (``gpt-4o-mini-2024-07-18`` is ``gpt-4o-mini``). ``prices`` (name -> Price or
    (input, output)) wins over :data:`PRICES`."""
    name = normalise_model(model)
    if not name:
        return None
    for candidate in (name, _RELEASE.sub("", name)):
        if prices and candidate in prices:
            found = prices[candidate]
            return found if isinstance(found, Price) else Price(*found)
        if candidate in PRICES:
            return PRICES[candidate]
    return None


def price_table(model: str | None, prices: Mapping[str, Any] | None = None) -> str | None:
    """What ``llm_calls.price_table`` says for a cost of ``model``: the bundled table's date,
    or ``user`` for a registered price; None without a price."""
    price = price_for(model, prices)
    if price is None:
        return None
    name = normalise_model(model) or ""
    bundled = BUNDLED_PRICES.get(name) or BUNDLED_PRICES.get(_RELEASE.sub("", name))
    return PRICE_TABLE_VERSION if bundled == price else USER_PRICE_TABLE


def cost(model: str | None, prompt_tokens: int | None, completion_tokens: int | None,
         prices: Mapping[str, Any] | None = None) -> Cost | None:
    """``input = prompt_tokens * in_rate / 1e6``, ``output = completion_tokens * out_rate / 1e6``,
    ``total = input + output``, each rounded to 8 decimals.

    None when the model has no price or a token count is missing.
    """
    price = price_for(model, prices)
    if price is None or prompt_tokens is None or completion_tokens is None:
        return None
    input_cost = round(prompt_tokens * price.input_per_million / 1e6, 8)
    output_cost = round(completion_tokens * price.output_per_million / 1e6, 8)
    return Cost(input_cost, output_cost, round(input_cost + output_cost, 8))
