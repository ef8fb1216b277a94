"""Heuristic response-quality metrics: coherence, completeness, length, structure,
vocabulary, and their weighted overall. Deterministic word rules, English only; each score
is in [0, 1]. Where the method's published worked examples disagree with its formulas, the formulas
are followed (see each docstring)."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from ._checks import clamp01, non_negative

QUALITY_WEIGHTS: Mapping[str, float] = MappingProxyType({
    "coherence": 0.25, "completeness": 0.25, "length": 0.20, "structure": 0.15, "vocabulary": 0.15,
})
OPTIMAL_RATIO = 2.5  # optimal response words per prompt word
CONNECTOR_RATE = 0.3  # connectors per sentence that earn the full connector score
WORDS_PER_PARAGRAPH = 100

STOP_WORDS = frozenset("""
a an the is are was were be been being am of to in on for and or but nor with as at by from
into onto about over under than then so if not no yes do does did done can could should would
will shall may might must i you we me us my your our what which who whom whose how why when
where there here some any all each every more most such has have had having also just very
its own same other only up down out off again once both few too s t let lets
""".split())
PRONOUNS = frozenset("it its they them their theirs this that these those he him his she her hers".split())
CONNECTORS = frozenset("""
however therefore furthermore moreover additionally consequently thus hence meanwhile
nevertheless nonetheless similarly likewise finally firstly secondly thirdly instead otherwise
accordingly subsequently besides although because
""".split())
CONNECTOR_PHRASES = (
    "in addition", "for example", "for instance", "as a result", "in contrast", "on the other hand",
    "in conclusion", "in summary", "to summarize", "to sum up",
)
SUMMARY_WORDS = frozenset(
    "conclusion summary overall therefore thus hence ultimately finally consequently summarize summarise".split()
)
SUMMARY_PHRASES = ("in short", "to sum up", "all in all")
TASK_VERBS = frozenset("""
explain describe compare contrast analyze analyse list summarize summarise discuss define
evaluate identify outline give provide suggest recommend assess calculate write name
""".split())
#: Frequent long words that do not count as sophisticated.
COMMON_WORDS = frozenset("""
because through between another however without something everything anything nothing
different important example including business available information possible therefore
although several against general already problem country provide certain whether support
service program company people children morning evening tonight yesterday tomorrow
""".split())


@dataclass(frozen=True, slots=True)
class QualityScore:
    coherence: float
    completeness: float
    length: float
    structure: float
    vocabulary: float
    overall: float


def tokenize(text: str) -> list[str]:
    """Lower-cased words: every non-word character becomes a space."""
    return re.sub(r"[^\w\s]", " ", text.lower()).split()


def sentences(text: str) -> list[str]:
    """Split on runs of ``. ! ?``; blank pieces dropped."""
    return [s.strip() for s in re.split(r"[.!?]+", text) if s.strip()]


def paragraphs(text: str) -> list[str]:
    """Split on blank lines."""
    return [p.strip() for p in re.split(r"\n\s*\n", text) if p.strip()]


def _stem(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def content_words(text: str) -> list[str]:
    """Tokens of 3+ letters that are not stop words or pronouns, plural 's' stripped."""
    return [_stem(w) for w in tokenize(text) if len(w) >= 3 and w not in STOP_WORDS and w not in PRONOUNS]


def _has_phrase(tokens: list[str], phrases: tuple[str, ...]) -> int:
    joined = f" {' '.join(tokens)} "
    return sum(joined.count(f" {p} ") for p in phrases)


def _check(name: str, value: object) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{name} must be a string, got {value!r}")
    return value


def coherence_score(response: str) -> float:
    """``(connector + pronoun + topic) / 3``.

    connector = ``min(connectors / (sentences·0.3), 1)`` (connector words such as however,
    therefore, moreover, and phrases such as "in addition"); pronoun = ``1 − unclear /
    pronouns`` (third-person and demonstrative pronouns; one is unclear when no content word
    precedes it in the response; no pronouns -> 1); topic = ``1 − shifts / sentences``
    (a sentence after the first is a shift when it shares no content word with the sentence
    before and has no connector or pronoun tying it back). Empty -> 0.

    The method's published example ("The weather is nice today. However, it might rain later.
    Therefore, we should bring umbrellas.") prints a connector score of 0.67 and 0.89
    overall; its own formula gives ``min(2 / 0.9, 1) = 1`` and so 1.0 here.
    """
    sents = sentences(_check("response", response))
    if not sents:
        return 0.0
    tokens_by_sentence = [tokenize(s) for s in sents]
    connectors = sum(
        sum(t in CONNECTORS for t in toks) + _has_phrase(toks, CONNECTOR_PHRASES) for toks in tokens_by_sentence
    )
    connector = min(connectors / (len(sents) * CONNECTOR_RATE), 1.0)
    pronouns = unclear = 0
    seen_content = False
    for toks in tokens_by_sentence:
        for t in toks:
            if t in PRONOUNS:
                pronouns += 1
                unclear += not seen_content
            elif len(t) >= 3 and t not in STOP_WORDS:
                seen_content = True
    pronoun = 1.0 - unclear / pronouns if pronouns else 1.0
    shifts = 0
    for prev, cur, toks in zip(sents, sents[1:], tokens_by_sentence[1:], strict=False):
        tied = any(t in CONNECTORS or t in PRONOUNS for t in toks) or _has_phrase(toks, CONNECTOR_PHRASES)
        if not tied and not set(content_words(prev)) & set(content_words(cur)):
            shifts += 1
    topic = 1.0 - shifts / len(sents)
    return clamp01((connector + pronoun + topic) / 3)


def length_score(prompt: str, response: str, ratio: float = OPTIMAL_RATIO) -> float:
    """``max(0, 1 − |ln(response_words / optimal)|)`` with ``optimal = prompt_words·ratio``
    (2.5). The published example: a 3-word prompt and a 9-word response give ``1 − ln(9/7.5) = 0.82``
    (its sample sentence itself has 8 words). Empty response -> 0; a prompt without
    words -> ValueError."""
    p = tokenize(_check("prompt", prompt))
    r = tokenize(_check("response", response))
    if not p:
        raise ValueError("prompt has no words: the optimal length is undefined")
    if non_negative("ratio", ratio) == 0:
        raise ValueError("ratio must be > 0")
    if not r:
        return 0.0
    return max(0.0, 1.0 - abs(math.log(len(r) / (len(p) * ratio))))


def completeness_score(prompt: str, response: str) -> float:
    """``(keyword coverage + question answering + task fulfillment) / 3``.

    keyword coverage = ``0.6·matched/keywords + 0.4·min(response_words / expected, 1)``
    with keywords = the prompt's content words other than task verbs (none -> 1) and
    expected = prompt words × 2.5 (the length ratio is capped at 1 so the part stays in
    [0, 1]); question answering = share of the prompt's questions (sentences ending in "?")
    whose content words the response mentions (no questions -> 1); task fulfillment =
    share of task verbs (explain, describe, compare, ...) whose object words, up to the
    next task verb, the response mentions (no tasks -> 1). Empty response -> 0; a prompt
    without words -> ValueError.
    """
    p_tokens = tokenize(_check("prompt", prompt))
    if not p_tokens:
        raise ValueError("prompt has no words")
    r_tokens = tokenize(_check("response", response))
    if not r_tokens:
        return 0.0
    answer = set(content_words(response))
    keywords = list(dict.fromkeys(w for w in content_words(prompt) if w not in TASK_VERBS))
    matched = sum(w in answer for w in keywords) / len(keywords) if keywords else 1.0
    keyword = 0.6 * matched + 0.4 * min(len(r_tokens) / (len(p_tokens) * OPTIMAL_RATIO), 1.0)
    questions = [q for q in re.findall(r"[^.!?]+[.!?]*", prompt) if q.strip().endswith("?")]
    answered = [not (qw := set(content_words(q))) or bool(qw & answer) for q in questions]
    question = sum(answered) / len(answered) if answered else 1.0
    tasks: list[set[str]] = []
    for sent in sentences(prompt):
        for w in tokenize(sent):
            if w in TASK_VERBS:
                tasks.append(set())
            elif tasks and len(w) >= 3 and w not in STOP_WORDS and w not in PRONOUNS:
                tasks[-1].add(_stem(w))
    done = [not obj or bool(obj & answer) for obj in tasks]
    task = sum(done) / len(done) if done else 1.0
    return clamp01((keyword + question + task) / 3)


def structure_score(response: str, prompt: str = "") -> float:
    """``(paragraph + introduction + conclusion) / 3``.

    paragraph = ``min(paragraphs / ceil(words / 100), 1)``; introduction = 1 when the first
    sentence is longer than 20 characters and contains a topic word (a content word of the
    prompt, or any content word when no prompt is given); conclusion = 1 when the last
    sentence is longer than 15 characters and contains a summary word (in conclusion,
    overall, therefore, thus, ultimately, ...). Empty -> 0.
    """
    words = tokenize(_check("response", response))
    if not words:
        return 0.0
    sents = sentences(response)
    paragraph = min(len(paragraphs(response)) / math.ceil(len(words) / WORDS_PER_PARAGRAPH), 1.0)
    topic = set(content_words(_check("prompt", prompt)))
    first, last = sents[0], sents[-1]
    first_words = set(content_words(first))
    intro = len(first) > 20 and bool(first_words & topic if topic else first_words)
    last_tokens = tokenize(last)
    conclusion = len(last) > 15 and (
        any(t in SUMMARY_WORDS for t in last_tokens) or bool(_has_phrase(last_tokens, SUMMARY_PHRASES))
    )
    return clamp01((paragraph + intro + conclusion) / 3)


def vocabulary_score(response: str) -> float:
    """``(diversity + sophistication + repetition) / 3``.

    diversity = unique words / words; sophistication = words longer than 6 letters that are
    not common words / words; repetition = ``1 − (occurrences of words used more than 3
    times) / words``. Empty -> 0.

    The published example ("The sophisticated algorithm demonstrates remarkable efficiency and
    effectiveness.") counts 3 sophisticated words of 8 and prints 0.79; by its own rule six
    words are longer than 6 letters, so sophistication is 0.75 and the score 0.92 here.
    """
    words = tokenize(_check("response", response))
    if not words:
        return 0.0
    counts = Counter(words)
    diversity = len(counts) / len(words)
    sophistication = sum(len(w) > 6 and w not in COMMON_WORDS for w in words) / len(words)
    repetition = 1.0 - sum(c for c in counts.values() if c > 3) / len(words)
    return clamp01((diversity + sophistication + repetition) / 3)


def quality_score(prompt: str, response: str, weights: Mapping[str, float] | None = None) -> QualityScore:
    """The five metrics and ``overall = Σ w·score / Σ w`` with default weights coherence
    0.25, completeness 0.25, length 0.20, structure 0.15, vocabulary 0.15. Custom weights
    must name all five, be >= 0 and have a positive sum."""
    w = QUALITY_WEIGHTS if weights is None else weights
    if not isinstance(w, Mapping) or set(w) != set(QUALITY_WEIGHTS):
        raise ValueError(f"weights must name exactly {', '.join(QUALITY_WEIGHTS)}, got {weights!r}")
    total = math.fsum(non_negative(f"weight of {k}", v) for k, v in w.items())
    if total == 0:
        raise ValueError("weights must have a positive sum")
    parts = {
        "coherence": coherence_score(response),
        "completeness": completeness_score(prompt, response),
        "length": length_score(prompt, response),
        "structure": structure_score(response, prompt),
        "vocabulary": vocabulary_score(response),
    }
    overall = clamp01(math.fsum(w[k] * v for k, v in parts.items()) / total)
    return QualityScore(**parts, overall=overall)
