"""The audit: read every sheet once, check it, keep what the cross-sheet checks need.

Sheets are read in the order ``runs`` (its run ids are the reference), ``tool_selections``
(the recomputed selections feed ``evaluations``), then spec order. Each sheet goes through
the cell checks (:mod:`._structure`), its recomputation (:mod:`._recompute`) and leaves its
facts (:mod:`._crossref`); only ``runs`` and ``log_tests`` are kept to the end.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .. import config
from ..inputs import CREDENTIALS, InputError, not_regular, read_json_file
from ..schema import SHEET_NAMES, SHEETS, SHEETS_BY_NAME
from . import _recompute as recompute
from ._agreement import agreements
from ._aggregate import aggregate_runs, plot_data, run_records
from ._crossref import Facts, check_log_tests, check_runs, check_scores
from ._model import AuditInputError, AuditResult, Finding
from ._readers import FrameSource, GoogleSheetSource
from ._structure import DuplicateRows, check_cells, check_formulas
from ._tables import Source, Table, check_sheets_present, continuation_tabs, load_chunks
from ._values import is_uuid
from ._xlsx import ArchiveLimits, WorkbookSource

#: ``progress(sheet, done, total)`` after each sheet.
Progress = Callable[[str, int, int], None]
#: Company type -> the tools a run of that type is expected to select.
CompanyTypes = Mapping[str, Sequence[str]]

_ORDER = ("runs", "tool_selections") + tuple(n for n in SHEET_NAMES if n not in ("runs", "tool_selections"))
#: Sheets beyond the spec's fifteen, audited when the source has them (an older export has none).
_OPTIONAL = ("scores",)
_KEPT = ("runs", "log_tests")
#: The long sheets, whose checks need no more than a row (and the facts gathered so far):
#: checked in chunks of CHUNK_ROWS rows, so memory holds a chunk, not the sheet.
_STREAMED = frozenset({"langgraph_events", "llm_calls", "tool_calls", "prompts", "data_sources"})
CHUNK_ROWS = 50_000


def audit_workbook(path: str | os.PathLike[str], *, tolerance: float = 1e-6, baseline_model: str | None = None,
                   company_types: CompanyTypes | None = None, progress: Progress | None = None,
                   limits: ArchiveLimits | None = None) -> AuditResult:
    """Audit an .xlsx workbook (as ``exporters.write_excel`` writes it, or edited by hand).

    Raises :class:`AuditInputError` (a ValueError) when it cannot be audited: not a
    workbook, a sheet or spec column missing, spec columns out of order, or a part of the
    archive over ``limits`` (a decompression bomb; default :class:`ArchiveLimits`)."""
    try:
        what = not_regular(os.stat(path).st_mode)
    except OSError as exc:
        raise AuditInputError(f"{os.fspath(path)}: {str(exc.strerror or 'no such file').lower()}") from None
    if what is not None:  # a FIFO would block the open, a device would never end
        raise AuditInputError(f"{os.fspath(path)} is {what}, not a workbook")
    with WorkbookSource(path, limits) as source:
        return audit_source(source, tolerance=tolerance, baseline_model=baseline_model,
                            company_types=company_types, progress=progress)


def audit_google_sheet(spreadsheet_id: str, *, client: Any = None, credentials_file: str | os.PathLike[str] | None = None,
                       tolerance: float = 1e-6, baseline_model: str | None = None,
                       company_types: CompanyTypes | None = None, progress: Progress | None = None) -> AuditResult:
    """Audit a Google Sheet, read with gspread: ``client`` (a ``gspread.Client``), else a
    service account from ``credentials_file``, else ``$GOOGLE_APPLICATION_CREDENTIALS``.
    The same checks as :func:`audit_workbook`; API refusals are an AuditInputError."""
    import gspread

    if client is None:
        credentials = config.value("GOOGLE_APPLICATION_CREDENTIALS", credentials_file)
        if not credentials:
            raise AuditInputError("no Google credentials: pass --credentials FILE or set GOOGLE_APPLICATION_CREDENTIALS")
        shown = repr(os.fspath(credentials))
        try:
            info = read_json_file(credentials, CREDENTIALS)  # a regular file of at most 10 MB
        except InputError as exc:
            raise AuditInputError(str(exc)) from None
        try:
            client = gspread.service_account_from_dict(info)
        except (ValueError, KeyError, TypeError, AttributeError):  # not the fields a service account has
            raise AuditInputError(f"credentials file {shown} is not a usable service-account key") from None
    try:
        return audit_source(GoogleSheetSource(spreadsheet_id, client), tolerance=tolerance,
                            baseline_model=baseline_model, company_types=company_types, progress=progress)
    except gspread.exceptions.SpreadsheetNotFound:
        raise AuditInputError(f"Google Sheet {spreadsheet_id}: not found or not shared with this account") from None
    except gspread.exceptions.APIError as exc:
        raise AuditInputError(f"Google Sheet {spreadsheet_id}: the Sheets API refused ({_api_reason(exc)})") from None


def audit_frames(frames: Mapping[str, Any], *, tolerance: float = 1e-6, baseline_model: str | None = None,
                 company_types: CompanyTypes | None = None) -> AuditResult:
    """Audit data frames keyed by sheet name, e.g. ``Harness().sheets()``."""
    return audit_source(FrameSource(frames), tolerance=tolerance, baseline_model=baseline_model,
                        company_types=company_types)


def _api_reason(exc: Any) -> str:
    error = getattr(exc, "error", None)
    message = error.get("message") if isinstance(error, dict) else None
    return " ".join(str(message or exc).split())


def audit_source(source: Source, *, tolerance: float = 1e-6, baseline_model: str | None = None,
                 company_types: CompanyTypes | None = None, progress: Progress | None = None) -> AuditResult:
    """The audit of any :class:`Source`; the ``audit_*`` functions are this on their source.
    ``company_types`` maps a company type to its expected tools (e.g.
    ``workflows.EXPECTED_TOOLS``): runs are then also grouped by company type."""
    if not (isinstance(tolerance, (int, float)) and math.isfinite(tolerance) and tolerance >= 0):
        raise ValueError(f"tolerance must be a finite number >= 0, got {tolerance!r}")
    tabs = check_sheets_present(source)
    order = _ORDER + tuple(name for name in _OPTIONAL if name in tabs)
    source.prefetch([tab for name in order for tab in continuation_tabs(name, tabs)])
    facts = Facts()
    findings: list[Finding] = []
    notes: list[str] = []
    rows: dict[str, int] = {}
    kept: dict[str, Table] = {}
    run_ids: set[str] | None = None
    selections: dict[str, Any] = {}
    for done, name in enumerate(order, start=1):
        duplicates = DuplicateRows()
        rows[name] = 0
        for table in load_chunks(source, SHEETS_BY_NAME[name], tabs, CHUNK_ROWS if name in _STREAMED else None):
            rows[name] += len(table.rows)
            _check_table(table, run_ids, duplicates, facts, findings, selections, notes, tolerance)
            if name == "runs":
                run_ids = {v for v in table.column("run_id") if is_uuid(v)}
            if name in _KEPT:
                kept[name] = table
            del table
        if progress is not None:
            progress(name, done, len(order))
    facts.scored = "scores" in order
    findings.extend(check_log_tests(kept["log_tests"], facts, tolerance))  # (a run's pass may need its log test)
    findings.extend(check_runs(kept["runs"], facts, tolerance))
    findings = _once_per_formula_cell(findings)
    records = run_records(kept["runs"], facts, company_types)
    aggregates = aggregate_runs(records, baseline_model, facts.primaries)
    return AuditResult(
        source=source.label,
        rows={n: rows[n] for n in order},
        findings=tuple(sorted(findings, key=_finding_order)),
        aggregates=aggregates,
        plots=plot_data(records, facts),
        notes=tuple(notes),
        agreement=agreements(facts.judgements),
    )


def _check_table(table: Table, run_ids: set[str] | None, duplicates: DuplicateRows, facts: Facts,
                 findings: list[Finding], selections: dict[str, Any], notes: list[str], tolerance: float) -> None:
    """Every check of one table (a whole sheet, or a chunk of a long one); what later sheets
    and the cross-sheet checks need is gathered into ``facts`` and ``selections``."""
    name = table.name
    findings.extend(check_cells(table, run_ids))
    findings.extend(duplicates.check(table))
    findings.extend(check_formulas(table))
    facts.count(table)
    check = recompute.Checker(table, tolerance)
    if name == "tool_selections":
        selections.update(recompute.tool_selections(table, check))
        facts.f1.update({run: ts.f1 for run, (ts, _) in selections.items()})
        facts.expected_tools.update({run: expected for run, (_, expected) in selections.items()})
    elif name == "evaluations":
        facts.evaluation.update(recompute.evaluations(table, check, selections))
    elif name == "llm_calls":
        facts.add_call_totals(recompute.llm_calls(table, check))
        facts.from_llm_calls(table)
    elif name == "llm_judge_results":
        facts.judge.update(recompute.llm_judge_results(table, check))
    elif name == "agent_metrics":
        recompute.agent_metrics(table, check)
        facts.from_agent_metrics(table)
    elif name == "consistency_scores":
        recompute.consistency_scores(table, check)
        recompute.group_run_ids(table, check, run_ids)
    elif name == "cross_model_eval":
        recompute.cross_model_eval(table, check, notes)
        recompute.group_run_ids(table, check, run_ids)
        facts.from_cross_model(table)
    elif name == "langgraph_events":
        facts.from_events(table)
    elif name == "tool_calls":
        facts.from_tool_calls(table)
    elif name == "assessments":
        facts.from_assessments(table)
    elif name == "scores":
        facts.from_scores(table)
        check_scores(table, facts, check)
    elif name == "runs":
        facts.from_runs(table)
    findings.extend(check.findings)


def _once_per_formula_cell(findings: list[Finding]) -> list[Finding]:
    """A formula cell is one finding: its type or recomputation findings (which only
    restate that the cell holds no value) are dropped."""
    formulas = {(f.sheet, f.row, f.column) for f in findings if f.kind == "formula"}
    return [f for f in findings if f.kind == "formula" or (f.sheet, f.row, f.column) not in formulas]


_SHEET_RANK = {s.name: i for i, s in enumerate(SHEETS)}


def _finding_order(f: Finding) -> tuple[Any, ...]:
    base, _, number = f.sheet.rpartition("_")
    sheet, part = (base, int(number)) if number.isdigit() and base in _SHEET_RANK else (f.sheet, 1)
    column = SHEETS_BY_NAME[sheet].all_column_names if sheet in SHEETS_BY_NAME else ()
    return (_SHEET_RANK.get(sheet, 99), part, f.row or 0,
            column.index(f.column) if f.column in column else len(column), f.rule)
