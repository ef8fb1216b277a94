"""No run is lost to its size: a payload larger than a cell keeps its beginning, cut with the
marker giving its length, redacted over what is kept and the cut's margin; a run whose rows
cannot be built is still stored; the redactor's memory does not grow with what it scans."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import tracemalloc

import pytest
from langchain_core.messages import HumanMessage, ToolMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import tool

from harness import REDACTED, Harness, Redactor
from harness.tracing import record as record_module
from harness.tracing.encode import STORED_CHARS
from tests.support.secrets import OPENAI_KEY

from . import graphs

BIG = 3 * STORED_CHARS  # a payload three cells long


@pytest.fixture
def inline(tmp_path):
    harness = Harness(store=tmp_path / "runs.db", writer="inline")
    yield harness
    harness.close()


def _trace(harness: Harness, node) -> str:
    with harness.run(subject="large", workflow="large") as run:
        graphs.single_node(node).invoke({"log": []}, run.config)
    harness.flush()
    return run.run_id


def _cells(harness: Harness, run_id: str, sheet: str) -> list[dict]:
    return harness.store.rows(sheet, [run_id], decode_json=False)


@tool
def download(url: str) -> str:
    """Download a file (three cells of it)."""
    return "." * (STORED_CHARS - 20) + OPENAI_KEY + "." * (BIG - STORED_CHARS)


@tool
def download_message(url: str) -> str:
    """Download a file, answered as a tool message (as ToolNode answers)."""
    return "x" * BIG


@pytest.mark.parametrize("writer", ["inline", "process"])
def test_a_tool_output_longer_than_a_cell_is_stored_cut_with_its_length_and_no_secret_at_the_cut(tmp_path, writer):
    harness = Harness(store=tmp_path / "runs.db", writer=writer)

    def node(state: dict, config: RunnableConfig) -> dict:
        download.invoke({"url": "u"}, config)
        return {"log": ["downloaded"]}

    run_id = _trace(harness, node)
    [call] = _cells(harness, run_id, "tool_calls")
    harness.close()
    out = call["tool_output"]
    assert len(out) <= STORED_CHARS and out.endswith(f"…[truncated, {BIG - 20 + len(OPENAI_KEY)} chars]")
    assert OPENAI_KEY[:12] not in out and OPENAI_KEY[-12:] not in out


def test_a_tool_message_longer_than_a_cell_keeps_its_status_and_the_beginning_of_its_content(inline):
    def node(state: dict, config: RunnableConfig) -> dict:
        message = download_message.invoke({"type": "tool_call", "id": "call_1", "name": "download_message",
                                           "args": {"url": "u"}}, config)
        assert isinstance(message, ToolMessage)
        return {"log": ["downloaded"]}

    run_id = _trace(inline, node)
    [call] = _cells(inline, run_id, "tool_calls")
    assert call["status"] == "ok" and call["tool_output"].startswith("xxxx")
    assert len(call["tool_output"]) <= STORED_CHARS and call["tool_output"].endswith(f"[truncated, {BIG} chars]")


def test_a_prompt_and_a_response_longer_than_a_cell_are_cut(inline):
    model = graphs.fake_model("r" * BIG)

    def node(state: dict, config: RunnableConfig) -> dict:
        model.invoke([HumanMessage("p" * BIG)], config)
        return {"log": ["asked"]}

    run_id = _trace(inline, node)
    [call] = _cells(inline, run_id, "llm_calls")
    for column in ("prompt", "response"):
        assert len(call[column]) <= STORED_CHARS and "…[truncated, " in call[column], column
    assert call["total_tokens"] == 18  # the usage the model reported is kept with the cut message


def test_an_error_message_longer_than_a_cell_is_cut(inline):
    @tool
    def explode(url: str) -> str:
        """Fail, quoting a payload."""
        raise ValueError("e" * BIG)

    def node(state: dict, config: RunnableConfig) -> dict:
        explode.invoke({"url": "u"}, config)
        return {"log": ["never"]}

    with pytest.raises(ValueError):
        _trace(inline, node)
    inline.flush()
    [run] = inline.store.rows("runs", None)
    assert run["status"] == "failed" and len(run["error"]) <= STORED_CHARS and run["error"].endswith("+ chars]")


def test_a_run_whose_rows_cannot_be_built_is_stored_with_its_runs_row_and_the_error_counted(inline, monkeypatch):
    def fail(*args, **kwargs):
        raise MemoryError

    monkeypatch.setattr(record_module, "scrubbed_rows", fail)
    run_id = _trace(inline, lambda state: {"log": ["ran"]})
    [run] = _cells(inline, run_id, "runs")
    assert run["status"] == "completed" and run["harness_errors"] >= 1 and run["workflow"] == "large"


def test_the_scan_of_a_long_text_holds_a_bounded_memory():
    """A text full of needles (nearly every word one) costs the scan a chunk's worth, not the
    text's: the case-folded copy and the needles found are made a chunk at a time."""
    redact = Redactor(environ={})
    text = "the sk- and gsk_ or ghp_ xox hf_ pat " * 100_000  # 3.7 MB of needles, no secret
    tracemalloc.start()
    try:
        assert not redact.finds_any([text])
        _, scan_peak = tracemalloc.get_traced_memory()
        tracemalloc.reset_peak()
        assert redact(text) == text
        _, scrub_peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert scan_peak < 4_000_000 and scrub_peak < 4_000_000, (scan_peak, scrub_peak)  # 100 MB before


_CHILD = textwrap.dedent("""
    import json, sys
    from typing import TypedDict
    from langchain_core.tools import tool
    from langgraph.graph import END, START, StateGraph
    from harness import Harness

    SIZE = int(sys.argv[2])

    @tool
    def fetch(url: str) -> str:
        '''Fetch.'''
        return "x" * SIZE

    class State(TypedDict, total=False):
        size: int

    def node(state):
        return {"size": len(fetch.invoke({"url": "u"}))}

    graph = StateGraph(State)
    graph.add_node("fetch", node)
    graph.add_edge(START, "fetch")
    graph.add_edge("fetch", END)
    graph = graph.compile()

    def peak():
        return next(int(line.split()[1]) * 1024 for line in open("/proc/self/status") if line.startswith("VmHWM"))

    if sys.argv[3] == "bare":
        graph.invoke({})
    else:
        harness = Harness(store=sys.argv[1], writer="thread")
        with harness.run(subject="big") as run:
            graph.invoke({}, run.config)
        harness.close()
    print(json.dumps({"peak": peak()}))
""")


def test_a_payload_of_a_hundred_megabytes_costs_the_host_a_few_megabytes_beyond_the_graph(tmp_path):
    size = 100_000_000

    def peak(mode: str) -> int:
        done = subprocess.run([sys.executable, "-c", _CHILD, str(tmp_path / "runs.db"), str(size), mode],
                              capture_output=True, text=True, check=True, env={**os.environ, "HARNESS_WRITER": ""})
        return json.loads(done.stdout.strip().splitlines()[-1])["peak"]

    bare, traced = peak("bare"), peak("traced")
    assert traced - bare < 60_000_000, (bare, traced)
    import sqlite3

    with sqlite3.connect(tmp_path / "runs.db") as connection:
        [(length,)] = connection.execute("SELECT length(tool_output) FROM tool_calls").fetchall()
    assert length <= STORED_CHARS


@pytest.mark.parametrize("secret", [OPENAI_KEY, "password: hunter2-hunter2", "token=abcdef123456",
                                    "envsecret-0123456789"])
def test_a_secret_across_the_scans_chunks_is_found_and_redacted_wherever_it_falls(secret):
    from harness.secrets.redact import CHUNK_CHARS

    redact = Redactor(environ={"ACME_API_KEY": "envsecret-0123456789"})
    value = secret.split(":")[-1].split("=")[-1].strip()
    for offset in range(-len(secret) - 2, 3):
        text = "." * (CHUNK_CHARS + offset) + " " + secret + " " + "." * 200
        assert redact.finds_any([text]), offset
        assert value not in redact(text), offset
