"""The gate has no side doors: a cost named for the gate is tested even when it is tokens
times one price, a multi-turn case with an errored or unknown turn is missing (never the mean
of the turns left), a name given twice cannot widen the Holm family, and settings that cannot
be (an infinite margin, an agreement above 1) are refused in one line."""

from __future__ import annotations

import uuid

import pytest

from evaluators import turns_passed

from .test_compare import run_cli, write_experiment


@pytest.fixture
def h(thread_harness):
    return thread_harness


def test_a_gated_total_cost_is_tested_even_when_it_is_tokens_times_one_price(h, capsys):
    write_experiment(h.store, "base", [1] * 12, tokens=[100] * 12, cost=[100 * 2e-6] * 12)
    write_experiment(h.store, "cand", [1] * 12, tokens=[300] * 12, cost=[300 * 2e-6] * 12)
    c = h.compare("base", "cand", gate=["total_cost"])
    assert c.metric("total_cost").verdict == "regressed" and c.regressed
    h.flush()
    assert run_cli("compare", "base", "cand", "--store", str(h.store.location), "--gate", "total_cost",
                   "--fail-on-regression") == 1
    assert "gate: regressed: total_cost" in capsys.readouterr().out
    # Not named: it is left to total_tokens, with the reason.
    assert "total_cost" not in {m.name for m in h.compare("base", "cand").metrics}


def write_two_turn_cases(store, name, n, *, second_pass, second_quality):
    """``n`` cases of two turns each; turn 1 passes with quality 1.0; turn 2's pass and its
    ``q`` score as given (a quality of None: the scorer errored)."""
    runs, scores = [], []
    for i in range(n):
        for turn, passed, quality in ((1, 1, 1.0), (2, second_pass, second_quality)):
            run_id = str(uuid.uuid4())
            runs.append({"run_id": run_id, "experiment": name, "case_id": f"case-{i}", "repeat_index": 0,
                         "turn": turn, "status": "completed", "passed": passed, "total_time_ms": 10.0,
                         "total_tokens": 5, "total_cost": 0.0})
            scores.append({"run_id": run_id, "name": "q", "value": quality, "source": "code",
                           "error": None if quality is not None else "RuntimeError: the judge is down",
                           "row_key": f"{run_id}:score:q"})
    store.write("runs", runs)
    store.write("scores", scores)


def test_a_multi_turn_case_whose_turn_errored_is_missing_not_the_mean_of_the_other_turns(h):
    write_two_turn_cases(h.store, "base", 12, second_pass=1, second_quality=0.1)
    write_two_turn_cases(h.store, "cand", 12, second_pass=None, second_quality=None)
    c = h.compare("base", "cand", gate=["q", "pass_rate"])
    q, passes = c.metric("q"), c.metric("pass_rate")
    assert q.n == 0 and q.runs_missing == (0, 12) and q.verdict != "improved"
    assert passes.n == 0 and passes.runs_missing == (0, 12)
    assert c.missing_data and any("left out of q (base 0, cand 12)" in w for w in c.warnings)


def test_a_repeat_of_turns_passes_three_valued():
    assert turns_passed([1, 1]) is True
    assert turns_passed([1, None]) is None and turns_passed([None, 1]) is None and turns_passed([]) is None
    assert turns_passed([None, 0]) is False and turns_passed([0, 1]) is False


@pytest.mark.parametrize("names", [["cand", "cand"], ["cand", "base"]])
def test_a_name_given_twice_among_several_candidates_is_refused(h, capsys, names):
    write_experiment(h.store, "base", [1] * 12)
    write_experiment(h.store, "cand", [0] * 5 + [1] * 7)
    h.flush()
    assert run_cli("compare", "base", "cand", "--store", str(h.store.location), "--fail-on-regression") == 1
    capsys.readouterr()
    assert run_cli("compare", "base", *names, "--store", str(h.store.location), "--fail-on-regression") == 2
    err = capsys.readouterr().err
    assert "is given twice" in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("args,message", [
    (["--margin", "1e400"], "must be a positive number"),
    (["--margin", "pass_rate=1e999"], "must be a positive number"),
    (["--min-agreement", "7"], "between -1 and 1"),
])
def test_settings_that_cannot_be_are_refused_in_one_line(h, capsys, args, message):
    write_experiment(h.store, "base", [1] * 12)
    write_experiment(h.store, "cand", [1] * 12)
    h.flush()
    assert run_cli("compare", "base", "cand", "--store", str(h.store.location), *args) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1
