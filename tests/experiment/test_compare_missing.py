"""Missing is missing: a score that errored, an unknown pass or a run without the score is
left out of the metric's test and warned about per side, never read as 0; and a gate is
never passed by missing data."""

from __future__ import annotations

import pytest

from harness import Score

from .test_compare import run_cli, write_experiment


@pytest.fixture
def h(thread_harness):
    return thread_harness


def case_number(run):
    return int(run.case_id.split("-")[1])


def judged(run, case):
    """A constant 0.8 judge that fails on every other case of the candidate."""
    if run.experiment == "cand" and case_number(run) % 2 == 0:
        raise TimeoutError("the judge timed out")
    return Score(0.8)


def test_a_scorer_that_fails_on_every_other_run_is_left_out_never_read_as_0(h, capsys):
    write_experiment(h.store, "base", [1] * 16)
    write_experiment(h.store, "cand", [1] * 16)
    h.rescore("base", [judged])
    h.rescore("cand", [judged])
    c = h.compare("base", "cand", metrics=["judged"])
    m = c.metric("judged")
    assert (m.n, m.a, m.b, m.delta) == (8, 0.8, 0.8, 0.0) and m.verdict != "regressed"
    assert (m.cases, m.cases_lost, m.runs_missing, m.gated) == (16, 8, (0, 8), False) and not c.regressed
    assert "8 run(s) whose judged score errored are left out of judged (base 0, cand 8)" in c.warnings
    assert "judged: 8 of 16 paired case(s) have no value left on one side and are left out of its test" in c.warnings
    gated = h.compare("base", "cand", gate=["judged"])
    assert gated.metric("judged").missing_data_fails and gated.regressed and gated.missing_data
    h.flush()
    db = str(h.store.location)
    assert run_cli("compare", "base", "cand", "--store", db, "--gate", "judged", "--fail-on-regression") == 1
    out = capsys.readouterr().out
    assert "warning: 8 run(s) whose judged score errored are left out of judged (base 0, cand 8)" in out
    assert ("judged: 8 of 16 paired case(s) have no value on one side (more than 10% fails the gate): the gate "
            "cannot pass on data it does not have") in out
    assert "gate: missing data: judged" in out


def test_unknown_passes_on_the_baseline_fail_the_gate_and_the_warning_names_the_baseline(h, capsys):
    """A scorer that errored on every baseline run left their pass unknown; the candidate
    really regressed: the gate must not pass because the baseline has no passes."""
    write_experiment(h.store, "base", [None] * 16)
    write_experiment(h.store, "cand", [1] * 3 + [0] * 13)
    c = h.compare("base", "cand")
    m = c.metric("pass_rate")
    assert (m.n, m.cases, m.cases_lost, m.runs_missing, m.verdict) == (0, 16, 16, (16, 0), "inconclusive")
    assert m.missing_data_fails and c.regressed and c.missing_data
    assert ("16 run(s) whose pass is unknown (passed is empty: a gating score errored or has not run) are left out "
            "of pass_rate (base 16, cand 0)") in c.warnings
    h.flush()
    assert run_cli("compare", "base", "cand", "--store", str(h.store.location), "--fail-on-regression") == 1
    out = capsys.readouterr().out
    assert "pass_rate: no paired case has a value of it on both sides: the gate cannot pass" in out
    assert "gate: missing data: pass_rate" in out


@pytest.mark.parametrize("unknown,fails,strict_fails", [(0, False, False), (1, False, True), (2, False, True),
                                                         (3, True, True)])
def test_more_than_a_tenth_of_the_cases_lost_fails_the_gate_and_any_with_strict(h, capsys, unknown, fails,
                                                                               strict_fails):
    write_experiment(h.store, "base", [1] * 20)
    write_experiment(h.store, "cand", [None] * unknown + [1] * (20 - unknown))
    c = h.compare("base", "cand")
    assert c.metric("pass_rate").cases_lost == unknown and c.regressed == fails
    assert h.compare("base", "cand", strict=True).regressed == strict_fails
    h.flush()
    db = str(h.store.location)
    assert run_cli("compare", "base", "cand", "--store", db, "--fail-on-regression") == int(fails)
    assert run_cli("compare", "base", "cand", "--store", db, "--fail-on-regression", "--strict") == int(strict_fails)
    if strict_fails:
        assert "any lost case fails the gate (--strict)" in capsys.readouterr().out


def test_a_gated_score_the_candidate_never_got_fails_the_gate(h):
    write_experiment(h.store, "base", [1] * 6)
    write_experiment(h.store, "cand", [1] * 6)
    h.rescore("base", [judged])
    c = h.compare("base", "cand", gate=["judged"])
    m = c.metric("judged")
    assert (m.n, m.cases, m.cases_lost, m.runs_missing) == (0, 6, 6, (0, 6)) and c.regressed
    assert "6 run(s) without a judged score are left out of judged (base 0, cand 6)" in c.warnings


def test_a_pass_fail_label_is_a_value_and_a_label_on_one_side_only_is_missing_on_the_other(h):
    write_experiment(h.store, "base", [1] * 4)
    write_experiment(h.store, "cand", [1] * 4)
    base = [r["run_id"] for r in h.store.rows("runs", where={"experiment": "base"})]
    cand = [r["run_id"] for r in h.store.rows("runs", where={"experiment": "cand"})]
    for run_id in base:
        h.label(run_id, "reviewed", True)
    h.label(cand[0], "reviewed", False)
    m = h.compare("base", "cand", metrics=["reviewed"]).metric("reviewed")
    assert (m.n, m.a, m.b, m.test, m.cases_lost, m.runs_missing) == (1, 1.0, 0.0, "exact_binomial_discordant", 3,
                                                                     (0, 3))


def test_a_gating_scorer_that_failed_on_every_baseline_run_cannot_pass_the_gate(h, capsys):
    """The whole path: rescoring the baseline with a scorer that raises leaves its runs' pass
    unknown; the candidate had regressed 1.0 -> 0.19; the gate fails, and says which side."""
    write_experiment(h.store, "base", [1] * 16)
    write_experiment(h.store, "cand", [1] * 3 + [0] * 13)
    assert h.compare("base", "cand").metric("pass_rate").verdict == "regressed"

    def check(run, case):
        raise ConnectionError("the grading service is down")

    h.rescore("base", [check])
    assert {r["passed"] for r in h.store.rows("runs", columns=["passed"], where={"experiment": "base"})} == {None}
    c = h.compare("base", "cand")
    assert c.metric("pass_rate").runs_missing == (16, 0) and c.regressed and c.missing_data
    assert any(w.startswith("16 run(s) whose pass is unknown") and w.endswith("(base 16, cand 0)")
               for w in c.warnings)
    h.flush()
    assert run_cli("compare", "base", "cand", "--store", str(h.store.location), "--fail-on-regression") == 1
