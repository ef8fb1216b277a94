"""Which writer a harness has: the one place that decides.

``process`` (the library's default): the writer process writes runs, so the host spends only
the pickling of each run's record (:mod:`.process`). ``thread``: a background thread of the
host (no process to start: the choice for one-shot commands; :mod:`.thread`). ``inline``:
the caller, as each run ends (:class:`.base.InlineWriter`).
"""

from __future__ import annotations

from opentelemetry import trace

from .. import config
from ..store import Store
from .base import InlineWriter, Writer
from .process import ProcessWriter
from .thread import ThreadWriter

#: Who writes finished runs, by name.
WRITERS: dict[str, type[Writer]] = {"process": ProcessWriter, "thread": ThreadWriter, "inline": InlineWriter}
#: What runs handed on but not yet written may hold in the host before it waits for the writer.
MAX_PENDING_BYTES = 64 << 20


def writer_kind(kind: str | None = None, default: str = "process") -> str:
    """The argument > ``$HARNESS_WRITER`` > ``default``; ValueError for an unknown name."""
    chosen = (config.value("HARNESS_WRITER", kind) or default).strip().lower()
    if chosen not in WRITERS:
        raise ValueError(f"writer must be one of {', '.join(WRITERS)}, not {chosen!r} (argument or $HARNESS_WRITER)")
    return chosen


def max_pending_bytes(value: int | None = None) -> int:
    """The argument > ``$HARNESS_MAX_PENDING_MB`` > 64 MB."""
    if value is not None:
        if value < 1:
            raise ValueError(f"max_pending_bytes must be at least 1, not {value}")
        return value
    raw = config.value("HARNESS_MAX_PENDING_MB")
    if not raw:
        return MAX_PENDING_BYTES
    try:
        megabytes = float(raw)
    except ValueError:
        raise ValueError(f"$HARNESS_MAX_PENDING_MB must be a number of megabytes, not {raw!r}") from None
    if not megabytes > 0:
        raise ValueError(f"$HARNESS_MAX_PENDING_MB must be more than 0, not {raw!r}")
    return int(megabytes * (1 << 20))


def make_writer(store: Store, kind: str | None = None, *, tracer_provider: trace.TracerProvider | None = None,
                max_pending: int | None = None) -> Writer:
    """The writer ``kind`` names (see :func:`writer_kind`) for ``store``; ValueError for a bad
    kind or bound."""
    return WRITERS[writer_kind(kind)](store, tracer_provider=tracer_provider,
                                      max_pending_bytes=max_pending_bytes(max_pending))
