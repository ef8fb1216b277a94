"""What online scorers' model calls cost, per budget window, kept in the store so that every
worker of a store holds one budget.

A window is ``[k·per, (k+1)·per)`` on the store's clock (seconds since 1970), so every worker
with the same ``--per`` agrees on it. Before a model call starts, :func:`hold` asks for room:

- refused when the window's spend (calls that ended) has reached the cap;
- granted when no other call of the window is in flight (so at most one call runs past the
  cap: the one in flight when the spend crossed it), or when the spend, what calls in flight
  hold and this call's reckoning together stay within the cap. A call is reckoned at the
  dearest single call seen so far in windows of this length (nothing seen yet: the call
  runs alone);
- else the caller waits for calls in flight to end and asks again.

When the call ends, :func:`release` drops its hold and adds what it really cost. A hold whose
call never ends (its worker was killed) lapses at its ``until``. So the spend of a window
passes the cap by at most one call, when no call costs more than the dearest one seen before
it; a call priced higher than any before it can add its own excess.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

Store = Any  # a harness.store.base.Store

GRANTED, WAIT, REFUSED = "granted", "wait", "refused"


@dataclass(frozen=True, slots=True)
class Spend:
    """A window's spend: its start and length (seconds), USD spent, calls ended, the dearest
    call, calls without a price, calls refused, and what calls in flight hold."""

    window_start: float
    window_seconds: float
    spent: float
    calls: int
    max_call: float | None
    unpriced: int
    refused: int
    held: float = 0.0
    in_flight: int = 0


def window_of(moment: float, per: float) -> float:
    return math.floor(moment / per) * per


def _row(store: Store, start: float, per: float, *, lock: bool) -> tuple[float, int, float | None, int, int]:
    mark = store.placeholder
    store._execute(
        f'INSERT INTO "score_spend" (window_start, window_seconds, spent, calls, unpriced, refused) '
        f"VALUES ({mark}, {mark}, 0, 0, 0, 0) ON CONFLICT (window_start, window_seconds) DO NOTHING", (start, per))
    found = store._fetchall(
        f'SELECT s.spent, s.calls, s.max_call, s.unpriced, s.refused FROM "score_spend" s '
        f"WHERE s.window_start = {mark} AND s.window_seconds = {mark}"
        f"{store.row_lock.format(table='s') if lock else ''}", (start, per))
    spent, calls, max_call, unpriced, refused = found[0]
    return float(spent or 0), int(calls or 0), max_call, int(unpriced or 0), int(refused or 0)


def hold(store: Store, hold_id: str, *, cap: float, per: float, timeout: float) -> tuple[str, float]:
    """Ask for room for one model call (see the module doc): (``granted``, the window's
    start), (``wait``, ...) or (``refused``, ...). A granted hold lapses after ``timeout``."""
    mark, clock = store.placeholder, store.clock_sql
    with store.transaction(immediate=True):
        moment = float(store._fetchall(f"SELECT {clock}")[0][0])
        start = window_of(moment, per)
        spent, _, _, _, _ = _row(store, start, per, lock=True)
        if spent >= cap:
            store._execute(f'UPDATE "score_spend" SET refused = refused + 1 WHERE window_start = {mark} '
                           f"AND window_seconds = {mark}", (start, per))
            return REFUSED, start
        held, in_flight = store._fetchall(
            f'SELECT COALESCE(SUM(amount), 0), COUNT(*) FROM "score_holds" WHERE window_start = {mark} '
            f"AND window_seconds = {mark} AND until > {mark}", (start, per, moment))[0]
        dearest = store._fetchall(f'SELECT MAX(max_call) FROM "score_spend" WHERE window_seconds = {mark}',
                                  (per,))[0][0]
        estimate = float(dearest) if dearest else None  # (0: no call with a known cost yet)
        if int(in_flight) and (estimate is None or float(spent) + float(held) + estimate > cap):
            return WAIT, start
        store._execute(
            f'INSERT INTO "score_holds" (hold, window_start, window_seconds, amount, until) '
            f"VALUES ({mark}, {mark}, {mark}, {mark}, {mark})",
            (hold_id, start, per, estimate or 0.0, moment + timeout))
        return GRANTED, start


def release(store: Store, hold_id: str, *, cost: float | None, priced: bool) -> None:
    """The call of ``hold_id`` ended having cost ``cost`` USD (``priced`` False: its model has
    no price, so its cost is unknown and counted as such)."""
    mark = store.placeholder
    with store.transaction(immediate=True):
        found = store._fetchall(f'SELECT window_start, window_seconds FROM "score_holds" WHERE hold = {mark}',
                                (hold_id,))
        if not found:
            return
        start, per = found[0]
        store._execute(f'DELETE FROM "score_holds" WHERE hold = {mark}', (hold_id,))
        _row(store, start, per, lock=True)
        amount = float(cost or 0.0)
        if priced and amount > 0:  # only a call whose cost is known makes the estimate of the next
            store._execute(
                f'UPDATE "score_spend" SET spent = spent + {mark}, calls = calls + 1, '
                f"max_call = CASE WHEN max_call IS NULL OR max_call < {mark} THEN {mark} ELSE max_call END "
                f"WHERE window_start = {mark} AND window_seconds = {mark}", (amount, amount, amount, start, per))
        else:
            store._execute(
                f'UPDATE "score_spend" SET spent = spent + {mark}, calls = calls + 1, unpriced = unpriced + {mark} '
                f"WHERE window_start = {mark} AND window_seconds = {mark}", (amount, 0 if priced else 1, start, per))


def current(store: Store, per: float) -> Spend:
    """The window now running for windows of ``per`` seconds."""
    mark = store.placeholder
    moment = float(store._fetchall(f"SELECT {store.clock_sql}")[0][0])
    start = window_of(moment, per)
    found = store._fetchall(
        f'SELECT spent, calls, max_call, unpriced, refused FROM "score_spend" WHERE window_start = {mark} '
        f"AND window_seconds = {mark}", (start, per))
    held, in_flight = store._fetchall(
        f'SELECT COALESCE(SUM(amount), 0), COUNT(*) FROM "score_holds" WHERE window_start = {mark} '
        f"AND window_seconds = {mark} AND until > {mark}", (start, per, moment))[0]
    if not found:
        return Spend(start, per, 0.0, 0, None, 0, 0, float(held), int(in_flight))
    spent, calls, max_call, unpriced, refused = found[0]
    return Spend(start, per, float(spent or 0), int(calls or 0), max_call, int(unpriced or 0), int(refused or 0),
                 float(held), int(in_flight))


def windows(store: Store, *, limit: int = 24) -> list[Spend]:
    """The latest windows with spend, newest first."""
    mark = store.placeholder
    return [Spend(start, per, float(spent or 0), int(calls or 0), max_call, int(unpriced or 0), int(refused or 0))
            for start, per, spent, calls, max_call, unpriced, refused in store._fetchall(
                'SELECT window_start, window_seconds, spent, calls, max_call, unpriced, refused FROM "score_spend" '
                f"ORDER BY window_start DESC LIMIT {mark}", (limit,))]
