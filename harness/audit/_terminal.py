"""The audit as rich tables on a terminal: verdict, the first findings, statistics."""

from __future__ import annotations

from typing import Any

from rich.console import Group, RenderableType
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from ._html import cell_text, fmt, mean_cost_text, pass_rate_text, runs_cell
from ._model import AuditResult, GroupSummary

#: Findings printed on the terminal; ``--report`` and ``--json`` carry them all.
MAX_FINDINGS = 25


def _findings_table(result: AuditResult) -> Table:
    table = Table(title=f"Findings ({len(result.findings):,})", title_justify="left")
    for name in ("sheet", "row", "column", "found", "expected", "rule"):
        table.add_column(name, justify="right" if name == "row" else "left", overflow="fold")
    for f in result.findings[:MAX_FINDINGS]:
        table.add_row(f.sheet, str(f.row or ""), f.column or "", cell_text(f.found)[:60],
                      cell_text(f.expected)[:60], f.rule)
    if len(result.findings) > MAX_FINDINGS:
        table.caption = f"first {MAX_FINDINGS} of {len(result.findings):,}; --report or --json for all"
    return table


def _median(stats: Any) -> str:
    return "—" if stats is None else f"{fmt(stats.median, 3)} ({fmt(stats.std_dev, 2)})"


def _groups_table(title: str, groups: tuple[GroupSummary, ...], uplift: bool) -> Table:
    mixed = any(g.mixed for g in groups)
    caption = "scores: median (population std) over the runs" + (
        "; mixed: runs that called other models too, counted for each" if mixed else "")
    table = Table(title=title, title_justify="left", caption=caption, caption_justify="left")
    experiments = any(g.experiment for g in groups)
    columns = (["experiment"] if experiments else []) + [
        "group", "runs", "evaluation", "credit score", "judge", "pass rate", "mean cost", "cost of pass",
        "composite", "grade"] + (["uplift"] if uplift else [])
    for name in columns:
        table.add_column(name, justify="left" if name in ("group", "experiment") else "right")
    for g in groups:
        cop = "—" if g.cost_of_pass is None else f"${fmt(g.cost_of_pass)}"
        cells = ([g.experiment or "—"] if experiments else []) + [
            g.key, runs_cell(g), _median(g.evaluation_score), _median(g.credit_score), _median(g.judge_overall),
            pass_rate_text(g), ("" if g.mean_cost is None else "$") + mean_cost_text(g), cop, fmt(g.composite, 3),
            g.grade or "—"]
        if uplift:
            cells.append("—" if g.uplift is None else f"{g.uplift:+.1%}")
        table.add_row(*cells)
    return table


def _pass_k_table(result: AuditResult) -> Table | None:
    entries = result.aggregates.pass_k
    if not entries:
        return None
    ks = sorted({k for p in entries for k in p.pass_at})
    experiments = any(p.experiment for p in entries)
    title = "pass@k / pass^k per company" + (" (per experiment and dataset case)" if experiments else "")
    table = Table(title=title, title_justify="left")
    if experiments:
        table.add_column("experiment")
    table.add_column("case / company" if experiments else "company")
    table.add_column("n / passed", justify="right")
    for k in ks:
        table.add_column(f"pass@{k} / ^{k}", justify="right")
    for p in entries:
        table.add_row(*([p.experiment or "—"] if experiments else []), p.company, f"{p.n} / {p.c}",
                      *(f"{fmt(p.pass_at[k], 3)} / {fmt(p.pass_hat[k], 3)}" if k in p.pass_at else "—" for k in ks))
    return table


def summary(result: AuditResult) -> RenderableType:
    """Verdict line, findings (the first few), per-model and per-type statistics, pass@k."""
    agg = result.aggregates
    rows = sum(result.rows.values())
    parts: list[RenderableType] = []
    if result.clean:
        parts.append(Text.from_markup(
            f"[bold green]clean[/]: {escape(result.source)}: {rows:,} rows in {len(result.rows)} sheets, no findings"))
    else:
        parts.append(Text.from_markup(
            f"[bold red]{len(result.findings):,} finding(s)[/] in {escape(result.source)} ({rows:,} rows)"))
        parts.append(_findings_table(result))
    parts += [Text.from_markup(f"[yellow]not checked[/]: {escape(note)}") for note in result.notes]
    if agg.by_model:
        base = f" (uplift vs {agg.baseline_model})" if agg.baseline_model else ""
        parts.append(_groups_table(f"Per model{base}", agg.by_model, uplift=True))
        if agg.baseline_model:
            parts.append(Text(f"uplift baseline: {agg.baseline_model}, {agg.baseline_reason}"))
        label = "Per company type" if agg.type_label == "company_type" else "Per company"
        parts.append(_groups_table(label, agg.by_type, uplift=False))
    table = _pass_k_table(result)
    if table is not None:
        parts.append(table)
    if result.agreement:
        parts.append(_agreement_table(result))
    return Group(*parts)


def _agreement_table(result: AuditResult) -> Table:
    from harness.view.judges import estimate_text, headline_name

    table = Table(title="Scores against people's labels (recomputed from the scores sheet)", title_justify="left",
                  caption="95% intervals: exact for proportions, a seeded bootstrap over runs for κ and ρ",
                  caption_justify="left")
    for name in ("score", "label", "runs", "statistic", "value [95% CI]", "raw agreement"):
        table.add_column(name, justify="right" if name == "runs" else "left")
    for a in result.agreement:
        table.add_row(a["score"], a["label"], f"{a['n']:,}", headline_name(a), estimate_text(a.get("headline")),
                      estimate_text((a.get("passes") or {}).get("raw_agreement")))
    return table
