"""Service-account credentials: one clear ValueError for every unusable key, never the key."""

from __future__ import annotations

import json

import pytest

from exporters import ENV_CREDENTIALS, SHEETS_SCOPE, SheetsPolicy, push_google_sheets, sheets_client


def test_no_file_and_no_environment_names_both_ways_to_give_credentials(monkeypatch):
    monkeypatch.delenv(ENV_CREDENTIALS, raising=False)
    with pytest.raises(ValueError, match="pass a service-account key file or set GOOGLE_APPLICATION_CREDENTIALS"):
        sheets_client()


def test_push_without_a_client_loads_the_credentials_itself(monkeypatch, filled):
    monkeypatch.delenv(ENV_CREDENTIALS, raising=False)
    with pytest.raises(ValueError, match="no Google credentials"):
        push_google_sheets(filled, "some-id")


def test_an_unreadable_file_is_a_value_error(tmp_path):
    with pytest.raises(ValueError, match=r"cannot read credentials file .*missing\.json"):
        sheets_client(tmp_path / "missing.json")


def test_a_file_that_is_not_json_is_a_value_error(tmp_path):
    (tmp_path / "sa.json").write_text("not json {")
    with pytest.raises(ValueError, match="is not JSON"):
        sheets_client(tmp_path / "sa.json")


def test_a_key_of_another_type_is_a_value_error(tmp_path):
    (tmp_path / "user.json").write_text(json.dumps({"type": "authorized_user", "refresh_token": "r"}))
    with pytest.raises(ValueError, match="is not a service-account key"):
        sheets_client(tmp_path / "user.json")


def test_a_broken_service_account_key_is_reported_without_the_secret(tmp_path, sheets_server):
    info = sheets_server.service_account_info()
    secret = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC-secret-material"
    info["private_key"] = f"-----BEGIN PRIVATE KEY-----\n{secret}\n-----END PRIVATE KEY-----\n"
    (tmp_path / "sa.json").write_text(json.dumps(info))
    with pytest.raises(ValueError) as raised:
        sheets_client(tmp_path / "sa.json")
    assert "not a usable service-account key" in str(raised.value)
    assert secret not in str(raised.value) and raised.value.__cause__ is None


def test_the_client_is_scoped_to_spreadsheets_only(tmp_path, sheets_server):
    client = sheets_client(sheets_server.service_account_file(tmp_path / "sa.json"))
    assert client.http_client.auth.scopes == [SHEETS_SCOPE]


def test_the_environment_variable_names_the_key_file(tmp_path, sheets_server, monkeypatch):
    monkeypatch.setenv(ENV_CREDENTIALS, str(sheets_server.service_account_file(tmp_path / "sa.json")))
    assert sheets_client().http_client.auth.service_account_email.startswith("exporter@")


@pytest.mark.parametrize("bad", [{"attempts": 0}, {"writes_per_minute": 0}, {"timeout": 0},
                                 {"initial_wait": -1}, {"max_request_bytes": 0}])
def test_an_impossible_policy_is_a_value_error(bad):
    with pytest.raises(ValueError):
        SheetsPolicy(**bad)
