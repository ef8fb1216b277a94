"""Configuration in one table: every environment variable the project reads, with its flag,
its default and what it means.

Precedence, everywhere: a flag or argument > the environment > a ``.env`` file in the
working directory > the default. Every module asks :func:`value` (or :func:`setting`) instead
of reading ``os.environ`` itself, so a variable cannot be read without being declared here;
the README's configuration table and ``.env.example`` are tested against :data:`SETTINGS`.
(The secret scanner reads the whole environment, which is its job, not a setting.)
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True, slots=True)
class Setting:
    name: str  # the environment variable
    meaning: str
    default: str | None = None  # as the README shows it; None: unset means off or absent
    flag: str | None = None  # the command-line option (or argument) that wins over it
    #: read by a library the project uses (OpenTelemetry's exporter), not by the project's code
    read_by_library: bool = False


SETTINGS: tuple[Setting, ...] = (
    Setting("HARNESS_STORE", "the store: a SQLite path, `sqlite:///path` or a `postgresql://` URL", "./harness.db",
            "--store"),
    Setting("HARNESS_WRITER", "who writes finished runs: `process`, `thread` or `inline`",
            "`process` in Python, `thread` for the CLI"),
    Setting("XDG_CACHE_HOME", "where runs a store cannot take are spooled when its own directory cannot be written "
            "(`langgraph-harness/spool` under it)", "~/.cache"),
    Setting("HARNESS_MAX_PENDING_MB", "memory that finished runs not yet written may hold in the host before it "
            "waits for the writer (`Harness(max_pending_bytes=...)`)", "64"),
    Setting("HARNESS_PRICES", "a TOML file of model prices (USD per million tokens) that win over the bundled "
            "table, in every writer (also `harness.register_price`)", None, "--prices"),
    Setting("HARNESS_PROVIDER", "model provider of `harness run` and of judges: `offline` or `groq`", "offline",
            "--provider"),
    Setting("GROQ_API_KEY", "Groq key, for `--provider groq`"),
    Setting("GROQ_API_BASE", "another base URL for the Groq API (a proxy)", "Groq's"),
    Setting("GOOGLE_APPLICATION_CREDENTIALS", "service-account key file for Google Sheets", None, "--credentials"),
    Setting("OTEL_EXPORTER_OTLP_ENDPOINT", "send spans over OTLP/HTTP to this endpoint", "no spans"),
    Setting("OTEL_EXPORTER_OTLP_HEADERS", "headers of those requests, e.g. Langfuse's `Authorization`",
            read_by_library=True),
    Setting("OTEL_SERVICE_NAME", "`service.name` of the spans", "harness"),
    Setting("FINNHUB_API_KEY", "key of the Finnhub data source (`--sources live`)"),
    Setting("COURTLISTENER_API_KEY", "token of the CourtListener data source (`--sources live`)"),
    Setting("TAVILY_API_KEY", "key of the Tavily web search source (`--sources live`)"),
    Setting("SEC_EDGAR_USER_AGENT", "how SEC EDGAR requests identify you (\"name email\")",
            "a generic agent that asks you to set it"),
    Setting("SEC_EDGAR_WWW_URL", "another base URL for SEC EDGAR's www host (a proxy)", "https://www.sec.gov"),
    Setting("SEC_EDGAR_DATA_URL", "another base URL for SEC EDGAR's data host (a proxy)", "https://data.sec.gov"),
    Setting("FINNHUB_BASE_URL", "another base URL for Finnhub (a proxy)", "https://finnhub.io/api/v1"),
    Setting("COURTLISTENER_BASE_URL", "another base URL for CourtListener (a proxy)",
            "https://www.courtlistener.com/api/rest/v4"),
    Setting("TAVILY_BASE_URL", "another base URL for Tavily (a proxy)", "https://api.tavily.com"),
)

SETTINGS_BY_NAME: dict[str, Setting] = {s.name: s for s in SETTINGS}

#: The ``.env`` file read, relative to the working directory at the time of reading.
DOTENV = ".env"


def setting(name: str) -> Setting:
    try:
        return SETTINGS_BY_NAME[name]
    except KeyError:
        raise KeyError(f"{name} is not a setting of harness.config; declare it in SETTINGS") from None


#: .env files read: path -> (modification time, variables)
_read: dict[str, tuple[int, dict[str, str]]] = {}


def dotenv_values() -> Mapping[str, str]:
    """The variables of ``./.env`` (empty when there is none or it cannot be read); read again
    when the file changes."""
    from dotenv import dotenv_values as parse

    path = os.path.abspath(DOTENV)
    try:
        mtime = os.stat(path).st_mtime_ns
        cached = _read.get(path)
        if cached is None or cached[0] != mtime:
            cached = _read[path] = (mtime, {k: v for k, v in parse(path).items() if v is not None})
    except (OSError, UnicodeDecodeError, ValueError):
        return {}
    return cached[1]


def value(name: str, flag: str | os.PathLike[str] | None = None) -> str | None:
    """The setting ``name``: ``flag`` (what the caller was given) > the environment > ``.env`` >
    unset (None; the caller knows its default, documented in :data:`SETTINGS`). An empty value
    means unset, as the ``NAME=`` lines of ``.env.example`` do; a variable set in the
    environment, even empty, hides ``.env`` (python-dotenv's rule)."""
    setting(name)
    if flag is not None and os.fspath(flag) != "":
        return os.fspath(flag)
    if name in os.environ:
        return os.environ[name] or None
    return dotenv_values().get(name) or None


def load_dotenv() -> None:
    """Put ``./.env``'s variables in the environment where it has none (the CLI does this once,
    so child processes and the secret scanner see them too)."""
    for name, found in dotenv_values().items():
        os.environ.setdefault(name, found)


def unset(name: str) -> None:
    """Turn the setting off for this process and its children (the environment's empty value
    also hides ``.env``)."""
    setting(name)
    os.environ[name] = ""


def cache_dir() -> Path:
    """``$XDG_CACHE_HOME`` or ``~/.cache``."""
    found = value("XDG_CACHE_HOME")
    return Path(found) if found else Path.home() / ".cache"
