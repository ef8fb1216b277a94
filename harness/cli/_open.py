"""The CLI's :class:`~harness.Harness`."""

from __future__ import annotations

import os

from ._errors import UsageError


def open_harness(store: str | None):
    """A one-shot command writes its runs in a background thread (starting a writer process
    would cost it more than it saves), unless ``$HARNESS_WRITER`` says otherwise."""
    from harness import Harness, StoreError
    from harness.writers import ENV_WRITER

    try:
        return Harness(store=store, writer=None if os.environ.get(ENV_WRITER) else "thread", strict=True)
    except (ValueError, StoreError) as exc:
        raise UsageError(str(exc)) from None
