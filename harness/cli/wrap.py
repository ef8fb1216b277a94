"""Run your own compiled LangGraph graph under the harness and print what was recorded.

MODULE:ATTR names a compiled graph or a zero-argument factory that returns one, e.g.
`harness wrap my_agent.graph:app --input '{"messages": [["user", "hi"]]}'`.
"""

from __future__ import annotations

import importlib
import json
import os
import sys
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from ._errors import UsageError
from ._open import open_harness


def load_graph(target: str) -> Any:
    """Import ``MODULE:ATTR``; call it if it is a factory (no ``invoke``)."""
    module_name, sep, attr = target.partition(":")
    if not sep or not module_name or not attr:
        raise UsageError(f"expected MODULE:ATTR, got {target!r}")
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        raise UsageError(f"cannot import module {module_name!r}: {exc}") from None
    except Exception as exc:  # noqa: BLE001 - user code failing at import
        raise UsageError(f"importing {module_name!r} failed: {type(exc).__name__}: {exc}") from None
    obj: Any = module
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise UsageError(f"module {module_name!r} has no attribute {attr!r}")
        obj = getattr(obj, part)
    if not hasattr(obj, "invoke"):
        if not callable(obj):
            raise UsageError(f"{target} is neither a compiled graph nor a factory")
        try:
            obj = obj()
        except Exception as exc:  # noqa: BLE001
            raise UsageError(f"factory {target} failed: {type(exc).__name__}: {exc}") from None
        if not hasattr(obj, "invoke"):
            raise UsageError(f"factory {target} did not return a runnable graph")
    return obj


def parse_input(raw: str) -> Any:
    """JSON text, or ``@path`` to a JSON file."""
    if raw.startswith("@"):
        path = Path(raw[1:])
        try:
            raw = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise UsageError(f"cannot read input file {str(path)!r}: {exc.strerror or exc}") from None
    try:
        return json.loads(raw)
    except json.JSONDecodeError as exc:
        raise UsageError(f"--input is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None


def _split(value: str | None) -> list[str] | None:
    if value is None:
        return None
    return [item.strip() for item in value.split(",") if item.strip()]


def command(
    target: Annotated[str, typer.Argument(metavar="MODULE:ATTR", help="Compiled graph or factory.")],
    input: Annotated[str, typer.Option("--input", "-i", help="Graph input: JSON or @file.json.")],
    subject: Annotated[Optional[str], typer.Option(help="What the run is about (company_name).")] = None,
    expected_tools: Annotated[Optional[str], typer.Option(help="Comma-separated tools the run should call.")] = None,
    reference_trajectory: Annotated[Optional[str], typer.Option(help="Comma-separated expected node path.")] = None,
    repeats: Annotated[int, typer.Option(min=1, max=1000, help="Run the graph N times.")] = 1,
    store: Annotated[Optional[str], typer.Option(help="Store path or sqlite:/// URL.")] = None,
    out: Annotated[Optional[Path], typer.Option(help="Also export the runs to this .xlsx file.")] = None,
) -> None:
    from rich.console import Console
    from rich.table import Table

    graph = load_graph(target)
    inputs = parse_input(input)
    harness = open_harness(store)
    workflow = target.rsplit(":", 1)[-1]
    run_ids, failed = [], 0
    for _ in range(repeats):
        run = harness.run(subject=subject, workflow=workflow, expected_tools=_split(expected_tools),
                          reference_trajectory=_split(reference_trajectory))
        try:
            with run:
                graph.invoke(inputs, config=run.config)
        except Exception as exc:  # noqa: BLE001 - the run is recorded as failed; report it
            failed += 1
            print(f"harness: run {run.run_id} failed: {type(exc).__name__}: {exc}", file=sys.stderr)
        run_ids.append(run.run_id)
    frames = harness.sheets(run_ids)
    table = Table(title=f"harness wrap {target}")
    for col in ("run", "status", "steps", "LLM calls", "tools", "tokens", "cost $", "time ms", "tool F1", "trajectory"):
        table.add_column(col)
    selections = frames["tool_selections"].set_index("run_id")["f1_score"].to_dict()
    trajectories = frames["agent_metrics"].set_index("run_id")["trajectory_match"].to_dict()
    for row in frames["runs"].to_dict("records"):
        table.add_row(
            row["run_id"][:8], row["status"], str(row["total_steps"]), str(row["total_llm_calls"]),
            ", ".join(row["tools_used"] or []), _fmt(row.get("total_tokens")), _fmt(row.get("total_cost")),
            _fmt(row["total_time_ms"], ".1f"), _fmt(selections.get(row["run_id"]), ".2f"),
            _fmt(trajectories.get(row["run_id"]), ".2f"),
        )
    Console().print(table)
    if out is not None:
        harness.export_excel(out, run_ids)
    raise typer.Exit(1 if failed else 0)


def _fmt(value: Any, spec: str = "") -> str:
    if value is None or (isinstance(value, float) and value != value):
        return "-"
    return format(value, spec)
