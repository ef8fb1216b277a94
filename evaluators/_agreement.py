"""How far a score (a judge's, or any check's) agrees with people's labels of the same runs.

Over the runs that have both, the score is compared with each label of the run: one
person's (``by``), or every person's, so that a run labelled by three people gives three
pairs (the score against each) and the people's disagreement is kept, never voted away.
Intervals then resample whole runs (a run's pairs stand or fall together). What is
reported:

- **passes** (when both sides have a pass): n, each side's base rate (share passing), the
  raw agreement, each with its interval (exact when every run has one label); Cohen's κ
  with its bootstrap interval; the 2 x 2 confusion matrix. The score's pass is its value
  at ``threshold`` when one is given, else its stored pass, else its value when every
  value is 0 or 1; the label's pass is its pass/fail, else its value at ``label_threshold``.
- **ordinal** (labels on a scale of at most 11 whole-number levels, and the score's values
  on it too): weighted κ with the weights named (``quadratic`` unless given), exact-match
  agreement, the k x k confusion matrix over every level from the lowest to the highest.
- **ranks** (either side has values other than 0 and 1): Spearman's ρ with its bootstrap
  interval.
- **headline**: the statistic a gate reads: κ of the passes, else weighted κ, else ρ.
- **raters** (labels by two or more people): the headline statistic of the score against
  each person and of each pair of people, Fleiss' κ over the runs every person labelled
  (categories: passes, or the levels), Krippendorff's α over every run with two labels
  or more (nominal, ordinal or interval; each needs two runs at least), and α again with the score as one more rater
  when it is on the labels' scale: a judge is as good as a person when adding it does not
  lower α.
- **disagreements**: the runs where score and labels disagree most (passes that differ,
  the most confident first and then by the share of labels against the score; else the
  largest gap in levels, or in ranks over n).

Intervals are 95% (``level``): exact (Clopper-Pearson) for proportions of one label a run,
a seeded bootstrap over runs for the rest (:mod:`._intervals`).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any, Literal

from ._intervals import BOOTSTRAP_DRAWS, BOOTSTRAP_SEED, Estimate, share
from ._kappa import Weights, confusion, kappa_estimate, spearman_estimate
from ._raters import fleiss_estimate, fleiss_table, krippendorff_estimate

Kind = Literal["binary", "ordinal", "continuous"]
MAX_LEVELS = 11  # an ordinal scale: at most this many whole-number levels (0-10)
SHOWN = 10  # disagreements listed


@dataclass(frozen=True, slots=True)
class Rated:
    """One run as agreement reads it: the score's value and pass, and each rater's label
    (rater -> (value, pass); the rater ``""`` is a label given without a name)."""

    unit: str
    value: float | None
    passed: bool | None
    labels: Mapping[str, tuple[float | None, bool | None]]
    note: str = ""  # what the score said (shown with a disagreement)


@dataclass(frozen=True, slots=True)
class _Pair:
    """The score of a run against one label of it."""

    run: Rated
    label: tuple[float | None, bool | None]


@dataclass(frozen=True)
class Agreement:
    """The agreement of score ``score`` with label ``label`` (module doc); ``to_dict`` is
    what ``harness agreement --json`` prints."""

    score: str
    label: str
    n: int  # runs with both
    pairs: int  # (run, label) pairs compared: n when every run has one label
    label_kind: Kind
    headline: str | None  # "kappa", "weighted_kappa" or "spearman"
    passes: dict[str, Any] | None = None
    ordinal: dict[str, Any] | None = None
    ranks: dict[str, Any] | None = None
    raters: dict[str, Any] | None = None
    disagreements: tuple[dict[str, Any], ...] = ()
    notes: tuple[str, ...] = ()
    settings: dict[str, Any] = field(default_factory=dict)

    def _section(self) -> dict[str, Any] | None:
        return {"kappa": self.passes, "weighted_kappa": self.ordinal, "spearman": self.ranks}.get(self.headline or "")

    @property
    def estimate(self) -> Estimate | None:
        """The headline statistic (what a gate reads), or None when nothing could be measured."""
        section = self._section()
        return None if section is None else section["_estimate"]

    @property
    def labelled(self) -> int:
        """Runs the headline statistic is over."""
        section = self._section()
        return 0 if section is None else int(section["n"])

    def to_dict(self) -> dict[str, Any]:
        estimate = self.estimate
        return {"score": self.score, "label": self.label, "n": self.n, "pairs": self.pairs,
                "label_kind": self.label_kind,
                "headline": None if estimate is None else {"statistic": self.headline, "n": self.labelled,
                                                            **estimate.to_dict()},
                "passes": _public(self.passes), "ordinal": _public(self.ordinal), "ranks": _public(self.ranks),
                "raters": self.raters, "disagreements": list(self.disagreements), "notes": list(self.notes),
                **self.settings}


def agreement(runs: Sequence[Rated], *, score: str = "score", label: str = "label", threshold: float | None = None,
              label_threshold: float | None = None, weights: Weights = "quadratic", by: str | None = None,
              level: float = 0.95, draws: int = BOOTSTRAP_DRAWS, seed: int = BOOTSTRAP_SEED,
              shown: int = SHOWN) -> Agreement:
    """The agreement of the score with the labels over ``runs`` (module doc)."""
    boot = {"level": level, "draws": draws, "seed": seed}
    both = [r for r in runs if (r.value is not None or r.passed is not None) and _mine(r, by)]
    pairs = [_Pair(r, v) for r in both for v in _mine(r, by).values()]
    kind = _kind([x for p in pairs for x in [_label_number(*p.label)] if x is not None])
    binary_values = all(r.value in (0.0, 1.0) for r in both if r.value is not None)
    settings = {"threshold": threshold, "label_threshold": label_threshold, "weights": weights, "by": by}
    notes: list[str] = []

    def judge_pass(r: Rated) -> bool | None:
        return _score_pass(r, threshold, binary_values)

    passes = _passes([(judge_pass(p.run), _label_pass(p.label, kind, label_threshold), p.run.unit) for p in pairs],
                     boot)
    if passes is None and both:
        notes.append("no pass on one side: give --threshold (the score's) or --label-threshold (the label's) to "
                     "compare passes")
    ordinal = _ordinal(pairs, kind, weights, boot)
    ranks = None
    if not (binary_values and kind == "binary"):
        ranks = _ranks([(p.run.value, _label_number(*p.label), p.run.unit) for p in pairs
                        if p.run.value is not None and _label_number(*p.label) is not None], boot)
    headline = next((name for name, section in (("kappa", passes), ("weighted_kappa", ordinal), ("spearman", ranks))
                     if section is not None and section["_estimate"].value is not None), None)
    raters = _raters(both, kind, headline, threshold, label_threshold, weights, binary_values, boot) \
        if by is None else None
    return Agreement(score=score, label=label, n=len(both), pairs=len(pairs), label_kind=kind, headline=headline,
                     passes=passes, ordinal=ordinal, ranks=ranks, raters=raters,
                     disagreements=tuple(_disagreements(both, by, kind, threshold, label_threshold, binary_values,
                                                        ordinal is not None, shown)),
                     notes=tuple(notes), settings=settings)


# --- what a run's two sides say --------------------------------------------------------------

def _has(label: tuple[float | None, bool | None]) -> bool:
    return label[0] is not None or label[1] is not None


def _mine(r: Rated, by: str | None) -> dict[str, tuple[float | None, bool | None]]:
    """The run's labels that count: every person's, or ``by``'s."""
    return {who: v for who, v in r.labels.items() if (by is None or who == by) and _has(v)}


def _label_number(value: float | None, passed: bool | None) -> float | None:
    return value if value is not None else (None if passed is None else float(passed))


def _kind(values: Sequence[float]) -> Kind:
    if all(v in (0.0, 1.0) for v in values):
        return "binary"
    if all(float(v).is_integer() for v in values) and max(values) - min(values) < MAX_LEVELS:
        return "ordinal"
    return "continuous"


def _score_pass(r: Rated, threshold: float | None, binary_values: bool) -> bool | None:
    if threshold is not None:
        return None if r.value is None else r.value >= threshold - 1e-12
    if r.passed is not None:
        return r.passed
    return None if r.value is None or not binary_values else r.value == 1.0


def _label_pass(label: tuple[float | None, bool | None], kind: Kind, threshold: float | None) -> bool | None:
    value, passed = label
    if passed is not None:
        return passed
    if kind == "binary" and value is not None:
        return value == 1.0
    return None if threshold is None or value is None else value >= threshold - 1e-12


# --- the sections -------------------------------------------------------------------------

def _passes(pairs: Sequence[tuple[bool | None, bool | None, str]], boot: Mapping[str, Any]) -> dict[str, Any] | None:
    known = [(j, h, g) for j, h, g in pairs if j is not None and h is not None]
    if not known:
        return None
    judge, human, groups = [int(j) for j, _, _ in known], [int(h) for _, h, _ in known], [g for *_, g in known]
    kappa = kappa_estimate(judge, human, categories=(0, 1), groups=groups, **boot)
    counts = confusion(human, judge, (0, 1))
    return {"n": len(set(groups)), "pairs": len(known),
            "score_pass_rate": share([bool(j) for j in judge], groups, **boot).to_dict(),
            "label_pass_rate": share([bool(h) for h in human], groups, **boot).to_dict(),
            "raw_agreement": share([j == h for j, h in zip(judge, human)], groups, **boot).to_dict(),
            "kappa": kappa.to_dict(), "_estimate": kappa,
            "confusion": {"rows": "label", "columns": "score", "levels": ["fail", "pass"],
                          "counts": counts.tolist()}}


def _ordinal(pairs: Sequence[_Pair], kind: Kind, weights: Weights, boot: Mapping[str, Any]) -> dict[str, Any] | None:
    if kind != "ordinal":
        return None
    known = [(p.run.value, _label_number(*p.label), p.run.unit) for p in pairs
             if p.run.value is not None and _label_number(*p.label) is not None]
    if not known or not all(float(s).is_integer() for s, _, _ in known):
        return None
    every = [v for s, h, _ in known for v in (s, h)]
    if max(every) - min(every) >= MAX_LEVELS:
        return None
    levels = list(range(int(min(every)), int(max(every)) + 1))
    judge, human, groups = [int(s) for s, _, _ in known], [int(h) for _, h, _ in known], [g for *_, g in known]
    kappa = kappa_estimate(judge, human, weights=weights, categories=levels, groups=groups, **boot)
    return {"n": len(set(groups)), "pairs": len(known), "weights": weights, "weighted_kappa": kappa.to_dict(),
            "_estimate": kappa, "exact_agreement": share([j == h for j, h in zip(judge, human)], groups, **boot).to_dict(),
            "confusion": {"rows": "label", "columns": "score", "levels": levels,
                          "counts": confusion(human, judge, levels).tolist()}}


def _ranks(pairs: Sequence[tuple[float, float, str]], boot: Mapping[str, Any]) -> dict[str, Any] | None:
    if len({g for *_, g in pairs}) < 3:
        return None
    groups = [g for *_, g in pairs]
    rho = spearman_estimate([s for s, _, _ in pairs], [h for _, h, _ in pairs], groups=groups, **boot)
    return {"n": len(set(groups)), "pairs": len(pairs), "spearman": rho.to_dict(), "_estimate": rho}


def _statistic(headline: str | None, a: Sequence[float], b: Sequence[float], weights: Weights, levels: Sequence[int],
               boot: Mapping[str, Any]) -> Estimate:
    if headline == "spearman":
        return spearman_estimate(a, b, **boot)
    if headline == "weighted_kappa":
        return kappa_estimate([int(x) for x in a], [int(x) for x in b], weights=weights, categories=levels, **boot)
    return kappa_estimate([int(x) for x in a], [int(x) for x in b], categories=(0, 1), **boot)


def _raters(runs: Sequence[Rated], kind: Kind, headline: str | None, threshold: float | None,
            label_threshold: float | None, weights: Weights, binary_values: bool,
            boot: Mapping[str, Any]) -> dict[str, Any] | None:
    """The score against each person, people against each other, Fleiss' κ and
    Krippendorff's α (module doc)."""
    people = sorted({who for r in runs for who, v in r.labels.items() if _has(v)})
    if len(people) < 2:
        return None

    def human(r: Rated, who: str) -> float | None:  # on the headline's scale
        if who not in r.labels or not _has(r.labels[who]):
            return None
        if headline == "kappa":
            p = _label_pass(r.labels[who], kind, label_threshold)
            return None if p is None else float(p)
        return _label_number(*r.labels[who])

    def judged(r: Rated) -> float | None:
        if headline == "kappa":
            p = _score_pass(r, threshold, binary_values)
            return None if p is None else float(p)
        return r.value

    numbers = [x for r in runs for who in people for x in [human(r, who)] if x is not None]
    scored = [x for r in runs for x in [judged(r)] if x is not None]
    levels = list(range(int(min(numbers + scored)), int(max(numbers + scored)) + 1)) \
        if headline == "weighted_kappa" and numbers else []

    def versus(pairs: list[tuple[float, float]]) -> dict[str, Any]:
        if headline is None or len(pairs) < 2:
            return {"n": len(pairs), "value": None}
        estimate = _statistic(headline, [a for a, _ in pairs], [b for _, b in pairs], weights, levels, boot)
        return {"n": len(pairs), **estimate.to_dict()}

    against_score = {who: versus([(s, h) for r in runs for s, h in [(judged(r), human(r, who))]
                                  if s is not None and h is not None]) for who in people}
    between = {f"{x} ~ {y}": versus([(a, b) for r in runs for a, b in [(human(r, x), human(r, y))]
                                     if a is not None and b is not None]) for x, y in combinations(people, 2)}
    level_of = {"binary": "nominal", "ordinal": "ordinal", "continuous": "interval"}[kind]
    ratings = [[_label_number(*r.labels[who]) if who in r.labels and _has(r.labels[who]) else None for r in runs]
               for who in people]
    out: dict[str, Any] = {"people": people, "statistic": headline, "score_vs_person": against_score,
                           "person_vs_person": between,
                           "mean_score_vs_person": _mean(v["value"] for v in against_score.values()),
                           "mean_person_vs_person": _mean(v["value"] for v in between.values())}
    complete = [[x for x in (_label_number(*r.labels[who]) for who in people)] for r in runs
                if all(who in r.labels and _has(r.labels[who]) for who in people)]
    if len(complete) >= 2 and kind != "continuous":
        fleiss = fleiss_estimate(fleiss_table(complete), **boot)
        out["fleiss_kappa"] = {"n": len(complete), **fleiss.to_dict()}
    pairable = sum(1 for i in range(len(runs)) if sum(r[i] is not None for r in ratings) >= 2)
    if pairable >= 2:
        alpha = krippendorff_estimate(ratings, level_of, confidence=boot["level"], draws=boot["draws"],
                                      seed=boot["seed"])
        out["krippendorff_alpha"] = {"level": level_of, "n": pairable, **alpha.to_dict()}
    on_scale = (kind, headline) in (("binary", "kappa"), ("ordinal", "weighted_kappa"))
    if on_scale and scored:
        with_score = [*ratings, [judged(r) for r in runs]]
        alpha_all = krippendorff_estimate(with_score, level_of, confidence=boot["level"], draws=boot["draws"],
                                          seed=boot["seed"])
        together = sum(1 for i in range(len(runs)) if sum(r[i] is not None for r in with_score) >= 2)
        out["krippendorff_alpha_with_score"] = {"level": level_of, "n": together, **alpha_all.to_dict()}
    return out


def _disagreements(both: Sequence[Rated], by: str | None, kind: Kind, threshold: float | None,
                   label_threshold: float | None, binary_values: bool, ordinal: bool, shown: int) -> list[dict[str, Any]]:
    """The runs where score and labels disagree most (module doc), most first."""
    from scipy.stats import rankdata

    ranked: list[tuple[float, int, dict[str, Any]]] = []
    mine = {r.unit: _mine(r, by) for r in both}
    numbers = {r.unit: [x for v in mine[r.unit].values() for x in [_label_number(*v)] if x is not None] for r in both}
    valued = [r for r in both if r.value is not None and numbers[r.unit]]
    rank_of: dict[str, float] = {}
    if valued and kind != "binary" and not ordinal:
        rs = rankdata([r.value for r in valued])
        rh = rankdata([statistics.fmean(numbers[r.unit]) for r in valued])
        rank_of = {r.unit: abs(a - b) / len(valued) for r, a, b in zip(valued, rs, rh)}
    for i, r in enumerate(both):
        j = _score_pass(r, threshold, binary_values)
        said = [_label_pass(v, kind, label_threshold) for v in mine[r.unit].values()]
        against = [h for h in said if h is not None and j is not None and h != j]
        entry = {"run_id": r.unit, "score": r.value, "score_passed": j,
                 "labels": {who: _label_number(*v) for who, v in mine[r.unit].items()}, "why": r.note}
        mean = statistics.fmean(numbers[r.unit]) if numbers[r.unit] else None
        if against:
            sure = abs(r.value - threshold) if threshold is not None and r.value is not None else 0.0
            share_against = len(against) / len([h for h in said if h is not None])
            ranked.append((2.0 + share_against + sure, -i,
                           {**entry, "gap": f"passes differ ({len(against)} of {len(said)} label(s))"}))
        elif ordinal and r.value is not None and mean is not None and r.value != mean:
            ranked.append((abs(r.value - mean), -i, {**entry, "gap": f"{abs(r.value - mean):g} level(s)"}))
        elif rank_of.get(r.unit, 0) > 0:
            ranked.append((rank_of[r.unit], -i, {**entry, "gap": f"ranks {rank_of[r.unit]:.0%} of n apart"}))
    ranked.sort(key=lambda t: (t[0], t[1]), reverse=True)
    return [entry for _, _, entry in ranked[:shown]]


def _mean(values: Any) -> float | None:
    got = [v for v in values if v is not None and math.isfinite(v)]
    return statistics.fmean(got) if got else None


def _public(section: dict[str, Any] | None) -> dict[str, Any] | None:
    return None if section is None else {k: v for k, v in section.items() if not k.startswith("_")}

