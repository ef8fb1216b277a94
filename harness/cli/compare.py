"""Compare two experiments case by case: per metric both means, the difference with its 95% paired bootstrap interval, a p-value (exact McNemar for pass/fail, else Wilcoxon), an effect size and a verdict.

Example: `harness compare base cand --fail-on-regression` exits 1 when a quality metric (pass rate, answer score, tool F1, trajectory) regressed: its interval lies wholly on the worse side and p < --alpha. Exit 2 for an experiment the store does not have.
"""

from __future__ import annotations

import math
from typing import Annotated, Any, Optional

import typer

from ._errors import UsageError
from ._open import open_store
from ._output import show, show_json


def command(
    a: Annotated[str, typer.Argument(metavar="A", help="The experiment compared against (the baseline).")],
    b: Annotated[str, typer.Argument(metavar="B", help="The experiment compared (the candidate).")],
    store: Annotated[Optional[str], typer.Option(help="Store path or sqlite:/// URL (default: $HARNESS_STORE or ./harness.db).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the comparison as JSON.")] = False,
    fail_on_regression: Annotated[bool, typer.Option(
        "--fail-on-regression", help="Exit 1 when a quality metric regressed (the CI gate).")] = False,
    metric: Annotated[Optional[list[str]], typer.Option(
        "--metric", help="Compare only this metric (repeatable): pass_rate, answer_score, tool_f1, "
                         "trajectory_match, latency_ms, total_tokens, total_cost.")] = None,
    alpha: Annotated[float, typer.Option(help="Significance level of a verdict.")] = 0.05,
) -> None:
    from harness.experiment.compare import METRICS, compare_experiments
    from harness.experiment.runner import ExperimentError

    if not 0 < alpha < 1:
        raise UsageError(f"--alpha must be between 0 and 1, got {alpha}")
    unknown = [m for m in metric or [] if m not in METRICS]
    if unknown:
        raise UsageError(f"unknown --metric {unknown[0]!r}; metrics are {', '.join(METRICS)}")
    opened = open_store(store)
    try:
        comparison = compare_experiments(opened, a, b, alpha=alpha, metrics=metric)
    except ExperimentError as exc:  # a blank name, or one without runs
        raise UsageError(str(exc)) from None
    finally:
        opened.close()
    if as_json:
        show_json(_json_safe(comparison.to_dict()))
    else:
        _table(comparison)
    raise typer.Exit(1 if fail_on_regression and comparison.regressed else 0)


def _json_safe(value: Any) -> Any:
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _json_safe(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_json_safe(v) for v in value]
    return value


def _table(comparison: Any) -> None:
    from rich.console import Group
    from rich.table import Table
    from rich.text import Text

    from harness.view.formats import MISSING

    table = Table(title=f"{comparison.a} → {comparison.b} · {comparison.paired_cases} paired case(s) · "
                        f"alpha {comparison.alpha:g} · delta = {comparison.b} − {comparison.a}")
    for col, justify in (("metric", "left"), ("better", "left"), ("n", "right"), (comparison.a, "right"),
                         (comparison.b, "right"), ("delta", "right"), ("95% CI", "right"), ("p", "right"),
                         ("test", "left"), ("effect", "right"), ("verdict", "left")):
        table.add_column(col, justify=justify)
    style = {"regressed": "bold red", "improved": "bold green", "unchanged": ""}
    for m in comparison.metrics:
        r = m.result
        table.add_row(m.name, "higher" if m.higher_is_better else "lower", str(r.n), _num(r.a), _num(r.b),
                      _num(r.delta, signed=True),
                      f"[{_num(r.ci_low, signed=True)}, {_num(r.ci_high, signed=True)}]" if r.ci_low is not None
                      else MISSING, _num(r.p_value, p=True), r.test or MISSING, _num(r.effect_size, signed=True),
                      Text(r.verdict, style=style[r.verdict]))
    lines: list[Any] = [table]
    for side, ids in ((comparison.a, comparison.a_only), (comparison.b, comparison.b_only)):
        if ids:
            shown = ", ".join(ids[:20]) + (" …" if len(ids) > 20 else "")
            lines.append(Text(f"{len(ids)} case(s) only in {side}, left out: {shown}", style="dim"))
    regressed = [m.name for m in comparison.metrics if m.verdict == "regressed" and m.name in
                 ("pass_rate", "answer_score", "tool_f1", "trajectory_match")]
    lines.append(Text(f"regressed: {', '.join(regressed)}", style="bold red") if regressed
                 else Text("no quality metric regressed", style="green"))
    show(Group(*lines))


def _num(value: float | None, *, signed: bool = False, p: bool = False) -> str:
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "—"
    if p:
        return f"{value:.2g}" if value < 0.001 else f"{value:.3f}"
    if value == 0:
        return "0"
    magnitude = abs(value)
    text = f"{value:+.4g}" if signed else f"{value:.4g}"
    return text if magnitude >= 1e-4 or value == 0 else (f"{value:+.2e}" if signed else f"{value:.2e}")
