"""Talking to the Google Sheets API: credentials, pacing under the quotas, retries.

Every request goes through :class:`SheetsApi`, which waits for the per-minute quota
(a sliding 60-second window per kind, reads and writes apart), counts the request, and
retries what is safe to retry: HTTP 408, 429, 500, 502, 503, 504 and connection errors,
with exponential backoff and jitter (tenacity), up to ``SheetsPolicy.attempts``.
Whether a write that failed may still have been applied is the caller's question
(:func:`ambiguous`): a 429 never is, a timeout, a dropped connection or a 5xx may be.
"""

from __future__ import annotations

import os
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, TypeVar

import gspread
import requests
from google.auth.exceptions import RefreshError, TransportError
from google.oauth2 import service_account
from gspread.exceptions import APIError
from gspread.http_client import HTTPClient
from harness import config
from tenacity import (
    RetryCallState,
    Retrying,
    retry_if_exception,
    stop_after_attempt,
    wait_exponential,
    wait_random,
)

from harness.inputs import CREDENTIALS, read_json_file

#: The only scope a push needs: read and write spreadsheets the account was given (no Drive).
SHEETS_SCOPE = "https://www.googleapis.com/auth/spreadsheets"
ENV_CREDENTIALS = "GOOGLE_APPLICATION_CREDENTIALS"

_RETRY_STATUSES = frozenset({408, 429, 500, 502, 503, 504})
_WINDOW = 60.0

T = TypeVar("T")


class SheetsExportError(RuntimeError):
    """A push could not finish. Rows acknowledged so far are recorded; run it again to resume."""


@dataclass(frozen=True, slots=True)
class SheetsPolicy:
    """How a push paces and retries its requests (defaults suit the public API's quotas)."""

    attempts: int = 6  # tries per request, the first included
    initial_wait: float = 1.0  # seconds before the first retry, doubling each time
    max_wait: float = 32.0  # cap of the doubling (jitter comes on top)
    jitter: float = 1.0  # up to this many random seconds added to each wait
    timeout: float = 60.0  # seconds per request (connect, then read)
    reads_per_minute: int = 60  # per-user quotas of the Sheets API
    writes_per_minute: int = 60
    max_request_bytes: int = 2_000_000  # an append above this is split (Google's advice)
    sleep: Callable[[float], None] = time.sleep
    clock: Callable[[], float] = time.monotonic

    def __post_init__(self) -> None:
        if self.attempts < 1 or self.reads_per_minute < 1 or self.writes_per_minute < 1:
            raise ValueError("attempts and per-minute quotas must be at least 1")
        if min(self.initial_wait, self.max_wait, self.jitter) < 0 or self.timeout <= 0:
            raise ValueError("waits must be >= 0 and the timeout > 0")
        if self.max_request_bytes < 1:
            raise ValueError("max_request_bytes must be positive")


def sheets_client(credentials_file: str | os.PathLike[str] | None = None, *,
                  http_client: type[HTTPClient] = HTTPClient) -> gspread.Client:
    """A gspread client for a service account, scoped to spreadsheets only.

    The key file is ``credentials_file`` or else ``$GOOGLE_APPLICATION_CREDENTIALS``.
    Raises ValueError (one line, never the key) when neither is set, or the file is
    unreadable, not JSON, or not a service-account key.
    """
    raw = config.value(ENV_CREDENTIALS, credentials_file)
    if not raw:
        raise ValueError(f"no Google credentials: pass a service-account key file or set {ENV_CREDENTIALS}")
    path = Path(raw).expanduser()
    info = read_json_file(path, CREDENTIALS)  # a regular file of at most 10 MB
    if not isinstance(info, dict) or info.get("type") != "service_account":
        raise ValueError(f"credentials file {str(path)!r} is not a service-account key")
    try:
        credentials = service_account.Credentials.from_service_account_info(info, scopes=[SHEETS_SCOPE])
    except (ValueError, KeyError, TypeError):
        raise ValueError(f"credentials file {str(path)!r} is not a usable service-account key") from None
    return gspread.Client(auth=credentials, http_client=http_client)


def _status(exc: BaseException) -> int | None:
    return exc.response.status_code if isinstance(exc, APIError) else None


def retryable(exc: BaseException) -> bool:
    """Worth another try: a retryable HTTP status, or the connection failed or timed out."""
    if isinstance(exc, (requests.RequestException, TransportError)):
        return True
    return _status(exc) in _RETRY_STATUSES


def ambiguous(exc: BaseException) -> bool:
    """A write that failed like this may have been applied by the server anyway."""
    return retryable(exc) and _status(exc) != 429


def describe(exc: BaseException) -> str:
    """One line about a failed request, without credentials or response bodies."""
    status = _status(exc)
    if status is not None:
        assert isinstance(exc, APIError)
        message = exc.error.get("message") if exc.code != -1 else None  # -1: not a JSON body
        return f"HTTP {status}" + (f": {message}" if message else "")
    if isinstance(exc, RefreshError):
        return "the service account's token request was refused"
    return type(exc).__name__


class _Pacer:
    """At most ``limit`` requests in any 60-second window (a sliding log of start times)."""

    def __init__(self, limit: int, policy: SheetsPolicy) -> None:
        self._limit, self._clock, self._sleep = limit, policy.clock, policy.sleep
        self._starts: deque[float] = deque()

    def wait(self) -> None:
        now = self._clock()
        starts = self._starts
        while starts and now - starts[0] >= _WINDOW:
            starts.popleft()
        if len(starts) >= self._limit:
            delay = _WINDOW - (now - starts.popleft())
            self._sleep(delay)
            now += delay
        starts.append(now)


class SheetsApi:
    """One spreadsheet's requests: paced, counted, retried."""

    def __init__(self, client: gspread.Client, spreadsheet_id: str, policy: SheetsPolicy) -> None:
        self.http = client.http_client
        self.spreadsheet_id = spreadsheet_id
        self.policy = policy
        self.requests = 0
        self.retries = 0
        self._pacers = {"read": _Pacer(policy.reads_per_minute, policy),
                        "write": _Pacer(policy.writes_per_minute, policy)}

    def send(self, kind: Literal["read", "write"], call: Callable[..., T], *args: Any) -> T:
        """One HTTP request, after waiting for its quota; no retry."""
        self._pacers[kind].wait()
        self.requests += 1
        return call(self.spreadsheet_id, *args)

    def retrying(self, retry_on: Callable[[BaseException], bool] = retryable) -> Retrying:
        """A tenacity loop with the policy's backoff; counts each retry."""
        p = self.policy
        return Retrying(
            retry=retry_if_exception(retry_on),
            wait=wait_exponential(multiplier=p.initial_wait, max=p.max_wait) + wait_random(0, p.jitter),
            stop=stop_after_attempt(p.attempts),
            sleep=p.sleep,
            reraise=True,
            before_sleep=self._count_retry,
        )

    def _count_retry(self, state: RetryCallState) -> None:
        self.retries += 1

    def write(self, send: Callable[[], object], look: Callable[[], bool]) -> None:
        """A write that is not idempotent, retried. After a failure that may have been applied
        (:func:`ambiguous`), ``look()`` runs before re-sending: it reads what landed, narrows
        what ``send()`` will send, and returns False when nothing is left to send."""
        check_first = False
        for attempt in self.retrying():
            with attempt:
                if check_first:
                    check_first = False
                    if not look():
                        return
                try:
                    send()
                except Exception as exc:
                    check_first = ambiguous(exc)
                    raise

    def read(self, call: Callable[..., T], *args: Any) -> T:
        """An idempotent request, retried on every transient failure."""
        result: T
        for attempt in self.retrying():
            with attempt:
                result = self.send("read", call, *args)
        return result

    def metadata(self) -> dict[str, Any]:
        return self.read(self.http.fetch_sheet_metadata)

    def batch_get(self, ranges: list[str]) -> list[list[list[Any]]]:
        """Values of each range (rows, trailing empties trimmed), unformatted."""
        answer = self.read(self.http.values_batch_get, ranges, {"valueRenderOption": "UNFORMATTED_VALUE"})
        return [vr.get("values", []) for vr in answer.get("valueRanges", [])]
