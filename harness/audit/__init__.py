"""Audit logged sheets: an exported workbook, a Google Sheet or data frames.

Structure (all fifteen sheets, spec columns in spec order, types and ranges, run ids,
duplicates, formulas), recomputation of every derived column with the functions that
produced it, cross-sheet counts, and statistics over repeated runs (pass rate, cost of pass, grades).
"""

from ._audit import (
    CompanyTypes,
    Progress,
    audit_frames,
    audit_google_sheet,
    audit_source,
    audit_workbook,
)
from ._model import (
    Aggregates,
    AuditInputError,
    AuditResult,
    Finding,
    GroupSummary,
    PassAtK,
    PlotData,
)
from ._html import write_report
from ._terminal import summary
from ._xlsx import ArchiveLimits

__all__ = [
    "Aggregates",
    "ArchiveLimits",
    "AuditInputError",
    "AuditResult",
    "CompanyTypes",
    "Finding",
    "GroupSummary",
    "PassAtK",
    "PlotData",
    "Progress",
    "audit_frames",
    "audit_google_sheet",
    "audit_source",
    "audit_workbook",
    "summary",
    "write_report",
]
