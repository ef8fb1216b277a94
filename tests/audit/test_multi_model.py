"""The audit's statistics over runs of several models or experiments: each model's figures
from the runs that called it (a multi-agent run with two models counts for both, marked
mixed), and pass@k per experiment and dataset case."""

from __future__ import annotations

import math

import pytest
from rich.console import Console

from harness.audit import audit_frames
from harness.audit._html import render_html
from harness.audit._terminal import summary
from tests.experiment.agents import react_agent
from tests.experiment.test_runner import capital_cases
from tests.harness import graphs
from tests.harness.teams import QUESTION, supervisor_system


@pytest.fixture
def h(thread_harness):
    return thread_harness


def text_of(result) -> str:
    console = Console(width=220, record=True, file=open("/dev/null", "w"), color_system=None)
    console.print(summary(result))
    return console.export_text()


def test_a_run_that_called_two_models_counts_for_both_marked_mixed_with_each_models_cost(h):
    pytest.importorskip("langgraph_supervisor")
    graph = supervisor_system()
    with h.run(workflow="supervisor") as supervised:  # gpt-4o supervises, the experts are gpt-4o-mini
        graph.invoke(QUESTION, supervised.config)
    with h.run(workflow="plain") as plain:  # llama-3.1-8b-instant only
        graphs.sequential().invoke({"question": "q"}, plain.config)
    frames = h.sheets()
    assert frames["runs"].set_index("run_id").model[supervised.run_id] == "gpt-4o-mini"  # its most frequent
    result = audit_frames(frames)
    assert result.findings == ()
    groups = {g.key: g for g in result.aggregates.by_model}
    assert {k: (g.runs, g.mixed) for k, g in groups.items()} == {
        "gpt-4o-mini": (1, 1), "gpt-4o": (1, 1), "llama-3.1-8b-instant": (1, 0)}
    calls = frames["llm_calls"]
    for model in ("gpt-4o", "gpt-4o-mini"):
        mine = calls[(calls.run_id == supervised.run_id) & (calls.model == model)]
        assert groups[model].mean_cost == pytest.approx(mine.total_cost.sum())
    assert not math.isclose(groups["gpt-4o"].mean_cost, groups["gpt-4o-mini"].mean_cost)
    text = text_of(result)
    assert "1 (1 mixed)" in text and "mixed: runs that called other models too" in text
    assert "1 (1 mixed)" in render_html(result)
    assert {m for m in result.plots.scores_by_model["evaluation score"]} <= set(groups)


def test_a_judges_calls_do_not_make_the_run_one_of_the_judges_model(h):
    answer = graphs.fake_model("the answer", model="llama-3.1-8b-instant")
    judge = graphs.fake_model("score: 8", model="llama-3.3-70b-versatile")

    def node(state, config):
        answer.invoke("answer the question", config)
        judge.invoke("grade the answer", {**config, "metadata": {"harness.call_type": "llm_judge"}})
        return {"log": ["answered"]}

    with h.run() as run:
        graphs.single_node(node).invoke({"log": []}, run.config)
    calls = h.sheets([run.run_id])["llm_calls"]
    assert sorted(calls.call_type) == ["chat", "llm_judge"]
    (group,) = audit_frames(h.sheets()).aggregates.by_model
    assert (group.key, group.runs, group.mixed) == ("llama-3.1-8b-instant", 1, 0)


def test_pass_at_k_and_company_figures_are_per_experiment_and_case(h):
    h.experiment("right", react_agent(), capital_cases(2), repeats=2)
    h.experiment("wrong", react_agent(), capital_cases(2), repeats=2, context={"wrong": True})
    result = audit_frames(h.sheets())
    assert result.findings == ()
    passes = {(p.experiment, p.company): (p.n, p.c) for p in result.aggregates.pass_k}
    assert passes == {("right", "q0"): (2, 2), ("right", "q1"): (2, 2), ("wrong", "q0"): (2, 0),
                      ("wrong", "q1"): (2, 0)}
    by_company = {(g.experiment, g.key): g.pass_rate for g in result.aggregates.by_type}
    assert by_company == {("right", "q0"): 1.0, ("right", "q1"): 1.0, ("wrong", "q0"): 0.0, ("wrong", "q1"): 0.0}
    (model,) = result.aggregates.by_model  # one model across both experiments
    assert (model.runs, model.pass_rate, model.experiment) == (8, 0.5, None)
    text = text_of(result)
    assert "per experiment and dataset case" in text and "wrong" in text
    assert "<th>Experiment</th><th>Case (or company)</th>" in render_html(result)
