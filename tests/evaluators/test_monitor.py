"""The production monitor's window figures: exact intervals tested against enumeration and
simulation, thresholds crossed only beyond an interval, one status for the seed's monitor and
``harness monitor``."""

from __future__ import annotations

import math
import random
import statistics

import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.stats import binom, t

import evaluators
from evaluators import (Figure, ProductionMonitor, check_threshold, clopper_pearson, mean_figure, production_status,
                        proportion_figure, quantile_figure, window_metrics)


def test_a_proportion_has_its_exact_interval_and_none_without_runs():
    assert proportion_figure(7, 20) == Figure(0.35, *clopper_pearson(7, 20), 20)
    assert proportion_figure(0, 0) == Figure(None, None, None, 0)


@pytest.mark.parametrize("n", [1, 5, 19, 20, 60, 200])
@pytest.mark.parametrize("q", [0.5, 0.95])
def test_a_quantiles_order_statistic_interval_covers_it_at_least_at_the_level_by_enumeration(n, q):
    """The interval [x(l), x(u)] covers the true quantile exactly when l <= B < u, B ~ Bin(n, q) counting
    the values below it: its coverage is a binomial sum, enumerated here for the ranks chosen."""
    xs = list(range(n))  # ranks stand for the values
    figure = quantile_figure(xs, q)
    low = 0 if figure.low is None else int(figure.low) + 1  # an open end: a rank beyond the data
    high = n + 1 if figure.high is None else int(figure.high) + 1
    coverage = sum(binom.pmf(k, n, q) for k in range(low, high))
    assert coverage >= 0.95 - 1e-12 or figure.low is None or figure.high is None
    # ...with equal tails of at most 2.5% each, and no wider than that needs: moving an end in
    # would put more than 2.5% outside on its side.
    below, above = binom.cdf(low - 1, n, q), 1 - binom.cdf(high - 1, n, q)
    assert below <= 0.025 + 1e-12 and above <= 0.025 + 1e-12
    if figure.low is not None:
        assert binom.cdf(low, n, q) > 0.025
    if figure.high is not None:
        assert 1 - binom.cdf(high - 2, n, q) > 0.025


def test_the_p95_interval_covers_the_true_p95_in_at_least_95_percent_of_simulated_windows():
    rng = random.Random(7)
    true_p95 = -math.log(0.05)  # exponential(1)
    trials, covered = 2_000, 0
    for _ in range(trials):
        f = quantile_figure([rng.expovariate(1.0) for _ in range(120)], 0.95)
        covered += f.low is not None and f.high is not None and f.low <= true_p95 <= f.high
    assert covered / trials >= 0.94  # the level, less the simulation's own spread


def test_a_quantiles_value_is_the_inclusive_quantile():
    values = [random.Random(3).uniform(0, 100) for _ in range(37)]
    assert quantile_figure(values, 0.5).value == pytest.approx(statistics.median(values))
    assert quantile_figure(values, 0.95).value == pytest.approx(
        statistics.quantiles(values, n=20, method="inclusive")[-1])


def test_a_mean_has_students_t_interval():
    values = [0.2, 0.4, 0.9, 0.7, 0.5]
    low, high = t.interval(0.95, len(values) - 1, loc=statistics.mean(values),
                           scale=statistics.stdev(values) / math.sqrt(len(values)))
    figure = mean_figure(values)
    assert (figure.value, figure.low, figure.high) == pytest.approx((statistics.mean(values), low, high))
    assert mean_figure([0.3]) == Figure(0.3, None, None, 1)


def test_a_threshold_is_crossed_only_when_the_whole_interval_lies_beyond_it():
    low_rate = window_metrics([{"status": "completed", "passed": i % 2} for i in range(100)])
    (alert,) = check_threshold(low_rate, "pass_rate", minimum=0.9)
    assert alert.crossed and alert.high < 0.9
    few = window_metrics([{"status": "completed", "passed": p} for p in (1, 1, 0)])
    (alert,) = check_threshold(few, "pass_rate", minimum=0.9)
    assert not alert.crossed and alert.value == pytest.approx(2 / 3) and alert.high > 0.9
    (alert,) = check_threshold(few, "latency_p95_ms", maximum=10)  # no latency at all: never crossed
    assert alert.value is None and not alert.crossed
    (alert,) = check_threshold(few, "no_such_score", minimum=0.5)
    assert alert.value is None and not alert.crossed


def test_a_window_leaves_unknown_passes_and_errored_scores_out_and_counts_failures():
    runs = [{"status": "completed", "passed": 1, "total_time_ms": 10.0, "total_cost": 0.5},
            {"status": "completed", "passed": None, "total_time_ms": 30.0, "total_cost": None},
            {"status": "failed", "passed": 0, "total_time_ms": 20.0, "total_cost": 0.25}]
    scores = [{"name": "polite", "value": 1.0, "error": None}, {"name": "polite", "value": None, "error": "boom"},
              {"name": "polite", "value": 0.0, "error": None}]
    m = window_metrics(runs, scores)
    assert (m.runs, m.completed, m.judged, m.passed) == (3, 2, 2, 1)
    assert m.pass_rate.value == 0.5 and m.error_rate.value == pytest.approx(1 / 3)
    assert m.latency_p50_ms.value == 20.0 and m.cost_total == 0.75 and m.cost_per_run.value == 0.375
    assert m.scores["polite"].value == 0.5 and m.scores["polite"].n == 2
    assert m.status == "critical"  # 0.5 < 0.70: the seed's thresholds


@given(st.lists(st.booleans(), min_size=1, max_size=200))
def test_the_seeds_monitor_and_the_window_figures_agree(passes):
    monitor = ProductionMonitor(lambda q, o: {"completeness": 1.0 if o == "good" else 0.0}, sample_rate=1.0)
    for p in passes:
        monitor.sample_and_evaluate("q", "good" if p else "bad")
    seed = monitor.get_metrics()
    window = window_metrics([{"status": "completed", "passed": int(p)} for p in passes])
    assert seed.pass_rate == window.pass_rate.value
    assert seed.status == window.status == production_status(window.pass_rate.value)


@pytest.mark.parametrize("rate, status", [(None, "insufficient_data"), (0.69, "critical"), (0.7, "warning"),
                                          (0.849, "warning"), (0.85, "healthy"), (1.0, "healthy")])
def test_the_status_follows_the_seeds_thresholds(rate, status):
    assert production_status(rate) == status
    assert evaluators.PASS_RATE_WARNING == 0.85 and evaluators.PASS_RATE_CRITICAL == 0.70
