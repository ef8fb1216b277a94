"""The SQLite engine: the embedded default store, one file in WAL mode.

WAL lets readers see committed rows while runs are still writing. Tables key rows by
SQLite's rowid (``_seq``) without AUTOINCREMENT, which would only add never reusing a
deleted largest id, for a write to ``sqlite_sequence`` per row.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
import weakref
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from .base import Store, StoreError, register_engine, store_url


def resolve_store_path(url: str | os.PathLike[str] | None = None) -> Path:
    """Argument > ``$HARNESS_STORE`` > ``./harness.db``. Accepts ``sqlite:///path`` URLs."""
    raw = store_url(url)
    if raw.startswith(("postgresql://", "postgres://")):
        raise StoreError("PostgreSQL stores are not supported yet; use a SQLite path or sqlite:/// URL")
    if raw.startswith("sqlite:///"):
        raw = raw[len("sqlite:///"):]
    elif raw.startswith("sqlite://"):
        raise StoreError(f"unsupported store URL {raw!r}; use sqlite:///path/to/file.db")
    elif "://" in raw:
        raise StoreError(f"unsupported store URL {raw!r}; use a file path or sqlite:///path")
    return Path(raw).expanduser()


@register_engine
class SQLiteStore(Store):
    """A SQLite file holding one table per sheet. Thread-safe; one connection, one lock.

    Fork-safe: a forked child gets a lock of its own and, on first use, a connection of its
    own (SQLite forbids carrying a connection across ``fork()``, and the parent's lock may be
    held by a thread the child does not have).
    """

    placeholder = "?"
    sql_types = {"text": "TEXT", "int": "INTEGER", "float": "REAL", "json": "TEXT", "datetime": "TEXT"}
    db_errors = (sqlite3.Error,)

    @classmethod
    def accepts(cls, url: str) -> bool:
        return True  # a path or a sqlite:/// URL; anything else is refused with a reason on opening

    def __init__(self, url: str | os.PathLike[str] | None = None) -> None:
        self.path = resolve_store_path(url)
        self.absolute_path = self.path.absolute()  # as of opening, whatever the process's cwd becomes
        self._lock = threading.RLock()
        self._depth = 0
        try:
            if self.path.parent and not self.path.parent.exists():
                self.path.parent.mkdir(parents=True, exist_ok=True)
            self._connection: sqlite3.Connection | None = self._connect()
            self._prepare_schema()
        except (OSError, sqlite3.Error) as exc:
            raise StoreError(f"cannot open store {str(self.path)!r}: {exc}") from None
        _open_stores.add(self)

    def __repr__(self) -> str:
        return f"Store({str(self.path)!r})"

    @property
    def location(self) -> str:
        return str(self.absolute_path)

    @property
    def shareable(self) -> bool:
        return str(self.path) not in ("", ":memory:")

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

    @contextlib.contextmanager
    def transaction(self, *, immediate: bool = False) -> Iterator[None]:
        """Every write goes through one, so the savepoints of :meth:`write_many` live inside a
        real transaction instead of each committing alone."""
        with self._lock:
            if self._depth:  # nested: a savepoint, so a failure inside undoes only its own part
                name = f"tx{self._depth}"
                self._conn.execute(f"SAVEPOINT {name}")
                self._depth += 1
                try:
                    yield
                except BaseException:
                    self._conn.execute(f"ROLLBACK TO SAVEPOINT {name}")
                    raise
                finally:
                    self._depth -= 1
                    self._conn.execute(f"RELEASE SAVEPOINT {name}")
                return
            self._conn.execute("BEGIN IMMEDIATE" if immediate else "BEGIN")
            self._depth = 1
            try:
                yield
            except BaseException:
                self._depth = 0
                self._conn.rollback()
                raise
            self._depth = 0
            self._conn.commit()

    def _sequence_column(self) -> str:
        # The rowid: a new row gets the largest plus one.
        return "_seq INTEGER PRIMARY KEY"

    def _table_columns(self, table: str) -> list[str]:
        return [row[1] for row in self._fetchall(f'PRAGMA table_info("{table}")')]

    def _execute(self, sql: str, params: Sequence[Any] = ()) -> None:
        self._conn.execute(sql, params)

    def _executemany(self, sql: str, batch: Sequence[Sequence[Any]]) -> int:
        conn = self._conn
        before = conn.total_changes
        conn.executemany(sql, batch)
        return conn.total_changes - before

    def _fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        with self._lock:
            return self._conn.execute(sql, params).fetchall()

    def close(self) -> None:
        """Fold the write-ahead log into the database file, then close: the ``.db`` file alone
        (copied, mailed, attached) then holds every committed row."""
        with self._lock:
            if self._connection is not None:
                with contextlib.suppress(sqlite3.Error):  # busy readers elsewhere: their close will do it
                    self._connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
                self._connection.close()
        _open_stores.discard(self)


#: Stores open in this process (for a forked child to reopen), and the connections a forked
#: child inherited, kept referenced so they are never used or closed there.
_open_stores: weakref.WeakSet[SQLiteStore] = weakref.WeakSet()
_inherited: list[sqlite3.Connection] = []


def _after_fork_in_child() -> None:
    for store in list(_open_stores):
        store._forget_after_fork()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
