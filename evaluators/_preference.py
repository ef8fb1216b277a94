"""Pairwise preference: which of two versions' answers a judge prefers, case by case, with
the judge's position bias controlled and measured.

Every judgement shows the judge both answers twice, A first and then B first. Each order's
verdict is ``"a"``, ``"b"`` or ``"tie"`` (named after the versions, not the positions). A
judgement is a **win** for B when both orders prefer B, a **loss** when both prefer A, and a
**tie** when both say tie or when the orders disagree: a **position flip**, the judge
changing its mind with the order, is no evidence either way. A flip where each order
preferred the answer shown first is a *first-position* flip, the other way round a
*second-position* one: their split says which way the judge leans.

A case judged several times (repeats of the experiments) is one win, loss or tie: the sign
of its wins minus its losses, so the case stays the unit as in ``compare``. Over the ``n``
cases with ``W`` wins and ``L`` losses:

- **win rate** ``W / (W + L)`` over the cases the judge decided, with its exact
  (Clopper-Pearson) interval at ``1 - 2 * alpha``: its ends are the one-sided ``1 - alpha``
  bounds, so it lies above 1/2 exactly when the sign test below says ``improved``, and with
  no decided case it is [0, 1].
- **sign test**: exact and one-sided on the decided cases, ``p_better = P(X >= W)`` and
  ``p_worse = P(X >= L)`` for X ~ Binomial(W + L, 1/2).
- **delta** ``(W - L) / n``, how much more often B wins than loses over all cases, with the
  interval of ``compare``'s exact test of discordant pairs (:func:`~._paired.paired_test`
  on the two versions' wins), so ties count as evidence of no difference: many cases and no
  decided one show ``no_change``.
- the **verdict** in ``compare``'s words (:func:`~._verdict.verdict`, margin on delta), and
  the **flip rate**: flipped judgements / judgements, with its exact interval.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from ._intervals import clopper_pearson
from ._paired import binomial_tail, paired_test
from ._verdict import Verdict, verdict

Choice = Literal["a", "b", "tie"]
CHOICES: tuple[Choice, ...] = ("a", "b", "tie")


@dataclass(frozen=True, slots=True)
class Judgement:
    """One judgement of a case: the verdict with A shown first, then with B shown first
    (both named after the versions)."""

    a_first: Choice
    b_first: Choice

    def __post_init__(self) -> None:
        for v in (self.a_first, self.b_first):
            if v not in CHOICES:
                raise ValueError(f"a pairwise verdict is 'a', 'b' or 'tie', not {v!r}")

    @property
    def outcome(self) -> int:
        """+1 B wins, -1 A wins, 0 a tie (both orders tie, or they disagree)."""
        if self.a_first == self.b_first and self.a_first != "tie":
            return 1 if self.a_first == "b" else -1
        return 0

    @property
    def flipped(self) -> bool:
        return self.a_first != self.b_first

    @property
    def position(self) -> Literal["first", "second"] | None:
        """Which position the judge preferred in both orders, when it preferred a position."""
        if (self.a_first, self.b_first) == ("a", "b"):
            return "first"
        if (self.a_first, self.b_first) == ("b", "a"):
            return "second"
        return None


@dataclass(frozen=True, slots=True)
class Preference:
    """The pairwise statistics of B against A (module doc)."""

    n: int  # cases judged
    wins: int  # cases B won
    losses: int  # cases A won
    ties: int
    win_rate: float | None  # wins / (wins + losses)
    win_low: float
    win_high: float
    ci_level: float
    p_worse: float  # that B loses more often than it wins
    p_better: float
    delta: float | None  # (wins - losses) / n
    delta_low: float | None
    delta_high: float | None
    margin: float
    verdict: Verdict
    judgements: int
    flips: int
    flip_low: float
    flip_high: float
    first_position: int  # flips in which each order preferred the answer shown first
    second_position: int

    @property
    def flip_rate(self) -> float | None:
        return self.flips / self.judgements if self.judgements else None

    def to_dict(self) -> dict[str, Any]:
        return {"n": self.n, "wins": self.wins, "losses": self.losses, "ties": self.ties,
                "win_rate": self.win_rate, "win_rate_ci": [self.win_low, self.win_high], "ci_level": self.ci_level,
                "test": "exact_sign_test", "p_worse": self.p_worse, "p_better": self.p_better,
                "p_value": min(self.p_worse, self.p_better), "delta": self.delta,
                "delta_ci": [self.delta_low, self.delta_high], "margin": self.margin, "verdict": self.verdict,
                "judgements": self.judgements, "position_flips": self.flips, "flip_rate": self.flip_rate,
                "flip_rate_ci": [self.flip_low, self.flip_high], "first_position_flips": self.first_position,
                "second_position_flips": self.second_position}


def preference(cases: Sequence[Sequence[Judgement]], *, alpha: float = 0.05, margin: float = 0.05) -> Preference:
    """The statistics of B against A over ``cases``, each the judgements of one case (a case
    without any is left out). Rules in the module doc."""
    if not 0 < alpha < 0.5:
        raise ValueError(f"alpha must be between 0 and 0.5, got {alpha}")
    if not margin > 0:
        raise ValueError(f"margin must be > 0, got {margin}")
    judged = [list(c) for c in cases if c]
    outcomes = [_sign(sum(j.outcome for j in c)) for c in judged]
    wins, losses = outcomes.count(1), outcomes.count(-1)
    n, decided = len(outcomes), wins + losses
    level = 1 - 2 * alpha
    p_worse, p_better = binomial_tail(losses, decided), binomial_tail(wins, decided)
    win_low, win_high = _win_interval(wins, decided, alpha, p_worse, p_better)
    test = paired_test([float(o == -1) for o in outcomes], [float(o == 1) for o in outcomes], outcome=True,
                       bounded=True, alpha=alpha)
    said: Verdict = verdict(p_worse, p_better, test.ci_low, test.ci_high, alpha=alpha, margin=margin) if n else \
        "inconclusive"
    every = [j for c in judged for j in c]
    flips = sum(j.flipped for j in every)
    flip_low, flip_high = clopper_pearson(flips, len(every), level)
    return Preference(
        n=n, wins=wins, losses=losses, ties=n - decided, win_rate=wins / decided if decided else None,
        win_low=win_low, win_high=win_high, ci_level=level, p_worse=p_worse, p_better=p_better,
        delta=test.delta, delta_low=test.ci_low, delta_high=test.ci_high, margin=margin, verdict=said,
        judgements=len(every), flips=flips, flip_low=flip_low, flip_high=flip_high,
        first_position=sum(j.position == "first" for j in every),
        second_position=sum(j.position == "second" for j in every))


def _sign(x: int) -> int:
    return (x > 0) - (x < 0)


def _win_interval(wins: int, decided: int, alpha: float, p_worse: float, p_better: float) -> tuple[float, float]:
    """The win rate's exact interval at ``1 - 2 alpha``, on the side of 1/2 the sign test is
    (where the beta quantile and the exact test meet at 1/2 in floats, the test decides)."""
    low, high = clopper_pearson(wins, decided, 1 - 2 * alpha)
    low = max(low, math.nextafter(0.5, 1.0)) if p_better < alpha else min(low, 0.5)
    high = min(high, math.nextafter(0.5, 0.0)) if p_worse < alpha else max(high, 0.5)
    return low, high
