"""`h.compare` / `harness compare`: two experiments paired by case, with an honest verdict."""

from __future__ import annotations

import json
import math
import uuid

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import binomtest

from harness import Harness, UnknownExperiment
from harness.cli import main
from harness.experiment.compare import METRICS, compare_experiments
from harness.experiment.runner import ExperimentError


def write_experiment(store, name, outcomes, *, latency=None, answers=None, status=None, tokens=None, cost=None):
    """Runs of experiment ``name``: outcomes[i] is case i's pass (1, 0 or None), a list of
    them for repeats; answers[i] its answer score; status[i] its status (default completed)."""
    runs, metrics = [], []
    for i, outcome in enumerate(outcomes):
        for r, passed in enumerate(outcome if isinstance(outcome, list) else [outcome]):
            run_id = str(uuid.uuid4())
            runs.append({"run_id": run_id, "experiment": name, "case_id": f"case-{i}", "repeat_index": r,
                         "status": status[i] if status else "completed", "passed": passed,
                         "total_time_ms": latency[i] if latency else 100.0,
                         "total_tokens": tokens[i] if tokens else 50,
                         "total_cost": cost[i] if cost else 0.001 * (1 + i % 3)})
            if answers is not None:
                metrics.append({"run_id": run_id, "final_answer_quality": answers[i]})
    store.write("runs", runs)
    if metrics:
        store.write("agent_metrics", metrics)


@pytest.fixture
def h(thread_harness):
    return thread_harness


def run_cli(*args):
    with pytest.raises(SystemExit) as done:
        main(list(args))
    return done.value.code


def test_five_of_twelve_cases_flipping_to_fail_is_a_regression_and_fails_the_gate(h, capsys):
    write_experiment(h.store, "base", [1] * 12)
    write_experiment(h.store, "cand", [0] * 5 + [1] * 7)
    h.flush()
    m = h.compare("base", "cand").metric("pass_rate")
    assert (m.n, m.a, m.b, m.test, m.gated) == (12, 1.0, 7 / 12, "exact_binomial_discordant", True)
    assert m.p_worse == m.p_value == 0.03125 and m.p_better == 1.0
    assert m.ci_high < 0 and m.ci_level == 0.9 and m.verdict == "regressed"
    assert run_cli("compare", "base", "cand", "--store", str(h.store.location), "--fail-on-regression") == 1
    assert "gate: regressed: pass_rate" in capsys.readouterr().out


def test_five_cases_can_still_fire_the_gate(h):
    write_experiment(h.store, "base", [1] * 5)
    write_experiment(h.store, "cand", [0] * 5)
    c = h.compare("base", "cand")
    assert c.metric("pass_rate").p_worse == 0.03125 and c.regressed


def test_judge_grades_that_differ_only_by_float_noise_tie_and_the_exact_test_decides(h):
    write_experiment(h.store, "base", [1] * 20, answers=[0.2] * 14 + [0.8] * 6)
    write_experiment(h.store, "cand", [1] * 20, answers=[0.1] * 14 + [0.9] * 6)
    c = h.compare("base", "cand", gate=["answer_score"])
    m = c.metric("answer_score")
    sign_test = binomtest(14, 20, 0.5, alternative="greater").pvalue  # 0.058
    assert m.test == "sign_flip_sampled" and abs(m.p_worse - sign_test) < 0.006
    assert m.verdict == "inconclusive" and not c.regressed and c.inconclusive
    assert m.ci_low < 0 <= m.ci_high and m.needed_cases > 20


def eleven_down_three_up():
    base = [1] * 11 + [0] * 3 + [1] * 10 + [0] * 6
    cand = [0] * 11 + [1] * 3 + [1] * 10 + [0] * 6
    return base, cand


def test_one_more_repeat_of_a_case_that_passes_in_both_changes_nothing(h):
    base, cand = eleven_down_three_up()
    write_experiment(h.store, "base", base)
    write_experiment(h.store, "cand", cand)
    before = h.compare("base", "cand").metric("pass_rate")
    assert before.p_worse == pytest.approx(binomtest(11, 14, 0.5, alternative="greater").pvalue)  # 0.029
    assert before.verdict == "regressed"
    h.store.write("runs", [{"run_id": str(uuid.uuid4()), "experiment": "cand", "case_id": "case-14",
                            "repeat_index": 1, "status": "completed", "passed": 1, "total_time_ms": 100.0,
                            "total_tokens": 50, "total_cost": 0.001}])
    after = h.compare("base", "cand")
    m = after.metric("pass_rate")
    assert (m.p_worse, m.ci_low, m.ci_high, m.test, m.verdict) == (
        before.p_worse, before.ci_low, before.ci_high, before.test, "regressed")
    assert any("unequal repeats" in w for w in after.warnings)


def test_repeats_are_reduced_per_case_before_the_sign_flip_test(h):
    write_experiment(h.store, "base", [[1, 1, 1]] * 8)
    write_experiment(h.store, "cand", [[1, 0, 0]] * 8)
    m = h.compare("base", "cand").metric("pass_rate")
    assert (m.n, m.b, m.test) == (8, pytest.approx(1 / 3), "sign_flip_exact")
    assert m.p_worse == 0.5 ** 8 and m.verdict == "regressed"  # eight cases, each a third: one pattern in 256


def test_an_experiment_against_itself_is_no_change_with_enough_cases_and_inconclusive_with_three(h, capsys):
    write_experiment(h.store, "big", [1] * 45 + [0] * 15)
    write_experiment(h.store, "small", [1, 0, 1])
    big = h.compare("big", "big")
    assert big.metric("pass_rate").verdict == "no_change" and not big.regressed and not big.inconclusive
    assert {m.name: m.verdict for m in big.metrics} == {
        "pass_rate": "no_change", "latency_ms": "no_change", "total_tokens": "no_change", "total_cost": "no_change"}
    small = h.compare("small", "small")
    m = small.metric("pass_rate")
    assert m.verdict == "inconclusive" and m.needed_cases > 3 and small.inconclusive and not small.regressed
    h.flush()
    db = str(h.store.location)
    assert run_cli("compare", "small", "small", "--store", db, "--fail-on-regression") == 0
    assert (f"about {m.needed_cases} paired cases like these would show a change as large as the margin (±0.05) 80% "
            "of the time at alpha 0.05; there are 3") in capsys.readouterr().out
    assert run_cli("compare", "small", "small", "--store", db, "--fail-on-inconclusive") == 1


@settings(max_examples=25, deadline=None)
@given(st.lists(st.sampled_from([0, 1, [1, 0], [0, 0, 1]]), min_size=1, max_size=30))
def test_a_version_against_itself_never_regresses_or_improves(tmp_path_factory, outcomes):
    h = Harness(tmp_path_factory.mktemp("self") / "runs.db", writer="thread")
    try:
        write_experiment(h.store, "x", outcomes)
        c = h.compare("x", "x")
        assert all(m.verdict in ("no_change", "inconclusive") and m.delta == 0 for m in c.metrics)
    finally:
        h.close()


def test_a_run_without_a_pass_is_left_out_of_the_pass_rate_not_counted_as_passing(h):
    write_experiment(h.store, "base", [1] * 8)
    write_experiment(h.store, "cand", [None] * 3 + [0] * 5)
    c = h.compare("base", "cand")
    m = c.metric("pass_rate")
    assert (m.n, m.b, m.p_worse) == (5, 0.0, 0.5 ** 5)
    assert ("3 run(s) whose pass is unknown (passed is empty: a gating score errored or has not run) are left out "
            "of pass_rate (base 0, cand 3)") in c.warnings
    assert (m.cases, m.cases_lost, m.runs_missing, m.missing_data_fails) == (8, 3, (0, 3), True) and c.regressed


def test_a_run_that_crashes_fast_does_not_make_latency_better(h):
    write_experiment(h.store, "base", [1] * 10, latency=[100.0] * 10)
    write_experiment(h.store, "cand", [0] * 4 + [1] * 6, latency=[1.0] * 4 + [100.0] * 6,
                     status=["failed"] * 4 + ["completed"] * 6)
    c = h.compare("base", "cand")
    latency = c.metric("latency_ms")
    assert (latency.n, latency.delta, latency.verdict) == (6, 0.0, "no_change")
    assert ("4 run(s) that did not complete (base 0, cand 4) are left out of latency_ms, total_tokens, total_cost"
            in c.warnings)


def test_lower_latency_is_an_improvement_that_does_not_gate(h):
    write_experiment(h.store, "slow", [1] * 10, latency=[200.0 + i for i in range(10)])
    write_experiment(h.store, "fast", [1] * 10, latency=[100.0 + i for i in range(10)])
    assert h.compare("slow", "fast").metric("latency_ms").verdict == "improved"
    backwards = h.compare("fast", "slow")
    latency = backwards.metric("latency_ms")
    assert latency.verdict == "regressed" and not latency.gated and not backwards.regressed
    assert latency.margin == pytest.approx(0.1 * 154.5)  # 10% of the mean over both experiments
    assert h.compare("slow", "fast").metric("latency_ms").margin == latency.margin  # whichever is the baseline
    assert h.compare("fast", "slow", gate=["latency_ms"]).regressed


def test_a_cost_that_is_tokens_times_one_price_is_not_tested_twice(h):
    write_experiment(h.store, "base", [1] * 6, tokens=[100 * (i + 1) for i in range(6)],
                     cost=[2e-6 * 100 * (i + 1) for i in range(6)])
    write_experiment(h.store, "cand", [1] * 6, tokens=[90 * (i + 1) for i in range(6)],
                     cost=[2e-6 * 90 * (i + 1) for i in range(6)])
    c = h.compare("base", "cand")
    assert "total_cost" not in [m.name for m in c.metrics] and "total_tokens" in [m.name for m in c.metrics]
    assert any(w.startswith("total_cost is total_tokens times one price ($2 per million tokens)") for w in c.warnings)


def test_different_dataset_contents_and_unpaired_cases_are_warned_about(h, capsys):
    write_experiment(h.store, "base", [1, 1, 1, 1])
    write_experiment(h.store, "cand", [1, 1])
    h.store.save_experiment("base", {"name": "base", "dataset_sha256": "1a2b3c4d5e6f7a8b" * 4})
    h.store.save_experiment("cand", {"name": "cand", "dataset_sha256": "9f8e7d6c5b4a3928" * 4})
    c = h.compare("base", "cand")
    assert c.paired_cases == 2 and c.a_only == ("case-2", "case-3") and c.b_only == ()
    assert c.to_dict()["unpaired"] == {"a_only": ["case-2", "case-3"], "b_only": []}
    assert c.warnings[:2] == ("the datasets differ: base used sha256 1a2b3c4d5e6f…, cand used 9f8e7d6c5b4a…; "
                              "cases are paired by id only", "2 case(s) only in base, left out: case-2, case-3")
    h.flush()
    assert run_cli("compare", "base", "cand", "--store", str(h.store.location)) == 0
    out = capsys.readouterr().out
    assert "warning: 2 case(s) only in base, left out: case-2, case-3" in out and "the datasets differ" in out


def test_a_non_finite_score_is_never_a_value(h):
    write_experiment(h.store, "base", [1] * 6, answers=[0.5] * 6)
    write_experiment(h.store, "cand", [1] * 6, answers=[math.inf] + [0.5] * 5)
    c = h.compare("base", "cand", metrics=["answer_score"])
    m = c.metric("answer_score")
    assert m.n == 5 and m.delta == 0
    assert ("1 run(s) with a non-finite answer_score (NaN or infinity) are left out of it (base 0, cand 1)"
            in c.warnings)


def test_several_gated_metrics_are_judged_by_holm_adjusted_p_values(h):
    base, cand = eleven_down_three_up()  # pass rate: p_worse 0.029
    write_experiment(h.store, "base", base, latency=[100.0] * 30)
    write_experiment(h.store, "cand", cand, latency=[100.0 + (i % 7) for i in range(30)])
    alone = h.compare("base", "cand").metric("pass_rate")
    both = h.compare("base", "cand", gate=["pass_rate", "latency_ms"])
    pass_rate, latency = both.metric("pass_rate"), both.metric("latency_ms")
    assert pass_rate.p_worse == alone.p_worse and alone.verdict == "regressed"
    p_latency = latency.p_worse  # far below: Holm multiplies it by 2, pass rate's 0.029 by 1
    assert p_latency < alone.p_worse / 2 and latency.verdict == "regressed" and latency.p_value == 2 * p_latency
    assert pass_rate.p_value == alone.p_worse and pass_rate.verdict == "regressed" and both.regressed
    assert both.gate == ("pass_rate", "latency_ms") and pass_rate.holm and latency.holm and not alone.holm


def test_holm_can_turn_a_lone_regression_into_an_inconclusive_gate(h):
    base, cand = eleven_down_three_up()
    write_experiment(h.store, "base", base, answers=[0.5] * 30)
    write_experiment(h.store, "cand", cand, answers=[0.5] * 30)
    c = h.compare("base", "cand", gate=["pass_rate", "answer_score", "latency_ms"])
    m = c.metric("pass_rate")
    assert m.p_worse < 0.05 and m.p_value == pytest.approx(3 * m.p_worse) and m.verdict == "inconclusive"
    assert not c.regressed and c.inconclusive and m.needed_cases > 30


def test_the_margin_decides_between_no_change_and_inconclusive(h):
    write_experiment(h.store, "base", [1] * 60)
    write_experiment(h.store, "same", [1] * 60)
    assert h.compare("base", "same").metric("pass_rate").verdict == "no_change"
    tight = h.compare("base", "same", margin=0.02).metric("pass_rate")
    assert (tight.margin, tight.verdict) == (0.02, "inconclusive")
    latency = h.compare("base", "same", margin=["latency_ms=1%"]).metric("latency_ms")
    assert latency.margin == pytest.approx(1.0) and latency.verdict == "no_change"
    with pytest.raises(ValueError, match="margin"):
        h.compare("base", "same", margin="-1")


def test_the_same_input_prints_the_same_output(h):
    write_experiment(h.store, "base", [1, 0, 1, 1, 1, 0, 1, 1] * 3, latency=[float(i * 7 % 5) for i in range(24)])
    write_experiment(h.store, "cand", [0, 0, 1, 1, 0, 1, 1, 0] * 3, latency=[float(i * 3 % 4) for i in range(24)])
    first = h.compare("base", "cand").to_dict()
    assert first == h.compare("base", "cand").to_dict()
    assert next(m for m in first["metrics"] if m["name"] == "latency_ms")["test"] == "sign_flip_sampled"


def test_an_unknown_experiment_or_metric_is_refused(h):
    write_experiment(h.store, "base", [1])
    with pytest.raises(UnknownExperiment, match="no experiment 'nope' in the store"):
        h.compare("base", "nope")
    with pytest.raises(ValueError, match="unknown metric 'speed'"):
        h.compare("base", "base", metrics=["speed"])
    with pytest.raises(ValueError, match="unknown metric 'speed'"):
        h.compare("base", "base", gate=["speed"])


def test_the_json_has_the_keys_of_the_contract(h, capsys):
    write_experiment(h.store, "base", [1] * 30)
    write_experiment(h.store, "cand", [1] * 18 + [0] * 12)
    h.flush()
    assert run_cli("compare", "base", "cand", "--store", str(h.store.location), "--json") == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed == json.loads(json.dumps(h.compare("base", "cand").to_dict()))
    assert list(printed) == ["a", "b", "alpha", "paired_cases", "unpaired", "gate", "warnings", "metrics",
                             "regressed", "inconclusive", "missing_data", "sequential", "strict"]
    assert list(printed["metrics"][0]) == [
        "name", "higher_is_better", "gated", "n", "a", "b", "delta", "ci_low", "ci_high", "ci_level", "p_worse",
        "p_better", "p_value", "test", "margin", "effect_size", "verdict", "needed_cases",
        "eq_low", "eq_high", "eq_method", "cases", "cases_lost", "runs_missing", "missing_data_fails"]
    pass_rate = printed["metrics"][0]
    assert (pass_rate["p_worse"], pass_rate["test"], pass_rate["verdict"]) == (
        0.5 ** 12, "exact_binomial_discordant", "regressed")
    assert printed["gate"] == ["pass_rate"] and printed["regressed"] is True and printed["inconclusive"] is False


def test_the_cli_gate_and_exit_codes(h, capsys):
    write_experiment(h.store, "base", [1] * 30)
    write_experiment(h.store, "cand", [1] * 18 + [0] * 12)
    write_experiment(h.store, "few", [1] * 28 + [0] * 2)
    h.flush()
    db = str(h.store.location)
    assert run_cli("compare", "base", "cand", "--store", db) == 0  # no gate asked for
    assert run_cli("compare", "base", "cand", "--store", db, "--fail-on-regression") == 1
    assert run_cli("compare", "base", "few", "--store", db, "--fail-on-regression") == 0
    assert run_cli("compare", "base", "few", "--store", db, "--fail-on-inconclusive") == 1
    out = capsys.readouterr().out
    assert "pass_rate: inconclusive: about" in out and "paired cases like these would show a change of" in out
    assert run_cli("compare", "base", "cand", "--store", db, "--metric", "latency_ms", "--fail-on-regression") == 0
    assert "no metric gates this comparison" in capsys.readouterr().out


@pytest.mark.parametrize("args,message", [
    (["--metric", "speed"], "unknown --metric 'speed'"), (["--gate", "speed"], "unknown --gate 'speed'"),
    (["--alpha", "0.5"], "--alpha must be between 0 and 0.5"), (["--margin", "ten"], "--margin 'ten' must be"),
    (["--margin", "speed=1"], "--margin speed=… names an unknown metric"), (["--margin", "0"], "must be a positive"),
])
def test_bad_options_are_one_line_usage_errors(h, capsys, args, message):
    write_experiment(h.store, "base", [1])
    h.flush()
    assert run_cli("compare", "base", "base", "--store", str(h.store.location), *args) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_an_unknown_experiment_is_a_usage_error(h, capsys):
    write_experiment(h.store, "base", [1])
    h.flush()
    assert run_cli("compare", "base", "gone", "--store", str(h.store.location)) == 2
    assert "no experiment 'gone'" in capsys.readouterr().err


def test_every_metric_is_known_by_name_with_its_direction_and_kind():
    assert list(METRICS) == ["pass_rate", "answer_score", "tool_f1", "trajectory_match", "latency_ms",
                             "total_tokens", "total_cost"]
    assert [m.name for m in METRICS.values() if m.higher_is_better] == list(METRICS)[:4]
    assert [m.name for m in METRICS.values() if m.outcome] == ["pass_rate"]
    assert [m.name for m in METRICS.values() if m.completed_only] == ["latency_ms", "total_tokens", "total_cost"]


def test_compare_reads_a_store_directly(h):
    write_experiment(h.store, "base", [1] * 4)
    c = compare_experiments(h.store, "base", "base", metrics=["pass_rate"])
    assert [m.name for m in c.metrics] == ["pass_rate"] and c.gate == ("pass_rate",)


def test_the_report_of_two_experiments_compares_them_in_the_same_words(h, tmp_path, capsys):
    write_experiment(h.store, "base", [1] * 30)
    write_experiment(h.store, "cand", [1] * 18 + [0] * 12)
    h.flush()
    out = tmp_path / "report.html"
    assert run_cli("report", "--store", str(h.store.location), "--experiment", "base", "--experiment", "cand",
                   "--out", str(out)) == 0
    page = out.read_text()
    assert "Comparison: base → cand" in page and "badge regressed" in page
    assert "<td class=num>100%</td>" in page and "<td class=num>60%</td>" in page
    assert "regressed: pass_rate" in page and "90% CI" in page and "0.00024 worse" in page


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


def test_pairs_compared_with_the_experiments_already_read_say_what_each_alone_says(h):
    write_experiment(h.store, "base", [1] * 8, answers=[1.0] * 8, latency=[100.0 + i for i in range(8)])
    write_experiment(h.store, "cand", [0] * 3 + [1] * 5, answers=[0.5] * 8, latency=[150.0 + i for i in range(8)])
    write_experiment(h.store, "next", [1] * 6 + [0] * 2, answers=[0.9] * 8, latency=[90.0] * 8)
    h.flush()
    read: dict = {}
    pairs = [(a, b) for a in ("base", "cand", "next") for b in ("base", "cand", "next") if a != b]
    shared = [compare_experiments(h.store, a, b, read=read).to_dict() for a, b in pairs]
    assert shared == [compare_experiments(h.store, a, b).to_dict() for a, b in pairs]
    assert sorted(read) == ["base", "cand", "next"]  # each experiment read once, kept for the next pair
    kept = {name: id(runs) for name, runs in read.items()}
    compare_experiments(h.store, "next", "base", read=read)
    assert {name: id(runs) for name, runs in read.items()} == kept


def test_the_readme_s_inconclusive_example_prints_as_shown(h, capsys):
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    shown = readme.split("**Inconclusive.**", 1)[1].split("```text\n", 1)[1].split("```", 1)[0]
    write_experiment(h.store, "base", [1, 1, 1])
    write_experiment(h.store, "cand", [0, 0, 1])
    h.flush()
    assert run_cli("compare", "base", "cand", "--store", str(h.store.location)) == 0
    out = capsys.readouterr().out
    assert all(line in out for line in shown.strip().splitlines())
