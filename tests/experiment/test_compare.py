"""`h.compare` / `harness compare`: two experiments paired by case, with honest statistics."""

from __future__ import annotations

import json
import uuid

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import evaluators
from harness import Harness, Store, UnknownExperiment
from harness.cli import main
from harness.experiment.runner import ExperimentError


def write_experiment(store, name, outcomes, *, latency=None, answers=None, repeats=1):
    """Runs of experiment ``name``: outcomes[i] is case i's pass (1/0), a list per repeat when repeats > 1."""
    runs, metrics = [], []
    for i, outcome in enumerate(outcomes):
        for r, passed in enumerate(outcome if isinstance(outcome, list) else [outcome]):
            run_id = str(uuid.uuid4())
            runs.append({"run_id": run_id, "experiment": name, "case_id": f"case-{i}", "repeat_index": r,
                         "status": "completed", "passed": passed,
                         "total_time_ms": (latency[i] if latency else 100.0), "total_tokens": 50, "total_cost": 0.001})
            if answers is not None:
                metrics.append({"run_id": run_id, "final_answer_quality": answers[i]})
    store.write("runs", runs)
    if metrics:
        store.write("agent_metrics", metrics)


@pytest.fixture
def h(tmp_path):
    harness = Harness(tmp_path / "runs.db", writer="thread")
    yield harness
    harness.close()


def test_twelve_of_thirty_cases_flipping_to_fail_is_a_regression(h):
    write_experiment(h.store, "base", [1] * 30)
    write_experiment(h.store, "cand", [1] * 18 + [0] * 12)
    c = h.compare("base", "cand")
    m = c.metric("pass_rate")
    assert (m.result.n, m.result.a, m.result.b) == (30, 1.0, 0.6)
    assert m.result.delta == pytest.approx(-0.4) and m.result.effect_size == pytest.approx(-0.4)
    assert m.result.test == "mcnemar_exact" and m.result.p_value == 2 * 0.5 ** 12
    assert m.result.ci_high < 0 and m.verdict == "regressed" and c.regressed
    assert c.to_dict()["metrics"][0]["ci_low"] == pytest.approx(-0.57, abs=0.02)


def test_identical_versions_are_unchanged(h):
    write_experiment(h.store, "base", [1, 0, 1, 1, 0, 1])
    write_experiment(h.store, "same", [1, 0, 1, 1, 0, 1])
    c = h.compare("base", "same")
    assert [(m.name, m.result.delta, m.verdict) for m in c.metrics] == [
        (name, 0.0, "unchanged") for name in ("pass_rate", "latency_ms", "total_tokens", "total_cost")]
    assert not c.regressed


def test_repeats_are_averaged_per_case_and_tested_with_wilcoxon(h):
    write_experiment(h.store, "base", [[1, 1, 1]] * 8, repeats=3)
    write_experiment(h.store, "cand", [[1, 0, 0]] * 8, repeats=3)
    m = h.compare("base", "cand").metric("pass_rate")
    assert m.result.test == "wilcoxon" and m.result.b == pytest.approx(1 / 3) and m.result.n == 8
    assert m.result.p_value == pytest.approx(evaluators.wilcoxon_p([-2 / 3] * 8)) and m.verdict == "regressed"


def test_lower_latency_is_an_improvement_and_higher_a_regression(h):
    write_experiment(h.store, "slow", [1] * 10, latency=[200.0 + i for i in range(10)])
    write_experiment(h.store, "fast", [1] * 10, latency=[100.0 + i for i in range(10)])
    assert h.compare("slow", "fast").metric("latency_ms").verdict == "improved"
    backwards = h.compare("fast", "slow")
    assert backwards.metric("latency_ms").verdict == "regressed" and not backwards.regressed  # not a quality metric


def test_unpaired_cases_are_listed_and_left_out(h):
    write_experiment(h.store, "base", [1, 1, 1])
    write_experiment(h.store, "cand", [1, 1])
    c = h.compare("base", "cand")
    assert c.paired_cases == 2 and c.a_only == ("case-2",) and c.b_only == ()
    assert c.to_dict()["unpaired"] == {"a_only": ["case-2"], "b_only": []}


def test_answer_scores_are_compared_where_both_sides_have_one(h):
    write_experiment(h.store, "base", [1] * 6, answers=[0.9] * 6)
    write_experiment(h.store, "cand", [1] * 6, answers=[0.5] * 6)
    m = h.compare("base", "cand", metrics=["answer_score"])
    assert [x.name for x in m.metrics] == ["answer_score"] and m.metric("answer_score").verdict == "regressed"
    assert m.metric("answer_score").result.effect_size == -1.0  # rank-biserial: every case worse


def test_the_same_input_prints_the_same_output(h):
    write_experiment(h.store, "base", [1, 0, 1, 1, 1, 0, 1, 1], latency=[float(i * 7 % 5) for i in range(8)])
    write_experiment(h.store, "cand", [0, 0, 1, 1, 0, 1, 1, 0], latency=[float(i * 3 % 4) for i in range(8)])
    assert h.compare("base", "cand").to_dict() == h.compare("base", "cand").to_dict()


def test_an_unknown_experiment_or_metric_is_refused(h):
    write_experiment(h.store, "base", [1])
    with pytest.raises(UnknownExperiment, match="no experiment 'nope' in the store"):
        h.compare("base", "nope")
    with pytest.raises(ValueError, match="unknown metric 'speed'"):
        h.compare("base", "base", metrics=["speed"])


def run_cli(*args):
    with pytest.raises(SystemExit) as done:
        main(list(args))
    return done.value.code


def test_the_cli_gate_json_and_exit_codes(h, capsys):
    write_experiment(h.store, "base", [1] * 30)
    write_experiment(h.store, "cand", [1] * 18 + [0] * 12)
    write_experiment(h.store, "same", [1] * 30)
    h.flush()
    db = str(h.store.location)
    assert run_cli("compare", "base", "cand", "--store", db, "--json") == 0
    assert json.loads(capsys.readouterr().out) == json.loads(json.dumps(h.compare("base", "cand").to_dict()))
    assert run_cli("compare", "base", "cand", "--store", db, "--fail-on-regression") == 1
    assert "regressed: pass_rate" in capsys.readouterr().out
    assert run_cli("compare", "base", "same", "--store", db, "--fail-on-regression") == 0
    assert run_cli("compare", "base", "cand", "--store", db, "--metric", "latency_ms", "--fail-on-regression") == 0
    assert run_cli("compare", "base", "gone", "--store", db) == 2
    assert "no experiment 'gone'" in capsys.readouterr().err
    assert run_cli("compare", "base", "cand", "--store", db, "--metric", "speed") == 2
    assert run_cli("compare", "base", "cand", "--store", db, "--alpha", "2") == 2


pairs = st.lists(st.tuples(st.floats(-1e3, 1e3), st.floats(-1e3, 1e3)), min_size=1, max_size=25)


@settings(max_examples=40, deadline=None)
@given(pairs)
def test_the_interval_holds_the_mean_delta_and_ignores_the_order_of_pairs(values):
    a, b = [x for x, _ in values], [y for _, y in values]
    r = evaluators.compare_paired(a, b, higher_is_better=True, resamples=2_000)
    assert r.ci_low <= r.delta <= r.ci_high
    assert 0.0 <= r.p_value <= 1.0 and -1.0 <= r.effect_size <= 1.0
    flipped = evaluators.compare_paired(a[::-1], b[::-1], higher_is_better=True, resamples=2_000)
    assert flipped.delta == pytest.approx(r.delta) and flipped.p_value == pytest.approx(r.p_value)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.sampled_from([0, 1]), min_size=1, max_size=30))
def test_a_version_against_itself_is_unchanged(outcomes):
    r = evaluators.compare_paired(outcomes, outcomes, higher_is_better=True, binary=True, resamples=1_000)
    assert (r.delta, r.p_value, r.verdict) == (0.0, 1.0, "unchanged")


def test_no_pairs_is_no_comparison():
    r = evaluators.compare_paired([], [], higher_is_better=True)
    assert (r.n, r.delta, r.verdict) == (0, None, "unchanged")


def test_the_report_of_two_experiments_compares_them_and_shows_their_pass_rates(h, tmp_path, capsys):
    write_experiment(h.store, "base", [1] * 30)
    write_experiment(h.store, "cand", [1] * 18 + [0] * 12)
    h.flush()
    out = tmp_path / "report.html"
    assert run_cli("report", "--store", str(h.store.location), "--experiment", "base", "--experiment", "cand",
                   "--out", str(out)) == 0
    page = out.read_text()
    assert "Comparison: base → cand" in page and "badge regressed" in page
    assert "<td class=num>100%</td>" in page and "<td class=num>60%</td>" in page


@pytest.mark.parametrize("name", ["", "  "])
def test_a_blank_name_is_refused_as_such(h, capsys, name):
    write_experiment(h.store, "base", [1])
    with pytest.raises(ExperimentError, match="not blank"):
        h.compare("base", name)
    h.flush()
    assert run_cli("compare", name, "base", "--store", str(h.store.location)) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "an experiment name must be a text that is not blank" in err


def test_a_huge_unknown_name_is_cut_in_the_one_line_error(h, capsys):
    write_experiment(h.store, "base", [1])
    h.flush()
    assert run_cli("compare", "base", "n" * 100_000, "--store", str(h.store.location)) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and len(err) < 400 and "no experiment 'nnnn" in err and "more characters]" in err
