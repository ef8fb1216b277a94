"""The CLI's :class:`~harness.Harness`."""

from __future__ import annotations

import os
import sys

from ._errors import UsageError


def open_harness(store: str | None):
    """A one-shot command writes its runs in a background thread (starting a writer process
    would cost it more than it saves), unless ``$HARNESS_WRITER`` says otherwise. An OTLP
    endpoint nothing listens at is reported once and left out for this command, instead of
    an exporter retrying it for seconds at exit."""
    from harness import Harness, StoreError
    from harness.tracing.telemetry import ENV_OTLP_ENDPOINT, span_destination, unreachable
    from harness.writers import ENV_WRITER

    endpoint = os.environ.get(ENV_OTLP_ENDPOINT)
    if endpoint and span_destination() == "otlp":
        reason = unreachable(endpoint)
        if reason is not None:
            print(f"harness: warning: {ENV_OTLP_ENDPOINT}={endpoint} cannot be reached ({reason}); "
                  "this command sends no spans", file=sys.stderr)
            del os.environ[ENV_OTLP_ENDPOINT]
    try:
        harness = Harness(store=store, writer=None if os.environ.get(ENV_WRITER) else "thread", strict=True)
    except (ValueError, StoreError) as exc:
        raise UsageError(str(exc)) from None
    _opened.append(harness)
    return harness


#: Harnesses the running command opened; the CLI closes them before it exits.
_opened: list = []


def close_opened() -> None:
    """Write every run and close each store the command opened (SQLite folds its write-ahead
    log into the .db file, so that file alone holds every row), whatever way it exits."""
    while _opened:
        _opened.pop().close()
