"""The SQLite engine: the embedded default store, one file in WAL mode.

WAL lets readers see committed rows while runs are still writing. Tables key rows by
SQLite's rowid (``_seq``) without AUTOINCREMENT, which would only add never reusing a
deleted largest id, for a write to ``sqlite_sequence`` per row.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from ..inputs import not_regular
from .base import Store, StoreError, StoreUnavailable, lock_number, register_engine, store_url
from .migrations import SCHEMA_VERSION

try:
    import fcntl
except ImportError:  # (Windows: a store's locks hold within one process)
    fcntl = None  # type: ignore[assignment]

#: How long opening a store waits for another program's lock (writes wait BUSY_SECONDS).
OPEN_BUSY_SECONDS, BUSY_SECONDS = 5, 30
#: How long the check of a store's pages (``check=True``) may take; a larger store is checked
#: that far, and a damaged page met later is refused when it is read.
CHECK_SECONDS = 1.0


def resolve_store_path(url: str | os.PathLike[str] | None = None) -> Path:
    """Argument > ``$HARNESS_STORE`` > ``./harness.db``. Accepts ``sqlite:///path`` URLs."""
    raw = store_url(url)
    if raw.startswith("sqlite:///"):
        raw = raw[len("sqlite:///"):]
    elif raw.startswith("sqlite://"):
        raise StoreError(f"unsupported store URL {raw!r}; use sqlite:///path/to/file.db")
    elif "://" in raw:
        raise StoreError(f"unsupported store URL {raw!r}; use a file path, sqlite:///path or postgresql://...")
    return Path(raw).expanduser()


def _unopenable(path: Path) -> str | None:
    """Why SQLite must not open ``path`` (None for a regular file or nothing yet), checked
    before it does: SQLite would block on a FIFO, read a device for ever, and create its
    journal beside it (``/dev/zero-journal``)."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return None
    except OSError as exc:
        return str(exc.strerror or exc)
    what = not_regular(mode)
    return None if what is None else f"it is {what}, not a SQLite file"


def _read_only(path: Path) -> str | None:
    """Why the SQLite file at ``path`` cannot be written (None: it can, or there is none yet):
    the file refuses writing (a read-only file system, an immutable or read-only file), or
    its directory, where the write-ahead log must go, does."""
    try:
        fd = os.open(path, os.O_RDWR)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return f"it is read-only ({exc.strerror or exc})"
    os.close(fd)
    wal = path.with_name(path.name + "-wal")
    if not os.access(path.parent, os.W_OK) and not (wal.exists() and os.access(wal, os.W_OK)):
        return f"its directory {str(path.parent)!r} is read-only"
    return None


@register_engine
class SQLiteStore(Store):
    """A SQLite file holding one table per sheet (one connection, one lock: see :class:`Store`
    for its life, ``lazy`` and forks; SQLite forbids carrying a connection across ``fork()``).
    SQLite's own errors surface as :class:`StoreError` (:class:`StoreUnavailable` when the
    store, not a row, is at fault).

    A file that cannot be written (a read-only file or file system) is unavailable, unless
    opened for ``reading``: it is then opened read-only (immutable on a read-only file
    system, where nothing can change it). ``check``: its pages are checked when it is opened
    (``PRAGMA quick_check``, at most :data:`CHECK_SECONDS`), and a damaged file is refused
    rather than read or written."""

    placeholder = "?"
    sql_types = {"text": "TEXT", "int": "INTEGER", "float": "REAL", "json": "TEXT", "datetime": "TEXT"}
    db_errors = (sqlite3.Error,)
    clock_sql = "((julianday('now') - 2440587.5) * 86400.0)"

    @classmethod
    def accepts(cls, url: str) -> bool:
        return True  # a path or a sqlite:/// URL; anything else is refused with a reason on opening

    def __init__(self, url: str | os.PathLike[str] | None = None, *, lazy: bool = False, reading: bool = False,
                 check: bool = False) -> None:
        self.path = resolve_store_path(url)
        self.reading, self.check = reading, check
        #: opened read-only (for reading, a store that cannot be written)
        self.read_only = False
        self.absolute_path = self.path.absolute()  # as of opening, whatever the process's cwd becomes
        if self.shareable and (reason := _unopenable(self.path)) is not None:  # never retried, even when lazy
            raise StoreError(f"cannot open store {str(self.path)!r}: {reason}")
        self._start(lazy)

    def _open(self) -> None:
        """Connect and bring the schema forward (under the lock)."""
        try:
            if self.shareable and (reason := _unopenable(self.path)) is not None:
                raise StoreError(reason)
            read_only = _read_only(self.absolute_path) if self.shareable else None
            if read_only is not None and not self.reading:
                raise StoreError(f"{read_only}: it can be read (harness list, show, report, export, compare), "
                                 "not written")
            if read_only is None and self.path.parent and not self.path.parent.exists():
                self.path.parent.mkdir(parents=True, exist_ok=True)
            self.read_only = read_only is not None
            if self.read_only:
                self._connection = self._connect_read_only()
                self._check_schema_readable()
            else:
                self._connection = self._connect()
                self._prepare_schema()
            self._connection.execute(f"PRAGMA busy_timeout = {BUSY_SECONDS * 1000}")
            if self.check:
                self._check_pages()
        except (OSError, sqlite3.Error, StoreError) as exc:
            conn, self._connection = self._connection, None
            if conn is not None:
                with contextlib.suppress(sqlite3.Error):
                    conn.close()
            reason = exc.args[0] if isinstance(exc, StoreError) and exc.args else exc
            raise StoreUnavailable(f"cannot open store {str(self.path)!r}: {reason}") from None
        self._failure = None

    @property
    def spool_paths(self) -> list[Path]:
        if not self.shareable:
            return []
        return [self.absolute_path.with_name(self.absolute_path.name + ".spool.jsonl"), *super().spool_paths]

    def __repr__(self) -> str:
        return f"Store({str(self.path)!r})"

    @property
    def location(self) -> str:
        return str(self.absolute_path)

    @property
    def shareable(self) -> bool:
        return str(self.path) not in ("", ":memory:")

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.absolute_path, check_same_thread=False, timeout=OPEN_BUSY_SECONDS)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        return conn

    def _connect_read_only(self) -> sqlite3.Connection:
        """A read-only connection; immutable where even reading a WAL store's shared memory
        file cannot be set up (a read-only file system: nothing can change the file there)."""
        uri = f"{self.absolute_path.as_uri()}?mode=ro"
        conn = sqlite3.connect(uri, uri=True, check_same_thread=False, timeout=OPEN_BUSY_SECONDS)
        try:
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
            return conn
        except sqlite3.OperationalError:
            conn.close()
        return sqlite3.connect(f"{uri}&immutable=1", uri=True, check_same_thread=False)

    def _check_schema_readable(self) -> None:
        """A store opened read-only cannot be brought forward: it must be at this harness's version."""
        found = self._schema_version()
        if found is None:
            raise StoreError("it holds no harness tables")
        if found < SCHEMA_VERSION:
            raise StoreError(f"it is read-only and was written by an older harness (schema {found}, this one reads "
                             f"{SCHEMA_VERSION}): open it once where it can be written, to bring it forward")
        if found > SCHEMA_VERSION:
            raise StoreError(f"it has schema version {found}, newer than this harness knows ({SCHEMA_VERSION}): "
                             "upgrade langgraph-harness to use it")

    def _check_pages(self) -> None:
        """``PRAGMA quick_check`` for at most :data:`CHECK_SECONDS`: a damaged file is refused."""
        conn = self._connection
        deadline = time.monotonic() + CHECK_SECONDS
        conn.set_progress_handler(lambda: time.monotonic() > deadline, 10_000)
        try:
            found = conn.execute("PRAGMA quick_check(1)").fetchone()
        except sqlite3.OperationalError as exc:
            if "interrupt" in str(exc):
                return  # checked as far as the time allows; a damaged page met later is refused then
            raise
        finally:
            conn.set_progress_handler(None, 0)
        if found is not None and found[0] != "ok":
            first = " ".join(str(found[0]).split()).replace("*** in database main *** ", "")
            raise StoreError(f"it is damaged ({first}): restore it from a copy, or recover what it holds with "
                             "sqlite3's .recover")

    @contextlib.contextmanager
    def transaction(self, *, immediate: bool = False) -> Iterator[None]:
        """Every write goes through one, so the savepoints of :meth:`write_many` live inside a
        real transaction instead of each committing alone."""
        with self._lock:
            if self._depth:  # nested: a savepoint, so a failure inside undoes only its own part
                name = f"tx{self._depth}"
                with _errors():
                    self._conn.execute(f"SAVEPOINT {name}")
                self._depth += 1
                try:
                    yield
                except BaseException:
                    # (an error such as a full disk may have ended the whole transaction already)
                    with contextlib.suppress(sqlite3.Error):
                        self._conn.execute(f"ROLLBACK TO SAVEPOINT {name}")
                        self._conn.execute(f"RELEASE SAVEPOINT {name}")
                    raise
                else:
                    with _errors():
                        self._conn.execute(f"RELEASE SAVEPOINT {name}")
                finally:
                    self._depth -= 1
                return
            with _errors():
                self._conn.execute("BEGIN IMMEDIATE" if immediate else "BEGIN")
            self._depth = 1
            try:
                yield
            except BaseException:
                self._depth = 0
                with contextlib.suppress(sqlite3.Error):
                    self._conn.rollback()
                raise
            self._depth = 0
            try:
                with _errors():
                    self._conn.commit()
            except StoreError:
                with contextlib.suppress(sqlite3.Error):
                    self._conn.rollback()
                raise

    def _try_hold(self, key: str) -> bool:
        """A byte of the lock file beside the store (``NAME.db.lock``), locked with
        ``fcntl.lockf``: the system releases it when the process ends."""
        if not self.shareable or fcntl is None:
            return True
        fd = _lock_file(self.absolute_path.with_name(self.absolute_path.name + ".lock"))
        try:
            fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, lock_number(key) & 0x7FFFFFFF)
        except OSError:
            return False
        return True

    def _let_go(self, key: str) -> None:
        if self.shareable and fcntl is not None:
            fd = _lock_file(self.absolute_path.with_name(self.absolute_path.name + ".lock"))
            fcntl.lockf(fd, fcntl.LOCK_UN, 1, lock_number(key) & 0x7FFFFFFF)

    def _sequence_column(self) -> str:
        # The rowid: a new row gets the largest plus one.
        return "_seq INTEGER PRIMARY KEY"

    def _table_columns(self, table: str) -> list[str]:
        return [row[1] for row in self._fetchall(f'PRAGMA table_info("{table}")')]

    def _execute(self, sql: str, params: Sequence[Any] = ()) -> None:
        with _errors():
            self._conn.execute(sql, params)

    def _executemany(self, sql: str, batch: Sequence[Sequence[Any]]) -> int:
        conn = self._conn
        before = conn.total_changes
        with _errors():
            conn.executemany(sql, batch)
        return conn.total_changes - before

    def _fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        with self._lock, _errors():
            return self._conn.execute(sql, params).fetchall()

    def _before_close(self, conn: sqlite3.Connection) -> None:
        """Fold the write-ahead log into the database file: the ``.db`` file alone (copied,
        mailed, attached) then holds every committed row."""
        with contextlib.suppress(sqlite3.Error):  # busy readers elsewhere: their close will do it
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")


@contextlib.contextmanager
def _errors() -> Iterator[None]:
    """SQLite's exceptions as the store's: the store at fault (locked, read-only, full, I/O,
    not a database) is :class:`StoreUnavailable`; a refused row or statement is :class:`StoreError`."""
    try:
        yield
    except sqlite3.Error as exc:
        unavailable = isinstance(exc, sqlite3.OperationalError) or type(exc) is sqlite3.DatabaseError
        raise (StoreUnavailable if unavailable else StoreError)(f"store error: {exc}") from exc


#: Lock files open in this process, by path: kept open (closing any descriptor of a file
#: would release every lock this process holds on it).
_lock_files: dict[str, int] = {}


def _lock_file(path: Path) -> int:
    fd = _lock_files.get(str(path))
    if fd is None:
        fd = _lock_files[str(path)] = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    return fd
