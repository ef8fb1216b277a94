"""Secrets never reach a row or a span."""

from hypothesis import given
from hypothesis import strategies as st
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from harness import REDACTED, Harness, Redactor

from . import graphs

SECRETS = {
    "groq": "gsk_abcdefghijklmnopqrstuvwxyz0123456789",
    "openai": "sk-proj-abcdefghijklmnopqrstuvwx",
    "bearer": "Bearer eyJhbGciOiJIUzI1NiJ9.payload.sig",
    "url": "https://api.example.com/v1/quote?symbol=AAPL&token=s3cr3tvalue",
}


def test_known_key_shapes_are_redacted():
    redact = Redactor(environ={})
    assert redact(f"key={SECRETS['groq']}") == f"key={REDACTED}"
    assert SECRETS["openai"] not in redact(SECRETS["openai"])
    assert redact(SECRETS["bearer"]) == f"Bearer {REDACTED}"
    assert redact(SECRETS["url"]) == f"https://api.example.com/v1/quote?symbol=AAPL&token={REDACTED}"
    assert redact("plain text about sk-ills") == "plain text about sk-ills"


def test_values_of_secret_environment_variables_are_redacted():
    redact = Redactor(environ={"FINNHUB_API_KEY": "abc123xyz", "HOME": "/root", "X_SECRET": "hunter22"})
    assert redact("token abc123xyz and hunter22 at /root") == f"token {REDACTED} and {REDACTED} at /root"


# Text made of the pieces secrets are recognised by (in any case, with the Unicode letters
# that case-insensitive matching equates with ASCII ones: Kelvin sign, long s).
_pieces = st.sampled_from(["gsk_", "GSK_", "sk-", "SK-", "ſk-", "\u212aey=", "Bearer ", "bearer\t", "?token=", "&api_key=",
                           "abcdefgh", "0123456789", "ABCDEFGHIJKLMNOP", "-", "_", " ", "\x00", "é", "proj-", "hunter22",
                           "HUNTER22", "&"])
_texts = st.lists(_pieces, max_size=12).map("".join)


@given(_texts)
def test_the_quick_check_never_lets_a_secret_pass(text):
    """The redactor skips its pattern for text holding none of the pieces every match
    contains; that must never change what is scrubbed."""
    for redact in (Redactor(environ={}), Redactor(environ={"X_SECRET": "hunter22"})):
        assert redact(text) == redact._pattern.sub(redact._replace, text)


@given(st.lists(_texts, max_size=6))
def test_one_scan_over_many_cells_finds_whatever_a_scan_per_cell_finds(cells):
    redact = Redactor(environ={"X_SECRET": "hunter22"})
    if any(redact._pattern.search(cell) for cell in cells):
        assert redact.finds_any(cells)


def test_secrets_in_prompts_tool_payloads_and_errors_never_reach_rows_or_spans(tmp_path, monkeypatch):
    monkeypatch.setenv("MY_SERVICE_TOKEN", "tok-987654321")
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    harness = Harness(store=tmp_path / "runs.db", tracer_provider=provider)
    model = graphs.fake_model(f"sure, I used {SECRETS['groq']}")

    def node(state, config):
        model.invoke(f"call {SECRETS['url']} with {SECRETS['bearer']}", config)
        graphs.lookup.invoke({"query": "tok-987654321"}, config)
        try:
            graphs.broken.invoke({"query": SECRETS["openai"]}, config)
        except ValueError:
            pass
        return {"log": ["done"]}

    with harness.run(subject="secrets") as run:
        graphs.single_node(node).invoke({"log": []}, run.config)
    dump = "".join(frame.to_json(date_format="iso") for frame in harness.sheets([run.run_id]).values())
    spans = "".join(str(dict(s.attributes)) + str(s.events) + str(s.status.description)
                    for s in exporter.get_finished_spans())
    for text in (dump, spans):
        assert REDACTED in text
        for secret in ("abcdefghijklmnopqrstuvwxyz0123456789", "abcdefghijklmnopqrstuvwx", "eyJhbGciOiJIUzI1NiJ9",
                       "s3cr3tvalue", "tok-987654321"):
            assert secret not in text


def test_rows_appended_to_a_finished_run_are_redacted_inside_json_cells_too(tmp_path):
    harness = Harness(store=tmp_path / "runs.db")
    with harness.run(subject="later") as run:
        graphs.single_node(lambda s: {"log": ["x"]}).invoke({"log": []}, run.config)
    harness.log(run.run_id, "cross_model_eval", [{"model_results": {"m": {"note": SECRETS["groq"]}},
                                                  "llm_judge_analysis": SECRETS["bearer"]}])
    dump = harness.sheets([run.run_id])["cross_model_eval"].to_json(date_format="iso")
    assert REDACTED in dump and "abcdefghijklmnopqrstuvwxyz0123456789" not in dump
    assert "eyJhbGciOiJIUzI1NiJ9" not in dump
