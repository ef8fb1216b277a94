"""The workflow state: one key per node result, reducers where parallel branches merge.

There is no shared ``status`` field: each node reports its own outcome under its name in
``node_results``; ``fetch_api_data`` and ``search_web`` run in the same step and merge their
``source_results`` by tool name.
"""

from __future__ import annotations

from typing import Annotated, Any, TypedDict


def merge_dicts(left: dict[str, Any] | None, right: dict[str, Any] | None) -> dict[str, Any]:
    """Union of two dicts; on a shared key the right (newer) value wins."""
    return {**(left or {}), **(right or {})}


class CreditInput(TypedDict, total=False):
    """What a caller passes: the company, optionally with a ticker and a jurisdiction hint."""

    company_name: str
    ticker: str | None
    jurisdiction: str | None


class SourceResult(TypedDict):
    """One data tool's outcome: ``status`` ok or fail; ``data`` only when ok."""

    status: str
    records_found: int
    data: dict[str, Any] | None
    error: str | None
    execution_time_ms: float


class CreditState(CreditInput, total=False):
    company_info: dict[str, Any] | None  # parse_input: CompanyInfo fields
    validation: dict[str, Any]  # validate_company: {"valid": bool, "reason": str}
    company_type: str  # validate_company: public_us | public_non_us | private | unknown
    plan: dict[str, Any]  # create_plan: {"tools", "reasoning", "tasks", "duration_ms", "model", "status"}
    source_results: Annotated[dict[str, SourceResult], merge_dicts]  # fetch_api_data + search_web
    assessment: dict[str, Any]  # synthesize
    note: str | None  # synthesize: what the data lacked (sources without records), see evidence_note
    saved: bool  # save_to_database
    evaluation: dict[str, Any]  # evaluate_assessment
    node_results: Annotated[dict[str, str], merge_dicts]  # node name -> its own outcome


class CreditOutput(TypedDict, total=False):
    """What the graph returns."""

    company_name: str
    company_info: dict[str, Any] | None
    company_type: str
    validation: dict[str, Any]
    plan: dict[str, Any]
    source_results: dict[str, SourceResult]
    assessment: dict[str, Any]
    note: str | None
    evaluation: dict[str, Any]
    node_results: dict[str, str]
