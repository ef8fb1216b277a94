"""A scoring worker's counts, per scorer, that add up exactly.

Every run a worker meets for a scorer is *seen* once; it is either outside the sample or
*sampled*; a sampled run is *scored*, *errored* (a score could not be made: its error is
stored), *skipped by budget*, *returned* (handed back unscored when the worker stopped: the
next worker scores it) or still *in flight*. So, at every moment::

    seen    = not sampled + sampled
    sampled = scored + errored + skipped by budget + returned + in flight

and when a worker has stopped nothing is in flight. A run another worker already scored with
the same scorer version is not seen again; one a ``rescore`` scored is counted scored.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from typing import Any

from ..store.claims import ScorerKey

#: How each sampled outcome is named in the counts.
OUTCOMES = ("scored", "errored", "budget", "returned")


@dataclass
class Tally:
    """One scorer's counts (see the module doc)."""

    seen: int = 0
    sampled: int = 0
    scored: int = 0
    errored: int = 0
    budget: int = 0
    returned: int = 0
    in_flight: int = 0

    @property
    def not_sampled(self) -> int:
        return self.seen - self.sampled

    def adds_up(self) -> bool:
        return (self.seen == self.not_sampled + self.sampled and self.not_sampled >= 0
                and self.sampled == self.scored + self.errored + self.budget + self.returned + self.in_flight)

    def line(self) -> str:
        rate = f" ({self.sampled / self.seen:.1%})" if self.seen else ""
        return (f"seen {self.seen:,} · sampled {self.sampled:,}{rate} · scored {self.scored:,} · "
                f"errored {self.errored:,} · skipped by budget {self.budget:,}"
                + (f" · returned {self.returned:,}" if self.returned else "")
                + f" · in flight {self.in_flight:,}")


class Counts:
    """Per scorer key, a :class:`Tally`; thread-safe (the worker's loop counts, its heartbeat
    and signal handlers read)."""

    def __init__(self, keys: Iterable[ScorerKey]) -> None:
        self._lock = threading.Lock()
        self.tallies: dict[ScorerKey, Tally] = {key: Tally() for key in keys}

    def unsampled(self, key: ScorerKey, count: int = 1) -> None:
        with self._lock:
            self.tallies[key].seen += count

    def claimed(self, key: ScorerKey, count: int = 1) -> None:
        with self._lock:
            tally = self.tallies[key]
            tally.seen += count
            tally.sampled += count
            tally.in_flight += count

    def already(self, key: ScorerKey, count: int = 1) -> None:
        """Runs found scored with this version by a path that does not claim (rescore)."""
        with self._lock:
            tally = self.tallies[key]
            tally.seen += count
            tally.sampled += count
            tally.scored += count

    def ended(self, key: ScorerKey, outcome: str) -> None:
        """A claimed run's end: one of :data:`OUTCOMES`, or ``lost`` (another worker took the
        claim back meanwhile and settles it: not this worker's to count)."""
        with self._lock:
            tally = self.tallies[key]
            tally.in_flight -= 1
            if outcome == "lost":
                tally.seen -= 1
                tally.sampled -= 1
            else:
                setattr(tally, outcome, getattr(tally, outcome) + 1)

    def hand_back(self) -> None:
        """Every run still in flight was handed back (the worker stopped)."""
        with self._lock:
            for tally in self.tallies.values():
                tally.returned += tally.in_flight
                tally.in_flight = 0

    def snapshot(self) -> dict[ScorerKey, Tally]:
        with self._lock:
            return {key: Tally(**asdict(t)) for key, t in self.tallies.items()}

    def total(self) -> Tally:
        out = Tally()
        for tally in self.snapshot().values():
            for name, value in asdict(tally).items():
                setattr(out, name, getattr(out, name) + value)
        return out

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready: ``{"name@version": {seen, sampled, ...}}``."""
        return {str(key): asdict(t) for key, t in self.snapshot().items()}

    def lines(self) -> list[str]:
        """One line per scorer: ``name@version: seen ... · in flight ...``."""
        return [f"{key}: {tally.line()}" for key, tally in self.snapshot().items()]


def tally_of(values: Mapping[str, Any]) -> Tally:
    """A :class:`Tally` from its JSON form (a worker's stored counts)."""
    fields = Tally.__dataclass_fields__
    return Tally(**{k: int(v) for k, v in values.items() if k in fields})
