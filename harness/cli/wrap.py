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
from ._open import load_prices_option, open_harness, require_stored
from ._output import clip, progress, say, show, show_json
from ._paths import writable_file


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
    if not hasattr(obj, "invoke") and not hasattr(obj, "ainvoke"):
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
    return parse_json_option(raw, "--input", kind="input file")


def parse_json_option(raw: str, option: str, kind: str | None = None) -> Any:
    """JSON text, or ``@path`` to a JSON file (a regular file of at most 10 MB), for ``option``."""
    from harness.inputs import OPTION_FILE, InputError, JSONTextError, parse_json, read_text

    if raw.startswith("@"):
        path = raw[1:]
        try:
            return parse_json(read_text(path, OPTION_FILE.named(kind or f"{option} file")), path)
        except InputError as exc:
            raise UsageError(str(exc)) from None
    try:
        return parse_json(raw, option)
    except JSONTextError as exc:
        raise UsageError(f"{option} is not valid JSON: {exc.problem} at line {exc.line}"
                         + (f" column {exc.column}" if exc.column else "")) from None


def _split(value: str | None) -> list[str] | None:
    if value is None:
        return None
    return [item.strip() for item in value.split(",") if item.strip()]


def command(
    target: Annotated[str, typer.Argument(metavar="MODULE:ATTR", help="Compiled graph or factory.")],
    input: Annotated[Optional[str], typer.Option("--input", "-i", help="One graph input: JSON or @file.json.")] = None,
    dataset: Annotated[Optional[Path], typer.Option(
        help="Cases to run as an experiment: .jsonl, .json (a list) or .csv (see the README).")] = None,
    experiment: Annotated[Optional[str], typer.Option(
        help="Name of the experiment (default <attr>-<UTC time>); with --dataset.")] = None,
    append: Annotated[bool, typer.Option(help="Add runs to an existing experiment of that name.")] = False,
    shard: Annotated[Optional[str], typer.Option(
        help="K/N: run only the cases whose index is K mod N (N workers fill one experiment).")] = None,
    subject: Annotated[Optional[str], typer.Option(help="What the run is about (company_name); with --input.")] = None,
    expected_tools: Annotated[Optional[str], typer.Option(
        help="Comma-separated tools the run should call; with --input.")] = None,
    reference_trajectory: Annotated[Optional[str], typer.Option(
        help="Comma-separated expected node path; with --input.")] = None,
    repeats: Annotated[int, typer.Option(min=1, max=1000, help="Run each input or case N times.")] = 1,
    concurrency: Annotated[Optional[int], typer.Option(
        min=1, max=256, help="Runs at once (default 4 with --dataset, 1 with --input).")] = None,
    timeout: Annotated[Optional[float], typer.Option(
        min=0.001, help="Seconds per run; a run past it is cancelled and recorded failed.")] = None,
    sync: Annotated[bool, typer.Option("--sync", help="Call graph.invoke (in a thread) instead of ainvoke.")] = False,
    config: Annotated[Optional[str], typer.Option(
        help="RunnableConfig to merge (configurable, recursion_limit, ...): JSON or @file.json.")] = None,
    context: Annotated[Optional[str], typer.Option(
        help="LangGraph runtime context (context=): JSON or @file.json.")] = None,
    workflow: Annotated[Optional[str], typer.Option(
        help="The runs' workflow name (default: the graph's own name, else ATTR).")] = None,
    as_json: Annotated[bool, typer.Option(
        "--json", help="With --input: print the graph's result as JSON, nothing else.")] = False,
    scorer: Annotated[Optional[list[str]], typer.Option(
        "--scorer", help="Your own scorer MODULE:FUNCTION, a function of (run, case) (repeatable); with --dataset.")] = None,
    thread_scorer: Annotated[Optional[list[str]], typer.Option(
        "--thread-scorer", help="A thread scorer MODULE:FUNCTION, a function of (thread, case) that judges each case's "
        "whole conversation (repeatable); with --dataset.")] = None,
    scorer_timeout: Annotated[float, typer.Option(
        min=0.001, help="Seconds a scorer may take per run; past it the score is an error (default 60).")] = 60.0,
    scorer_isolation: Annotated[str, typer.Option(
        help="thread (default) or process: each scorer call in a worker process, so one that crashes "
             "its process costs one error score.")] = "thread",
    prices: Annotated[Optional[Path], typer.Option(help="TOML file of model prices that win over the bundled table.")] = None,
    store: Annotated[Optional[str], typer.Option(help="Store path or sqlite:/// URL.")] = None,
    out: Annotated[Optional[Path], typer.Option(help="Also export the runs to this .xlsx file.")] = None,
) -> None:
    """Check every input first, then run; a dataset's runs form an experiment in the store."""
    from harness.experiment.dataset import DatasetError, load_dataset
    from harness.experiment.runner import ExperimentError, check_name, default_name, parse_shard
    from harness.experiment.scorer_call import ScorerLimits
    from harness.experiment.scoring import scorers_of

    if (input is None) == (dataset is None):
        raise UsageError("give --input (one run) or --dataset (an experiment over its cases)")
    if input is not None:
        for option, value in (("--experiment", experiment), ("--shard", shard), ("--append", append or None),
                              ("--scorer", scorer or None), ("--thread-scorer", thread_scorer or None),
                              ("--scorer-isolation", None if scorer_isolation == "thread" else scorer_isolation)):
            if value is not None:
                raise UsageError(f"{option} goes with --dataset")
    elif any(v is not None for v in (subject, expected_tools, reference_trajectory)) or as_json:
        raise UsageError("--subject, --expected-tools, --reference-trajectory and --json go with --input; "
                         "a dataset case carries its own")
    for option, value in (("--subject", subject), ("--workflow", workflow)):
        if value is not None and not value.strip():
            raise UsageError(f"{option} needs a value, got an empty one")
    try:
        if experiment is not None:
            check_name(experiment)
        cases = load_dataset(dataset) if dataset is not None else load_dataset([{
            "id": "input", "input": parse_input(input), "subject": subject,
            **({"expected_tools": _split(expected_tools)} if expected_tools is not None else {}),
            **({"reference_trajectory": _split(reference_trajectory)} if reference_trajectory is not None else {}),
        }])
        shard_of = parse_shard(shard)
        scorers = scorers_of(scorer)
        thread_scorers = scorers_of(thread_scorer)
        ScorerLimits(scorer_timeout, scorer_isolation)
    except (DatasetError, ExperimentError) as exc:
        raise UsageError(str(exc)) from None
    run_config = parse_json_option(config, "--config") if config is not None else None
    if run_config is not None and not isinstance(run_config, dict):
        raise UsageError("--config must be a JSON object (a RunnableConfig)")
    run_context = parse_json_option(context, "--context") if context is not None else None
    load_prices_option(prices)
    excel = writable_file(out, "--out", ".xlsx") if out is not None else None
    judge = _judge() if any(c.answer_check == "judge" for c in cases.cases) else None
    graph = load_graph(target)
    harness = open_harness(store)
    name = (default_name(target) if experiment is None else experiment) if dataset is not None else None
    scored: list[Any] = []
    runs = _run(harness, graph, cases, name=name, target=target, repeats=repeats,
                concurrency=concurrency or (4 if dataset is not None else 1), timeout=timeout, config=run_config,
                context=run_context, sync=sync, append=append, shard=shard_of, judge=judge, scorers=scorers,
                thread_scorers=thread_scorers, scorer_timeout=scorer_timeout, scorer_isolation=scorer_isolation,
                on_scored=scored.append, on_threads_scored=scored.append, workflow=workflow)
    run_ids = [run.run_id for run in runs]
    require_stored(harness, run_ids)
    for run in runs:
        if run.status != "completed":
            say(f"harness: run {run.run_id} failed: {run.error}")
    if as_json:
        _print_results(harness, run_ids, as_json=True)
    else:
        _table(harness, target, run_ids, experiment=name is not None)
    if name is not None:
        _experiment_line(harness, name, runs)
    elif not as_json:
        _print_results(harness, run_ids, as_json=False)
    if excel is not None:
        try:
            harness.export_excel(excel, run_ids)
        except Exception as exc:  # noqa: BLE001 - the runs are stored; say why the export failed
            say(f"harness: Excel export failed: {type(exc).__name__}: {exc}; the runs are safe in the store "
                f"{harness.store.display!r}")
            raise typer.Exit(1) from None
    failed = sum(run.status != "completed" for run in runs)
    errored = sum(summary.failed for summary in scored)  # the run scorers', then the thread scorers'
    for summary in scored:
        if summary.failed:
            say(f"harness: {summary.errors_line()}; the runs and every other score are stored")
    # One run: its failure is the command's. An experiment: failed runs are results, counted
    # above; a score that could not be made is a failure of the command (its pass is unknown).
    raise typer.Exit(1 if (failed and name is None) or errored else 0)


def _judge() -> Any:
    """The judge of ``answer_check: judge`` cases: the configured provider's primary model."""
    from workflows import ProviderError, make_model

    try:
        return make_model(temperature=0.0)
    except (ProviderError, ValueError) as exc:
        raise UsageError(f"cases use answer_check 'judge': {exc}") from None


def _run(harness: Any, graph: Any, cases: Any, *, name: str | None, target: str, judge: Any, **options: Any) -> list:
    """The runs, in dataset order, with a progress bar on a terminal."""
    from harness.experiment.runner import ExperimentError, run_cases

    total = len(cases.cases) * options["repeats"]
    if options.get("shard"):
        k, n = options["shard"]
        total = len(cases.cases[k::n]) * options["repeats"]
    from harness.experiment.scoring import Interrupted

    try:
        with progress(name or "runs", total, enabled=total >= 2) as bar:
            return run_cases(harness, graph, cases, name=name, target=target, judge=judge,
                             **({} if bar is None else {"on_done": lambda _: bar()}), **options)
    except ExperimentError as exc:
        raise UsageError(str(exc)) from None
    except Interrupted as exc:  # Ctrl-C: what is stored stays; one line says what was not scored
        say(f"harness: {exc}")
        raise typer.Exit(130) from None


def _table(harness: Any, target: str, run_ids: list[str], *, experiment: bool) -> None:
    from rich.table import Table

    frames = harness.sheets(run_ids, sheets=["runs", "tool_selections", "agent_metrics"])
    table = Table(title=f"harness wrap {target}")
    table.add_column("run id", no_wrap=True, min_width=36)
    columns = (("case", "repeat", "passed", "answer") if experiment else ()) + (
        "status", "steps", "LLM calls", "tools", "tokens", "cost $", "time ms", "tool F1", "trajectory")
    for col in columns:
        table.add_column(col, overflow="fold")
    selections = frames["tool_selections"].set_index("run_id")["f1_score"].to_dict()
    metrics = frames["agent_metrics"].set_index("run_id")
    trajectories = metrics["trajectory_match"].to_dict()
    answers = metrics["final_answer_quality"].to_dict()
    for row in frames["runs"].to_dict("records"):
        run = row["run_id"]
        lead = ((str(row["case_id"]), str(row["repeat_index"]), {1: "yes", 0: "no"}.get(row["passed"], "-"),
                 _fmt(answers.get(run), ".2f")) if experiment else ())
        status = row["status"] + (f": {clip(row['error'], 80)}" if isinstance(row.get("error"), str) else "")
        table.add_row(run, *lead, status, str(row["total_steps"]), str(row["total_llm_calls"]),
                      ", ".join(row["tools_used"] or []), _fmt(row.get("total_tokens")), _fmt(row.get("total_cost")),
                      _fmt(row["total_time_ms"], ".1f"), _fmt(selections.get(run), ".2f"),
                      _fmt(trajectories.get(run), ".2f"))
    show(table)


def _experiment_line(harness: Any, name: str, runs: list) -> None:
    frame = harness.sheets([r.run_id for r in runs], sheets=["runs"], columns=["passed", "status"])["runs"]
    passed = int(frame["passed"].fillna(0).sum())
    unknown = int(frame["passed"].isna().sum())  # (every experiment run has a gate: none is unknown)
    failed = int((frame["status"] != "completed").sum())
    cases = len({r.result.get("case_id") for r in runs})
    say(f"experiment {name}: {len(runs)} run(s) of {cases} case(s), passed {passed}/{len(runs)}"
        f"{f', {unknown} unknown (a score could not be made)' if unknown else ''}"
        f"{f', {failed} failed' if failed else ''}; store {harness.store.display}", err=False, whole=True)
    print_score_summary(harness.store, [r.run_id for r in runs])


def _print_results(harness: Any, run_ids: list[str], *, as_json: bool) -> None:
    """What the graph returned, as the store keeps it (``runs.outputs``: JSON, secrets
    redacted): ``--json``, the value (a list of them for several runs; null for a failed
    run); else its answer (the last AI message's text, else the whole output) under a line
    saying which run it is."""
    from rich.text import Text

    from harness.experiment.answer import answer_of

    stored = {r["run_id"]: r for r in harness.store.rows("runs", run_ids, columns=["run_id", "status", "outputs"])}
    outputs = [stored.get(run_id, {}).get("outputs") for run_id in run_ids]
    if as_json:
        show_json(outputs[0] if len(outputs) == 1 else outputs)
        return
    for run_id, output in zip(run_ids, outputs):
        if stored.get(run_id, {}).get("status") != "completed":
            continue
        messages = isinstance(output, dict) and isinstance(output.get("messages"), list)
        text = answer_of(output) if messages else json.dumps(output, indent=2, ensure_ascii=False)
        which = f" of run {run_id}" if len(run_ids) > 1 else ""
        say(f"result{which}" + (" (its last AI message; --json prints the whole output):" if messages else ":"),
            err=False)
        show(Text(text if text is not None else "(no AI message)"))


def print_score_summary(store: Any, run_ids: list[str], only: set[str] | None = None) -> None:
    """One line per score name of the runs (``only`` those names, when given): how many passed
    of those it gates, its mean, and how many could not be scored (the first error, on stderr)."""
    from harness.view.formats import score
    from harness.view.read import score_summary

    for entry in score_summary(store, run_ids):
        if only is not None and entry["name"] not in only:
            continue
        parts = [f"{entry['source']} score {entry['name']}: {entry['runs']} run(s)"]
        if entry["gated"]:
            parts.append(f"passed {entry['passed']}/{entry['gated']}")
        if entry["mean"] is not None:
            parts.append(f"mean {score(entry['mean'])}")
        if entry["errors"]:
            parts.append(f"{entry['errors']} not scored")
        say(", ".join(parts), err=False)
        if entry["first_error"]:
            say(f"harness: score {entry['name']} could not be made for {entry['errors']} run(s), e.g. "
                f"{entry['first_error']}")


def _fmt(value: Any, spec: str = "") -> str:
    import pandas as pd

    if value is None or (not isinstance(value, (str, list)) and pd.isna(value)):
        return "-"
    return format(value, spec)
