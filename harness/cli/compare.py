"""Compare experiments case by case: per metric both means, the difference with its interval, one-sided p-values (exact binomial for pass/fail, exact sign-flip permutation otherwise), an effect size and a verdict: regressed, improved, no_change (within --margin) or inconclusive.

Repeats count once per case (their mean, over as many repeats on both sides). A score that errored, an unknown pass or a missing value is left out and warned about, never counted as 0. The gated metrics (pass_rate unless --gate names others; Holm-adjusted when several, or several candidates: `harness compare base cand1 cand2`) decide the exit code: `--fail-on-regression` exits 1 when a gated metric regressed or lost more than 10% of its cases to missing data (any case with --strict), `--fail-on-inconclusive` also when one is inconclusive. `--sequential` keeps the verdicts valid when compare is run again as shards arrive. Exit 2 for an experiment the store does not have or a bad option.
A judge's score that people labelled (`harness agreement`, or --against LABEL) is printed with its agreement; `--min-agreement 0.6` refuses (exit 2) to gate on a judge whose agreement interval starts lower or that fewer than --min-labels runs have. `--pairwise builtin` (or MODULE:FUNCTION) asks a judge which answer is better, case by case in both orders, and gates on its preference.
"""

from __future__ import annotations

import math
from typing import Annotated, Any, Optional

import typer

from ._errors import UsageError
from ._open import open_store
from ._output import show, show_json

_METRIC_NAMES = "pass_rate, answer_score, tool_f1, trajectory_match, latency_ms, total_tokens, total_cost"


def command(
    a: Annotated[str, typer.Argument(metavar="A", help="The experiment compared against (the baseline).")],
    candidates: Annotated[list[str], typer.Argument(
        metavar="B", help="The experiment(s) compared with the baseline (the candidates: B, or B C ...); several share one "
                                  "Holm-adjusted gate.")],
    store: Annotated[Optional[str], typer.Option(help="Store path or sqlite:/// URL (default: $HARNESS_STORE or ./harness.db).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the comparison as JSON.")] = False,
    fail_on_regression: Annotated[bool, typer.Option(
        "--fail-on-regression", help="Exit 1 when a gated metric regressed or lost too many cases to missing data "
                                     "(the CI gate).")] = False,
    fail_on_inconclusive: Annotated[bool, typer.Option(
        "--fail-on-inconclusive", help="Exit 1 also when a gated metric is inconclusive.")] = False,
    metric: Annotated[Optional[list[str]], typer.Option(
        "--metric", help=f"Compare only this metric (repeatable): {_METRIC_NAMES}, or any score name of the "
                         "experiments' runs (a scorer's, a label's).")] = None,
    gate: Annotated[Optional[list[str]], typer.Option(
        "--gate", help="A metric that gates (repeatable; default pass_rate); several are Holm-adjusted.")] = None,
    margin: Annotated[Optional[list[str]], typer.Option(
        "--margin", help="The smallest change that matters (repeatable): 0.03 for rates and scores in [0, 1] "
                         "(default 0.05), 5% of the metric's scale (its mean absolute value over both experiments) "
                         "for the others (default 10%), or NAME=VALUE for one metric (latency_ms=200, "
                         "calls=0.5, total_cost=5%).")] = None,
    lower_is_better: Annotated[Optional[list[str]], typer.Option(
        "--lower-is-better", metavar="NAME", help="A score for which lower is better (repeatable), over what its "
                                                  "scorer declared.")] = None,
    higher_is_better: Annotated[Optional[list[str]], typer.Option(
        "--higher-is-better", metavar="NAME", help="A score for which higher is better (repeatable), over what its "
                                                   "scorer declared.")] = None,
    strict: Annotated[bool, typer.Option(
        "--strict", help="A gated metric that lost any case to missing data fails the gate (default: more than "
                         "10%).")] = False,
    sequential: Annotated[bool, typer.Option(
        "--sequential", help="Always-valid p-values and intervals (confidence sequences), for a comparison run again "
                             "as shards or appended runs arrive.")] = False,
    alpha: Annotated[float, typer.Option(
        help="Significance level of each one-sided test, below 0.5; intervals are at 1 - 2*alpha.")] = 0.05,
    against: Annotated[Optional[list[str]], typer.Option(
        "--against", metavar="LABEL", help="The people's label a gated score is checked against (SCORE=LABEL with "
                                           "several); default: what harness agreement measured last.")] = None,
    min_agreement: Annotated[Optional[float], typer.Option(
        "--min-agreement", help="Refuse (exit 2) to gate on a judge's score whose agreement interval starts below "
                                "this (e.g. 0.6).")] = None,
    min_labels: Annotated[int, typer.Option(
        "--min-labels", help="With --min-agreement: the labelled runs a judge's score needs.")] = 30,
    pairwise: Annotated[Optional[str], typer.Option(
        "--pairwise", metavar="JUDGE", help="Ask JUDGE which answer is better, case by case in both orders, and gate "
                                            "on its preference: builtin (the configured provider's model) or "
                                            "MODULE:FUNCTION taking (case, answer_a, answer_b).")] = None,
) -> None:
    import dataclasses

    from harness.experiment.compare import Margins, UnknownMetric, compare_candidates
    from harness.experiment.errors import ExperimentError
    from harness.experiment.instruments import with_agreements

    if not 0 < alpha < 0.5:
        raise UsageError(f"--alpha must be between 0 and 0.5, got {alpha}")
    try:
        Margins.parse(margin)
    except ValueError as exc:
        raise UsageError(f"--{exc}") from None
    if pairwise is not None and gate:
        raise UsageError("--pairwise makes the judge's preference the gate: leave out --gate")
    if pairwise is not None and len(candidates) > 1:
        raise UsageError("--pairwise compares two experiments: give one candidate")
    opened = open_store(store)
    try:
        result = compare_candidates(opened, a, candidates, alpha=alpha, metrics=metric,
                                    gate=[] if pairwise is not None else gate, margin=margin,
                                    lower_is_better=lower_is_better or (), higher_is_better=higher_is_better or (),
                                    strict=strict, sequential=sequential)
        result = dataclasses.replace(result, comparisons=tuple(
            with_agreements(opened, c, against=against, min_agreement=min_agreement, min_labels=min_labels)
            for c in result.comparisons))
    except ExperimentError as exc:  # a blank name, one without runs, or a judge the gate cannot trust
        raise UsageError(str(exc)) from None
    except UnknownMetric as exc:  # a metric the experiments do not have, named by the option it came from
        text = str(exc)
        raise UsageError(text if text.startswith("--") else f"--{text}" if exc.option == "margin"
                         else text.replace("unknown metric", f"unknown --{exc.option}", 1)) from None
    except ValueError as exc:  # a margin or alpha the options let through
        raise UsageError(str(exc)) from None
    finally:
        opened.close()
    outcome: Any = result if len(candidates) > 1 else result.comparisons[0]
    if pairwise is not None:
        outcome = _judged(outcome, pairwise, store=store, alpha=alpha, margin=margin)
    if as_json:
        show_json(outcome.to_dict())
    else:
        _table(outcome.to_dict())
    failed = outcome.regressed or (fail_on_inconclusive and outcome.inconclusive)
    raise typer.Exit(1 if (fail_on_regression or fail_on_inconclusive) and failed else 0)


def _table(comparison: dict[str, Any]) -> None:
    from rich.console import Group
    from rich.table import Table
    from rich.text import Text

    from harness.view.comparison import (VERDICT_MEANINGS, ci_heading, each, gate_state, holm_sentence,
                                         interval_ends, level_note, missing_sentence, needed_sentence, p_text,
                                         sequential_sentence)
    from harness.view.judges import agreement_sentence, pairwise_gate

    pairs = list(each(comparison))
    several = len(pairs) > 1
    a = comparison["a"]
    first = pairs[0]
    title = (f"{a} → {', '.join(c['b'] for c in pairs)} · alpha {comparison['alpha']:g} · delta = candidate − {a}"
             if several else f"{a} → {first['b']} · {first['paired_cases']} paired case(s) · alpha "
                             f"{comparison['alpha']:g} · delta = {first['b']} − {a}")
    table = Table(title=title)
    columns = [("metric", "left")] + ([("candidate", "left")] if several else []) + [
        ("gate", "left"), ("better", "left"), ("n", "right"), (a, "right"), ("candidate" if several else first["b"],
                                                                             "right"),
        ("delta", "right"), (ci_heading(comparison), "right"), ("margin", "right"), ("p", "right"),
        ("test", "left"), ("effect", "right"), ("verdict", "left")]
    for col, justify in columns:
        table.add_column(col, justify=justify)  # type: ignore[arg-type]
    styles = {"regressed": "bold red", "improved": "bold green", "no_change": "green", "inconclusive": "yellow"}
    for c in pairs:
        for m in c["metrics"]:
            low, high = interval_ends(m)
            verdict = m["verdict"] + (" · missing data" if m.get("missing_data_fails") else "")
            style = "bold red" if m.get("missing_data_fails") else styles[m["verdict"]] if m["gated"] else ""
            table.add_row(m["name"], *([c["b"]] if several else []), "gate" if m["gated"] else "no",
                          "higher" if m["higher_is_better"] else "lower", str(m["n"]), _num(m["a"]), _num(m["b"]),
                          _num(m["delta"], signed=True),
                          f"[{_num(low, signed=True)}, {_num(high, signed=True)}]{level_note(m, comparison)}"
                          if m["n"] else "—",
                          f"±{_num(m['margin'])}" if m["margin"] is not None else "—", p_text(m), m["test"] or "—",
                          _num(m["effect_size"], signed=True), Text(verdict, style=style))
    lines: list[Any] = [table]
    lines.append(Text("verdicts: " + "; ".join(f"{v}: {meaning}" for v, meaning in VERDICT_MEANINGS.items()),
                      style="dim"))
    for c in pairs:
        prefix = f"{c['b']}: " if several else ""
        lines.extend(Text(f"warning: {prefix}{w}", style="yellow") for w in c["warnings"])
    for sentence in (holm_sentence(comparison), sequential_sentence(comparison)):
        if sentence is not None:
            lines.append(Text(sentence))
    for c in pairs:
        prefix = f"{c['b']}: " if several else ""
        for m in c["metrics"]:
            if m["gated"]:
                for said in (missing_sentence(m, c), needed_sentence(m, comparison | {"sequential": c["sequential"]},
                                                                    lambda v, s: _num(v, signed=s))):
                    if said:
                        lines.append(Text(prefix + said, style="bold red" if "cannot pass" in said else ""))
    for c in pairs:
        lines.extend(Text(agreement_sentence(found), style="cyan") for found in c.get("agreement") or ())
    if (judged := comparison.get("pairwise")) is not None:
        lines.extend(_pairwise_lines(judged))
        state, sentence = pairwise_gate(judged)
    else:
        state, sentence = gate_state(comparison)
    lines.append(Text(f"gate: {sentence}", style={"regressed": "bold red", "missing_data": "bold red",
                                                   "inconclusive": "bold yellow", "passed": "green",
                                                   "ungated": ""}[state]))
    show(Group(*lines))


def _judged(comparison: Any, judge: str, *, store: str | None, alpha: float, margin: list[str] | None) -> Any:
    """The comparison with the pairwise judge's preference (the judge's runs recorded in the store)."""
    import dataclasses

    from harness.experiment.errors import ExperimentError
    from harness.experiment.pairwise import compare_pairwise

    from ._open import open_harness

    if judge == "builtin":
        from workflows import ProviderError, make_model

        try:
            judge_model: Any = make_model(temperature=0.0)
        except (ProviderError, ValueError) as exc:
            raise UsageError(f"--pairwise builtin: {exc}") from None
    else:
        judge_model = judge
    unit = next((float(m) for m in margin or () if "=" not in m and not m.endswith("%")), 0.05)
    harness = open_harness(store)
    try:
        judged = compare_pairwise(harness, comparison.a, comparison.b, judge_model, alpha=alpha, margin=unit)
    except ExperimentError as exc:
        raise UsageError(str(exc)) from None
    return dataclasses.replace(comparison, pairwise=judged)


def _pairwise_lines(p: dict[str, Any]) -> list[Any]:
    from rich.text import Text

    from harness.view.comparison import VERDICT_MEANINGS, p_number
    from harness.view.judges import flips_sentence, preference_sentence

    low, high = p["delta_ci"]
    spent = p["judge_runs"]
    cost = "unpriced" if spent["cost"] is None else f"${spent['cost']:.4f}"
    lines = [Text(f"pairwise judge {p['judge']}: {p['n']} case(s), {p['judgements']} judgement(s) in both orders",
                  style="bold"),
             Text(preference_sentence(p, p["a"], p["b"])),
             Text(f"sign test on the {p['wins'] + p['losses']} decided case(s): p_worse {p_number(p['p_worse'])}, "
                  f"p_better {p_number(p['p_better'])} (exact, one-sided); {p['b']} wins − losses per case "
                  f"{_num(p['delta'], signed=True)} [{_num(low, signed=True)}, {_num(high, signed=True)}], "
                  f"margin ±{_num(p['margin'])}"),
             Text(flips_sentence(p)),
             Text(f"verdict: {p['verdict']} ({VERDICT_MEANINGS[p['verdict']]})"),
             Text(f"judge runs: {spent['model_calls']} model call(s), {spent['tokens']:,} tokens, {cost}, recorded as "
                  f"experiment {spent['experiment']}", style="dim")]
    lines.extend(Text(f"warning: {w}", style="yellow") for w in p["warnings"])
    if p["failed_judgements"]:
        lines.append(Text(f"warning: {p['failed_judgements']} judgement(s) failed and are left out: "
                          + "; ".join(p["errors"]), style="yellow"))
    return lines


def _num(value: float | None, *, signed: bool = False) -> str:
    if value is None:
        return "—"
    if math.isinf(value):
        return "−∞" if value < 0 else "+∞"
    if value == 0:
        return "0"
    text = f"{value:+.4g}" if signed else f"{value:.4g}"
    return text if abs(value) >= 1e-4 else (f"{value:+.2e}" if signed else f"{value:.2e}")
