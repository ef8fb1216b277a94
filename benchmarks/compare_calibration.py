"""Calibration of ``harness compare``'s gate, measured through the real compare.

Paired experiments with known outcomes are written as ``runs`` rows to real SQLite stores
in a temporary directory (``Store.write``) and compared with
``harness.experiment.compare.compare_experiments``, the function behind ``harness compare``
and ``h.compare``. Every run of a case passes independently with the version's pass
rate; a case runs once (the exact binomial on discordant pairs) or three times (per-case
pass rates, the sign-flip test). Per number of cases n:

- **false fail**: both versions pass 90% of runs (nothing changed); the share of
  comparisons in which ``--fail-on-regression`` exits 1 (gate ``pass_rate``). The target is
  at most alpha; the 95% upper bound of the simulated share is printed with it, and for
  one run per case the exact rate (every outcome of n cases weighed by its probability).
- **no_change**: in the same comparisons, the share whose ``pass_rate`` verdict is
  ``no_change`` (equivalence within the default margin of 0.05 shown).
- **power**: the candidate passes 75% instead of 90%; the share in which the gate fails.
- **Holm**: nothing changed, latency and tokens vary from run to run, and three metrics
  gate (``--gate pass_rate --gate latency_ms --gate total_tokens``): the share in which any
  of them fails the gate.
- with ``--margin-check``: the candidate passes 85% instead of 90%, a change exactly as
  large as the default margin, three repeats: the share called ``no_change`` (equivalence
  claimed wrongly; at most about alpha for a calibrated equivalence test).

The pass-rate scenarios compare ``pass_rate`` only (``--metric pass_rate``): the other
metrics do not touch a gate that is ``pass_rate`` alone, and skipping them keeps the run
short. Defaults take about 4½ minutes of one core; ``--null-sims`` and ``--power-sims``
buy precision (the simulation error of a rate near 0.05 is about 0.007 over 1,000
comparisons; of a power near 0.5, 0.03 over 300).

    python benchmarks/compare_calibration.py [--null-sims 1000] [--power-sims 300]
                                             [--cases 12 30 100] [--margin-check]
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from evaluators import binomial_tail  # noqa: E402
from harness import Store  # noqa: E402
from harness.experiment.compare import compare_experiments  # noqa: E402

BATCH = 10  # simulated comparisons per store file (a small table keeps each read short)


@dataclass(frozen=True)
class Scenario:
    label: str
    pass_a: float
    pass_b: float
    repeats: int = 1
    gate: tuple[str, ...] = ("pass_rate",)
    metrics: tuple[str, ...] | None = ("pass_rate",)
    noise: bool = False  # latency and tokens vary from run to run


def runs(name: str, cases: int, scenario: Scenario, pass_rate: float, rng: random.Random) -> list[dict]:
    rows = []
    for case in range(cases):
        tokens = rng.randint(200, 2_000)  # a case's size, the same in both versions
        for repeat in range(scenario.repeats):
            rows.append({
                "run_id": f"{name}:{case}:{repeat}", "experiment": name, "case_id": f"case-{case}",
                "repeat_index": repeat,
                "status": "completed", "passed": int(rng.random() < pass_rate),
                "total_time_ms": rng.lognormvariate(7.0, 0.3) if scenario.noise else 1_000.0,
                "total_tokens": int(tokens * rng.uniform(0.9, 1.1)) if scenario.noise else tokens,
                "total_cost": None})
    return rows


def simulate(scenario: Scenario, cases: int, sims: int, alpha: float, rng: random.Random,
             folder: Path) -> Counter[str]:
    """How often the gate failed (``fail``) and each pass-rate verdict came out."""
    counted: Counter[str] = Counter()
    for start in range(0, sims, BATCH):
        store = Store(folder / f"{scenario.label.replace(' ', '_')}-{cases}-{start}.db")
        size = min(BATCH, sims - start)
        rows = []
        for i in range(size):
            rows += runs(f"s{i}-a", cases, scenario, scenario.pass_a, rng)
            rows += runs(f"s{i}-b", cases, scenario, scenario.pass_b, rng)
        store.write("runs", rows)
        for i in range(size):
            c = compare_experiments(store, f"s{i}-a", f"s{i}-b", alpha=alpha, gate=list(scenario.gate),
                                    metrics=list(scenario.metrics) if scenario.metrics else None)
            counted["fail"] += c.regressed
            counted[c.metric("pass_rate").verdict] += 1
        store.close()
    return counted


def exact_fail_rate(cases: int, pass_a: float, pass_b: float, alpha: float) -> float:
    """One run per case: the probability that the exact binomial gate fails, summed over
    every (down, up) outcome of ``cases`` independent pairs."""
    p_down, p_up = pass_a * (1 - pass_b), pass_b * (1 - pass_a)
    p_same = 1 - p_down - p_up
    total = 0.0
    for down in range(cases + 1):
        for up in range(cases + 1 - down):
            if binomial_tail(down, down + up) < alpha:  # the gate's p_worse
                total += (math.comb(cases, down) * math.comb(cases - down, up) * p_down ** down * p_up ** up
                          * p_same ** (cases - down - up))
    return total


def upper_bound(hits: int, trials: int) -> float:
    """The exact one-sided 95% upper bound of a rate (Clopper-Pearson)."""
    from scipy.stats import beta

    return 1.0 if hits >= trials else float(beta.ppf(0.95, hits + 1, trials - hits))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--null-sims", type=int, default=1000, help="comparisons per n with no change (1000)")
    parser.add_argument("--power-sims", type=int, default=300, help="comparisons per n with a change (300)")
    parser.add_argument("--cases", type=int, nargs="+", default=[12, 30, 100])
    parser.add_argument("--alpha", type=float, default=0.05)
    parser.add_argument("--seed", type=int, default=20_240_901)
    parser.add_argument("--margin-check", action="store_true", help="also: a change as large as the margin")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    scenarios = [
        (Scenario("no change", 0.9, 0.9), args.null_sims),
        (Scenario("0.9 -> 0.75", 0.9, 0.75), args.power_sims),
        (Scenario("no change, 3 repeats", 0.9, 0.9, repeats=3), args.null_sims),
        (Scenario("0.9 -> 0.75, 3 repeats", 0.9, 0.75, repeats=3), args.power_sims),
        (Scenario("no change, Holm over 3 gated", 0.9, 0.9, gate=("pass_rate", "latency_ms", "total_tokens"),
                  metrics=None, noise=True), args.null_sims),
    ]
    if args.margin_check:
        scenarios.append((Scenario("0.9 -> 0.85 (= margin), 3 rep.", 0.9, 0.85, repeats=3), args.null_sims))
    print(f"alpha {args.alpha}; comparisons per scenario and n: {args.null_sims} with no change, "
          f"{args.power_sims} with a change; seed {args.seed}")
    print(f"{'scenario':<30} {'n':>4} {'sims':>5}  {'gate fails':>10} {'(95% upper)':>11} {'exact':>7}  "
          f"{'no_change':>9} {'inconclusive':>12}")
    started = time.perf_counter()
    worst_null = 0.0
    with tempfile.TemporaryDirectory() as folder:
        for scenario, sims in scenarios:
            for cases in args.cases:
                counted = simulate(scenario, cases, sims, args.alpha, rng, Path(folder))
                rate = counted["fail"] / sims
                exact = (f"{exact_fail_rate(cases, scenario.pass_a, scenario.pass_b, args.alpha):7.4f}"
                         if scenario.repeats == 1 and scenario.gate == ("pass_rate",) else f"{'':>7}")
                null = scenario.pass_a == scenario.pass_b
                bound = f"({upper_bound(counted['fail'], sims):.4f})" if null else ""
                if null:
                    worst_null = max(worst_null, rate)
                print(f"{scenario.label:<30} {cases:>4} {sims:>5}  {rate:>10.4f} {bound:>11} {exact}  "
                      f"{counted['no_change'] / sims:>9.4f} {counted['inconclusive'] / sims:>12.4f}", flush=True)
    print(f"largest false-fail rate with no change: {worst_null:.4f} "
          f"(target <= {args.alpha}); {time.perf_counter() - started:.0f} s, {time.process_time():.0f} s of CPU")


if __name__ == "__main__":
    main()
