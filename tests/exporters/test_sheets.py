"""Google Sheets push through real gspread HTTP traffic to the local Sheets API."""

from __future__ import annotations

import json

import pytest

from exporters import (
    SHEETS_SCOPE,
    HeaderMismatchError,
    SheetsPolicy,
    SheetsPushResult,
    SheetsTargetError,
    push_google_sheets,
    sheet_header,
    sheets_cell,
)
from harness.schema import ALL_SHEET_NAMES, SHEETS, sheet

from .conftest import fill, make_rows
from .sheets_helpers import assert_exactly_once, sheet_keys


@pytest.fixture
def sid(sheets_server):
    return sheets_server.create_spreadsheet()


def push(server, store, sid, policy, **kwargs) -> SheetsPushResult:
    return push_google_sheets(store, sid, client=server.client(), policy=policy, **kwargs)


def test_first_push_creates_all_fifteen_worksheets_with_header_and_hidden_key_column(sheets_server, sid, filled, policy):
    result = push(sheets_server, filled, sid, policy)
    assert sheets_server.titles(sid) == ["Sheet1", *ALL_SHEET_NAMES]
    assert result.created == ALL_SHEET_NAMES
    for s in SHEETS:
        ws = sheets_server.worksheet(sid, s.name)
        assert tuple(sheets_server.values(sid, s.name)[0]) == (*s.all_column_names, "row_key")
        assert ws.hidden_columns == {len(s.all_columns)}


def test_rows_arrive_once_with_one_append_per_touched_worksheet(sheets_server, sid, filled, policy):
    result = push(sheets_server, filled, sid, policy)
    assert_exactly_once(sheets_server, sid, filled)
    assert sheets_server.count("append") == len(SHEETS)
    # one batchUpdate lays the worksheets out, one more sets the number formats of the rows appended
    assert (sheets_server.count("metadata"), sheets_server.count("batchUpdate"), sheets_server.count("batchGet")) == (1, 2, 0)
    assert result.requests == sheets_server.count() == len(SHEETS) + 3
    assert result.retries == 0
    assert result.appended["runs"] == 4 and result.total_rows == 15 * 3 + 6


def test_appends_send_raw_values_and_insert_rows(sheets_server, sid, filled, policy):
    push(sheets_server, filled, sid, policy)
    appends = [r for r in sheets_server.requests if r.endpoint == "append"]
    assert {(r.query["valueInputOption"][0], r.query["insertDataOption"][0]) for r in appends} == {("RAW", "INSERT_ROWS")}
    assert all(r.sheets == (name,) for r, name in zip(appends, ALL_SHEET_NAMES))


def test_cells_keep_their_types_and_formula_like_text_stays_text(sheets_server, sid, store, policy):
    row = make_rows(sheet("runs"), 1, 1)[0]
    row.update(company_name="=HYPERLINK(\"http://evil\")", node="-5", model="+1", status="@x",
               credit_score=-5, confidence=0.125, tools_used=["sec_edgar", "web_search"])
    store.write("runs", [row])
    push(sheets_server, store, sid, policy)
    got = sheets_server.values(sid, "runs")[1]
    stored = next(store.rows("runs", with_keys=True, decode_json=False))
    want = [sheets_cell(stored[c.name], c.kind) for c in sheet("runs").all_columns] + [stored["row_key"]]
    assert got == want
    assert [got[1], got[2], got[4]] == ['=HYPERLINK("http://evil")', "-5", "+1"]
    assert got[10] == -5 and got[11] == 0.125
    assert got[15] == '["sec_edgar","web_search"]'


def test_a_second_push_sends_nothing_new(sheets_server, sid, filled, policy):
    push(sheets_server, filled, sid, policy)
    sheets_server.reset_requests()
    again = push(sheets_server, filled, sid, policy)
    assert again.total_rows == 0 and again.created == ()
    assert sheets_server.count() == again.requests == 1  # the metadata read
    assert_exactly_once(sheets_server, sid, filled)


def test_a_new_run_goes_under_the_existing_rows_with_one_read_and_one_append_per_touched_sheet(
        sheets_server, sid, store, policy):
    fill(store, 1)
    push(sheets_server, store, sid, policy)
    fill(store, 2, {"runs": 1, "tool_calls": 4, "llm_calls": 2, "log_tests": 1})
    sheets_server.reset_requests()
    result = push(sheets_server, store, sid, policy)
    assert result.appended["tool_calls"] == 4 and result.total_rows == 8
    assert sheets_server.count("append") == 4
    assert (sheets_server.count("metadata"), sheets_server.count("batchGet"), sheets_server.count("batchUpdate")) == (1, 1, 1)
    assert_exactly_once(sheets_server, sid, store)


def test_only_the_requested_runs_are_pushed(sheets_server, sid, filled, policy):
    result = push(sheets_server, filled, sid, policy, run_ids=["run-2"])
    assert result.total_rows == 6
    assert_exactly_once(sheets_server, sid, filled, ["run-2"])


def test_an_existing_header_that_differs_is_an_error_and_nothing_is_appended(sheets_server, sid, filled, policy):
    header = list(sheet_header(sheet("evaluations")))
    header[4], header[5] = header[5], header[4]
    sheets_server.set_values(sid, "evaluations", [header])
    with pytest.raises(HeaderMismatchError, match=r"'evaluations'.*column 5 is 'step_number', the schema has 'agent_name'"):
        push(sheets_server, filled, sid, policy)
    assert sheets_server.count("append") == 0 and sheets_server.count("batchUpdate") == 0


def test_a_header_without_the_key_column_is_a_mismatch(sheets_server, sid, filled, policy):
    sheets_server.set_values(sid, "runs", [list(sheet("runs").all_column_names)])
    n = len(sheet("runs").all_columns)
    with pytest.raises(HeaderMismatchError, match=f"it has {n} columns, the schema {n + 1}"):
        push(sheets_server, filled, sid, policy)


def test_an_existing_empty_worksheet_gets_the_header(sheets_server, policy, filled):
    sid = sheets_server.create_spreadsheet(sheets=("runs",))
    sheets_server.worksheet(sid, "runs").rows = 1
    result = push(sheets_server, filled, sid, policy)
    assert "runs" not in result.created
    assert tuple(sheets_server.values(sid, "runs")[0]) == sheet_header(sheet("runs"))
    assert sheets_server.worksheet(sid, "runs").hidden_columns == {len(sheet("runs").all_columns)}  # row_key
    assert_exactly_once(sheets_server, sid, filled)


def test_long_cells_are_cut_to_the_sheets_limit_with_the_marker(sheets_server, sid, store, policy):
    row = make_rows(sheet("llm_calls"), 1, 1)[0]
    store.write("llm_calls", [{**row, "prompt": "p" * 70_000}])
    push(sheets_server, store, sid, policy)
    cell = sheets_server.values(sid, "llm_calls")[1][9]
    assert len(cell) == 50_000 and cell.endswith("…[truncated, 70000 chars]")


def test_a_missing_spreadsheet_is_a_clear_target_error(sheets_server, filled, policy):
    with pytest.raises(SheetsTargetError, match=r"'nope' is not found: .*share it with exporter@"):
        push(sheets_server, filled, "nope", policy)


def test_more_cells_than_a_spreadsheet_holds_is_refused_before_any_write(sheets_server, sid, filled, policy):
    sheets_server.worksheet(sid, "Sheet1").rows = 400_000  # x 26 columns
    with pytest.raises(SheetsTargetError, match="more than Google Sheets allows"):
        push(sheets_server, filled, sid, policy)
    assert sheets_server.count("append") == sheets_server.count("batchUpdate") == 0


def test_an_append_over_the_request_size_is_split_and_keeps_the_order(sheets_server, sid, store, policy):
    store.write("tool_calls", make_rows(sheet("tool_calls"), 1, 20))
    row_bytes = max(len(json.dumps(list(r.values()))) for r in store.rows("tool_calls", decode_json=False))
    small = SheetsPolicy(**{**policy_kwargs(policy), "max_request_bytes": row_bytes * 6})
    result = push(sheets_server, store, sid, small)
    assert sheets_server.count("append") == 4 and result.appended["tool_calls"] == 20
    assert_exactly_once(sheets_server, sid, store)


def policy_kwargs(policy: SheetsPolicy) -> dict:
    return {name: getattr(policy, name) for name in SheetsPolicy.__slots__}


def test_progress_is_reported_for_every_sheet_in_order(sheets_server, sid, filled, policy):
    seen = []
    push(sheets_server, filled, sid, policy, progress=lambda name, rows: seen.append((name, rows)))
    assert [name for name, _ in seen] == list(ALL_SHEET_NAMES)
    assert dict(seen)["runs"] == 4


def test_requests_are_paced_under_the_per_minute_write_quota(sheets_server, sid, store):
    fill(store, 1, {"runs": 1, "tool_calls": 1, "plans": 1, "prompts": 1})  # 1 layout + 4 appends + 1 formats
    now, sleeps = [0.0], []

    def sleep(seconds: float) -> None:
        sleeps.append(seconds)
        now[0] += seconds

    paced = SheetsPolicy(writes_per_minute=2, sleep=sleep, clock=lambda: now[0], timeout=5)
    push(sheets_server, store, sid, paced)
    assert sleeps == [60.0, 60.0]  # writes at t = 0, 0, 60, 60, 120, 120
    assert_exactly_once(sheets_server, sid, store)


def test_the_service_account_asks_for_the_spreadsheets_scope_only(sheets_server, sid, filled, policy, tmp_path):
    from exporters import sheets_client

    key = sheets_server.service_account_file(tmp_path / "sa.json")
    client = sheets_client(key, http_client=sheets_server.http_client)
    push_google_sheets(filled, sid, client=client, policy=policy)
    assert sheets_server.scopes == [SHEETS_SCOPE]
    assert_exactly_once(sheets_server, sid, filled)


def test_the_pushed_sheet_reads_back_through_gspread(sheets_server, sid, filled, policy):
    push(sheets_server, filled, sid, policy)
    rows = sheets_server.client().open_by_key(sid).worksheet("tool_calls").get_all_values()
    assert rows[0][:3] == ["run_id", "company_name", "node"]
    assert [r[-1] for r in rows[1:]] == sheet_keys(sheets_server, sid, "tool_calls")


@pytest.mark.parametrize("bad", ["", "  ", "a/b"])
def test_a_bad_spreadsheet_id_is_a_value_error(sheets_server, filled, policy, bad):
    with pytest.raises(ValueError, match="not a spreadsheet id"):
        push(sheets_server, filled, bad, policy)


def test_float_columns_are_shown_rounded_and_keep_their_exact_values(sheets_server, sid, store, policy):
    store.write("evaluations", [{"run_id": "r1", "overall_score": 0.9999999999999999, "duration_ms": 1.8423020001137}])
    store.write("llm_calls", [{"run_id": "r1", "total_cost": 0.000118, "total_tokens": 7}])
    push(sheets_server, store, sid, policy)
    evaluations = sheet("evaluations").all_column_names
    row = sheets_server.values(sid, "evaluations")[1]
    assert row[evaluations.index("overall_score")] == 0.9999999999999999  # RAW: the exact value
    assert sheets_server.number_format(sid, "evaluations", 1, evaluations.index("overall_score")) == "0.0##"
    assert sheets_server.number_format(sid, "evaluations", 1, evaluations.index("duration_ms")) == "0.0"
    calls = sheet("llm_calls").all_column_names
    assert sheets_server.number_format(sid, "llm_calls", 1, calls.index("total_cost")) == "0.00######"
    assert sheets_server.number_format(sid, "llm_calls", 1, calls.index("total_tokens")) is None  # integers as they are
