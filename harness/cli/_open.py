"""The CLI's :class:`~harness.Harness` and store, and run ids as the user types them."""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import TYPE_CHECKING

from ._errors import UsageError

if TYPE_CHECKING:
    from harness.store import Store


def open_harness(store: str | None):
    """A one-shot command writes its runs in a background thread (starting a writer process
    would cost it more than it saves), unless ``$HARNESS_WRITER`` says otherwise."""
    from harness import Harness, StoreError
    from harness.writers import ENV_WRITER

    try:
        return Harness(store=store, writer=None if os.environ.get(ENV_WRITER) else "thread")
    except (ValueError, StoreError) as exc:
        raise UsageError(str(exc)) from None


def open_store(url: str | None) -> Store:
    """An existing store, for commands that read it (none of them creates one by mistake)."""
    from harness.store import Store, StoreError, resolve_store_path

    try:
        path = resolve_store_path(url)
        if not path.is_file():
            raise UsageError(f"no store at {str(path)!r} (use --store or $HARNESS_STORE)")
        return Store(path)
    except StoreError as exc:
        raise UsageError(str(exc)) from None


def run_ids(store: Store, given: Iterable[str]) -> list[str]:
    """The runs ``given`` names, each a full id or a unique start of one (at least four
    characters); an unknown or ambiguous one is a usage error."""
    from harness.view import RunIdError, resolve_run_ids

    try:
        return resolve_run_ids(store, given)
    except RunIdError as exc:
        raise UsageError(str(exc)) from None
