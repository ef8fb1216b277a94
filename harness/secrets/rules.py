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

#: The most characters a rule reads before it knows a secret (a 1Password service account
#: token: ``ops_eyJ`` and 250 more), and at least the longest secret of bounded length but
#: for the few that run on beyond it (a Vault batch token: 304).
MAX_FIXED_CHARS = 320

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

def _token(name: str, *shapes: tuple[str | tuple[str, ...], str], flags: int = 0) -> Rule:
    """A provider's token: each shape is a head (or heads, each of one fixed width) that every
    such token starts with, at the shared left boundary, and the body that follows it. The
    needles are the heads as text, case-folded (those of a head written as a pattern are in
    :data:`_NEEDLES_OF`)."""
    parts, needles = [], []
    for heads, body in shapes:
        heads = (heads,) if isinstance(heads, str) else heads
        parts.append(_head(*heads) + body)
        for head in heads:
            needles += _NEEDLES_OF.get(head, (head.replace("\\", ""),))
    return _rule(name, "|".join(parts), tuple(dict.fromkeys(n.casefold() for n in needles)), flags=flags)


#: The needles of the heads written as patterns.
_NEEDLES_OF = {"A3T[A-Z0-9]": ("a3t",), "gh[pousr]_": ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
               "[sr]k_": ("sk_", "rk_"), "do[opr]_v1_": ("doo_v1_", "dop_v1_", "dor_v1_")}

#: Provider tokens, each recognised by a prefix of its own: every prefix-anchored token rule of
#: gitleaks' default configuration, and the keys an agent's own stack carries that gitleaks
#: lacks (LangSmith, Tavily, xAI, Replicate; Hugging Face tokens with digits). A gitleaks rule
#: that needs a keyword nearby (``heroku ... = <uuid>``) is the key/value rule's case here.
TOKEN_RULES: tuple[Rule, ...] = (
    _token("aws-access-key-id", (("A3T[A-Z0-9]", "AKIA", "ASIA", "ABIA", "ACCA"), r"[A-Z0-9]{16}\b")),
    _token("aws-bedrock-key", ("ABSK", "[A-Za-z0-9+/]{109,269}={0,2}"),
           ("bedrock-api-key-", "YmVkcm9jay5hbWF6b25hd3MuY29t[A-Za-z0-9+/=%_-]*")),
    _token("github-token", ("gh[pousr]_", "[A-Za-z0-9]{36,255}"), ("github_pat_", "[A-Za-z0-9_]{22,255}")),
    _token("gitlab-token", (("glpat-", "gldt-", "glrt-", "glptt-", "glffct-", "glft-", "glimt-", "glagent-", "gloas-",
                             "glsoat-"), r"[A-Za-z0-9_-]{20,}(?:\.[0-9a-z]{9})?"),
           ("glcbt-", "[A-Za-z0-9]{1,5}_[A-Za-z0-9_-]{20}"), ("GR1348941", "[A-Za-z0-9_-]{20}")),
    _token("gitlab-session-cookie", ("_gitlab_session=", "[0-9a-z]{32}")),
    _token("slack-token", ("xox", "[abposre]-[A-Za-z0-9-]{10,}"), ("xapp-", r"\d-[A-Za-z0-9-]{10,}")),
    _token("stripe-key", ("[sr]k_", "(?:live|test|prod)_[A-Za-z0-9]{10,}"), ("whsec_", "[A-Za-z0-9]{24,}")),
    _token("google-api-key", ("AIza", "[0-9A-Za-z_-]{35}")),
    _token("google-oauth", ("GOCSPX-", "[A-Za-z0-9_-]{28}"), (r"ya29\.", "[0-9A-Za-z_-]{20,}")),
    _token("openai-anthropic-key", ("sk-", "(?:proj-|ant-|svcacct-|admin-)?[A-Za-z0-9_-]{16,}")),
    _token("groq-key", ("gsk_", "[A-Za-z0-9]{20,}")),
    _token("xai-key", ("xai-", "[A-Za-z0-9]{32,}")),
    _token("perplexity-key", ("pplx-", "[A-Za-z0-9]{48}")),
    _token("langsmith-key", (("lsv2_pt_", "lsv2_sk_"), "[A-Za-z0-9_]{20,}")),
    _token("tavily-key", ("tvly-", "(?:dev-|prod-)?[A-Za-z0-9]{20,}")),
    _token("replicate-token", ("r8_", "[A-Za-z0-9]{30,}")),
    _token("huggingface-token", ("hf_", "[A-Za-z0-9]{34,}")),
    _token("huggingface-org-token", ("api_org_", "[A-Za-z0-9]{34,}")),
    _token("npm-token", ("npm_", "[A-Za-z0-9]{36}")),
    _token("pypi-token", ("pypi-AgEIcHlwaS5vcmc", "[A-Za-z0-9_-]{50,}")),
    _token("rubygems-token", ("rubygems_", "[a-f0-9]{48}")),
    _token("clojars-token", ("CLOJARS_", "[A-Za-z0-9]{60}"), flags=re.IGNORECASE),
    _token("sendgrid-key", (r"SG\.", r"[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}")),
    _token("sendinblue-key", ("xkeysib-", "[a-f0-9]{64}-[A-Za-z0-9]{16}")),
    _token("twilio-key", ("SK", r"[0-9a-fA-F]{32}\b")),
    _token("mailgun-key", ("key-", r"[0-9a-z]{32}\b")),
    _token("shopify-token", ("shp", "(?:at|ca|pa|ss)_[a-fA-F0-9]{32}")),
    _token("databricks-token", ("dapi", r"[a-f0-9]{32}(?:-\d)?")),
    _token("digitalocean-token", ("do[opr]_v1_", "[a-f0-9]{64}")),
    _token("linear-key", ("lin_api_", "[A-Za-z0-9]{40}")),
    _token("postman-key", ("PMAK-", "[a-fA-F0-9]{24}-[a-fA-F0-9]{34}")),
    _token("square-token", ("sq0", "(?:atp|csp)-[A-Za-z0-9_-]{22,}"), ("EAAA", "[A-Za-z0-9_-]{22,60}")),
    _token("facebook-page-token", (("EAAM", "EAAC"), "[A-Za-z0-9]{100,}")),
    _token("heroku-key", ("HRKU-AA", "[0-9A-Za-z_-]{58}")),
    _token("doppler-token", (r"dp\.pt\.", "[A-Za-z0-9]{43}")),
    _token("age-secret-key", ("AGE-SECRET-KEY-1", "[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}")),
    _token("1password-secret-key",
           ("A3-", r"[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}\b")),
    _token("1password-service-account-token", ("ops_eyJ", "[A-Za-z0-9+/]{250,}={0,3}")),
    _token("adobe-client-secret", ("p8e-", "[A-Za-z0-9]{32}")),
    _token("airtable-token", ("pat", r"[A-Za-z0-9]{14}\.[a-f0-9]{64}")),
    _token("alibaba-access-key-id", ("LTAI", r"[A-Za-z0-9]{20}\b")),
    _token("artifactory-key", ("AKCp", r"[A-Za-z0-9]{69}\b"), ("cmVmd", r"[A-Za-z0-9]{59}\b")),
    _token("atlassian-token", ("ATATT3", "[A-Za-z0-9_=-]{186}")),
    _token("authress-key", (("sc_", "ext_", "scauth_", "authress_"),
                            r"[A-Za-z0-9]{5,30}\.[A-Za-z0-9]{4,6}\.acc[_-][A-Za-z0-9-]{10,32}\.[A-Za-z0-9+/_=-]{30,120}")),
    _token("clickhouse-key", ("4b1d", r"[A-Za-z0-9]{38}\b")),
    _token("cloudflare-origin-ca-key", (r"v1\.0-", "[a-f0-9]{24}-[a-f0-9]{146}")),
    _token("defined-networking-token", ("dnkey-", "[A-Za-z0-9=_-]{26}-[A-Za-z0-9=_-]{52}")),
    _token("duffel-token", ("duffel_", "(?:test|live)_[A-Za-z0-9_=-]{43}")),
    _token("dynatrace-token", (r"dt0c01\.", r"[A-Za-z0-9]{24}\.[A-Za-z0-9]{64}")),
    _token("easypost-token", (("EZAK", "EZTK"), r"[A-Za-z0-9]{54}\b")),
    _token("flutterwave-key", (("FLWSECK_TEST-", "FLWPUBK_TEST-"), "[a-hA-H0-9]{12}(?:[a-hA-H0-9]{20}-X)?")),
    _token("flyio-token", ("fo1_", "[A-Za-z0-9_-]{43}"), (("fm1a_", "fm1r_", "fm2_"), "[A-Za-z0-9+/]{100,}={0,3}")),
    _token("frameio-token", ("fio-u-", "[A-Za-z0-9_=-]{64}")),
    _token("grafana-token", ("eyJrIjoi", "[A-Za-z0-9]{70,400}={0,3}"), ("glc_", "[A-Za-z0-9+/]{32,400}={0,3}"),
           ("glsa_", "[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}"), flags=re.IGNORECASE),
    _token("harness-api-key", ((r"pat\.", r"sat\."), r"[A-Za-z0-9_-]{22}\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{20}")),
    _token("infracost-token", ("ico-", "[A-Za-z0-9]{32}")),
    _token("intra42-secret", (("s-s4t2ud-", "s-s4t2af-"), "[a-f0-9]{64}")),
    _token("jwt-base64", ("ZXlK", "[A-Za-z0-9+/_-]{40,}={0,2}")),
    _token("new-relic-key", ("NRAK-", "[A-Za-z0-9]{27}"), ("NRII-", "[A-Za-z0-9-]{32}"), ("NRJS-", "[a-f0-9]{19}")),
    _token("notion-token", ("ntn_", "[0-9]{11}[A-Za-z0-9]{35}")),
    _token("octopus-deploy-key", ("API-", r"[A-Z0-9]{26}\b")),
    _token("openshift-token", ("sha256~", "[A-Za-z0-9_-]{43}")),
    _token("planetscale-token", (("pscale_tkn_", "pscale_oauth_", "pscale_pw_"), "[A-Za-z0-9_=.-]{32,64}")),
    _token("prefect-token", ("pnu_", "[A-Za-z0-9]{36}")),
    _token("pulumi-token", ("pul-", "[a-f0-9]{40}")),
    _token("readme-token", ("rdme_", "[a-z0-9]{70}")),
    _token("scalingo-token", ("tk-us-", "[A-Za-z0-9_-]{48}")),
    _token("sentry-token", ("sntrys_", "eyJ[A-Za-z0-9+/=_]{40,}"), ("sntryu_", "[a-f0-9]{64}")),
    _token("settlemint-token", (("sm_aat_", "sm_pat_", "sm_sat_"), "[A-Za-z0-9]{16}")),
    _token("shippo-token", ("shippo_", "(?:live|test)_[a-fA-F0-9]{40}")),
    _token("sourcegraph-token", ("sgp_", "(?:[a-fA-F0-9]{16}_|local_)?[a-fA-F0-9]{40}")),
    _token("typeform-token", ("tfp_", "[A-Za-z0-9_.=-]{59}")),
    _token("vault-token", (r"hvs\.", "[A-Za-z0-9_-]{90,120}"), (r"hvb\.", "[A-Za-z0-9_-]{138,300}"),
           (r"s\.", r"[A-Za-z0-9]{24}\b")),
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
    _rule("slack-webhook", r"hooks\.slack\.com/(?:services|workflows|triggers)/(?P<secret>[A-Za-z0-9+/]{20,})",
          "hooks.slack.com"),
    _rule("microsoft-teams-webhook", r"\.webhook\.office\.com/webhookb2/(?P<secret>[A-Za-z0-9@/_-]{20,})",
          "webhook.office.com", flags=re.IGNORECASE),
    # --- provider tokens ----------------------------------------------------------------
    *TOKEN_RULES,
    # Found by what is around them rather than a prefix of their own.
    _rule("azure-ad-client-secret", _head(r"[A-Za-z0-9_~.]{3}\dQ~", word="[A-Za-z0-9_~.]") + "[A-Za-z0-9_~.-]{31,34}",
          "q~"),
    _rule("hashicorp-terraform-token", _start("[A-Za-z0-9]") + r"[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,70}",
          ".atlasv1.", reach=14),
    _rule("telegram-bot-token", _head(r"\d", ahead=r"\d{7,9}:AA") + r"\d{7,9}:AA[A-Za-z0-9_-]{33}", ":aa"),
    _rule("maxmind-license-key", _start("[A-Za-z0-9]") + r"[A-Za-z0-9]{6}_[A-Za-z0-9]{29}_mmk\b", "_mmk", reach=36),
    # --- names that say their value is secret (last: provider rules have run) ----------
    _rule("cookie-header",
          _head("set-cookie", "cookie") + rf"{_QUOTE}{_BLANK}*(?::|%3[Aa]){_BLANK}*{_QUOTE}(?P<secret>[^\r\n\"'\\]+)",
          "cookie", flags=re.IGNORECASE, reach=len("set-")),
    _rule("secret-key-value",
          rf"(?:{_SECRET_NAMES}){_QUOTE}{_BLANK}*(?:=>|:=|[:=]|%3[AaDd]){_BLANK}*{_VALUE}",
          ("passw", "passphrase", "pwd", "secret", "token", "key", "credential", "creds", "auth"),
          flags=re.IGNORECASE, reach=len("subscription_")),  # the longest name before its needle
)
