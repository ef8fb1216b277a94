"""The run as OpenTelemetry spans: one tree, parented from the callback records."""

from http.server import BaseHTTPRequestHandler

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

from harness import Harness
from tests.support.loopback import serving

from . import graphs


@pytest.fixture
def exporter():
    return InMemorySpanExporter()


@pytest.fixture
def harness(tmp_path, exporter):
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return Harness(store=tmp_path / "runs.db", tracer_provider=provider)


def finished(harness, exporter):
    harness.flush()  # runs are written (and their spans emitted) by the background writer
    return exporter.get_finished_spans()


def tree(spans):
    by_id = {s.context.span_id: s for s in spans}
    return {s.name: (by_id[s.parent.span_id].name if s.parent and s.parent.span_id in by_id else None)
            for s in spans}


def test_one_root_span_per_run_with_nodes_llm_and_tool_spans_under_it(harness, exporter):
    with harness.run(subject="Acme", workflow="seq") as run:
        graphs.sequential().invoke({"question": "q"}, run.config)
    spans = finished(harness, exporter)
    assert len({s.context.trace_id for s in spans}) == 1
    parents = tree(spans)
    assert parents["invoke_workflow seq"] is None
    assert parents["plan"] == parents["act"] == parents["answer"] == "invoke_workflow seq"
    assert parents["execute_tool lookup"] == "act"
    llm = [s for s in spans if s.attributes["openinference.span.kind"] == "LLM"]
    names = {s.context.span_id: s.name for s in spans}
    assert sorted(names[s.parent.span_id] for s in llm) == ["answer", "plan"]
    attrs = llm[0].attributes
    assert attrs["gen_ai.operation.name"] == "chat"
    assert attrs["gen_ai.response.model"] == "llama-3.1-8b-instant"
    assert (attrs["gen_ai.usage.input_tokens"], attrs["gen_ai.usage.output_tokens"]) == (11, 7)
    tool = next(s for s in spans if s.name == "execute_tool lookup")
    assert tool.attributes["gen_ai.tool.name"] == "lookup" and tool.attributes["openinference.span.kind"] == "TOOL"


def test_functional_api_task_spans_sit_under_the_entrypoint_span(harness, exporter):
    with harness.run(subject="func", workflow="research") as run:
        graphs.functional().invoke("llamas", run.config)
    spans = finished(harness, exporter)
    parents = tree(spans)
    assert parents["research"] == "invoke_workflow research"
    assert parents["fetch"] == parents["digest"] == parents["summarise"] == "research"
    assert parents["split"] == "digest"
    names = {s.context.span_id: s.name for s in spans}
    tools = [names[s.parent.span_id] for s in spans if s.name == "execute_tool lookup"]
    assert sorted(tools) == ["fetch", "fetch", "left", "right"]


def test_span_times_come_from_the_records_and_nest(harness, exporter):
    with harness.run() as run:
        graphs.sequential().invoke({"question": "q"}, run.config)
    spans = {s.context.span_id: s for s in finished(harness, exporter)}
    for span in spans.values():
        if span.parent and span.parent.span_id in spans:
            parent = spans[span.parent.span_id]
            assert parent.start_time <= span.start_time <= span.end_time <= parent.end_time


def test_subgraph_and_parallel_spans_are_parented_to_their_enclosing_node(harness, exporter):
    with harness.run() as run:
        graphs.with_subgraph().invoke({"log": []}, run.config)
    parents = tree(finished(harness, exporter))
    assert parents["inner_a"] == parents["inner_b"] == "child"
    assert parents["execute_tool lookup"] == "inner_a"


def test_async_run_spans_nest_like_sync_ones(harness, exporter):
    import asyncio

    async def main():
        async with harness.run(workflow="a") as run:
            await graphs.async_graph().ainvoke({"log": []}, run.config)

    asyncio.run(main())
    parents = tree(finished(harness, exporter))
    assert parents["fetch"] == parents["think"] == "invoke_workflow a"
    assert parents["execute_tool lookup"] == "fetch"


def test_rows_carry_the_trace_and_span_ids_of_their_spans(harness, exporter):
    with harness.run() as run:
        graphs.sequential().invoke({"question": "q"}, run.config)
    spans = {format(s.context.span_id, "016x"): s for s in finished(harness, exporter)}
    f = harness.sheets([run.run_id])
    tool = f["tool_calls"].iloc[0]
    assert spans[tool.span_id].name == "execute_tool lookup"
    assert tool.trace_id == format(spans[tool.span_id].context.trace_id, "032x")
    root = f["runs"].iloc[0]
    assert spans[root.span_id].parent is None
    for row in f["llm_calls"].itertuples():
        assert spans[row.span_id].attributes["openinference.span.kind"] == "LLM"


def test_errors_mark_spans_but_interrupts_do_not(harness, exporter):
    with pytest.raises(RuntimeError):
        with harness.run(workflow="boom") as run:
            graphs.single_node(lambda s: (_ for _ in ()).throw(RuntimeError("x"))).invoke({"log": []}, run.config)
    statuses = {s.name: s.status.status_code for s in finished(harness, exporter)}
    assert statuses["only"] == StatusCode.ERROR
    exporter.clear()
    with harness.run(workflow="hitl", config={"configurable": {"thread_id": "1"}}) as run:
        graphs.interrupting().invoke({"log": []}, run.config)
    spans = {s.name: s for s in finished(harness, exporter)}
    assert spans["ask"].status.status_code != StatusCode.ERROR and spans["ask"].attributes["harness.interrupted"]


def test_a_failed_spans_exception_event_carries_its_traceback(harness, exporter):
    def exploding(state):
        raise RuntimeError("node exploded")

    with pytest.raises(RuntimeError):
        with harness.run(workflow="boom") as run:
            graphs.single_node(exploding).invoke({"log": []}, run.config)
    (event,) = {s.name: s for s in finished(harness, exporter)}["only"].events
    assert event.name == "exception" and event.attributes["exception.type"] == "RuntimeError"
    assert ", in exploding\n" in event.attributes["exception.stacktrace"]


def test_the_applications_active_span_becomes_the_runs_parent(harness, exporter):
    tracer = harness.tracer_provider.get_tracer("app")
    with tracer.start_as_current_span("request"):
        with harness.run(workflow="w") as run:
            graphs.fan_out().invoke({"log": []}, run.config)
    parents = tree(finished(harness, exporter))
    assert parents["invoke_workflow w"] == "request"


class _OTLPReceiver(BaseHTTPRequestHandler):
    received: list = []

    def do_POST(self):  # noqa: N802
        body = self.rfile.read(int(self.headers["Content-Length"]))
        type(self).received.append((self.path, body))
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.end_headers()

    def log_message(self, *args):
        pass


def test_spans_are_exported_over_otlp_http_when_the_endpoint_is_set(tmp_path, monkeypatch):
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

    from harness.tracing.telemetry import flush_own_providers

    with serving(_OTLPReceiver) as url:
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", url)
        h = Harness(store=tmp_path / "runs.db")
        with h.run(workflow="otlp") as run:
            graphs.sequential().invoke({"question": "q"}, run.config)
        h.flush()
        flush_own_providers()
    names = []
    for path, body in _OTLPReceiver.received:
        assert path == "/v1/traces"
        request = ExportTraceServiceRequest.FromString(body)
        for rs in request.resource_spans:
            for ss in rs.scope_spans:
                names += [s.name for s in ss.spans]
    assert "invoke_workflow otlp" in names and "execute_tool lookup" in names
    assert h.sheets([run.run_id])["runs"].iloc[0].trace_id
