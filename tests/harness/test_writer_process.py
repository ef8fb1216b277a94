"""The writer process: rows it writes equal rows written in the host, and nothing is lost
when it cannot help (it dies, it cannot read a record, it is turned off)."""

import dataclasses
import os
import signal
import sys
import threading
import time

import pytest
from langchain_core.tools import tool

from harness import REDACTED, Harness, Store
from harness.tracing.frozen import MAX_FROZEN_BYTES
from harness.writers import ProcessWriter
from harness.writers import process as _writer_process

from . import graphs
from .test_isolation import normalised


@pytest.fixture
def own_writer_process(monkeypatch):
    """A writer process of the test's own (the session's shared one is left alone)."""
    monkeypatch.setattr(_writer_process, "_current", None)
    monkeypatch.setattr(_writer_process, "_starts", 0)
    yield
    process = _writer_process._current
    if process is not None:
        process.close()


@dataclasses.dataclass
class Finding:
    """An application type: the writer process may not be able to import it."""

    label: str
    score: float


def run_with_payload(harness, payload, subject="payload"):
    def node(state, config):
        graphs.lookup.invoke({"query": "facts"}, config)
        return {"log": [payload]}

    with harness.run(subject=subject) as run:
        graphs.single_node(node).invoke({"log": []}, run.config)
    return run.run_id


def test_a_run_is_written_by_a_second_process_and_readable_from_any_connection(tmp_path, own_writer_process):
    harness = Harness(store=tmp_path / "runs.db")
    with harness.run(subject="acme") as run:
        graphs.sequential().invoke({"question": "q"}, run.config)
    process = _writer_process.writer_process()
    assert process is not None and process._proc.pid != os.getpid()
    harness.flush()
    assert harness.errors == 0
    assert Store(tmp_path / "runs.db").count("langgraph_events", run.run_id) == 14
    assert list(harness.sheets([run.run_id])["log_tests"].verification_status) == ["pass"]


def test_rows_from_the_writer_process_equal_rows_written_in_the_host(tmp_path, own_writer_process, monkeypatch):
    payload = Finding("liquidity", 0.5)
    by_process = Harness(store=tmp_path / "process.db")
    process_run = run_with_payload(by_process, payload)
    monkeypatch.setenv("HARNESS_WRITER", "thread")
    by_thread = Harness(store=tmp_path / "thread.db")
    thread_run = run_with_payload(by_thread, payload)
    assert not isinstance(by_thread._writer, ProcessWriter) and by_process._writer.sent_to
    assert normalised(by_process, process_run) == normalised(by_thread, thread_run)
    events = by_process.sheets([process_run])["langgraph_events"]
    assert events.output_preview.str.contains('"label":"liquidity"').any()  # the type's JSON form


def test_a_record_the_writer_process_cannot_read_is_written_in_the_host(tmp_path, own_writer_process):
    unreadable = type("Unreadable", (), {"__module__": "harness.not_a_module", "__repr__": lambda self: "<u>"})
    harness = Harness(store=tmp_path / "runs.db")
    run_id = run_with_payload(harness, unreadable())
    harness.flush()
    assert harness.errors == 0
    assert harness.store.count("tool_calls", run_id) == 1
    assert harness.store.count("runs", run_id) == 1


def test_runs_outstanding_when_the_writer_process_dies_are_written_in_the_host_exactly_once(
        tmp_path, own_writer_process):
    harness = Harness(store=tmp_path / "runs.db")
    first = run_with_payload(harness, "before")
    harness.flush()
    process = _writer_process.writer_process()
    os.kill(process._proc.pid, signal.SIGKILL)
    process._proc.wait()
    after = [run_with_payload(harness, f"after {i}") for i in range(5)]
    harness.flush()
    for run_id in [first, *after]:
        assert harness.store.count("runs", run_id) == 1
        assert harness.store.count("langgraph_events", run_id) == 6
    replacement = _writer_process.writer_process()
    assert replacement is not None and replacement is not process and replacement.alive


def test_with_harness_writer_thread_no_writer_process_is_started(tmp_path, own_writer_process, monkeypatch):
    monkeypatch.setenv("HARNESS_WRITER", "thread")
    harness = Harness(store=tmp_path / "runs.db")
    run_id = run_with_payload(harness, "x")
    assert _writer_process._current is None and not isinstance(harness._writer, ProcessWriter)
    assert harness.sheets([run_id])["runs"].shape[0] == 1


def test_a_secret_put_in_the_environment_after_the_writer_process_started_is_redacted(
        tmp_path, own_writer_process, monkeypatch):
    harness = Harness(store=tmp_path / "runs.db")
    run_with_payload(harness, "warm-up")  # the writer process is running from here on
    monkeypatch.setenv("LATE_SERVICE_TOKEN", "late-s3cr3t-value")
    run_id = run_with_payload(harness, "use late-s3cr3t-value", subject="late-s3cr3t-value")
    dump = "".join(frame.to_json(date_format="iso") for frame in harness.sheets([run_id]).values())
    assert REDACTED in dump and "late-s3cr3t-value" not in dump


def test_an_application_module_named_like_the_standard_library_does_not_reach_the_writer_process(
        tmp_path, own_writer_process, monkeypatch):
    project = tmp_path / "project"
    project.mkdir()
    (project / "queue.py").write_text("raise ImportError('the application queue, not the standard one')\n")
    monkeypatch.syspath_prepend(str(project))
    harness = Harness(store=tmp_path / "runs.db")
    run_id = run_with_payload(harness, "x")
    harness.flush()
    process = _writer_process.writer_process()
    assert process is not None and process.alive and process in harness._writer.sent_to
    assert harness.store.count("runs", run_id) == 1


@pytest.mark.skipif(not hasattr(os, "fork"), reason="a forked host needs fork")
def test_a_forked_host_gets_its_own_writer_process_and_the_parent_keeps_its_own(tmp_path, own_writer_process):
    harness = Harness(store=tmp_path / "runs.db")
    run_with_payload(harness, "parent")
    harness.flush()
    parent_process = _writer_process.writer_process()
    pid = os.fork()
    if pid == 0:  # the forked host: its run goes through a writer process of its own
        code = 1
        try:
            run_id = run_with_payload(harness, "child")
            harness.flush()
            own = _writer_process.writer_process()
            if own is not parent_process and own.owner_pid == os.getpid():
                code = 0 if Store(tmp_path / "runs.db").count("runs", run_id) == 1 else 3
            else:
                code = 2
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    after = run_with_payload(harness, "parent again")
    harness.flush()
    assert _writer_process.writer_process() is parent_process and parent_process.alive
    assert harness.store.count("runs", after) == 1 and harness.store.count("runs") == 3


def test_a_program_that_is_not_a_writer_process_is_refused_and_the_runs_are_written_here(
        tmp_path, own_writer_process, monkeypatch, caplog):
    echo = "import shutil, sys; shutil.copyfileobj(sys.stdin.buffer, sys.stdout.buffer, 1)"
    monkeypatch.setattr(_writer_process, "_command", lambda: [sys.executable, "-u", "-c", echo])
    harness = Harness(store=tmp_path / "runs.db")
    run_ids = [run_with_payload(harness, f"run {i}") for i in range(3)]
    harness.flush()
    assert not _writer_process._current.alive
    assert "greeting" in caplog.text
    for run_id in run_ids:
        assert harness.store.count("runs", run_id) == 1
        assert harness.store.count("langgraph_events", run_id) == 6


def test_a_silent_program_is_given_up_on_after_the_start_timeout(tmp_path, own_writer_process, monkeypatch, caplog):
    monkeypatch.setattr(_writer_process, "_command", lambda: [sys.executable, "-c", "import time; time.sleep(60)"])
    monkeypatch.setattr(_writer_process, "START_SECONDS", 0.5)
    harness = Harness(store=tmp_path / "runs.db")
    run_id = run_with_payload(harness, "x")
    harness.flush()
    assert "did not start" in caplog.text
    assert harness.store.count("runs", run_id) == 1


def test_a_frozen_application_writes_its_runs_in_a_thread(tmp_path, own_writer_process, monkeypatch):
    monkeypatch.setattr(sys, "frozen", True, raising=False)  # its executable is the application itself
    harness = Harness(store=tmp_path / "runs.db")
    run_id = run_with_payload(harness, "x")
    assert _writer_process._current is None
    assert harness.sheets([run_id])["runs"].shape[0] == 1


def test_a_run_larger_than_the_pipe_reaches_the_store_without_a_flush(tmp_path, own_writer_process):
    harness = Harness(store=tmp_path / "runs.db")
    run_id = run_with_payload(harness, "x" * 3_000_000)  # the pipe takes 1 MiB at most
    reader = Store(tmp_path / "runs.db")
    deadline = time.monotonic() + 30
    while reader.count("runs", run_id) == 0 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert reader.count("runs", run_id) == 1
    assert reader.count("langgraph_events", run_id) == 6


def test_spans_bound_for_otlp_are_made_and_exported_by_the_writer_process(tmp_path, own_writer_process, monkeypatch):
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
    from opentelemetry.sdk.trace import TracerProvider

    from harness.tracing import telemetry as _telemetry
    from tests.support.loopback import serving

    from .test_spans import _OTLPReceiver

    monkeypatch.setattr(_telemetry, "_global_provider_set", lambda: False)  # whatever other tests set
    monkeypatch.setattr(_telemetry, "_own_providers", {})
    _OTLPReceiver.received = []
    with serving(_OTLPReceiver) as url:
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", url)
        harness = Harness(store=tmp_path / "runs.db")
        request_tracer = TracerProvider().get_tracer("app")  # the application's, not global
        with request_tracer.start_as_current_span("request") as request:
            with harness.run(workflow="otlp-by-writer") as run:
                graphs.sequential().invoke({"question": "q"}, run.config)
        harness.flush()  # returns once the writer process has exported the spans
        received = list(_OTLPReceiver.received)
    assert _telemetry._own_providers == {}  # the host made no exporter, and no span
    spans = [s for _, body in received for rs in ExportTraceServiceRequest.FromString(body).resource_spans
             for ss in rs.scope_spans for s in ss.spans]
    names = {s.name for s in spans}
    assert "invoke_workflow otlp-by-writer" in names and "execute_tool lookup" in names
    root = next(s for s in spans if s.name == "invoke_workflow otlp-by-writer")
    runs = harness.sheets([run.run_id])["runs"]
    assert runs.iloc[0].trace_id == root.trace_id.hex() and runs.iloc[0].span_id == root.span_id.hex()
    outer = request.get_span_context()  # the run's root span nests under the application's
    assert root.trace_id == outer.trace_id.to_bytes(16, "big") and root.parent_span_id == outer.span_id.to_bytes(8, "big")


def _rss_bytes():
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="reads the host's RSS from /proc")
def test_runs_not_yet_written_hold_at_most_the_pending_bound(tmp_path, own_writer_process):
    limit = 6 << 20
    harness = Harness(store=tmp_path / "runs.db", max_pending_bytes=limit)
    report = "r" * 600_000

    @tool
    def fetch_report(query: str) -> str:
        """A long report: a tool's output is kept whole in tool_calls."""
        return report

    def node(state, config):
        fetch_report.invoke({"query": "facts"}, config)
        return {"log": [report]}  # a node's output: rows keep a preview of it

    graph = graphs.single_node(node)
    state = {"log": [], "question": "x" * 1_000_000}  # a 1 MB state every step sees
    with harness.run() as run:  # the writer process is started, then stopped
        graph.invoke(state, run.config)
    harness.flush()
    process = _writer_process.writer_process()
    os.kill(process._proc.pid, signal.SIGSTOP)
    threading.Timer(1.0, os.kill, (process._proc.pid, signal.SIGCONT)).start()
    before, pending, rss = _rss_bytes(), [], []
    for _ in range(200):
        with harness.run() as run:
            graph.invoke(state, run.config)
        pending.append(process.pending_bytes)
        rss.append(_rss_bytes() - before)
    harness.flush()
    # the largest a single run's record gets here: the report, and the graph's input and
    # output (runs.inputs, runs.outputs), each held whole up to a frozen megabyte
    record = len(report) + 2 * MAX_FROZEN_BYTES + (256 << 10)
    assert limit - record <= max(pending) <= limit + record  # filled up to the bound, never past it
    # bounded, whatever the allocator keeps of the records' copies (each carries 2-3 MB here)
    assert max(rss) < 5 * limit
    assert harness.store.count("runs") == 201 and harness.errors == 0


def test_the_thread_writer_holds_at_most_the_pending_bound_too(tmp_path):
    limit = 1 << 20
    harness = Harness(store=tmp_path / "runs.db", writer="thread", max_pending_bytes=limit)
    background = harness._writer.background
    release = threading.Event()
    background.submit(release.wait)  # the writer is busy until released
    query = "q" * 200_000  # a tool's input, kept whole: each run holds about this much

    def node(state, config):
        graphs.lookup.invoke({"query": query}, config)
        return {"log": ["looked up"]}

    graph, done = graphs.single_node(node), []

    def runs():
        for _ in range(20):
            with harness.run() as run:
                graph.invoke({"log": []}, run.config)
            done.append(run.run_id)

    runner = threading.Thread(target=runs, daemon=True)
    runner.start()
    try:
        deadline, seen = time.monotonic() + 20, -1
        while len(done) != seen and time.monotonic() < deadline:  # until the runner waits for room
            seen = len(done)
            time.sleep(0.3)
        assert runner.is_alive() and 0 < len(done) < 20
        assert background.pending_bytes <= limit + 2 * len(query)
    finally:
        release.set()
    runner.join(30)
    harness.flush()
    assert [harness.store.count("runs", run_id) for run_id in done] == [1] * 20


def test_a_flush_waiting_for_the_writer_process_does_not_hold_back_runs_being_sent(tmp_path, own_writer_process):
    # An experiment that scores as it goes flushes once a batch: its graphs go on meanwhile.
    harness = Harness(store=tmp_path / "runs.db")
    graph = graphs.single_node(lambda state, config: {"log": ["done"]})
    with harness.run() as run:  # the writer process is started
        graph.invoke({"log": []}, run.config)
    harness.flush()
    process = _writer_process.writer_process()
    os.kill(process._proc.pid, signal.SIGSTOP)  # it answers nothing until resumed (5 s)
    resume = threading.Timer(5.0, os.kill, (process._proc.pid, signal.SIGCONT))
    resume.start()
    flushed = threading.Event()
    waiting = threading.Thread(target=lambda: (harness.flush(), flushed.set()))
    waiting.start()
    time.sleep(0.3)
    assert not flushed.is_set()  # the flush waits for the stopped process...
    started = time.monotonic()
    for _ in range(5):  # ...while runs are still sent to it, at once
        with harness.run() as run:
            graph.invoke({"log": []}, run.config)
    sent_in = time.monotonic() - started
    still_waiting = not flushed.is_set()
    resume.join()
    assert sent_in < 2.0 and still_waiting
    waiting.join(30)
    assert flushed.is_set()
    harness.flush()
    assert harness.store.count("runs") == 6 and harness.errors == 0
