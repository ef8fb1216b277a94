"""Secret redaction: applied to every text cell, span attribute and log line before it
leaves the process, and before any text is cut (see :func:`harness.tracing.encode.cut`).

The rules (:mod:`.rules`) are compiled once; a :class:`Redactor` adds the host's
environment secrets (:func:`secret_values`: the values of its secret-named variables, the
passwords of URLs in any) and the patterns and functions an application gives
``Harness(redact=...)``.
"""

from __future__ import annotations

import functools
import json
import logging
import os
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from urllib.parse import quote, quote_plus, unquote

import ahocorasick_rs

from .. import config
from .rules import (
    MAX_FIXED_CHARS,
    MIN_ENV_SECRET_CHARS,
    NOT_SECRET_ENV_NAMES,
    RULES,
    SECRET_ENV_NAME,
    TOKEN_RULES,
    URL_PASSWORD,
    Rule,
)

REDACTED = "[REDACTED]"

#: Characters beyond a cut that are redacted with the kept text, so that a secret
#: straddling the cut is recognised whole (at least the longest fixed-length secret).
MARGIN = 2 * MAX_FIXED_CHARS

#: Characters of a text looked through for needles at once: what a scan holds (a case-folded
#: copy, the needles found) is bounded by this, however long the text.
CHUNK_CHARS = 1 << 16

#: What ``Harness(redact=...)`` takes: a regular expression (text or compiled; its group
#: ``secret``, if any, else the whole match is replaced), a function from text to text
#: (applied after the rules), or a list of them.
ExtraRule = str | re.Pattern[str] | Callable[[str], str]

logger = logging.getLogger("harness")


def secret_values(environ: Mapping[str, str] | None = None) -> list[str]:
    """The secrets of an environment: the values of the variables whose names say they hold
    one (:data:`~.secret_rules.SECRET_ENV_NAME`: ``*_PWD``, ``*_TOKEN``, ``*_DSN`` ...), and the
    passwords of URLs in any variable (``DATABASE_URL=postgresql://u:password@h/db``: the
    password, as written and decoded; the URL itself stays readable, and its password is
    redacted wherever the URL appears by the ``url-credentials`` rule). Values shorter than
    :data:`~.secret_rules.MIN_ENV_SECRET_CHARS` are left out: they would match ordinary words."""
    env = os.environ if environ is None else environ
    values: list[str] = []
    for name, value in env.items():
        if SECRET_ENV_NAME.search(name) and name.upper() not in NOT_SECRET_ENV_NAMES:
            values.append(value)
        for url in URL_PASSWORD.finditer(value):
            values += {url["password"], unquote(url["password"])}
    return [v for v in values if len(v) >= MIN_ENV_SECRET_CHARS]


_host_secrets: tuple[dict[bytes, bytes] | None, list[str]] = (None, [])
_dotenv_secrets: tuple[Mapping[str, str] | None, list[str]] = (None, [])


def host_secrets() -> list[str]:
    """:func:`secret_values` of this process's environment (recomputed only when it changed)
    and of the ``.env`` file the configuration reads (:func:`harness.config.dotenv_values`),
    whose secrets a library user never put in the environment."""
    global _host_secrets, _dotenv_secrets
    dotenv = config.dotenv_values()  # the same mapping until the file changes
    read, extra = _dotenv_secrets
    if read is not dotenv:
        extra = secret_values(dotenv) if dotenv else []
        _dotenv_secrets = (dotenv, extra)
    data = getattr(os.environ, "_data", None)
    if not isinstance(data, dict):
        return secret_values() + extra
    seen, values = _host_secrets
    if seen != data:
        values = secret_values()
        _host_secrets = (dict(data), values)
    return values + extra if extra else values


def extra_rules(spec: ExtraRule | Iterable[ExtraRule] | None) -> tuple[re.Pattern[str] | Callable[[str], str], ...]:
    """``Harness(redact=...)`` checked and compiled. Raises ValueError for a pattern that does
    not compile or matches empty text (it would mark every position), TypeError for
    anything that is neither a pattern nor a function."""
    if spec is None:
        return ()
    items = [spec] if isinstance(spec, (str, re.Pattern)) or callable(spec) else list(spec)  # type: ignore[arg-type]
    out: list[re.Pattern[str] | Callable[[str], str]] = []
    for item in items:
        if isinstance(item, str):
            try:
                item = re.compile(item)
            except re.error as exc:
                raise ValueError(f"redact pattern {item!r} does not compile: {exc}") from None
        if isinstance(item, re.Pattern):
            if not isinstance(item.pattern, str):
                raise TypeError(f"redact pattern {item.pattern!r} must be a text pattern, not bytes")
            if item.search("") is not None:
                raise ValueError(f"redact pattern {item.pattern!r} matches empty text")
        elif not callable(item):
            raise TypeError(f"redact takes regular expressions and functions of a text, not {type(item).__name__}")
        out.append(item)
    return tuple(out)


def portable(rules: Iterable[re.Pattern[str] | Callable[[str], str]]) -> bool:
    """Whether another process can apply ``rules``: patterns travel, an application's
    function stays in its host (the writer process never imports application code)."""
    return all(isinstance(rule, re.Pattern) for rule in rules)


def _forms(value: str) -> set[str]:
    """A secret as it may appear: as is, escaped inside JSON text (once, or twice when the
    text is itself a JSON string), in a Python repr, quoted in a URL (``/`` kept or not,
    spaces as ``%20`` or ``+``)."""
    escaped = json.dumps(value, ensure_ascii=False)[1:-1]
    return {value, escaped, json.dumps(escaped, ensure_ascii=False)[1:-1], repr(value)[1:-1],
            quote(value, safe=""), quote(value), quote_plus(value)}


def _secret_groups(pattern: re.Pattern[str]) -> tuple[str, ...]:
    return tuple(name for name in pattern.groupindex if name.startswith("secret"))


class Redactor:
    """Replaces secrets with ``[REDACTED]``: what the rules of :mod:`.secret_rules`
    recognise, the environment's secrets (:func:`secret_values`) wherever they appear (read
    from ``environ``, default this process's environment, unless ``secrets`` gives them:
    the host's, for a run written by the writer process), and ``extra`` (see
    :func:`extra_rules`). ``rules`` replaces the rule table (a test of one rule, a benchmark
    without any).

    Each rule runs only on text holding one of its needles, all found in one Aho-Corasick
    pass over a case-folded copy of the text (a fraction of the cost of running the
    patterns), so text without any is passed through untouched. The pass goes through a long
    text :data:`CHUNK_CHARS` at a time, so its memory does not grow with the text.
    """

    def __init__(self, environ: Mapping[str, str] | None = None, *, secrets: Sequence[str] | None = None,
                 extra: Sequence[re.Pattern[str] | Callable[[str], str]] = (), rules: Sequence[Rule] = RULES) -> None:
        values = secret_values(environ) if secrets is None else secrets
        literals = sorted({form for v in values if v for form in _forms(v)}, key=len, reverse=True)
        rules = list(rules)
        if literals:
            # Secrets outside ASCII get no needle: case folding and the pattern may disagree there.
            needles = tuple(v.casefold() for v in literals) if all(v.isascii() for v in literals) else ()
            rules.insert(0, Rule("environment", re.compile("|".join(map(re.escape, literals)), re.IGNORECASE),
                                 needles))
        rules += [Rule("extra", p, ()) for p in extra if isinstance(p, re.Pattern)]
        self._rules = tuple((rule, _secret_groups(rule.pattern)) for rule in rules)
        self._functions = tuple(f for f in extra if not isinstance(f, re.Pattern))
        #: rules that run whatever the text holds
        self._always = tuple(i for i, (rule, _) in enumerate(self._rules) if not rule.needles)
        needles: dict[str, set[int]] = {}
        for i, (rule, _) in enumerate(self._rules):
            for needle in rule.needles:
                needles.setdefault(needle, set()).add(i)
        #: rules by needle, and one automaton finding every needle in one pass over a text
        self._rules_of = tuple(frozenset(rules) for rules in needles.values())
        #: the needles of rules with a reach, whose places are looked at (not only whether they are there)
        self._placed = frozenset(n for n, rules in enumerate(self._rules_of)
                                 if any(self._rules[i][0].reach is not None for i in rules))
        self._automaton = ahocorasick_rs.AhoCorasick(list(needles), implementation=ahocorasick_rs.Implementation.DFA)
        # The same needles over bytes, for ASCII text (nearly all): a third faster, and a byte's
        # place is its character's there. (Needles are ASCII: see the environment rule's.)
        self._ascii_automaton = ahocorasick_rs.BytesAhoCorasick(
            [n.encode() for n in needles], implementation=ahocorasick_rs.Implementation.DFA) \
            if all(n.isascii() for n in needles) else None
        #: how far chunks of a long text overlap, so a needle across two is whole in one
        self._overlap = max(map(len, needles), default=1)
        #: the provider tokens' rules, which :meth:`across` looks for where two texts meet
        tokens = set(TOKEN_RULES)
        self._tokens = frozenset(i for i, (rule, _) in enumerate(self._rules) if rule in tokens)
        #: characters past a cut to redact with the kept text (see :func:`harness.tracing.encode.cut`)
        self.margin = max(MARGIN, max(map(len, literals), default=0) + 1)

    def _needles(self, folded: str) -> tuple[set[int], dict[int, list[int]]]:
        """The rules with a needle in ``folded`` (a case-folded text), and where the needles of
        those with a reach start."""
        matches = self._find(folded)
        present = {needle for needle, _, _ in matches}
        rules = set().union(*(self._rules_of[needle] for needle in present))
        starts: dict[int, list[int]] = {}
        if not present.isdisjoint(self._placed):
            placed = self._placed
            for needle, start, _ in matches:
                if needle in placed:
                    for i in self._rules_of[needle]:
                        starts.setdefault(i, []).append(start)
        return rules, starts

    def _find(self, folded: str) -> list[tuple[int, int, int]]:
        """(needle, start, end) of every needle in ``folded`` (a case-folded text), overlapping."""
        if self._ascii_automaton is not None and folded.isascii():
            return self._ascii_automaton.find_matches_as_indexes(folded.encode("ascii"), overlapping=True)
        return self._automaton.find_matches_as_indexes(folded, overlapping=True)

    def _windows(self, text: str) -> Iterator[tuple[int, str]]:
        """``text`` a chunk at a time, as (offset, chunk), chunks overlapping by the longest
        needle; a short text whole."""
        if len(text) <= CHUNK_CHARS:
            yield 0, text
            return
        for start in range(0, len(text), CHUNK_CHARS):
            yield start, text[start:start + CHUNK_CHARS + self._overlap]

    def _scanned(self, text: str) -> Iterator[tuple[int, bool, set[int], dict[int, list[int]]]]:
        """``text`` a chunk at a time (:meth:`_windows`): (its offset, whether its needles'
        places are the text's, the rules with a needle in it, where those with a reach start)."""
        for offset, window in self._windows(text):
            folded = window.casefold()
            # Case folding never shortens a character: equal lengths mean a needle's place in
            # the folded copy is its place in the text.
            yield (offset, len(folded) == len(window), *self._needles(folded))

    def _near_needles(self, i: int, text: str, offset: int, aligned: bool,
                      starts: Mapping[int, list[int]]) -> bool | None:
        """Whether rule ``i`` matches ``text`` near one of its needles in a chunk
        (:meth:`_scanned`); None when that cannot say (a rule without a reach, or needles
        whose places are not known): only the pattern over the whole text can."""
        rule = self._rules[i][0]
        if rule.reach is None or not aligned or i not in starts:
            return None
        near = starts[i] if offset == 0 else [offset + start for start in starts[i]]
        return _matches_near(rule.pattern, text, near, rule.reach)

    def _applicable(self, text: str) -> list[int]:
        """The rules worth running on ``text``, in table order: those without needles, those
        whose needle is there, but for a rule with a reach, only when it matches near one of
        its needles (a keyword such as ``key`` is in most prose; the rule's pattern run over
        the whole text would cost a hundred times the scan)."""
        found = set(self._always)
        for offset, aligned, rules, starts in self._scanned(text):
            for i in rules - found:
                if self._near_needles(i, text, offset, aligned, starts) is not False:
                    found.add(i)
        return sorted(found)

    def __call__(self, text: str) -> str:
        for i in self._applicable(text):
            text = self._substitute(i, text)
        for function in self._functions:
            text = _applied(function, text)
        return text

    def _substitute(self, index: int, text: str) -> str:
        rule, groups = self._rules[index]

        def replace(match: re.Match[str]) -> str:
            whole = match.group()
            secret = next((g for g in groups if match.start(g) != -1), None)
            if secret is None:
                return REDACTED
            if rule.check is not None and not rule.check(match.group(secret)):
                return whole
            start, end = match.start(secret) - match.start(), match.end(secret) - match.start()
            return whole[:start] + REDACTED + whole[end:]

        return rule.pattern.sub(replace, text)

    def finds_any(self, texts: Sequence[str]) -> bool:
        """Whether any of ``texts`` may hold a secret, in one scan of them all, so that texts
        holding none (nearly all) are not scrubbed one by one. NUL is not a word character
        and no rule matches it, so a secret in one text is found in the join; a match across
        two texts only costs the scrub that follows. Texts are joined about
        :data:`CHUNK_CHARS` at a time (a longer one is scanned on its own), so the scan's
        memory is bounded whatever they hold."""
        if self._functions:
            return True
        if sum(map(len, texts)) + len(texts) <= CHUNK_CHARS:  # the usual run: one scan of them all
            return bool(texts) and self._found("\x00".join(texts))
        batch: list[str] = []
        size = 0
        for text in texts:
            if len(text) > CHUNK_CHARS:
                if self._found(text):
                    return True
                continue
            batch.append(text)
            size += len(text) + 1
            if size > CHUNK_CHARS:
                if self._found("\x00".join(batch)):
                    return True
                batch, size = [], 0
        return bool(batch) and self._found("\x00".join(batch))

    def _found(self, text: str) -> bool:
        """Whether a rule matches ``text`` (its needles looked for a chunk at a time)."""
        searched: set[int] = set()
        for offset, aligned, rules, starts in self._scanned(text):
            for i in sorted(rules.union(self._always)):
                near = self._near_needles(i, text, offset, aligned, starts)
                if near:
                    return True
                if near is None and i not in searched:
                    searched.add(i)
                    if self._rules[i][0].pattern.search(text) is not None:
                        return True
        return False

    def across(self, texts: Sequence[str]) -> list[str]:
        """``texts`` (a conversation's messages, in order) with a provider's token written
        half at the end of one and half at the start of the next redacted in both: each
        place two of them meet is scanned with :data:`MAX_FIXED_CHARS` characters either
        side. (Each text on its own is scrubbed as any other.)"""
        out = list(texts)
        for i in range(len(out) - 1):
            left, right = out[i], out[i + 1]
            if not left or not right:
                continue
            tail, head = left[-MAX_FIXED_CHARS:], right[:MAX_FIXED_CHARS]
            joined = tail + head
            for index in self._tokens.intersection(self._applicable(joined)):
                found = next((m for m in self._rules[index][0].pattern.finditer(joined)
                              if m.start() < len(tail) < m.end()), None)
                if found is not None:
                    out[i] = left[:len(left) - len(tail) + found.start()] + REDACTED
                    out[i + 1] = REDACTED + right[found.end() - len(tail):]
                    break
        return out

    def value(self, value: object) -> object:
        """Redact a cell value: strings are scrubbed, other values pass through."""
        return self(value) if isinstance(value, str) else value


def _matches_near(pattern: re.Pattern[str], text: str, needles: Sequence[int], reach: int) -> bool:
    """Whether ``pattern`` matches ``text`` starting at most ``reach`` characters before one
    of the ``needles`` (their start positions): where a rule with a reach can match at all.

    Each needle is one call of :func:`_near` (the places before it tried by the regex engine,
    not one call each); places already tried for an earlier needle are not tried again. A
    match found a little past a needle is a match of the rule all the same."""
    near = _near(pattern, reach)
    if near is None:  # (a pattern that cannot be wrapped: each place tried on its own)
        return any(pattern.match(text, position) is not None
                   for position in sorted({p for start in needles for p in range(max(0, start - reach), start + 1)}))
    tried = -1  # every place up to here was tried
    for start in sorted(needles):
        if start <= tried:
            continue
        lo = max(0, start - reach, tried + 1)
        if near.match(text, lo) is not None:
            return True
        tried = lo + reach
    return False


@functools.lru_cache(maxsize=256)
def _near(pattern: re.Pattern[str], reach: int) -> re.Pattern[str] | None:
    """``pattern`` matching anywhere in the ``reach`` + 1 places from where it is tried (its
    places tried in that order, by the engine): None when the pattern cannot be wrapped."""
    try:
        return re.compile(f"(?s:.{{0,{reach}}}?)(?:{pattern.pattern})", pattern.flags)
    except re.error:
        return None


def _applied(function: Callable[[str], str], text: str) -> str:
    """An application's redaction function on ``text``; one that fails or returns no text
    redacts all of it (a secret is never let through because a rule broke)."""
    try:
        out = function(text)
    except Exception:  # noqa: BLE001
        logger.warning("harness: a redact function failed; the whole text is redacted", exc_info=False)
        return REDACTED
    return out if isinstance(out, str) else REDACTED


@functools.lru_cache(maxsize=32)
def redactor(secrets: tuple[str, ...] = (), extra: tuple[re.Pattern[str] | Callable[[str], str], ...] = ()) -> Redactor:
    """The redactor for these environment secrets and extra rules, built once."""
    return Redactor(secrets=secrets, extra=extra)


def host_redactor(extra: tuple[re.Pattern[str] | Callable[[str], str], ...] = ()) -> Redactor:
    """The redactor for this process's environment, as of now."""
    return redactor(tuple(host_secrets()), extra)


class _ScrubLogRecords(logging.Filter):
    """Redacts the message and traceback of every record the ``harness`` logger emits, so
    that a payload quoted in an error never reaches a log line."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            redact = host_redactor()
            record.msg, record.args = redact(record.getMessage()), None
            if record.exc_info and not record.exc_text:
                record.exc_text = logging.Formatter().formatException(record.exc_info)
            if record.exc_text:
                record.exc_text = redact(record.exc_text)
            if record.stack_info:
                record.stack_info = redact(record.stack_info)
        except Exception:  # noqa: BLE001 - logging never fails because of the scrub
            pass
        return True


def scrub_log_records(logger_name: str = "harness") -> None:
    """Install the scrub on ``logger_name`` (once)."""
    target = logging.getLogger(logger_name)
    if not any(isinstance(f, _ScrubLogRecords) for f in target.filters):
        target.addFilter(_ScrubLogRecords())
