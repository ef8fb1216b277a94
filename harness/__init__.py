"""Tracing and evaluation harness for LangGraph agents.

``Harness().run(...)`` records any compiled LangGraph graph through LangChain callbacks into
the fifteen logging sheets and its scores (a SQLite store) and OpenTelemetry spans.

The tracing names (``Harness``, ``Run``, ``current_run``, ``HarnessCallbackHandler``) are
imported on first use: they bring LangChain in, which the
commands that only read the store (``harness list``, ``show``, ``report``) never need.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from .costs import PRICE_TABLE_VERSION, PRICES, cost, load_prices, register_price
from .schema import AGENT_NAMES, RISK_LEVELS, SHEET_NAMES, SHEETS, Column, Sheet
from .store import Store, StoreError

from .secrets.redact import REDACTED, Redactor, scrub_log_records

scrub_log_records()  # secrets quoted in a harness warning never reach a log line

if TYPE_CHECKING:
    from ._run import Harness, Run, current_run
    from .experiment.compare import Comparison, Comparisons, UnknownExperiment
    from .experiment.dataset import Case, Dataset, DatasetError, load_dataset
    from .experiment.runner import Experiment, ExperimentError
    from .experiment.scoring import RunSnapshot
    from .experiment.threads import ThreadSnapshot
    from .tracing.callback import HarnessCallbackHandler
    from evaluators import Score

#: Public name -> the module that defines it, imported when the name is first used.
_ON_FIRST_USE = {
    "Harness": "._run", "Run": "._run", "current_run": "._run",
    "HarnessCallbackHandler": ".tracing.callback",
    "Case": ".experiment.dataset", "Dataset": ".experiment.dataset", "DatasetError": ".experiment.dataset",
    "load_dataset": ".experiment.dataset", "Experiment": ".experiment.runner",
    "ExperimentError": ".experiment.runner", "Comparison": ".experiment.compare", "Comparisons": ".experiment.compare",
    "UnknownExperiment": ".experiment.compare", "RunSnapshot": ".experiment.scoring", "ThreadSnapshot": ".experiment.threads",
    "Score": "evaluators",
}


def __getattr__(name: str) -> Any:
    if name not in _ON_FIRST_USE:
        raise AttributeError(f"module 'harness' has no attribute {name!r}")
    value = getattr(import_module(_ON_FIRST_USE[name], __name__), name)
    globals()[name] = value
    return value


__all__ = [
    "AGENT_NAMES",
    "PRICES",
    "PRICE_TABLE_VERSION",
    "REDACTED",
    "RISK_LEVELS",
    "SHEETS",
    "SHEET_NAMES",
    "Case",
    "Column",
    "Comparison",
    "Comparisons",
    "Dataset",
    "DatasetError",
    "Experiment",
    "ExperimentError",
    "Harness",
    "HarnessCallbackHandler",
    "Redactor",
    "Run",
    "RunSnapshot",
    "Score",
    "Sheet",
    "Store",
    "StoreError",
    "ThreadSnapshot",
    "UnknownExperiment",
    "cost",
    "current_run",
    "load_dataset",
    "load_prices",
    "register_price",
]
