"""Agreement of two raters on the same units (a judge and a person, or two people).

- **Cohen's κ** over categories ``c_1 < ... < c_k``: with ``O`` the k x k confusion matrix of
  the n units (rows the first rater), ``E = outer(column sums, row sums) / n`` the counts
  expected if the two rated independently with their own base rates, and ``W`` the
  disagreement weights, ``κ = 1 - Σ W·O / Σ W·E``. Unweighted: ``W = 1`` off the diagonal,
  so ``κ = (p_o - p_e) / (1 - p_e)``. Weighted κ for ordinal grades names its weights:
  ``linear`` ``W_ij = |i - j|``, ``quadratic`` ``W_ij = (i - j)²`` (positions of the
  categories, as ``sklearn.metrics.cohen_kappa_score``; give every level of the scale as
  ``categories`` so that an unused level still counts as a step). Undefined (NaN) when
  ``Σ W·E = 0``: both raters gave one and the same category throughout.
- **Spearman's ρ**: Pearson's correlation of the two raters' ranks (ties get their average
  rank); undefined (NaN) when either rater gave one value throughout.

Each has an interval from :func:`~._intervals.bootstrap` over the units (no exact interval
exists for either). The percentile bootstrap cannot see beyond the sample: on twelve runs that
all agree every resample agrees too, and it would say κ = 1 for certain. So unweighted κ's
interval is widened to hold the κ that the exact (Clopper-Pearson) interval of the observed
agreement implies with the chance agreement as observed, ``(p_o bound - p_e) / (1 - p_e)``,
over the units (several pairs of one unit count as its share of agreeing pairs). When one unit holds several pairs of ratings (a run labelled by several
people, each compared with the judge), ``groups`` names each pair's unit and whole units are
resampled, so that the pairs of one run stand or fall together.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Hashable, Sequence
from typing import TYPE_CHECKING, Any, Literal

from ._intervals import BOOTSTRAP_DRAWS, BOOTSTRAP_SEED, Estimate, bootstrap

if TYPE_CHECKING:
    import numpy as np

Weights = Literal["linear", "quadratic"]
#: The named weights of weighted κ.
KAPPA_WEIGHTS: tuple[Weights, ...] = ("linear", "quadratic")


def cohen_kappa(a: Sequence[Hashable], b: Sequence[Hashable], *, weights: Weights | None = None,
                categories: Sequence[Hashable] | None = None) -> float:
    """Cohen's κ of two raters' categories over the same units, weighted when ``weights``
    names the weights (module doc); NaN when undefined. ``categories``: the scale in order
    (default: every category either rater used, sorted)."""
    counts = confusion(a, b, categories)
    return float(_kappa_of_counts(counts[None, :, :].astype(float), _weight_matrix(counts.shape[0], weights))[0])


def confusion(a: Sequence[Hashable], b: Sequence[Hashable],
              categories: Sequence[Hashable] | None = None) -> np.ndarray:
    """The k x k counts of (first rater's category, second rater's category) over the units."""
    import numpy as np

    codes_a, codes_b, k = _codes(a, b, categories)
    return np.bincount(codes_a * k + codes_b, minlength=k * k).reshape(k, k)


def kappa_estimate(a: Sequence[Hashable], b: Sequence[Hashable], *, weights: Weights | None = None,
                   categories: Sequence[Hashable] | None = None, groups: Sequence[Hashable] | None = None,
                   level: float = 0.95, draws: int = BOOTSTRAP_DRAWS, seed: int = BOOTSTRAP_SEED) -> Estimate:
    """:func:`cohen_kappa` with its bootstrap interval over the units (``groups``: module doc)."""
    import numpy as np

    codes_a, codes_b, k = _codes(a, b, categories)
    cells = codes_a * k + codes_b
    w = _weight_matrix(k, weights)
    point = cohen_kappa(a, b, weights=weights, categories=categories)
    unit, units = group_index(groups, cells.size)
    # A resample's confusion matrix is the draw counts of the units summed per cell.
    per_unit = np.zeros((units, k * k))
    np.add.at(per_unit, (unit, cells), 1.0)

    def statistic(counts: np.ndarray) -> np.ndarray:
        return _kappa_of_counts((counts @ per_unit).reshape(-1, k, k), w)

    found = bootstrap(statistic, units, None if math.isnan(point) else point, level=level, draws=draws, seed=seed)
    if weights is not None or found.value is None or found.low is None:
        return found
    low, high = _agreement_bounds(codes_a == codes_b, unit, units, k, codes_a, codes_b, level)
    return dataclasses.replace(found, low=min(found.low, low), high=max(found.high, high))


def _agreement_bounds(agree: np.ndarray, unit: np.ndarray, units: int, k: int, codes_a: np.ndarray,
                      codes_b: np.ndarray, level: float) -> tuple[float, float]:
    """κ at the exact interval's ends of the observed agreement, chance agreement fixed (module doc)."""
    import numpy as np
    from scipy.stats import beta

    n = agree.size
    p_e = float(np.bincount(codes_a, minlength=k) @ np.bincount(codes_b, minlength=k)) / (n * n)
    # Per unit, its share of agreeing pairs: the units are the independent draws.
    per_unit = np.bincount(unit, weights=agree.astype(float), minlength=units) / np.bincount(unit, minlength=units)
    hits = float(per_unit.sum())
    tail = (1 - level) / 2
    low = 0.0 if hits <= 0 else float(beta.ppf(tail, hits, units - hits + 1))
    high = 1.0 if hits >= units else float(beta.ppf(1 - tail, hits + 1, units - hits))
    if p_e >= 1:
        return math.inf, -math.inf  # κ undefined: nothing to widen
    return (low - p_e) / (1 - p_e), min(1.0, (high - p_e) / (1 - p_e))


def group_index(groups: Sequence[Hashable] | None, size: int) -> tuple[np.ndarray, int]:
    """Each pair's unit as an index, and the number of units (one pair a unit without ``groups``)."""
    import numpy as np

    if groups is None:
        return np.arange(size), size
    if len(groups) != size:
        raise ValueError(f"groups name the unit of each pair: got {len(groups)} for {size} pairs")
    index: dict[Hashable, int] = {}
    return np.fromiter((index.setdefault(g, len(index)) for g in groups), np.int64, size), len(index)


def spearman(a: Sequence[float], b: Sequence[float]) -> float:
    """Spearman's ρ (module doc); NaN when undefined (fewer than two units, or a constant rater)."""
    import numpy as np

    x, y = _numbers(a, b)
    if x.size < 2 or np.all(x == x[0]) or np.all(y == y[0]):
        return math.nan
    from scipy.stats import spearmanr

    return float(spearmanr(x, y).statistic)


def spearman_estimate(a: Sequence[float], b: Sequence[float], *, groups: Sequence[Hashable] | None = None,
                      level: float = 0.95, draws: int = BOOTSTRAP_DRAWS, seed: int = BOOTSTRAP_SEED) -> Estimate:
    """:func:`spearman` with its bootstrap interval over the units (``groups``: module doc)."""
    import numpy as np
    from scipy.stats import rankdata

    x, y = _numbers(a, b)
    point = spearman(x, y)
    unit, units = group_index(groups, x.size)
    pairs = np.arange(x.size)
    ragged = np.bincount(unit, minlength=units).max(initial=1) > 1  # units of unequal numbers of pairs

    def ranked(rx: np.ndarray, ry: np.ndarray) -> np.ndarray:
        rx = rx - rx.mean(axis=-1, keepdims=True)
        ry = ry - ry.mean(axis=-1, keepdims=True)
        with np.errstate(divide="ignore", invalid="ignore"):
            return (rx * ry).sum(axis=-1) / np.sqrt((rx * rx).sum(axis=-1) * (ry * ry).sum(axis=-1))

    def statistic(counts: np.ndarray) -> np.ndarray:
        repeats = counts.astype(np.int64)[:, unit]  # each pair as often as its unit was drawn
        if not ragged:
            picked = np.stack([np.repeat(pairs, row) for row in repeats])
            return ranked(rankdata(x[picked], axis=1), rankdata(y[picked], axis=1))
        return np.array([ranked(rankdata(x[p]), rankdata(y[p])) for p in (np.repeat(pairs, row) for row in repeats)])

    return bootstrap(statistic, units, None if math.isnan(point) else point, level=level, draws=draws, seed=seed)


def _kappa_of_counts(counts: np.ndarray, w: np.ndarray) -> np.ndarray:
    """κ of each (k x k) confusion matrix of ``counts`` (NaN where undefined)."""
    import numpy as np

    n = counts.sum(axis=(1, 2))
    expected = np.einsum("di,dj->dij", counts.sum(axis=1), counts.sum(axis=2))
    with np.errstate(divide="ignore", invalid="ignore"):
        expected = expected / n[:, None, None]
        observed = (w * counts).sum(axis=(1, 2))
        chance = (w * expected).sum(axis=(1, 2))
        kappa = 1 - observed / chance
    return np.where(chance > 0, kappa, np.nan)


def _weight_matrix(k: int, weights: Weights | None) -> np.ndarray:
    import numpy as np

    if weights is None:
        return 1.0 - np.eye(k)
    if weights not in KAPPA_WEIGHTS:
        raise ValueError(f"weights are {' or '.join(KAPPA_WEIGHTS)} (or none), not {weights!r}")
    steps = np.subtract.outer(np.arange(k), np.arange(k)).astype(float)
    return np.abs(steps) if weights == "linear" else steps ** 2


def _codes(a: Sequence[Hashable], b: Sequence[Hashable],
           categories: Sequence[Hashable] | None) -> tuple[np.ndarray, np.ndarray, int]:
    import numpy as np

    if len(a) != len(b):
        raise ValueError(f"two raters rate the same units: got {len(a)} and {len(b)} ratings")
    scale: list[Any] = sorted(set(a) | set(b)) if categories is None else list(dict.fromkeys(categories))
    index = {c: i for i, c in enumerate(scale)}
    unknown = [v for v in (*a, *b) if v not in index]
    if unknown:
        raise ValueError(f"rating {unknown[0]!r} is not one of the categories {scale}")
    return (np.fromiter((index[v] for v in a), np.int64, len(a)),
            np.fromiter((index[v] for v in b), np.int64, len(b)), max(len(scale), 1))


def _numbers(a: Sequence[float], b: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    import numpy as np

    if len(a) != len(b):
        raise ValueError(f"two raters rate the same units: got {len(a)} and {len(b)} ratings")
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if not (np.isfinite(x).all() and np.isfinite(y).all()):
        raise ValueError("ratings must be finite numbers")
    return x, y
