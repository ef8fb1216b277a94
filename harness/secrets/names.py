"""Names that key what is stored and head what is shown (an experiment's, a workflow's, a
score's, a label's) are checked where they enter: one that holds a secret is refused, since
a name is stored as given (redacted, two names would become one), and so is one with a
character that hides or reorders text on a screen (Trojan Source, CVE-2021-42574) or
breaks its line.
"""

from __future__ import annotations

import re

from .redact import Redactor, host_redactor

#: Characters that change how the text around them is shown without showing themselves:
#: bidirectional embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069) and marks
#: (U+200E, U+200F, U+061C), zero-width and invisible characters (U+200B-U+200D, U+2060-U+2064,
#: U+FEFF, the soft hyphen U+00AD, U+180E), line and paragraph separators (U+2028, U+2029) and
#: the interlinear annotation controls (U+FFF9-U+FFFB).
INVISIBLE_CLASS = "\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb"
INVISIBLE = re.compile(f"[{INVISIBLE_CLASS}]")
#: Control characters: C0 (tab and line breaks included), DEL and C1.
CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")


class UnsafeName(ValueError):
    """A name that may not be stored, and why (one line, the name shown safely)."""


def shown(text: str) -> str:
    """``text`` with its control and invisible characters as escapes (``\\u202e``)."""
    return INVISIBLE.sub(_escape, CONTROL.sub(_escape, text))


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def check_name(kind: str, name: str, redact: Redactor | None = None) -> str:
    """``name`` if it may name a ``kind`` (``"experiment"``, ``"score"`` ...); else
    :class:`UnsafeName`: it holds a secret (as the redactor finds one: ``redact``, default
    the rules and this process's environment), a control character or an invisible one."""
    a = "an" if kind[:1] in "aeiou" else "a"
    cleaned = (redact or host_redactor())(name)
    if cleaned != name:
        raise UnsafeName(f"{a} {kind} name may not hold a secret (it would be stored as given), not "
                         f"'{shown(cleaned)}'")
    found = CONTROL.search(name) or INVISIBLE.search(name)
    if found is not None:
        raise UnsafeName(f"{a} {kind} name holds no control, invisible or direction-changing character "
                         f"({shown(found.group())}), not '{shown(name)}'")
    return name
