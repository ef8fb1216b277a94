"""Online scoring's work queue, kept in the store: which runs are claimed by which worker,
until when, and how each ended; the workers and their counts.

The unit of work is a run for one scorer version (``score_claims``, keyed by run, scorer and
version). A worker claims a batch in one transaction that takes the rows it reads -- on
PostgreSQL ``SELECT ... FOR UPDATE SKIP LOCKED`` (other workers pass over them and take the
next runs), on SQLite an immediate transaction (one writer at a time) -- and holds them for a
lease it renews while it works. It settles a batch in one transaction that marks its claims
and writes their scores together: a worker killed at any point leaves either both or
neither, and a claim whose lease ran out (its worker was killed or stalled) is taken back by
the next worker that looks. A worker that lost a claim (another took it back) writes nothing
for it. So each run is scored once per scorer version, by whichever worker settles it.

Runs are found in ``_seq`` order from a cursor each worker keeps. Where rows may become
visible out of ``_seq`` order (PostgreSQL draws ``_seq`` when a row is inserted, not when it
commits), the cursor is moved back over the last :data:`SWEEP_ROWS` rows every
:data:`SWEEP_SECONDS`, so a run committed late is still found. Engine differences are the
store's dialect (:attr:`Store.skip_locked`, :attr:`Store.clock_sql`,
:attr:`Store.visible_in_order`); nothing here knows which engine it talks to.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

Store = Any  # a harness.store.base.Store (which this module must not import back)

#: Claim states.
UNSAMPLED, CLAIMED, SCORED, ERRORED, BUDGET = "unsampled", "claimed", "scored", "errored", "budget"
STATES = (UNSAMPLED, CLAIMED, SCORED, ERRORED, BUDGET)
#: Where rows may become visible out of order: how far back, and how often, the cursor is moved.
SWEEP_ROWS, SWEEP_SECONDS = 10_000, 5.0
#: Run ids per ``IN (...)`` list.
_CHUNK = 500


@dataclass(frozen=True, slots=True, order=True)
class ScorerKey:
    """A scorer as online scoring keys its work: its name and version."""

    name: str
    version: str

    def __str__(self) -> str:
        return f"{self.name}@{self.version}"


@dataclass(frozen=True, slots=True)
class RunFilter:
    """Which runs a worker scores: runs outside experiments, of ``workflows`` (any; all when
    empty), started at or after ``since`` (ISO 8601 UTC text), of ``run_ids`` when given."""

    workflows: tuple[str, ...] = ()
    since: str | None = None
    run_ids: tuple[str, ...] | None = None


@dataclass
class Claimed:
    """What one claim found: ``work`` (run id -> the scorer keys now held for it), the runs
    newly seen outside the sample (per key), runs found already scored by this version (a
    ``rescore``: per key), claims taken back from a lost worker, and claims given up on
    (``poisoned``: claimed :data:`max_attempts` times, their workers never finished)."""

    work: dict[str, list[ScorerKey]] = field(default_factory=dict)
    unsampled: dict[ScorerKey, int] = field(default_factory=dict)
    already: dict[ScorerKey, int] = field(default_factory=dict)
    retaken: int = 0
    poisoned: list[tuple[str, ScorerKey, int]] = field(default_factory=list)
    last_seq: int = 0

    @property
    def empty(self) -> bool:
        return not self.work and not self.unsampled and not self.already and not self.poisoned


def _marks(store: Store, count: int) -> str:
    return ", ".join([store.placeholder] * count)


def _keys_sql(store: Store, keys: Sequence[ScorerKey], alias: str = "c") -> tuple[str, list[str]]:
    mark = store.placeholder
    clause = " OR ".join(f"({alias}.scorer = {mark} AND {alias}.version = {mark})" for _ in keys)
    return f"({clause})", [part for k in keys for part in (k.name, k.version)]


def _filter_sql(store: Store, filters: RunFilter, alias: str = "r") -> tuple[str, list[Any]]:
    mark = store.placeholder
    sql, params = [f"{alias}.experiment IS NULL"], []
    if filters.workflows:
        sql.append(f"{alias}.workflow IN ({_marks(store, len(filters.workflows))})")
        params += list(filters.workflows)
    if filters.since is not None:
        sql.append(f"{alias}.started_at >= {mark}")
        params.append(filters.since)
    if filters.run_ids is not None:
        sql.append(f"{alias}.run_id IN ({_marks(store, len(filters.run_ids))})" if filters.run_ids else "1 = 0")
        params += list(filters.run_ids)
    return " AND ".join(sql), params


def claim(store: Store, worker: str, keys: Sequence[ScorerKey], *, rate: float, point: Callable[[str], float],
          filters: RunFilter = RunFilter(), after: int = 0, limit: int = 50, lease: float = 30.0,
          max_attempts: int = 3, scored: Callable[[str, str], str] | None = None) -> Claimed:
    """Claim up to ``limit`` runs' work for ``keys`` (see the module doc), in one transaction:
    first claims whose lease ran out (and runs seen outside a lower rate's sample that
    ``rate`` takes in), then runs after ``_seq`` ``after`` that lack a claim for a key. A new
    run's key is claimed when ``point(run_id) < rate``, else recorded ``unsampled``; a key
    whose score of this version is already stored (``scored(run_id, name)``: the score's row
    key) is recorded ``scored``. Returns what was claimed and the last ``_seq`` looked at."""
    out = Claimed(last_seq=after)
    if not keys or limit < 1:
        return out
    wanted = set(keys)
    with store.transaction(immediate=True):
        _take_back(store, worker, keys, rate, filters, limit, lease, max_attempts, out)
        room = limit - len(out.work) - len(out.poisoned)
        if room > 0:
            _claim_new(store, worker, keys, wanted, rate, point, filters, after, room, lease, scored, out)
    return out


def _take_back(store: Store, worker: str, keys: Sequence[ScorerKey], rate: float, filters: RunFilter, limit: int,
               lease: float, max_attempts: int, out: Claimed) -> None:
    mark, clock = store.placeholder, store.clock_sql
    which, key_params = _keys_sql(store, keys)
    where, filter_params = _filter_sql(store, filters)
    found = store._fetchall(
        f'SELECT c.run_id, c.scorer, c.version, c.state, c.attempts FROM "score_claims" c '
        f'JOIN "runs" r ON r.run_id = c.run_id '
        f"WHERE ((c.state = {mark} AND c.lease_until < {clock}) OR (c.state = {mark} AND c.sample_point < {mark})) "
        f"AND {which} AND {where} ORDER BY c.lease_until LIMIT {mark}{store.skip_locked.format(table='c')}",
        [CLAIMED, UNSAMPLED, rate, *key_params, *filter_params, limit])
    if not found:
        return
    store._executemany(
        f'UPDATE "score_claims" SET state = {mark}, worker = {mark}, lease_until = {clock} + {mark}, '
        f"attempts = COALESCE(attempts, 0) + 1, updated_at = {clock} "
        f"WHERE run_id = {mark} AND scorer = {mark} AND version = {mark}",
        [(CLAIMED, worker, lease, run_id, name, version) for run_id, name, version, _, _ in found])
    for run_id, name, version, state, attempts in found:
        key = ScorerKey(name, version)
        if state == CLAIMED and (attempts or 0) >= max_attempts:
            out.poisoned.append((run_id, key, attempts or 0))
            continue
        if state == CLAIMED:
            out.retaken += 1
        out.work.setdefault(run_id, []).append(key)


def _claim_new(store: Store, worker: str, keys: Sequence[ScorerKey], wanted: set[ScorerKey], rate: float,
               point: Callable[[str], float], filters: RunFilter, after: int, limit: int, lease: float,
               scored: Callable[[str, str], str] | None, out: Claimed) -> None:
    mark, clock = store.placeholder, store.clock_sql
    where, filter_params = _filter_sql(store, filters)
    lacking = " OR ".join(
        f'NOT EXISTS (SELECT 1 FROM "score_claims" c WHERE c.run_id = r.run_id AND c.scorer = {mark} '
        f"AND c.version = {mark})" for _ in keys)
    key_params = [part for k in keys for part in (k.name, k.version)]
    top = store._fetchall('SELECT MAX(_seq) FROM "runs"')[0][0] or 0
    runs = store._fetchall(
        f'SELECT r._seq, r.run_id FROM "runs" r WHERE r._seq > {mark} AND {where} AND ({lacking}) '
        f"ORDER BY r._seq LIMIT {mark}{store.skip_locked.format(table='r')}",
        [after, *filter_params, *key_params, limit])
    # Fewer than asked: every run up to the top was looked at (one added since lies above it).
    out.last_seq = max(out.last_seq, top if len(runs) < limit else max(seq for seq, _ in runs))
    if not runs:
        return
    ids = [run_id for _, run_id in runs]
    have = {(run_id, ScorerKey(name, version)) for run_id, name, version in store._fetchall(
        f'SELECT run_id, scorer, version FROM "score_claims" WHERE run_id IN ({_marks(store, len(ids))})', ids)}
    points = {run_id: point(run_id) for run_id in ids}
    missing = [(run_id, key) for run_id in ids for key in keys if key in wanted and (run_id, key) not in have]
    done: set[tuple[str, str]] = set()
    if scored is not None:
        done = _scored_already(store, [(run_id, key) for run_id, key in missing if points[run_id] < rate], scored)
    values = []
    for run_id, key in missing:
        sampled = points[run_id] < rate
        state = (SCORED if (run_id, str(key)) in done else CLAIMED) if sampled else UNSAMPLED
        values.append((run_id, key.name, key.version, state, points[run_id], worker,
                       lease if state == CLAIMED else 0.0, 1 if state == CLAIMED else 0))
    inserted = []
    one = f"({mark}, {mark}, {mark}, {mark}, {mark}, {mark}, {clock} + {mark}, {mark}, {clock})"
    for start in range(0, len(values), _CHUNK // 4):
        chunk = values[start:start + _CHUNK // 4]
        params = [v for row in chunk for v in row]
        inserted += store._fetchall(
            'INSERT INTO "score_claims" (run_id, scorer, version, state, sample_point, worker, lease_until, '
            f"attempts, updated_at) VALUES {', '.join([one] * len(chunk))} "
            "ON CONFLICT (run_id, scorer, version) DO NOTHING RETURNING run_id, scorer, version, state", params)
    for run_id, name, version, state in inserted:
        key = ScorerKey(name, version)
        if state == CLAIMED:
            out.work.setdefault(run_id, []).append(key)
        elif state == UNSAMPLED:
            out.unsampled[key] = out.unsampled.get(key, 0) + 1
        else:
            out.already[key] = out.already.get(key, 0) + 1


def _scored_already(store: Store, pairs: Sequence[tuple[str, ScorerKey]],
                    row_key: Callable[[str, str], str]) -> set[tuple[str, str]]:
    """The (run id, key text) of ``pairs`` whose score of that name and version is stored
    without an error (scored by ``rescore`` or another path that does not claim)."""
    if not pairs:
        return set()
    by_row = {row_key(run_id, key.name): (run_id, key) for run_id, key in pairs}
    done = set()
    names = list(by_row)
    for start in range(0, len(names), _CHUNK):
        chunk = names[start:start + _CHUNK]
        for found, version in store._fetchall(
                f'SELECT row_key, scorer_version FROM "scores" WHERE row_key IN ({_marks(store, len(chunk))}) '
                "AND error IS NULL", chunk):
            run_id, key = by_row[found]
            if version == key.version:
                done.add((run_id, str(key)))
    return done


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a claim ended: ``state`` (scored, errored, budget) and why (one line), or None to
    hand it back unscored (the worker stopped before its scorer finished)."""

    run_id: str
    key: ScorerKey
    state: str | None
    error: str | None = None


def settle(store: Store, worker: str, outcomes: Sequence[Outcome],
           write: Callable[[set[tuple[str, ScorerKey]]], None]) -> set[tuple[str, ScorerKey]]:
    """End claims in one transaction: those ``worker`` still holds are marked as their
    outcome says (or handed back: their lease ended now, so the next worker takes them), and
    ``write(held)`` stores their scores in the same transaction; claims another worker took
    back meanwhile are left alone (their scores are not written). Returns the (run, key)
    pairs that were still held."""
    if not outcomes:
        return set()
    mark, clock = store.placeholder, store.clock_sql
    ids = list(dict.fromkeys(o.run_id for o in outcomes))
    with store.transaction(immediate=True):
        held: set[tuple[str, ScorerKey]] = set()
        for start in range(0, len(ids), _CHUNK):
            chunk = ids[start:start + _CHUNK]
            held |= {(run_id, ScorerKey(name, version)) for run_id, name, version in store._fetchall(
                f'SELECT c.run_id, c.scorer, c.version FROM "score_claims" c WHERE c.worker = {mark} '
                f"AND c.state = {mark} AND c.run_id IN ({_marks(store, len(chunk))})"
                f"{store.row_lock.format(table='c')}",
                [worker, CLAIMED, *chunk])}
        mine = [o for o in outcomes if (o.run_id, o.key) in held]
        ended = [(o.state, (o.error or None) and o.error[:1000], o.run_id, o.key.name, o.key.version)
                 for o in mine if o.state is not None]
        if ended:
            store._executemany(
                f'UPDATE "score_claims" SET state = {mark}, error = {mark}, lease_until = NULL, '
                f"updated_at = {clock} WHERE run_id = {mark} AND scorer = {mark} AND version = {mark}", ended)
        returned = [(o.run_id, o.key.name, o.key.version) for o in mine if o.state is None]
        if returned:  # handed back: free to take at once, and this attempt not held against the run
            # (no longer the worker's: its heartbeat does not renew them, nor its stop hand them back again)
            store._executemany(
                f"UPDATE \"score_claims\" SET worker = '', lease_until = 0, attempts = attempts - 1, "
                f"updated_at = {clock} WHERE run_id = {mark} AND scorer = {mark} AND version = {mark}", returned)
        written = {(o.run_id, o.key) for o in mine if o.state is not None}
        if written:
            write(written)
    return {(o.run_id, o.key) for o in mine}


def renew(store: Store, worker: str, lease: float) -> int:
    """Extend every claim ``worker`` holds by ``lease`` seconds from now; how many it holds."""
    mark, clock = store.placeholder, store.clock_sql
    with store.transaction():
        store._execute(f'UPDATE "score_claims" SET lease_until = {clock} + {mark} WHERE worker = {mark} '
                       f"AND state = {mark}", (lease, worker, CLAIMED))
    return int(store._fetchall(f'SELECT COUNT(*) FROM "score_claims" WHERE worker = {mark} AND state = {mark}',
                               (worker, CLAIMED))[0][0])


def release_all(store: Store, worker: str) -> int:
    """Hand back every claim ``worker`` still holds (it is stopping); how many."""
    mark, clock = store.placeholder, store.clock_sql
    with store.transaction():
        count = int(store._fetchall(f'SELECT COUNT(*) FROM "score_claims" WHERE worker = {mark} AND state = {mark}',
                                    (worker, CLAIMED))[0][0])
        store._execute(f'UPDATE "score_claims" SET lease_until = 0, attempts = attempts - 1, updated_at = {clock} '
                       f"WHERE worker = {mark} AND state = {mark}", (worker, CLAIMED))
    return count


def now(store: Store) -> float:
    """The store's clock: seconds since 1970."""
    return float(store._fetchall(f"SELECT {store.clock_sql}")[0][0])


# --- workers ------------------------------------------------------------------------------

def register_worker(store: Store, worker: str, host: str, pid: int, settings: Mapping[str, Any]) -> None:
    mark, clock = store.placeholder, store.clock_sql
    with store.transaction():
        store._execute(
            'INSERT INTO "score_workers" (worker, host, pid, started_at, heartbeat_at, settings, counts) '
            f"VALUES ({mark}, {mark}, {mark}, {clock}, {clock}, {mark}, {mark}) ON CONFLICT (worker) DO NOTHING",
            (worker, host, pid, json.dumps(settings, sort_keys=True, default=str), "{}"))


def heartbeat(store: Store, worker: str, counts: Mapping[str, Any], *, stopped: bool = False) -> None:
    """Record that ``worker`` is alive (or, ``stopped``, that it stopped) and its counts."""
    mark, clock = store.placeholder, store.clock_sql
    with store.transaction():
        store._execute(
            f'UPDATE "score_workers" SET heartbeat_at = {clock}, counts = {mark}'
            + (f", stopped_at = {clock}" if stopped else "") + f" WHERE worker = {mark}",
            (json.dumps(counts, sort_keys=True), worker))


def workers(store: Store, *, limit: int = 50) -> list[dict[str, Any]]:
    """The workers that ran, newest first, each with ``age`` (seconds since its heartbeat)."""
    clock = store.clock_sql
    out = []
    for worker, host, pid, started, beat, stopped, settings, counts, age in store._fetchall(
            f'SELECT worker, host, pid, started_at, heartbeat_at, stopped_at, settings, counts, {clock} - heartbeat_at '
            f'FROM "score_workers" ORDER BY started_at DESC LIMIT {store.placeholder}', (limit,)):
        out.append({"worker": worker, "host": host, "pid": pid, "started_at": started, "heartbeat_at": beat,
                    "stopped_at": stopped, "settings": json.loads(settings or "{}"),
                    "counts": json.loads(counts or "{}"), "age": age})
    return out


def totals(store: Store, keys: Iterable[ScorerKey] | None = None) -> dict[ScorerKey, dict[str, int]]:
    """Per scorer key, how many claims are in each state (``claimed`` split into ``in_flight``
    and ``stalled``, whose lease ran out and which the next worker takes back): every run
    each key has seen, counted once whichever worker saw it."""
    mark, clock = store.placeholder, store.clock_sql
    out: dict[ScorerKey, dict[str, int]] = {}
    wanted = list(keys) if keys is not None else None
    where, params = ("", [])
    if wanted:
        where, params = _keys_sql(store, wanted)
        where = " WHERE " + where
    for name, version, state, stalled, count in store._fetchall(
            f"SELECT c.scorer, c.version, c.state, CASE WHEN c.state = {mark} AND c.lease_until < {clock} THEN 1 "
            f'ELSE 0 END, COUNT(*) FROM "score_claims" c{where} GROUP BY c.scorer, c.version, c.state, 4',
            [CLAIMED, *params]):
        counts = out.setdefault(ScorerKey(name, version), dict.fromkeys((*STATES, "stalled"), 0))
        counts["stalled" if stalled else state] += int(count)
    return out
