"""The run store: the system of record for every sheet row.

:class:`Store` is the engine-independent interface (row keys, batched writes, paged reads:
:mod:`.base`); ``Store(url)`` opens the engine the URL names. SQLite (:mod:`.sqlite`) is
the embedded default, PostgreSQL (:mod:`.postgres`) the store many hosts share. Runs a store cannot take now are kept in a :class:`Spool` and
written when it can.
"""

from .base import DEFAULT_STORE, Store, store_url
from .errors import MIN_PREFIX, RunIdError, StoreBusy, StoreError, StoreUnavailable, ThreadIdError
from .values import ROW_KEY, content_key, json_text, preview_data
from .spool import Spool
from .threads import ThreadRun, resolve_thread_id, run_ids_of_thread, thread_ids_starting, thread_runs
from .sqlite import SQLiteStore, resolve_store_path
from .postgres import PostgresStore  # noqa: E402 - registered after SQLite: asked first

__all__ = [
    "DEFAULT_STORE",
    "MIN_PREFIX",
    "PostgresStore",
    "ROW_KEY",
    "RunIdError",
    "SQLiteStore",
    "Spool",
    "Store",
    "StoreBusy",
    "StoreError",
    "StoreUnavailable",
    "ThreadIdError",
    "ThreadRun",
    "content_key",
    "json_text",
    "preview_data",
    "resolve_store_path",
    "resolve_thread_id",
    "run_ids_of_thread",
    "store_url",
    "thread_ids_starting",
    "thread_runs",
]
