"""Secrets never reach a row, a span, an export or a log line: every channel a run has
(input, prompt, response, tool arguments and output, error, traceback, metadata, subject),
searched in every place it lands (store file, WAL, xlsx XML, spans, OTLP body)."""

import logging
import re
import sqlite3
import zipfile
from http.server import BaseHTTPRequestHandler

import pytest
from langchain_core.tools import tool
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from harness import REDACTED, Harness
from tests.support.loopback import serving

from . import graphs

JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dBjftJeZ4CVPmB92K27uhbUJU1p1r_wW1gFWFOEjXk"
SECRETS = {  # channel -> a secret of a different kind in each
    "input": "AKIAQYLPMN5HHHFPZAM2",
    "prompt": "ghp_R2d2C3poBB8aLuke5kyW4lkerH4nSoL0ea1a",
    "response": "xoxb-2048151924-2048151925-AbCdEfGhIjKlMnOp",
    "tool args": "sk_live_51HxYz2KqLmNoPqRsTuVwXyZ01",
    "tool output": JWT,
    "error": "Sup3rS3cretPw",
    "metadata": "AIzaSyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvW",
    "subject": "envsecret-0123456789",
    "traceback": "hf_QrStUvWxYzAbCdEfGhIjKlMnOpQrStUvWx",
}


@tool
def quote(symbol: str, api_key: str) -> dict:
    """Fetch a quote."""
    return {"symbol": symbol, "session": SECRETS["tool output"]}


@tool
def database(query: str) -> str:
    """A tool whose error quotes its connection URL."""
    raise ConnectionError(f"cannot reach postgresql://app:{SECRETS['error']}@db.internal/prod for {query}")


@tool
def hub(model: str) -> str:
    """A tool that fails on a line holding a hard-coded token, which its traceback quotes."""
    token = "hf_QrStUvWxYzAbCdEfGhIjKlMnOpQrStUvWx"; raise PermissionError(f"{model} is gated")  # noqa: E702, F841


def _run_everything(harness: Harness) -> str:
    model = graphs.fake_model(f"done, used {SECRETS['response']}")

    def node(state, config):
        model.invoke(f"answer {state['question']} with {SECRETS['prompt']}", config)
        quote.invoke({"symbol": "ACME", "api_key": SECRETS["tool args"]}, config)
        try:
            database.invoke({"query": "select 1"}, config)
        except ConnectionError:
            pass
        try:
            hub.invoke({"model": "llama"}, config)
        except PermissionError:
            pass
        return {"log": ["done"]}

    config = {"configurable": {"thread_id": f"thread-{SECRETS['metadata']}"}}
    with harness.run(subject=f"Acme {SECRETS['subject']}", workflow="secrets", config=config) as run:
        graphs.single_node(node).invoke({"log": [], "question": f"key {SECRETS['input']}"}, run.config)
    harness.flush()
    return run.run_id


class _OTLPReceiver(BaseHTTPRequestHandler):
    bodies: list[bytes] = []

    def do_POST(self):  # noqa: N802
        type(self).bodies.append(self.rfile.read(int(self.headers["Content-Length"])))
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.end_headers()

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def channels(tmp_path_factory):
    """Where a run's text lands, as bytes: two runs (spans to the application's provider;
    spans over OTLP from the writer process), everything the harness wrote for them."""
    from harness.tracing.telemetry import flush_own_providers

    tmp = tmp_path_factory.mktemp("secrets")
    with pytest.MonkeyPatch.context() as env:
        env.setenv("ACME_API_KEY", SECRETS["subject"])
        exporter = InMemorySpanExporter()
        provider = TracerProvider()
        provider.add_span_processor(SimpleSpanProcessor(exporter))
        with_provider = Harness(store=tmp / "provider.db", tracer_provider=provider)
        _run_everything(with_provider)
        with serving(_OTLPReceiver) as url:
            env.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", url)
            over_otlp = Harness(store=tmp / "otlp.db")
            _run_everything(over_otlp)
            over_otlp.flush()
            flush_own_providers()
        spans = "".join(str(dict(s.attributes)) + str([(e.name, dict(e.attributes)) for e in s.events])
                        + str(s.status.description) for s in exporter.get_finished_spans())
        with_provider.export_excel(tmp / "runs.xlsx")
        with zipfile.ZipFile(tmp / "runs.xlsx") as book:
            xml = b"".join(book.read(name) for name in book.namelist() if name.endswith(".xml"))
        stores = [tmp / "provider.db", tmp / "otlp.db"]
        wal = b"".join(p.with_name(p.name + "-wal").read_bytes() for p in stores)
        for path in stores:  # the rows move from the WAL into the file
            with sqlite3.connect(path) as connection:
                connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return {
            "store file": b"".join(p.read_bytes() for p in stores),
            "WAL": wal,
            "xlsx XML": xml,
            "spans": spans.encode(),
            "OTLP body": b"".join(_OTLPReceiver.bodies),
        }


@pytest.mark.parametrize("place", ["store file", "WAL", "xlsx XML", "spans", "OTLP body"])
@pytest.mark.parametrize("channel", sorted(SECRETS))
def test_no_secret_of_any_channel_reaches_any_place(channels, place, channel):
    data = channels[place]
    assert REDACTED.encode() in data  # the run's text is there, scrubbed
    assert SECRETS[channel].encode() not in data


def test_the_writer_process_redacts_with_the_hosts_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("MY_SERVICE_TOKEN", "tok-987654321")
    h = Harness(store=tmp_path / "runs.db", writer="process")
    with h.run(subject="env") as run:
        graphs.single_node(lambda s: {"log": ["tok-987654321"]}).invoke({"log": []}, run.config)
    dump = "".join(frame.to_json(date_format="iso") for frame in h.sheets([run.run_id]).values())
    assert REDACTED in dump and "tok-987654321" not in dump


def test_rows_appended_to_a_finished_run_are_redacted_inside_json_cells_too(tmp_path):
    harness = Harness(store=tmp_path / "runs.db")
    with harness.run(subject="later") as run:
        graphs.single_node(lambda s: {"log": ["x"]}).invoke({"log": []}, run.config)
    harness.log(run.run_id, "cross_model_eval", [{"model_results": {"m": {"note": SECRETS["prompt"]}},
                                                  "llm_judge_analysis": f"Bearer {JWT}"}])
    dump = harness.sheets([run.run_id])["cross_model_eval"].to_json(date_format="iso")
    assert REDACTED in dump and SECRETS["prompt"] not in dump and "eyJzdWIi" not in dump


# --- Harness(redact=...) ---------------------------------------------------------------------

@pytest.mark.parametrize("writer", ["process", "thread", "inline"])
def test_an_applications_pattern_is_redacted_by_every_writer(tmp_path, writer):
    h = Harness(store=tmp_path / "runs.db", writer=writer, redact=[r"ACCT-\d{6}", re.compile(r"pin (?P<secret>\d{4})")])
    with h.run(subject="custom") as run:
        graphs.single_node(lambda s: {"log": ["ACCT-123456 with pin 9876"]}).invoke({"log": []}, run.config)
    previews = " ".join(h.sheets([run.run_id])["langgraph_events"]["output_preview"].dropna())
    assert f"{REDACTED} with pin {REDACTED}" in previews and "123456" not in previews and "9876" not in previews


def test_an_applications_function_is_applied_after_the_rules(tmp_path):
    seen = []

    def scrub_names(text: str) -> str:
        seen.append(text)
        return text.replace("Alice Smith", "[NAME]")

    h = Harness(store=tmp_path / "runs.db", redact=scrub_names)  # runs with a function stay in the host
    with h.run(subject="custom") as run:
        graphs.single_node(lambda s: {"log": [f"Alice Smith {SECRETS['prompt']}"]}).invoke({"log": []}, run.config)
    previews = " ".join(h.sheets([run.run_id])["langgraph_events"]["output_preview"].dropna())
    assert f"[NAME] {REDACTED}" in previews
    assert not any(SECRETS["prompt"] in text for text in seen)  # the function sees text already scrubbed


def test_a_failing_function_redacts_the_whole_text_and_never_breaks_the_run(tmp_path):
    def broken(text: str) -> str:
        raise RuntimeError("bug")

    h = Harness(store=tmp_path / "runs.db", writer="inline", redact=broken)
    with h.run(subject="custom") as run:
        out = graphs.single_node(lambda s: {"log": ["visible?"]}).invoke({"log": []}, run.config)
    assert out == {"log": ["visible?"]}
    events = h.sheets([run.run_id])["langgraph_events"]
    assert set(events["output_preview"].dropna()) == {REDACTED}


@pytest.mark.parametrize("bad, error", [("(unclosed", ValueError), ("x*", ValueError), (42, TypeError)])
def test_bad_redact_rules_are_refused_when_the_harness_is_made(tmp_path, bad, error):
    with pytest.raises(error):
        Harness(store=tmp_path / "runs.db", redact=bad)


def test_secrets_quoted_in_a_harness_warning_never_reach_the_log(tmp_path, caplog, monkeypatch):
    monkeypatch.setenv("DB_PASSWORD", "hunter22-pw")
    with caplog.at_level(logging.WARNING, logger="harness"):
        try:
            raise ValueError(f"payload had {SECRETS['prompt']} and hunter22-pw")
        except ValueError:
            logging.getLogger("harness").warning("harness: writing failed for %s", SECRETS["tool args"], exc_info=True)
    handler = logging.StreamHandler()
    text = "\n".join(handler.format(record) for record in caplog.records)
    assert REDACTED in text
    for secret in (SECRETS["prompt"], SECRETS["tool args"], "hunter22-pw"):
        assert secret not in text


# --- a key split over two messages ------------------------------------------------------------

def test_a_key_split_over_two_messages_is_stored_as_no_fragment(tmp_path):
    """Half a key at the end of one message, the rest at the start of the next: the prompt
    holds the two messages apart, so neither half is a key to the rules on its own."""
    from langchain_core.messages import HumanMessage

    key = "sk-proj-" + "Xq7Lm2Pz9Rt4Vw8Ks3Nb6Hd1Fg5Jc0Ye2Ua7Oi4Me9Tr3Wq"
    model = graphs.fake_model("noted")

    def node(state, config):
        model.invoke([HumanMessage(f"my key is {key[:14]}"), HumanMessage(f"{key[14:]} please keep it")], config)
        return {"log": ["asked"]}

    harness = Harness(store=tmp_path / "runs.db", writer="inline")
    with harness.run(subject="split") as run:
        graphs.single_node(node).invoke({"log": []}, run.config)
    [call] = harness.store.rows("llm_calls", [run.run_id])
    [prompt] = harness.store.rows("prompts", [run.run_id])
    harness.close()
    for text in (call["prompt"], prompt["user_prompt"]):
        assert key[3:14] not in text and key[14:30] not in text, text
        assert text.count(REDACTED) == 2 and "please keep it" in text


def _prose(chars: int) -> str:
    """Text full of the keyword rule's needles (key, token, secret...) and no secret."""
    words = ("the", "key", "point", "is", "a", "token", "of", "trust", "secret", "handshake", "and", "auth", "flow")
    out, i = [], 0
    while sum(map(len, out)) + len(out) < chars:
        out.append(words[i % len(words)])
        i += 7
    return " ".join(out)[:chars]


@pytest.mark.parametrize("where", [0, 65_530, 150_000, -1])  # start, across a chunk's edge, middle, end
def test_a_keyword_secret_in_long_prose_full_of_keywords_is_redacted_wherever_it_is(where):
    # Rules with a keyword are run where their keyword is; prose full of keywords and no
    # secret costs one scan, and a secret among them is still found.
    from harness.secrets.redact import Redactor

    redact = Redactor(environ={})
    prose = _prose(200_000)
    assert redact(prose) == prose  # nothing in it is a secret
    secret = "password: hunter2-correct-horse"
    at = len(prose) if where == -1 else where
    text = prose[:at] + " " + secret + " " + prose[at:]
    scrubbed = redact(text)
    assert "hunter2" not in scrubbed and REDACTED in scrubbed
    assert redact.finds_any([text]) and not redact.finds_any([prose])
