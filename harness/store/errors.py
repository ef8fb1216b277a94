"""What the store raises: a store it cannot use, a row it refuses."""

from __future__ import annotations


class StoreError(RuntimeError):
    """The store could not be opened or written."""


class StoreUnavailable(StoreError):
    """The store cannot be used now (cannot be opened, read-only, full, locked, unreachable),
    as opposed to a row it refuses; a run that meets this is spooled (:mod:`.spool`)."""


class StoreBusy(StoreError):
    """What :meth:`Store.exclusive` was asked to hold is held by another process or task."""
