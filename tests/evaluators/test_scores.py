"""Scores and the one definition of a run's pass: what a scorer may return, and run_passed."""

from __future__ import annotations

import math

from hypothesis import given
from hypothesis import strategies as st

import evaluators
from evaluators import Score, pass_rate, run_passed, score_results

passes = st.lists(st.one_of(st.none(), st.booleans(), st.sampled_from([0, 1])), max_size=12)
statuses = st.sampled_from(["completed", "failed", None])


@given(statuses, passes)
def test_a_run_without_a_gating_score_has_no_pass(status, flags):
    verdict = run_passed(status, flags)
    assert (verdict is None) == all(f is None for f in flags)


@given(statuses, passes)
def test_a_run_passes_exactly_when_it_completed_and_every_gate_holds(status, flags):
    verdict = run_passed(status, flags)
    if verdict is not None:
        assert verdict == (status == "completed" and all(bool(f) for f in flags if f is not None))


@given(statuses, passes, st.randoms())
def test_the_pass_does_not_depend_on_the_order_of_the_scores(status, flags, rnd):
    shuffled = list(flags)
    rnd.shuffle(shuffled)
    assert run_passed(status, flags) == run_passed(status, shuffled)


@given(passes)
def test_a_pass_rate_covers_only_runs_with_a_pass_and_says_how_many(flags):
    rate, covered = pass_rate(flags)
    known = [f for f in flags if f is not None]
    assert covered == len(known)
    assert rate is None if not known else 0 <= rate <= 1 and math.isclose(rate, sum(map(bool, known)) / len(known))


@given(st.one_of(st.integers(-10**6, 10**6), st.floats(allow_nan=False, allow_infinity=False)))
def test_a_finite_number_is_its_value_and_does_not_gate(x):
    (result,) = score_results("s", x)
    assert (result.name, result.value, result.passed, result.error) == ("s", float(x), None, None)


@given(st.booleans())
def test_a_bool_is_value_one_or_zero_and_its_pass(b):
    (result,) = score_results("s", b)
    assert (result.value, result.passed) == (1.0 if b else 0.0, b)


@given(st.one_of(st.just(math.nan), st.just(math.inf), st.just(-math.inf), st.text(), st.lists(st.integers()),
                 st.none(), st.builds(object), st.dictionaries(st.text(min_size=1), st.integers(), max_size=0)))
def test_anything_else_is_an_error_without_a_value_that_does_not_pass(bad):
    results = score_results("s", bad)
    assert all(r.value is None and r.passed is False and r.error for r in results)


def test_a_score_keeps_its_fields_and_its_name_replaces_the_scorers():
    (r,) = score_results("scorer", Score(0.25, True, "why", name="other"))
    assert (r.name, r.value, r.passed, r.explanation, r.error) == ("other", 0.25, True, "why", None)
    (r,) = score_results("scorer", Score(value=math.nan))
    assert r.value is None and r.passed is False and "not a finite number" in r.error


def test_a_dict_gives_one_score_per_key():
    out = score_results("s", {"a": 1, "b": False, "c": Score(2.0, name="x"), "d": math.inf})
    assert [(r.name, r.value, r.passed, r.error is None) for r in out] == [
        ("a", 1.0, None, True), ("b", 0.0, False, True), ("c", 2.0, None, True), ("d", None, False, False)]


def test_the_built_in_checks_are_scores_with_their_gates():
    rows = {"tool_selections": [{"f1_score": 0.5}], "agent_metrics": [{"trajectory_match": 0.8, "overall_score": 0.7,
                                                                      "eval_status": "average"}],
            "evaluations": [{"overall_score": 0.9, "eval_status": "good"}],
            "llm_judge_results": [{"overall_score": None, "error": "timed out"}]}
    answer = {"check": "contains", "score": 1.0, "threshold": 1.0, "answer": "Paris", "reference": "Paris"}
    scored = {s.result.name: s for s in evaluators.built_in_scores(rows, status="completed", experiment=True,
                                                                    answer=answer, require_tools=True)}
    assert {n: (s.result.value, s.result.passed, s.source) for n, s in scored.items()} == {
        "completed": (1.0, True, "rule"), "answer": (1.0, True, "rule"), "tool_f1": (0.5, False, "rule"),
        "trajectory_match": (0.8, None, "rule"), "agent_metrics": (0.7, None, "rule"),
        "evaluation": (0.9, True, "rule"), "judge": (None, None, "llm")}
    assert scored["judge"].result.error == "timed out"
    assert run_passed("completed", [s.result.passed for s in scored.values()]) is False  # tool F1 below 1


def test_an_answer_that_could_not_be_scored_fails_with_its_reason():
    s = evaluators.answer_score({"check": "judge", "score": None, "threshold": 0.8, "reason": "the judge failed"})
    assert (s.result.value, s.result.passed, s.result.error, s.source) == (None, False, "the judge failed", "llm")

