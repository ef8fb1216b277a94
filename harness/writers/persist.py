"""A finished run into the store: its rows built and scrubbed (:mod:`harness.tracing.record`),
then written in one transaction the store owns (:meth:`Store.write_run`), or kept in a spool
while the store cannot take them."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

from ..store import Spool, Store, StoreUnavailable
from ..tracing.record import RunRecord, derived_rows, prepare_entry


def write_record(record: RunRecord, store: Store, spool: Spool | None = None) -> None:
    """Build, scrub and store the run's rows and its ``log_tests`` row in one transaction;
    when the store cannot take them now, keep them in ``spool`` (written later).

    Never raises: every failure is logged and counted in ``record.errors``.
    """
    entry = prepare_entry(record)
    if entry is not None:
        deliver(entry, store, spool, record)


def deliver(entry: dict[str, Any], store: Store, spool: Spool | None, record: RunRecord) -> None:
    """Store one run's scrubbed rows (see :func:`store_entry`), or spool them while the store
    cannot take them; after a success, what the spool holds is written too."""
    if spool is None or spool.store_may_work():
        try:
            problems = store_entry(store, entry)
        except StoreUnavailable as exc:
            if spool is None:
                record.count_error(f"storing the run ({exc})")
                return
            spool.store_failed(exc)
        except Exception:  # noqa: BLE001
            record.count_error("storing the run")
            return
        else:
            for problem in problems:
                record.count_error(problem)
            if spool is not None and spool.pending:
                spool.replay(functools.partial(store_entry, store))
            return
    record.errors += 1  # counted, not logged per run: the spool warned once
    if not spool.add(entry):
        record.count_error("spooling the run")


def store_entry(store: Store, entry: Mapping[str, Any]) -> list[str]:
    """Write a run's rows (``entry``: made by :func:`~harness.tracing.record.prepare_entry`, or
    read back from a spool) with what they give (:func:`~harness.tracing.record.derived_rows`:
    its ``log_tests`` row, counted from what the store took) in one transaction
    (:meth:`Store.write_run`); returns the problems met."""
    derived = functools.partial(derived_rows, entry) if entry["verify"] else None
    return store.write_run(entry["rows"], derived=derived)
