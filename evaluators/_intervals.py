"""Intervals for agreement statistics: exact where one exists, else a seeded bootstrap.

- **Exact** (a proportion ``k`` of ``n``: raw agreement, a base rate, a win rate): the
  Clopper-Pearson interval, the inversion of the exact binomial test; at ``level`` each tail
  holds at most ``(1 - level) / 2``. ``n = 0`` gives ``[0, 1]``.
- **Bootstrap over units** (κ, weighted κ, Spearman's ρ, Fleiss' κ, Krippendorff's α: no
  exact interval exists): :data:`BOOTSTRAP_DRAWS` resamples of the units (runs) with
  replacement from a generator seeded with :data:`BOOTSTRAP_SEED`, the statistic
  recomputed on each, and the percentile interval of the draws where it is defined (a
  resample in which, say, every run has one value leaves κ undefined: it is counted and left
  out). Resampling is drawn as counts per unit (a multinomial row per draw), so a statistic
  that is a function of per-unit sums is recomputed for every draw at once.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    import numpy as np

BOOTSTRAP_DRAWS = 2_000
BOOTSTRAP_SEED = 20_250_301
_BLOCK = 250  # draws recomputed at once (memory stays bounded for many units)

Method = Literal["exact", "bootstrap"]


@dataclass(frozen=True, slots=True)
class Estimate:
    """A statistic with its two-sided interval at ``level``: ``value`` is None when the
    statistic is undefined on the data (e.g. κ when both raters gave one value throughout),
    the ends None when no interval could be drawn. ``undefined`` counts the bootstrap draws
    on which the statistic was undefined (left out of the percentiles)."""

    value: float | None
    low: float | None
    high: float | None
    level: float
    method: Method
    draws: int = 0
    undefined: int = 0

    def to_dict(self) -> dict[str, float | int | str | None]:
        out: dict[str, float | int | str | None] = {"value": self.value, "ci_low": self.low, "ci_high": self.high,
                                                    "ci_level": self.level, "ci_method": self.method}
        if self.method == "bootstrap":
            out.update(draws=self.draws, undefined_draws=self.undefined)
        return out


def clopper_pearson(k: int, n: int, level: float = 0.95) -> tuple[float, float]:
    """The exact (Clopper-Pearson) interval of a proportion ``k / n`` at ``level`` (module doc)."""
    from scipy.stats import beta

    _check_level(level)
    if not 0 <= k <= n:
        raise ValueError(f"a proportion needs 0 <= k <= n, got k={k}, n={n}")
    if n == 0:
        return 0.0, 1.0
    tail = (1 - level) / 2
    low = 0.0 if k == 0 else float(beta.ppf(tail, k, n - k + 1))
    high = 1.0 if k == n else float(beta.ppf(1 - tail, k + 1, n - k))
    return low, high


def proportion(k: int, n: int, level: float = 0.95) -> Estimate:
    """``k / n`` with its exact interval (None for ``n = 0``, interval [0, 1])."""
    low, high = clopper_pearson(k, n, level)
    return Estimate(k / n if n else None, low, high, level, "exact")


def share(hits: Sequence[bool], groups: Sequence[Hashable], *, level: float = 0.95, draws: int = BOOTSTRAP_DRAWS,
          seed: int = BOOTSTRAP_SEED) -> Estimate:
    """The share of ``hits``: exact (:func:`proportion`) when every hit is a unit of its own,
    else with the bootstrap interval over the units ``groups`` names (hits of one unit are
    not independent: several people's labels of one run)."""
    import numpy as np

    if len(set(groups)) == len(hits):
        return proportion(sum(map(bool, hits)), len(hits), level)
    index: dict[Hashable, int] = {}
    unit = np.fromiter((index.setdefault(g, len(index)) for g in groups), np.int64, len(groups))
    per_unit = np.zeros((len(index), 2))
    np.add.at(per_unit, (unit, 0), np.asarray(hits, dtype=float))
    np.add.at(per_unit, (unit, 1), 1.0)

    def statistic(counts: np.ndarray) -> np.ndarray:
        totals = counts @ per_unit
        return totals[:, 0] / totals[:, 1]

    return bootstrap(statistic, len(index), sum(map(bool, hits)) / len(hits) if hits else None, level=level,
                     draws=draws, seed=seed)


def bootstrap(statistic: Callable[[np.ndarray], np.ndarray], units: int, point: float | None, *,
              level: float = 0.95, draws: int = BOOTSTRAP_DRAWS, seed: int = BOOTSTRAP_SEED) -> Estimate:
    """``point`` with the percentile interval of ``statistic`` over bootstrap resamples of
    ``units`` units (module doc). ``statistic(weights)`` takes a (draws x units) matrix of
    how many times each unit is drawn and returns one value per row (NaN where undefined)."""
    import numpy as np

    _check_level(level)
    if draws < 1:
        raise ValueError(f"draws must be at least 1, got {draws}")
    if point is None or units < 2 or not math.isfinite(point):  # one unit: nothing to resample
        return Estimate(None if point is None or not math.isfinite(point) else point, None, None, level,
                        "bootstrap", 0, 0)
    rng = np.random.default_rng(seed)
    values = []
    for start in range(0, draws, _BLOCK):
        rows = min(_BLOCK, draws - start)
        weights = rng.multinomial(units, np.full(units, 1.0 / units), size=rows).astype(float)
        values.append(np.asarray(statistic(weights), dtype=float))
    drawn = np.concatenate(values)
    defined = drawn[np.isfinite(drawn)]
    undefined = int(drawn.size - defined.size)
    if defined.size == 0:
        return Estimate(point, None, None, level, "bootstrap", draws, undefined)
    tail = (1 - level) / 2
    low, high = np.quantile(defined, [tail, 1 - tail])
    return Estimate(point, float(low), float(high), level, "bootstrap", draws, undefined)


def _check_level(level: float) -> None:
    if not 0 < level < 1:
        raise ValueError(f"a confidence level is between 0 and 1, got {level}")
