"""Spans over OTLP/HTTP from the command line, as the README shows it for Phoenix and
Langfuse, and what an endpoint nothing listens at costs a one-shot command."""

from __future__ import annotations

import os
import socket
import subprocess
import time
from http.server import BaseHTTPRequestHandler

import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from tests.support.cli import harness_cli
from tests.support.loopback import serving


class Receiver(BaseHTTPRequestHandler):
    """An OTLP/HTTP trace receiver: keeps (path, headers, request) of every export."""

    received: list = []

    def do_POST(self):  # noqa: N802
        body = self.rfile.read(int(self.headers["Content-Length"]))
        headers = {k.lower(): v for k, v in self.headers.items()}
        type(self).received.append((self.path, headers, ExportTraceServiceRequest.FromString(body)))
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.end_headers()

    def log_message(self, *args):
        pass


def harness_run(tmp_path, env: dict[str, str]) -> tuple[subprocess.CompletedProcess, float]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    started = time.perf_counter()
    done = harness_cli("run", "Acme Corp", "--no-excel", "--store", str(tmp_path / "runs.db"), env={**clean, **env},
                       cwd=tmp_path)
    return done, time.perf_counter() - started


@pytest.mark.parametrize(("path", "headers"), [
    ("", {}),  # Phoenix: OTEL_EXPORTER_OTLP_ENDPOINT=http://localhost:6006
    ("/api/public/otel", {"OTEL_EXPORTER_OTLP_HEADERS": "Authorization=Basic cGstbGYtMTpzay1sZi0y,"
                                                        "x-langfuse-ingestion-version=4"}),  # Langfuse
])
def test_the_readme_example_sends_the_spans_of_a_run_to_an_otlp_endpoint(tmp_path, path, headers):
    Receiver.received = []
    with serving(Receiver) as url:
        done, _ = harness_run(tmp_path, {"OTEL_EXPORTER_OTLP_ENDPOINT": url + path,
                                         "OTEL_SERVICE_NAME": "credit-runs", **headers})
    assert done.returncode == 0, done.stderr
    assert Receiver.received and {p for p, _, _ in Receiver.received} == {path + "/v1/traces"}
    if headers:
        sent = Receiver.received[0][1]
        assert sent["authorization"] == "Basic cGstbGYtMTpzay1sZi0y" and sent["x-langfuse-ingestion-version"] == "4"
    names, services = set(), set()
    for _, _, request in Receiver.received:
        for rs in request.resource_spans:
            services |= {a.value.string_value for a in rs.resource.attributes if a.key == "service.name"}
            names |= {s.name for ss in rs.scope_spans for s in ss.spans}
    assert services == {"credit-runs"}
    assert "invoke_workflow credit_analysis" in names and "execute_tool sec_edgar" in names


def test_an_endpoint_nothing_listens_at_costs_one_warning_and_no_wait(tmp_path):
    with socket.socket() as probe:  # a port that was free a moment ago: nothing listens there
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    quiet, baseline = harness_run(tmp_path, {})
    done, elapsed = harness_run(tmp_path, {"OTEL_EXPORTER_OTLP_ENDPOINT": f"http://127.0.0.1:{port}"})
    assert quiet.returncode == done.returncode == 0
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "OTEL_EXPORTER_OTLP_ENDPOINT" in lines[0] and "cannot be reached" in lines[0]
    # the probe waits 1 s at most; the exporter's retries (about 6 s) are not paid (a margin for a busy machine)
    assert elapsed - baseline < 3.0
