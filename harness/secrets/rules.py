r"""The secrets the harness recognises, as data: one rule per kind of credential.

Modelled on the rule sets of gitleaks (``config/gitleaks.toml``) and detect-secrets (its
plugins): provider key formats, tokens of the common protocols (bearer, HTTP Basic, JWT,
PEM private keys, credentials inside URLs) and key/value forms in text, JSON and headers.
A rule's pattern finds a secret; its groups named ``secret...`` (else the whole match)
are what is replaced, so ``Bearer``, ``"password": "`` or ``postgresql://user:`` stay
readable. Every match contains one of the rule's ``needles`` (case-folded), which lets
the redactor skip a rule for text that holds none of them.

A secret that starts a word starts at one left boundary, shared by every such rule
(:func:`_start`): not inside a word, unless what is before it ends an escape. Text reaches
the rules as JSON (a tool's output is kept as JSON text, where a line break before a key is
``\n``), as Python reprs (``\x09``, ``\012``) and URL-encoded (``%0A``, ``%3D``); so a key at
the start of a line, after a tab, inside quotes or after any escape is found in every form.
Blanks, quotes and ``=``/``:`` between a name and its value are recognised escaped and
URL-encoded as well.

Two properties the redactor relies on, and every rule keeps:

- A rule recognises a secret from its first :data:`MAX_FIXED_CHARS` characters, and a
  secret of open-ended length (a PEM body, a quoted value, a bearer token) is matched to
  the end of the text when its end is missing. So a text cut anywhere after a secret's
  first :data:`MAX_FIXED_CHARS` characters still has all of its secret's kept part found.
- ``[REDACTED]`` is matched by no rule as a new secret (a rule that sees it replaces it
  with itself), so redacting twice changes nothing.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable
from dataclasses import dataclass

#: The longest secret a fixed-length rule matches (a Slack configuration token: 170).
MAX_FIXED_CHARS = 256

#: Environment variables whose values are secrets, after the keyword lists of detect-secrets
#: and gitleaks: names ending in one of these words, in any case, after ``_`` or as the whole
#: name (``MY_SERVICE_PWD``, ``PASSWORD``, ``my_db_dsn``, ``X_CONNECTION_STRING``); the words
#: that end no ordinary word also glued to what is before them (``PGPASSWORD``, ``GITHUBTOKEN``).
SECRET_ENV_NAME = re.compile(
    r"(?:PASSWORD|PASSWD|PASSPHRASE|SECRET|TOKEN)$"
    r"|(?:^|_)(?:PWD|PASS|KEY|APIKEY|CREDENTIALS?|AUTH|PRIVATE|DSN|CONN(?:ECTION)?_?STR(?:ING)?)$",
    re.IGNORECASE)
#: Names of that form that are no secret (in any case): paths, which would be redacted wherever a
#: run mentions them.
NOT_SECRET_ENV_NAMES = frozenset({
    "PWD",  # the shell's working directory
    "GOOGLE_APPLICATION_CREDENTIALS",  # the path of a key file (its contents are the secret, never read here)
})
#: A URL with a password (``postgresql://user:password@host/db``) in a variable's value: whatever
#: the variable's name (``DATABASE_URL``, ``REDIS_URL``, ``http_proxy``), the password is a secret.
URL_PASSWORD = re.compile(r"[a-z][a-z0-9+.-]*://[^\s/?#@:]*:(?P<password>[^\s/?#]+)@", re.IGNORECASE)
#: Shorter values of those variables are not redacted (they would match ordinary words).
MIN_ENV_SECRET_CHARS = 8


@dataclass(frozen=True, slots=True)
class Rule:
    name: str
    pattern: re.Pattern[str]
    needles: tuple[str, ...]  # case-folded; every match contains one
    #: when set, a match is a secret only if this holds for its secret part
    check: Callable[[str], bool] | None = None
    #: when set, the most characters a match starts before the needle it contains, so only
    #: those few positions before each needle are tried (None: the pattern searches the text)
    reach: int | None = None


def _rule(name: str, pattern: str, needles: tuple[str, ...] | str, *, flags: int = 0,
          check: Callable[[str], bool] | None = None, reach: int | None = None) -> Rule:
    return Rule(name, re.compile(pattern, flags), (needles,) if isinstance(needles, str) else needles, check, reach)


def _basic_credentials(value: str) -> bool:
    """HTTP Basic credentials are base64 of ``user:password``."""
    try:
        return b":" in base64.b64decode(value + "=" * (-len(value) % 4), validate=True)
    except (binascii.Error, ValueError):
        return False


#: Escapes that end in a letter or digit: JSON and Python (``\n``, ``\t``, ``\r``, ``\u000a``,
#: ``\x0a``, ``\012``) and URL encoding (``%0A``, ``%3D``). Text stored as JSON holds a line
#: break before a key as ``\n``: the ``n`` is a word character, so ``\b`` no longer sees the key.
_ESCAPES = (r"\\[abefnrtv0]", r"\\x[0-9A-Fa-f]{2}", r"\\u[0-9A-Fa-f]{4}", r"\\U[0-9A-Fa-f]{8}", r"\\[0-7]{3}",
            r"%[0-9A-Fa-f]{2}")


def _start(word: str = r"\w") -> str:
    """The left boundary every rule shares: where a secret may start. Not right after a
    ``word`` character (as ``\\b`` before a word), unless that character ends an escape, so a
    key at the start of a line or after a tab is seen in JSON, Python reprs and URLs too."""
    return "(?:" + "|".join([f"(?<!{word})", *(f"(?<={escape})" for escape in _ESCAPES)]) + ")"


def _head(*heads: str, word: str = r"\w", ahead: str = "") -> str:
    """A rule's first characters, one of ``heads`` (each of one fixed width), at the left
    boundary (:func:`_start` of ``word``). The boundary is checked after the head, looking
    back over it, so the pattern begins with the head's text, which the regex engine searches
    for quickly instead of trying the boundary at every position. ``ahead``, what must follow
    the head, is tried before the boundary: for a head as common as a digit."""
    check = f"(?={ahead})" if ahead else ""
    return "(?:" + "|".join(f"{head}{check}(?<={_start(word)}{head})" for head in heads) + ")"


#: A blank between a name and its value, also JSON-escaped (``\t``, at any depth) and
#: URL-encoded (``%20``, ``%09``); and any white space, line breaks too, between ``Bearer`` or
#: ``Basic`` and the token, in the same forms.
_BLANK = r"(?:[ \t]|\\+t|%(?:20|09))"
_SPACE = r"(?:\s|\\+[nrt]|%(?:20|09|0[AaDd]))"
#: A quote around a name, also JSON-escaped (at any depth) and URL-encoded (``%22``, ``%27``), or
#: none. Backslashes are taken only with their quote: left to :data:`_BLANK` as well, a run of
#: them could be split between the two in as many ways as it is long.
_QUOTE = r"""(?:\\*["']|%2[27])?"""

#: The start of a secret that follows a name and a separator, quoted (at any depth of
#: JSON escaping) or bare; the quote is kept, the value is redacted up to its closing
#: quote or, when that is missing, to the end of the text.
_SCHEME = rf"(?>(?:(?:basic|bearer|token|digest|negotiate|ntlm|apikey){_BLANK}+)?)"  # kept, never taken for the value
_VALUE = (
    rf"""(?:"{_SCHEME}(?P<secret>(?:[^"\\\n]|\\.)+)"""  # a JSON string: escapes are part of it
    rf"""|\\+"{_SCHEME}(?P<secret2>(?:[^"\\\n]|\\+[^"\\\n])+)"""  # JSON inside JSON: up to the next quote
    rf"""|'{_SCHEME}(?P<secret3>[^'\n]+)"""
    rf"""|{_SCHEME}(?!(?:true|false|null|none)\b)(?P<secret4>[^\s"'`,;&<>(){{}}\[\]\\]+))"""
)
#: Names whose value is a secret: the name must end with one of these words.
_SECRET_NAMES = (
    r"passw(?:or)?d|passphrase|pwd|secret|token|api[_.-]?key|apikey"
    r"|(?:access|secret|private|account|client|auth|signing|encryption|master|app|service|subscription|webhook)"
    r"[_.-]?key|credentials?|creds|auth|authorization"
)

RULES: tuple[Rule, ...] = (
    # --- blocks and protocol tokens ---------------------------------------------------
    _rule("private-key",
          r"-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----(?P<secret>[\s\S]*?)"
          r"(?:-----END[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----|\Z)", "private key"),
    _rule("jwt", _head("ey") + r"[A-Za-z0-9_-]{10,}\.ey[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]*", ".ey"),
    # The scheme is kept and may be glued to anything before it: the match starts at "://".
    _rule("url-credentials", r"://(?<=[a-z0-9+.-]://)[^\s/?#@:\"'<>\\]*:(?P<secret>[^\s/?#\"'<>\\]+)@", "://",
          flags=re.IGNORECASE),
    _rule("url-parameter",
          r"[?&;][\w.-]{0,40}?(?:token|key|secret|passw(?:or)?d|pwd|signature|sig|credential|auth)"
          r"=(?P<secret>[^&\s\"'#<>\\]+)",
          ("token=", "key=", "secret=", "password=", "passwd=", "pwd=", "signature=", "sig=", "credential=",
           "auth="), flags=re.IGNORECASE),
    _rule("bearer", _head("bearer") + rf"{_SPACE}+(?P<secret>[A-Za-z0-9._~+/=-]{{8,}})", "bearer",
          flags=re.IGNORECASE),
    _rule("basic-auth", _head("basic") + rf"{_SPACE}+(?P<secret>[A-Za-z0-9+/]{{6,}}={{0,2}})", "basic",
          flags=re.IGNORECASE, check=_basic_credentials),
    # --- providers (gitleaks ids in brackets where they differ) ------------------------
    _rule("aws-access-key-id", _head("A3T[A-Z0-9]", "AKIA", "ASIA", "ABIA", "ACCA") + r"[A-Z0-9]{16}\b",
          ("akia", "asia", "abia", "acca", "a3t")),
    _rule("github-token", _head("gh[pousr]_") + "[A-Za-z0-9]{36,255}|" + _head("github_pat_") + "[A-Za-z0-9_]{22,255}",
          ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_")),
    _rule("gitlab-token", _head("gl") + "(?:pat|dt|rt|ptt)-[A-Za-z0-9_-]{20,}", ("glpat-", "gldt-", "glrt-", "glptt-")),
    _rule("slack-token", _head("xox") + "[abposre]-[A-Za-z0-9-]{10,}|" + _head("xapp-") + r"\d-[A-Za-z0-9-]{10,}",
          ("xox", "xapp-")),
    _rule("slack-webhook", r"hooks\.slack\.com/(?:services|workflows|triggers)/(?P<secret>[A-Za-z0-9+/]{20,})",
          "hooks.slack.com"),
    _rule("stripe-key", _head("[sr]k_") + "(?:live|test|prod)_[A-Za-z0-9]{10,}|" + _head("whsec_") + "[A-Za-z0-9]{24,}",
          ("k_live_", "k_test_", "k_prod_", "whsec_")),
    _rule("google-api-key", _head("AIza") + "[0-9A-Za-z_-]{35}", "aiza"),
    _rule("google-oauth", _head("GOCSPX-") + "[A-Za-z0-9_-]{28}|" + _head(r"ya29\.") + "[0-9A-Za-z_-]{20,}",
          ("gocspx-", "ya29.")),
    _rule("openai-anthropic-key", _head("sk-") + "(?:proj-|ant-|svcacct-|admin-)?[A-Za-z0-9_-]{16,}", "sk-"),
    _rule("groq-key", _head("gsk_") + "[A-Za-z0-9]{20,}", "gsk_"),
    _rule("huggingface-token", _head("hf_") + "[A-Za-z]{34,}", "hf_"),
    _rule("npm-token", _head("npm_") + "[A-Za-z0-9]{36}", "npm_"),
    _rule("pypi-token", _head("pypi-AgEIcHlwaS5vcmc") + "[A-Za-z0-9_-]{50,}", "pypi-age"),
    _rule("sendgrid-key", _head(r"SG\.") + r"[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}", "sg."),
    _rule("twilio-key", _head("SK") + r"[0-9a-fA-F]{32}\b", "sk"),
    _rule("mailgun-key", _head("key-") + r"[0-9a-z]{32}\b", "key-"),
    _rule("azure-ad-client-secret", _head(r"[A-Za-z0-9_~.]{3}\dQ~", word="[A-Za-z0-9_~.]") + "[A-Za-z0-9_~.-]{31,34}",
          "q~"),
    _rule("shopify-token", _head("shp") + "(?:at|ca|pa|ss)_[a-fA-F0-9]{32}", "shp"),
    _rule("databricks-token", _head("dapi") + r"[a-f0-9]{32}(?:-\d)?", "dapi"),
    _rule("digitalocean-token", _head("do[opr]_v1_") + "[a-f0-9]{64}", "_v1_"),
    _rule("linear-key", _head("lin_api_") + "[A-Za-z0-9]{40}", "lin_api_"),
    _rule("postman-key", _head("PMAK-") + "[a-fA-F0-9]{24}-[a-fA-F0-9]{34}", "pmak-"),
    _rule("square-token", _head("sq0") + "(?:atp|csp)-[A-Za-z0-9_-]{22,}", "sq0"),
    _rule("heroku-key", _head("HRKU-AA") + "[0-9A-Za-z_-]{58}", "hrku-"),
    _rule("telegram-bot-token", _head(r"\d", ahead=r"\d{7,9}:AA") + r"\d{7,9}:AA[A-Za-z0-9_-]{33}", ":aa"),
    _rule("doppler-token", _head(r"dp\.pt\.") + "[A-Za-z0-9]{43}", "dp.pt."),
    _rule("age-secret-key", _head("AGE-SECRET-KEY-1") + "[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}", "age-secret-key-1"),
    # --- names that say their value is secret (last: provider rules have run) ----------
    _rule("cookie-header",
          _head("set-cookie", "cookie") + rf"{_QUOTE}{_BLANK}*(?::|%3[Aa]){_BLANK}*{_QUOTE}(?P<secret>[^\r\n\"'\\]+)",
          "cookie", flags=re.IGNORECASE, reach=len("set-")),
    _rule("secret-key-value",
          rf"(?:{_SECRET_NAMES}){_QUOTE}{_BLANK}*(?:=>|:=|[:=]|%3[AaDd]){_BLANK}*{_VALUE}",
          ("passw", "passphrase", "pwd", "secret", "token", "key", "credential", "creds", "auth"),
          flags=re.IGNORECASE, reach=len("subscription_")),  # the longest name before its needle
)
