"""The audit reads a dataset case's stored pass as it reads a credit run's evaluation, and recomputes it."""

from __future__ import annotations

import pytest

import harness
from harness import Harness
from harness.audit import audit_frames

from .agents import react_agent
from .test_runner import capital_cases


@pytest.fixture(scope="module")
def frames(tmp_path_factory):
    h = Harness(tmp_path_factory.mktemp("audit") / "runs.db", writer="thread")
    cases = capital_cases(2, require_tools=True)
    cases[1]["reference_answer"] = "Atlantis"  # this case fails its answer check
    e = h.experiment("audited", react_agent(), cases, repeats=3)
    out = h.sheets(e.run_ids)
    h.close()
    return out


def test_pass_rate_and_pass_at_k_of_wrapped_runs_come_from_their_stored_pass(frames):
    result = audit_frames(frames)
    assert result.findings == ()
    by_model, = result.aggregates.by_model
    assert by_model.pass_rate == pytest.approx(0.5)
    passes = {p.company: (p.n, p.c) for p in result.aggregates.pass_k}
    assert passes == {"q0": (3, 3), "q1": (3, 0)}


def test_a_pass_that_its_checks_do_not_support_is_a_finding(frames):
    tampered = {name: frame.copy() for name, frame in frames.items()}
    runs = tampered["runs"]
    runs.loc[runs["case_id"] == "q1", "passed"] = 1
    findings = [f for f in audit_frames(tampered).findings if f.column == "passed"]
    assert len(findings) == 3 and all(f.sheet == "runs" for f in findings)


def test_a_registered_price_unknown_to_the_audit_is_taken_as_written(tmp_path):
    harness.register_price("acme-mini-2026", 1.5, 6.0)
    h = Harness(tmp_path / "p.db", writer="thread")
    try:
        e = h.experiment("priced", react_agent(), capital_cases(1))
        priced = h.sheets(e.run_ids)
    finally:
        del harness.PRICES["acme-mini-2026"]
        h.close()
    assert audit_frames(priced).findings == ()
    priced["llm_calls"].loc[0, "total_cost"] = 1.0
    assert [f.column for f in audit_frames(priced).findings if f.sheet == "llm_calls"] == ["total_cost"]


def test_a_tools_plain_text_output_is_stored_as_json_text(tmp_path):
    h = Harness(tmp_path / "t.db", writer="thread")
    e = h.experiment("text", react_agent(), capital_cases(1))
    h.flush()
    stored = list(h.store.rows("tool_calls", e.run_ids, columns=["tool_output"], decode_json=False))
    h.close()
    assert stored == [{"tool_output": '"Paris"'}]
