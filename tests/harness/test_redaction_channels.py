"""Every rule's secret after every separator, through every channel a run's text takes.

A tool of a real LangGraph graph returns each case's text (a secret of one rule, or one of
the host's environment secrets written bare, after one separator: a line break, a tab, a
JSON escape, a quote, URL encoding ...); the run is traced once per module and read back
where it landed: the SQLite store (its tool cells, the database file, its write-ahead
log), the spool of a store that could not take it, the xlsx export (through openpyxl), a
Google Sheets push (through the local Sheets server), the spans (an in-memory exporter);
each case is also logged through the ``harness`` logger's filter, as a message and as an
exception.
"""

from __future__ import annotations

import io
import json
import logging
import re
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass

import openpyxl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import tool
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from exporters import SheetsPolicy, push_google_sheets
from harness import REDACTED, Harness
from tests.support.secrets import ORDINARY, SEPARATORS, WRITTEN, around
from tests.support.sheets_server import SheetsServer

from . import graphs

#: The host's environment secrets: a key, a password named as one was found stored bare, the
#: password of a URL (see test_secret_rules for every name form).
ENVIRONMENT = {"ACME_API_KEY": "envsecret-0123456789", "MY_SERVICE_PWD": "pwd-s3cret-value",
               "DATABASE_URL": "postgresql://app:url-passw0rd-x@db.internal/prod"}
#: kind of secret -> (as a line writes it, the part that must never be kept)
KINDS = {**WRITTEN, "environment *_API_KEY": ("envsecret-0123456789",) * 2,
         "environment *_PWD": ("pwd-s3cret-value",) * 2, "environment *_URL password": ("url-passw0rd-x",) * 2}
#: case number -> (kind, separator)
CASES = dict(enumerate((kind, separator) for kind in sorted(KINDS) for separator in SEPARATORS))
_CASE = re.compile(r'"case":\s*(\d+)')


def case_text(case: int) -> str:
    kind, separator = CASES[case]
    return around(KINDS[kind][0], separator)


@tool
def read_file(case: int, text: str) -> str:
    """Read a file (a case's text, given back as it is)."""
    return text


def _read_every_case(state: dict, config: RunnableConfig) -> dict:
    for case in CASES:
        read_file.invoke({"case": case, "text": case_text(case)}, config)
    return {"log": ["read"]}


def _trace(harness: Harness) -> str:
    with harness.run(subject="encodings", workflow="redaction") as run:
        graphs.single_node(_read_every_case).invoke({"log": []}, run.config)
    harness.flush()
    return run.run_id


def _by_case(pairs: list[tuple[object, object]]) -> dict[int, str]:
    """A tool call's cells (input, output) by the case its input names."""
    out: dict[int, str] = {}
    for tool_input, tool_output in pairs:
        found = _CASE.search(str(tool_input))
        assert found is not None, tool_input
        out[int(found.group(1))] = f"{tool_input}\n{tool_output}"
    return out


def _sheet_columns(rows: list[list[object]]) -> list[tuple[object, object]]:
    header = list(rows[0])
    i, o = header.index("tool_input"), header.index("tool_output")
    return [(row[i], row[o] if o < len(row) else None) for row in rows[1:]]


def _logged() -> dict[int, str]:
    """Each case logged by the ``harness`` logger, as formatted: the text as an argument of
    the message, and as the message of an exception with its traceback."""
    target, stream = logging.getLogger("harness"), io.StringIO()
    handler = logging.StreamHandler(stream)
    target.addHandler(handler)
    out = {}
    try:
        for case in CASES:
            stream.seek(0)
            stream.truncate()
            try:
                raise ValueError(case_text(case))
            except ValueError:
                target.warning("harness: a tool returned %s", case_text(case), exc_info=True)
            out[case] = stream.getvalue()
    finally:
        target.removeHandler(handler)
    return out


@dataclass(frozen=True)
class Landed:
    #: channel -> case -> the text of the case that landed there
    cells: dict[str, dict[int, str]]
    #: the database file and its write-ahead log, as text
    files: str


@pytest.fixture(scope="module")
def landed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Landed]:
    """Where the cases' text landed (see the module's docstring)."""
    tmp = tmp_path_factory.mktemp("encodings")
    with pytest.MonkeyPatch.context() as env:
        for name, value in ENVIRONMENT.items():
            env.setenv(name, value)
        exporter = InMemorySpanExporter()
        provider = TracerProvider()
        provider.add_span_processor(SimpleSpanProcessor(exporter))
        store = tmp / "runs.db"
        harness = Harness(store=store, tracer_provider=provider)
        _trace(harness)

        garbage = tmp / "unusable.db"  # not a database: the run goes to the spool
        garbage.write_bytes(b"not a database" * 100)
        unusable = Harness(store=garbage, writer="inline")
        _trace(unusable)
        unusable.close()
        spooled = garbage.with_name(garbage.name + ".spool.jsonl").read_text(encoding="utf-8")

        wal = store.with_name(store.name + "-wal").read_bytes()
        with sqlite3.connect(store) as connection:
            stored = connection.execute("SELECT tool_input, tool_output FROM tool_calls").fetchall()
            connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")

        harness.export_excel(tmp / "runs.xlsx")
        book = openpyxl.load_workbook(tmp / "runs.xlsx", read_only=True)
        xlsx = [list(row) for row in book["tool_calls"].iter_rows(values_only=True)]
        book.close()

        with SheetsServer() as server:
            sid = server.create_spreadsheet()
            push_google_sheets(harness.store, sid, client=server.client(),
                               policy=SheetsPolicy(initial_wait=0.01, max_wait=0.05, jitter=0.01, timeout=10.0))
            sheet = server.values(sid, "tool_calls")

        spans = [(dict(s.attributes).get("input.value"), str(dict(s.attributes)))
                 for s in exporter.get_finished_spans() if s.name.startswith("execute_tool")]
        harness.close()
        yield Landed(cells={
            "store": _by_case(stored),
            "spool": _by_case(_spooled_tool_cells(spooled)),
            "xlsx": _by_case(_sheet_columns(xlsx)),
            "Google Sheets": _by_case(_sheet_columns(sheet)),
            "spans": _by_case(spans),
            "log": _logged(),
        }, files=(store.read_bytes() + wal).decode("utf-8", "replace"))


def _spooled_tool_cells(spooled: str) -> list[tuple[object, object]]:
    """The tool cells of the runs a spool file holds (one JSON line per run)."""
    return [(row.get("tool_input"), row.get("tool_output"))
            for line in spooled.splitlines() for row in json.loads(line)["rows"].get("tool_calls", [])]


_CHANNELS = ["store", "spool", "xlsx", "Google Sheets", "spans", "log"]


@pytest.mark.parametrize("channel", _CHANNELS)
@pytest.mark.parametrize("kind", sorted(KINDS))
def test_no_secret_after_any_separator_reaches_the_channel(landed, channel, kind):
    cells, secret = landed.cells[channel], KINDS[kind][1]
    cases = [case for case, (k, _) in CASES.items() if k == kind]
    assert sorted(cells.keys() & cases) == cases  # every case reached the channel
    leaked = [CASES[case][1] for case in cases if secret in cells[case]]
    unmarked = [CASES[case][1] for case in cases if REDACTED not in cells[case]]
    assert leaked == [] and unmarked == []


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_no_secret_is_anywhere_in_the_database_file_or_its_write_ahead_log(landed, kind):
    assert KINDS[kind][1] not in landed.files


# --- any text a tool returns, through the store ----------------------------------------------

@tool
def fetch(url: str) -> str:
    """Fetch a page (the text a test gives back)."""
    return url


@pytest.fixture(scope="module")
def inline_harness(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Harness]:
    harness = Harness(store=tmp_path_factory.mktemp("property") / "runs.db", writer="inline")
    yield harness
    harness.close()


_around_text = st.lists(st.sampled_from([*ORDINARY, "x", "\n", "\t", "\\", '"', "'", "%0A", "é"]),
                        max_size=3).map("".join)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(kind=st.sampled_from(sorted(WRITTEN)),
       separators=st.lists(st.sampled_from(sorted(SEPARATORS.keys() - {"start of text"})), min_size=1, max_size=3),
       before=_around_text, after=_around_text)
def test_any_text_a_tool_returns_is_stored_without_its_secret(inline_harness, kind, separators, before, after):
    """Ordinary text, then separators stacked (a quote after a tab after a line break ...),
    then a secret: the tool's output and input cells hold no trace of it."""
    written, secret = WRITTEN[kind]
    text = written
    for separator in separators:
        text = around(text, separator, before="", after="")
    text = before + text + after

    def node(state: dict, config: RunnableConfig) -> dict:
        fetch.invoke({"url": text}, config)
        return {"log": ["fetched"]}

    with inline_harness.run(subject="property") as run:
        graphs.single_node(node).invoke({"log": []}, run.config)
    calls = inline_harness.sheets([run.run_id], sheets=["tool_calls"])["tool_calls"]
    assert len(calls) == 1
    cells = json.dumps(calls[["tool_input", "tool_output"]].values.tolist())
    assert secret not in cells and REDACTED in cells


def test_ordinary_text_after_any_separator_is_stored_as_the_tool_returned_it(inline_harness):
    texts = [around(line, separator) for line in ORDINARY for separator in SEPARATORS.keys() - {"URL-encoded ="}]

    def node(state: dict, config: RunnableConfig) -> dict:
        for text in texts:
            fetch.invoke({"url": text}, config)
        return {"log": ["fetched"]}

    with inline_harness.run(subject="ordinary") as run:
        graphs.single_node(node).invoke({"log": []}, run.config)
    stored = inline_harness.sheets([run.run_id], sheets=["tool_calls"])["tool_calls"]["tool_output"].tolist()
    assert sorted(stored) == sorted(texts)
