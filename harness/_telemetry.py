"""Where spans go: the application's global TracerProvider if it set one, else an OTLP/HTTP
exporter when ``OTEL_EXPORTER_OTLP_ENDPOINT`` is set, else nowhere (no spans are made)."""

from __future__ import annotations

import os
import threading

from opentelemetry import trace
from opentelemetry.trace import ProxyTracerProvider, NoOpTracerProvider

ENV_OTLP_ENDPOINT = "OTEL_EXPORTER_OTLP_ENDPOINT"
ENV_SERVICE_NAME = "OTEL_SERVICE_NAME"
INSTRUMENTATION_NAME = "harness"

_lock = threading.Lock()
_own_providers: dict[str, trace.TracerProvider] = {}


def _global_provider_set() -> bool:
    provider = trace.get_tracer_provider()
    return not isinstance(provider, (ProxyTracerProvider, NoOpTracerProvider))


def _otlp_provider(endpoint: str) -> trace.TracerProvider:
    with _lock:
        provider = _own_providers.get(endpoint)
        if provider is None:
            from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
            from opentelemetry.sdk.resources import Resource
            from opentelemetry.sdk.trace import TracerProvider
            from opentelemetry.sdk.trace.export import BatchSpanProcessor

            resource = Resource.create({"service.name": os.environ.get(ENV_SERVICE_NAME, "harness")})
            provider = TracerProvider(resource=resource)
            url = endpoint.rstrip("/")
            if not url.endswith("/v1/traces"):
                url += "/v1/traces"
            provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter(endpoint=url)))
            _own_providers[endpoint] = provider
        return provider


def resolve_tracer(provider: trace.TracerProvider | None = None) -> trace.Tracer | None:
    """A tracer for the run's spans, or None when no spans should be made."""
    if provider is not None:
        return provider.get_tracer(INSTRUMENTATION_NAME)
    if _global_provider_set():
        return trace.get_tracer(INSTRUMENTATION_NAME)
    endpoint = os.environ.get(ENV_OTLP_ENDPOINT)
    if endpoint:
        return _otlp_provider(endpoint).get_tracer(INSTRUMENTATION_NAME)
    return None


def tracing_enabled(provider: trace.TracerProvider | None = None) -> bool:
    """Whether :func:`resolve_tracer` would give a tracer (cheap: made no tracer)."""
    return provider is not None or _global_provider_set() or bool(os.environ.get(ENV_OTLP_ENDPOINT))


def flush_own_providers(timeout_ms: int = 5_000) -> None:
    for provider in list(_own_providers.values()):
        provider.force_flush(timeout_ms)  # type: ignore[attr-defined]
