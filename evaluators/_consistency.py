"""Agreement of repeated credit assessments: same-model consistency and cross-model agreement."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ._checks import clamp01, is_number, unit
from ._status import EvalStatus, eval_status

RISK_LEVELS: tuple[str, ...] = ("LOW", "MODERATE", "HIGH", "CRITICAL")
CREDIT_SCORE_MIN, CREDIT_SCORE_MAX = 300, 850
CREDIT_SCORE_SPAN = CREDIT_SCORE_MAX - CREDIT_SCORE_MIN  # 550
MAX_CONFIDENCE_VARIANCE = 0.25  # the largest variance of values in [0, 1]


@dataclass(frozen=True, slots=True)
class Consistency:
    risk_level_consistency: float
    score_consistency: float
    score_std: float
    overall: float
    eval_status: EvalStatus


@dataclass(frozen=True, slots=True)
class CrossModelAgreement:
    risk_level_agreement: float
    credit_score_mean: float
    credit_score_std: float
    credit_score_range: float
    confidence_agreement: float
    cross_model_agreement: float
    eval_status: EvalStatus


def risk_level(name: str, value: Any) -> str:
    """A risk level of the closed set (case and surrounding spaces ignored)."""
    level = value.strip().upper() if isinstance(value, str) else value
    if level not in RISK_LEVELS:
        raise ValueError(f"{name} must be one of {', '.join(RISK_LEVELS)}, got {value!r}")
    return level


def credit_score(name: str, value: Any) -> float:
    if not is_number(value) or not CREDIT_SCORE_MIN <= value <= CREDIT_SCORE_MAX:
        raise ValueError(f"{name} must be a number in {CREDIT_SCORE_MIN}-{CREDIT_SCORE_MAX}, got {value!r}")
    return float(value)


def mode_share(values: Sequence[str]) -> float:
    """``count(mode) / N``: 1.0 when all agree."""
    return Counter(values).most_common(1)[0][1] / len(values)


def _mean_std(xs: Sequence[float]) -> tuple[float, float]:
    mean = math.fsum(xs) / len(xs)
    return mean, math.sqrt(math.fsum((x - mean) ** 2 for x in xs) / len(xs))


def consistency(risk_levels: Sequence[str], credit_scores: Sequence[float]) -> Consistency:
    """Consistency of N >= 2 assessments of one company.

    ``risk_level_consistency = count(modal risk level) / N``; ``score_std`` = population std
    of the credit scores; ``score_consistency = clamp(1 − std/mean, 0, 1)`` (the mean of
    300–850 scores is never 0); ``overall = 0.5·risk + 0.5·score``. Risk levels must be
    LOW|MODERATE|HIGH|CRITICAL, scores 300–850, the two lists of equal length N >= 2.
    """
    if isinstance(risk_levels, str) or isinstance(credit_scores, str):
        raise ValueError("risk_levels and credit_scores must be lists")
    levels = [risk_level(f"risk_levels[{i}]", v) for i, v in enumerate(risk_levels)]
    scores = [credit_score(f"credit_scores[{i}]", v) for i, v in enumerate(credit_scores)]
    if len(levels) != len(scores):
        raise ValueError(f"got {len(levels)} risk levels but {len(scores)} credit scores")
    if len(levels) < 2:
        raise ValueError(f"consistency needs at least 2 results, got {len(levels)}")
    risk = mode_share(levels)
    mean, std = _mean_std(scores)
    score = clamp01(1.0 - std / mean)
    overall = clamp01(0.5 * risk + 0.5 * score)
    return Consistency(risk, score, std, overall, eval_status(overall))  # type: ignore[arg-type]


def cross_model_agreement(results: Mapping[str, Sequence[Any]]) -> CrossModelAgreement:
    """Agreement between models that assessed the same company.

    ``results`` maps model name -> ``(risk_level, credit_score, confidence)``; needs >= 2
    models. ``risk_level_agreement`` = share of the modal risk level (1.0 when all agree);
    credit score mean, population std and range (max − min);
    ``confidence_agreement = clamp(1 − var(confidence)/0.25, 0, 1)`` (population variance;
    0.25 is the largest possible for values in [0, 1]);
    ``cross_model_agreement = 0.4·risk + 0.4·(1 − range/550) + 0.2·confidence_agreement``.
    """
    if not isinstance(results, Mapping):
        raise ValueError(f"results must map model name -> (risk_level, credit_score, confidence), got {results!r}")
    if len(results) < 2:
        raise ValueError(f"cross-model agreement needs at least 2 models, got {len(results)}")
    levels, scores, confs = [], [], []
    for model, result in results.items():
        if isinstance(result, (str, bytes)) or not isinstance(result, Sequence) or len(result) != 3:
            raise ValueError(f"result of {model!r} must be (risk_level, credit_score, confidence), got {result!r}")
        levels.append(risk_level(f"risk level of {model!r}", result[0]))
        scores.append(credit_score(f"credit score of {model!r}", result[1]))
        confs.append(unit(f"confidence of {model!r}", result[2]))
    risk = mode_share(levels)
    mean, std = _mean_std(scores)
    spread = max(scores) - min(scores)
    conf_var = _mean_std(confs)[1] ** 2
    conf_agreement = clamp01(1.0 - conf_var / MAX_CONFIDENCE_VARIANCE)
    overall = clamp01(0.4 * risk + 0.4 * (1.0 - spread / CREDIT_SCORE_SPAN) + 0.2 * conf_agreement)
    return CrossModelAgreement(
        risk, mean, std, spread, conf_agreement, overall, eval_status(overall),  # type: ignore[arg-type]
    )
