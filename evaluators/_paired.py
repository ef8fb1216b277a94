"""Paired tests of one metric over the cases two versions of an agent both ran.

``a[i]`` and ``b[i]`` are case i's values under versions A and B, each already the mean of
the case's repeats (the case is the unit), and ``d[i] = b[i] - a[i]``. Values are taken
exactly (:mod:`._exact`: a float as the rational its 12 significant digits write, a repeat
mean as a fraction), so 0.1 and 0.09999999999999998 are one value, 1/3 + 1/3 is 2/3, and a
tie stays a tie. Every test is one-sided and both directions are reported: ``p_down`` is the
evidence that the mean delta is below 0, ``p_up`` above 0; ``p_down + p_up >= 1``.

- **0/1 outcomes** (``outcome=True`` and every value 0 or 1): the exact binomial test on the
  discordant pairs (McNemar's conditional test, one-sided). With ``down`` cases going 1 -> 0
  and ``up`` cases 0 -> 1 of ``D = down + up``: ``p_down = P(X >= down)`` and
  ``p_up = P(X >= up)``, X ~ Binomial(D, 1/2); no discordant pair gives 1 and 1.
- **Everything else** (scores, latency, tokens, cost, and pass rates made fractional by
  repeats): the paired sign-flip permutation test of the mean delta. Under "no change" A
  and B are exchangeable within a case, so each delta's sign is a fair coin:
  ``p_down = P(sum(e_i d_i) <= sum(d_i))`` over signs ``e``. Exact over every sign pattern
  of the nonzero deltas when there are at most :data:`SIGN_FLIP_EXACT_MAX`; above that
  :data:`SIGN_FLIP_DRAWS` patterns drawn from a generator seeded with
  :data:`SIGN_FLIP_SEED` over the deltas in sorted order, counted with the observed pattern
  (``p = (1 + hits) / (1 + draws)``, never 0, valid at every level), so the same deltas in
  any order, and A and B swapped, give the same figures. For 0/1 deltas the sign-flip test
  *is* the binomial test above: a pass rate reduced over repeats keeps the same test
  wherever its cases stay 0 or 1.

**Interval**: the mean delta's two-sided interval at confidence ``1 - 2 * alpha`` (each end
a one-sided ``1 - alpha`` bound), got by inverting the same test, so that ``p_down < alpha``
exactly when ``ci_high < 0`` and ``p_up < alpha`` exactly when ``ci_low > 0``:

- sign flips: ``[low, high]`` = the shifts ``t`` the test of ``d - t`` does not reject at
  ``alpha`` in either direction, over the same sign patterns (zero deltas included: shifted,
  they are not zero). This reads the deltas as spread symmetrically about their mean (the
  shift model of permutation intervals); the test at 0 needs only the exchangeability above.
- 0/1 outcomes: ``delta = r * (2 * q - 1)`` with ``r`` the discordance rate and ``q`` the
  share of discordant pairs that went up; ``q``'s exact one-sided bounds (Clopper-Pearson:
  the inverted binomial test) set the interval's side of 0, and ``r``'s exact one-sided
  bounds, taken on the side that widens the interval, keep it honest when few pairs are
  discordant (0 of 3 cases is not evidence of equivalence; 0 of 60 is). Each end's
  coverage is at least ``1 - alpha`` in exact enumeration over the trinomial outcomes
  (tests/evaluators/test_paired.py).

An end the test cannot bound (too few cases to reach ``alpha``) is infinite; for a metric
bounded in [0, 1] it is clamped to -1 or 1, the largest possible mean delta.

**Equivalence interval** (``eq_low``, ``eq_high``, at the same level): what ``no_change``
is claimed from, so it must hold without the shift model: for 0/1 outcomes the interval
above (distribution-free already), for other bounded metrics the betting bounds, for
unbounded ones the Student t bounds (:mod:`._bounds`).

**Sequential** (``sequential=True``, for a comparison looked at again as cases arrive): the
p-values and the interval come from a confidence sequence, valid at every number of cases
at once: betting for bounded metrics, the asymptotic sequence for unbounded ones
(:mod:`._bounds`); both are also the equivalence interval. Looking after every shard, the
chance of ever calling a change that is not there stays at most alpha.

**Effect size**: the mean delta itself for metrics in [0, 1] (a change in pass rate or
score); otherwise the paired standardised mean difference ``mean(d) / sd(d)`` (sample sd),
0 when every delta is 0 and None when the deltas are one nonzero constant.

numpy and scipy are imported on first use: importing ``evaluators`` stays light.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from numbers import Real
from typing import TYPE_CHECKING, Any, Literal

from ._bounds import asymptotic_sequence, betting_delta, student_t
from ._exact import exact, exact_sum, on_grid

if TYPE_CHECKING:
    import numpy as np

SIGN_FLIP_EXACT_MAX = 16  # nonzero deltas enumerated exactly (2**16 sign patterns)
SIGN_FLIP_DRAWS = 20_000
SIGN_FLIP_SEED = 20_240_901
_DRAW_BLOCK = 2_000  # sign patterns drawn at once (bounded memory for many cases)
_EXACT_BINOMIAL_MAX = 4_096  # discordant pairs summed in exact integers; scipy above

Test = Literal["exact_binomial_discordant", "sign_flip_exact", "sign_flip_sampled", "betting_sequence",
               "asymptotic_sequence"]
EquivalenceMethod = Literal["exact_binomial_discordant", "betting", "student_t", "betting_sequence",
                            "asymptotic_sequence"]


@dataclass(frozen=True, slots=True)
class PairedTest:
    """One metric tested over ``n`` paired cases (rules in the module doc). ``a`` and ``b``
    are the means over the cases, ``delta = mean(b - a)``; ``p_down``/``p_up`` the one-sided
    p-values that the mean delta is below / above 0; ``ci_low``/``ci_high`` its interval at
    ``ci_level`` (None with no case; infinite where the test cannot bound it);
    ``eq_low``/``eq_high`` the interval equivalence is judged by (``eq_method``)."""

    n: int
    a: float | None
    b: float | None
    delta: float | None
    ci_low: float | None
    ci_high: float | None
    ci_level: float
    p_down: float
    p_up: float
    test: Test | None
    effect_size: float | None
    eq_low: float | None = None
    eq_high: float | None = None
    eq_method: EquivalenceMethod | None = None

    def p_worse(self, higher_is_better: bool) -> float:
        """The p-value that the metric got worse (down when higher is better)."""
        return self.p_down if higher_is_better else self.p_up

    def p_better(self, higher_is_better: bool) -> float:
        return self.p_up if higher_is_better else self.p_down


def mean_of_repeats(values: Iterable[float]) -> float | None:
    """One case's value from its repeats: their mean (None for none), so a case run five
    times counts once and an extra repeat that agrees changes nothing. Finite values only
    (compare averages exactly: :func:`evaluators._exact.exact_mean`)."""
    got = [float(v) for v in values]
    if any(not math.isfinite(v) for v in got):
        raise ValueError("a case's values must be finite numbers")
    return math.fsum(got) / len(got) if got else None


def paired_test(a: Sequence[Real], b: Sequence[Real], *, outcome: bool = False, bounded: bool = False,
                alpha: float = 0.05, draws: int = SIGN_FLIP_DRAWS, seed: int = SIGN_FLIP_SEED,
                sequential: bool = False) -> PairedTest:
    """Test the mean of ``b - a`` over paired cases (module doc). Values may be floats or
    fractions (exact repeat means). ``outcome``: the values are 0/1 outcomes (pass), so the
    exact binomial applies while every case is 0 or 1; ``bounded``: the metric lies in
    [0, 1]; ``sequential``: the always-valid test and interval. Empty input: n = 0, both
    p-values 1."""
    _check_alpha(alpha)
    xa, xb = _pairs(a, b)
    n = len(xa)
    level = 1 - 2 * alpha
    if n == 0:
        return PairedTest(0, None, None, None, None, None, level, 1.0, 1.0, None, None)
    deltas = [y - x for x, y in zip(xa, xb)]
    floats = [float(d) for d in deltas]
    delta = float(exact_sum(deltas) / n)
    test: Test
    method: EquivalenceMethod
    if sequential:
        if bounded:
            low, high, p_down, p_up = betting_delta(floats, alpha)
            test = method = "betting_sequence"
        else:
            low, high, p_down, p_up = asymptotic_sequence(floats, alpha)
            test = method = "asymptotic_sequence"
        eq_low, eq_high = low, high
    elif outcome and all(v in (0, 1) for v in (*xa, *xb)):
        down = sum(1 for x, y in zip(xa, xb) if x == 1 and y == 0)
        up = sum(1 for x, y in zip(xa, xb) if x == 0 and y == 1)
        p_down, p_up = binomial_tail(down, down + up), binomial_tail(up, down + up)
        low, high = _discordant_interval(down, up, n, alpha, p_down, p_up)
        test = method = "exact_binomial_discordant"
        eq_low, eq_high = low, high
    else:
        flips = SignFlips(deltas, draws=draws, seed=seed)
        p_down, p_up = flips.p_down(), flips.p_up()
        low, high = flips.interval(alpha)
        test = "sign_flip_exact" if flips.exact else "sign_flip_sampled"
        if bounded:
            eq_low, eq_high, _, _ = betting_delta(floats, alpha)
            method = "betting"
        else:
            eq_low, eq_high = student_t(floats, alpha)
            method = "student_t"
    if bounded:
        low, high = max(low, -1.0), min(high, 1.0)
        eq_low, eq_high = max(eq_low, -1.0), min(eq_high, 1.0)
    return PairedTest(n=n, a=float(exact_sum(xa) / n), b=float(exact_sum(xb) / n), delta=delta,
                      ci_low=low, ci_high=high, ci_level=level, p_down=p_down, p_up=p_up, test=test,
                      effect_size=delta if bounded else _standardised(floats), eq_low=eq_low, eq_high=eq_high,
                      eq_method=method)


def binomial_tail(k: int, n: int) -> float:
    """``P(X >= k)`` for X ~ Binomial(n, 1/2): exact integer sums up to
    :data:`_EXACT_BINOMIAL_MAX` trials, scipy's survival function above; 1 for ``k <= 0``."""
    if k <= 0:
        return 1.0
    if k > n:
        return 0.0
    if n <= _EXACT_BINOMIAL_MAX:
        return sum(math.comb(n, i) for i in range(k, n + 1)) / 2 ** n
    from scipy.stats import binom

    return float(binom.sf(k - 1, n, 0.5))


def _discordant_interval(down: int, up: int, n: int, alpha: float, p_down: float,
                         p_up: float) -> tuple[float, float]:
    """``delta = r (2q - 1)``: q's Clopper-Pearson bounds (their side of 1/2 is the test's,
    so the interval never contradicts it) and r's, on the side that widens (module doc)."""
    from scipy.stats import beta

    discordant = down + up
    if discordant == 0:
        q_low, q_high = 0.0, 1.0
    else:
        q_high = 1.0 if up == discordant else float(beta.ppf(1 - alpha, up + 1, discordant - up))
        q_low = 0.0 if up == 0 else float(beta.ppf(alpha, up, discordant - up + 1))
        # Where the exact test and the beta quantile meet at 1/2 (float rounding), the test decides.
        q_high = max(q_high, 0.5) if p_down >= alpha else min(q_high, math.nextafter(0.5, 0.0))
        q_low = min(q_low, 0.5) if p_up >= alpha else max(q_low, math.nextafter(0.5, 1.0))
    r_high = 1.0 if discordant == n else float(beta.ppf(1 - alpha, discordant + 1, n - discordant))
    r_low = 0.0 if discordant == 0 else float(beta.ppf(alpha, discordant, n - discordant + 1))
    high = (r_high if q_high >= 0.5 else r_low) * (2 * q_high - 1)
    low = (r_high if q_low <= 0.5 else r_low) * (2 * q_low - 1)
    return low, high


class SignFlips:
    """The sign-flip permutation distribution of a set of deltas (module doc).

    Deltas are put on one integer grid (:func:`evaluators._exact.on_grid`), so every sum of
    flipped deltas is exact and a tie of sums is a tie. Each sign pattern is kept as ``(s, t)``: the sum and number
    of the nonzero deltas it flips, with the zero deltas it flips counted by J ~ Binomial(z,
    1/2) (exact mode; sampled patterns flip zeros themselves and count them in ``t``). For a
    shift ``v``, the test of ``d - v`` in the down direction keeps every pattern whose
    flipped mean ``s / (t + J)`` is at least ``v`` (the empty pattern always):
    ``p_down(v) = W(v)``, non-increasing in ``v``, and the interval's upper end is the
    largest ``v`` with ``W(v) >= alpha``; the lower end is the same for ``-d``.
    """

    def __init__(self, deltas: Sequence[Real], *, draws: int = SIGN_FLIP_DRAWS, seed: int = SIGN_FLIP_SEED) -> None:
        import numpy as np

        if draws < 1:
            raise ValueError(f"draws must be at least 1, got {draws}")
        grid, unit = on_grid(deltas)
        self.n, self.scale = len(grid), float(unit)
        self.mean = float(int(grid.sum()) * unit / self.n) if self.n else 0.0
        self._limit = float(np.abs(grid).max()) if self.n else 0.0
        nonzero = grid[grid != 0]
        self.exact = nonzero.size <= SIGN_FLIP_EXACT_MAX
        self._mirrored = False
        self._splits: dict[bool, dict[str, Any]] = {}
        if self.exact:
            zeros = self.n - nonzero.size
            flips = _all_subsets(nonzero.size)
            self._s, self._t = flips @ nonzero, flips.sum(axis=1).astype(np.int64)
            self._patterns = 2 ** nonzero.size  # each weighs the same
            from scipy.stats import binom

            self._cdf = np.concatenate(([0.0], binom.cdf(np.arange(zeros + 1), zeros, 0.5)))
        else:
            ordered = np.sort(grid)
            mirrored = np.sort(-grid)
            # One of d and -d is drawn for, so swapping A and B swaps the figures exactly.
            if _lexicographically_less(mirrored, ordered):
                ordered, self._mirrored = mirrored, True
            rng = np.random.default_rng(seed)
            # Sums of integers below 2**53 are exact in floats, in any order: a matrix product.
            exact_in_floats = int(np.abs(ordered).sum()) < 2 ** 53
            sums, sizes = [np.zeros(1, np.int64)], [np.zeros(1, np.int64)]
            for start in range(0, draws, _DRAW_BLOCK):
                rows = min(_DRAW_BLOCK, draws - start)
                flipped = np.unpackbits(rng.integers(0, 256, size=(rows, (self.n + 7) // 8), dtype=np.uint8),
                                        axis=1, count=self.n)
                sums.append((flipped.astype(float) @ ordered.astype(float)).astype(np.int64) if exact_in_floats
                            else np.where(flipped.astype(bool), ordered, 0).sum(axis=1))
                sizes.append(flipped.sum(axis=1, dtype=np.int64))
            self._s, self._t = np.concatenate(sums), np.concatenate(sizes)
            self._patterns = self._s.size
            self._cdf = np.array([0.0, 1.0])

    def p_down(self) -> float:
        """``P(sum(e d) <= sum(d))``: small when the deltas lean below 0."""
        return self._weight_at_least(0.0, mirrored=self._mirrored)

    def p_up(self) -> float:
        return self._weight_at_least(0.0, mirrored=not self._mirrored)

    def interval(self, alpha: float) -> tuple[float, float]:
        """The shifts the test does not reject at ``alpha`` either way (module doc)."""
        _check_alpha(alpha)
        high = self._upper_end(alpha, mirrored=self._mirrored)
        low = -self._upper_end(alpha, mirrored=not self._mirrored)
        return low * self.scale if math.isfinite(low) else low, high * self.scale if math.isfinite(high) else high

    def _upper_end(self, alpha: float, *, mirrored: bool) -> float:
        """The largest float ``v`` (grid units) with ``W(v) >= alpha``. Without zero deltas
        to count by J, the patterns' means sorted downwards give it at once: the i-th is
        the answer for the first i with ``(empty + i) / patterns >= alpha``. Otherwise
        bisection over the ordered bit patterns of floats. Both are exact for the W that
        gives the p-values, so the interval and the test agree."""
        import numpy as np

        top = math.nextafter(self._limit, math.inf)
        if self._weight_at_least(top, mirrored=mirrored) >= alpha:
            return math.inf
        if self._cdf.size == 2:  # no zeros counted apart
            s = -self._s if mirrored else self._s
            flipped = self._t > 0
            means = np.sort((s[flipped] / self._t[flipped]))[::-1]
            counts = (np.count_nonzero(~flipped) + np.arange(1, means.size + 1)) / self._patterns
            return float(means[np.argmax(counts >= alpha)])
        lo, hi = _float_key(-self._limit), _float_key(top)
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if self._weight_at_least(_key_float(mid), mirrored=mirrored) >= alpha:
                lo = mid
            else:
                hi = mid
        return _key_float(lo)

    def _weight_at_least(self, v: float, *, mirrored: bool) -> float:
        """W(v): the weight of sign patterns whose flipped mean is at least ``v``."""
        import numpy as np

        split = self._split(mirrored)
        cdf, zeros = self._cdf, self._cdf.size - 2
        if v <= 0:
            kept = float(split["nonnegative"])  # their means are >= 0 >= v, the empty one included
        else:
            kept = split["empty"] * float(cdf[1])  # the empty pattern: no flipped delta at all
        with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
            if v > 0 and split["sp"].size:
                sp, tp = split["sp"], split["tp"]
                # The largest J with s/(t+J) >= v, from the real quotient, then checked in floats.
                j = np.clip(np.floor(sp / v - tp), -1, zeros)
                j = np.where((j + 1 <= zeros) & (sp / (tp + j + 1) >= v), j + 1, j)
                j = np.where((j >= 0) & (sp / np.maximum(tp + j, 1) < v), j - 1, j)
                kept += float(cdf[(j + 1).astype(np.int64)].sum())
            if v < 0 and split["sn"].size:
                sn, tn = split["sn"], split["tn"]
                j = np.clip(np.ceil(sn / v - tn), 0, zeros + 1)  # the smallest J with s/(t+J) >= v
                j = np.where((j - 1 >= 0) & (sn / np.maximum(tn + j - 1, 1) >= v), j - 1, j)
                j = np.where((j <= zeros) & (sn / (tn + j) < v), j + 1, j)
                kept += float((cdf[-1] - cdf[j.astype(np.int64)]).sum())
        return kept / self._patterns

    def _split(self, mirrored: bool) -> dict[str, Any]:
        """The patterns by the sign of their flipped sum, as W needs them (kept per side)."""
        if mirrored not in self._splits:
            s = -self._s if mirrored else self._s
            pos, neg = s > 0, s < 0
            self._splits[mirrored] = {
                "nonnegative": int((~neg).sum()), "empty": int(((s == 0) & (self._t == 0)).sum()),
                "sp": s[pos].astype(float), "tp": self._t[pos].astype(float),
                "sn": s[neg].astype(float), "tn": self._t[neg].astype(float)}
        return self._splits[mirrored]


def _all_subsets(size: int) -> np.ndarray:
    """Every subset of ``size`` items as a 0/1 matrix, one row per subset."""
    import numpy as np

    rows = np.arange(2 ** size, dtype=np.int64)[:, None]
    return (rows >> np.arange(size, dtype=np.int64)) & 1


def _lexicographically_less(x: np.ndarray, y: np.ndarray) -> bool:
    import numpy as np

    differ = np.flatnonzero(x != y)
    return bool(differ.size and x[differ[0]] < y[differ[0]])


def _float_key(x: float) -> int:
    """An integer in the order of the floats (-0.0 and 0.0 are one key)."""
    bits = struct.unpack("<q", struct.pack("<d", x))[0]
    return bits if bits >= 0 else -(bits & 0x7FFF_FFFF_FFFF_FFFF)


def _key_float(key: int) -> float:
    bits = key if key >= 0 else (-key) | -0x8000_0000_0000_0000
    return struct.unpack("<d", struct.pack("<q", bits))[0]


def _standardised(deltas: Sequence[float]) -> float | None:
    if all(d == 0 for d in deltas):
        return 0.0
    if len(deltas) < 2:
        return None
    mean = math.fsum(deltas) / len(deltas)
    sd = math.sqrt(math.fsum((d - mean) ** 2 for d in deltas) / (len(deltas) - 1))
    return mean / sd if sd > 0 else None


def _pairs(a: Sequence[Real], b: Sequence[Real]) -> tuple[list[Fraction], list[Fraction]]:
    if len(a) != len(b):
        raise ValueError(f"paired samples must have the same length, got {len(a)} and {len(b)}")
    try:
        return [exact(v) for v in a], [exact(v) for v in b]
    except (TypeError, ValueError):
        raise ValueError("paired samples must be finite numbers") from None


def _check_alpha(alpha: float) -> None:
    if not 0 < alpha < 0.5:
        raise ValueError(f"alpha must be between 0 and 0.5, got {alpha}")
