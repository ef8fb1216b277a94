"""Secrets as runs carry them: an example of every rule of the table, each secret as a
line of text writes it, the separators that stand before a secret in text and in its
encodings, and ordinary lines that hold none. A provider token is also generated from its
rule's own pattern (:func:`token_of`), so every shape a rule accepts can be sent through
every channel."""

from __future__ import annotations

import random
import re
import string

from harness.secrets.rules import TOKEN_RULES, Rule

try:  # the regular expression parser (sre_parse before Python 3.11)
    from re import _constants as _sre
    from re import _parser as _sre_parse
except ImportError:  # pragma: no cover
    import sre_constants as _sre  # type: ignore[no-redef]
    import sre_parse as _sre_parse  # type: ignore[no-redef]

#: What a class that names a category, or excludes characters, is drawn from: ASCII, as keys are.
_CATEGORY = {_sre.CATEGORY_DIGIT: string.digits, _sre.CATEGORY_WORD: string.ascii_letters + string.digits + "_",
             _sre.CATEGORY_SPACE: " "}
_ANY = string.ascii_letters + string.digits + "-_./+=~"


def token_of(rule: Rule, seed: int = 0) -> str:
    """A token ``rule`` recognises, generated from its own pattern (lookarounds and boundaries
    left out; repeats at most 12 beyond their least; letters in any case where the pattern
    ignores case): the same one for the same seed. Checked: the rule matches it whole."""
    rng = random.Random(f"{rule.name}:{seed}")
    parsed = _sre_parse.parse(rule.pattern.pattern, rule.pattern.flags)
    for _ in range(200):
        token = _generate(parsed, rng, bool(rule.pattern.flags & re.IGNORECASE))
        found = rule.pattern.search(f" {token} ")
        if found is not None and found.group() == token:
            return token
    raise ValueError(f"no token of rule {rule.name} generated")


def _generate(items, rng: random.Random, ignore_case: bool) -> str:
    out = []
    for op, value in items:
        if op is _sre.LITERAL:
            char = chr(value)
            out.append(rng.choice((char.lower(), char.upper())) if ignore_case else char)
        elif op is _sre.IN:
            out.append(rng.choice(_members(value)))
        elif op is _sre.ANY:
            out.append(rng.choice(_ANY))
        elif op in (_sre.MAX_REPEAT, _sre.MIN_REPEAT, getattr(_sre, "POSSESSIVE_REPEAT", None)):
            least, most, sub = value
            most = least + 12 if most is _sre.MAXREPEAT else min(most, least + 12)
            out += [_generate(sub, rng, ignore_case) for _ in range(rng.randint(least, most))]
        elif op is _sre.SUBPATTERN:
            _, add, remove, sub = value
            out.append(_generate(sub, rng, (ignore_case or bool(add & re.IGNORECASE)) and not remove & re.IGNORECASE))
        elif op is _sre.BRANCH:
            out.append(_generate(rng.choice(value[1]), rng, ignore_case))
        elif op is getattr(_sre, "ATOMIC_GROUP", None):
            out.append(_generate(value, rng, ignore_case))
        elif op in (_sre.ASSERT, _sre.ASSERT_NOT, _sre.AT):
            continue
        else:
            raise ValueError(f"cannot generate {op}")
    return "".join(out)


def _members(items) -> str:
    chars, negate = [], False
    for op, value in items:
        if op is _sre.NEGATE:
            negate = True
        elif op is _sre.LITERAL:
            chars.append(chr(value))
        elif op is _sre.RANGE:
            chars += [chr(c) for c in range(value[0], value[1] + 1)]
        elif op is _sre.CATEGORY:
            chars += _CATEGORY[value]
        else:
            raise ValueError(f"cannot generate a member {op}")
    return "".join(c for c in _ANY if c not in chars) if negate else "".join(chars)


#: A token of each provider rule, generated from its pattern.
TOKENS = {rule.name: token_of(rule) for rule in TOKEN_RULES}

#: rule -> (text holding a secret, the secret, what must stay readable): written out, else
#: a provider token generated from its rule
EXAMPLES = {name: (f"see {token} done", token, "see ") for name, token in TOKENS.items()} | {
    "private-key": ("key: -----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAq7Bv3kR9\n-----END RSA PRIVATE KEY----- ok",
                    "MIIEowIBAAKCAQEAq7Bv3kR9", "-----BEGIN RSA PRIVATE KEY-----"),
    "jwt": ("token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dBjftJeZ4CVPmB92K27uhbUJU1p1r_wW1gFWFOEjXk now",
            "eyJzdWIiOiIxMjM0NTY3ODkwIn0", "now"),
    "url-credentials": ("connect to postgresql://app:Sup3rS3cret@db.internal:5432/prod", "Sup3rS3cret",
                        "postgresql://app:"),
    "url-parameter": ("GET https://bucket.s3.amazonaws.com/f?X-Amz-Signature=9f3c2a7b1e&X-Amz-Date=20260101",
                      "9f3c2a7b1e", "X-Amz-Date=20260101"),
    "bearer": ("curl -H 'Bearer abcDEF123456789xyz'", "abcDEF123456789xyz", "Bearer "),
    "basic-auth": ("Authorization: Basic YWxhZGRpbjpvcGVuc2VzYW1l", "YWxhZGRpbjpvcGVuc2VzYW1l", "Basic "),
    "aws-access-key-id": ("aws_access_key_id=AKIAQYLPMN5HHHFPZAM2", "AKIAQYLPMN5HHHFPZAM2", "aws_access_key_id="),
    "github-token": ("push with ghp_R2d2C3poBB8aLuke5kyW4lkerH4nSoL0ea1a", "ghp_R2d2C3poBB8aLuke5kyW4lkerH4nSoL0ea1a",
                     "push with"),
    "gitlab-token": ("GITLAB glpat-Xy7kP2mQ9rT4vW1zB8nC", "glpat-Xy7kP2mQ9rT4vW1zB8nC", "GITLAB"),
    "slack-token": ("bot xoxb-2048151924-2048151925-AbCdEfGhIjKlMnOp", "xoxb-2048151924-2048151925-AbCdEfGhIjKlMnOp",
                    "bot"),
    "slack-webhook": ("post to https://hooks.slack.com/services/T0001/B0002/XXXXXXXXXXXXXXXXXXXXXXXX",
                      "T0001/B0002/XXXXXXXXXXXXXXXXXXXXXXXX", "hooks.slack.com/services/"),
    "stripe-key": ("charge with sk_live_51HxYz2KqLmNoPqRsTuVwXyZ01", "sk_live_51HxYz2KqLmNoPqRsTuVwXyZ01", "charge"),
    "google-api-key": ("maps key AIzaSyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvW", "AIzaSyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvW",
                       "maps"),
    "google-oauth": ("secret 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", "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", "secret"),
    "openai-anthropic-key": ("OPENAI sk-proj-Ab12Cd34Ef56Gh78Ij90Kl12", "sk-proj-Ab12Cd34Ef56Gh78Ij90Kl12", "OPENAI"),
    "groq-key": ("groq gsk_Zq8Wx7Vc6Bn5Mm4Ll3Kk2Jj1Hh0Gg9Ff8", "gsk_Zq8Wx7Vc6Bn5Mm4Ll3Kk2Jj1Hh0Gg9Ff8", "groq"),
    "huggingface-token": ("hf hf_AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGh", "hf_AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGh", "hf "),
    "npm-token": ("//registry:_authToken npm_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8", "npm_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8",
                  "//registry"),
    "pypi-token": ("upload pypi-AgEIcHlwaS5vcmcCJGFiY2RlZmdoLWlqa2wtbW5vcC1xcnN0LXV2d3h5ejAxMjM0NTY3",
                   "pypi-AgEIcHlwaS5vcmcCJGFiY2RlZmdoLWlqa2wtbW5vcC1xcnN0LXV2d3h5ejAxMjM0NTY3", "upload"),
    "sendgrid-key": ("mail SG.aBcDeFgHiJkLmNoPqRsTuV.wXyZaBcDeFgHiJkLmNoPqRsTuVwXyZaBcDeFgHiJkLm",
                     "SG.aBcDeFgHiJkLmNoPqRsTuV.wXyZaBcDeFgHiJkLmNoPqRsTuVwXyZaBcDeFgHiJkLm", "mail"),
    "twilio-key": ("twilio SK0123456789abcdef0123456789abcdef", "SK0123456789abcdef0123456789abcdef", "twilio"),
    "mailgun-key": ("mailgun key-3ax6xnjp29jd6fds4gc373sgvjxteol0", "key-3ax6xnjp29jd6fds4gc373sgvjxteol0", "mailgun"),
    "azure-ad-client-secret": ("client abc1Q~aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456", "abc1Q~aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456",
                               "client"),
    "shopify-token": ("shop shpat_0123456789abcdef0123456789abcdef", "shpat_0123456789abcdef0123456789abcdef", "shop"),
    "databricks-token": ("dbx dapi0123456789abcdef0123456789abcdef", "dapi0123456789abcdef0123456789abcdef", "dbx"),
    "digitalocean-token": ("do dop_v1_" + "a1" * 32, "dop_v1_" + "a1" * 32, "do "),
    "linear-key": ("linear lin_api_" + "Ab3" * 13 + "Z", "lin_api_" + "Ab3" * 13 + "Z", "linear"),
    "postman-key": ("pm PMAK-0123456789abcdef01234567-0123456789abcdef0123456789abcdef01",
                    "PMAK-0123456789abcdef01234567-0123456789abcdef0123456789abcdef01", "pm"),
    "square-token": ("sq sq0atp-AbCdEfGhIjKlMnOpQrStUv", "sq0atp-AbCdEfGhIjKlMnOpQrStUv", "sq "),
    "heroku-key": ("heroku HRKU-AA" + "x9" * 29, "HRKU-AA" + "x9" * 29, "heroku"),
    "telegram-bot-token": ("bot 123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw1", "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw1",
                           "bot"),
    "doppler-token": ("dp dp.pt.aBcDeFgHiJkLmNoPqRsTuVwXyZaBcDeFgHiJkLmNoPq", "dp.pt.aBcDeFgHiJkLmNoPqRsTuVwXyZaBcDeFgHiJkLmNoPq",
                      "dp "),
    "age-secret-key": ("age AGE-SECRET-KEY-1" + "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L" + "QPZRY9X8GF2TVDW0S3JN54KHCE6M",
                       "AGE-SECRET-KEY-1QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7LQPZRY9X8GF2TVDW0S3JN54KHCE6M", "age"),
    "cookie-header": ("Cookie: sessionid=8f14e45fceea167a; csrftoken=c9f0f895fb98ab91", "8f14e45fceea167a", "Cookie: "),
    "secret-key-value": ('{"user": "ann", "password": "correct horse battery"}', "correct horse battery", '"user": "ann"'),
    "huggingface-org-token": ("org api_org_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789", "api_org_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
                              "org"),
    "langsmith-key": ("LANGSMITH lsv2_pt_0123456789abcdef0123456789abcdef_0123456789",
                      "lsv2_pt_0123456789abcdef0123456789abcdef_0123456789", "LANGSMITH"),
    "tavily-key": ("TAVILY tvly-dev-AbCdEfGhIjKlMnOpQrStUvWxYz012345", "tvly-dev-AbCdEfGhIjKlMnOpQrStUvWxYz012345",
                   "TAVILY"),
    "xai-key": ("XAI xai-" + "Ab3Cd4Ef5Gh6" * 7, "xai-" + "Ab3Cd4Ef5Gh6" * 7, "XAI"),
    "replicate-token": ("REPLICATE r8_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789a", "r8_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789a",
                        "REPLICATE"),
    "perplexity-key": ("PPLX pplx-" + "aB3dE6gH9jK2" * 4, "pplx-" + "aB3dE6gH9jK2" * 4, "PPLX"),
    "hashicorp-terraform-token": ("tf aB3dE6gH9jK2mN.atlasv1." + "Qw3rTy-_=z" * 6 + "Ab", "aB3dE6gH9jK2mN.atlasv1." + "Qw3rTy-_=z" * 6 + "Ab",
                                  "tf "),
    "maxmind-license-key": ("geo AbC123_" + "dEf456GhI789jKl012MnO345pQr67" + "_mmk ok", "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",
                            "geo "),
    "microsoft-teams-webhook": ("post https://acme.webhook.office.com/webhookb2/3f2a9c1e-77b0-4c1d-9e8f-0a1b2c3d4e5f@"
                                "0a1b2c3d-4e5f-6a7b-8c9d-0e1f2a3b4c5d/IncomingWebhook/0123456789abcdef0123456789abcdef/"
                                "9e8f7a6b-5c4d-3e2f-1a0b-9c8d7e6f5a4b", "3f2a9c1e-77b0-4c1d-9e8f-0a1b2c3d4e5f",
                                "acme.webhook.office.com/webhookb2/"),
}

#: rule -> (the secret as text writes it, from the first character its rule reads, and the
#: part of it that must never be kept). A provider's key is written as it is.
WRITTEN: dict[str, tuple[str, str]] = {name: (secret, secret) for name, (_, secret, _) in EXAMPLES.items()} | {
    "private-key": ("-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAq7Bv3kR9\n-----END RSA PRIVATE KEY-----",
                    "MIIEowIBAAKCAQEAq7Bv3kR9"),
    "jwt": ("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dBjftJeZ4CVPmB92K27uhbUJU1p1r_wW1gFWFOEjXk",
            "eyJzdWIiOiIxMjM0NTY3ODkwIn0"),
    "url-credentials": ("postgresql://app:Sup3rS3cret@db.internal:5432/prod", "Sup3rS3cret"),
    "url-parameter": ("https://bucket.s3.amazonaws.com/f?X-Amz-Signature=9f3c2a7b1e&X-Amz-Date=20260101", "9f3c2a7b1e"),
    "bearer": ("Bearer abcDEF123456789xyz", "abcDEF123456789xyz"),
    "basic-auth": ("Basic YWxhZGRpbjpvcGVuc2VzYW1l", "YWxhZGRpbjpvcGVuc2VzYW1l"),
    "slack-webhook": ("https://hooks.slack.com/services/T0001/B0002/XXXXXXXXXXXXXXXXXXXXXXXX",
                      "T0001/B0002/XXXXXXXXXXXXXXXXXXXXXXXX"),
    "cookie-header": ("Cookie: sessionid=8f14e45fceea167a; csrftoken=c9f0f895fb98ab91", "8f14e45fceea167a"),
    "secret-key-value": ('password: "correct horse battery"', "correct horse battery"),
    "microsoft-teams-webhook": ("https://acme.webhook.office.com/webhookb2/3f2a9c1e-77b0-4c1d-9e8f-0a1b2c3d4e5f@0a1b2c3d",
                                "3f2a9c1e-77b0-4c1d-9e8f-0a1b2c3d4e5f"),
}

#: Keys put where the CLI prints: an OpenAI project key (sk-proj- and 48 characters) and the
#: GitHub token of WRITTEN (ghp_ and 36 characters).
OPENAI_KEY = "sk-proj-" + "Xq7Lm2Pz9Rt4Vw8Ks3Nb6Hd1Fg5Jc0Ye2Ua7Oi4Me9Tr3Wq"
GITHUB_KEY = WRITTEN["github-token"][0]

#: name -> (what stands before a secret, what after it). Those named "escaped" are two or
#: more characters as JSON text and Python reprs hold them (a backslash and a letter ...).
SEPARATORS: dict[str, tuple[str, str]] = {
    "space": (" ", " "),
    "start of text": ("", " "),
    "line break": ("\n", "\n"),
    "tab": ("\t", "\t"),
    "CR LF": ("\r\n", "\r\n"),
    "escaped line break": ("\\n", "\\n"),
    "escaped tab": ("\\t", "\\t"),
    "escaped CR LF": ("\\r\\n", "\\r\\n"),
    "escaped unicode line break": ("\\u000a", "\\u000a"),
    "escaped hex tab": ("\\x09", "\\x09"),
    "escaped octal line break": ("\\012", "\\012"),
    "escaped backslash": ("\\\\", "\\\\"),
    "escaped quote": ('\\"', '\\"'),
    "double quotes": ('"', '"'),
    "single quotes": ("'", "'"),
    "backticks": ("`", "`"),
    "URL-encoded line break": ("%0A", "%0A"),
    "URL-encoded space": ("%20", "%20"),
    "URL-encoded =": ("%3D", "%26"),
}


def around(written: str, separator: str, before: str = "see", after: str = "done") -> str:
    """``written`` between ``before`` and ``after``, each joined to it by ``separator``
    (at the start of text: nothing before it)."""
    left, right = SEPARATORS[separator]
    return f"{written}{right}{after}" if separator == "start of text" else f"{before}{left}{written}{right}{after}"


#: Lines that hold no secret though they hold the rules' needles: after any separator (in
#: any encoding) they come out unchanged.
ORDINARY = (
    "The key point is that revenue grew",
    "token count: 42",
    "plain text about sk-ills and tasks at risk",
    '{"total_tokens": 54, "prompt_tokens": 42, "max_tokens": 100}',
    '{"next_token": null, "token": true, "password": ""}',
    "a basic understanding of bearer bonds",
    "https://example.com:8080/path?page=2&sort=asc",
    "password_hash: pbkdf2 secretary: Ann author: Ann tokenizer: gpt2",
    '{"key_findings": ["revenue grew"], "primary_key": "id"}',
    "AKIA is not a key; neither is ghp_short",
    "key-value stores keep a cookie jar",
    "Set-Cookie headers are missing",
    "eyes on the prize, sq0 and dapi are prefixes",
    "hf_ and gsk_ and xoxo from the team",
    "It was. So was the path to the pattern of an API-first design",
    "the sc_ and ext_ prefixes; r8_, xai-, tvly- and pplx- are short; ico-bar and pul-ley",
    "sha256~ of the file, v1.0-beta, key-value, api_org_ chart",
)
