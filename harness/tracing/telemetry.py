"""Where spans go: the application's global TracerProvider if it set one, else an OTLP/HTTP
exporter when ``OTEL_EXPORTER_OTLP_ENDPOINT`` is set, else nowhere (no spans are made)."""

from __future__ import annotations

import socket
import threading
from urllib.parse import urlsplit

from opentelemetry import trace
from opentelemetry.trace import ProxyTracerProvider, NoOpTracerProvider

from .. import config

INSTRUMENTATION_NAME = "harness"

_lock = threading.Lock()
_own_providers: dict[str, trace.TracerProvider] = {}


def _global_provider_set() -> bool:
    provider = trace.get_tracer_provider()
    return not isinstance(provider, (ProxyTracerProvider, NoOpTracerProvider))


def traces_url(endpoint: str) -> str:
    """The OTLP/HTTP traces URL of an ``OTEL_EXPORTER_OTLP_ENDPOINT`` (``/v1/traces`` appended)."""
    url = endpoint.rstrip("/")
    return url if url.endswith("/v1/traces") else url + "/v1/traces"


def unreachable(endpoint: str, timeout: float = 1.0) -> str | None:
    """Why nothing listens at an OTLP endpoint (one TCP connection attempt, at most
    ``timeout`` seconds), or None when something does. A one-shot command asks before its
    runs: an exporter facing a dead endpoint retries for seconds at exit."""
    try:
        url = urlsplit(endpoint)
        host, port = url.hostname, url.port or (443 if url.scheme == "https" else 80)
    except ValueError as exc:
        return f"not a URL ({exc})"
    if url.scheme not in ("http", "https") or not host:
        return "not an http:// or https:// URL"
    try:
        socket.create_connection((host, port), timeout=timeout).close()
    except OSError as exc:
        return exc.strerror or str(exc) or type(exc).__name__
    return None


def _otlp_provider(endpoint: str) -> trace.TracerProvider:
    with _lock:
        provider = _own_providers.get(endpoint)
        if provider is None:
            from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
            from opentelemetry.sdk.resources import Resource
            from opentelemetry.sdk.trace import TracerProvider
            from opentelemetry.sdk.trace.export import BatchSpanProcessor

            resource = Resource.create({"service.name": config.value("OTEL_SERVICE_NAME") or "harness"})
            provider = TracerProvider(resource=resource)
            provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter(endpoint=traces_url(endpoint))))
            _own_providers[endpoint] = provider
        return provider


def resolve_tracer(provider: trace.TracerProvider | None = None) -> trace.Tracer | None:
    """A tracer for the run's spans, or None when no spans should be made."""
    if provider is not None:
        return provider.get_tracer(INSTRUMENTATION_NAME)
    if _global_provider_set():
        return trace.get_tracer(INSTRUMENTATION_NAME)
    endpoint = otlp_endpoint()
    if endpoint:
        return _otlp_provider(endpoint).get_tracer(INSTRUMENTATION_NAME)
    return None


def span_destination(provider: trace.TracerProvider | None = None) -> str | None:
    """Where :func:`resolve_tracer` would send spans, cheaply (no tracer is made): ``"host"``
    for a provider of the application's, ``"otlp"`` for the harness's own OTLP exporter
    (which the writer process can run as well as the host), None for no spans."""
    if provider is not None or _global_provider_set():
        return "host"
    return "otlp" if otlp_endpoint() else None


def otlp_endpoint() -> str | None:
    """``$OTEL_EXPORTER_OTLP_ENDPOINT``: where the harness's own exporter sends spans."""
    return config.value("OTEL_EXPORTER_OTLP_ENDPOINT")


def otlp_tracer(endpoint: str) -> trace.Tracer:
    return _otlp_provider(endpoint).get_tracer(INSTRUMENTATION_NAME)


def flush_own_providers(timeout_ms: int = 5_000) -> None:
    for provider in list(_own_providers.values()):
        provider.force_flush(timeout_ms)  # type: ignore[attr-defined]
