"""Which stored runs a command works on: an experiment's, named ones, a workflow's, those
started since a time, or the runs all of these given filters agree on.

``harness rescore`` scores them again (and ``--delete`` removes scores of them), ``h.rescore``
and ``h.delete_scores`` likewise: runs outside experiments (``h.run``, ``wrap --input``, live
traffic) are chosen as an experiment's are. Everything is read from the store: ids through
its index (:meth:`Store.resolve_run_id`), the filters over three columns of ``runs``.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .errors import ExperimentError

_AGE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(s|m|min|h|d|w)\s*$", re.IGNORECASE)
_UNITS = {"s": 1, "m": 60, "min": 60, "h": 3600, "d": 86400, "w": 604800}


def parse_since(text: str | dt.datetime | None, *, now: dt.datetime | None = None) -> dt.datetime | None:
    """A moment from ``--since``: an ISO 8601 date or time (UTC unless it names its zone), or
    an age back from now (``30m``, ``12h``, ``7d``, ``2w``); :class:`ExperimentError` with one
    line otherwise."""
    if text is None or isinstance(text, dt.datetime):
        return text if text is None or text.tzinfo else text.replace(tzinfo=dt.timezone.utc)
    age = _AGE.match(text)
    if age:
        seconds = float(age.group(1)) * _UNITS[age.group(2).lower()]
        return (now or dt.datetime.now(dt.timezone.utc)) - dt.timedelta(seconds=seconds)
    try:
        moment = dt.datetime.fromisoformat(text.strip())
    except ValueError:
        raise ExperimentError(f"--since is an ISO date or time (2026-05-01, 2026-05-01T09:30) or an age "
                              f"(30m, 12h, 7d), not {text!r}") from None
    return moment if moment.tzinfo else moment.replace(tzinfo=dt.timezone.utc)


@dataclass(frozen=True, slots=True)
class RunSelection:
    """Runs chosen by what they are: every given part must hold (an experiment, run ids or
    their unique starts, workflows (any of them), a start time)."""

    experiment: str | None = None
    runs: tuple[str, ...] = ()
    workflows: tuple[str, ...] = ()
    since: dt.datetime | None = None

    @classmethod
    def of(cls, experiment: str | None = None, *, runs: Sequence[str] | str | None = None,
           workflows: Sequence[str] | str | None = None, since: Any = None) -> RunSelection:
        chosen = cls(experiment, _texts(runs), _texts(workflows), parse_since(since))
        if chosen.empty:
            raise ExperimentError("say which runs: an experiment, --run ID, --workflow NAME or --since TIME")
        return chosen

    @property
    def empty(self) -> bool:
        return self.experiment is None and not self.runs and not self.workflows and self.since is None

    def describe(self) -> str:
        """The selection in words, for what a command prints."""
        parts = []
        if self.experiment is not None:
            parts.append(f"experiment {self.experiment}")
        if self.runs:
            parts.append(f"{len(self.runs)} named run(s)")
        if self.workflows:
            parts.append(f"workflow {', '.join(self.workflows)}")
        if self.since is not None:
            parts.append(f"started since {self.since.isoformat(timespec='seconds')}")
        return " · ".join(parts)

    def run_ids(self, store: Any) -> list[str]:
        """The selected runs' ids, in the order they were stored; :class:`ExperimentError`
        when a named run or the experiment is unknown, or nothing is selected."""
        from ..store import RunIdError

        try:
            named = store.resolve_run_ids(self.runs) if self.runs else None
        except RunIdError as exc:
            raise ExperimentError(str(exc)) from None
        where: dict[str, Any] = {}
        if self.experiment is not None:
            where["experiment"] = self.experiment
        if self.workflows:
            where["workflow"] = list(self.workflows)
        rows = store.rows("runs", named, columns=["run_id", "started_at"], where=where)
        ids = [r["run_id"] for r in rows if self.since is None or _after(r["started_at"], self.since)]
        if not ids:
            if self.experiment is not None and not self.runs and not self.workflows and self.since is None:
                raise ExperimentError(f"no experiment {self.experiment!r} in the store")
            raise ExperimentError(f"no run in the store is {self.describe()}")
        return ids


def _texts(value: Sequence[str] | str | None) -> tuple[str, ...]:
    if value is None:
        return ()
    return (value,) if isinstance(value, str) else tuple(value)


def _after(started_at: Any, since: dt.datetime) -> bool:
    if not started_at:
        return False
    try:
        moment = dt.datetime.fromisoformat(str(started_at))
    except ValueError:
        return False
    return (moment if moment.tzinfo else moment.replace(tzinfo=dt.timezone.utc)) >= since
