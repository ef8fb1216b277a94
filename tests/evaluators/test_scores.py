"""Scores and the one definition of a run's pass: what a scorer may return, and run_passed."""

from __future__ import annotations

import math

from hypothesis import given
from hypothesis import strategies as st

import evaluators
from evaluators import Score, pass_rate, run_passed, score_results

passes = st.lists(st.one_of(st.none(), st.booleans(), st.sampled_from([0, 1])), max_size=12)
statuses = st.sampled_from(["completed", "failed", None])
#: A score as a row: its pass (1/0/empty), and maybe an error (an error's pass is empty: unknown).
rows = st.lists(st.one_of(
    st.builds(lambda p: {"passed": p, "error": None, "scorer": "m:s"}, st.sampled_from([None, 0, 1])),
    st.builds(lambda scorer: {"passed": None, "error": "boom", "scorer": scorer},
              st.sampled_from(["m:s", "m:pending", "evaluators.LLMJudge"]))), max_size=8)


def kleene_and(values):
    """Kleene's strong "and" of True / False / None (unknown), by enumeration of its definition."""
    return False if any(v is False for v in values) else None if any(v is None for v in values) else True


def gates(scores):
    """Each score that gates or could gate: its pass, or None (unknown) for an error that could gate."""
    return [None if s["error"] else bool(s["passed"]) for s in scores
            if (s["error"] and s["scorer"] not in evaluators.NEVER_GATE) or (not s["error"] and s["passed"] is not None)]


@given(statuses, rows)
def test_a_run_passes_by_kleenes_and_of_completing_and_its_gates_an_error_being_unknown(status, scores):
    found = gates(scores)
    expected = None if not found else kleene_and([status == "completed", *found])
    assert run_passed(status, scores) is expected


@given(statuses, passes)
def test_a_run_without_a_gating_score_has_no_pass(status, flags):
    verdict = run_passed(status, [{"passed": f} for f in flags])
    assert (verdict is None) == all(f is None for f in flags)


@given(statuses, passes)
def test_a_run_passes_exactly_when_it_completed_and_every_gate_holds(status, flags):
    verdict = run_passed(status, [{"passed": f} for f in flags])
    if verdict is not None:
        assert verdict == (status == "completed" and all(bool(f) for f in flags if f is not None))


@given(statuses, rows, st.randoms())
def test_the_pass_does_not_depend_on_the_order_of_the_scores(status, scores, rnd):
    shuffled = list(scores)
    rnd.shuffle(shuffled)
    assert run_passed(status, scores) == run_passed(status, shuffled)


def test_an_error_leaves_the_pass_unknown_but_never_hides_a_fail():
    ok, error = {"passed": 1}, {"passed": None, "error": "TimeoutError", "scorer": "m:slow"}
    assert run_passed("completed", [ok, error]) is None and evaluators.pass_unknown("completed", [ok, error])
    assert run_passed("completed", [ok, error, {"passed": 0}]) is False
    assert run_passed("failed", [error]) is False  # it did not complete: whatever the scorer would have said
    pending = {"passed": None, "error": evaluators.NOT_SCORED, "scorer": "m:later"}
    assert run_passed("completed", [ok, pending]) is None  # a scorer that has not run yet
    judge = {"passed": None, "error": "the judge failed", "scorer": "evaluators.LLMJudge"}
    assert run_passed("completed", [ok, judge]) is True and not evaluators.pass_unknown("completed", [ok, judge])


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
def test_anything_else_is_an_error_without_a_value_or_a_pass(bad):
    results = score_results("s", bad)
    assert all(r.value is None and r.passed is None and r.error for r in results)


def test_a_score_keeps_its_fields_and_its_name_replaces_the_scorers():
    (r,) = score_results("scorer", Score(0.25, True, "why", name="other"))
    assert (r.name, r.value, r.passed, r.explanation, r.error) == ("other", 0.25, True, "why", None)
    (r,) = score_results("scorer", Score(value=math.nan))
    assert r.value is None and r.passed is None and "not a finite number" in r.error


def test_a_dict_gives_one_score_per_key():
    out = score_results("s", {"a": 1, "b": False, "c": Score(2.0, name="x"), "d": math.inf})
    assert [(r.name, r.value, r.passed, r.error is None) for r in out] == [
        ("a", 1.0, None, True), ("b", 0.0, False, True), ("c", 2.0, None, True), ("d", None, None, False)]


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
    assert run_passed("completed", list(scored.values())) is False  # tool F1 below 1 (the judge never gates)


def test_an_answer_that_could_not_be_scored_is_an_error_with_its_reason_and_no_pass():
    s = evaluators.answer_score({"check": "judge", "score": None, "threshold": 0.8, "reason": "the judge failed"})
    assert (s.result.value, s.result.passed, s.result.error, s.source) == (None, None, "the judge failed", "llm")


def test_numbers_people_return_are_values_numpy_decimals_and_fractions_too():
    import decimal
    import fractions

    import numpy as np

    for given, value in ((np.float64(0.25), 0.25), (np.float32(0.5), 0.5), (np.int64(3), 3.0), (np.uint8(7), 7.0),
                         (decimal.Decimal("0.125"), 0.125), (fractions.Fraction(1, 4), 0.25)):
        (r,) = score_results("s", given)
        assert (r.value, r.passed, r.error) == (value, None, None), given
    (r,) = score_results("s", np.mean([1, 1, 0]) > 0.5)  # numpy's bool: a value and a pass
    assert (r.value, r.passed, r.error) == (1.0, True, None) and type(r.passed) is bool
    (r,) = score_results("s", Score(np.float64(0.75), passed=np.bool_(False)))
    assert (r.value, r.passed, r.error) == (0.75, False, None) and type(r.passed) is bool
    (r,) = score_results("s", {"x": np.bool_(True)}["x"])
    assert r.passed is True


def test_anything_else_names_its_type():
    import numpy as np

    for bad, named in ((np.array([0.1, 0.2]), "ndarray"), ("0.5", "str"), (1 + 2j, "complex"),
                       (Score(passed=1), "int"), (Score(value="high"), "str"), (decimal_nan(), "not a finite")):
        (r,) = score_results("s", bad)
        assert r.value is None and r.passed is None and named in r.error, (bad, r.error)


def decimal_nan():
    import decimal

    return decimal.Decimal("NaN")


def test_names_are_bounded_and_so_is_the_number_of_scores_a_call_returns():
    (r,) = score_results("scorer", {"n" * 10_000_000: 1.0})
    assert r.name == "scorer" and r.value is None and "at most 200 characters, not 10,000,000" in r.error
    assert len(r.error) < 300  # the name is not repeated whole in the error
    (r,) = score_results("scorer", Score(1.0, name="x" * 201))
    assert r.name == "scorer" and "at most 200" in r.error
    (r,) = score_results("scorer", {f"k{i}": i for i in range(101)})
    assert r.name == "scorer" and "101 scores; at most 100" in r.error
    assert len(score_results("scorer", {f"k{i}": i for i in range(100)})) == 100


def test_a_scorer_that_raises_anything_gives_its_error():
    class Custom(BaseException):
        pass

    for exc, text in ((SystemExit(5), "SystemExit: 5"), (KeyboardInterrupt(), "KeyboardInterrupt"),
                      (GeneratorExit(), "GeneratorExit"), (Custom("x"), "Custom: x")):
        r = evaluators.failed_score("s", exc)
        assert (r.value, r.passed, r.error) == (None, None, text)
