"""Configuration in one table: every variable the project reads is declared in harness.config,
documented in the README's table and in .env.example, and read flag > environment > .env > default."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from harness import config
from harness.store import store_url
from harness.writers import max_pending_bytes, writer_kind

ROOT = Path(__file__).parents[2]
NAME = re.compile(r"\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b")


def readme_table() -> dict[str, str]:
    """Variable -> its row in the README's configuration table."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("\n## Configuration\n", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        if line.startswith("| `"):
            first = line.split("|")[1]
            for name in re.findall(r"`([A-Z][A-Z0-9_]+)`", first):
                rows[name] = line
    return rows


def env_example() -> set[str]:
    return set(re.findall(r"^([A-Z][A-Z0-9_]+)=", (ROOT / ".env.example").read_text(encoding="utf-8"), re.M))


def test_the_readme_table_documents_exactly_the_declared_settings():
    assert set(readme_table()) == {s.name for s in config.SETTINGS}


def test_env_example_lists_exactly_the_declared_settings():
    assert env_example() == {s.name for s in config.SETTINGS}


def test_a_settings_flag_is_named_in_its_readme_row():
    rows = readme_table()
    assert [s.name for s in config.SETTINGS if s.flag and s.flag not in rows[s.name]] == []


def test_every_name_the_code_asks_for_is_declared():
    asked = set()
    for package in ("harness", "workflows", "exporters"):
        for path in (ROOT / package).rglob("*.py"):
            text = path.read_text()
            asked |= set(re.findall(r"""config\.(?:value|setting|unset)\(\s*["']([A-Z][A-Z0-9_]+)["']""", text))
            asked |= set(re.findall(r"""^\s*["']?[a-z_]+["']?\s*:\s*["']([A-Z][A-Z0-9_]+)["'],?""", text, re.M)
                         if "config.value(" in text else ())
    assert asked, "the scan found no setting asked for"
    assert asked <= {s.name for s in config.SETTINGS}, sorted(asked - {s.name for s in config.SETTINGS})


def test_an_undeclared_name_is_refused():
    with pytest.raises(KeyError, match="declare it"):
        config.value("HARNESS_NO_SUCH_THING")


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for name in ("HARNESS_STORE", "HARNESS_WRITER", "HARNESS_MAX_PENDING_MB"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path


def test_the_flag_wins_over_the_environment_which_wins_over_dotenv_which_wins_over_the_default(workdir, monkeypatch):
    assert store_url() == "harness.db"  # the default
    (workdir / ".env").write_text("HARNESS_STORE=from-dotenv.db\n")
    assert store_url() == "from-dotenv.db"
    monkeypatch.setenv("HARNESS_STORE", "from-env.db")
    assert store_url() == "from-env.db"
    assert store_url("from-flag.db") == "from-flag.db"


def test_an_empty_variable_is_unset_and_hides_dotenv(workdir, monkeypatch):
    (workdir / ".env").write_text("HARNESS_WRITER=inline\n")
    assert writer_kind() == "inline"
    monkeypatch.setenv("HARNESS_WRITER", "")
    assert writer_kind() == "process"
    (workdir / ".env").write_text("HARNESS_MAX_PENDING_MB=2\n")
    monkeypatch.setenv("HARNESS_MAX_PENDING_MB", "5")  # restored when the test ends
    config.unset("HARNESS_MAX_PENDING_MB")
    assert max_pending_bytes() == 64 << 20


def test_a_changed_dotenv_is_read_again(workdir):
    (workdir / ".env").write_text("HARNESS_MAX_PENDING_MB=2\n")
    assert max_pending_bytes() == 2 << 20
    (workdir / ".env").write_text("HARNESS_MAX_PENDING_MB=3\n")
    os.utime(workdir / ".env", ns=(1, 10**18))  # a different mtime however fast the rewrite
    assert max_pending_bytes() == 3 << 20


def test_load_dotenv_fills_only_what_the_environment_lacks(workdir, monkeypatch):
    (workdir / ".env").write_text("OTEL_SERVICE_NAME=from-dotenv\nHARNESS_PROVIDER=groq\n")
    monkeypatch.setenv("HARNESS_PROVIDER", "offline")
    monkeypatch.delenv("OTEL_SERVICE_NAME", raising=False)
    config.load_dotenv()
    assert os.environ["OTEL_SERVICE_NAME"] == "from-dotenv" and os.environ["HARNESS_PROVIDER"] == "offline"
    monkeypatch.delenv("OTEL_SERVICE_NAME")


def test_a_secret_in_dotenv_that_the_library_reads_is_redacted_too(workdir, monkeypatch):
    from harness.secrets.redact import host_secrets

    monkeypatch.delenv("GROQ_API_KEY", raising=False)
    (workdir / ".env").write_text("GROQ_API_KEY=gsk_only_in_the_dotenv_file_1234\n")
    assert config.value("GROQ_API_KEY") == "gsk_only_in_the_dotenv_file_1234"
    assert "gsk_only_in_the_dotenv_file_1234" in host_secrets()
