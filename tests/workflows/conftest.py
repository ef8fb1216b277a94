"""Fixtures: a real harness over a SQLite file in tmp_path and a helper that runs the
credit graph under it the way ``harness run`` does."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from harness import AGENT_NAMES, Harness
from workflows import NODE_TYPES, WORKFLOW_PHASES, build_graph, validate_company_name


@pytest.fixture
def harness(tmp_path) -> Harness:
    return Harness(store=tmp_path / "runs.db")


@pytest.fixture(scope="module")
def graph():
    return build_graph()


RunCredit = Callable[..., tuple[Any, dict[str, Any], dict[str, Any]]]


@pytest.fixture
def run_credit(harness, graph) -> RunCredit:
    """``run_credit(name, **configurable) -> (run, output, sheets of that run)``."""

    def run(name: str, *, inputs: dict[str, Any] | None = None, **configurable: Any):
        valid = validate_company_name(name).valid
        with harness.run(subject=name, workflow="credit_analysis", profile="credit" if valid else "generic",
                         agent_names=AGENT_NAMES, node_types=NODE_TYPES, phases=WORKFLOW_PHASES,
                         config={"configurable": configurable}) as r:
            out = graph.invoke({"company_name": name, **(inputs or {})}, config=r.config)
        return r, out, harness.sheets(run_ids=[r.run_id])

    return run
