"""Export the runs of the store to an Excel workbook (--out), a Google Sheet (--gsheet) and/or another store (--to-store).

Every run of the store is exported, or only those given with --run or --experiment. --to-store copies the runs (every row, their experiment records) into another store, SQLite or PostgreSQL, either way: rows it already has are skipped, so pushing a laptop's runs to the team store again copies only what is new. The store is the
system of record: a workbook can be rewritten at any time, and a Google Sheets push sends
only the rows the spreadsheet has not acknowledged yet, so running the same command again
resumes a push that failed. Google credentials: --credentials or
$GOOGLE_APPLICATION_CREDENTIALS (a service-account key; share the sheet with its email).
Exit code 0 when exported, 1 when an export failed on the way (the store is unchanged), 2
for unusable input (checked before anything is written).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from harness.schema import ALL_SHEET_NAMES

from ._errors import UsageError
from ._open import open_store, run_ids as resolve_runs
from ._output import progress, say, show
from ._paths import writable_file


def command(
    out: Annotated[Path | None, typer.Option("--out", help="Write an .xlsx workbook to this path.")] = None,
    gsheet: Annotated[str | None, typer.Option("--gsheet", help="Append to this Google Sheet (spreadsheet id).")] = None,
    store: Annotated[str | None, typer.Option("--store", help="Store path, sqlite:/// or postgresql:// URL [default: $HARNESS_STORE or ./harness.db].")] = None,
    run: Annotated[list[str] | None, typer.Option("--run", help="Export only this run (a run id or its first 4+ characters; repeatable); default: every run of the store.")] = None,
    credentials: Annotated[Path | None, typer.Option("--credentials", help="Service-account key file [default: $GOOGLE_APPLICATION_CREDENTIALS].")] = None,
    experiment: Annotated[list[str] | None, typer.Option("--experiment", help="Export only the runs of this experiment (repeatable).")] = None,
    to_store: Annotated[str | None, typer.Option("--to-store", help="Copy the runs into this store (a path, sqlite:/// or postgresql:// URL).")] = None,
) -> None:
    import exporters

    if out is None and gsheet is None and to_store is None:
        raise UsageError("nothing to do: give --out FILE.xlsx, --gsheet SPREADSHEET_ID and/or --to-store STORE")
    if out is not None:
        writable_file(out, "--out", ".xlsx")
    opened = open_store(store)
    try:
        run_ids = resolve_runs(opened, run) if run else None
        if experiment:
            found = [r["run_id"] for r in opened.rows("runs", columns=["run_id"], where={"experiment": experiment})]
            missing = [e for e in experiment if not any(True for _ in opened.rows(
                "runs", columns=["run_id"], where={"experiment": e}, limit=1))]
            if missing:
                raise UsageError(f"no runs of experiment {', '.join(map(repr, missing))} in the store")
            run_ids = found if run_ids is None else [r for r in run_ids if r in set(found)]
        if to_store is not None:
            _copy(opened, to_store, run_ids)
        table = Table()
        table.add_column("sheet")
        columns: dict[str, dict[str, int]] = {}
        if out is not None:
            with progress("workbook", len(ALL_SHEET_NAMES)) as bar:
                try:
                    written = exporters.write_excel(opened, out, run_ids, progress=_per_sheet(bar))
                except OSError as exc:
                    raise UsageError(f"writing {str(out)!r} failed: {exc.strerror or exc}", code=1) from None
                except ValueError as exc:  # the path became no file since it was checked
                    raise UsageError(str(exc)) from None
            columns["xlsx rows"] = dict(written.rows)
            summary = [f"wrote {written.path} ({written.total_rows} rows, {written.seconds:.1f}s)"]
        else:
            summary = []
        if gsheet is not None:
            with progress("google sheet", len(ALL_SHEET_NAMES)) as bar:
                try:
                    pushed = exporters.push_google_sheets(opened, gsheet, credentials_file=credentials,
                                                          run_ids=run_ids, progress=_per_sheet(bar))
                except (ValueError, exporters.SheetsTargetError) as exc:
                    raise UsageError(str(exc)) from None
                except exporters.SheetsExportError as exc:
                    raise UsageError(str(exc), code=1) from None
            columns["appended"] = dict(pushed.appended)
            columns["already there"] = dict(pushed.recovered)
            summary.append(f"appended {pushed.total_rows} rows to spreadsheet {gsheet} "
                           f"({pushed.requests} requests, {pushed.retries} retries, {pushed.seconds:.1f}s)")
        for name in columns:
            table.add_column(name, justify="right")
        for sheet in ALL_SHEET_NAMES:
            table.add_row(sheet, *(str(values.get(sheet, 0)) for values in columns.values()))
        if columns:
            show(table)
        for line in summary:
            say(line, err=False, whole=True)  # a path stays whole, on one line
    finally:
        opened.close()


def _copy(source, target_url: str, run_ids: list[str] | None) -> None:
    """Copy the runs into the store ``target_url`` (created if it is a new SQLite file)."""
    from harness.store import Store, StoreError
    from harness.store.copy import copy_runs

    if target_url.strip() in ("", source.location):
        raise UsageError("--to-store names the store the runs come from; give another store")
    try:
        target = Store(target_url)
    except StoreError as exc:
        raise UsageError(str(exc)) from None
    try:
        copied = copy_runs(source, target, run_ids)
    except StoreError as exc:
        raise UsageError(f"copying to {target.display!r} failed: {exc}; copy again to resume", code=1) from None
    finally:
        target.close()
    say(f"copied {copied.runs} run(s) to {target.display}: {copied.total_rows} new row(s), "
        f"{copied.experiments} experiment record(s)", err=False, whole=True)


def _per_sheet(bar: Callable[..., None] | None) -> Callable[[str, int], None] | None:
    """The exporters' ``progress(sheet, rows)``, one step of the bar per sheet."""
    return None if bar is None else (lambda sheet, rows: bar())
