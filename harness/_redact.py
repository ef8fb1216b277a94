"""Secret redaction: applied to every text cell and span attribute before it leaves the process."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping

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


def _keep_prefix(match: re.Match[str]) -> str:
    return (match.group(1) or match.group(2) or "") + REDACTED


class Redactor:
    """Replaces secrets with ``[REDACTED]``.

    Besides the key shapes above, the values of environment variables whose names end in
    ``_KEY``, ``_TOKEN``, ``_SECRET`` or ``_PASSWORD`` are replaced wherever they appear.
    The environment is read when the redactor is built (once per run).
    """

    def __init__(self, environ: Mapping[str, str] | None = None) -> None:
        env = os.environ if environ is None else environ
        values = sorted(
            {v for k, v in env.items() if k.upper().endswith(_SECRET_ENV_SUFFIXES) and len(v) >= 6},
            key=len,
            reverse=True,
        )
        self._env = re.compile("|".join(map(re.escape, values))) if values else None

    def __call__(self, text: str) -> str:
        if self._env is not None:
            text = self._env.sub(REDACTED, text)
        return _PATTERNS.sub(_keep_prefix, text)

    def value(self, value: object) -> object:
        """Redact a cell value: strings are scrubbed, other values pass through."""
        return self(value) if isinstance(value, str) else value
