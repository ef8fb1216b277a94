"""Every row arrives exactly once when the Sheets API fails: refused, lost, cut off, killed."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from exporters import SheetsExportError, SheetsPolicy, push_google_sheets, sheets_client
from harness.schema import SHEETS
from harness.store import Store

from .sheets_helpers import assert_exactly_once, sheet_keys


@pytest.fixture
def sid(sheets_server):
    return sheets_server.create_spreadsheet()


def push(server, store, sid, policy, **kwargs):
    return push_google_sheets(store, sid, client=server.client(timeout=policy.timeout), policy=policy, **kwargs)


def test_a_429_is_retried_and_every_row_arrives_once(sheets_server, sid, filled, policy):
    sheets_server.fail("append", status=429, sheet="tool_calls", times=2)
    result = push(sheets_server, filled, sid, policy)
    assert result.retries == 2 and result.recovered["tool_calls"] == 0
    assert sheets_server.count("append") == len(SHEETS) + 2
    assert sheets_server.count("batchGet") == 0  # a 429 is never applied: no read-back
    assert_exactly_once(sheets_server, sid, filled)


def test_a_500_that_did_not_apply_is_sent_again_once(sheets_server, sid, filled, policy):
    sheets_server.fail("append", status=500, sheet="runs")
    result = push(sheets_server, filled, sid, policy)
    assert result.appended["runs"] == 4 and result.recovered["runs"] == 0
    assert sheets_server.count("batchGet") == 1  # looked before re-sending
    assert_exactly_once(sheets_server, sid, filled)


def test_a_500_after_the_append_landed_is_not_sent_again(sheets_server, sid, filled, policy):
    sheets_server.fail("append", status=500, apply=True, sheet="evaluations")
    result = push(sheets_server, filled, sid, policy)
    assert result.recovered["evaluations"] == 5 and result.appended["evaluations"] == 0
    assert sheets_server.count("append") == len(SHEETS)
    assert_exactly_once(sheets_server, sid, filled)


def test_a_response_lost_to_a_timeout_does_not_duplicate_rows(sheets_server, sid, filled):
    quick = SheetsPolicy(initial_wait=0.01, max_wait=0.05, jitter=0.01, timeout=0.5)
    sheets_server.fail("append", hang=3.0, sheet="log_tests")
    result = push(sheets_server, filled, sid, quick)
    assert result.recovered["log_tests"] == 4 and result.retries >= 1
    assert_exactly_once(sheets_server, sid, filled)


def test_a_connection_dropped_after_the_append_does_not_duplicate_rows(sheets_server, sid, filled, policy):
    sheets_server.fail("append", drop=True, sheet="runs")
    result = push(sheets_server, filled, sid, policy)
    assert result.recovered["runs"] == 4
    assert_exactly_once(sheets_server, sid, filled)


def test_an_html_502_from_a_proxy_is_retried(sheets_server, sid, filled, policy):
    sheets_server.fail("metadata", status=502, html=True)
    result = push(sheets_server, filled, sid, policy)
    assert result.retries == 1
    assert_exactly_once(sheets_server, sid, filled)


def test_a_lost_answer_to_the_layout_request_does_not_create_worksheets_twice(sheets_server, sid, filled, policy):
    sheets_server.fail("batchUpdate", status=503, apply=True)
    result = push(sheets_server, filled, sid, policy)
    assert sheets_server.titles(sid).count("runs") == 1 and len(sheets_server.titles(sid)) == 17  # Sheet1, the fifteen, scores
    assert sheets_server.count("batchUpdate") == 2  # layout once (the re-read metadata showed it had landed), then formats
    assert len(result.created) == 16
    assert_exactly_once(sheets_server, sid, filled)


def test_a_push_that_keeps_failing_stops_with_a_resumable_error_and_the_resume_sends_the_rest_once(
        sheets_server, sid, filled, policy):
    sheets_server.fail("append", status=503, sheet="evaluations", times=policy.attempts)
    with pytest.raises(SheetsExportError, match=r"HTTP 503.*run the export again to resume"):
        push(sheets_server, filled, sid, policy)
    assert sheet_keys(sheets_server, sid, "assessments") and not sheet_keys(sheets_server, sid, "evaluations")
    sheets_server.reset_requests()
    resumed = push(sheets_server, filled, sid, policy)
    assert resumed.appended["runs"] == 0 and resumed.appended["evaluations"] == 5
    assert sheets_server.count("append") == len(SHEETS) - 3  # runs, tool_calls, assessments were done
    assert_exactly_once(sheets_server, sid, filled)


def test_an_append_acknowledged_but_not_recorded_is_found_from_the_row_count(sheets_server, sid, filled, policy, tmp_path):
    """A crash between the server's answer and the store's mark: the same store, without the mark."""
    filled.close()
    unmarked = tmp_path / "unmarked.db"
    shutil.copy(tmp_path / "runs.db", unmarked)  # the WAL was checkpointed by close()
    store = Store(tmp_path / "runs.db")
    push(sheets_server, store, sid, policy)
    sheets_server.reset_requests()
    again = push(sheets_server, Store(unmarked), sid, policy)
    assert again.total_rows == 0 and sum(again.recovered.values()) == 15 * 3 + 6
    assert sheets_server.count("append") == 0 and sheets_server.count("batchGet") == 1
    assert_exactly_once(sheets_server, sid, store)


_CHILD = """
import sys
from exporters import SheetsPolicy, push_google_sheets, sheets_client
from harness.store import Store
from tests.support.sheets_server import local_http_client

store, sid, key, base = sys.argv[1:]
client = sheets_client(key, http_client=local_http_client(base))
push_google_sheets(Store(store), sid, client=client, policy=SheetsPolicy(timeout=60))
"""


def test_a_push_killed_in_the_middle_resumes_without_duplicates(sheets_server, sid, filled, policy, tmp_path):
    key = sheets_server.service_account_file(tmp_path / "sa.json")
    sheets_server.fail("append", hang=30, sheet="evaluations")  # applied, then the answer never comes
    root = Path(__file__).resolve().parents[2]
    child = subprocess.Popen([sys.executable, "-c", _CHILD, str(tmp_path / "runs.db"), sid, str(key),
                              sheets_server.base_url], cwd=root, env={**os.environ, "PYTHONPATH": str(root)})
    deadline = time.monotonic() + 60
    while not any(r.endpoint == "append" and r.sheets == ("evaluations",) for r in sheets_server.requests):
        assert child.poll() is None and time.monotonic() < deadline, "the push never reached evaluations"
        time.sleep(0.02)
    child.send_signal(signal.SIGKILL)
    assert child.wait() == -signal.SIGKILL
    assert sheet_keys(sheets_server, sid, "evaluations") and not sheet_keys(sheets_server, sid, "tool_selections")

    sheets_server.reset_requests()
    resumed = push_google_sheets(filled, sid, client=sheets_client(key, http_client=sheets_server.http_client),
                                 policy=policy)
    assert resumed.recovered["evaluations"] == 5
    assert resumed.appended["runs"] == resumed.appended["evaluations"] == 0
    assert sheets_server.count("append") == len(SHEETS) - 4
    assert_exactly_once(sheets_server, sid, filled)
