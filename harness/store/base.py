"""The store's engine-independent part: the connection's life, the schema, the run
transaction, batched writes, paged reads.

One table per sheet, derived from :mod:`harness.schema`; every row has a ``row_key``
(unique), so writing the same batch twice -- a retry after a timeout, a resumed export --
never duplicates a row (how values are stored: :mod:`.values`). An engine (:mod:`.sqlite`,
:mod:`.postgres`) supplies the connection, its transactions and its SQL types; everything
here is written once for all engines, in SQL they share.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import threading
import time
import weakref
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from .. import config
from ..schema import ALL_SHEET_NAMES, ALL_SHEETS, SHEET_NAMES, STORE_TABLES, Sheet, sheet as sheet_named
from .errors import RunIdError, StoreBusy, StoreError, StoreUnavailable, one_named
from .migrations import MIGRATIONS, SCHEMA_VERSION
from .threads import link_turns
from .values import ROW_KEY, content_key, decode, encode_rows, encode_value, json_text

if TYPE_CHECKING:
    import pandas as pd  # imported when sheets are read: the writer process never needs it

DEFAULT_STORE = "harness.db"

PAGE_ROWS = 2_000  # rows read per query by Store.rows
#: A store that could not be opened is tried again at most this often.
REOPEN_SECONDS = 1.0


def store_url(url: Any = None) -> str:
    """The store to open: the argument > ``$HARNESS_STORE`` > ``./harness.db``."""
    return config.value("HARNESS_STORE", url) or DEFAULT_STORE


#: The engines, in the order they are asked whether they open a URL (the last accepts any).
_engines: list[type[Store]] = []


def register_engine(engine: type[Store]) -> type[Store]:
    """Make ``Store(url)`` open the URLs ``engine.accepts`` (engines register as they are defined)."""
    _engines.insert(0, engine)
    return engine


def _engine_for(url: str) -> type[Store]:
    for engine in _engines:
        if engine.accepts(url):
            return engine
    raise StoreError(f"no store engine opens {url!r}")


def _quoted(names: Iterable[str]) -> str:
    return ", ".join(f'"{n}"' for n in names)


class Store:
    """The system of record: one table per sheet. ``Store(url)`` opens the engine the URL
    names: a path or ``sqlite:///path`` (the default, ``$HARNESS_STORE`` or ``./harness.db``).

    Thread-safe: one connection per store, used under its lock. An engine implements what
    differs between databases -- connecting (:meth:`_open`), its transactions, statements and
    SQL dialect, :attr:`location` -- and everything else is written once here: the
    connection's life (opened lazily, tried again at most once a second while it cannot be,
    a forked child opening its own), the schema, the run transaction, writes and reads.

    ``lazy``: a store that cannot be opened now (not a database, read-only, locked, full, a
    server down) is not an error yet: every use tries to open it again and raises
    :class:`StoreUnavailable` until it can.
    """

    #: The engine's parameter placeholder in SQL text.
    placeholder: ClassVar[str] = "?"
    #: The engine's column type for each schema kind.
    sql_types: ClassVar[Mapping[str, str]] = {}
    #: The engine's own exception types that a failed write of one sheet raises.
    db_errors: ClassVar[tuple[type[BaseException], ...]] = ()
    #: SQL for the store's clock, in seconds since 1970 (leases of several hosts read one clock).
    clock_sql: ClassVar[str] = ""
    #: What a ``SELECT`` ends with to take the rows of ``{table}`` it reads for this transaction
    #: (``row_lock``: waiting for another transaction that holds one; ``skip_locked``: passing over
    #: them); empty where one writer at a time holds the whole store.
    row_lock: ClassVar[str] = ""
    skip_locked: ClassVar[str] = ""
    #: Whether rows become visible in ``_seq`` order (one writer at a time), so a reader that has seen
    #: ``_seq`` N will never see a new row below it.
    visible_in_order: ClassVar[bool] = True

    def __new__(cls, url: Any = None, *args: Any, **kwargs: Any) -> Store:
        if cls is Store:
            cls = _engine_for(store_url(url))
        return super().__new__(cls)

    @classmethod
    def accepts(cls, url: str) -> bool:
        """Whether this engine opens ``url``."""
        return False

    _lock: threading.RLock
    _connection: Any = None

    # --- the connection's life (every engine) --------------------------------------------
    def _start(self, lazy: bool) -> None:
        """Open the store (an engine's ``__init__`` calls this once it knows where the store is)."""
        self._lock = threading.RLock()
        self._depth = 0
        self._connection = None
        self._failure: str | None = None
        self._retry_at = 0.0
        with self._lock:
            try:
                self._open()
            except StoreUnavailable as exc:
                if not lazy:
                    raise
                self._unavailable(exc)
        _open_stores.add(self)

    def _unavailable(self, exc: StoreUnavailable) -> None:
        self._failure, self._retry_at = str(exc), time.monotonic() + REOPEN_SECONDS

    @property
    def problem(self) -> str | None:
        """Why the store cannot be used now (it could not be opened), or None."""
        return self._failure if self._connection is None else None

    @property
    def _conn(self) -> Any:
        """The connection (used under the store's lock); opened anew when it broke, on first
        use in a forked child, or once the store can be opened after it could not."""
        conn = self._connection
        if conn is not None and self._usable(conn):
            return conn
        if conn is not None:
            self._drop()
        if time.monotonic() < self._retry_at:
            raise StoreUnavailable(self._failure or f"store {self.display!r} cannot be opened")
        try:
            self._open()
        except StoreUnavailable as exc:
            self._unavailable(exc)
            raise
        return self._connection

    def _drop(self) -> None:
        """Close the connection (quietly: it may be broken already)."""
        conn, self._connection = self._connection, None
        if conn is not None:
            with contextlib.suppress(Exception):
                conn.close()

    def _forget_after_fork(self) -> None:
        """In a forked child: the inherited connection is set aside unused and never closed
        (closing it could end the parent's session, or checkpoint a WAL the parent is using);
        the next use opens one of the child's own. The lock is new too: a parent thread may
        have held it."""
        if self._connection is not None:
            _inherited.append(self._connection)
        self._connection = None
        self._lock = threading.RLock()
        self._depth = 0

    def close(self) -> None:
        with self._lock:
            if self._connection is not None:
                self._before_close(self._connection)
            self._drop()
        _open_stores.discard(self)

    # --- what an engine provides --------------------------------------------------------
    def _open(self) -> None:
        """Connect and bring the schema forward (under the lock); :class:`StoreUnavailable`
        when the store cannot be opened now."""
        raise NotImplementedError

    def _usable(self, conn: Any) -> bool:
        """Whether an open connection can still be used (a server's may have broken)."""
        return True

    def _before_close(self, conn: Any) -> None:
        """What the engine does with its connection before it is closed."""

    def _lock_thread(self, thread_id: str) -> None:
        """Inside a write transaction: wait for any other writer of this thread's runs (see
        :mod:`.threads`); nothing to do where one writer at a time holds the whole store."""

    @property
    def location(self) -> str:
        """What ``Store(location)`` opens again, in any process (the writer process's key)."""
        raise NotImplementedError

    @property
    def display(self) -> str:
        """The store as messages name it (a server URL without its password)."""
        return self.location

    @property
    def shareable(self) -> bool:
        """Whether another process can open this store (a file or a server, not memory)."""
        raise NotImplementedError

    def transaction(self, *, immediate: bool = False) -> contextlib.AbstractContextManager[None]:
        """One explicit transaction, committed on success and rolled back on error; a nested
        one is a savepoint of the outer one, so its failure undoes only its own part.
        ``immediate`` takes the write lock at its start, for a transaction that reads and then
        writes what it read (a migration)."""
        raise NotImplementedError

    def _table_columns(self, table: str) -> list[str]:
        """The columns of ``table`` in order; empty when there is no such table."""
        raise NotImplementedError

    def _execute(self, sql: str, params: Sequence[Any] = ()) -> None:
        """Run one statement (under the lock, inside a transaction when writing)."""
        raise NotImplementedError

    def _executemany(self, sql: str, batch: Sequence[Sequence[Any]]) -> int:
        """Run ``sql`` for each parameter list; the number of rows it changed."""
        raise NotImplementedError

    def _fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """The rows of one query, read under the lock."""
        raise NotImplementedError

    @property
    def spool_paths(self) -> list[Path]:
        """Where runs the store cannot take now are spooled (:mod:`.spool`), in order of
        preference: by default the user's cache directory (an engine adds a place near the store)."""
        cache = config.cache_dir()
        name = hashlib.sha1(self.location.encode()).hexdigest()[:16]
        return [cache / "langgraph-harness" / "spool" / f"{name}.jsonl"]

    # --- schema -------------------------------------------------------------------------
    def _prepare_schema(self) -> None:
        """Bring the store's tables to :data:`~.migrations.SCHEMA_VERSION` (see :mod:`.migrations`)."""
        if self._schema_version() == SCHEMA_VERSION:
            return
        with self.transaction(immediate=True):
            found = self._schema_version()  # again: another process may have migrated meanwhile
            if found == SCHEMA_VERSION:
                return
            if found is not None and found > SCHEMA_VERSION:
                raise StoreError(f"store {self.display!r} has schema version {found}, newer than this harness knows "
                                 f"({SCHEMA_VERSION}): upgrade langgraph-harness to use it")
            self._create_tables()
            for step in MIGRATIONS:
                if found is not None and step.version > found and step.apply is not None:
                    step.apply(self)
            self._execute(f"DELETE FROM harness_meta WHERE key = {self.placeholder}", ("schema_version",))
            self._execute(f"INSERT INTO harness_meta (key, value) VALUES ({self._marks(2)})",
                          ("schema_version", str(SCHEMA_VERSION)))

    def _schema_version(self) -> int | None:
        """The version the store records; 1 for a store made before versions were recorded;
        None for a new, empty store."""
        if self._table_columns("harness_meta"):
            found = self._fetchall(f"SELECT value FROM harness_meta WHERE key = {self.placeholder}",
                                   ("schema_version",))
            if found:
                return int(found[0][0])
        return 1 if self._table_columns("runs") else None

    def _create_tables(self) -> None:
        """Every table, index and column the schema declares that the store lacks."""
        types = self.sql_types
        for s in ALL_SHEETS:
            have = self._table_columns(s.name)
            if not have:
                cols = ", ".join(f'"{c.name}" {types[c.kind]}' for c in s.all_columns)
                self._execute(
                    f'CREATE TABLE "{s.name}" ({self._sequence_column()}, {ROW_KEY} TEXT NOT NULL UNIQUE, {cols})'
                )
            else:
                for c in s.all_columns:
                    if c.name not in have:
                        self._execute(f'ALTER TABLE "{s.name}" ADD COLUMN "{c.name}" {types[c.kind]}')
            self._execute(f'CREATE INDEX IF NOT EXISTS "{s.name}_run" ON "{s.name}"(run_id)')
        self._execute('CREATE INDEX IF NOT EXISTS "runs_thread" ON "runs"(thread_id, started_at)')
        self._execute(
            "CREATE TABLE IF NOT EXISTS assessment_records ("
            "run_id TEXT PRIMARY KEY, company_name TEXT, record TEXT NOT NULL, updated_at TEXT)"
        )
        self._execute(
            "CREATE TABLE IF NOT EXISTS export_marks (target TEXT NOT NULL, sheet TEXT NOT NULL, "
            f"{ROW_KEY} TEXT NOT NULL, PRIMARY KEY (target, sheet, {ROW_KEY}))"
        )
        self._execute("CREATE TABLE IF NOT EXISTS harness_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        self._execute("CREATE TABLE IF NOT EXISTS experiments (name TEXT PRIMARY KEY, record TEXT NOT NULL, "
                      "started_at TEXT NOT NULL)")
        for table in STORE_TABLES:
            have = self._table_columns(table.name)
            if not have:
                cols = ", ".join(f'"{c.name}" {types[c.kind]}' + (" NOT NULL" if c.name in table.key else "")
                                 for c in table.columns)
                self._execute(f'CREATE TABLE "{table.name}" ({cols}, PRIMARY KEY ({_quoted(table.key)}))')
            else:
                for c in table.columns:
                    if c.name not in have:
                        self._execute(f'ALTER TABLE "{table.name}" ADD COLUMN "{c.name}" {types[c.kind]}')
            for index in table.indexes:
                self._execute(f'CREATE INDEX IF NOT EXISTS "{table.name}_{"_".join(index)}" '
                              f'ON "{table.name}" ({_quoted(index)})')

    def _sequence_column(self) -> str:
        """``_seq``: a number per row, larger for every later insert, so it orders rows as inserted."""
        raise NotImplementedError

    def _marks(self, count: int) -> str:
        return ", ".join([self.placeholder] * count)

    @functools.cached_property
    def _insert_sql(self) -> dict[str, str]:
        out = {}
        for s in ALL_SHEETS:
            names = (ROW_KEY, *s.all_column_names)
            out[s.name] = (f'INSERT INTO "{s.name}" ({_quoted(names)}) VALUES ({self._marks(len(names))}) '
                           f"ON CONFLICT ({ROW_KEY}) DO NOTHING")
        return out

    # --- writing ------------------------------------------------------------------------
    def write(self, sheet: str | Sheet, rows: Iterable[Mapping[str, Any]]) -> int:
        """Insert rows in one transaction; rows whose ``row_key`` exists are skipped.

        A row without ``row_key`` gets one from its content. Unknown columns are an error
        (never a silent drop). Returns the number of rows actually inserted.
        """
        s = sheet if isinstance(sheet, Sheet) else sheet_named(sheet)
        with self.transaction():
            return self._insert(s, rows)

    def _insert(self, s: Sheet, rows: Iterable[Mapping[str, Any]]) -> int:
        batch = encode_rows(s, rows)
        if not batch:
            return 0
        return self._executemany(self._insert_sql[s.name], batch)

    def write_many(self, rows_by_sheet: Mapping[str, Sequence[Mapping[str, Any]]]) -> dict[str, int | Exception]:
        """Write several sheets in one transaction, each sheet in its own savepoint: a sheet
        that fails is rolled back alone and reported as its exception, the others commit."""
        result: dict[str, int | Exception] = {}
        with self.transaction():
            for name, rows in rows_by_sheet.items():
                if not rows:
                    continue
                self._execute("SAVEPOINT sheet")
                try:
                    result[name] = self._insert(sheet_named(name), rows)
                    self._execute("RELEASE SAVEPOINT sheet")
                except StoreUnavailable:
                    raise  # the store, not the sheet: the whole transaction fails
                except (*self.db_errors, StoreError) as exc:
                    self._execute("ROLLBACK TO SAVEPOINT sheet")
                    self._execute("RELEASE SAVEPOINT sheet")
                    result[name] = exc
        return result

    def write_run(self, rows: Mapping[str, Sequence[Mapping[str, Any]]], *,
                  derived: Callable[[Mapping[str, int]], Mapping[str, Sequence[Mapping[str, Any]]]] | None = None,
                  ) -> list[str]:
        """Store one run: its rows of every sheet and then ``derived(stored)`` -- rows made from
        how many rows of each sheet the store took, such as the run's ``log_tests`` row, written
        over any row of the same key -- in one transaction. A sheet the store refuses is rolled
        back alone and reported in the problems returned; a refused ``runs`` row is the run
        refused: everything is rolled back and the error raised. :class:`StoreUnavailable`
        (the store, not a row) is raised with nothing stored."""
        problems: list[str] = []
        stored: dict[str, int] = {}
        with self.transaction():
            for name, outcome in self.write_many(rows).items():
                if isinstance(outcome, Exception):
                    if name == "runs":
                        raise outcome
                    problems.append(f"storing {name}: {outcome}")
                else:
                    stored[name] = outcome
            link_turns(self, rows.get("runs", ()))
            if derived is not None:
                name = "rows derived from the run's"
                try:
                    for name, extra in derived(stored).items():
                        self.replace(name, extra)
                except StoreUnavailable:
                    raise
                except Exception as exc:  # noqa: BLE001 - the run's rows stand without what is derived from them
                    problems.append(f"{name}: {exc}")
        return problems

    def write_scores(self, rows: Sequence[Mapping[str, Any]], *, replace: bool = False,
                     passed: Callable[[str | None, list[dict[str, Any]]], bool | None],
                     settled: Sequence[tuple[str, str, str]] = (), also: Sequence[str] = ()) -> int:
        """Write scores rows and, in the same transaction, each of their runs' pass:
        ``passed(status, the run's scores rows: passed, error, scorer)`` (the one definition,
        given by the caller), stored in ``runs.passed``. ``replace``: a score of the same run
        and name is overwritten; else it is kept and the new one skipped. ``settled``: (run id,
        row key, error) of places held for scores, removed first when they still hold that
        error (the scorer has run: its scores take their place, whatever their names).
        ``also``: runs whose pass is recomputed too (a thread's score that moved from them to a
        later turn). Each row gets its run's ``experiment`` and ``case_id`` (the scores sheet
        reads alone). Returns the rows written."""
        if not rows and not settled and not also:
            return 0
        ids = list(dict.fromkeys([*(str(r["run_id"]) for r in rows), *(run_id for run_id, _, _ in settled), *also]))
        mark = self.placeholder
        # (immediate: it reads what it then writes, while other processes may be writing runs)
        with self.transaction(immediate=True):
            if settled:
                self._executemany(f'DELETE FROM "scores" WHERE {ROW_KEY} = {mark} AND error = {mark}',
                                  [(key, error) for _, key, error in settled])
            places = {r["run_id"]: r for r in self.rows("runs", ids, columns=["run_id", "experiment", "case_id"])}
            rows = [{**r, "experiment": places.get(str(r["run_id"]), {}).get("experiment"),
                     "case_id": places.get(str(r["run_id"]), {}).get("case_id")} for r in rows]
            written = (self.replace("scores", rows) if replace else self._insert(sheet_named("scores"), rows)) if rows else 0
            self._store_passed(ids, passed)
        return written

    def delete_scores(self, run_ids: Sequence[str], names: Sequence[str], *,
                      passed: Callable[[str | None, list[dict[str, Any]]], bool | None]) -> int:
        """Delete the scores named ``names`` of the runs ``run_ids`` and, in the same
        transaction, store each of those runs' pass again (see :meth:`write_scores`).
        Returns the rows deleted."""
        ids, wanted = list(dict.fromkeys(run_ids)), list(dict.fromkeys(names))
        if not ids or not wanted:
            return 0
        deleted = 0
        with self.transaction(immediate=True):
            for start in range(0, len(ids), 500):
                chunk = ids[start:start + 500]
                found = self._fetchall(
                    f'SELECT COUNT(*) FROM "scores" WHERE run_id IN ({self._marks(len(chunk))}) '
                    f"AND name IN ({self._marks(len(wanted))})", [*chunk, *wanted])
                deleted += int(found[0][0])
                self._execute(f'DELETE FROM "scores" WHERE run_id IN ({self._marks(len(chunk))}) '
                              f"AND name IN ({self._marks(len(wanted))})", [*chunk, *wanted])
                self._store_passed(chunk, passed)
        return deleted

    def _store_passed(self, ids: Sequence[str],
                      passed: Callable[[str | None, list[dict[str, Any]]], bool | None]) -> None:
        """``runs.passed`` of the runs ``ids`` from their scores now (inside the caller's transaction)."""
        mark = self.placeholder
        statuses = {r["run_id"]: r["status"] for r in self.rows("runs", ids, columns=["run_id", "status"])}
        scores: dict[str, list[dict[str, Any]]] = {run_id: [] for run_id in statuses}
        for r in self.rows("scores", ids, columns=["run_id", "passed", "error", "scorer"]):
            scores.setdefault(r["run_id"], []).append(r)
        updates = []
        for run_id, status in statuses.items():
            verdict = passed(status, scores.get(run_id, []))
            updates.append((None if verdict is None else int(verdict), run_id))
        self._executemany(f'UPDATE "runs" SET passed = {mark} WHERE run_id = {mark}', updates)

    def replace(self, sheet: str | Sheet, rows: Iterable[Mapping[str, Any]]) -> int:
        """Insert rows, or overwrite in place any row with the same ``row_key`` (for rows
        that are recomputed, like a run's ``log_tests``): a replaced row keeps its place in
        the sheet. Returns the number of rows inserted or replaced."""
        s = sheet if isinstance(sheet, Sheet) else sheet_named(sheet)
        batch = encode_rows(s, [{**r, ROW_KEY: r.get(ROW_KEY) or content_key(s.name, r)} for r in rows])
        if not batch:
            return 0
        mark = self.placeholder
        assignments = ", ".join(f'"{n}" = {mark}' for n in s.all_column_names)
        with self.transaction():
            present = {k for (k,) in self._fetchall(
                f'SELECT {ROW_KEY} FROM "{s.name}" WHERE {ROW_KEY} IN ({self._marks(len(batch))})',
                [values[0] for values in batch])}
            updates = [[*values[1:], values[0]] for values in batch if values[0] in present]
            if updates:
                self._executemany(f'UPDATE "{s.name}" SET {assignments} WHERE {ROW_KEY} = {mark}', updates)
            inserts = [values for values in batch if values[0] not in present]
            if inserts:
                self._executemany(self._insert_sql[s.name], inserts)
        return len(batch)

    def update(self, sheet: str | Sheet, rows: Iterable[Mapping[str, Any]]) -> int:
        """Set some columns of rows already stored, each found by its ``row_key``: every
        mapping holds the key and the columns to set (mappings may set different columns),
        in one transaction (a savepoint of the caller's). A key the sheet does not hold
        changes nothing; an unknown column is an error. Returns the rows changed."""
        s = sheet if isinstance(sheet, Sheet) else sheet_named(sheet)
        groups: dict[tuple[str, ...], list[list[Any]]] = {}
        for row in rows:
            names = tuple(n for n in row if n != ROW_KEY)
            try:
                kinds = [s.column(n).kind for n in names]
            except KeyError as exc:
                raise StoreError(str(exc.args[0])) from None
            if names:
                groups.setdefault(names, []).append(
                    [*(encode_value(k, row[n]) for n, k in zip(names, kinds)), row[ROW_KEY]])
        if not groups:
            return 0
        mark, changed = self.placeholder, 0
        with self.transaction():
            for names, batch in groups.items():
                assignments = ", ".join(f'"{n}" = {mark}' for n in names)
                changed += self._executemany(f'UPDATE "{s.name}" SET {assignments} WHERE {ROW_KEY} = {mark}', batch)
        return changed

    # --- one holder at a time -----------------------------------------------------------
    @contextlib.contextmanager
    def exclusive(self, key: str) -> Iterator[None]:
        """Hold ``key`` for the ``with`` block, alone among every process using this store
        (e.g. one rescore of an experiment at a time); :class:`StoreBusy` at once when another
        holds it. Released when the block ends, and by the system when the process dies (an
        engine's lock: a file lock beside a SQLite file, a PostgreSQL session advisory lock)."""
        token = (self.location, key)
        with _held_lock:
            if token in _held:
                raise StoreBusy(f"{key!r} is held by another task of this process")
            _held.add(token)
        try:
            with self._lock:
                taken = self._try_hold(key)
            if not taken:
                raise StoreBusy(f"{key!r} is held by another process using store {self.display!r}")
            try:
                yield
            finally:
                with self._lock, contextlib.suppress(Exception):
                    self._let_go(key)
        finally:
            with _held_lock:
                _held.discard(token)

    def _try_hold(self, key: str) -> bool:
        """Take the engine's lock of ``key`` without waiting; whether it was free (by default:
        a store no other process can open needs none)."""
        return True

    def _let_go(self, key: str) -> None:
        """Release the engine's lock of ``key``."""

    # --- reading ------------------------------------------------------------------------
    def rows(
        self,
        sheet: str | Sheet,
        run_ids: Sequence[str] | None = None,
        *,
        with_keys: bool = False,
        decode_json: bool = True,
        columns: Sequence[str] | None = None,
        where: Mapping[str, Any] | None = None,
        newest_first: bool = False,
        limit: int | None = None,
        clip: int | None = None,
        at_least: Mapping[str, Any] | None = None,
    ) -> Iterator[dict[str, Any]]:
        """Rows of a sheet in insertion order (``newest_first``: the reverse), filtered in the
        store: only the rows of ``run_ids``; only those whose columns equal ``where``'s values
        (a list or tuple: any of them; None: empty); at most ``limit`` rows. ``columns`` names
        the columns to read (all by default). ``clip`` cuts text and JSON cells to that many
        characters in the store, for readers that show a glimpse of large payloads (a cut
        JSON cell comes back as its text). ``at_least``: only rows whose columns are at least
        these values (ISO times compare as text: ``{"started_at": "2026-05-01T00:00:00+00:00"}``).

        Read in pages of ``PAGE_ROWS`` rows (keyset on ``_seq``), so memory stays flat however
        many rows a sheet holds (an export of a million rows); the lock is held per page.
        """
        s = sheet if isinstance(sheet, Sheet) else sheet_named(sheet)
        names = tuple(columns) if columns is not None else s.all_column_names
        kinds = [s.column(n).kind for n in names]  # an unknown column is a KeyError naming it
        mark = self.placeholder
        conditions, params = [], []
        if run_ids is not None:
            ids = list(run_ids)
            if not ids:
                return
            conditions.append(f"run_id IN ({self._marks(len(ids))})")
            params += ids
        for name, value in (where or {}).items():
            s.column(name)
            if value is None:
                conditions.append(f'"{name}" IS NULL')
            elif isinstance(value, (list, tuple, set, frozenset)):
                values = list(value)
                if not values:
                    return
                conditions.append(f'"{name}" IN ({self._marks(len(values))})')
                params += values
            else:
                conditions.append(f'"{name}" = {mark}')
                params.append(value)
        for name, value in (at_least or {}).items():
            s.column(name)
            conditions.append(f'"{name}" >= {mark}')
            params.append(value)
        step = "<" if newest_first else ">"
        selected = [f'substr("{n}", 1, {int(clip)})' if clip is not None and k in ("text", "json") else f'"{n}"'
                    for n, k in zip(names, kinds)]
        sql = (f'SELECT {", ".join(("_seq", ROW_KEY, *selected))} FROM "{s.name}" '
               f"WHERE _seq {step} {mark}{''.join(' AND ' + c for c in conditions)} "
               f"ORDER BY _seq {'DESC' if newest_first else 'ASC'} LIMIT {mark}")
        last = (1 << 63) - 1 if newest_first else 0
        left = limit if limit is not None else None
        json_names = [n for n, k in zip(names, kinds) if k == "json"] if decode_json else []
        while left is None or left > 0:
            size = PAGE_ROWS if left is None else min(PAGE_ROWS, left)
            page = self._fetchall(sql, (last, *params, size))
            for record in page:
                row = dict(zip(names, record[2:]))
                for n in json_names:
                    row[n] = decode("json", row[n])
                if with_keys:
                    row[ROW_KEY] = record[1]
                yield row
            if len(page) < size:
                return
            last = page[-1][0]
            if left is not None:
                left -= len(page)

    def count(self, sheet: str, run_id: str | None = None) -> int:
        s = sheet_named(sheet)
        sql = f'SELECT COUNT(*) FROM "{s.name}"'
        params: tuple[Any, ...] = ()
        if run_id is not None:
            sql += f" WHERE run_id = {self.placeholder}"
            params = (run_id,)
        return int(self._fetchall(sql, params)[0][0])

    def counts(self, run_id: str) -> dict[str, int]:
        """Rows per sheet for one run, in spec order."""
        return {name: self.count(name, run_id) for name in SHEET_NAMES}

    def run_ids(self) -> list[str]:
        return [r[0] for r in self._fetchall('SELECT run_id FROM "runs" ORDER BY _seq')]

    def run_ids_starting(self, prefix: str, limit: int = 2) -> list[str]:
        """Up to ``limit`` run ids that start with ``prefix``, found through the run_id index
        (a range, not a scan: every id starting with the prefix sorts between the prefix and
        the prefix followed by the largest code point)."""
        mark = self.placeholder
        return [r[0] for r in self._fetchall(
            f'SELECT run_id FROM "runs" WHERE run_id >= {mark} AND run_id < {mark} ORDER BY run_id LIMIT {mark}',
            (prefix, prefix + "\U0010ffff", limit))]

    def resolve_run_id(self, text: str) -> str:
        """The run ``text`` names: its full id, or a unique start of it of at least
        :data:`~.errors.MIN_PREFIX` characters; :class:`RunIdError` (one line) otherwise."""
        given = text.strip()
        found = self.run_ids_starting(given, limit=3) if given else []
        return one_named(given, found, RunIdError, kind="run", start="prefix",
                         missing=f"no run {given!r} in store {self.display}")

    def resolve_run_ids(self, texts: Iterable[str]) -> list[str]:
        """Each of ``texts`` resolved (:meth:`resolve_run_id`), duplicates dropped, order kept."""
        return list(dict.fromkeys(self.resolve_run_id(text) for text in texts))

    def sheets(self, run_ids: Sequence[str] | None = None, *, sheets: Iterable[str] | None = None,
               columns: Mapping[str, Sequence[str]] | Sequence[str] | None = None,
               experiment: str | Sequence[str] | None = None) -> dict[str, pd.DataFrame]:
        """The sheets as DataFrames (spec order; spec columns first, then extras), read in
        the store as far as asked: ``run_ids`` / ``experiment`` (one name or several) keep
        those runs' rows, ``sheets`` names the sheets to read (default all sixteen) and
        ``columns`` the columns (one list for every sheet that has them, or per sheet).

        Columns have their schema kind's dtype: ``Int64``, ``float64``, and for timestamps
        UTC ``datetime64`` (a timestamp column holding text that is not ISO 8601 stays
        text rather than lose it); JSON cells are decoded."""
        import pandas as pd

        if experiment is not None:
            names = [experiment] if isinstance(experiment, str) else list(experiment)
            found = [r["run_id"] for r in self.rows("runs", where={"experiment": names}, columns=["run_id"])]
            of_experiment = frozenset(found)
            run_ids = found if run_ids is None else [r for r in run_ids if r in of_experiment]
        wanted = [sheet_named(name) for name in sheets] if sheets is not None else list(ALL_SHEETS)
        if columns is not None and not isinstance(columns, Mapping):
            every = list(columns)
            unknown = set(every) - {c.name for s in wanted for c in s.all_columns}
            if unknown:
                raise KeyError(f"no sheet read has column(s) {', '.join(sorted(unknown))}")
            columns = {s.name: [n for n in every if n in s.all_column_names] for s in wanted}
        frames = {}
        for s in sorted(wanted, key=lambda s: ALL_SHEET_NAMES.index(s.name)):
            names = list(columns.get(s.name, s.all_column_names)) if columns is not None else list(
                s.all_column_names)
            frame = pd.DataFrame(list(self.rows(s, run_ids, columns=names)), columns=names)
            for name in names:
                kind = s.column(name).kind
                if kind == "int":
                    frame[name] = frame[name].astype("Int64")
                elif kind == "float":
                    frame[name] = frame[name].astype("float64")
                elif kind == "datetime":
                    with contextlib.suppress(ValueError, TypeError):
                        frame[name] = pd.to_datetime(frame[name], utc=True, format="ISO8601")
            frames[s.name] = frame
        return frames

    # --- assessments (save_to_database) -------------------------------------------------
    def upsert_assessment(self, run_id: str, company_name: str, record: Mapping[str, Any], updated_at: str) -> None:
        marks = self._marks(4)
        with self.transaction():
            self._execute(
                f"INSERT INTO assessment_records (run_id, company_name, record, updated_at) VALUES ({marks}) "
                "ON CONFLICT(run_id) DO UPDATE SET company_name=excluded.company_name, "
                "record=excluded.record, updated_at=excluded.updated_at",
                (run_id, company_name, json_text(record), updated_at),
            )

    def assessment(self, run_id: str) -> dict[str, Any] | None:
        found = self._fetchall(f"SELECT record FROM assessment_records WHERE run_id = {self.placeholder}", (run_id,))
        return json.loads(found[0][0]) if found else None

    # --- experiments (harness.experiment) --------------------------------------------------
    def save_experiment(self, name: str, record: Mapping[str, Any]) -> None:
        """Record (or update) an experiment: its target, dataset, commit, models, times."""
        with self.transaction():
            self._execute(
                f"INSERT INTO experiments (name, record, started_at) VALUES ({self._marks(3)}) "
                "ON CONFLICT(name) DO UPDATE SET record=excluded.record",
                (name, json_text(record), str(record.get("started_at") or "")),
            )

    def experiment_record(self, name: str) -> dict[str, Any] | None:
        found = self._fetchall(f"SELECT record FROM experiments WHERE name = {self.placeholder}", (name,))
        return json.loads(found[0][0]) if found else None

    def experiment_records(self) -> list[dict[str, Any]]:
        """Every recorded experiment, oldest first."""
        return [json.loads(r[0]) for r in self._fetchall("SELECT record FROM experiments ORDER BY started_at, name")]

    # --- the store's own facts (schema version, last batch) ------------------------------
    def meta(self, key: str) -> str | None:
        found = self._fetchall(f"SELECT value FROM harness_meta WHERE key = {self.placeholder}", (key,))
        return found[0][0] if found else None

    def set_meta(self, key: str, value: str) -> None:
        with self.transaction():
            self._execute(f"DELETE FROM harness_meta WHERE key = {self.placeholder}", (key,))
            self._execute(f"INSERT INTO harness_meta (key, value) VALUES ({self._marks(2)})", (key, value))

    # --- export bookkeeping (exactly-once pushes) ---------------------------------------
    def exported_keys(self, target: str, sheet: str) -> set[str]:
        """Row keys of ``sheet`` that ``target`` (e.g. a spreadsheet id) has acknowledged."""
        mark = self.placeholder
        return {r[0] for r in self._fetchall(
            f"SELECT {ROW_KEY} FROM export_marks WHERE target = {mark} AND sheet = {mark}", (target, sheet))}

    def mark_exported(self, target: str, sheet: str, keys: Iterable[str]) -> None:
        with self.transaction():
            self._executemany(
                f"INSERT INTO export_marks (target, sheet, {ROW_KEY}) VALUES ({self._marks(3)}) "
                "ON CONFLICT DO NOTHING",
                [(target, sheet, k) for k in keys],
            )


#: Stores open in this process (for a forked child to reopen), and the connections a forked
#: child inherited, kept referenced so they are never used or closed there.
_open_stores: weakref.WeakSet[Store] = weakref.WeakSet()
_inherited: list[Any] = []
#: (store location, key) held by :meth:`Store.exclusive` in this process.
_held: set[tuple[str, str]] = set()
_held_lock = threading.Lock()


def lock_number(key: str) -> int:
    """A key as a signed 64-bit number (PostgreSQL's advisory lock id, a byte of a lock file)."""
    return int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big", signed=True)


def _after_fork_in_child() -> None:
    for store in list(_open_stores):
        store._forget_after_fork()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
