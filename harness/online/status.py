"""What online scoring has done, read from the store (``harness score --status``): per scorer
version, every run it has seen counted once whichever worker saw it; the workers, running,
stopped or lost; what scorers' model calls cost per budget window."""

from __future__ import annotations

import datetime as dt
from typing import Any

from ..store import claims, spend
from .counts import tally_of

#: A worker silent for this many leases is lost (killed, or its host is gone).
LOST_AFTER_LEASES = 3


def _iso(seconds: float | None) -> str | None:
    if seconds is None:
        return None
    return dt.datetime.fromtimestamp(float(seconds), dt.timezone.utc).isoformat(timespec="seconds")


def scoring_status(store: Any, *, workers: int = 20, windows: int = 6) -> dict[str, Any]:
    """``{"scorers": [...], "workers": [...], "spend": [...]}`` (see the module doc). A
    scorer's ``seen`` = ``not_sampled + sampled``, ``sampled`` = ``scored + errored + budget +
    in_flight + stalled`` (``stalled``: claimed by a worker whose lease ran out; the next
    worker takes it back)."""
    scorers = []
    for key, counts in sorted(claims.totals(store).items()):
        sampled = counts["claimed"] + counts["stalled"] + counts["scored"] + counts["errored"] + counts["budget"]
        scorers.append({"scorer": key.name, "version": key.version, "seen": sampled + counts["unsampled"],
                        "sampled": sampled, "not_sampled": counts["unsampled"], "scored": counts["scored"],
                        "errored": counts["errored"], "budget": counts["budget"], "in_flight": counts["claimed"],
                        "stalled": counts["stalled"]})
    listed = []
    for w in claims.workers(store, limit=workers):
        lease = float((w["settings"] or {}).get("lease") or 30.0)
        state = ("stopped" if w["stopped_at"] is not None else
                 "lost" if (w["age"] or 0) > LOST_AFTER_LEASES * lease else "running")
        total = tally_of({})
        for values in (w["counts"] or {}).values():
            one = tally_of(values)
            for name in ("seen", "sampled", "scored", "errored", "budget", "returned", "in_flight"):
                setattr(total, name, getattr(total, name) + getattr(one, name))
        listed.append({"worker": w["worker"], "host": w["host"], "pid": w["pid"], "state": state,
                       "started_at": _iso(w["started_at"]), "last_heard_s": round(float(w["age"] or 0), 1),
                       "stopped_at": _iso(w["stopped_at"]), "settings": w["settings"],
                       "counts": w["counts"], "seen": total.seen, "sampled": total.sampled, "scored": total.scored,
                       "errored": total.errored, "budget": total.budget, "returned": total.returned,
                       "in_flight": total.in_flight})
    spent = [{"window_start": _iso(s.window_start), "window_end": _iso(s.window_start + s.window_seconds),
              "per_s": s.window_seconds, "spent": round(s.spent, 8), "calls": s.calls, "unpriced": s.unpriced,
              "refused": s.refused} for s in spend.windows(store, limit=windows)]
    return {"scorers": scorers, "workers": listed, "spend": spent}
