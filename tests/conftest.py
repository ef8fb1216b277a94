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


@pytest.fixture
def thread_harness(tmp_path: Path):
    """A Harness on ``runs.db`` in ``tmp_path`` whose writer is a thread; closed after the test."""
    from harness import Harness

    harness = Harness(tmp_path / "runs.db", writer="thread")
    yield harness
    harness.close()


@pytest.fixture(scope="session")
def conversations(tmp_path_factory):
    """A store of recorded conversations (see tests/support/conversations.py)."""
    from tests.support.conversations import record_conversations

    return record_conversations(tmp_path_factory.mktemp("threads") / "threads.db")


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


#: Paths that are not regular files, each a way an input could hang or grow without bound.
NOT_REGULAR = ("fifo", "directory", "device", "symlink to a device")


def not_regular_file(tmp_path: Path, kind: str, name: str = "input") -> Path:
    """A path named ``name`` in ``tmp_path`` that is a ``kind`` of :data:`NOT_REGULAR`
    (the device is ``/dev/zero``, which reads zeros for ever; the symlink keeps ``name``)."""
    path = tmp_path / name
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "directory":
        path.mkdir()
    elif kind == "device":
        return Path("/dev/zero")
    else:
        path.symlink_to("/dev/zero")
    return path


def returns_within(seconds: float, call, *args, **kwargs):
    """What ``call`` returns or raises, failing the test if it takes longer than
    ``seconds`` (it runs on a daemon thread, so a call that would block never hangs the run)."""
    import threading

    outcome: list = []

    def target() -> None:
        try:
            outcome.append((True, call(*args, **kwargs)))
        except BaseException as exc:  # noqa: BLE001 - handed back to the test
            outcome.append((False, exc))

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(seconds)
    assert outcome, f"{getattr(call, '__name__', call)} did not return within {seconds} s"
    ok, value = outcome[0]
    if not ok:
        raise value
    return value


@pytest.fixture
def read_only():
    """Makes a file, or a directory and what it holds, read-only for this process: permission
    bits, or for root, whom they do not stop, the file system's immutable attribute, else a
    read-only bind mount of the path; undone after the test."""
    import shutil
    import subprocess

    undo: list = []

    def run(*command: str) -> bool:
        return shutil.which(command[0]) is not None and subprocess.run(command, capture_output=True).returncode == 0

    def make(*paths: Path) -> None:
        for path in paths:
            if os.geteuid() != 0:
                mode = path.stat().st_mode
                path.chmod(0o555 if path.is_dir() else 0o444)
                undo.append(lambda path=path, mode=mode: path.chmod(mode))
            elif run("chattr", "+i", str(path)):
                undo.append(lambda path=path: run("chattr", "-i", str(path)))
            elif run("mount", "--bind", str(path), str(path)):
                undo.append(lambda path=path: run("umount", str(path)))
                if not run("mount", "-o", "remount,ro,bind", str(path), str(path)):
                    pytest.fail(f"cannot make {path} read-only for root here (no chattr, no read-only bind mount)")
            else:
                pytest.fail(f"cannot make {path} read-only for root here (no chattr, no bind mount)")

    yield make
    for step in reversed(undo):
        step()
