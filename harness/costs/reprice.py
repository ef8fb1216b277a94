"""Re-pricing stored runs: their calls' costs recomputed from their stored tokens at other prices.

Prices change after the fact (a provider cuts a price, a contract rate arrives, a model had
no price when it ran): ``harness reprice`` / ``Harness.reprice`` recompute each selected
call's ``input_cost``, ``output_cost``, ``total_cost``, ``cost_note`` and ``price_table`` with
:func:`.formula.cost_of` over the tokens the call stored (prompt and completion tokens and
their kinds), then each run's ``total_cost`` (the sum of its calls'), and the credit
workflow's judge cost (``llm_judge_results.evaluation_cost``, the sum of the run's
``llm_judge`` calls), in one transaction per batch of runs, on either store engine. What
reads costs (compare, cost of pass, list, show, the report, the audit) reads these.

The old figure is never lost silently: a call whose cost changes keeps it in
``previous_total_cost`` (with its ``previous_price_table``) and ``priced_at`` says when it
was re-priced. A call whose model the new prices do not know keeps its cost as it was (and
is counted): re-pricing never empties a cost.
"""

from __future__ import annotations

import datetime
import os
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .formula import Tokens, cost_of, sum_costs
from .prices import Price, price_for, read_prices

#: Runs re-priced per transaction.
BATCH_RUNS = 200
#: The llm_calls columns holding a kind of the call's tokens, as :class:`Tokens` names them.
TOKEN_COLUMNS = {"cache_read_tokens": "cache_read", "cache_write_5m_tokens": "cache_write_5m",
                 "cache_write_1h_tokens": "cache_write_1h", "reasoning_tokens": "reasoning",
                 "audio_input_tokens": "audio_input", "audio_output_tokens": "audio_output"}
_CALL_COLUMNS = ["run_id", "model", "call_type", "prompt_tokens", "completion_tokens", *TOKEN_COLUMNS,
                 "input_cost", "output_cost", "total_cost", "cost_note", "price_table"]
#: The ``call_type`` of the credit workflow's judge calls, whose sum is the judge's evaluation_cost.
JUDGE_CALL = "llm_judge"


class RepriceError(ValueError):
    """What stops a re-pricing before it starts (no such experiment, a bad time) or during it."""


@dataclass(frozen=True)
class RepricedRun:
    run_id: str
    before: float | None
    after: float | None


@dataclass
class RepriceSummary:
    """What a re-pricing did: ``runs`` and ``calls`` looked at, ``repriced`` calls whose cost
    changed (``tables``: the price tables they are priced with now), ``kept`` calls left as
    they were for want of a price (model -> calls), the runs' summed cost ``before`` and
    ``after``, and each run whose cost changed (``changed``)."""

    runs: int = 0
    calls: int = 0
    repriced: int = 0
    kept: Counter[str] = field(default_factory=Counter)
    tables: Counter[str] = field(default_factory=Counter)
    before: float | None = None
    after: float | None = None
    changed: list[RepricedRun] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"runs": self.runs, "calls": self.calls, "repriced_calls": self.repriced,
                "kept_calls": dict(self.kept), "price_tables": dict(self.tables), "total_cost_before": self.before,
                "total_cost_after": self.after,
                "changed_runs": [{"run_id": r.run_id, "before": r.before, "after": r.after} for r in self.changed]}


def prices_of(prices: str | os.PathLike[str] | Mapping[str, Any] | None) -> Mapping[str, Any]:
    """The prices a re-pricing uses over the ones in force: a prices file's (read, not
    registered), a mapping of model -> :class:`Price`, or none (the prices in force)."""
    if prices is None:
        return {}
    if isinstance(prices, Mapping):
        return prices
    return read_prices(prices)


def select_runs(store: Any, *, experiments: Sequence[str] = (), run_ids: Sequence[str] = (),
                since: str | datetime.datetime | datetime.date | None = None) -> list[str]:
    """The runs to re-price, in the order they were stored: those of ``experiments`` (any of
    them), among ``run_ids`` (full ids), started at or after ``since`` (an ISO date or time;
    UTC unless it says otherwise); a selector not given does not narrow, so none selects
    every run. RepriceError for an experiment without runs or a time that is not one."""
    bound = _since(since) if since is not None else None
    wanted = set(run_ids)
    if run_ids:
        known = {r["run_id"] for r in store.rows("runs", list(wanted), columns=["run_id"])}
        missing = [r for r in run_ids if r not in known]
        if missing:
            raise RepriceError(f"no run {missing[0]!r} in store {store.display}")
    where = {"experiment": list(dict.fromkeys(experiments))} if experiments else None
    found = []
    for row in store.rows("runs", columns=["run_id", "experiment", "started_at"], where=where):
        if (not wanted or row["run_id"] in wanted) and (bound is None or _at_or_after(row["started_at"], bound)):
            found.append(row["run_id"])
    if experiments:
        seen = {row["experiment"] for row in store.rows("runs", columns=["experiment"], where=where)}
        unknown = [e for e in experiments if e not in seen]
        if unknown:
            raise RepriceError(f"no experiment {unknown[0]!r} in store {store.display}")
    return found


def _since(value: str | datetime.datetime | datetime.date) -> datetime.datetime:
    if isinstance(value, str):
        try:
            value = datetime.datetime.fromisoformat(value.strip())
        except ValueError:
            raise RepriceError(f"--since wants an ISO date or time (2026-01-31, 2026-01-31T09:00Z), "
                               f"not {value!r}") from None
    if not isinstance(value, datetime.datetime):
        value = datetime.datetime(value.year, value.month, value.day)
    return value if value.tzinfo else value.replace(tzinfo=datetime.timezone.utc)


def _at_or_after(started: Any, bound: datetime.datetime) -> bool:
    if not isinstance(started, str):
        return False
    try:
        when = datetime.datetime.fromisoformat(started)
    except ValueError:
        return False
    return (when if when.tzinfo else when.replace(tzinfo=datetime.timezone.utc)) >= bound


def reprice(store: Any, run_ids: Sequence[str], prices: Mapping[str, Any] | None = None, *,
            batch_runs: int = BATCH_RUNS, now: str | None = None) -> RepriceSummary:
    """Re-price the calls of ``run_ids`` with ``prices`` (model -> :class:`Price`) over the
    prices in force, ``batch_runs`` runs per transaction (the module doc). A batch that fails
    is rolled back whole and stops the re-pricing: RepriceError says how many runs were
    re-priced before it."""
    summary = RepriceSummary()
    stamp = now or datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="microseconds")
    ids = list(dict.fromkeys(run_ids))
    befores: list[float | None] = []
    afters: list[float | None] = []
    for start in range(0, len(ids), max(1, batch_runs)):
        batch = ids[start:start + max(1, batch_runs)]
        try:
            with store.transaction(immediate=True):
                _reprice_batch(store, batch, prices or {}, stamp, summary, befores, afters)
        except Exception as exc:  # noqa: BLE001 - the batch is rolled back; say how far it got
            raise RepriceError(f"re-pricing stopped after {start} of {len(ids)} run(s) (the batch of "
                               f"{len(batch)} from run {batch[0]} was rolled back): {exc}") from exc
        summary.runs += len(batch)
    summary.before, summary.after = sum_costs(befores), sum_costs(afters)
    return summary


def _reprice_batch(store: Any, batch: list[str], prices: Mapping[str, Any], stamp: str, summary: RepriceSummary,
                   befores: list[float | None], afters: list[float | None]) -> None:
    calls_of: dict[str, list[float | None]] = defaultdict(list)
    judges: dict[str, list[float | None]] = defaultdict(list)
    updates = []
    for call in store.rows("llm_calls", batch, columns=_CALL_COLUMNS, with_keys=True):
        summary.calls += 1
        total = call["total_cost"]
        new = _priced(call, prices)
        if new is None:
            if price_for(call["model"], prices) is None:
                summary.kept[call["model"] or "(no model)"] += 1
        else:
            cost, table = new
            if (cost.input_cost, cost.output_cost, cost.total_cost, cost.note, table) != (
                    call["input_cost"], call["output_cost"], total, call["cost_note"], call["price_table"]):
                updates.append({"row_key": call["row_key"], "input_cost": cost.input_cost,
                                "output_cost": cost.output_cost, "total_cost": cost.total_cost,
                                "cost_note": cost.note, "price_table": table, "priced_at": stamp,
                                "previous_total_cost": total, "previous_price_table": call["price_table"]})
                summary.repriced += 1
                summary.tables[table] += 1
            total = cost.total_cost
        calls_of[call["run_id"]].append(total)
        if call["call_type"] == JUDGE_CALL:
            judges[call["run_id"]].append(total)
    store.update("llm_calls", updates)
    run_updates = []
    for run in store.rows("runs", batch, columns=["run_id", "total_cost"], with_keys=True):
        after = sum_costs(calls_of.get(run["run_id"], ()))
        befores.append(run["total_cost"])
        afters.append(after)
        if after != run["total_cost"]:
            run_updates.append({"row_key": run["row_key"], "total_cost": after})
            summary.changed.append(RepricedRun(run["run_id"], run["total_cost"], after))
    store.update("runs", run_updates)
    store.update("llm_judge_results", _judge_costs(store, judges))


def _priced(call: Mapping[str, Any], prices: Mapping[str, Any]) -> tuple[Any, str] | None:
    """The call's cost at its model's price now, and that price's table; None without a
    price or tokens, or for counts that contradict themselves (kept as they are)."""
    price: Price | None = price_for(call["model"], prices)
    if price is None or call["prompt_tokens"] is None or call["completion_tokens"] is None:
        return None
    tokens = Tokens(call["prompt_tokens"], call["completion_tokens"],
                    **{name: call[column] for column, name in TOKEN_COLUMNS.items()})
    try:
        return cost_of(price, tokens, call["model"]), price.table
    except ValueError:
        return None


def _judge_costs(store: Any, judges: Mapping[str, list[float | None]]) -> Iterable[dict[str, Any]]:
    """A run's one judge row costs what its judge calls cost (all of them priced)."""
    rows = defaultdict(list)
    for row in store.rows("llm_judge_results", list(judges), columns=["run_id", "evaluation_cost"], with_keys=True):
        rows[row["run_id"]].append(row)
    for run, found in rows.items():
        spent = judges[run]
        if len(found) == 1 and spent and None not in spent:
            cost = sum_costs(spent)
            if cost != found[0]["evaluation_cost"]:
                yield {"row_key": found[0]["row_key"], "evaluation_cost": cost}
