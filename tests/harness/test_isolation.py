"""Runs at once in threads and asyncio tasks never share rows; the host never notices failures."""

import asyncio
import sqlite3
from concurrent.futures import ThreadPoolExecutor


from harness import Harness

from . import graphs

# Columns that differ between two executions of the same run: identities and clocks.
VOLATILE = {
    "run_id", "row_key", "timestamp", "started_at", "completed_at", "total_time_ms", "duration_ms",
    "execution_time_ms", "time_to_first_token_ms", "event_id", "parent_event_id", "llm_call_id",
    "tool_call_id", "parent_tool_id", "checkpoint_ns", "trace_id", "span_id", "parent_span_id", "written_rows",
}


def normalised(harness, run_id):
    out = {}
    for name, frame in harness.sheets([run_id]).items():
        rows = frame.drop(columns=[c for c in frame.columns if c in VOLATILE]).to_dict("records")
        out[name] = sorted(tuple(sorted((k, repr(v)) for k, v in r.items())) for r in rows)
    return out


def run_sync(harness, subject):
    with harness.run(subject=subject, workflow="seq") as run:
        graphs.sequential().invoke({"question": subject}, run.config)
    return run.run_id


async def run_async(harness, subject):
    async with harness.run(subject=subject, workflow="async") as run:
        await graphs.async_graph().ainvoke({"log": []}, run.config)
    return run.run_id


def test_32_concurrent_runs_in_threads_and_tasks_equal_the_same_runs_done_alone(tmp_path):
    harness = Harness(store=tmp_path / "runs.db")
    alone_sync = normalised(harness, run_sync(harness, "sync"))
    alone_async = normalised(harness, asyncio.run(run_async(harness, "async")))

    async def tasks():
        return await asyncio.gather(*(run_async(harness, "async") for _ in range(16)))

    with ThreadPoolExecutor(max_workers=8) as pool:
        sync_futures = [pool.submit(run_sync, harness, "sync") for _ in range(16)]
        async_ids = asyncio.run(tasks())
        sync_ids = [f.result() for f in sync_futures]

    assert len(set(sync_ids + async_ids)) == 32
    for run_id in sync_ids:
        assert normalised(harness, run_id) == alone_sync
    for run_id in async_ids:
        assert normalised(harness, run_id) == alone_async


def test_graph_output_is_identical_with_and_without_the_harness_while_the_store_fails(tmp_path):
    bare = graphs.sequential().invoke({"question": "q"})
    harness = Harness(store=tmp_path / "runs.db")
    with sqlite3.connect(tmp_path / "runs.db") as conn:  # break the store under the harness
        for table in ("runs", "langgraph_events", "llm_calls", "tool_calls", "prompts", "log_tests"):
            conn.execute(f'CREATE TRIGGER "break_{table}" BEFORE INSERT ON "{table}" '
                         "BEGIN SELECT RAISE(ABORT, 'disk on fire'); END")
    with harness.run(subject="q") as run:
        traced = graphs.sequential().invoke({"question": "q"}, run.config)
    harness.flush()
    assert traced == bare
    assert run.status == "completed" and harness.errors > 0


def test_a_payload_that_cannot_be_serialised_loses_nothing_but_its_form(tmp_path):
    class Opaque:
        def __repr__(self):
            return "<opaque>"

    def node(state):
        return {"log": [Opaque()]}

    harness = Harness(store=tmp_path / "runs.db")
    with harness.run() as run:
        out = graphs.single_node(node).invoke({"log": []}, run.config)
    assert isinstance(out["log"][0], Opaque)
    ends = harness.sheets([run.run_id])["langgraph_events"]
    assert ends[ends.event_type == "on_chain_end"].output_preview.str.contains("opaque").any()


def test_a_failing_callback_is_counted_and_does_not_reach_the_graph(tmp_path):
    harness = Harness(store=tmp_path / "runs.db")
    with harness.run() as run:
        run.handler.log = None  # every hook now fails inside the handler
        out = graphs.sequential().invoke({"question": "q"}, run.config)
    harness.flush()
    assert out["log"] == ["plan", "act", "answer"]
    assert run.handler.failures > 0


def test_the_callback_log_of_a_run_is_bounded(tmp_path):
    harness = Harness(store=tmp_path / "runs.db")
    with harness.run() as run:
        run.handler.max_entries = 3
        graphs.sequential().invoke({"question": "q"}, run.config)
    assert run.handler.dropped > 0
    assert len(harness.sheets([run.run_id])["langgraph_events"]) <= 6
