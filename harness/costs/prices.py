"""LLM prices with their parts: the bundled dated tables, and the prices a user registers.

A price is USD per million tokens for each part a provider bills apart: input, output,
cached input (a cache read), a cache write that lives 5 minutes and one that lives an hour,
reasoning (default: the output price, as every provider bills it), audio input and output.
A part a price does not give is priced at the input (or output) price and the cost says
so (see :mod:`.formula`).

The bundled tables live in ``tables/*.toml`` (the same format as a user's prices file),
each named by its date; the newest is in force, the older ones stay so that a cost written
with them can still be recomputed. Cost is computed on the client from the model name the
*response* reported. A model no table knows gets no cost (None), never a guessed one: a
wrong number in a sheet is worse than an empty cell. Matching is exact after normalising
case and a provider prefix (``groq/llama-3.3-70b-versatile`` -> ``llama-3.3-70b-versatile``),
then without a release suffix (``gpt-4o-mini-2024-07-18`` -> ``gpt-4o-mini``).
"""

from __future__ import annotations

import dataclasses
import datetime
import functools
import json
import math
import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any

from .. import config
from ..inputs import PRICES as _PRICES_FILE, read_text

#: ``price_table`` of a cost from a price the application registered, or a prices file
#: without a date (with one, ``user YYYY-MM-DD``).
USER_PRICE_TABLE = "user"
_TABLES = Path(__file__).resolve().parent / "tables"

#: The parts of a price, as a prices file names them; the first two are required.
PARTS = ("input_per_million", "output_per_million", "cached_input_per_million", "cache_write_per_million",
         "cache_write_1h_per_million", "reasoning_per_million", "audio_input_per_million",
         "audio_output_per_million")
#: What else an entry of a prices file may say about its price (kept with it, never priced).
_ABOUT = ("as_of", "source")


#: A release suffix providers add to a model's name in responses: ``-2024-07-18``,
#: ``-20250514``, ``-latest``, ``-001``, ``-0905``.
_RELEASE = re.compile(r"-(?:\d{4}-\d{2}-\d{2}|\d{8}|latest|\d{3,4})$")


def normalise_model(model: str | None) -> str | None:
    if not model:
        return None
    name = model.strip().lower()
    return name.rsplit("/", 1)[-1] if "/" in name else name


@dataclass(frozen=True, slots=True)
class Price:
    """One model's price, USD per million tokens of each part. ``cached_input``: a token
    read from the provider's prompt cache; ``cache_write``: a token written to it for 5
    minutes (the default lifetime), ``cache_write_1h`` for an hour; ``reasoning``: a hidden
    reasoning (thinking) token, None = the output price. ``table`` names where the price
    comes from (a bundled table's date, or ``user``); ``as_of`` and ``source`` say when and
    where it was published."""

    input_per_million: float
    output_per_million: float
    cached_input_per_million: float | None = None
    cache_write_per_million: float | None = None
    cache_write_1h_per_million: float | None = None
    reasoning_per_million: float | None = None
    audio_input_per_million: float | None = None
    audio_output_per_million: float | None = None
    table: str = USER_PRICE_TABLE
    as_of: str | None = None
    source: str | None = None

    def as_data(self) -> tuple[Any, ...]:
        """The price as plain data (travels with a run to the writer process): ``Price(*data)``."""
        return tuple(getattr(self, f.name) for f in dataclasses.fields(self))


def _rate(value: Any) -> float | None:
    """A price part as a float; None when it is not a finite number >= 0."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    value = float(value)
    return value if 0 <= value < math.inf else None


def _date_text(value: Any) -> str | None:
    """A TOML date (or a ``YYYY-MM-DD`` text) as ``YYYY-MM-DD``; None when it is neither."""
    if isinstance(value, datetime.datetime):
        value = value.date()
    if isinstance(value, datetime.date):
        return value.isoformat()
    if isinstance(value, str):
        try:
            return datetime.date.fromisoformat(value.strip()).isoformat()
        except ValueError:
            return None
    return None


def parse_prices(data: Mapping[str, Any], where: str, *, bundled: bool = False) -> dict[str, Price]:
    """The ``[prices."MODEL"]`` entries of a parsed prices file, each a :class:`Price` of the
    file's table: its top-level ``as_of`` date for a bundled table, ``user`` (``user
    YYYY-MM-DD`` with an ``as_of``) for a user's file. ValueError naming ``where`` and the
    entry for anything that is not a price."""
    table = data.get("prices")
    if not isinstance(table, dict) or not table:
        raise ValueError(f'prices file {where!r} has no [prices."MODEL"] tables')
    as_of = data.get("as_of")
    date = _date_text(as_of) if as_of is not None else None
    if as_of is not None and date is None:
        raise ValueError(f"prices file {where!r}: as_of must be a date (YYYY-MM-DD), got {as_of!r}")
    if bundled and date is None:
        raise ValueError(f"bundled price table {where!r} has no as_of date")
    label = date if bundled else (f"{USER_PRICE_TABLE} {date}" if date else USER_PRICE_TABLE)
    found: dict[str, Price] = {}
    for model, entry in table.items():
        name = json.dumps(model)
        if not isinstance(entry, dict):
            raise ValueError(f"prices file {where!r}: [prices.{name}] is not a table of prices")
        unknown = sorted(set(entry) - set(PARTS) - set(_ABOUT))
        if unknown:
            raise ValueError(f"prices file {where!r}: [prices.{name}] has no part {unknown[0]!r} "
                             f"(parts: {', '.join(PARTS)}; also as_of, source)")
        if _rate(entry.get("input_per_million")) is None or _rate(entry.get("output_per_million")) is None:
            raise ValueError(f"prices file {where!r}: [prices.{name}] needs numbers input_per_million and "
                             "output_per_million (finite, >= 0)")
        parts = {key: _rate(entry[key]) for key in PARTS if key in entry}
        bad = [key for key, value in parts.items() if value is None]
        if bad:
            raise ValueError(f"prices file {where!r}: [prices.{name}] {bad[0]} must be a finite number >= 0, "
                             f"got {entry[bad[0]]!r}")
        when = entry.get("as_of")
        if when is not None and _date_text(when) is None:
            raise ValueError(f"prices file {where!r}: [prices.{name}] as_of must be a date, got {when!r}")
        source = entry.get("source")
        found[str(model)] = Price(**parts, table=label, as_of=_date_text(when) if when is not None else date,
                                  source=str(source) if source is not None else None)
    return found


@functools.cache
def bundled_table(label: str) -> Mapping[str, Price] | None:
    """The bundled table of date ``label`` (normalised model name -> price), or None when
    this harness ships no table of that date."""
    path = _TABLES / f"{label}.toml"
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", label) or not path.is_file():
        return None
    prices = parse_prices(tomllib.loads(path.read_text(encoding="utf-8")), path.name, bundled=True)
    return MappingProxyType({normalise_model(name) or name: price for name, price in prices.items()})


def bundled_tables() -> list[str]:
    """The dates of the bundled tables, oldest first."""
    return sorted(p.stem for p in _TABLES.glob("*.toml"))


#: The date of the bundled table in force (the newest).
PRICE_TABLE_VERSION = bundled_tables()[-1]
#: The bundled table in force: standard (non-batch) prices of the providers' chat models.
BUNDLED_PRICES: Mapping[str, Price] = bundled_table(PRICE_TABLE_VERSION)  # type: ignore[assignment]

#: The prices in force: the bundled table, then prices registered with :func:`register_price`
#: or read from a prices file (these win). Edits made here are honoured by every writer.
PRICES: dict[str, Price] = dict(BUNDLED_PRICES)
_BUNDLED: dict[str, Price] = dict(BUNDLED_PRICES)  # a plain dict: quicker to look up than the proxy


def register_price(model: str, input_per_million: float, output_per_million: float, *,
                   cached_input_per_million: float | None = None, cache_write_per_million: float | None = None,
                   cache_write_1h_per_million: float | None = None, reasoning_per_million: float | None = None,
                   audio_input_per_million: float | None = None, audio_output_per_million: float | None = None,
                   as_of: str | datetime.date | None = None) -> None:
    """Price ``model`` (USD per million tokens of each part) for the runs written from now
    on, by every writer: the inline and thread writers read :data:`PRICES`, the writer
    process gets the prices that differ from the bundled table with each run. A part left
    out is priced at the input (cache reads and writes, audio input) or output (reasoning,
    audio output) price. Its costs say ``price_table`` = ``user`` (``user YYYY-MM-DD`` given
    ``as_of``)."""
    name = normalise_model(model)
    if not name:
        raise ValueError("register_price needs a model name")
    given = {"input_per_million": input_per_million, "output_per_million": output_per_million,
             "cached_input_per_million": cached_input_per_million, "cache_write_per_million": cache_write_per_million,
             "cache_write_1h_per_million": cache_write_1h_per_million, "reasoning_per_million": reasoning_per_million,
             "audio_input_per_million": audio_input_per_million, "audio_output_per_million": audio_output_per_million}
    bad = {key: value for key, value in given.items()
           if (value is not None or key in PARTS[:2]) and _rate(value) is None}
    if bad:
        raise ValueError(f"prices of {model!r} must be finite numbers >= 0, got {bad}")
    date = _date_text(as_of) if as_of is not None else None
    if as_of is not None and date is None:
        raise ValueError(f"as_of must be a date (YYYY-MM-DD), got {as_of!r}")
    PRICES[name] = Price(**{key: _rate(value) for key, value in given.items() if value is not None},
                         table=f"{USER_PRICE_TABLE} {date}" if date else USER_PRICE_TABLE, as_of=date)


def read_prices(path: str | os.PathLike[str]) -> dict[str, Price]:
    """The prices of a prices file (TOML: ``[prices."model"]`` tables of the :data:`PARTS`,
    an optional top-level ``as_of`` date), read but not registered; ValueError naming the
    file and the entry when it is not one. Only a regular file of at most 10 MB is read
    (:data:`harness.inputs.PRICES`): a FIFO or a device never hangs the caller."""
    where = os.fspath(path)
    try:
        data = tomllib.loads(read_text(where, _PRICES_FILE))
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"prices file {where!r} is not TOML: {exc}") from None
    except RecursionError:
        raise ValueError(f"prices file {where!r}: arrays or tables nested too deeply") from None
    prices = parse_prices(data, where)
    for model in prices:
        if not normalise_model(model):
            raise ValueError(f"prices file {where!r}: a model name is blank")
    return prices


def load_prices(path: str | os.PathLike[str]) -> dict[str, Price]:
    """Read a prices file (:func:`read_prices`) and register every price in it (they win
    over the bundled table); returns them."""
    found = read_prices(path)
    for model, price in found.items():
        PRICES[normalise_model(model)] = price  # type: ignore[index]
    return found


def load_env_prices() -> None:
    """Register the prices of the file named by ``$HARNESS_PRICES``, if set (once per file)."""
    path = config.value("HARNESS_PRICES")
    if path and path not in _LOADED:
        load_prices(path)
        _LOADED.add(path)


_LOADED: set[str] = set()


def user_prices() -> dict[str, tuple[Any, ...]]:
    """The prices in force that differ from the bundled table, as plain data to travel with a
    run (called as each run ends: a bundled price still in force is the same object, so
    identity settles almost every entry)."""
    bundled = _BUNDLED
    return {name: p.as_data() for name, p in PRICES.items()
            if (found := bundled.get(name)) is not p and found != p}


def _as_price(found: Any) -> Price:
    return found if isinstance(found, Price) else Price(*found)


def price_for(model: str | None, prices: Mapping[str, Any] | None = None) -> Price | None:
    """The price of ``model``: its exact (normalised) name, else its name without a release
    suffix (``gpt-4o-mini-2024-07-18`` is ``gpt-4o-mini``). ``prices`` (name -> Price, or its
    :meth:`Price.as_data`) wins over :data:`PRICES`."""
    name = normalise_model(model)
    if not name:
        return None
    for candidate in (name, _RELEASE.sub("", name)):
        if prices and candidate in prices:
            return _as_price(prices[candidate])
        if candidate in PRICES:
            return PRICES[candidate]
    return None


def price_in_table(model: str | None, table: str) -> Price | None:
    """The price of ``model`` in the price table ``table`` (a ``price_table`` cell): a
    bundled table of that date, else a price in force that came from that table (a
    registered price, a prices file); None when neither knows it."""
    name = normalise_model(model)
    if not name:
        return None
    bundled = bundled_table(table)
    for candidate in (name, _RELEASE.sub("", name)):
        if bundled is not None:
            if candidate in bundled:
                return bundled[candidate]
            continue
        found = PRICES.get(candidate)
        if found is not None and found.table == table:
            return found
    return None


def price_table(model: str | None, prices: Mapping[str, Any] | None = None) -> str | None:
    """What ``llm_calls.price_table`` says for a cost of ``model``: the bundled table's date,
    or ``user`` (``user YYYY-MM-DD``) for a registered price; None without a price."""
    price = price_for(model, prices)
    return price.table if price is not None else None
