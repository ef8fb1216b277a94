"""A local Google Sheets v4 API on 127.0.0.1, for tests that drive real gspread traffic.

It implements what gspread sends for our exports and audits -- the OAuth token exchange of
a service account, spreadsheet metadata, ``:batchUpdate`` (addSheet, updateSheetProperties,
updateCells, updateDimensionProperties, repeatCell with a number format), ``values`` get / batchGet / update / append --
keeps the cells in memory, records every request, and can be told to fail chosen requests:
answer a status (429, 500, an HTML 502), or apply the request and then hang or drop the
connection (the "lost response" that makes appends ambiguous).

    with SheetsServer() as server:
        sid = server.create_spreadsheet()                  # shared with the service account
        client = server.client(timeout=2)                  # a real gspread.Client, real HTTP
        server.fail("append", status=500, apply=True)      # next append: applied, then 500
        ...
        server.values(sid, "runs")                         # cells as stored (header first)
        server.count("append")                             # requests of one endpoint

Tokens come from a real JWT-bearer exchange: ``service_account_file()`` writes a key file
(freshly generated RSA key) whose ``token_uri`` is this server; the server checks the
assertion's signature, records its scopes (``scopes``) and accepts only tokens it issued.
gspread reaches the server through ``local_http_client(base_url)``, an ``HTTPClient``
whose requests to ``https://sheets.googleapis.com`` are rewritten to the local base URL
(gspread's own URL constants are copied at import, so patching them has no effect);
``redirect_gspread()`` applies the same rewrite to every gspread client, for code that
builds its own (the CLI).

Values are stored as sent: with ``valueInputOption=RAW`` a string stays a string. Reads
default to ``FORMATTED_VALUE`` (numbers rendered as text, roughly as Sheets would); pass
``valueRenderOption=UNFORMATTED_VALUE`` for the raw numbers.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

import gspread
import requests
from google.auth import jwt
from google.auth.transport.requests import AuthorizedSession
from google.auth.transport.requests import Request as AuthRequest
from gspread.http_client import HTTPClient
from gspread.utils import convert_credentials
from requests.adapters import HTTPAdapter

GOOGLE_SHEETS = "https://sheets.googleapis.com"
_HTTP_CLIENT_INIT, _HTTP_CLIENT_REQUEST = HTTPClient.__init__, HTTPClient.request
CLIENT_EMAIL = "exporter@harness-tests.iam.gserviceaccount.com"
_GOOGLE_TOKEN_AUDIENCE = "https://oauth2.googleapis.com/token"  # google-auth's JWT audience


# --- the model --------------------------------------------------------------------------
@dataclass
class Worksheet:
    sheet_id: int
    title: str
    rows: int = 1000
    cols: int = 26
    frozen_rows: int = 0
    cells: list[list[Any]] = field(default_factory=list)
    hidden_columns: set[int] = field(default_factory=set)
    number_formats: dict[tuple[int, int], str] = field(default_factory=dict)  # (row, column) -> pattern

    def properties(self, index: int) -> dict[str, Any]:
        grid = {"rowCount": self.rows, "columnCount": self.cols}
        if self.frozen_rows:
            grid["frozenRowCount"] = self.frozen_rows
        return {"sheetId": self.sheet_id, "title": self.title, "index": index,
                "sheetType": "GRID", "gridProperties": grid}

    def last_row(self) -> int:
        """Rows up to the last non-empty one (what values.append treats as the table)."""
        for r in range(len(self.cells) - 1, -1, -1):
            if any(v not in ("", None) for v in self.cells[r]):
                return r + 1
        return 0

    def write(self, top: int, left: int, values: list[list[Any]]) -> None:
        for r, row in enumerate(values, top):
            while len(self.cells) <= r:
                self.cells.append([])
            line = self.cells[r]
            for c, value in enumerate(row, left):
                while len(line) <= c:
                    line.append("")
                line[c] = "" if value is None else value
        self.rows = max(self.rows, top + len(values))
        self.cols = max(self.cols, left + max((len(row) for row in values), default=0))

    def read(self, top: int, left: int, bottom: int | None, right: int | None) -> list[list[Any]]:
        bottom = len(self.cells) if bottom is None else min(bottom, len(self.cells))
        out = [list(self.cells[r][left:right]) for r in range(top, bottom)]
        for row in out:
            while row and row[-1] in ("", None):
                row.pop()
        while out and not out[-1]:
            out.pop()
        return out


@dataclass
class Spreadsheet:
    id: str
    title: str
    sheets: list[Worksheet]

    def worksheet(self, title: str) -> Worksheet:
        for ws in self.sheets:
            if ws.title == title:
                return ws
        raise _Fail(400, f"Unable to parse range: {title}")

    def by_id(self, sheet_id: int) -> Worksheet:
        for ws in self.sheets:
            if ws.sheet_id == sheet_id:
                return ws
        raise _Fail(400, f"No grid with id: {sheet_id}")


@dataclass(frozen=True)
class Request:
    """One request as received: endpoint is metadata, batchUpdate, get, batchGet, update,
    append or token; ``sheets`` are the worksheet titles its ranges name."""

    method: str
    endpoint: str
    spreadsheet_id: str | None
    sheets: tuple[str, ...]
    query: dict[str, list[str]]
    body: Any
    status: int | None  # None when the connection was hung up or dropped


@dataclass
class _Fault:
    endpoint: str
    sheet: str | None
    status: int | None
    hang: float | None  # with status None: hang this long, else drop at once
    apply: bool
    html: bool
    times: int


class _Fail(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


_AUTH_ENDPOINTS = ("token", "allowedLocations")
_STATUS_NAMES = {400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED",
                 404: "NOT_FOUND", 429: "RESOURCE_EXHAUSTED", 500: "INTERNAL", 503: "UNAVAILABLE"}


# --- A1 ranges --------------------------------------------------------------------------
_CELL = re.compile(r"^([A-Za-z]*)(\d*)$")


def _column_index(letters: str) -> int:
    n = 0
    for ch in letters.upper():
        n = n * 26 + ord(ch) - 64
    return n - 1


def _split_range(text: str) -> tuple[str | None, str]:
    if text.startswith("'"):
        end = 1
        while True:
            end = text.index("'", end)
            if text[end + 1:end + 2] == "'":
                end += 2
                continue
            break
        title = text[1:end].replace("''", "'")
        rest = text[end + 1:]
        return title, rest[1:] if rest.startswith("!") else rest
    if "!" in text:
        title, ref = text.rsplit("!", 1)
        return title, ref
    return None, text


def _bounds(ref: str) -> tuple[int, int, int | None, int | None]:
    """A1 reference -> (top, left, bottom, right): 0-based, bottom/right exclusive or open."""
    if not ref:
        return 0, 0, None, None
    first, _, last = ref.partition(":")
    m1, m2 = _CELL.match(first), _CELL.match(last or first)
    if not m1 or not m2:
        raise _Fail(400, f"Unable to parse range: {ref}")
    top = int(m1.group(2)) - 1 if m1.group(2) else 0
    left = _column_index(m1.group(1)) if m1.group(1) else 0
    bottom = int(m2.group(2)) if m2.group(2) else None
    right = _column_index(m2.group(1)) + 1 if m2.group(1) else None
    return top, left, bottom, right


def _a1(top: int, left: int, bottom: int, right: int) -> str:
    return f"{gspread.utils.rowcol_to_a1(top + 1, left + 1)}:{gspread.utils.rowcol_to_a1(bottom, right)}"


def _formatted(value: Any) -> Any:
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, (int, float)):
        return str(value)
    return value


# --- routing helpers for clients -----------------------------------------------------------
class _RewritingAdapter(HTTPAdapter):
    """Sends every https request of a session to the local server instead."""

    __attrs__ = [*HTTPAdapter.__attrs__, "base_url"]  # google-auth deep-copies the session

    def __init__(self, base_url: str = "") -> None:
        super().__init__()
        self.base_url = base_url

    def send(self, request: Any, *args: Any, **kwargs: Any) -> Any:
        parts = urlsplit(request.url)
        request.url = f"{self.base_url}{parts.path}" + (f"?{parts.query}" if parts.query else "")
        return super().send(request, *args, **kwargs)


def local_http_client(base_url: str) -> type[HTTPClient]:
    """A gspread ``HTTPClient`` class whose traffic all goes to ``base_url``: Sheets API
    calls, and google-auth's own calls (its regional-access-boundary lookup at
    iamcredentials.googleapis.com after each token), which use a session of their own."""

    base_init, base_request = _HTTP_CLIENT_INIT, _HTTP_CLIENT_REQUEST  # not super(): see redirect_gspread

    class LocalHTTPClient(HTTPClient):
        def __init__(self, auth: Any, session: Any = None) -> None:
            if session is None:
                auth_session = requests.Session()
                auth_session.mount("https://", _RewritingAdapter(base_url))
                session = AuthorizedSession(convert_credentials(auth), auth_request=AuthRequest(auth_session))
            base_init(self, auth, session)
            self.auth = session.credentials

        def request(self, method: str, endpoint: str, *args: Any, **kwargs: Any) -> Any:
            if endpoint.startswith(GOOGLE_SHEETS):
                endpoint = base_url + endpoint[len(GOOGLE_SHEETS):]
            return base_request(self, method, endpoint, *args, **kwargs)

    return LocalHTTPClient


@cache
def _rsa_key() -> tuple[str, str]:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    private = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption()).decode()
    public = key.public_key().public_bytes(serialization.Encoding.PEM,
                                           serialization.PublicFormat.SubjectPublicKeyInfo).decode()
    return private, public


# --- the server ---------------------------------------------------------------------------
class SheetsServer:
    """In-memory Sheets v4 on 127.0.0.1 (a thread per connection). Use as a context manager,
    or call ``start()`` and ``stop()``."""

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._stop = threading.Event()
        self._spreadsheets: dict[str, Spreadsheet] = {}
        self._faults: list[_Fault] = []
        self._tokens: set[str] = set()
        self._ids = itertools.count(1)
        self.requests: list[Request] = []
        self.scopes: list[str] = []  # the scope claim of every token request
        self._httpd: ThreadingHTTPServer | None = None

    # lifecycle
    def start(self) -> SheetsServer:
        handler = type("Handler", (_Handler,), {"api": self})
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._httpd.daemon_threads = True
        threading.Thread(target=self._httpd.serve_forever, args=(0.05,), name="sheets-server", daemon=True).start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()

    def __enter__(self) -> SheetsServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def base_url(self) -> str:
        assert self._httpd is not None, "start() the server first"
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    # clients
    def service_account_info(self) -> dict[str, str]:
        private, _ = _rsa_key()
        return {"type": "service_account", "project_id": "harness-tests", "private_key_id": "k1",
                "private_key": private, "client_email": CLIENT_EMAIL, "client_id": "1",
                "token_uri": f"{self.base_url}/token"}

    def service_account_file(self, path: str | Path) -> Path:
        """Write a service-account key file whose token exchange runs against this server."""
        path = Path(path)
        path.write_text(json.dumps(self.service_account_info()))
        return path

    @property
    def http_client(self) -> type[HTTPClient]:
        return local_http_client(self.base_url)

    def client(self, timeout: float | None = None) -> gspread.Client:
        """A gspread client authenticated as the service account (spreadsheets scope)."""
        gc = gspread.service_account_from_dict(
            self.service_account_info(), scopes=["https://www.googleapis.com/auth/spreadsheets"],
            http_client=self.http_client)
        gc.set_timeout(timeout)
        return gc

    @contextlib.contextmanager
    def redirect_gspread(self) -> Iterator[None]:
        """Make every gspread ``HTTPClient`` built inside the block talk to this server."""
        local = self.http_client
        saved = HTTPClient.__init__, HTTPClient.request
        HTTPClient.__init__, HTTPClient.request = local.__init__, local.request  # type: ignore[method-assign]
        try:
            yield
        finally:
            HTTPClient.__init__, HTTPClient.request = saved  # type: ignore[method-assign]

    # data
    def create_spreadsheet(self, title: str = "Harness runs", sheets: tuple[str, ...] = ("Sheet1",)) -> str:
        """A spreadsheet (shared with the service account) holding empty ``sheets``; its id."""
        with self._lock:
            sid = f"sheet-{next(self._ids)}"
            self._spreadsheets[sid] = Spreadsheet(sid, title, [Worksheet(next(self._ids), t) for t in sheets])
            return sid

    def set_values(self, spreadsheet_id: str, title: str, values: list[list[Any]]) -> None:
        """Write cells from A1 of ``title`` (creating the worksheet if needed)."""
        with self._lock:
            book = self._spreadsheets[spreadsheet_id]
            if title not in self.titles(spreadsheet_id):
                book.sheets.append(Worksheet(next(self._ids), title))
            book.worksheet(title).write(0, 0, values)

    def values(self, spreadsheet_id: str, title: str) -> list[list[Any]]:
        """Every non-empty row of a worksheet as stored (trailing empty cells trimmed)."""
        with self._lock:
            return self._spreadsheets[spreadsheet_id].worksheet(title).read(0, 0, None, None)

    def titles(self, spreadsheet_id: str) -> list[str]:
        with self._lock:
            return [ws.title for ws in self._spreadsheets[spreadsheet_id].sheets]

    def number_format(self, spreadsheet_id: str, title: str, row: int, column: int) -> str | None:
        """The number format pattern of a cell (0-based row and column), None when unset."""
        return self.worksheet(spreadsheet_id, title).number_formats.get((row, column))

    def worksheet(self, spreadsheet_id: str, title: str) -> Worksheet:
        """The live worksheet model (grid size, frozen rows, hidden columns, cells)."""
        return self._spreadsheets[spreadsheet_id].worksheet(title)

    # failures and accounting
    def fail(self, endpoint: str, *, status: int | None = None, hang: float | None = None,
             drop: bool = False, apply: bool | None = None, sheet: str | None = None,
             times: int = 1, html: bool = False) -> None:
        """Make the next ``times`` requests to ``endpoint`` ("any" for all) fail.

        Exactly one of: ``status`` (answer it, with a JSON error or an ``html`` body),
        ``hang`` (seconds to hold the connection, then close it), ``drop`` (close it at
        once). ``apply`` says whether the request takes effect first: by default False for
        a status, True for hang and drop. ``sheet`` limits the fault to requests naming
        that worksheet.
        """
        if sum((status is not None, hang is not None, drop)) != 1:
            raise ValueError("give exactly one of status, hang, drop")
        applies = apply if apply is not None else status is None
        with self._lock:
            self._faults.append(_Fault(endpoint, sheet, status, hang, applies, html, times))

    def count(self, endpoint: str | None = None) -> int:
        """Requests received of one endpoint, or all Sheets API requests (authentication
        traffic left out), failed ones included."""
        with self._lock:
            if endpoint is None:
                return sum(1 for r in self.requests if r.endpoint not in _AUTH_ENDPOINTS)
            return sum(1 for r in self.requests if r.endpoint == endpoint)

    def reset_requests(self) -> None:
        with self._lock:
            self.requests.clear()

    # request handling (called from handler threads)
    def _fault_for(self, endpoint: str, sheets: tuple[str, ...]) -> _Fault | None:
        with self._lock:
            for fault in self._faults:
                if fault.endpoint in (endpoint, "any") and (fault.sheet is None or fault.sheet in sheets):
                    fault.times -= 1
                    if fault.times <= 0:
                        self._faults.remove(fault)
                    return fault
        return None

    def _token(self, form: dict[str, list[str]]) -> dict[str, Any]:
        _, public = _rsa_key()
        try:
            claims = jwt.decode(form["assertion"][0], certs=public, audience=_GOOGLE_TOKEN_AUDIENCE)
        except Exception as exc:  # noqa: BLE001 - any bad assertion is a refused grant
            raise _Fail(400, f"invalid_grant: {exc}") from None
        with self._lock:
            self.scopes.extend(str(claims.get("scope", "")).split())
            token = f"local-token-{next(self._ids)}"
            self._tokens.add(token)
        return {"access_token": token, "expires_in": 3600, "token_type": "Bearer"}

    def _book(self, sid: str) -> Spreadsheet:
        try:
            return self._spreadsheets[sid]
        except KeyError:
            raise _Fail(404, "Requested entity was not found.") from None

    def _metadata(self, book: Spreadsheet) -> dict[str, Any]:
        return {"spreadsheetId": book.id, "properties": {"title": book.title, "locale": "en_US",
                                                         "timeZone": "Etc/GMT"},
                "sheets": [{"properties": ws.properties(i)} for i, ws in enumerate(book.sheets)]}

    def _locate(self, book: Spreadsheet, text: str) -> tuple[Worksheet, tuple[int, int, int | None, int | None]]:
        title, ref = _split_range(text)
        if title is None:
            if ref in self.titles(book.id):
                return book.worksheet(ref), _bounds("")
            return book.sheets[0], _bounds(ref)
        return book.worksheet(title), _bounds(ref)

    def _value_range(self, book: Spreadsheet, text: str, query: dict[str, list[str]]) -> dict[str, Any]:
        ws, (top, left, bottom, right) = self._locate(book, text)
        values = ws.read(top, left, bottom, right)
        if query.get("valueRenderOption", ["FORMATTED_VALUE"])[0] == "FORMATTED_VALUE":
            values = [[_formatted(v) for v in row] for row in values]
        out: dict[str, Any] = {"range": text, "majorDimension": "ROWS"}
        if values:
            out["values"] = values
        return out

    def _batch_update(self, book: Spreadsheet, body: dict[str, Any]) -> dict[str, Any]:
        staged = [Worksheet(ws.sheet_id, ws.title, ws.rows, ws.cols, ws.frozen_rows,
                            [list(r) for r in ws.cells], set(ws.hidden_columns), dict(ws.number_formats))
                  for ws in book.sheets]
        trial = Spreadsheet(book.id, book.title, staged)  # all requests apply, or none
        replies = [self._apply_one(trial, request) for request in body.get("requests", [])]
        book.sheets = trial.sheets
        return {"spreadsheetId": book.id, "replies": replies}

    def _apply_one(self, book: Spreadsheet, request: dict[str, Any]) -> dict[str, Any]:
        (kind, spec), = request.items()
        if kind == "addSheet":
            props = spec.get("properties", {})
            title = props.get("title") or f"Sheet{len(book.sheets) + 1}"
            if title in (ws.title for ws in book.sheets):
                raise _Fail(400, f'Invalid requests[0].addSheet: A sheet with the name "{title}" already exists.')
            sheet_id = props.get("sheetId", next(self._ids))
            if any(ws.sheet_id == sheet_id for ws in book.sheets):
                raise _Fail(400, f"Invalid requests[0].addSheet: sheet id {sheet_id} is already in use.")
            grid = props.get("gridProperties", {})
            ws = Worksheet(sheet_id, title, grid.get("rowCount", 1000), grid.get("columnCount", 26),
                           grid.get("frozenRowCount", 0))
            book.sheets.append(ws)
            return {"addSheet": {"properties": ws.properties(len(book.sheets) - 1)}}
        if kind == "updateSheetProperties":
            ws = book.by_id(spec["properties"]["sheetId"])
            grid = spec["properties"].get("gridProperties", {})
            ws.rows = grid.get("rowCount", ws.rows)
            ws.cols = grid.get("columnCount", ws.cols)
            ws.frozen_rows = grid.get("frozenRowCount", ws.frozen_rows)
            return {}
        if kind == "updateCells":
            ws = book.by_id(spec["start"]["sheetId"])
            top, left = spec["start"].get("rowIndex", 0), spec["start"].get("columnIndex", 0)
            rows = [[next(iter(cell.get("userEnteredValue", {"stringValue": ""}).values()))
                     for cell in row.get("values", [])] for row in spec.get("rows", [])]
            if top + len(rows) > ws.rows or left + max(map(len, rows), default=0) > ws.cols:
                raise _Fail(400, "Invalid requests[0].updateCells: GridCoordinate is outside the grid.")
            ws.write(top, left, rows)
            return {}
        if kind == "updateDimensionProperties":
            ws = book.by_id(spec["range"]["sheetId"])
            span = range(spec["range"].get("startIndex", 0), spec["range"].get("endIndex", ws.cols))
            if spec["properties"].get("hiddenByUser"):
                ws.hidden_columns.update(span)
            else:
                ws.hidden_columns.difference_update(span)
            return {}
        if kind == "repeatCell":
            grid = spec["range"]
            ws = book.by_id(grid["sheetId"])
            fmt = spec["cell"]["userEnteredFormat"]["numberFormat"]
            if spec.get("fields") != "userEnteredFormat.numberFormat" or fmt.get("type") != "NUMBER":
                raise _Fail(400, "Invalid requests[0].repeatCell: only number formats are implemented locally")
            for r in range(grid.get("startRowIndex", 0), grid.get("endRowIndex", ws.rows)):
                for c in range(grid.get("startColumnIndex", 0), grid.get("endColumnIndex", ws.cols)):
                    ws.number_formats[(r, c)] = fmt["pattern"]
            return {}
        raise _Fail(400, f"request {kind!r} is not implemented by the local server")

    def _append(self, book: Spreadsheet, text: str, query: dict[str, list[str]], body: dict[str, Any]) -> dict[str, Any]:
        ws, (top, left, _, _) = self._locate(book, text)
        values = body.get("values", [])
        start = max(ws.last_row(), top)
        if query.get("insertDataOption", ["OVERWRITE"])[0] == "INSERT_ROWS":
            ws.rows += len(values)
        ws.write(start, left, values)
        width = max((len(row) for row in values), default=0)
        updated = f"'{ws.title}'!{_a1(start, left, start + len(values), left + width)}"
        return {"spreadsheetId": book.id, "tableRange": f"'{ws.title}'!A1",
                "updates": {"spreadsheetId": book.id, "updatedRange": updated, "updatedRows": len(values),
                            "updatedColumns": width, "updatedCells": width * len(values)}}

    def _update(self, book: Spreadsheet, text: str, body: dict[str, Any]) -> dict[str, Any]:
        ws, (top, left, _, _) = self._locate(book, text)
        values = body.get("values", [])
        ws.write(top, left, values)
        return {"spreadsheetId": book.id, "updatedRange": text, "updatedRows": len(values)}

    def _serve(self, method: str, path: str, query: dict[str, list[str]], body: Any,
               authorization: str) -> tuple[str, str | None, tuple[str, ...], Any]:
        """Route one request: (endpoint, spreadsheet id, sheet titles, a callable giving the answer)."""
        if path == "/token" and method == "POST":
            return "token", None, (), lambda: self._token(body)
        if path.endswith("/allowedLocations") and method == "GET":  # google-auth, after a token
            return "allowedLocations", None, (), lambda: {"locations": [], "encodedLocations": "0x0"}
        m = re.fullmatch(r"/v4/spreadsheets/([^/:]+)(:batchUpdate|/values:batchGet|/values/([^:]+)(:append)?)?", path)
        if not m:
            raise _Fail(404, f"no route for {method} {path}")
        sid, tail, raw_range, append = m.group(1), m.group(2) or "", m.group(3), m.group(4)
        if authorization.removeprefix("Bearer ") not in self._tokens:
            raise _Fail(401, "Request had invalid authentication credentials.")
        text = unquote(raw_range) if raw_range else None

        def titles(*ranges: str) -> tuple[str, ...]:
            return tuple(t for t in (_split_range(r)[0] for r in ranges) if t)

        if tail == "" and method == "GET":
            return "metadata", sid, (), lambda: self._metadata(self._book(sid))
        if tail == ":batchUpdate" and method == "POST":
            return "batchUpdate", sid, (), lambda: self._batch_update(self._book(sid), body)
        if tail == "/values:batchGet" and method == "GET":
            ranges = query.get("ranges", [])
            return "batchGet", sid, titles(*ranges), lambda: {
                "spreadsheetId": sid, "valueRanges": [self._value_range(self._book(sid), r, query) for r in ranges]}
        if text is not None and append and method == "POST":
            if query.get("valueInputOption", [""])[0] not in ("RAW", "USER_ENTERED"):
                raise _Fail(400, "valueInputOption is required")
            return "append", sid, titles(text), lambda: self._append(self._book(sid), text, query, body)
        if text is not None and method == "GET":
            return "get", sid, titles(text), lambda: self._value_range(self._book(sid), text, query)
        if text is not None and method == "PUT":
            return "update", sid, titles(text), lambda: self._update(self._book(sid), text, body)
        raise _Fail(404, f"no route for {method} {path}")


class _Handler(BaseHTTPRequestHandler):
    api: SheetsServer
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body go in two writes: no 40 ms delayed ACK

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        pass

    def do_GET(self) -> None:
        self._handle("GET")

    def do_POST(self) -> None:
        self._handle("POST")

    def do_PUT(self) -> None:
        self._handle("PUT")

    def _handle(self, method: str) -> None:
        api = self.api
        url = urlsplit(self.path)
        query = parse_qs(url.query)
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self.headers.get("Content-Type", "").startswith("application/x-www-form-urlencoded"):
            body: Any = parse_qs(raw.decode())
        else:
            body = json.loads(raw) if raw else {}
        endpoint, sid, sheets, fault = "unknown", None, (), None
        try:
            endpoint, sid, sheets, answer = api._serve(method, url.path, query, body,
                                                       self.headers.get("Authorization", ""))
            fault = api._fault_for(endpoint, sheets)
            if fault is not None and not fault.apply:
                raise _Fail(fault.status or 500, "injected failure")
            with api._lock:
                payload = answer()
            if fault is not None:
                if fault.status is not None:
                    raise _Fail(fault.status, "injected failure after applying the request")
                self._record(method, endpoint, sid, sheets, query, body, None)
                if fault.hang is not None:
                    api._stop.wait(fault.hang)
                self.close_connection = True
                return
            self._record(method, endpoint, sid, sheets, query, body, 200)  # before the client can read on
            self._send(200, payload)
        except _Fail as exc:
            self._record(method, endpoint, sid, sheets, query, body, exc.status)
            self._error(exc.status, str(exc), html=fault is not None and fault.html)

    def _record(self, method: str, endpoint: str, sid: str | None, sheets: tuple[str, ...],
                query: dict[str, list[str]], body: Any, status: int | None) -> None:
        with self.api._lock:
            self.api.requests.append(Request(method, endpoint, sid, sheets, query, body, status))

    def _send(self, status: int, payload: Any, content_type: str = "application/json") -> None:
        data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _error(self, status: int, message: str, *, html: bool) -> None:
        if html:
            self._send(status, f"<html><body>{status} {message}</body></html>".encode(), "text/html")
            return
        self._send(status, {"error": {"code": status, "message": message,
                                      "status": _STATUS_NAMES.get(status, "UNKNOWN")}})
