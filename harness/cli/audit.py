"""Audit an exported workbook (FILE.xlsx) or a Google Sheet (--gsheet ID).

Checks all sixteen sheets (scores when the workbook has it) and their spec columns, value types and ranges, run ids,
duplicate rows and formula cells; recomputes every derived column with the functions that
produced it and compares within --tolerance; checks the runs and log_tests counts against
the other sheets; and prints statistics over repeated runs per model and company type
(pass rate, cost of pass, grade, uplift against --baseline-model, pass@k). Exit code 0 when
clean, 1 when discrepancies were found, 2 when the input cannot be audited.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ._errors import UsageError
from ._open import load_prices_option
from ._output import progress, say, show, show_json
from ._paths import writable_file


def command(
    file: Annotated[Path | None, typer.Argument(metavar="FILE.xlsx", help="Workbook to audit.")] = None,
    gsheet: Annotated[str | None, typer.Option("--gsheet", help="Audit this Google Sheet (spreadsheet id) instead.")] = None,
    credentials: Annotated[Path | None, typer.Option(
        "--credentials", help="Service-account key file (default: $GOOGLE_APPLICATION_CREDENTIALS).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the whole result as JSON on stdout.")] = False,
    report: Annotated[Path | None, typer.Option("--report", help="Also write a self-contained HTML report.")] = None,
    tolerance: Annotated[float, typer.Option(help="Largest accepted difference of a recomputed number.")] = 1e-6,
    baseline_model: Annotated[str | None, typer.Option(
        "--baseline-model", help="Model the uplift is measured against (default: the batches' primary --model, "
                                 "else the model of the earliest run; the summary says which).")] = None,
    max_part_mb: Annotated[float, typer.Option(
        "--max-part-mb", help="Refuse a workbook with a part (a sheet's XML) inflating beyond this many MB "
                               "and beyond 40 times its compressed size.")] = 200,
    max_ratio: Annotated[float, typer.Option(
        "--max-ratio", help="Refuse a workbook with a part compressed more than this (inflated:compressed).")] = 100,
    prices: Annotated[Path | None, typer.Option(
        help="TOML file of the model prices the runs were written with (registered prices are "
             "otherwise taken as written).")] = None,
) -> None:
    from harness.audit import ArchiveLimits, AuditInputError, audit_google_sheet, audit_workbook
    from harness.audit import summary, write_report
    from harness.outputs import NotAFile
    from workflows import (
        EXPECTED_TOOLS,  # names a run's company type from its expected tools
    )

    if (file is None) == (gsheet is None):
        raise UsageError("give either a workbook FILE.xlsx or --gsheet SPREADSHEET_ID")
    load_prices_option(prices)
    if not tolerance >= 0 or tolerance == float("inf"):
        raise UsageError(f"--tolerance must be a finite number >= 0, got {tolerance}")
    if report is not None:
        writable_file(report, "--report")
    if not 0 < max_part_mb < float("inf") or not 1 <= max_ratio < float("inf"):
        raise UsageError("--max-part-mb must be a positive number and --max-ratio a number >= 1")
    limits = ArchiveLimits(max_part_bytes=int(max_part_mb * 1024 * 1024), max_ratio=max_ratio)
    try:
        with progress("auditing", 15, enabled=not as_json) as bar:
            advance = None if bar is None else (
                lambda sheet, done, total: bar(completed=done, total=total, description=sheet))
            if file is not None:
                result = audit_workbook(file, tolerance=tolerance, baseline_model=baseline_model,
                                        company_types=EXPECTED_TOOLS, progress=advance, limits=limits)
            else:
                result = audit_google_sheet(gsheet or "", credentials_file=credentials, tolerance=tolerance,
                                            baseline_model=baseline_model, company_types=EXPECTED_TOOLS,
                                            progress=advance)
    except AuditInputError as exc:
        raise UsageError(str(exc)) from None
    if report is not None:
        try:
            write_report(result, report)
        except (OSError, NotAFile) as exc:
            raise UsageError(f"writing the report {str(report)!r} failed: {getattr(exc, 'strerror', None) or exc}",
                             code=1) from None
    if as_json:
        show_json(result.to_dict(), indent=None)
    else:
        show(summary(result))
        if report is not None:
            say(f"report: {report}", err=False, whole=True)
    raise typer.Exit(result.exit_code)
