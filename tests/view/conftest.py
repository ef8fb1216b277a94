"""Stores of runs recorded by the harness from real LangGraph graphs (LangChain's fake chat
models, real tools, a subgraph, a failing tool), from the credit workflow, and from
experiments of a ReAct agent and its regressed version (a user's scorer, human labels); and
tabs of a real headless Chromium to open reports in."""

from __future__ import annotations

import json
import re
import sqlite3
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest
from langgraph.graph import END, START, StateGraph

from harness import Harness, Score
from tests.experiment.agents import react_agent
from tests.experiment.test_runner import capital_cases
from tests.harness import graphs
from tests.support.browser import chromium
from tests.support.cli import harness_cli  # noqa: F401 - the view's tests import it from here


@dataclass(frozen=True)
class Recorded:
    """A store and the runs in it: ``agent`` (every kind of entry), ``failed`` (a tool that
    raises), ``credit`` (the credit workflow with all its scores)."""

    path: Path
    agent: str
    failed: str
    credit: str

    def entries(self, run_id: str) -> Counter:
        """Node, LLM and tool executions the store recorded for a run, counted by kind
        (straight from SQLite, not through the code under test)."""
        with sqlite3.connect(self.path) as db:
            rows = db.execute("SELECT event_kind, COUNT(DISTINCT event_id) FROM langgraph_events "
                              "WHERE run_id = ? AND event_kind IN ('node', 'llm', 'tool') GROUP BY event_kind",
                              (run_id,)).fetchall()
        return Counter(dict(rows))


def agent_graph():
    """plan (a model call) -> research (a tool that calls a tool) -> child (a subgraph whose
    node calls a tool) -> answer (a streamed model call, so it has a time to first token)."""
    planner = graphs.fake_model("plan: look it up")
    writer = graphs.StreamingModel()

    def plan(state, config):
        planner.invoke("make a plan", config)
        return {"log": ["plan"]}

    def research(state, config):
        graphs.outer.invoke({"query": "facts"}, config)
        return {"log": ["research"]}

    def answer(state, config):
        for _ in writer.stream("answer now", config):
            pass
        return {"log": ["answer"]}

    inner = StateGraph(graphs.State)
    inner.add_node("inner_lookup", lambda s, config: (graphs.lookup.invoke({"query": "deep"}, config),
                                                      {"log": ["inner"]})[1])
    inner.add_edge(START, "inner_lookup")
    inner.add_edge("inner_lookup", END)
    g = StateGraph(graphs.State)
    g.add_node("plan", plan)
    g.add_node("research", research)
    g.add_node("child", inner.compile())
    g.add_node("answer", answer)
    g.add_edge(START, "plan")
    g.add_edge("plan", "research")
    g.add_edge("research", "child")
    g.add_edge("child", "answer")
    g.add_edge("answer", END)
    return g.compile()


def record(path: Path) -> Recorded:
    from workflows import resolve_provider
    from workflows._batch import BatchSettings, run_batch

    h = Harness(path, writer="inline")
    provider = resolve_provider("offline")
    credit = run_batch(h, ["Acme Corp"], BatchSettings(provider=provider, model=provider.primary))[0].run_id
    with h.run(subject="Acme", workflow="agent", expected_tools=["outer", "lookup"],
               reference_trajectory=["plan", "research", "child", "answer"]) as run:
        agent_graph().invoke({"log": []}, config=run.config)
    failed = h.run(subject="Globex", workflow="broken")
    with pytest.raises(ValueError):
        with failed:
            graphs.single_node(lambda s, config: graphs.broken.invoke({"query": "q"}, config)).invoke(
                {"log": []}, config=failed.config)
    h.flush()
    h.store.close()
    return Recorded(path, run.run_id, failed.run_id, credit)


@pytest.fixture(scope="session")
def recorded(tmp_path_factory) -> Recorded:
    return record(tmp_path_factory.mktemp("view") / "runs.db")


def page_json(page: str, script_id: str):
    """The JSON a report page carries inline, in its ``<script type=application/json id=...>``."""
    found = re.search(rf"<script type=application/json id={script_id}>(.*?)</script>", page, re.S)
    assert found, f"no inline {script_id}"
    return json.loads(found.group(1))


@pytest.fixture(scope="session")
def many(recorded, tmp_path_factory) -> Path:
    """A store of 1,500 runs: copies of the recorded ones, half in experiment ``base``, half
    in ``cand``."""
    from harness import Store
    from tests.support.copies import copy_runs

    path = tmp_path_factory.mktemp("many") / "runs.db"
    path.write_bytes(recorded.path.read_bytes())
    store = Store(path)
    copy_runs(store, [recorded.agent, recorded.failed, recorded.credit], 1_500, experiments=["base", "cand"])
    store.close()
    return path


def short_answer(run, case) -> Score:
    """A user's scorer: an answer of fewer than 12 words passes."""
    words = len((run.answer or "").split())
    return Score(value=words, passed=words < 12, explanation=f"{words} words in the answer")


#: Eight capital questions (the regressed version answers them all wrong), a case without an
#: answer check (passes in both), one no version can answer (fails in both) and one only the
#: regressed version answers right (improves).
COMPARED_CASES = [
    *capital_cases(8),
    {"id": "plain", "input": {"messages": [["user", "What is the capital of France?"]]}},
    {"id": "atlantis", "input": {"messages": [["user", "What is the capital of Atlantis?"]]},
     "reference_answer": "Poseidonia"},
    {"id": "spring", "input": {"messages": [["user", "What is the capital of Peru?"]]},
     "reference_answer": "Springfield"},
]


@dataclass(frozen=True)
class Compared:
    """Experiments ``base`` (the ReAct agent) and ``cand`` (its regressed version) over
    :data:`COMPARED_CASES`, scored by :func:`short_answer`, and ``twice`` (two repeats of two
    cases, one run of ``q0`` labelled a fail). ``labelled``: the run of ``cand``'s ``q0``,
    labelled ``reviewed=false`` with a comment; run ids by case."""

    path: Path
    base: dict[str, str]
    cand: dict[str, str]
    twice: list[str]

    @property
    def labelled(self) -> str:
        return self.cand["q0"]


def record_experiments(path: Path) -> Compared:
    h = Harness(path, writer="inline")
    runs = {}
    for name, wrong in (("base", False), ("cand", True)):
        done = h.experiment(name, react_agent(), COMPARED_CASES, context={"wrong": wrong}, scorers=[short_answer],
                            concurrency=1)
        runs[name] = dict(zip((c["id"] for c in COMPARED_CASES), done.run_ids))
    twice = h.experiment("twice", react_agent(), capital_cases(2), repeats=2, context={"wrong": False},
                         concurrency=1)
    h.label(runs["cand"]["q0"], "reviewed", False, comment="wrong city: Springfield is no capital")
    h.label(runs["base"]["q0"], "reviewed", True)
    h.label(twice.run_ids[0], "reviewed", False, comment="one of two")
    h.close()
    return Compared(path, runs["base"], runs["cand"], list(twice.run_ids))


@pytest.fixture(scope="session")
def compared(tmp_path_factory) -> Compared:
    return record_experiments(tmp_path_factory.mktemp("compared") / "runs.db")


# ---- tabs of a real headless Chromium -------------------------------------------------------


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=chromium(), args=["--no-sandbox"])
        yield launched
        launched.close()


class Opened:
    """A page with what it logged as errors and what it tried to fetch."""

    def __init__(self, page) -> None:
        self.page, self.errors, self.requests = page, [], []
        page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: self.errors.append(str(e)))

        def only_the_file(route):
            if route.request.url.startswith("file:"):
                route.continue_()
            else:
                self.requests.append(route.request.url)
                route.abort()

        page.route("**/*", only_the_file)

    def open(self, path: Path, fragment: str = ""):
        self.page.goto(path.as_uri() + fragment)
        self.page.wait_for_selector("body[data-ready=yes]")
        return self.page

    def click_run(self, run_id: str) -> None:
        self.page.locator("#spacer .row", has_text=run_id).click()
        self.page.wait_for_selector("#run:not([hidden]) #waterfall svg, #run:not([hidden]) #waterfall p")

    def bars(self) -> Counter:
        return Counter(self.page.eval_on_selector_all("#waterfall .bar", "bars => bars.map(b => b.dataset.kind)"))

    def entry(self) -> str:
        """The panel's heading: the call it shows."""
        return self.page.text_content("#entry .entry-head h3")


@pytest.fixture
def tabs(browser):
    """Opens tabs (a context each: its viewport width, time zone and permissions); every one
    must end with no console error and nothing fetched."""
    made = []

    def tab(width: int = 1400, **options) -> Opened:
        context = browser.new_context(viewport={"width": width, "height": 1000}, **options)
        made.append((context, Opened(context.new_page())))
        return made[-1][1]

    yield tab
    for context, opened in made:
        context.close()
        assert opened.errors == [], opened.errors  # a console error fails the test
        assert opened.requests == [], opened.requests  # nothing is fetched from the network


@pytest.fixture
def opened(tabs) -> Opened:
    return tabs()

