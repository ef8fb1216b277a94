"""Lengths of time as people type them (``30s``, ``15m``, ``1h``, ``7d``, ``2w``), and
``--since`` as an age back from now or an ISO 8601 date or time (UTC unless it names its zone),
read as ``harness rescore --since`` reads it."""

from __future__ import annotations

import datetime as dt
import re

_LENGTH = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(s|sec|m|min|h|d|w)\s*$", re.IGNORECASE)
_SECONDS = {"s": 1, "sec": 1, "m": 60, "min": 60, "h": 3600, "d": 86400, "w": 604800}


def seconds_of(text: str | float | int, option: str = "--per") -> float:
    """``text`` (``90s``, ``15m``, ``1h``, ``1d``, ``1w``, or a number of seconds) in seconds;
    ValueError naming ``option`` otherwise (or for a length of 0)."""
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        value = float(text)
    else:
        found = _LENGTH.match(str(text))
        if found is None:
            raise ValueError(f"{option} is a length of time such as 30s, 15m, 1h, 1d or 1w, not {text!r}")
        value = float(found.group(1)) * _SECONDS[found.group(2).lower()]
    if not value > 0:
        raise ValueError(f"{option} must be longer than 0, not {text!r}")
    return value


def since_iso(text: str | None, *, now: dt.datetime | None = None, option: str = "--since") -> str | None:
    """``--since`` as the ISO 8601 UTC text runs' ``started_at`` is compared with: an age back
    from now (``30m``, ``12h``, ``7d``) or an ISO date or time, read as ``harness rescore
    --since`` reads it (:func:`harness.experiment.selection.parse_since`); ValueError otherwise."""
    from ..experiment.errors import ExperimentError
    from ..experiment.selection import parse_since

    if text is None:
        return None
    try:
        moment = parse_since(text, now=now)
    except ExperimentError as exc:
        raise ValueError(str(exc).replace("--since", option)) from None
    assert moment is not None
    return moment.astimezone(dt.timezone.utc).isoformat(timespec="microseconds")


def spoken(seconds: float) -> str:
    """A length of time as it would be typed: ``1h``, ``15m``, ``90s``."""
    for unit, size in (("w", 604800), ("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size and seconds % size == 0:
            return f"{int(seconds // size)}{unit}"
    return f"{seconds:g}s"
