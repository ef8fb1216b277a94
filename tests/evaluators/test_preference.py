"""Pairwise preference: a judgement is a win, a loss or a tie (orders that disagree are a tie
and a position flip); the sign test and the win-rate interval are exact and agree with each
other; identical answers cannot show a preference; a judge's known position bias is
measured as it is."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import binomtest

from evaluators import Judgement, clopper_pearson, preference

WIN, LOSS, TIE = Judgement("b", "b"), Judgement("a", "a"), Judgement("tie", "tie")


def test_both_orders_must_agree_for_a_win_or_a_loss():
    assert (WIN.outcome, LOSS.outcome, TIE.outcome) == (1, -1, 0)
    first_shown, second_shown = Judgement("a", "b"), Judgement("b", "a")
    assert first_shown.outcome == second_shown.outcome == 0
    assert first_shown.flipped and second_shown.flipped and not WIN.flipped and not TIE.flipped
    assert (first_shown.position, second_shown.position, Judgement("a", "tie").position) == ("first", "second", None)
    with pytest.raises(ValueError, match="'a', 'b' or 'tie'"):
        Judgement("A", "b")  # type: ignore[arg-type]


def test_a_hand_made_comparison():
    cases = [[WIN]] * 9 + [[LOSS]] * 2 + [[TIE]] * 3 + [[Judgement("a", "b")]] * 2
    p = preference(cases)
    assert (p.n, p.wins, p.losses, p.ties, p.judgements, p.flips, p.first_position) == (16, 9, 2, 5, 16, 2, 2)
    assert p.win_rate == pytest.approx(9 / 11)
    assert p.p_better == pytest.approx(binomtest(9, 11, 0.5, alternative="greater").pvalue, rel=1e-12)
    assert p.p_worse == pytest.approx(binomtest(2, 11, 0.5, alternative="greater").pvalue, rel=1e-12)
    assert (p.win_low, p.win_high) == pytest.approx(clopper_pearson(9, 11, 0.9))
    assert p.delta == pytest.approx(7 / 16) and p.verdict == "improved"
    assert p.to_dict()["flip_rate"] == pytest.approx(2 / 16)


def test_a_case_judged_several_times_counts_once_by_the_sign_of_its_wins_minus_losses():
    p = preference([[WIN, WIN, LOSS], [WIN, LOSS], [LOSS, TIE]])
    assert (p.n, p.wins, p.losses, p.ties, p.judgements) == (3, 1, 1, 1, 7)


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 40), st.integers(0, 40), st.integers(0, 40), st.sampled_from([0.025, 0.05, 0.1]))
def test_the_win_interval_lies_beyond_one_half_exactly_when_the_sign_test_says_so(wins, losses, ties, alpha):
    p = preference([[WIN]] * wins + [[LOSS]] * losses + [[TIE]] * ties, alpha=alpha)
    assert (p.p_better < alpha) == (p.win_low > 0.5)
    assert (p.p_worse < alpha) == (p.win_high < 0.5)
    assert (p.verdict == "improved") == (p.p_better < alpha)
    assert (p.verdict == "regressed") == (p.p_worse < alpha)
    assert p.win_low <= (p.win_rate if p.win_rate is not None else 0.5) <= p.win_high


def test_the_sign_test_holds_its_level_in_exact_enumeration():
    # Under no preference each decided case is a coin: the chance of "improved" is at most alpha.
    for decided in range(1, 41):
        false_alarms = sum(math.comb(decided, w) / 2 ** decided for w in range(decided + 1)
                           if preference([[WIN]] * w + [[LOSS]] * (decided - w)).verdict == "improved")
        assert false_alarms <= 0.05 + 1e-12


@pytest.mark.parametrize("cases", [1, 5, 30, 200])
def test_identical_answers_leave_one_half_inside_the_win_interval(cases):
    p = preference([[TIE]] * cases)
    assert p.win_low <= 0.5 <= p.win_high and p.ci_level == pytest.approx(0.9)
    assert p.verdict == ("no_change" if cases >= 60 else "inconclusive")


def test_a_judge_that_prefers_the_first_answer_thirty_percent_of_the_time_is_measured_as_such():
    # B's answer is truly better in every case; 30% of the time the judge names whichever answer
    # it was shown first, whatever they say. A judgement then flips exactly when the judge
    # favours the first position in the order where A is first: 30% of judgements.
    rng = random.Random(2024)

    def ask(first: str) -> str:
        return first if rng.random() < 0.3 else "b"

    judged = [[Judgement(ask("a"), ask("b"))] for _ in range(400)]
    p = preference(judged)
    truth = 0.3
    low, high = clopper_pearson(p.flips, p.judgements, 0.95)
    assert low <= truth <= high
    assert p.first_position == p.flips and p.second_position == 0  # it leans to the first position only
    assert p.verdict == "improved" and p.losses == 0  # a flip is a tie: the bias never makes A win


def test_bad_options_are_refused():
    with pytest.raises(ValueError, match="alpha"):
        preference([[WIN]], alpha=0.5)
    with pytest.raises(ValueError, match="margin"):
        preference([[WIN]], margin=0)
    assert preference([]).verdict == "inconclusive"
