"""Prices with their parts and the one formula every cost comes from."""

from __future__ import annotations

import datetime
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness import costs
from harness.costs import PRICES, Price, Tokens, cost, cost_of, read_prices, register_price

PROVIDERS = {
    "openai": ("gpt-5", "gpt-5-mini", "gpt-4.1", "gpt-4o", "gpt-4o-mini", "o3", "o4-mini"),
    "anthropic": ("claude-opus-4-5", "claude-opus-4-1", "claude-sonnet-4-5", "claude-haiku-4-5", "claude-3-5-haiku"),
    "gemini": ("gemini-2.5-pro", "gemini-2.5-flash", "gemini-2.5-flash-lite", "gemini-2.0-flash"),
    "groq": ("llama-3.3-70b-versatile", "llama-3.1-8b-instant", "gpt-oss-120b", "gpt-oss-20b", "kimi-k2-instruct"),
}


@pytest.fixture
def registered():
    added: list[str] = []
    yield added
    for name in added:
        PRICES.pop(name, None)


def test_the_bundled_table_is_dated_and_each_current_model_has_its_source_and_date():
    assert costs.PRICE_TABLE_VERSION == "2025-11-24" == costs.bundled_tables()[-1]
    for provider, models in PROVIDERS.items():
        for model in models:
            price = costs.BUNDLED_PRICES[model]
            assert price.table == costs.PRICE_TABLE_VERSION, model
            assert price.as_of and datetime.date.fromisoformat(price.as_of) <= datetime.date(2025, 11, 24), model
            assert price.source and price.source.startswith("https://"), model
            assert price.input_per_million > 0 and price.output_per_million >= price.input_per_million, model


def test_anthropic_prices_cache_reads_at_a_tenth_and_writes_at_five_quarters_and_twice_the_input():
    for model in PROVIDERS["anthropic"]:
        p = costs.BUNDLED_PRICES[model]
        assert p.cached_input_per_million == pytest.approx(p.input_per_million * 0.1), model
        assert p.cache_write_per_million == pytest.approx(p.input_per_million * 1.25), model
        assert p.cache_write_1h_per_million == pytest.approx(p.input_per_million * 2), model


def test_cached_input_is_cheaper_than_input_wherever_the_table_gives_it():
    cached = {name: p for name, p in costs.BUNDLED_PRICES.items() if p.cached_input_per_million is not None}
    assert {"gpt-4o-mini", "o4-mini", "gemini-2.5-flash", "gpt-oss-120b", "claude-haiku-4-5"} <= set(cached)
    for name, p in cached.items():
        assert p.cached_input_per_million < p.input_per_million, name


def test_an_older_bundled_table_stays_so_costs_written_with_it_can_be_recomputed():
    old = costs.bundled_table("2025-10-15")
    assert old["gpt-4o"] == Price(2.5, 10.0, table="2025-10-15", as_of="2025-10-15")
    assert costs.price_in_table("gpt-4o-2024-08-06", "2025-10-15").cached_input_per_million is None
    assert costs.price_in_table("gpt-4o", "2025-11-24").cached_input_per_million == 1.25
    assert costs.bundled_table("1999-01-01") is None and costs.price_in_table("gpt-4o", "1999-01-01") is None


def test_register_price_takes_every_part_and_a_date(registered):
    registered.append("acme-cache-1")
    register_price("acme-cache-1", 1.0, 4.0, cached_input_per_million=0.25, cache_write_per_million=1.25,
                   cache_write_1h_per_million=2.0, reasoning_per_million=8.0, audio_input_per_million=10.0,
                   audio_output_per_million=20.0, as_of="2026-02-01")
    p = costs.price_for("ACME-cache-1")
    assert (p.cached_input_per_million, p.cache_write_per_million, p.cache_write_1h_per_million,
            p.reasoning_per_million, p.audio_input_per_million, p.audio_output_per_million) == (
        0.25, 1.25, 2.0, 8.0, 10.0, 20.0)
    assert costs.price_table("acme-cache-1") == "user 2026-02-01"
    with pytest.raises(ValueError, match="finite numbers >= 0"):
        register_price("acme-cache-1", 1.0, 4.0, cached_input_per_million=-1)
    with pytest.raises(ValueError, match="as_of must be a date"):
        register_price("acme-cache-1", 1.0, 4.0, as_of="soon")


def test_a_prices_file_takes_the_parts_and_names_its_table_by_its_date(tmp_path):
    path = tmp_path / "prices.toml"
    path.write_text('as_of = 2026-01-31\n[prices."acme-mini-2026"]\ninput_per_million = 1.5\n'
                    "output_per_million = 6.0\ncached_input_per_million = 0.15\ncache_write_per_million = 1.875\n"
                    "cache_write_1h_per_million = 3.0\nreasoning_per_million = 6.0\n", encoding="utf-8")
    (price,) = read_prices(path).values()
    assert price == Price(1.5, 6.0, 0.15, 1.875, 3.0, 6.0, table="user 2026-01-31", as_of="2026-01-31")
    assert "acme-mini-2026" not in PRICES  # read, not registered


@pytest.mark.parametrize("text,message", [
    ('[prices."m"]\ninput_per_million = 1\noutput_per_million = 2\ncached_input_per_milion = 0.5\n',
     "has no part 'cached_input_per_milion'"),
    ('[prices."m"]\ninput_per_million = 1\noutput_per_million = 2\ncache_write_per_million = -1\n',
     "cache_write_per_million must be a finite number >= 0"),
    ('[prices."m"]\ninput_per_million = 1\n', "needs numbers input_per_million and output_per_million"),
    ('as_of = "last week"\n[prices."m"]\ninput_per_million = 1\noutput_per_million = 2\n', "as_of must be a date"),
    ('[prices]\nm = 3\n', "is not a table of prices"),
])
def test_a_prices_file_that_is_not_one_is_refused_naming_the_entry(tmp_path, text, message):
    path = tmp_path / "prices.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ValueError, match=message):
        read_prices(path)


def test_the_formula_prices_each_kind_once_and_reasoning_at_the_output_price_without_a_note():
    p = Price(2.0, 8.0, cached_input_per_million=0.5, cache_write_per_million=2.5, cache_write_1h_per_million=4.0)
    spent = cost_of(p, Tokens(10_000, 2_000, cache_read=6_000, cache_write_5m=1_000, cache_write_1h=500,
                              reasoning=1_500))
    assert spent.input_cost == (2_500 * 2.0 + 6_000 * 0.5 + 1_000 * 2.5 + 500 * 4.0) / 1e6
    assert spent.output_cost == 2_000 * 8.0 / 1e6 and spent.note is None
    assert spent.total_cost == spent.input_cost + spent.output_cost


def test_a_part_without_its_price_falls_back_and_the_cost_says_which():
    spent = cost_of(Price(1.0, 2.0), Tokens(1000, 100, cache_read=400, cache_write_1h=100, audio_output=10),
                    "house-1")
    assert spent.input_cost == 1000 * 1.0 / 1e6 and spent.output_cost == 100 * 2.0 / 1e6
    assert spent.note == ("cache reads at the input price (no cached_input_per_million for house-1); 1-hour cache "
                          "writes at the input price (no cache_write_1h_per_million for house-1); audio output at "
                          "the output price (no audio_output_per_million for house-1)")
    assert cost_of(Price(1.0, 2.0), Tokens(1000, 100, cache_read=0)).note is None  # nothing of that kind: no note


def test_details_that_exceed_their_count_cannot_be_priced():
    with pytest.raises(ValueError, match="exceed the 100 input tokens"):
        cost_of(Price(1.0, 2.0), Tokens(100, 10, cache_read=90, cache_write_5m=20))
    with pytest.raises(ValueError, match="exceed the 10 output tokens"):
        cost_of(Price(1.0, 2.0), Tokens(100, 10, reasoning=11))


def test_cost_keeps_its_signature_and_gives_no_cost_without_a_price_or_tokens():
    assert cost("gpt-4o-mini-2024-07-18", 1000, 100).total_cost == pytest.approx((150 + 60) / 1e6, abs=1e-15)
    assert cost("gpt-4o-mini", 1000, 100, cache_read=1000).input_cost == pytest.approx(75 / 1e6, abs=1e-15)
    assert cost("mystery-9000", 10, 10) is None and cost("gpt-4o", None, 10) is None


_counts = st.integers(min_value=0, max_value=5_000_000)
_rates = st.one_of(st.none(), st.decimals(min_value=0, max_value=200, places=4, allow_nan=False))


@settings(max_examples=300, deadline=None)
@given(st.tuples(_counts, _counts, _counts, _counts, _counts, _counts, _counts, _counts),
       st.decimals(min_value=0, max_value=200, places=4), st.decimals(min_value=0, max_value=200, places=4),
       st.tuples(_rates, _rates, _rates, _rates, _rates, _rates))
def test_the_formula_matches_the_exact_bill_to_a_nanodollar(counts, rate_in, rate_out, parts):
    plain_in, read, w5, w1, audio_in, plain_out, reasoning, audio_out = counts
    tokens = Tokens(plain_in + read + w5 + w1 + audio_in, plain_out + reasoning + audio_out, read, w5, w1, reasoning,
                    audio_in, audio_out)
    cached, write5, write1, think, hear, speak = (None if r is None else float(r) for r in parts)
    price = Price(float(rate_in), float(rate_out), cached, write5, write1, think, hear, speak)

    def exact(rate, base):
        return Fraction(str(rate if rate is not None else base))

    bill_in = (plain_in * exact(rate_in, None) + read * exact(cached, rate_in) + w5 * exact(write5, rate_in)
               + w1 * exact(write1, rate_in) + audio_in * exact(hear, rate_in)) / 10**6
    bill_out = (plain_out * exact(rate_out, None) + reasoning * exact(think, rate_out)
                + audio_out * exact(speak, rate_out)) / 10**6
    spent = cost_of(price, tokens)
    assert abs(Fraction(spent.input_cost) - bill_in) <= Fraction(1, 10**9)
    assert abs(Fraction(spent.output_cost) - bill_out) <= Fraction(1, 10**9)
    assert abs(Fraction(spent.total_cost) - bill_in - bill_out) <= Fraction(1, 10**9)


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 10**6), st.integers(0, 10**6), st.integers(0, 10**6))
def test_a_cached_token_never_costs_more_than_an_uncached_one_at_a_discounted_price(plain, read, out):
    p = costs.BUNDLED_PRICES["gpt-4o-mini"]
    cached = cost_of(p, Tokens(plain + read, out, cache_read=read))
    uncached = cost_of(p, Tokens(plain + read, out))
    assert cached.total_cost <= uncached.total_cost
    assert uncached.input_cost - cached.input_cost == pytest.approx(read * (0.15 - 0.075) / 1e6, abs=1e-12)
