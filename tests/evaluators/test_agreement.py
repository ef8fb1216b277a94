"""A score's agreement with people's labels (evaluators.agreement): what it compares, with
which statistic, over which runs, and where they disagree most."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import spearmanr
from sklearn.metrics import cohen_kappa_score

from evaluators import Rated, agreement

statsmodels_fleiss = pytest.importorskip("statsmodels.stats.inter_rater").fleiss_kappa


def passfail(value: bool) -> tuple[float, bool]:
    return (1.0 if value else 0.0, value)


def judged_runs(n: int = 60, seed: int = 1) -> list[Rated]:
    rng = np.random.default_rng(seed)
    runs = []
    for i in range(n):
        truth = bool(rng.random() < 0.5)
        value = float(np.clip((0.7 if truth else 0.3) + rng.normal(0, 0.2), 0, 1))
        labels = {"alice": passfail(truth), "bob": passfail(truth if rng.random() < 0.8 else not truth)}
        if i % 3 == 0:
            labels["carol"] = passfail(truth if rng.random() < 0.9 else not truth)
        runs.append(Rated(f"run-{i}", value, None, labels, note=f"value {value:.2f}"))
    return runs


def test_the_score_is_compared_with_every_persons_label_and_kappa_is_scikit_learns_on_those_pairs():
    runs = judged_runs()
    found = agreement(runs, score="judge", label="helpful", threshold=0.5)
    judge = [int(r.value >= 0.5) for r in runs for _ in r.labels]
    people = [int(v[1]) for r in runs for v in r.labels.values()]
    assert (found.n, found.pairs, found.label_kind, found.headline) == (60, len(people), "binary", "kappa")
    assert found.passes["_estimate"].value == pytest.approx(cohen_kappa_score(judge, people), abs=1e-12)
    assert found.passes["raw_agreement"]["ci_method"] == "bootstrap"  # pairs of one run are not independent
    assert found.passes["confusion"]["counts"] == [
        [sum(1 for j, h in zip(judge, people) if (h, j) == (x, y)) for y in (0, 1)] for x in (0, 1)]
    rho = found.ranks["spearman"]["value"]
    values = [r.value for r in runs for _ in r.labels]
    assert rho == pytest.approx(spearmanr(values, people).statistic, abs=1e-12)


def test_one_persons_labels_have_exact_intervals_for_proportions():
    found = agreement(judged_runs(), threshold=0.5, by="alice")
    assert found.n == found.pairs == 60 and found.raters is None
    for key in ("raw_agreement", "score_pass_rate", "label_pass_rate"):
        assert found.passes[key]["ci_method"] == "exact"


def test_the_people_against_each_other_and_the_score_against_each_person():
    runs = judged_runs()
    raters = agreement(runs, threshold=0.5).raters
    assert raters["people"] == ["alice", "bob", "carol"]
    both = [r for r in runs if "carol" in r.labels]
    assert raters["person_vs_person"]["alice ~ carol"]["value"] == pytest.approx(
        cohen_kappa_score([int(r.labels["alice"][1]) for r in both], [int(r.labels["carol"][1]) for r in both]),
        abs=1e-12)
    assert raters["score_vs_person"]["bob"]["value"] == pytest.approx(
        cohen_kappa_score([int(r.value >= 0.5) for r in runs], [int(r.labels["bob"][1]) for r in runs]), abs=1e-12)
    table = [[sum(1 for v in r.labels.values() if v[1] == c) for c in (False, True)] for r in both]
    assert raters["fleiss_kappa"]["n"] == len(both)
    assert raters["fleiss_kappa"]["value"] == pytest.approx(statsmodels_fleiss(np.array(table)), abs=1e-12)
    assert raters["krippendorff_alpha"]["level"] == "nominal"
    assert "krippendorff_alpha_with_score" in raters


def test_labels_on_a_scale_get_weighted_kappa_with_its_weights_named():
    rng = np.random.default_rng(3)
    runs = []
    for i in range(50):
        grade = int(rng.integers(1, 6))
        judge = int(np.clip(grade + rng.integers(-1, 2), 1, 5))
        runs.append(Rated(f"r{i}", float(judge), None, {"": (float(grade), None)}))
    found = agreement(runs, weights="linear")
    assert (found.label_kind, found.headline) == ("ordinal", "weighted_kappa")
    assert found.ordinal["weights"] == "linear" and found.ordinal["confusion"]["levels"] == [1, 2, 3, 4, 5]
    assert found.estimate.value == pytest.approx(cohen_kappa_score(
        [int(r.value) for r in runs], [int(r.labels[""][0]) for r in runs], weights="linear", labels=[1, 2, 3, 4, 5]),
        abs=1e-12)
    assert found.passes is None and "no pass on one side" in found.notes[0]
    with_pass = agreement(runs, threshold=4, label_threshold=4)
    assert with_pass.headline == "kappa"


def test_a_continuous_score_against_numbers_is_read_by_rank():
    runs = [Rated(f"r{i}", i / 10 + (0.3 if i == 4 else 0), None, {"": (float(i * 7.5), None)}) for i in range(10)]
    found = agreement(runs)
    assert (found.label_kind, found.headline, found.ordinal) == ("continuous", "spearman", None)
    assert found.disagreements[0]["run_id"] in ("r4", "r5", "r6", "r7")


def test_the_worst_disagreements_come_first_with_the_most_confident_judge_first():
    runs = [Rated("sure", 0.95, None, {"": passfail(False)}), Rated("unsure", 0.55, None, {"": passfail(False)}),
            Rated("agree", 0.9, None, {"": passfail(True)}), Rated("also", 0.1, None, {"": passfail(False)})]
    found = agreement(runs, threshold=0.5)
    assert [d["run_id"] for d in found.disagreements] == ["sure", "unsure"]
    assert found.disagreements[0]["gap"].startswith("passes differ")


def test_runs_without_a_label_or_a_score_are_left_out():
    runs = [Rated("a", 1.0, True, {}), Rated("b", None, None, {"": passfail(True)}),
            Rated("c", 1.0, True, {"": passfail(True)}), Rated("d", 0.0, False, {"": passfail(False)})]
    found = agreement(runs)
    assert found.n == 2 and found.estimate.value == pytest.approx(1.0)
    assert agreement([]).estimate is None and agreement([]).to_dict()["headline"] is None
