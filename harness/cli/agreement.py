"""How far a score agrees with people's labels of the same runs: before a judge's score gates a release, know how often it agrees with people.

Example: `harness agreement helpful_judge --against helpful --threshold 0.5`. Over the runs that have both (of --experiment, else of the whole store): n, each side's pass rate, the raw agreement and Cohen's κ of the passes, weighted κ for labels on a scale (1-5), Spearman's ρ for values, each with its 95% interval (exact for proportions, a seeded bootstrap over runs otherwise), the confusion matrix and the runs they disagree on most. With labels by several people (`harness label ... --by alice`), the score against each person, the people against each other, Fleiss' κ and Krippendorff's α. The pair is remembered: `harness compare` then prints the score's agreement beside it, and `--min-agreement` gates on it.
"""

from __future__ import annotations

from typing import Annotated, Any, Optional

import typer

from ._errors import UsageError
from ._open import open_harness
from ._output import say, show, show_json


def command(
    score: Annotated[str, typer.Argument(metavar="SCORE", help="The score whose agreement is measured (a judge's).")],
    against: Annotated[str, typer.Option("--against", metavar="LABEL", help="The people's label to measure it against.")],
    experiment: Annotated[Optional[list[str]], typer.Option(
        "--experiment", help="Only the runs of this experiment (repeatable; default: every run with both).")] = None,
    threshold: Annotated[Optional[float], typer.Option(
        help="The score passes at this value (default: its own pass, or its value when it is 0 or 1).")] = None,
    label_threshold: Annotated[Optional[float], typer.Option(
        "--label-threshold", help="A numeric label passes at this value (pass/fail labels need none).")] = None,
    weights: Annotated[str, typer.Option(help="Weighted κ's weights for labels on a scale: quadratic or linear.")] = "quadratic",
    by: Annotated[Optional[str], typer.Option(
        help="Only this person's labels (default: every person's, each compared with the score).")] = None,
    store: Annotated[Optional[str], typer.Option(help="Store path or URL (default: $HARNESS_STORE or ./harness.db).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the agreement as JSON.")] = False,
) -> None:
    from harness.experiment.agreement import AgreementError

    harness = open_harness(store)
    try:
        result = harness.agreement(score, against, experiments=experiment or (), threshold=threshold,
                                   label_threshold=label_threshold, weights=weights, by=by)
    except (AgreementError, ValueError) as exc:
        raise UsageError(str(exc)) from None
    found = result.to_dict()
    if as_json:
        show_json(found)
        return
    _print(found)
    say(f"remembered: harness compare prints this agreement beside {score} and --min-agreement gates on it",
        err=False)


def _print(a: dict[str, Any]) -> None:
    from rich.console import Group
    from rich.table import Table
    from rich.text import Text

    from harness.view.judges import STATISTICS, agreement_sentence, estimate_text, figure

    kinds = {"binary": "pass/fail", "ordinal": "a scale", "continuous": "numbers"}
    settings = [f"{k.replace('_', ' ')} {a[k]}" for k in ("threshold", "label_threshold", "by") if a.get(k) is not None]
    lines: list[Any] = [Text(f"{a['score']} against the label {a['label']} ({kinds[a['label_kind']]}): {a['n']} run(s) "
                             f"with both" + (f", {a['pairs']} label(s)" if a['pairs'] != a['n'] else "")
                             + (f" · {', '.join(settings)}" if settings else ""), style="bold")]
    table = Table(title="agreement (95% intervals)", title_justify="left")
    for col, justify in (("statistic", "left"), ("n", "right"), ("value [95% CI]", "right"), ("interval", "left")):
        table.add_column(col, justify=justify)

    def row(name: str, n: int, e: dict[str, Any] | None) -> None:
        method = "" if not e else ("exact" if e.get("ci_method") == "exact" else
                                    f"bootstrap over runs, {e.get('draws', 0):,} draws" +
                                    (f" ({e['undefined_draws']:,} undefined)" if e.get("undefined_draws") else ""))
        table.add_row(name, f"{n:,}", estimate_text(e), method)

    if (p := a.get("passes")) is not None:
        row("Cohen's κ (passes)", p["n"], p["kappa"])
        row("raw agreement (passes)", p["n"], p["raw_agreement"])
        row(f"{a['score']} pass rate", p["n"], p["score_pass_rate"])
        row(f"{a['label']} pass rate", p["n"], p["label_pass_rate"])
    if (o := a.get("ordinal")) is not None:
        row(f"weighted κ ({o['weights']})", o["n"], o["weighted_kappa"])
        row("exact agreement (levels)", o["n"], o["exact_agreement"])
    if (r := a.get("ranks")) is not None:
        row("Spearman's ρ", r["n"], r["spearman"])
    lines.append(table)
    for section in (a.get("passes"), a.get("ordinal")):
        if section is not None:
            lines.append(_confusion(section["confusion"], a["score"], a["label"]))
    if (raters := a.get("raters")) is not None:
        name = STATISTICS.get(raters["statistic"] or "", "agreement")
        people = Table(title=f"people: {', '.join(raters['people'])} ({name})", title_justify="left")
        for col in ("pair", "n", "value [95% CI]"):
            people.add_column(col, justify="left" if col == "pair" else "right")
        for who, e in raters["score_vs_person"].items():
            people.add_row(f"{a['score']} ~ {who}", f"{e['n']:,}", estimate_text(e))
        for pair, e in raters["person_vs_person"].items():
            people.add_row(pair, f"{e['n']:,}", estimate_text(e))
        for key, label in (("fleiss_kappa", "Fleiss' κ, people (runs every person labelled)"),
                           ("krippendorff_alpha", "Krippendorff's α, people"),
                           ("krippendorff_alpha_with_score", f"Krippendorff's α, people and {a['score']}")):
            if key in raters:
                e = raters[key]
                level = f" ({e['level']})" if e.get("level") else ""
                people.add_row(label + level, f"{e['n']:,}" if "n" in e else "", estimate_text(e))
        lines.append(people)
        lines.append(Text(f"mean {name}: {a['score']} against a person {figure(raters['mean_score_vs_person'])}, "
                          f"a person against another {figure(raters['mean_person_vs_person'])}"))
    if a.get("disagreements"):
        worst = Table(title="where they disagree most", title_justify="left")
        for col in ("run", "experiment", "case", a["score"], a["label"], "gap", "why"):
            worst.add_column(col, overflow="fold")
        for d in a["disagreements"]:
            labels = ", ".join(f"{who + ': ' if who else ''}{v:g}" for who, v in d["labels"].items())
            worst.add_row(d["run_id"], d.get("experiment") or "—", d.get("case_id") or "—",
                          _value(d["score"], d["score_passed"]), labels, d["gap"], (d.get("why") or "")[:80])
        lines.append(worst)
    lines.extend(Text(f"note: {n}", style="yellow") for n in a.get("notes") or ())
    lines.append(Text(agreement_sentence(a)))
    show(Group(*lines))


def _confusion(c: dict[str, Any], score: str, label: str) -> Any:
    from rich.table import Table

    table = Table(title=f"confusion: rows {label}, columns {score}", title_justify="left")
    table.add_column("")
    for level in c["levels"]:
        table.add_column(f"{score} {level}", justify="right")
    for level, counts in zip(c["levels"], c["counts"]):
        table.add_row(f"{label} {level}", *(f"{n:,}" for n in counts))
    return table


def _value(value: float | None, passed: bool | None) -> str:
    text = "—" if value is None else f"{value:.3g}"
    return text if passed is None else f"{text} ({'pass' if passed else 'fail'})"
