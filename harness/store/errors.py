"""What the store raises: a store it cannot use, a row it refuses, a run id it cannot resolve."""

from __future__ import annotations


class StoreError(RuntimeError):
    """The store could not be opened or written."""


class StoreUnavailable(StoreError):
    """The store cannot be used now (cannot be opened, read-only, full, locked, unreachable),
    as opposed to a row it refuses; a run that meets this is spooled (:mod:`.spool`)."""


#: A run or thread id given by its start needs this many characters (four hex digits: 1 in 65,536).
MIN_PREFIX = 4


class RunIdError(LookupError):
    """A run id that names no run, or a prefix that names none or several."""


class ThreadIdError(LookupError):
    """A thread id that names no thread, or a start of one that names none or several."""
class StoreBusy(StoreError):
    """What :meth:`Store.exclusive` was asked to hold is held by another process or task."""
