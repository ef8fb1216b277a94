"""The PostgreSQL engine: one store that many processes on many hosts write at once.

Same tables, columns and order as SQLite (JSON and timestamps as text, so both engines
return the same values), written with multi-row ``INSERT ... ON CONFLICT (row_key) DO
NOTHING`` (a retried write never duplicates). One connection per store, reused: the writer
process keeps it for its life. Opening a store migrates it under an advisory lock, so two
processes opening an old store at once migrate it once. A server that cannot be reached is
:class:`StoreUnavailable` (after a short retry with backoff): the harness then spools runs
and writes them once it can; the CLI says so in one line.

Needs psycopg 3 (the ``postgres`` extra).
"""

from __future__ import annotations

import contextlib
import re
import time
from collections.abc import Iterator, Sequence
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from ..schema import Sheet
from .base import Store, StoreError, StoreUnavailable, lock_number, register_engine, store_url
from .values import encode_rows
from .migrations import SCHEMA_VERSION

EXTRA_MISSING = ("PostgreSQL stores need psycopg: pip install 'langgraph-harness[postgres]' "
                 "(or pip install 'psycopg[binary]')")
CONNECT_TIMEOUT = 4  # seconds per attempt; an unreachable server is reported well within 15 s
CONNECT_ATTEMPTS = 2
MAX_PARAMS = 30_000  # per statement (the protocol allows 65,535)
_MIGRATION_LOCK = 0x6861726E657373  # "harness": the advisory lock opening stores migrate under
_URL = re.compile(r"^postgres(?:ql)?://", re.I)


def safe_url(url: str) -> str:
    """The URL without its password, for messages."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.rsplit("@", 1)
    user = netloc[0].split(":", 1)[0]
    return urlunsplit(parts._replace(netloc=f"{user}:***@{netloc[1]}"))


def _psycopg() -> Any:
    try:
        import psycopg
    except ImportError:
        raise StoreError(EXTRA_MISSING) from None
    return psycopg


@register_engine
class PostgresStore(Store):
    """A PostgreSQL database holding one table per sheet (see the module doc; one connection,
    one lock: see :class:`Store` for its life, ``lazy`` and forks)."""

    placeholder = "%s"
    sql_types = {"text": "TEXT", "int": "BIGINT", "float": "DOUBLE PRECISION", "json": "TEXT", "datetime": "TEXT"}
    db_errors: tuple[type[BaseException], ...] = ()
    clock_sql = "extract(epoch from clock_timestamp())::float8"
    row_lock = " FOR UPDATE OF {table}"
    skip_locked = " FOR UPDATE OF {table} SKIP LOCKED"
    visible_in_order = False  # a row's _seq is drawn when it is inserted, not when it commits

    @classmethod
    def accepts(cls, url: str) -> bool:
        return bool(_URL.match(url))

    def __init__(self, url: str | None = None, *, lazy: bool = False, reading: bool = False,
                 check: bool = False) -> None:
        # (``reading`` and ``check`` are for files: the server decides who writes, and checks its pages)
        psycopg = _psycopg()
        type(self).db_errors = (psycopg.Error,)
        self.url = store_url(url)
        self._start(lazy)

    # --- connection -----------------------------------------------------------------------
    def _open(self) -> None:
        psycopg = _psycopg()
        last: Exception | None = None
        for attempt in range(CONNECT_ATTEMPTS):
            try:
                self._connection = psycopg.connect(self.url, autocommit=True, connect_timeout=CONNECT_TIMEOUT,
                                                   application_name="langgraph-harness")
                break
            except psycopg.OperationalError as exc:
                last = exc
                if attempt + 1 < CONNECT_ATTEMPTS:
                    time.sleep(0.5 * (attempt + 1))
            except psycopg.Error as exc:  # a malformed URL, a bad option
                raise StoreError(f"cannot open store {safe_url(self.url)!r}: {_first_line(exc)}") from None
        else:
            raise StoreUnavailable(f"cannot open store {safe_url(self.url)!r}: {_first_line(last)}") from None
        try:
            self._prepare_schema()
        except StoreError as exc:
            self._drop()
            raise StoreUnavailable(f"cannot open store {safe_url(self.url)!r}: {exc}") from None
        self._failure = None

    def _usable(self, conn: Any) -> bool:
        return not conn.closed and not conn.broken

    def _prepare_schema(self) -> None:
        """Migrate under a transaction-scoped advisory lock: one opener migrates, the others
        wait and then find the store current."""
        if self._schema_version() == SCHEMA_VERSION:
            return
        with self.transaction():
            self._execute("SELECT pg_advisory_xact_lock(%s)", (_MIGRATION_LOCK,))
            super()._prepare_schema()
            self._execute('CREATE INDEX IF NOT EXISTS "runs_run_prefix" ON "runs" (run_id COLLATE "C")')

    def _lock_thread(self, thread_id: str) -> None:
        self._execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", (f"thread:{thread_id}",))

    @property
    def location(self) -> str:
        return self.url

    @property
    def display(self) -> str:
        return safe_url(self.url)

    @property
    def shareable(self) -> bool:
        return True

    def __repr__(self) -> str:
        return f"Store({safe_url(self.url)!r})"

    # --- transactions and statements ------------------------------------------------------
    @contextlib.contextmanager
    def transaction(self, *, immediate: bool = False) -> Iterator[None]:
        """One transaction, or a savepoint inside one. ``immediate`` needs nothing here: rows
        are only inserted (``ON CONFLICT DO NOTHING``) or replaced by key, which PostgreSQL's
        row locks keep consistent without a store-wide write lock."""
        with self._lock:
            conn = self._conn
            nested = self._depth > 0
            self._depth += 1
            try:
                with _errors(), conn.transaction():
                    yield
            finally:
                self._depth -= 1
                if not nested and self._connection is not None and self._connection.broken:
                    self._drop()

    def _try_hold(self, key: str) -> bool:
        """A session advisory lock: the server releases it when the connection ends."""
        with _errors():
            return bool(self._conn.execute("SELECT pg_try_advisory_lock(%s)", (lock_number(key),)).fetchone()[0])

    def _let_go(self, key: str) -> None:
        if self._connection is not None and self._usable(self._connection):
            self._connection.execute("SELECT pg_advisory_unlock(%s)", (lock_number(key),))

    def _sequence_column(self) -> str:
        return "_seq BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY"

    def _table_columns(self, table: str) -> list[str]:
        return [r[0] for r in self._fetchall(
            "SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() "
            "AND table_name = %s ORDER BY ordinal_position", (table,))]

    def _execute(self, sql: str, params: Sequence[Any] = ()) -> None:
        with self._lock, _errors():
            self._conn.execute(sql, params or None)

    def _executemany(self, sql: str, batch: Sequence[Sequence[Any]]) -> int:
        with self._lock, _errors():
            cur = self._conn.cursor()
            cur.executemany(sql, batch)
            return max(cur.rowcount, 0)

    def _fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        with self._lock, _errors():
            return self._conn.execute(sql, params or None).fetchall()

    def _insert(self, s: Sheet, rows: Any) -> int:
        """Multi-row inserts: one statement per up to :data:`MAX_PARAMS` values."""
        batch = encode_rows(s, rows)
        if not batch:
            return 0
        names = ("row_key", *s.all_column_names)
        per = max(1, MAX_PARAMS // len(names))
        one = "(" + ", ".join(["%s"] * len(names)) + ")"
        head = f'INSERT INTO "{s.name}" ({", ".join(f"{chr(34)}{n}{chr(34)}" for n in names)}) VALUES '
        inserted = 0
        with self._lock, _errors():
            conn = self._conn
            for start in range(0, len(batch), per):
                chunk = batch[start:start + per]
                cur = conn.execute(head + ", ".join([one] * len(chunk)) + " ON CONFLICT (row_key) DO NOTHING",
                                   [v for row in chunk for v in row])
                inserted += max(cur.rowcount, 0)
        return inserted

    def run_ids_starting(self, prefix: str, limit: int = 2) -> list[str]:
        """As SQLite's, compared byte-wise (``COLLATE "C"``, which its index serves) whatever
        the database's collation."""
        return [r[0] for r in self._fetchall(
            'SELECT run_id FROM "runs" WHERE run_id COLLATE "C" >= %s AND run_id COLLATE "C" < %s '
            'ORDER BY run_id COLLATE "C" LIMIT %s', (prefix, prefix + "\U0010ffff", limit))]


def _first_line(exc: BaseException | None) -> str:
    text = str(exc or "unreachable").strip().splitlines()
    return text[0] if text else type(exc).__name__


@contextlib.contextmanager
def _errors() -> Iterator[None]:
    """psycopg's exceptions as the store's: the server unreachable, the connection lost or a
    transaction the server gave up (serialisation, deadlock, admin shutdown) is
    :class:`StoreUnavailable` (the run is kept and written again); a refused row or
    statement is :class:`StoreError`."""
    psycopg = _psycopg()
    try:
        yield
    except (StoreError, StoreUnavailable):
        raise
    except psycopg.Error as exc:
        transient = isinstance(exc, (psycopg.OperationalError, psycopg.errors.TransactionRollbackError,
                                     psycopg.InterfaceError))
        raise (StoreUnavailable if transient else StoreError)(f"store error: {_first_line(exc)}") from exc
