"""Each secret rule, alone and in the table: what it redacts, what it keeps, what it leaves."""

import json
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness import REDACTED, Redactor
from harness.tracing.encode import PREVIEW_CHARS, cut, preview
from harness.secrets.redact import MARGIN
from harness.secrets.rules import MIN_ENV_SECRET_CHARS, RULES, TOKEN_RULES
from tests.support.secrets import EXAMPLES, ORDINARY, SEPARATORS, WRITTEN, around, token_of


def test_every_rule_has_an_example():
    assert sorted(EXAMPLES) == sorted(rule.name for rule in RULES)


@pytest.mark.parametrize("rule", RULES, ids=lambda rule: rule.name)
def test_the_rule_alone_redacts_its_secret_and_keeps_the_rest(rule):
    text, secret, kept = EXAMPLES[rule.name]
    out = Redactor(environ={}, rules=[rule])(text)
    assert secret not in out and REDACTED in out
    assert kept in out


@pytest.mark.parametrize("rule", RULES, ids=lambda rule: rule.name)
def test_every_match_of_the_rule_holds_one_of_its_needles(rule):
    text, _, _ = EXAMPLES[rule.name]
    match = rule.pattern.search(text)
    assert match is not None and any(needle in match.group().casefold() for needle in rule.needles)


@pytest.mark.parametrize("text", ORDINARY)
def test_ordinary_text_is_left_alone(text):
    assert Redactor(environ={})(text) == text


@pytest.mark.parametrize("text, secret", [
    ('password=hunter22 and more', "hunter22"),
    ("PASSWORD: 'a b c'", "a b c"),
    ("{'api_key': 'abc123zz'}", "abc123zz"),
    ('{"client_secret":"c\\"s1"}', 'c\\"s1'),
    ('"{\\"password\\": \\"inner-secret\\"}"', "inner-secret"),
    ("x-api-key: 4f9a8b7c", "4f9a8b7c"),
    ("X-Auth-Token: tok_abcdef", "tok_abcdef"),
    ("Authorization: Bearer opaque-token-123", "opaque-token-123"),
    ('"Authorization": "Basic YWxhZGRpbjpvcGVuc2VzYW1l"', "YWxhZGRpbjpvcGVuc2VzYW1l"),
    ("aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "wJalrXUtnFEMI/K7MDENG"),
    ('{"SecretAccessKey": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"}', "wJalrXUtnFEMI/K7MDENG"),
    ("https://api.example.com/v1/quote?symbol=AAPL&token=s3cr3tvalue", "s3cr3tvalue"),
    ("redis://:r3d1s-pw@cache:6379/0", "r3d1s-pw"),
])
def test_key_value_forms_in_text_json_and_headers_are_redacted(text, secret):
    out = Redactor(environ={})(text)
    assert secret not in out and REDACTED in out


# --- environment secrets ------------------------------------------------------------------

@pytest.mark.parametrize("name", [
    # a word after "_", as the issue found them stored: MY_SERVICE_PWD
    "MY_SERVICE_PWD", "DB_PASSWD", "SMTP_PASS", "DB_PASSWORD", "KEY_PASSPHRASE", "APP_SECRET", "GH_TOKEN",
    "SERVICE_KEY", "MAPS_APIKEY", "GCP_CREDENTIAL", "GCP_CREDENTIALS", "PROXY_AUTH", "APP_PRIVATE", "Y_PRIVATE_KEY",
    "MY_DB_DSN", "SENTRY_DSN", "X_CONNECTION_STRING", "DB_CONN_STRING", "DB_CONNSTR", "FOO_AUTH",
    # the whole name
    "PASSWORD", "PASSWD", "SECRET", "TOKEN", "KEY", "APIKEY", "AUTH", "DSN", "CREDENTIALS",
    # glued: the words that end no ordinary word
    "PGPASSWORD", "MYSQLPASSWD", "GITHUBTOKEN", "CLIENTSECRET",
    # any case
    "my_service_pwd", "db_password", "My_Db_Dsn", "x_connection_string", "github_token",
])
def test_values_of_secret_named_environment_variables_are_redacted(name):
    redact = Redactor(environ={name: "v4lue-0f-the-secret", "HOME": "/root/home-dir"})
    assert redact("sent v4lue-0f-the-secret from /root/home-dir") == f"sent {REDACTED} from /root/home-dir"


@pytest.mark.parametrize("name", [
    "PWD", "pwd", "OLDPWD",  # the shell's working directories: paths
    "PATH", "HOME", "SHELL", "KEYBOARD_LAYOUT", "TOKENIZERS_PARALLELISM", "MAX_TOKENS", "SSH_AUTH_SOCK",
    "PASSWORD_STORE_DIR", "KEYRING_BACKEND", "AUTHOR_NAME", "MONKEY", "BYPASS", "OAUTHLIB_INSECURE_TRANSPORT",
    "TOKEN_LIMIT", "SECRETS_DIR", "DSN_TIMEOUT", "PRIVATE_MODE",
])
def test_environment_variables_whose_names_say_no_secret_are_left_alone(name):
    value = "/home/user/projects/agent-harness"
    assert Redactor(environ={name: value})(f"working in {value}") == f"working in {value}"


def test_short_values_of_secret_named_variables_are_not_redacted():
    redact = Redactor(environ={"FEATURE_AUTH": "on", "RETRY_KEY": "1234567", "DB_PWD": "7-chars"})
    assert redact("auth on, retry 1234567, pwd 7-chars") == "auth on, retry 1234567, pwd 7-chars"


def test_the_minimum_length_of_an_environment_secret_is_the_documented_one():
    short, enough = "x" * (MIN_ENV_SECRET_CHARS - 1), "y" * MIN_ENV_SECRET_CHARS
    redact = Redactor(environ={"A_PWD": short, "B_PWD": enough})
    assert redact(f"{short} {enough}") == f"{short} {REDACTED}"


def test_the_password_of_a_url_in_any_variable_is_a_secret_and_the_url_stays_readable():
    redact = Redactor(environ={"DATABASE_URL": "postgresql://app:db-passw0rd-1@db.internal:5432/prod",
                               "http_proxy": "http://me:pr%40xy-pass@proxy:3128"})
    assert redact("retrying with db-passw0rd-1") == f"retrying with {REDACTED}"
    assert redact("postgresql://app:db-passw0rd-1@db.internal:5432/prod") == \
        f"postgresql://app:{REDACTED}@db.internal:5432/prod"
    assert redact("proxy password pr@xy-pass, quoted pr%40xy-pass") == f"proxy password {REDACTED}, quoted {REDACTED}"


def test_a_short_url_password_is_redacted_where_the_url_is_written_but_not_as_a_word():
    redact = Redactor(environ={"DATABASE_URL": "postgresql://u:p@h/db"})
    out = redact("connect postgresql://u:p@h/db, p is for page")
    assert out == f"connect postgresql://u:{REDACTED}@h/db, p is for page"


def test_an_environment_secret_is_found_escaped_in_json_and_quoted_in_a_url():
    redact = Redactor(environ={"DB_PASSWORD": 'p@ss"word/1'})
    assert 'p@ss' not in redact('{"dsn": "p@ss\\"word/1"} and ?p=p%40ss%22word%2F1')


def test_redacting_twice_changes_nothing():
    redact = Redactor(environ={"X_TOKEN": "tok-987654321"})
    for text, _, _ in EXAMPLES.values():
        once = redact(text + " tok-987654321")
        assert redact(once) == once


# --- through separators and encodings ------------------------------------------------------

#: How text reaches the redactor: as it is, kept as JSON text (a tool's text output), as a
#: JSON string inside JSON text, in a Python repr (an exception's message quoting a value).
LAYERS = {"as is": str, "JSON": json.dumps, "JSON in JSON": lambda text: json.dumps(json.dumps(text)), "repr": repr}
_ASSIGNMENTS = {"URL-encoded ="}  # a separator that makes a name and a value of ordinary words


@pytest.mark.parametrize("rule", sorted(WRITTEN))
def test_a_secret_is_redacted_after_every_separator_in_every_encoding(rule):
    written, secret = WRITTEN[rule]
    redact = Redactor(environ={})
    leaked = [(separator, layer) for separator in SEPARATORS for layer, encode in LAYERS.items()
              if secret in redact(encode(around(written, separator)))]
    assert leaked == []


@pytest.mark.parametrize("rule", TOKEN_RULES, ids=lambda rule: rule.name)
def test_every_shape_of_a_token_rule_is_redacted_after_every_separator_in_every_encoding(rule):
    """Tokens generated from the rule's own pattern (each alternative, lengths from the least
    up), the separators and encodings of every channel: none survives, none in part."""
    redact = Redactor(environ={})
    leaked = [(token, separator, layer) for token in {token_of(rule, seed) for seed in range(12)}
              for separator in SEPARATORS for layer, encode in LAYERS.items()
              if token in (out := redact(encode(around(token, separator)))) or REDACTED not in out]
    assert leaked == []


@settings(max_examples=300, deadline=None)
@given(rule=st.sampled_from(TOKEN_RULES), seed=st.integers(0, 10**6), separator=st.sampled_from(sorted(SEPARATORS)),
       layer=st.sampled_from(sorted(LAYERS)))
def test_any_token_a_rule_accepts_is_redacted_whole(rule, seed, separator, layer):
    token = token_of(rule, seed)
    out = Redactor(environ={})(LAYERS[layer](around(token, separator)))
    assert token not in out and token[-6:] not in out.replace(REDACTED, "")


@pytest.mark.parametrize("rule", TOKEN_RULES, ids=lambda rule: rule.name)
def test_a_token_split_over_two_messages_is_redacted_in_both_wherever_it_is_split(rule):
    token = token_of(rule)
    redact = Redactor(environ={})
    for cut_at in range(1, len(token)):
        left, right = redact.across([f"my key is {token[:cut_at]}", f"{token[cut_at:]} keep it"])
        assert (left, right) == (f"my key is {REDACTED}", f"{REDACTED} keep it"), cut_at


def test_messages_that_only_meet_are_left_alone():
    redact = Redactor(environ={})
    texts = ["see the docs for sk-", "learn more", "the key", "token count: 42", ""]
    assert redact.across(texts) == texts


@pytest.mark.parametrize("line", ORDINARY)
def test_ordinary_lines_are_left_alone_after_every_separator_in_every_encoding(line):
    redact = Redactor(environ={})
    changed = [(separator, layer) for separator in SEPARATORS.keys() - _ASSIGNMENTS
               for layer, encode in LAYERS.items()
               if redact(text := encode(around(line, separator))) != text]
    assert changed == []


@pytest.mark.parametrize("text", ["\nThe key point", "\ttoken count: 42", "\\nThe key point", "\\ttoken count: 42",
                                  "%0AThe key point", "\\u000aBearer of bad news", "\\task-force", "\\nsk-ills"])
def test_an_escape_before_an_ordinary_word_is_not_a_secret(text):
    assert Redactor(environ={})(text) == text


_pieces_of_text = st.lists(st.sampled_from([*ORDINARY, "x", "é", "\\", "%", "=", ": "]), max_size=3).map(" ".join)


@settings(max_examples=200, deadline=None)
@given(rule=st.sampled_from(sorted(WRITTEN)), separators=st.lists(st.sampled_from(sorted(SEPARATORS)), min_size=1,
                                                                  max_size=3),
       layer=st.sampled_from(sorted(LAYERS)), before=_pieces_of_text, after=_pieces_of_text)
def test_a_secret_amid_any_text_behind_any_separators_is_redacted_once_and_for_all(rule, separators, layer, before,
                                                                                    after):
    """Separators stacked (a quote after a line break ...) amid ordinary text: the secret goes,
    and redacting again changes nothing (``[REDACTED]`` after any separator is no secret)."""
    written, secret = WRITTEN[rule]
    text = written
    for separator in separators:
        text = around(text, separator, before="", after="")
    if separators[-1] == "start of text":
        before = ""
    out = Redactor(environ={})(LAYERS[layer](before + text + after))
    assert secret not in out and REDACTED in out
    assert Redactor(environ={})(out) == out


@pytest.mark.parametrize("separator", sorted(SEPARATORS))
def test_an_environment_secret_is_redacted_after_every_separator_in_every_encoding(separator):
    redact = Redactor(environ={"APP_TOKEN": 'tok-98765"4321'})
    for layer, encode in LAYERS.items():
        out = redact(encode(around('tok-98765"4321', separator)))
        assert "98765" not in out and REDACTED in out, layer


@pytest.mark.parametrize("name", ["password", "Cookie", "Bearer", "123456789", "ey"])
@pytest.mark.parametrize("filler", ["\\", "\\t", "%20", "\\u000a", "0", '\\"'])
def test_long_runs_of_escapes_after_a_name_take_linear_time(name, filler):
    """Escapes are recognised around names and values, but a run of them is read in one way
    only: 50,000 backslashes after ``password`` took minutes when quote and blank both took
    backslashes (milliseconds now; the bound is loose for a busy machine)."""
    text = (name + filler * 50_000 + ":aa !") * 2
    redact = Redactor(environ={})
    started = time.perf_counter()
    redact(text)
    redact.finds_any([text])
    assert time.perf_counter() - started < 5


# --- before the cut ------------------------------------------------------------------------

_CUT_SECRETS = {
    "openai-anthropic-key": "sk-proj-Ab12Cd34Ef56Gh78Ij90Kl12",
    "openai-anthropic-key on a line of JSON text": "\\nsk-proj-Ab12Cd34Ef56Gh78Ij90Kl12",
    "environment": "tok-987654321-zyx",
    "private-key": "-----BEGIN PRIVATE KEY-----\n" + "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC" * 40 + "\n-----END PRIVATE KEY-----",
    "secret-key-value": '"password": "' + "Qw3rTy" * 30 + '"',
}


def _fragments(secret: str) -> set[str]:
    body = secret.split("-----")[2] if secret.startswith("-----") else secret
    body = body.split('": "')[-1].rstrip('"')
    return {body[i:i + 4] for i in range(len(body) - 3)}


@pytest.mark.parametrize("kind", sorted(_CUT_SECRETS))
def test_no_fragment_of_a_secret_survives_the_preview_cut_at_any_offset(kind):
    secret = _CUT_SECRETS[kind]
    redact = Redactor(environ={"APP_TOKEN": _CUT_SECRETS["environment"]})
    fragments = _fragments(secret)
    for start in range(PREVIEW_CHARS - len(secret) - 40, PREVIEW_CHARS + 5):
        text = "." * start + secret + "." * 500
        out = preview(text, redact=redact)
        assert len(out) <= PREVIEW_CHARS and out.endswith(f"…[truncated, {len(text)} chars]")
        assert not any(f in out for f in fragments), (kind, start)


def test_a_cut_text_ends_with_a_marker_giving_the_whole_length():
    out = preview({"items": list(range(5000))})
    assert out.endswith("…[truncated, 23901 chars]") and len(out) <= PREVIEW_CHARS


def test_a_cut_never_ends_inside_a_redaction():
    redact = Redactor(environ={})
    for start in range(90, 120):
        out = cut("." * start + "token=abcdefghijkl" + "." * 200, 120, redact)
        assert "[REDACTED]" in out or not any(out[:-len("…[truncated, 000 chars]")].endswith(REDACTED[:k])
                                              for k in range(1, len(REDACTED)))


def test_a_bounded_encoder_hands_over_the_margin_and_still_cuts_the_same():
    """The contract a truncating encoder keeps: the first limit + margin characters and the
    whole length give the same cell as the whole text."""
    redact = Redactor(environ={})
    text = "." * 9_990 + "sk-proj-Ab12Cd34Ef56Gh78Ij90Kl12" + "." * 50_000
    assert redact.margin >= MARGIN
    assert cut(text[:PREVIEW_CHARS + redact.margin], PREVIEW_CHARS, redact, len(text)) == preview(text, redact=redact)


# --- the needles never let a secret pass ----------------------------------------------------

# Pieces of secrets and of their needles, in both cases and with the Unicode letters that
# case-insensitive matching equates with ASCII ones (Kelvin sign, long s).
_pieces = st.sampled_from(["gsk_", "GSK_", "sk-", "SK", "ſk-", "\u212aey=", "Bearer ", "bearer\t", "?token=", "&api_key=",
                           "abcdefgh", "0123456789", "ABCDEFGHIJKLMNOP", "-", "_", " ", "\x00", "é", "proj-", "hunter22",
                           "HUNTER22", "&", "password", "PaSſword", ": ", "=", '"', "\\", "'", "AKIA", "ghp_", "://",
                           "u:p@h", "eyJhbGciOi", ".eyJzdWIi", "-----BEGIN PRIVATE KEY-----", "Basic ", "YWxhZGRpbjpv",
                           "\\n", "\\t", "\\u000a", "%0A", "%3D", "%20"])
_texts = st.lists(_pieces, max_size=14).map("".join)


def _every_rule(redact: Redactor, text: str) -> str:
    for i in range(len(redact._rules)):
        text = redact._substitute(i, text)
    return text


@given(_texts)
def test_the_needles_never_let_a_secret_pass(text):
    """A rule is skipped for text holding none of its needles; that must never change what
    is scrubbed."""
    for redact in (Redactor(environ={}), Redactor(environ={"X_SECRET": "hunter22"})):
        assert redact(text) == _every_rule(redact, text)


@given(st.lists(_texts, max_size=6))
def test_one_scan_over_many_cells_finds_whatever_a_scan_per_cell_finds(cells):
    redact = Redactor(environ={"X_SECRET": "hunter22"})
    if any(redact(cell) != cell for cell in cells):
        assert redact.finds_any(cells)


# A key/value name is tried only a rule's reach before its needle: the names of the table in
# every form, with text around them, and letters whose case folding is longer than they are.
_named = st.sampled_from(["subscription_key", "SUBSCRIPTION-KEY", "webhook.key", "x-api-key", "apikey", "api_key",
                          "set-cookie", "Set-Cookie", "COOKIE", "authorization", "auth", "passwd", "password", "pwd",
                          "passphrase", "client_secret", "credentials", "creds", "token", "tokens", "input_tokens",
                          "=>", ":=", ": ", "=", ":", '"', "'", '\\"', "\\\\", " ", "\t", "\n", "hunter22", "Bearer ",
                          "ß", "İ", "ﬃ", "x", "_", "-", ".", "\x00", "\\t", "%3D", "%20", "%22", "\\n"])
_key_value_texts = st.lists(_named, max_size=16).map("".join)


@given(st.lists(_key_value_texts, max_size=6))
def test_the_scan_near_the_needles_finds_what_a_search_of_the_whole_text_finds(cells):
    redact = Redactor(environ={"X_SECRET": "hunter22"})
    joined = "\x00".join(cells)
    assert redact.finds_any(cells) == any(rule.pattern.search(joined) for rule, _ in redact._rules)


@pytest.mark.parametrize("rule", [r for r in RULES if r.reach is not None], ids=lambda rule: rule.name)
@given(text=_key_value_texts)
def test_a_rule_with_a_reach_starts_every_match_within_it_of_a_needle(rule, text):
    for match in rule.pattern.finditer(text):
        head = match.group().casefold()
        assert any(head.find(needle, 0, rule.reach + len(needle)) != -1 for needle in rule.needles)


def test_the_path_of_a_google_key_file_is_not_a_secret():
    from harness.secrets.redact import secret_values

    assert secret_values({"GOOGLE_APPLICATION_CREDENTIALS": "/home/me/keys/service-account.json",
                          "MY_CREDENTIALS": "a-real-secret-value"}) == ["a-real-secret-value"]


_PIECES = ["key", "api_key", "token", "total_tokens", "secret", "password", "auth", "subscription_key", ":", "=",
           "=>", " ", "\t", '"', "'", "\\\"", "%3A", "abc123", "true", "x" * 9, "\n", "sk", "-", "_"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=40))
def test_looking_near_keywords_finds_every_match_that_starts_near_one_and_only_real_matches(pieces):
    # The keyword rule is run where it matches near a keyword: checked against trying every
    # place in reach of every keyword one by one.
    from harness.secrets.redact import Redactor, _matches_near

    redactor = Redactor(environ={})
    (index,) = [i for i, (rule, _) in enumerate(redactor._rules) if rule.name == "secret-key-value"]
    rule = redactor._rules[index][0]
    text = "".join(pieces)
    _, starts = redactor._needles(text.casefold())
    needles = starts.get(index, [])
    one_by_one = any(rule.pattern.match(text, p) is not None
                     for start in needles for p in range(max(0, start - rule.reach), start + 1))
    found = _matches_near(rule.pattern, text, needles, rule.reach)
    assert found >= one_by_one  # nothing in reach is missed
    assert not found or rule.pattern.search(text) is not None  # and what is found is a match
