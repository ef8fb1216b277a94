"""Re-pricing stored runs: costs recomputed from stored tokens with new prices, on both store
engines, one transaction per batch; the runs' totals (and what is built on them) follow, the
old figure is kept beside the new, and the audit finds the sheets clean afterwards."""

from __future__ import annotations

import json
import sqlite3
from fractions import Fraction
from typing import TypedDict

import pandas as pd
import pytest
from langgraph.graph import END, START, StateGraph

from harness import Harness
from harness.audit import audit_frames
from harness.costs import BUNDLED_PRICES, PRICES, load_prices
from harness.costs.reprice import RepriceError, reprice, select_runs
from tests.support.cli import harness_cli

from .provider_usage import ANTHROPIC_CACHE_HIT, ANTHROPIC_CACHE_WRITE, Recorded, RecordedModel

NEW_PRICES = """\
as_of = 2026-01-31

[prices."claude-sonnet-4-5"]
input_per_million = 2.0
cached_input_per_million = 0.2
cache_write_per_million = 2.5
cache_write_1h_per_million = 4.0
output_per_million = 10.0
"""
#: a call of a model no table prices: it has no cost before, and keeps none after
UNPRICED = Recorded("house", {"input_tokens": 100, "output_tokens": 10, "total_tokens": 110},
                    {"model_name": "house-model-x"}, None)


class State(TypedDict, total=False):
    question: str
    answer: str


def billed_graph():
    """One node: a cache write, a cache hit (Anthropic) and a call of an unpriced model."""
    claude = RecordedModel(responses=[ANTHROPIC_CACHE_WRITE, ANTHROPIC_CACHE_HIT])
    house = RecordedModel(responses=[UNPRICED])

    def answer(state: State) -> dict:
        claude.invoke(state["question"])
        claude.invoke(state["question"])
        house.invoke(state["question"])
        return {"answer": "ok"}

    builder = StateGraph(State)
    builder.add_node("answer", answer)
    builder.add_edge(START, "answer")
    builder.add_edge("answer", END)
    return builder.compile()


CASES = [{"id": "c1", "input": {"question": "one"}}, {"id": "c2", "input": {"question": "two"}}]


def new_cost(billed) -> Fraction:
    """A call's cost at NEW_PRICES, by hand."""
    rates = {"input": Fraction(2), "cache_read": Fraction("0.2"), "cache_write_5m": Fraction("2.5"),
             "cache_write_1h": Fraction(4), "output": Fraction(10)}
    kinds = ("cache_read", "cache_write_5m", "cache_write_1h")
    plain = billed["input"] - sum(billed.get(k, 0) for k in kinds)
    spent = plain * rates["input"] + sum(billed.get(k, 0) * rates[k] for k in kinds) + billed["output"] * rates["output"]
    return spent / 10**6


@pytest.fixture(params=["sqlite", "postgres"])
def store(request, tmp_path):
    if request.param == "sqlite":
        return str(tmp_path / "runs.db")
    return request.getfixturevalue("pg_url")


@pytest.fixture
def prices_file(tmp_path):
    path = tmp_path / "prices.toml"
    path.write_text(NEW_PRICES, encoding="utf-8")
    return path


@pytest.fixture
def experiments(store):
    harness = Harness(store=store, writer="thread")
    for name in ("base", "cand"):
        harness.experiment(name, billed_graph(), CASES, concurrency=1)
    yield harness
    harness.close()


def calls_of(harness, experiment):
    frames = harness.sheets(experiment=experiment, sheets=["runs", "llm_calls"])
    return frames["runs"], frames["llm_calls"]


def test_reprice_recomputes_an_experiments_costs_from_its_stored_tokens_and_keeps_the_old_figure(
        experiments, prices_file):
    h = experiments
    base_runs, _ = calls_of(h, "base")
    runs_before, before = calls_of(h, "cand")
    summary = h.reprice("cand", prices=prices_file)
    assert (summary.runs, summary.calls, summary.repriced) == (2, 6, 4)
    assert dict(summary.tables) == {"user 2026-01-31": 4} and dict(summary.kept) == {"house-model-x": 2}
    runs, calls = calls_of(h, "cand")
    claude = calls[calls.model.str.startswith("claude")]
    for recorded in (ANTHROPIC_CACHE_WRITE, ANTHROPIC_CACHE_HIT):
        rows = claude[claude.prompt_tokens == recorded.billed["input"]]
        assert len(rows) == 2
        for row in rows.itertuples():
            assert abs(row.total_cost - float(new_cost(recorded.billed))) <= 1e-9
            assert row.price_table == "user 2026-01-31" and row.previous_price_table == "2025-11-24"
            old = before.set_index("llm_call_id").loc[row.llm_call_id]
            assert row.previous_total_cost == old.total_cost and row.total_cost < old.total_cost
            assert pd.notna(row.priced_at)
    house = calls[calls.model == "house-model-x"]
    assert house.total_cost.isna().all() and house.priced_at.isna().all()  # kept: never emptied, never guessed
    for run in runs.itertuples():
        own = claude[claude.run_id == run.run_id]
        assert abs(run.total_cost - float(sum(new_cost(r) for r in (ANTHROPIC_CACHE_WRITE.billed,
                                                                   ANTHROPIC_CACHE_HIT.billed)))) <= 1e-9
        assert run.total_cost == pytest.approx(own.total_cost.sum(), abs=1e-12)
    assert summary.before == pytest.approx(runs_before.total_cost.sum(), abs=1e-12)
    assert summary.after == pytest.approx(runs.total_cost.sum(), abs=1e-12)
    # the other experiment is untouched
    base_runs_after, base_calls_after = calls_of(h, "base")
    assert list(base_runs_after.total_cost) == list(base_runs.total_cost)
    assert base_calls_after.priced_at.isna().all() and set(base_calls_after.price_table.dropna()) == {"2025-11-24"}
    # again with the same prices: nothing changes, the old figure stays the first one
    again = h.reprice("cand", prices=prices_file)
    assert (again.repriced, again.changed) == (0, [])
    assert calls_of(h, "cand")[1].previous_total_cost.equals(calls.previous_total_cost)


def test_the_audit_finds_re_priced_sheets_clean_with_or_without_the_prices_they_were_priced_with(
        experiments, prices_file):
    h = experiments
    before = audit_frames(h.sheets())
    h.reprice("cand", "base", prices=prices_file)
    frames = h.sheets()
    audited = audit_frames(frames)
    assert audited.findings == ()  # a table it was not given: each call's parts add up
    # cost of pass follows: the model's runs cost what their calls of it cost now
    (was,), (now,) = ([g for g in result.aggregates.by_model if g.key.startswith("claude")]
                      for result in (before, audited))
    assert now.mean_cost == pytest.approx(frames["runs"].total_cost.mean(), abs=1e-12)
    assert now.mean_cost < was.mean_cost
    assert now.cost_of_pass == pytest.approx(now.mean_cost / now.pass_rate, abs=1e-12)
    try:
        load_prices(prices_file)
        assert audit_frames(frames).findings == ()  # given it: every cost recomputed from its tokens
        edited = {name: frame.copy() for name, frame in frames.items()}
        edited["llm_calls"].loc[edited["llm_calls"].model.str.startswith("claude").idxmax(), "input_cost"] = 1.0
        assert [(f.sheet, f.column) for f in audit_frames(edited).findings] == [("llm_calls", "input_cost")]
    finally:
        PRICES["claude-sonnet-4-5"] = BUNDLED_PRICES["claude-sonnet-4-5"]


def test_compare_warns_when_the_two_experiments_were_priced_with_different_tables(experiments, prices_file):
    h = experiments
    assert not [w for w in h.compare("base", "cand").warnings if "price" in w and "table" in w]
    h.reprice("cand", prices=prices_file)
    (warning,) = [w for w in h.compare("base", "cand").warnings if "price table" in w]
    assert "base: 2025-11-24" in warning and "cand: user 2026-01-31" in warning and "harness reprice" in warning
    h.reprice("base", prices=prices_file)
    assert not [w for w in h.compare("base", "cand").warnings if "price table" in w]


def test_runs_are_chosen_by_experiment_id_and_start_time_each_narrowing(tmp_path, prices_file):
    h = Harness(store=tmp_path / "runs.db", writer="thread")
    try:
        h.experiment("base", billed_graph(), CASES, concurrency=1)
        ids = list(h.sheets(sheets=["runs"])["runs"].run_id)
        assert select_runs(h.store) == ids
        assert select_runs(h.store, experiments=["base"], run_ids=[ids[1]]) == [ids[1]]
        assert select_runs(h.store, since="2999-01-01") == []
        assert select_runs(h.store, since="2000-01-01T00:00Z") == ids
        summary = h.reprice(runs=[ids[0][:8]], prices=prices_file)
        assert (summary.runs, summary.repriced) == (1, 2)
        with pytest.raises(RepriceError, match="no experiment 'nope'"):
            select_runs(h.store, experiments=["nope"])
        with pytest.raises(RepriceError, match="ISO date or time"):
            select_runs(h.store, since="yesterday")
    finally:
        h.close()


def test_a_batch_that_fails_is_rolled_back_whole_and_the_batches_before_it_stay(tmp_path, prices_file):
    h = Harness(store=tmp_path / "runs.db", writer="thread")
    try:
        h.experiment("base", billed_graph(), CASES, concurrency=1)
        ids = list(h.sheets(sheets=["runs"])["runs"].run_id)
        h.flush()
        with sqlite3.connect(tmp_path / "runs.db") as db:
            db.execute(f"CREATE TRIGGER refuse BEFORE UPDATE OF total_cost ON runs WHEN OLD.run_id = '{ids[1]}' "
                       "BEGIN SELECT RAISE(ABORT, 'refused by a trigger'); END")
        from harness.costs.reprice import prices_of

        with pytest.raises(RepriceError, match=r"stopped after 1 of 2 run\(s\).*refused by a trigger"):
            reprice(h.store, ids, prices_of(prices_file), batch_runs=1)
        calls = h.sheets(sheets=["llm_calls"])["llm_calls"]
        claude = calls[calls.model.str.startswith("claude")]
        assert set(claude[claude.run_id == ids[0]].price_table) == {"user 2026-01-31"}  # its batch committed
        assert set(claude[claude.run_id == ids[1]].price_table) == {"2025-11-24"}  # its calls rolled back with it
    finally:
        h.close()


def test_a_judge_cost_follows_its_calls(tmp_path, prices_file):
    h = Harness(store=tmp_path / "runs.db", writer="thread")
    judge = RecordedModel(responses=[ANTHROPIC_CACHE_HIT])
    try:
        with h.run(subject="Acme", workflow="judged") as run:
            judge.with_config(metadata={"harness.call_type": "llm_judge"}).invoke("grade it", run.config)
            run.log("llm_judge_results", {"status": "ok", "evaluation_cost": 0.123, "tokens_used": 3370})
        h.reprice(runs=[run.run_id], prices=prices_file)
        (row,) = h.sheets([run.run_id])["llm_judge_results"].itertuples()
        assert abs(row.evaluation_cost - float(new_cost(ANTHROPIC_CACHE_HIT.billed))) <= 1e-9
    finally:
        h.close()


def test_harness_reprice_prints_what_it_did_and_refuses_bad_input_in_one_line(tmp_path, prices_file):
    h = Harness(store=tmp_path / "runs.db", writer="thread")
    h.experiment("cand", billed_graph(), CASES, concurrency=1)
    h.close()
    db = str(tmp_path / "runs.db")
    done = harness_cli("reprice", "cand", "--prices", str(prices_file), "--store", db, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "re-priced 4 of 6 call(s) in 2 run(s) with" in done.stdout
    assert "priced with: user 2026-01-31 (4 call(s))" in done.stdout
    assert "kept as they were (no price for the model): house-model-x (2 call(s))" in done.stdout
    assert "runs whose cost changed" in done.stdout
    as_json = harness_cli("reprice", "--prices", str(prices_file), "--store", db, "--json", cwd=tmp_path)
    summary = json.loads(as_json.stdout)
    assert (summary["runs"], summary["repriced_calls"]) == (2, 0)  # already priced so
    assert summary["total_cost_before"] == summary["total_cost_after"]
    for args, message in ((["nope"], "no experiment 'nope'"), (["--since", "soon"], "ISO date or time"),
                          (["--runs", "zzzz"], "zzzz"), (["--prices", "missing.toml"], "cannot read prices file")):
        bad = harness_cli("reprice", *args, "--store", db, cwd=tmp_path)
        assert bad.returncode == 2 and message in bad.stderr and "Traceback" not in bad.stderr, (args, bad.stderr)
        assert len(bad.stderr.strip().splitlines()) == 1
    # back to the bundled table: the prices in force
    back = harness_cli("reprice", "cand", "--store", db, "--json", cwd=tmp_path)
    assert json.loads(back.stdout)["price_tables"] == {"2025-11-24": 4}
