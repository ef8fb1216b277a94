"""Calibration of ``harness compare``'s verdicts, measured through the real compare.

Paired experiments with known truths are written as ``runs`` (and ``scores``) rows to real
SQLite stores in a temporary directory (``Store.write``) and compared with
``harness.experiment.compare.compare_experiments``, the function behind ``harness compare``
and ``h.compare``. Each figure is a share of simulated comparisons; for a rate that must
stay at or below alpha its exact one-sided 95% upper bound (Clopper-Pearson) is printed
beside it. Sections:

1. **The gate on pass rates**, one run per case (the exact binomial) or three (repeat means,
   the exact sign-flip test on thirds): false fail when nothing changed (both pass 90% of
   runs), how often that comes out ``no_change``, and power when the candidate passes 75%;
   with one run per case also the exact rates (every outcome weighed by its probability);
   and three gated metrics under Holm with nothing changed.
2. **Equivalence at the margin**: the candidate fails every run of 5% of the cases and the
   baseline passes all (a sparse drop exactly as large as the 0.05 margin); the share called
   ``no_change`` at n = 5 to 100, one and three runs per case (was 77% at n = 5 down to 12%
   at n = 100 with three).
3. **Unequal repeats**: the baseline runs each case once, the candidate three times, nothing
   changed (pass 90%): false fail (was 7.1% at n = 30, 6.3% at 100).
4. **Scorer failures on one side**: a judge's grade (a case's quality plus run noise, three
   repeats) that did not change, gated; the candidate's scorer errors on 10% of its runs:
   the share called ``regressed`` (an errored score read as 0 made every such comparison
   fail), and the share whose gate fails for missing data (a case is lost only when all its
   repeats errored).
5. **needed_cases**: comparisons that came out ``inconclusive`` (0.9 -> 0.75 over 12 cases of
   one run and of three; 0.9 -> 0.85 over 30 cases of three runs) are run again at the
   ``needed_cases`` they printed, from the same truth: the share that shows the change
   (at least 75%; the old figure, where the p just reaches alpha, showed it in 41-57%, and
   80% power planned at the observed values in 65-90%).
6. **Looking again**: shards of 20 cases are appended to both experiments and compare runs
   after each (5 looks, n = 20 to 100), nothing changed: the share with a false fail at any
   look, for the judge's grade (one run per case) and for pass rates (three), without
   (``--power-sims`` comparisons: the rate is far from alpha; was 14% for a score) and with
   ``--sequential``.

Defaults take about 18 minutes of one core; ``--sims`` (comparisons per figure with no
change; 1,000 give a rate near 0.05 to about 0.007) and ``--power-sims`` trade time for
precision; ``--sections 1 4`` runs some.

    python benchmarks/compare_calibration.py [--sims 1000] [--power-sims 300] [--sections 1 2 3 4 5 6]
"""

from __future__ import annotations

import argparse
import itertools
import math
import random
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from evaluators import binomial_tail  # noqa: E402
from harness import Store  # noqa: E402
from harness.experiment.compare import Comparison, compare_experiments  # noqa: E402

BATCH = 10  # simulated comparisons per store file (a small table keeps each read short)


@dataclass(frozen=True)
class Truth:
    """How runs come out. ``pass_a``/``pass_b``: each run passes independently at its
    version's rate; ``broken``: the share of cases the candidate fails on every repeat;
    ``repeats_a``/``repeats_b``: runs per case; ``grade``: runs carry a judge's grade (the
    case's quality, Beta(4, 2), plus N(0, 0.1) noise, clipped to [0, 1], two decimals);
    ``errors_b``: the share of the candidate's grades whose scorer errored."""

    pass_a: float = 0.9
    pass_b: float = 0.9
    broken: float = 0.0
    repeats_a: int = 1
    repeats_b: int = 1
    grade: bool = False
    errors_b: float = 0.0


class World(random.Random):
    """One simulated pair's randomness: its own draws, and a seed for what both versions share."""

    def __init__(self, seed: int) -> None:
        super().__init__(seed)
        self.seed = seed


def rows(name: str, side: str, truth: Truth, cases: range, world: World) -> tuple[list[dict], list[dict]]:
    """The runs (and grade scores) of one experiment over ``cases``. ``world`` draws what the
    two versions share (a case's quality and whether it is one the candidate breaks) from a
    seed per case, so both sides of a pair see the same cases."""
    runs, scores = [], []
    repeats = truth.repeats_a if side == "a" else truth.repeats_b
    rate = truth.pass_a if side == "a" else truth.pass_b
    for case in cases:
        shared = random.Random(f"{world.seed}:{case}")  # the same for both versions of the pair
        quality, broken = shared.betavariate(4, 2), shared.random() < truth.broken
        for repeat in range(repeats):
            run_id = str(uuid.UUID(int=world.getrandbits(128)))
            passed = 0 if (side == "b" and broken) else int(world.random() < rate)
            runs.append({"run_id": run_id, "experiment": name, "case_id": f"case-{case}", "repeat_index": repeat,
                         "status": "completed", "passed": passed, "total_time_ms": world.lognormvariate(7.0, 0.3),
                         "total_tokens": 500,
                         "total_cost": None})
            if truth.grade:
                errored = side == "b" and world.random() < truth.errors_b
                grade = round(min(1.0, max(0.0, quality + world.gauss(0, 0.1))), 2)
                scores.append({"run_id": run_id, "name": "grade", "value": None if errored else grade,
                               "passed": None, "source": "code", "scorer": "bench:grade",
                               "error": "TimeoutError: the judge timed out" if errored else None,
                               "created_at": "2026-01-01T00:00:00+00:00", "row_key": f"{run_id}:score:grade"})
    return runs, scores


class Pairs:
    """Simulated pairs ``s{i}-a`` / ``s{i}-b`` written to stores of :data:`BATCH` pairs, each
    store a new file."""

    files = itertools.count()

    def __init__(self, folder: Path, label: str, rng: random.Random) -> None:
        self.folder, self.label, self.rng = folder, label, rng

    def batches(self, sims: int) -> Iterator[tuple[Store, list[World]]]:
        for start in range(0, sims, BATCH):
            store = Store(self.folder / f"{self.label}-{next(Pairs.files)}.db")
            worlds = [World(self.rng.getrandbits(64)) for _ in range(min(BATCH, sims - start))]
            try:
                yield store, worlds
            finally:
                store.close()

    @staticmethod
    def write(store: Store, truth: Truth, worlds: list[World], cases: range) -> None:
        runs, scores = [], []
        for i, world in enumerate(worlds):
            for side in ("a", "b"):
                more_runs, more_scores = rows(f"s{i}-{side}", side, truth, cases, world)
                runs += more_runs
                scores += more_scores
        store.write("runs", runs)
        if scores:
            store.write("scores", scores)


def compare(store: Store, i: int, metric: str, alpha: float, **options: Any) -> Comparison:
    return compare_experiments(store, f"s{i}-a", f"s{i}-b", alpha=alpha, metrics=[metric], gate=[metric], **options)


def simulate(pairs: Pairs, truth: Truth, cases: int, sims: int, look: Callable[[Comparison], dict[str, bool]],
             metric: str, alpha: float, **options: Any) -> dict[str, int]:
    """How many of ``sims`` comparisons each key of ``look`` was true in."""
    counted: dict[str, int] = {}
    for store, worlds in pairs.batches(sims):
        Pairs.write(store, truth, worlds, range(cases))
        for i in range(len(worlds)):
            for key, hit in look(compare(store, i, metric, alpha, **options)).items():
                counted[key] = counted.get(key, 0) + hit
    return counted


def gate_look(c: Comparison) -> dict[str, bool]:
    m = c.metrics[0]
    return {"fail": c.regressed, "regressed": m.verdict == "regressed", "no_change": m.verdict == "no_change",
            "missing": c.missing_data}


def exact_fail_rate(cases: int, pass_a: float, pass_b: float, alpha: float) -> float:
    """One run per case: the probability that the exact binomial gate fails, summed over
    every (down, up) outcome of ``cases`` independent pairs."""
    p_down, p_up = pass_a * (1 - pass_b), pass_b * (1 - pass_a)
    p_same = 1 - p_down - p_up
    total = 0.0
    for down in range(cases + 1):
        for up in range(cases + 1 - down):
            if binomial_tail(down, down + up) < alpha:
                total += (math.comb(cases, down) * math.comb(cases - down, up) * p_down ** down * p_up ** up
                          * p_same ** (cases - down - up))
    return total


def upper(hits: int, trials: int) -> float:
    """The exact one-sided 95% upper bound of a rate (Clopper-Pearson)."""
    from scipy.stats import beta

    return 1.0 if hits >= trials else float(beta.ppf(0.95, hits + 1, trials - hits))


def rate(hits: int, trials: int, bound: bool = False) -> str:
    text = f"{hits / trials:.3f}"
    return f"{text} ({upper(hits, trials):.3f})" if bound else text


class Report:
    def __init__(self, alpha: float) -> None:
        self.alpha = alpha
        self.worst: list[tuple[str, float, float]] = []  # (what, rate, its upper bound) that must stay <= alpha

    def section(self, title: str, header: str) -> None:
        print(f"\n{title}\n{header}", flush=True)

    def bounded(self, what: str, hits: int, trials: int) -> str:
        self.worst.append((what, hits / trials, upper(hits, trials)))
        return rate(hits, trials, bound=True)


def section_gate(pairs_of: Callable[[str], Pairs], args: argparse.Namespace, report: Report) -> None:
    report.section("1. the gate on pass rates (rate, and its 95% upper bound where it must be <= alpha)",
                   f"{'runs/case':>9} {'n':>4}  {'false fail':>15} {'exact':>6}  {'no_change':>9}  "
                   f"{'power 0.9->0.75':>15} {'exact':>6}  {'Holm, 3 gated':>15}")
    for repeats in (1, 3):
        for cases in args.cases:
            null = simulate(pairs_of(f"null{repeats}"), Truth(repeats_a=repeats, repeats_b=repeats), cases, args.sims,
                            gate_look, "pass_rate", args.alpha)
            power = simulate(pairs_of(f"pow{repeats}"), Truth(pass_b=0.75, repeats_a=repeats, repeats_b=repeats),
                             cases, args.power_sims, gate_look, "pass_rate", args.alpha)
            holm = _holm(pairs_of(f"holm{repeats}"), repeats, cases, args)
            exact_null = f"{exact_fail_rate(cases, 0.9, 0.9, args.alpha):6.3f}" if repeats == 1 else " " * 6
            exact_power = f"{exact_fail_rate(cases, 0.9, 0.75, args.alpha):6.3f}" if repeats == 1 else " " * 6
            print(f"{repeats:>9} {cases:>4}  {report.bounded(f'false fail, {repeats} run(s), n {cases}', null['fail'], args.sims):>15} "
                  f"{exact_null}  {rate(null['no_change'], args.sims):>9}  {rate(power['fail'], args.power_sims):>15} "
                  f"{exact_power}  {report.bounded(f'Holm, {repeats} run(s), n {cases}', holm, args.sims):>15}",
                  flush=True)


def _holm(pairs: Pairs, repeats: int, cases: int, args: argparse.Namespace) -> int:
    """Nothing changed; the grade and latency vary from run to run: pass_rate, the grade and
    latency gated (``--gate pass_rate --gate grade --gate latency_ms``)."""
    fails = 0
    for store, worlds in pairs.batches(args.sims):
        Pairs.write(store, Truth(repeats_a=repeats, repeats_b=repeats, grade=True), worlds, range(cases))
        for i in range(len(worlds)):
            fails += compare_experiments(store, f"s{i}-a", f"s{i}-b", alpha=args.alpha,
                                         metrics=["pass_rate", "grade", "latency_ms"],
                                         gate=["pass_rate", "grade", "latency_ms"]).regressed
    return fails


def section_margin(pairs_of: Callable[[str], Pairs], args: argparse.Namespace, report: Report) -> None:
    report.section("2. a sparse drop exactly as large as the margin (5% of cases broken): share called no_change",
                   f"{'n':>4}  {'1 run/case':>15}  {'3 runs/case':>15}")
    for cases in args.margin_cases:
        cells = []
        for repeats in (1, 3):
            got = simulate(pairs_of(f"margin{repeats}"), Truth(pass_a=1.0, pass_b=1.0, broken=0.05,
                                                               repeats_a=repeats, repeats_b=repeats),
                           cases, args.sims, gate_look, "pass_rate", args.alpha)
            cells.append(report.bounded(f"no_change at the margin, {repeats} run(s), n {cases}", got["no_change"],
                                        args.sims))
        print(f"{cases:>4}  {cells[0]:>15}  {cells[1]:>15}", flush=True)


def section_unequal(pairs_of: Callable[[str], Pairs], args: argparse.Namespace, report: Report) -> None:
    report.section("3. unequal repeats (baseline 1 run per case, candidate 3), nothing changed",
                   f"{'n':>4}  {'false fail':>15}")
    for cases in (30, 100):
        got = simulate(pairs_of("unequal"), Truth(repeats_a=1, repeats_b=3), cases, args.sims, gate_look, "pass_rate",
                       args.alpha)
        print(f"{cases:>4}  {report.bounded(f'unequal repeats, n {cases}', got['fail'], args.sims):>15}", flush=True)


def section_errors(pairs_of: Callable[[str], Pairs], args: argparse.Namespace, report: Report) -> None:
    report.section("4. the candidate's scorer errors on 10% of its runs, the grade did not change (3 runs/case)",
                   f"{'n':>4}  {'regressed':>15}  {'gate fails: missing data':>24}")
    for cases in (30, 100):
        got = simulate(pairs_of("errors"), Truth(repeats_a=3, repeats_b=3, grade=True, errors_b=0.1), cases,
                       args.sims, gate_look, "grade", args.alpha)
        print(f"{cases:>4}  {report.bounded(f'regressed with scorer errors, n {cases}', got['regressed'], args.sims):>15}"
              f"  {rate(got['missing'], args.sims):>24}", flush=True)


def section_needed(pairs_of: Callable[[str], Pairs], args: argparse.Namespace, report: Report) -> None:
    report.section("5. rerun at needed_cases, from the same truth: share that shows the change",
                   f"{'truth':<28} {'inconclusive':>12} {'median needed':>13} {'shown':>7}")
    for label, truth, cases in (("0.9 -> 0.75, 1 run, n 12", Truth(pass_b=0.75), 12),
                                ("0.9 -> 0.75, 3 runs, n 12", Truth(pass_b=0.75, repeats_a=3, repeats_b=3), 12),
                                ("0.9 -> 0.85, 3 runs, n 30", Truth(pass_b=0.85, repeats_a=3, repeats_b=3), 30)):
        planned: list[int] = []
        first = pairs_of("plan")
        for store, worlds in first.batches(args.power_sims):
            Pairs.write(store, truth, worlds, range(cases))
            for i in range(len(worlds)):
                m = compare(store, i, "pass_rate", args.alpha).metrics[0]
                if m.verdict == "inconclusive" and m.needed_cases:
                    planned.append(m.needed_cases)
        shown = 0
        rerun = pairs_of("rerun")
        for n in planned:
            for store, worlds in rerun.batches(1):
                Pairs.write(store, truth, worlds, range(n))
                shown += compare(store, 0, "pass_rate", args.alpha).metrics[0].verdict == "regressed"
        median = sorted(planned)[len(planned) // 2] if planned else 0
        print(f"{label:<28} {len(planned):>12} {median:>13} {rate(shown, max(len(planned), 1)):>7}", flush=True)


def section_looks(pairs_of: Callable[[str], Pairs], args: argparse.Namespace, report: Report) -> None:
    report.section("6. five looks (shards of 20 cases appended, n 20 -> 100), nothing changed: any false fail",
                   f"{'metric':<28} {'one look at a time':>18}  {'--sequential':>15}")
    for label, truth, metric in (("grade, 1 run/case", Truth(grade=True), "grade"),
                                 ("pass_rate, 3 runs/case", Truth(repeats_a=3, repeats_b=3), "pass_rate")):
        plain = looked = done = 0
        for store, worlds in pairs_of(f"looks-{metric}").batches(args.sims):
            ever = [[False, False] for _ in worlds]
            for shard in range(5):
                Pairs.write(store, truth, worlds, range(20 * shard, 20 * shard + 20))
                for i in range(len(worlds)):
                    if done + i < args.power_sims:  # the old way's rate is far from alpha: fewer sims
                        ever[i][0] |= compare(store, i, metric, args.alpha).regressed
                    ever[i][1] |= compare(store, i, metric, args.alpha, sequential=True).regressed
            plain += sum(e[0] for e in ever)
            looked += sum(e[1] for e in ever)
            done += len(worlds)
        print(f"{label:<28} {rate(plain, min(args.power_sims, args.sims)):>18}  "
              f"{report.bounded(f'sequential looks, {label}', looked, args.sims):>15}", flush=True)


SECTIONS = {1: section_gate, 2: section_margin, 3: section_unequal, 4: section_errors, 5: section_needed,
            6: section_looks}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sims", type=int, default=1000, help="comparisons per figure with no change (1000)")
    parser.add_argument("--power-sims", type=int, default=300, help="comparisons per figure with a change (300)")
    parser.add_argument("--cases", type=int, nargs="+", default=[12, 30, 100])
    parser.add_argument("--margin-cases", type=int, nargs="+", default=[5, 10, 20, 30, 100])
    parser.add_argument("--sections", type=int, nargs="+", default=list(SECTIONS), choices=list(SECTIONS))
    parser.add_argument("--alpha", type=float, default=0.05)
    parser.add_argument("--seed", type=int, default=20_240_901)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    print(f"alpha {args.alpha}; {args.sims} comparisons per figure with no change, {args.power_sims} with one; "
          f"seed {args.seed}")
    started = time.perf_counter()
    report = Report(args.alpha)
    with tempfile.TemporaryDirectory() as folder:
        def pairs_of(label: str) -> Pairs:
            return Pairs(Path(folder), label, rng)

        for number in args.sections:
            SECTIONS[number](pairs_of, args, report)
    if report.worst:
        what, worst, bound = max(report.worst, key=lambda w: w[1])
        print(f"\nlargest rate that must stay at or below alpha: {worst:.3f} ({what}; 95% upper bound {bound:.3f}); "
              f"target <= {args.alpha}")
    print(f"{time.perf_counter() - started:.0f} s, {time.process_time():.0f} s of CPU")


if __name__ == "__main__":
    main()
