"""The run store: the system of record for every sheet row.

SQLite (stdlib) in WAL mode so readers see committed rows while runs are still writing.
One table per sheet, derived from :mod:`harness.schema`; every row has a ``row_key``
(unique), so writing the same batch twice -- a retry after a timeout, a resumed export --
never duplicates a row. Values are stored by their schema kind: JSON columns as compact
JSON text, timestamps as ISO 8601 text, numbers as numbers.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import sqlite3
import threading
import weakref
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .schema import SHEET_NAMES, SHEETS, Sheet, sheet as sheet_named

if TYPE_CHECKING:
    import pandas as pd  # imported when sheets are read: the writer process never needs it

ENV_STORE = "HARNESS_STORE"
DEFAULT_STORE = "harness.db"

ROW_KEY = "row_key"
_PAGE = 2_000  # rows read per query by Store.rows


class StoreError(RuntimeError):
    """The store could not be opened or written."""


def resolve_store_path(url: str | os.PathLike[str] | None = None) -> Path:
    """Argument > ``$HARNESS_STORE`` > ``./harness.db``. Accepts ``sqlite:///path`` URLs."""
    raw = os.fspath(url) if url is not None else os.environ.get(ENV_STORE) or DEFAULT_STORE
    if raw.startswith(("postgresql://", "postgres://")):
        raise StoreError("PostgreSQL stores are not supported yet; use a SQLite path or sqlite:/// URL")
    if raw.startswith("sqlite:///"):
        raw = raw[len("sqlite:///"):]
    elif raw.startswith("sqlite://"):
        raise StoreError(f"unsupported store URL {raw!r}; use sqlite:///path/to/file.db")
    elif "://" in raw:
        raise StoreError(f"unsupported store URL {raw!r}; use a file path or sqlite:///path")
    return Path(raw).expanduser()


def json_text(value: Any) -> str:
    """Compact, stable JSON; anything json cannot encode is written with ``str``."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, default=str)


def _encode_int(value: Any) -> int | None:
    if isinstance(value, float):
        return int(round(value)) if value == value else None
    return int(value)


_ENCODERS = {
    "json": lambda v: v if isinstance(v, str) else json_text(v),
    "int": _encode_int,
    "float": float,
    "datetime": lambda v: v if isinstance(v, str) else v.isoformat(),
    "text": lambda v: v if isinstance(v, str) else str(v),
}


#: The type a value of each kind is stored as: a value already of that type is stored as it is.
_STORED_TYPES = {"json": str, "int": int, "float": float, "datetime": str, "text": str}


@functools.cache
def _plan(name: str) -> tuple[frozenset[str], tuple[str, ...], tuple[frozenset[type], ...],
                              tuple[tuple[type, Any], ...], str]:
    """Per sheet, once: the allowed keys, the stored names in order (row key first), the
    types each position stores as they are, its stored type and encoder, and the INSERT."""
    s = sheet_named(name)
    cols = ", ".join(f'"{n}"' for n in s.all_column_names)
    marks = ", ".join("?" * (len(s.all_column_names) + 1))
    kinds = ("text", *(c.kind for c in s.all_columns))
    return (
        frozenset(s.all_column_names) | {ROW_KEY},
        (ROW_KEY, *s.all_column_names),
        tuple(frozenset({_STORED_TYPES[k], type(None)}) for k in kinds),
        tuple((_STORED_TYPES[k], _ENCODERS[k]) for k in kinds),
        f'INSERT OR IGNORE INTO "{s.name}" ({ROW_KEY}, {cols}) VALUES ({marks})',
    )


def _decode(kind: str, value: Any) -> Any:
    if value is None or kind != "json":
        return value
    try:
        return json.loads(value)
    except (TypeError, ValueError):
        return value


def content_key(sheet: str, row: Mapping[str, Any]) -> str:
    """A row key from the row's content, for rows without a natural id."""
    digest = hashlib.sha1(f"{sheet}\x00{json_text(sorted(row.items()))}".encode()).hexdigest()
    return digest


class Store:
    """A SQLite file holding one table per sheet. Thread-safe; one connection, one lock.

    Fork-safe: a forked child gets a lock of its own and, on first use, a connection of its
    own (SQLite forbids carrying a connection across ``fork()``, and the parent's lock may be
    held by a thread the child does not have).
    """

    def __init__(self, url: str | os.PathLike[str] | None = None) -> None:
        self.path = resolve_store_path(url)
        self.absolute_path = self.path.absolute()  # as of opening, whatever the process's cwd becomes
        self._lock = threading.RLock()
        self._depth = 0
        try:
            if self.path.parent and not self.path.parent.exists():
                self.path.parent.mkdir(parents=True, exist_ok=True)
            self._connection: sqlite3.Connection | None = self._connect()
            self._create_tables()
        except (OSError, sqlite3.Error) as exc:
            raise StoreError(f"cannot open store {str(self.path)!r}: {exc}") from None
        _open_stores.add(self)

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.absolute_path, check_same_thread=False, timeout=30)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        return conn

    @property
    def _conn(self) -> sqlite3.Connection:
        """The connection (used under the store's lock); opened anew on first use in a forked child."""
        conn = self._connection
        if conn is None:
            try:
                conn = self._connection = self._connect()
            except (OSError, sqlite3.Error) as exc:
                raise StoreError(f"cannot reopen store {str(self.path)!r} after fork: {exc}") from None
        return conn

    def _forget_after_fork(self) -> None:
        """In a forked child: the inherited connection is set aside unused (never closed:
        closing could checkpoint or remove the WAL the parent is using); the next use opens
        one of the child's own. The lock is new too: a parent thread may have held it."""
        if self._connection is not None:
            _inherited.append(self._connection)
        self._connection = None
        self._lock = threading.RLock()
        self._depth = 0

    def __repr__(self) -> str:
        return f"Store({str(self.path)!r})"

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        """One explicit transaction (nestable: inner uses join the outer one), committed on
        success and rolled back on error. Every write goes through it, so the savepoints of
        :meth:`write_many` live inside a real transaction instead of each committing alone."""
        with self._lock:
            if self._depth:
                self._depth += 1
                try:
                    yield
                finally:
                    self._depth -= 1
                return
            self._conn.execute("BEGIN")
            self._depth = 1
            try:
                yield
            except BaseException:
                self._depth = 0
                self._conn.rollback()
                raise
            self._depth = 0
            self._conn.commit()

    # --- schema -------------------------------------------------------------------------
    def _create_tables(self) -> None:
        with self.transaction():
            for s in SHEETS:
                cols = ", ".join(f'"{c.name}" {_SQL_TYPES[c.kind]}' for c in s.all_columns)
                # _seq is the rowid: a new row gets the largest plus one, so it orders rows as
                # inserted. (AUTOINCREMENT would only add never reusing a deleted largest id,
                # for a write to sqlite_sequence per row: a third of the cost of an insert.)
                self._conn.execute(
                    f'CREATE TABLE IF NOT EXISTS "{s.name}" '
                    f'(_seq INTEGER PRIMARY KEY, {ROW_KEY} TEXT NOT NULL UNIQUE, {cols})'
                )
                self._conn.execute(f'CREATE INDEX IF NOT EXISTS "{s.name}_run" ON "{s.name}"(run_id)')
            self._conn.execute(
                "CREATE TABLE IF NOT EXISTS assessment_records ("
                "run_id TEXT PRIMARY KEY, company_name TEXT, record TEXT NOT NULL, updated_at TEXT)"
            )
            self._conn.execute(
                "CREATE TABLE IF NOT EXISTS export_marks (target TEXT NOT NULL, sheet TEXT NOT NULL, "
                f"{ROW_KEY} TEXT NOT NULL, PRIMARY KEY (target, sheet, {ROW_KEY}))"
            )

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
        allowed, names, accepted, encoders, sql = _plan(s.name)
        batch = []
        for row in rows:
            if not allowed.issuperset(row):
                unknown = set(row) - allowed
                raise StoreError(f"sheet {s.name!r} has no column(s) {', '.join(sorted(unknown))}")
            values = list(map(row.get, names))
            if not values[0]:
                values[0] = content_key(s.name, row)
            # Most rows hold only values already of their stored type: checked in one C pass.
            if not all(map(frozenset.__contains__, accepted, map(type, values))):
                for i, (value, (stored, encode)) in enumerate(zip(values, encoders)):
                    if value is not None and value.__class__ is not stored:
                        values[i] = encode(value)
            batch.append(values)
        if not batch:
            return 0
        before = self._conn.total_changes
        self._conn.executemany(sql, batch)
        return self._conn.total_changes - before

    def write_many(self, rows_by_sheet: Mapping[str, Sequence[Mapping[str, Any]]]) -> dict[str, int | Exception]:
        """Write several sheets in one transaction, each sheet in its own savepoint: a sheet
        that fails is rolled back alone and reported as its exception, the others commit."""
        result: dict[str, int | Exception] = {}
        with self.transaction():
            for name, rows in rows_by_sheet.items():
                if not rows:
                    continue
                self._conn.execute("SAVEPOINT sheet")
                try:
                    result[name] = self._insert(sheet_named(name), rows)
                    self._conn.execute("RELEASE SAVEPOINT sheet")
                except (sqlite3.Error, StoreError) as exc:
                    self._conn.execute("ROLLBACK TO SAVEPOINT sheet")
                    self._conn.execute("RELEASE SAVEPOINT sheet")
                    result[name] = exc
        return result

    def replace(self, sheet: str | Sheet, rows: Iterable[Mapping[str, Any]]) -> int:
        """Insert rows, replacing any row with the same ``row_key`` (for rows that are
        recomputed, like a run's ``log_tests``)."""
        s = sheet if isinstance(sheet, Sheet) else sheet_named(sheet)
        rows = list(rows)
        keys = [r.get(ROW_KEY) or content_key(s.name, r) for r in rows]
        with self.transaction():
            self._conn.executemany(f'DELETE FROM "{s.name}" WHERE {ROW_KEY} = ?', [(k,) for k in keys])
            return self._insert(s, [{**r, ROW_KEY: k} for r, k in zip(rows, keys)])

    # --- reading ------------------------------------------------------------------------
    def rows(
        self,
        sheet: str | Sheet,
        run_ids: Sequence[str] | None = None,
        *,
        with_keys: bool = False,
        decode_json: bool = True,
    ) -> Iterator[dict[str, Any]]:
        """Rows of a sheet in insertion order, optionally only those of ``run_ids``.

        Read in pages of ``_PAGE`` rows (keyset on ``_seq``), so memory stays flat however
        many rows a sheet holds (an export of a million rows); the lock is held per page.
        """
        s = sheet if isinstance(sheet, Sheet) else sheet_named(sheet)
        cols = ", ".join(f'"{n}"' for n in s.all_column_names)
        sql = f'SELECT _seq, {ROW_KEY}, {cols} FROM "{s.name}" WHERE _seq > ?'
        params: tuple[Any, ...] = ()
        if run_ids is not None:
            ids = list(run_ids)
            if not ids:
                return
            sql += f" AND run_id IN ({', '.join('?' * len(ids))})"
            params = tuple(ids)
        sql += f" ORDER BY _seq LIMIT {_PAGE}"
        kinds = [c.kind for c in s.all_columns]
        names = s.all_column_names
        last = 0
        while True:
            with self._lock:
                page = self._conn.execute(sql, (last, *params)).fetchall()
            for record in page:
                row = {
                    n: (_decode(k, v) if decode_json else v)
                    for n, k, v in zip(names, kinds, record[2:])
                }
                if with_keys:
                    row[ROW_KEY] = record[1]
                yield row
            if len(page) < _PAGE:
                return
            last = page[-1][0]

    def count(self, sheet: str, run_id: str | None = None) -> int:
        s = sheet_named(sheet)
        sql = f'SELECT COUNT(*) FROM "{s.name}"'
        params: tuple[Any, ...] = ()
        if run_id is not None:
            sql += " WHERE run_id = ?"
            params = (run_id,)
        with self._lock:
            return int(self._conn.execute(sql, params).fetchone()[0])

    def counts(self, run_id: str) -> dict[str, int]:
        """Rows per sheet for one run, in spec order."""
        return {name: self.count(name, run_id) for name in SHEET_NAMES}

    def run_ids(self) -> list[str]:
        with self._lock:
            return [r[0] for r in self._conn.execute('SELECT run_id FROM "runs" ORDER BY _seq')]

    def sheets(self, run_ids: Sequence[str] | None = None) -> dict[str, pd.DataFrame]:
        """The fifteen sheets as DataFrames (spec order; spec columns first, then extras)."""
        import pandas as pd

        frames = {}
        for s in SHEETS:
            rows = list(self.rows(s, run_ids))
            frame = pd.DataFrame(rows, columns=list(s.all_column_names))
            for c in s.all_columns:
                if c.kind == "int":
                    frame[c.name] = frame[c.name].astype("Int64")
                elif c.kind == "float":
                    frame[c.name] = frame[c.name].astype("float64")
            frames[s.name] = frame
        return frames

    # --- assessments (save_to_database) -------------------------------------------------
    def upsert_assessment(self, run_id: str, company_name: str, record: Mapping[str, Any], updated_at: str) -> None:
        with self.transaction():
            self._conn.execute(
                "INSERT INTO assessment_records (run_id, company_name, record, updated_at) VALUES (?, ?, ?, ?) "
                "ON CONFLICT(run_id) DO UPDATE SET company_name=excluded.company_name, "
                "record=excluded.record, updated_at=excluded.updated_at",
                (run_id, company_name, json_text(record), updated_at),
            )

    def assessment(self, run_id: str) -> dict[str, Any] | None:
        with self._lock:
            found = self._conn.execute(
                "SELECT record FROM assessment_records WHERE run_id = ?", (run_id,)
            ).fetchone()
        return json.loads(found[0]) if found else None

    # --- export bookkeeping (exactly-once pushes) ---------------------------------------
    def exported_keys(self, target: str, sheet: str) -> set[str]:
        """Row keys of ``sheet`` that ``target`` (e.g. a spreadsheet id) has acknowledged."""
        with self._lock:
            return {
                r[0]
                for r in self._conn.execute(
                    f"SELECT {ROW_KEY} FROM export_marks WHERE target = ? AND sheet = ?", (target, sheet)
                )
            }

    def mark_exported(self, target: str, sheet: str, keys: Iterable[str]) -> None:
        with self.transaction():
            self._conn.executemany(
                f"INSERT OR IGNORE INTO export_marks (target, sheet, {ROW_KEY}) VALUES (?, ?, ?)",
                [(target, sheet, k) for k in keys],
            )

    def close(self) -> None:
        with self._lock:
            if self._connection is not None:
                self._connection.close()
        _open_stores.discard(self)


#: Stores open in this process (for a forked child to reopen), and the connections a forked
#: child inherited, kept referenced so they are never used or closed there.
_open_stores: weakref.WeakSet[Store] = weakref.WeakSet()
_inherited: list[sqlite3.Connection] = []


def _after_fork_in_child() -> None:
    for store in list(_open_stores):
        store._forget_after_fork()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


_SQL_TYPES = {"text": "TEXT", "int": "INTEGER", "float": "REAL", "json": "TEXT", "datetime": "TEXT"}
