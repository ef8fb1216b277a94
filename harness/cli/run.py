"""Run the credit-analysis workflow with evaluation for one or more companies.

Examples: `harness run "Acme Corp" "Blue Harbor Logistics"` or `harness run --file companies.txt --repeats 3 --compare-model offline-analyst-lite`.

Each company is a separate recorded run; repeats and compared models are runs too, grouped by one batch id per company, and get consistency and cross-model rows. Runs go concurrently, at most 8 at a time, and are stored in input order (company, model, repeat). A batch killed midway is finished by `harness run ... --resume` (or the same `--batch-id`): the runs it stored are skipped. The offline provider (default) needs no network; `--provider groq` needs GROQ_API_KEY.

At the end the runs of this batch are exported to the Excel workbook --out (unless --no-excel) and to Google Sheets with --gsheet; `harness export` writes the whole store. Output paths and Google credentials are checked before any run starts. Exit code 0 when every run completed and exported, 1 when a run or an export failed (the runs stay in the store), 2 for unusable input.
"""

from __future__ import annotations

import functools
import uuid
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from ._errors import UsageError
from ._open import load_prices_option, open_harness, require_stored
from ._output import clip, progress, say, show
from ._paths import writable_file


def read_companies(names: list[str], file: Path | None) -> tuple[list[str], int]:
    """Positional names, then the file's lines (split on ``\\n`` only; blank lines and ``#``
    comments skipped); duplicates (after trimming) are dropped, first occurrence kept.
    Returns the list and how many duplicates were dropped. The file is a regular file of at
    most 10 MB (:data:`harness.inputs.COMPANIES`)."""
    from harness.inputs import COMPANIES, InputError, read_text

    items = list(names)
    if file is not None:
        try:
            text = read_text(file, COMPANIES)
        except InputError as exc:
            raise UsageError(str(exc)) from None
        lines = (line.removesuffix("\r") for line in text.split("\n"))
        items += [line for line in lines if line.strip() and not line.lstrip().startswith("#")]
    seen: dict[str, str] = {}
    for item in items:
        seen.setdefault(item.strip(), item)
    if not seen:
        raise UsageError("no companies given: pass names or --file companies.txt")
    return list(seen.values()), len(items) - len(seen)


def command(
    companies: Annotated[Optional[list[str]], typer.Argument(metavar="COMPANY...", help="Company names.", show_default=False)] = None,
    file: Annotated[Optional[Path], typer.Option("--file", "-f", help="File with one company per line.")] = None,
    provider: Annotated[Optional[str], typer.Option(help="offline (default) or groq; env HARNESS_PROVIDER.")] = None,
    model: Annotated[Optional[str], typer.Option(help="Analyst model (default: the provider's primary).")] = None,
    compare_model: Annotated[Optional[str], typer.Option(help="Also run every company with this model and compare.")] = None,
    repeats: Annotated[int, typer.Option(help="Runs per company and model (>= 2 measures consistency).")] = 1,
    judge: Annotated[bool, typer.Option("--judge/--no-judge", help="Grade each assessment with the LLM judge.")] = True,
    temperature: Annotated[float, typer.Option(help="Analyst temperature (the judge always uses 0).")] = 0.1,
    sources: Annotated[str, typer.Option(help="snapshots (bundled, default) or live (HTTP APIs, keys from env).")] = "snapshots",
    out: Annotated[Path, typer.Option(help="Excel workbook for the runs of this batch (harness export writes the whole store).")] = Path("runs.xlsx"),
    no_excel: Annotated[bool, typer.Option("--no-excel", help="Do not export to Excel.")] = False,
    gsheet: Annotated[Optional[str], typer.Option(help="Also append the runs of this batch to this Google Sheets spreadsheet id.")] = None,
    store: Annotated[Optional[str], typer.Option(help="Store path or sqlite:/// URL (env HARNESS_STORE).")] = None,
    prices: Annotated[Optional[Path], typer.Option(
        help="TOML file of model prices that win over the bundled table (env HARNESS_PRICES).")] = None,
    batch_id: Annotated[Optional[str], typer.Option(
        "--batch-id", help="Name the batch; the same batch again skips the runs it already stored.")] = None,
    resume: Annotated[bool, typer.Option(
        "--resume", help="Resume the last batch run on this store (after a crash or Ctrl-C).")] = False,
) -> None:
    from workflows import ProviderError, make_model, resolve_provider
    from workflows import BatchSettings, run_batch

    names, duplicates = read_companies(companies or [], file)
    if repeats < 1 or repeats > 100:
        raise UsageError(f"--repeats must be between 1 and 100, got {repeats}")
    if not 0.0 <= temperature <= 2.0:
        raise UsageError(f"--temperature must be between 0 and 2, got {temperature}")
    if sources not in ("snapshots", "live"):
        raise UsageError(f"--sources must be snapshots or live, got {sources!r}")
    for option, value in (("--provider", provider), ("--model", model), ("--compare-model", compare_model),
                          ("--store", store), ("--batch-id", batch_id)):
        if value is not None and not value.strip():
            raise UsageError(f"{option} needs a value, got an empty one")
    excel = None if no_excel else writable_file(out, "--out", ".xlsx")
    load_prices_option(prices)
    if gsheet is not None:
        _check_gsheet(gsheet)
    try:
        chosen = resolve_provider(provider)
        settings = BatchSettings(provider=chosen, model=model or chosen.primary, compare_model=compare_model,
                                 repeats=repeats, judge=judge, temperature=temperature, sources=_sources(sources))
        for name in settings.models:  # fail fast on a bad model name or a missing key
            make_model(chosen, name, temperature=temperature)
    except (ProviderError, ValueError) as exc:
        raise UsageError(str(exc)) from None
    harness = open_harness(store)  # closed by the CLI on exit
    if duplicates:
        say(f"harness: skipped {duplicates} duplicate compan{'y' if duplicates == 1 else 'ies'}")
    batch = _batch(harness, batch_id, resume)
    outcomes = _run_with_progress(harness, names, settings, functools.partial(run_batch, batch=batch))
    require_stored(harness, [o.run_id for o in outcomes])
    _summary(outcomes)
    exported = _export(harness, [o.run_id for o in outcomes], excel, gsheet)
    raise typer.Exit(1 if not exported or any(o.status != "completed" for o in outcomes) else 0)


def _check_gsheet(spreadsheet_id: str) -> None:
    """An id and usable credentials, before any run (the push itself comes after the runs)."""
    from exporters import sheets_client

    if not spreadsheet_id.strip() or "/" in spreadsheet_id:
        raise UsageError(f"--gsheet needs a spreadsheet id (the part of the sheet's URL after /d/), got {spreadsheet_id!r}")
    try:
        sheets_client()
    except ValueError as exc:
        raise UsageError(f"--gsheet: {exc}") from None


_LAST_BATCH = "last_batch:credit_analysis"


def _batch(harness: Any, batch_id: str | None, resume: bool) -> str:
    """The batch to run: named, the store's last one (``--resume``), or a new one; recorded
    as the store's last batch before any run starts."""
    if resume and batch_id:
        raise UsageError("give --resume or --batch-id, not both")
    batch = batch_id or (harness.store.meta(_LAST_BATCH) if resume else None) or ("" if resume else str(uuid.uuid4()))
    if not batch:
        raise UsageError("no batch to resume on this store: run without --resume")
    harness.store.set_meta(_LAST_BATCH, batch)
    return batch


def _sources(kind: str) -> Any:
    if kind == "live":
        from workflows import LiveSources

        return LiveSources()
    return None


def _run_with_progress(harness: Any, names: list[str], settings: Any, run_batch: Any) -> list[Any]:
    total = len(names) * len(settings.models) * settings.repeats
    with progress("credit runs", total) as bar:
        if bar is None:
            return run_batch(harness, names, settings)
        return run_batch(harness, names, settings, on_done=lambda _: bar())


def _fmt(value: Any, spec: str = "") -> str:
    if value is None or (isinstance(value, float) and value != value):
        return "-"
    return format(value, spec)


def _summary(outcomes: list[Any]) -> None:
    """One line per run, its full id first: what `harness show` and `harness export --run` take."""
    from rich.table import Table

    table = Table(title="credit runs")
    table.add_column("run id", no_wrap=True, min_width=max(len(o.run_id) for o in outcomes))
    for col in ("company", "model", "risk", "score", "confidence", "eval score", "status", "tokens", "cost $", "time s", "note"):
        table.add_column(col, overflow="fold")
    for o in outcomes:
        note = clip(o.error, 160) if o.error else (o.note or "" if o.valid else f"invalid: {o.reason}")
        company = clip(o.company, 40)
        table.add_row(o.run_id, company, o.model + (f" #{o.repeat + 1}" if o.batch_id else ""), _fmt(o.risk_level),
                      _fmt(o.credit_score), _fmt(o.confidence, ".2f"), _fmt(o.evaluation_score, ".2f"), o.status,
                      _fmt(o.tokens), _fmt(o.cost, ".6f"), _fmt(o.seconds, ".2f"), note)
    show(table)


def _export(harness: Any, run_ids: list[str], out: Path | None, gsheet: str | None) -> bool:
    """Export the batch; True when every export asked for succeeded. A failed export says
    so in one line: the runs are in the store, from which ``harness export`` writes them again."""
    targets = ([("Excel", lambda: harness.export_excel(out, run_ids))] if out is not None else []) + (
        [("Google Sheets", lambda: harness.export_google_sheets(gsheet, run_ids=run_ids))] if gsheet else [])
    ok = True
    for label, export in targets:
        try:
            export()
        except Exception as exc:  # noqa: BLE001 - the runs are stored; say why the export failed
            ok = False
            store = harness.store.display
            say(f"harness: {label} export failed: {type(exc).__name__}: {exc}; the runs are safe in the store "
                f"{store!r}: `harness export --store {store}` writes them again")
        else:
            say(f"harness: exported to {label}: {out if label == 'Excel' else gsheet}", whole=True)
    return ok
