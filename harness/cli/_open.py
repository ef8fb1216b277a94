"""The CLI's :class:`~harness.Harness` and store, and run ids as the user types them."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from ._errors import UsageError
from ._output import say

if TYPE_CHECKING:
    from harness.store import Store


def open_harness(store: str | None):
    """A one-shot command writes its runs in a background thread (starting a writer process
    would cost it more than it saves), unless ``$HARNESS_WRITER`` says otherwise. An OTLP
    endpoint nothing listens at is reported once and left out for this command, instead of
    an exporter retrying it for seconds at exit."""
    from harness import Harness, StoreError, config
    from harness.tracing.telemetry import otlp_endpoint, span_destination, unreachable

    endpoint = otlp_endpoint()
    if endpoint and span_destination() == "otlp":
        reason = unreachable(endpoint)
        if reason is not None:
            say(f"harness: warning: OTEL_EXPORTER_OTLP_ENDPOINT={endpoint} cannot be reached ({reason}); "
                "this command sends no spans")
            config.unset("OTEL_EXPORTER_OTLP_ENDPOINT")
    try:
        harness = Harness(store=store, writer=config.value("HARNESS_WRITER") or "thread", strict=True)
    except (ValueError, StoreError) as exc:
        raise UsageError(str(exc)) from None
    _opened.append(harness)
    return harness


#: Harnesses the running command opened; the CLI closes them before it exits.
_opened: list = []


def close_opened() -> None:
    """Write every run and close each store the command opened (SQLite folds its write-ahead
    log into the .db file, so that file alone holds every row), whatever way it exits."""
    while _opened:
        _opened.pop().close()


def require_stored(harness, run_ids: list[str]) -> None:
    """Exit 2 in one line when the store did not take the runs (a store that fails under a
    command, as a full disk: its runs wait in the spool, written when it can)."""
    harness.flush()
    stored = {row["run_id"] for row in harness.store.rows("runs", run_ids, columns=["run_id"])}
    missing = [run_id for run_id in run_ids if run_id not in stored]
    if missing:
        raise UsageError(f"the store {harness.store.display!r} did not take {len(missing)} of {len(run_ids)} run(s): "
                         "they are kept in its spool and written when it can be written")


def open_store(url: str | None) -> Store:
    """An existing store, for commands that read it (none of them creates one by mistake):
    read-only when it cannot be written, refused in one line when it is damaged."""
    from harness.store import Store, StoreError, resolve_store_path, store_url
    from harness.store.postgres import PostgresStore

    try:
        if PostgresStore.accepts(store_url(url)):
            return Store(store_url(url), reading=True, check=True)
        path = resolve_store_path(url)
        if not path.exists():
            raise UsageError(f"no store at {str(path)!r} (use --store or $HARNESS_STORE)")
        return Store(path, reading=True, check=True)  # refuses a directory, a FIFO or a device before SQLite opens it
    except StoreError as exc:
        raise UsageError(str(exc)) from None


def run_ids(store: Store, given: Iterable[str]) -> list[str]:
    """The runs ``given`` names, each a full id or a unique start of one (at least four
    characters); an unknown or ambiguous one is a usage error."""
    from harness.store import RunIdError

    try:
        return store.resolve_run_ids(given)
    except RunIdError as exc:
        raise UsageError(str(exc)) from None


def load_prices_option(path) -> None:
    """Register the prices of the ``--prices`` file, else of ``$HARNESS_PRICES``, for this
    command (one line, exit 2, when it is not a prices file)."""
    from harness.costs import load_env_prices, load_prices

    try:
        if path is not None:
            load_prices(path)
        else:
            load_env_prices()
    except ValueError as exc:
        raise UsageError(f"{exc}" + ("" if path is not None else " ($HARNESS_PRICES)")) from None
