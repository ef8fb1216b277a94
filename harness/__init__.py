"""Tracing and evaluation harness for LangGraph agents.

``Harness().run(...)`` records any compiled LangGraph graph through LangChain callbacks into
the fifteen logging sheets (a SQLite store) and OpenTelemetry spans.
"""

from .tracing.callback import HarnessCallbackHandler
from .tracing.redact import REDACTED, Redactor, scrub_log_records
from ._run import Harness, Run, current_run
from .costs import PRICE_TABLE_VERSION, PRICES, cost
from .schema import AGENT_NAMES, RISK_LEVELS, SHEET_NAMES, SHEETS, Column, Sheet
from .store import Store, StoreError

scrub_log_records()  # secrets quoted in a harness warning never reach a log line

__all__ = [
    "AGENT_NAMES",
    "PRICES",
    "PRICE_TABLE_VERSION",
    "REDACTED",
    "RISK_LEVELS",
    "SHEETS",
    "SHEET_NAMES",
    "Column",
    "Harness",
    "HarnessCallbackHandler",
    "Redactor",
    "Run",
    "Sheet",
    "Store",
    "StoreError",
    "cost",
    "current_run",
]
