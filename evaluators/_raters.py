"""Agreement among several raters (people labelling the same runs), so that a judge's
agreement with people can be read against the people's agreement with each other.

- **Fleiss' κ** over N units each rated by the same m ≥ 2 raters into k categories, from the
  N x k table of counts ``n_ij``: ``P_i = (Σ_j n_ij² - m) / (m (m - 1))`` (the agreeing
  pairs of unit i), ``P̄ = mean P_i``, ``p_j = Σ_i n_ij / (N m)``, ``P_e = Σ_j p_j²``,
  ``κ = (P̄ - P_e) / (1 - P_e)`` (as ``statsmodels.stats.inter_rater.fleiss_kappa``); NaN when
  ``P_e = 1``.
- **Krippendorff's α** over units rated by any number of raters (missing ratings allowed;
  units with fewer than two ratings are not pairable and left out): each unit u with
  ``m_u`` ratings adds ``n_uc (n_uk - [c = k]) / (m_u - 1)`` to the coincidence matrix
  ``o_ck``; with ``n_c = Σ_k o_ck`` and ``n = Σ_c n_c``,
  ``α = 1 - (n - 1) Σ o_ck δ²_ck / Σ n_c n_k δ²_ck``. The distance δ² by level of
  measurement: ``nominal`` 0 or 1; ``ordinal`` ``(Σ_{g from c to k} n_g - (n_c + n_k) / 2)²``;
  ``interval`` ``(c - k)²``; ``ratio`` ``((c - k) / (c + k))²``. NaN when no two values
  differ (nothing to disagree on).

Both have bootstrap intervals over the units (:func:`~._intervals.bootstrap`).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from typing import TYPE_CHECKING, Literal

from ._intervals import BOOTSTRAP_DRAWS, BOOTSTRAP_SEED, Estimate, bootstrap

if TYPE_CHECKING:
    import numpy as np

Level = Literal["nominal", "ordinal", "interval", "ratio"]
LEVELS: tuple[Level, ...] = ("nominal", "ordinal", "interval", "ratio")


def fleiss_kappa(table: Sequence[Sequence[int]]) -> float:
    """Fleiss' κ of an N x k table of counts, every row summing to the same m ≥ 2 (module doc)."""
    import numpy as np

    counts, m = _fleiss_table(table)
    return float(_fleiss_of(np.ones((1, counts.shape[0])), counts, m)[0])


def fleiss_estimate(table: Sequence[Sequence[int]], *, level: float = 0.95, draws: int = BOOTSTRAP_DRAWS,
                    seed: int = BOOTSTRAP_SEED) -> Estimate:
    """:func:`fleiss_kappa` with its bootstrap interval over the units (rows)."""
    counts, m = _fleiss_table(table)
    point = fleiss_kappa(table)
    return bootstrap(lambda w: _fleiss_of(w, counts, m), counts.shape[0], None if math.isnan(point) else point,
                     level=level, draws=draws, seed=seed)


def fleiss_table(units: Sequence[Sequence[Hashable]], categories: Sequence[Hashable] | None = None) -> list[list[int]]:
    """The N x k counts Fleiss' κ reads, from each unit's ratings (categories sorted unless given)."""
    scale = sorted({v for unit in units for v in unit}) if categories is None else list(categories)
    index = {c: i for i, c in enumerate(scale)}
    table = []
    for unit in units:
        row = [0] * len(scale)
        for v in unit:
            if v not in index:
                raise ValueError(f"rating {v!r} is not one of the categories {scale}")
            row[index[v]] += 1
        table.append(row)
    return table


def krippendorff_alpha(ratings: Sequence[Sequence[float | None]], level: Level = "nominal") -> float:
    """Krippendorff's α of a raters x units matrix of numeric ratings (None or NaN: missing)
    at ``level`` of measurement (module doc)."""
    import numpy as np

    per_unit, values = _coincidences(ratings)
    return float(_alpha_of(np.ones((1, per_unit.shape[0])), per_unit, values, level)[0])


def krippendorff_estimate(ratings: Sequence[Sequence[float | None]], level: Level = "nominal", *,
                          confidence: float = 0.95, draws: int = BOOTSTRAP_DRAWS,
                          seed: int = BOOTSTRAP_SEED) -> Estimate:
    """:func:`krippendorff_alpha` with its bootstrap interval over the pairable units."""
    per_unit, values = _coincidences(ratings)
    point = krippendorff_alpha(ratings, level)
    return bootstrap(lambda w: _alpha_of(w, per_unit, values, level), per_unit.shape[0],
                     None if math.isnan(point) else point, level=confidence, draws=draws, seed=seed)


def _fleiss_table(table: Sequence[Sequence[int]]) -> tuple[np.ndarray, int]:
    import numpy as np

    counts = np.asarray(table, dtype=float)
    if counts.ndim != 2 or counts.shape[0] == 0:
        raise ValueError("Fleiss' kappa needs a table of counts with one row per unit")
    if (counts < 0).any() or not np.all(counts == np.round(counts)):
        raise ValueError("Fleiss' kappa counts are whole numbers >= 0")
    raters = counts.sum(axis=1)
    if not np.all(raters == raters[0]) or raters[0] < 2:
        raise ValueError("Fleiss' kappa needs every unit rated by the same number (at least 2) of raters")
    return counts, int(raters[0])


def _fleiss_of(weights: np.ndarray, counts: np.ndarray, m: int) -> np.ndarray:
    """Fleiss' κ of each row of ``weights`` (how many times each unit is drawn)."""
    import numpy as np

    agreeing = ((counts * counts).sum(axis=1) - m) / (m * (m - 1))
    units = weights.sum(axis=1)
    p_bar = weights @ agreeing / units
    shares = weights @ counts / (units * m)[:, None]
    chance = (shares * shares).sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        kappa = (p_bar - chance) / (1 - chance)
    return np.where(chance < 1, kappa, np.nan)


def _coincidences(ratings: Sequence[Sequence[float | None]]) -> tuple[np.ndarray, np.ndarray]:
    """Each pairable unit's coincidence matrix (flattened) over the sorted distinct values."""
    import numpy as np

    matrix = np.array([[math.nan if v is None else float(v) for v in rater] for rater in ratings], dtype=float)
    if matrix.ndim != 2:
        raise ValueError("ratings are one sequence per rater, each over the same units")
    if np.isinf(matrix).any():
        raise ValueError("ratings must be finite numbers (None or NaN for a missing one)")
    values = np.unique(matrix[~np.isnan(matrix)])
    k = values.size
    by_unit = np.stack([(matrix == v).sum(axis=0) for v in values], axis=1) if k else np.zeros((matrix.shape[1], 0))
    pairable = by_unit[by_unit.sum(axis=1) >= 2].astype(float)
    m = pairable.sum(axis=1)
    per_unit = (np.einsum("uc,uk->uck", pairable, pairable)
                - pairable[:, :, None] * np.eye(k)[None, :, :]) / (m - 1)[:, None, None]
    return per_unit.reshape(per_unit.shape[0], k * k), values


def _alpha_of(weights: np.ndarray, per_unit: np.ndarray, values: np.ndarray, level: Level) -> np.ndarray:
    """Krippendorff's α of each row of ``weights`` (how many times each pairable unit is drawn)."""
    import numpy as np

    if level not in LEVELS:
        raise ValueError(f"level of measurement is one of {', '.join(LEVELS)}, not {level!r}")
    k = values.size
    observed = (weights @ per_unit).reshape(-1, k, k)
    totals = observed.sum(axis=2)  # n_c per draw
    n = totals.sum(axis=1)
    if level == "nominal":
        delta = np.broadcast_to(1.0 - np.eye(k), observed.shape)
    elif level == "interval":
        delta = np.broadcast_to(np.subtract.outer(values, values) ** 2, observed.shape)
    elif level == "ratio":
        sums = np.add.outer(values, values)
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(sums != 0, np.subtract.outer(values, values) / sums, 0.0)
        delta = np.broadcast_to(ratio ** 2, observed.shape)
    else:
        cumulative = np.concatenate([np.zeros((totals.shape[0], 1)), np.cumsum(totals, axis=1)], axis=1)
        low, high = np.minimum.outer(np.arange(k), np.arange(k)), np.maximum.outer(np.arange(k), np.arange(k))
        between = cumulative[:, high + 1] - cumulative[:, low]
        delta = (between - (totals[:, :, None] + totals[:, None, :]) / 2) ** 2
    disagreement = (observed * delta).sum(axis=(1, 2))
    chance = (np.einsum("dc,dk->dck", totals, totals) * delta).sum(axis=(1, 2))
    with np.errstate(divide="ignore", invalid="ignore"):
        alpha = 1 - (n - 1) * disagreement / chance
    return np.where(chance > 0, alpha, np.nan)
