"""Recompute stored costs from stored tokens with new prices: no model is called, each run's total cost (and what is built on it: compare, cost of pass, the report) follows.

Examples: `harness reprice base cand --prices prices.toml`, `harness reprice --since 2026-01-01` (the prices in force: the bundled table and $HARNESS_PRICES).
Narrow with experiments, --runs and --since (each narrows; none: every run of the store). A call whose cost changes keeps the old one in llm_calls.previous_total_cost (and previous_price_table); priced_at says when. A call whose model has no price in the new prices keeps its cost.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from ._errors import UsageError
from ._open import open_harness, run_ids
from ._output import say, show, show_json

#: Runs whose change is listed in the text output (all of them in --json).
SHOWN_RUNS = 20


def command(
    experiments: Annotated[Optional[list[str]], typer.Argument(
        metavar="[EXPERIMENT]...", help="Re-price the runs of these experiments.")] = None,
    runs: Annotated[Optional[list[str]], typer.Option(
        "--runs", help="Re-price this run (a run id or its first 4+ characters; repeatable).")] = None,
    since: Annotated[Optional[str], typer.Option(
        help="Re-price the runs started at or after this ISO date or time (UTC unless it says).")] = None,
    prices: Annotated[Optional[Path], typer.Option(
        help="TOML file of model prices to re-price with (over the bundled table); default: the prices in force "
             "(the bundled table and $HARNESS_PRICES).")] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
    store: Annotated[Optional[str], typer.Option(
        help="Store path or URL (default: $HARNESS_STORE or ./harness.db).")] = None,
) -> None:
    from harness.costs.reprice import RepriceError, prices_of, reprice, select_runs

    from ._open import load_prices_option

    try:
        chosen = prices_of(prices)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    load_prices_option(None)  # $HARNESS_PRICES, under the file's prices
    harness = open_harness(store)
    harness.flush()
    try:
        ids = select_runs(harness.store, experiments=experiments or (), since=since,
                          run_ids=run_ids(harness.store, runs) if runs else ())
    except RepriceError as exc:
        raise UsageError(str(exc)) from None
    try:
        summary = reprice(harness.store, ids, chosen)
    except RepriceError as exc:
        raise UsageError(str(exc), code=1) from None
    if json_out:
        show_json(summary.to_dict())
        return
    scope = " of every run of the store" if not (experiments or runs or since) else ""
    say(f"re-priced {summary.repriced} of {summary.calls} call(s) in {summary.runs} run(s){scope}"
        f"{' with ' + str(prices) if prices else ''}; total cost {_usd(summary.before)} → {_usd(summary.after)}; "
        f"store {harness.store.display}", err=False, whole=True)
    if summary.tables:
        say("priced with: " + ", ".join(f"{table} ({n} call(s))" for table, n in summary.tables.most_common()),
            err=False, whole=True)
    if summary.kept:
        say("kept as they were (no price for the model): "
            + ", ".join(f"{model} ({n} call(s))" for model, n in summary.kept.most_common()), err=False, whole=True)
    if summary.changed:
        from rich.table import Table

        table = Table(title="runs whose cost changed")
        for column in ("run", "before (USD)", "after (USD)"):
            table.add_column(column, justify="left" if column == "run" else "right")
        for run in summary.changed[:SHOWN_RUNS]:
            table.add_row(run.run_id, _usd(run.before), _usd(run.after))
        if len(summary.changed) > SHOWN_RUNS:
            table.caption = f"and {len(summary.changed) - SHOWN_RUNS} more run(s) (--json lists them all)"
        show(table)


def _usd(value: float | None) -> str:
    return "—" if value is None else f"${value:.12f}".rstrip("0").rstrip(".")
