"""Secret redaction: applied to every text cell and span attribute before it leaves the process."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence

REDACTED = "[REDACTED]"

_SECRET_ENV_SUFFIXES = ("_KEY", "_TOKEN", "_SECRET", "_PASSWORD")

# Known key shapes, bearer tokens and credentials passed as URL parameters.
# Group 1, when present, is a prefix kept in the output ("Bearer ", "?token=").
_PATTERNS = re.compile(
    r"gsk_[A-Za-z0-9]{8,}"
    r"|\bsk-(?:proj-|ant-)?[A-Za-z0-9_\-]{16,}"
    r"|(\bBearer\s+)[A-Za-z0-9._~+/=\-]{8,}"
    r"|([?&](?:token|api_key|apikey|key|access_token)=)[^&\s\"'#]+",
    re.IGNORECASE,
)


#: A substring (case-folded) of every match of ``_PATTERNS``.
_NEEDLES = ("gsk_", "sk-", "bearer", "token=", "key=")


def _keep_prefix(match: re.Match[str]) -> str:
    return (match.group(1) or match.group(2) or "") + REDACTED


def _keep_prefix_after_env(match: re.Match[str]) -> str:  # group 1 is a secret's value
    return (match.group(2) or match.group(3) or "") + REDACTED


def secret_values(environ: Mapping[str, str] | None = None) -> list[str]:
    """Values of the environment variables whose names say they hold a secret."""
    env = os.environ if environ is None else environ
    return [v for k, v in env.items() if k.upper().endswith(_SECRET_ENV_SUFFIXES) and len(v) >= 6]


_host_secrets: tuple[dict[bytes, bytes] | None, list[str]] = (None, [])


def host_secrets() -> list[str]:
    """:func:`secret_values` of this process's environment, recomputed only when it changed."""
    global _host_secrets
    data = getattr(os.environ, "_data", None)
    if not isinstance(data, dict):
        return secret_values()
    seen, values = _host_secrets
    if seen != data:
        values = secret_values()
        _host_secrets = (dict(data), values)
    return values


class Redactor:
    """Replaces secrets with ``[REDACTED]``.

    Besides the key shapes above, the values of environment variables whose names end in
    ``_KEY``, ``_TOKEN``, ``_SECRET`` or ``_PASSWORD`` are replaced wherever they appear.
    The environment is read when the redactor is built (once per run), unless ``secrets``
    gives those values already (read in the host for a run written by the writer process).
    """

    def __init__(self, environ: Mapping[str, str] | None = None, *, secrets: Sequence[str] | None = None) -> None:
        values = sorted(set(secret_values(environ) if secrets is None else secrets), key=len, reverse=True)
        # One pass over the text: the secrets' values first, then the key shapes.
        if values:
            self._pattern = re.compile(f"({'|'.join(map(re.escape, values))})|{_PATTERNS.pattern}", re.IGNORECASE)
            self._replace = _keep_prefix_after_env
        else:
            self._pattern, self._replace = _PATTERNS, _keep_prefix
        # Every match contains one of these (case-folded), and looking for them is ~50x
        # cheaper than the pattern, so text without any is passed without running it.
        # (Not for secrets outside ASCII, where case folding and the pattern may disagree.)
        self._needles: tuple[str, ...] | None = (
            (*_NEEDLES, *(v.casefold() for v in values)) if all(v.isascii() for v in values) else None
        )

    def _may_match(self, text: str) -> bool:
        if self._needles is None:
            return True
        folded = text.casefold()
        return any(needle in folded for needle in self._needles)

    def __call__(self, text: str) -> str:
        if not self._may_match(text):
            return text
        return self._pattern.sub(self._replace, text)

    def finds_any(self, texts: Sequence[str]) -> bool:
        """Whether any of ``texts`` may hold a secret, in one scan of them all, so that texts
        holding none (nearly all) are not scrubbed one by one. The patterns use no anchors
        or look-arounds and NUL is not a word character, so a secret in one text is found
        in the join; a match across two texts only costs the scrub that follows."""
        joined = "\x00".join(texts)
        return self._may_match(joined) and self._pattern.search(joined) is not None

    def value(self, value: object) -> object:
        """Redact a cell value: strings are scrubbed, other values pass through."""
        return self(value) if isinstance(value, str) else value
