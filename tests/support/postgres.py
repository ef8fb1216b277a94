"""A real PostgreSQL server for the tests: ``$HARNESS_TEST_PG_URL``, or one started here.

Started with ``initdb`` and ``pg_ctl`` from PATH in a temporary directory, listening on a
free loopback port (trust authentication, no fsync: a throwaway cluster). PostgreSQL refuses
to run as root, so as root the server runs as an unprivileged user (``postgres``, else
``nobody``) through ``runuser``. When neither a URL nor the binaries are there, the tests
that need it skip, saying what is missing.
"""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ENV_URL = "HARNESS_TEST_PG_URL"


class Unavailable(Exception):
    """Why no server can be had (the tests skip with this reason)."""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _binaries() -> tuple[str, str]:
    found = [shutil.which(n) for n in ("initdb", "pg_ctl")]
    if not all(found):
        for candidate in sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True):
            if (candidate / "initdb").exists() and (candidate / "pg_ctl").exists():
                return str(candidate / "initdb"), str(candidate / "pg_ctl")
        raise Unavailable(f"no PostgreSQL server for the tests: set {ENV_URL} or put initdb and pg_ctl on PATH")
    return found[0], found[1]  # type: ignore[return-value]


def _as_user() -> tuple[list[str], str | None]:
    """The command prefix that runs the server's programs, and the user they run as."""
    if os.geteuid() != 0:
        return [], None
    runuser = shutil.which("runuser")
    for name in ("postgres", "nobody"):
        try:
            pwd.getpwnam(name)
        except KeyError:
            continue
        if runuser:
            return [runuser, "-u", name, "--"], name
    raise Unavailable("running as root without runuser or an unprivileged user (postgres, nobody) "
                      "to run PostgreSQL as")


@contextmanager
def postgres_server() -> Iterator[str]:
    """A server URL (to its ``postgres`` database) for the length of the block."""
    if os.environ.get(ENV_URL):
        yield os.environ[ENV_URL]
        return
    initdb, pg_ctl = _binaries()
    prefix, user = _as_user()
    home = Path(tempfile.mkdtemp(prefix="harness-pg-"))
    home.chmod(0o755)
    if user:
        shutil.chown(home, user)
    data, port = home / "data", _free_port()
    run = lambda *args: subprocess.run([*prefix, *args], capture_output=True, text=True, timeout=120)  # noqa: E731
    try:
        done = run(initdb, "-D", str(data), "-A", "trust", "-U", "postgres", "-E", "UTF8", "--no-sync")
        if done.returncode != 0:
            raise Unavailable(f"initdb failed: {done.stderr.strip()[-300:]}")
        options = f"-p {port} -k {home} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=60"
        done = run(pg_ctl, "-D", str(data), "-o", options, "-l", str(home / "log"), "-w", "-t", "60", "start")
        if done.returncode != 0:
            raise Unavailable(f"pg_ctl start failed: {done.stderr.strip()[-300:]}")
        try:
            yield f"postgresql://postgres@127.0.0.1:{port}/postgres"
        finally:
            run(pg_ctl, "-D", str(data), "-m", "immediate", "-w", "stop")
    finally:
        shutil.rmtree(home, ignore_errors=True)


def fresh_database(server_url: str) -> str:
    """A new, empty database on the server; its URL."""
    import psycopg

    name = f"harness_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(server_url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    return server_url.rsplit("/", 1)[0] + f"/{name}"


def drop_database(server_url: str, url: str) -> None:
    import psycopg

    with psycopg.connect(server_url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{url.rsplit("/", 1)[1]}" WITH (FORCE)')
