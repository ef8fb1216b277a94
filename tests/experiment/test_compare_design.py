"""What compare tests and claims on lumpy data: exact ties of repeat means, equivalence only
from an interval that needs no shift model, an equal-repeat design, intervals at Holm's
level, a direction and margin per score, several candidates in one family, and results that
stay valid when compare is run again as cases arrive."""

from __future__ import annotations

import json

import pytest

from harness import Comparisons, Score

from .test_compare import eleven_down_three_up, run_cli, write_experiment


@pytest.fixture
def h(thread_harness):
    return thread_harness


def repeats(passes, of=3):
    """A case's runs: ``passes`` of ``of`` repeats pass."""
    return [1] * passes + [0] * (of - passes)


def test_sums_of_thirds_tie_and_the_exact_p_decides(h, capsys):
    write_experiment(h.store, "base", [repeats(k) for k in (0, 3, 3, 2, 3, 2, 0, 3)])
    write_experiment(h.store, "cand", [repeats(k) for k in (0, 0, 1, 0, 1, 3, 1, 1)])
    m = h.compare("base", "cand").metric("pass_rate")
    assert (m.test, m.p_worse, m.verdict) == ("sign_flip_exact", 0.0625, "inconclusive") and m.ci_high >= 0
    h.flush()
    assert run_cli("compare", "base", "cand", "--store", str(h.store.location), "--fail-on-regression") == 0


@pytest.mark.parametrize("passes", [2, 3])
def test_a_handful_of_identical_cases_is_inconclusive_not_no_change(h, capsys, passes):
    write_experiment(h.store, "base", [repeats(passes)] * 5)
    write_experiment(h.store, "cand", [repeats(passes)] * 5)
    m = h.compare("base", "cand").metric("pass_rate")
    assert m.verdict == "inconclusive" and m.delta == 0 and m.eq_low < -0.05 < 0.05 < m.eq_high
    assert m.eq_method == ("exact_binomial_discordant" if passes == 3 else "betting")
    h.flush()
    run_cli("compare", "base", "cand", "--store", str(h.store.location))
    if passes == 2:
        assert ("the test's interval lies within ±0.05, but the distribution-free (betting) interval"
                in capsys.readouterr().out)


def test_many_identical_cases_do_show_no_change(h):
    write_experiment(h.store, "base", [repeats(2)] * 300)
    write_experiment(h.store, "cand", [repeats(2)] * 300)
    m = h.compare("base", "cand").metric("pass_rate")
    assert m.verdict == "no_change" and -0.05 < m.eq_low <= m.eq_high < 0.05


def test_unequal_repeats_are_tested_on_as_many_repeats_on_both_sides(h):
    """The candidate's extra repeats (all failures here) are left out and reported: one run
    per case on both sides, so the two means of a case are exchangeable."""
    write_experiment(h.store, "base", [1] * 10)
    write_experiment(h.store, "cand", [[1, 0, 0]] * 10)
    c = h.compare("base", "cand")
    m = c.metric("pass_rate")
    assert (m.n, m.a, m.b, m.test, m.verdict) == (10, 1.0, 1.0, "exact_binomial_discordant", "inconclusive")
    assert ("unequal repeats: base has 1 run(s) per case, cand 3; each case is tested on as many repeats on both "
            "sides (its first), so 20 run(s) are left out of the tests (base 0, cand 20)") in c.warnings


def test_an_interval_under_holm_is_at_the_level_holm_decided_at(h):
    base, cand = eleven_down_three_up()  # pass rate alone: p_worse 0.029, regressed
    write_experiment(h.store, "base", base, answers=[0.5] * 30)
    write_experiment(h.store, "cand", cand, answers=[0.5] * 30)
    alone = h.compare("base", "cand").metric("pass_rate")
    assert alone.verdict == "regressed" and alone.ci_high < 0 and alone.ci_level == 0.9
    c = h.compare("base", "cand", gate=["pass_rate", "answer_score", "latency_ms"])
    m = c.metric("pass_rate")
    assert m.verdict == "inconclusive" and m.ci_high >= 0  # not an interval below 0 next to inconclusive
    assert m.ci_level == pytest.approx(1 - 2 * 0.05 / 3) and m.ci_low < alone.ci_low
    h.flush()


def test_holm_intervals_exclude_0_for_every_metric_holm_rejects(h):
    write_experiment(h.store, "base", [1] * 30, latency=[100.0] * 30)
    write_experiment(h.store, "cand", [1] * 12 + [0] * 18, latency=[150.0 + i for i in range(30)])
    c = h.compare("base", "cand", gate=["pass_rate", "latency_ms"])
    gated = [m for m in c.metrics if m.gated]
    for m in gated:
        assert m.verdict == "regressed" and m.holm
        assert (m.ci_high < 0) if m.higher_is_better else (m.ci_low > 0)
    # Holm's steps: the smaller p at alpha / 2 (a 95% interval), the next at alpha (90%).
    assert sorted(m.ci_level for m in gated) == pytest.approx([0.9, 0.95])


CALLS = {"base": [5] * 10, "cand": [3, 3, 3, 4, 4] * 2}


def case_number(run):
    return int(run.case_id.split("-")[1])


def model_calls(run, case):
    return Score(CALLS[run.experiment][case_number(run)], higher_is_better=False)


def calls_attribute(run, case):
    return CALLS[run.experiment][case_number(run)]


calls_attribute.higher_is_better = False


def calls_plain(run, case):
    return CALLS[run.experiment][case_number(run)]


def test_a_score_says_that_lower_is_better_and_a_fall_is_an_improvement(h, capsys):
    for name in ("base", "cand"):
        write_experiment(h.store, name, [1] * 10)
        h.rescore(name, [model_calls, calls_attribute, calls_plain])
    directions = {r["name"]: r["higher_is_better"] for r in h.store.rows("scores")}
    assert (directions["model_calls"], directions["calls_attribute"], directions["calls_plain"]) == (0, 0, None)
    c = h.compare("base", "cand")
    for name in ("model_calls", "calls_attribute"):
        m = c.metric(name)
        assert (m.higher_is_better, m.a, m.b, m.verdict) == (False, 5.0, 3.4, "improved")
    assert c.metric("calls_plain").verdict == "regressed"  # said nothing: higher is taken as better
    flagged = h.compare("base", "cand", lower_is_better=["calls_plain"], higher_is_better=["model_calls"])
    assert flagged.metric("calls_plain").verdict == "improved" and flagged.metric("model_calls").verdict == "regressed"
    h.flush()
    db = str(h.store.location)
    assert run_cli("compare", "base", "cand", "--store", db, "--lower-is-better", "calls_plain", "--gate",
                   "calls_plain", "--fail-on-regression", "--json") == 0
    printed = json.loads(capsys.readouterr().out)
    plain = next(m for m in printed["metrics"] if m["name"] == "calls_plain")
    assert (plain["higher_is_better"], plain["verdict"]) == (False, "improved")


def test_a_store_of_the_previous_version_gains_the_direction_column_and_keeps_its_scores(tmp_path):
    import sqlite3

    from harness import Store
    from harness.store.migrations import SCHEMA_VERSION

    path = tmp_path / "old.db"
    store = Store(path)
    store.write("scores", [{"run_id": "r1", "name": "calls", "value": 3.0, "source": "code",
                            "row_key": "r1:score:calls"}])
    store.close()
    with sqlite3.connect(path) as conn:
        conn.execute('ALTER TABLE scores DROP COLUMN "higher_is_better"')
        conn.execute(f"UPDATE harness_meta SET value = '{SCHEMA_VERSION - 1}' WHERE key = 'schema_version'")
    reopened = Store(path)
    assert [(r["name"], r["value"], r["higher_is_better"]) for r in reopened.rows("scores")] == [("calls", 3.0, None)]
    assert reopened.meta("schema_version") == str(SCHEMA_VERSION)
    reopened.close()


@pytest.mark.parametrize("args,message", [
    (["--lower-is-better", "pass_rate"], "--lower-is-better pass_rate: pass_rate's direction is fixed (higher is "
                                         "better)"),
    (["--higher-is-better", "latency_ms"], "latency_ms's direction is fixed (lower is better)"),
    (["--lower-is-better", "speed"], "unknown --lower-is-better 'speed'"),
    (["--lower-is-better", "pass_rate", "--higher-is-better", "pass_rate"], "given as both"),
])
def test_a_direction_that_cannot_be_is_a_usage_error(h, capsys, args, message):
    write_experiment(h.store, "base", [1])
    h.flush()
    assert run_cli("compare", "base", "base", "--store", str(h.store.location), *args) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def test_a_score_s_margin_is_set_by_name_and_its_default_is_the_same_either_way_round(h):
    for name in ("base", "cand"):
        write_experiment(h.store, name, [1] * 10)
        h.rescore(name, [calls_plain])
    forward = h.compare("base", "cand").metric("calls_plain")
    backward = h.compare("cand", "base").metric("calls_plain")
    assert forward.margin == backward.margin == pytest.approx(0.1 * (5 + 3.4) / 2)
    assert h.compare("base", "cand", margin=["calls_plain=0.5"]).metric("calls_plain").margin == 0.5


def test_several_candidates_against_one_baseline_share_one_holm_family(h, capsys):
    write_experiment(h.store, "base", [1] * 12)
    write_experiment(h.store, "worse", [0] * 5 + [1] * 7)  # alone: p_worse 1/32, regressed
    write_experiment(h.store, "same", [1] * 12)
    assert h.compare("base", "worse").regressed
    both = h.compare("base", "worse", "same")
    assert isinstance(both, Comparisons) and both.candidates == ("worse", "same")
    worse = both["worse"].metric("pass_rate")
    assert worse.holm and worse.p_value == pytest.approx(2 / 32) and worse.verdict == "inconclusive"
    assert worse.ci_high >= 0 and not both.regressed and both.inconclusive
    h.flush()
    db = str(h.store.location)
    assert run_cli("compare", "base", "worse", "same", "--store", db, "--fail-on-regression") == 0
    out = capsys.readouterr().out
    assert "base → worse, same" in out and "candidate" in out
    assert "2 gated metrics (worse: pass_rate, same: pass_rate)" in out
    assert run_cli("compare", "base", "worse", "same", "--store", db, "--json") == 0
    printed = json.loads(capsys.readouterr().out)
    assert list(printed) == ["a", "candidates", "alpha", "gate", "comparisons", "regressed", "inconclusive",
                             "missing_data"]
    assert [c["b"] for c in printed["comparisons"]] == ["worse", "same"]
    assert printed["comparisons"][0] == json.loads(json.dumps(both["worse"].to_dict()))


def test_sequential_results_stay_valid_at_every_look_and_still_catch_a_large_regression(h, capsys):
    write_experiment(h.store, "base", [1] * 40)
    write_experiment(h.store, "cand", [1] * 20 + [0] * 20)
    write_experiment(h.store, "few", [0] * 5 + [1] * 35)
    big = h.compare("base", "cand", sequential=True).metric("pass_rate")
    assert big.test == "betting_sequence" and big.verdict == "regressed" and big.ci_high < 0
    assert (big.eq_low, big.eq_high) == (big.ci_low, big.ci_high)
    once = h.compare("base", "few").metric("pass_rate")
    looked = h.compare("base", "few", sequential=True).metric("pass_rate")
    assert once.verdict == "regressed" and looked.verdict == "inconclusive" and looked.p_worse > once.p_worse
    h.flush()
    db = str(h.store.location)
    assert run_cli("compare", "base", "few", "--store", db, "--sequential", "--fail-on-regression") == 0
    out = capsys.readouterr().out
    assert "sequential: p-values and intervals are valid however often" in out
    assert "compared sequentially: add cases and compare again" in out
    assert run_cli("compare", "base", "cand", "--store", db, "--sequential", "--fail-on-regression", "--json") == 1
    assert json.loads(capsys.readouterr().out)["sequential"] is True
