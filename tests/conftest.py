"""Fixtures shared by every test package."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture
def unwritable_dir(tmp_path: Path) -> Iterator[Path]:
    """A directory in which this process cannot create a file: a read-only directory, or
    ``/sys`` for root, whom permission bits do not stop."""
    if os.geteuid() == 0:
        yield Path("/sys")
        return
    directory = tmp_path / "read-only"
    directory.mkdir()
    directory.chmod(0o500)
    yield directory
    directory.chmod(0o700)


@pytest.fixture(scope="session")
def pg_server() -> Iterator[str]:
    """A real PostgreSQL server for the session (see tests/support/postgres.py)."""
    pytest.importorskip("psycopg", reason="the postgres extra (psycopg) is not installed")
    from tests.support.postgres import Unavailable, postgres_server

    try:
        with postgres_server() as url:
            yield url
    except Unavailable as exc:
        pytest.skip(str(exc))


@pytest.fixture
def pg_url(pg_server: str) -> Iterator[str]:
    """A new, empty database on the session's server, dropped after the test."""
    from tests.support.postgres import drop_database, fresh_database

    url = fresh_database(pg_server)
    yield url
    drop_database(pg_server, url)
