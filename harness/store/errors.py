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


def one_named(given: str, found: list[str], error: type[LookupError], *, kind: str, start: str,
              missing: str) -> str:
    """The id ``given`` names among ``found`` (the ids starting with it, a few are enough):
    itself, or the one id it is a unique start of at least :data:`MIN_PREFIX` characters;
    ``error`` with one line otherwise (``missing``: what to say when none starts with it)."""
    if given in found:
        return given
    if not found:
        raise error(missing)
    if len(given) < MIN_PREFIX:
        raise error(f"{kind} id {start} {given!r} is too short: give at least {MIN_PREFIX} characters")
    if len(found) > 1:
        raise error(f"{kind} id {start} {given!r} is ambiguous: {found[0]}, {found[1]}"
                    f"{', ...' if len(found) > 2 else ''} start with it; give more characters")
    return found[0]


class StoreBusy(StoreError):
    """What :meth:`Store.exclusive` was asked to hold is held by another process or task."""
