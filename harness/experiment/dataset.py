"""Datasets of cases: read, checked whole before anything runs, hashed.

A dataset is JSONL (one case per line, lines split on ``\\n`` only; blank lines skipped), a
JSON list of cases, or CSV whose ``input`` cell (and ``metadata``, and list cells when they
start with ``[``) hold JSON; list cells may also be comma-separated names. A case has ``id``
(unique) and ``input``, and optionally ``expected_tools``, ``reference_trajectory``,
``reference_answer``, ``answer_check``, ``tolerance``, ``threshold``, ``require_tools``,
``answer_path``, ``subject``, ``metadata``. An unknown field is an error (a misspelt check
must not vanish silently). Every error names the file, the line and the field.

A multi-turn case has ``turns`` instead of ``input``: a conversation played in order on one
thread, each turn ``{"input": ...}`` (what the user says) or ``{"resume": ...}`` (the answer to
the interrupt the turn before stopped at), optionally with ``interrupt`` (true: the turn is
expected to stop at an interrupt; false: to finish; by default a turn followed by a resume
must stop at one and any other must not) and its own ``reference_answer`` (with
``answer_check``, ``tolerance``, ``threshold``). The case's ``reference_answer`` is checked
against the last turn.

A dataset's hash is of its cases, not of its bytes (:func:`cases_sha256`): the same cases
given as JSONL, a JSON list, CSV or a list of dicts in code hash alike, so compare does not
warn that identical cases differ.
"""

from __future__ import annotations

import csv
import hashlib
import json
import math
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evaluators import ANSWER_CHECKS, GRADED_CHECKS, default_check, last_number

from ..inputs import DATASET, InputError, JSONTextError, check_suffix, json_list_items, parse_json, read_lines

FIELDS = ("id", "input", "expected_tools", "reference_trajectory", "reference_answer", "answer_check",
          "tolerance", "threshold", "require_tools", "answer_path", "subject", "metadata", "turns")
#: The fields of one turn of a multi-turn case.
TURN_FIELDS = ("input", "resume", "interrupt", "reference_answer", "answer_check", "tolerance", "threshold")


class DatasetError(ValueError):
    """A dataset that cannot be run: the message names file, line and field."""


@dataclass(frozen=True)
class Turn:
    """One turn of a multi-turn case: what the user says (``input``) or the answer to the
    question the turn before stopped at (``resume``, when ``is_resume``); ``interrupt``:
    whether the turn is expected to stop at an interrupt (None: as the next turn implies);
    its own answer check, if any."""

    input: Any = None
    resume: Any = None
    is_resume: bool = False
    interrupt: bool | None = None
    reference_answer: Any = None
    answer_check: str | None = None
    tolerance: float | None = None
    threshold: float | None = None


@dataclass(frozen=True)
class Case:
    id: str
    input: Any
    expected_tools: tuple[str, ...] | None = None
    reference_trajectory: tuple[str, ...] | None = None
    reference_answer: Any = None
    answer_check: str | None = None  # set whenever reference_answer is
    tolerance: float | None = None
    threshold: float | None = None
    require_tools: bool = False
    answer_path: str | None = None
    subject: str | None = None
    metadata: Mapping[str, Any] | None = None
    line: int = 0  # where the case starts in its file (1-based)
    #: a multi-turn case's conversation (``input`` is then its first turn's input)
    turns: tuple[Turn, ...] | None = None

    def expects_interrupt(self, index: int) -> bool:
        """Whether turn ``index`` (0-based) of a multi-turn case is to stop at an interrupt:
        as it says, else when the next turn answers one."""
        turns = self.turns or ()
        said = turns[index].interrupt
        if said is not None:
            return said
        return index + 1 < len(turns) and turns[index + 1].is_resume


@dataclass(frozen=True)
class Dataset:
    path: str | None  # None for cases given in code
    cases: tuple[Case, ...]
    sha256: str  # of the cases' canonical JSON (cases_sha256)
    extra: Mapping[str, Any] = field(default_factory=dict)


def load_dataset(source: str | Path | Sequence[Mapping[str, Any] | Case]) -> Dataset:
    """The dataset at ``source`` (a path) or of ``source`` (a list of case mappings or
    :class:`Case`); :class:`DatasetError` for anything that would fail later."""
    if isinstance(source, (str, Path)):
        return _load_file(Path(source))
    if isinstance(source, Dataset):
        return source
    items = list(source)
    raw = [(i + 1, c) for i, c in enumerate(items)]
    cases = _cases("dataset", ((line, c if isinstance(c, Mapping) else _as_mapping(c)) for line, c in raw), "item")
    return Dataset(None, cases, cases_sha256(cases))


def cases_sha256(cases: Sequence[Case]) -> str:
    """SHA-256 of the cases in order as canonical JSON: each case's fields as parsed (ids as
    text, the default answer check filled in, list cells as lists, numbers as read; empty
    fields left out), keys sorted, no spaces, UTF-8."""
    text = json.dumps([_as_mapping(c) for c in cases], sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _as_mapping(case: Any) -> dict[str, Any]:
    if isinstance(case, Case):
        out = {k: getattr(case, k) for k in FIELDS if getattr(case, k) not in (None, False)}
        if case.turns is not None:
            out.pop("input", None)
            out["turns"] = [turn_mapping(t) for t in case.turns]
        return out
    raise DatasetError(f"a case must be a mapping with id and input, got {type(case).__name__}")


def _load_file(path: Path) -> Dataset:
    """Read a line (a list item) at a time, the suffix checked before anything is opened
    (see :mod:`harness.inputs` for the limits)."""
    name = str(path)
    try:
        check_suffix(path, DATASET)
        suffix = path.suffix.lower()
        if suffix == ".jsonl":
            rows = _jsonl_rows(name, path)
        elif suffix == ".json":
            rows = json_list_items(path, DATASET)
        else:
            rows = _csv_rows(name, path)
        cases = _cases(name, rows, "line")
    except InputError as exc:
        raise DatasetError(str(exc)) from None
    return Dataset(name, cases, cases_sha256(cases))


def _jsonl_rows(name: str, path: Path) -> Iterator[tuple[int, Any]]:
    for number, line in read_lines(path, DATASET):
        if line.strip(" \t\r"):
            yield number, parse_json(line, name, line=number)


def _csv_rows(name: str, path: Path) -> Iterator[tuple[int, Any]]:
    read = [0]  # the last line read, where the csv module stops on an error

    def lines() -> Iterator[str]:
        for number, line in read_lines(path, DATASET, keepends=True):
            read[0] = number
            yield line

    reader = csv.DictReader(lines())
    try:
        if not reader.fieldnames:
            raise DatasetError(f"{name}:1: the CSV has no header row")
        for row in reader:
            number = reader.line_num
            if None in row:
                raise DatasetError(f"{name}:{number}: more cells than the header has columns")
            case: dict[str, Any] = {}
            for key, cell in row.items():
                if cell is None or cell == "":
                    continue
                case[key] = _csv_cell(name, number, key, cell)
            yield number, case
    except csv.Error as exc:
        raise DatasetError(f"{name}:{read[0]}: not CSV: {exc}") from None


def _csv_cell(name: str, number: int, key: str, cell: str) -> Any:
    if key in ("input", "metadata", "turns") or (key in ("expected_tools", "reference_trajectory")
                                                 and cell.lstrip()[:1] == "["):
        try:
            return parse_json(cell, name, line=number)
        except JSONTextError as exc:
            raise DatasetError(f"{name}:{number}: field {key!r}: not JSON: {exc.problem}") from None
    if key in ("expected_tools", "reference_trajectory"):
        return [part.strip() for part in cell.split(",") if part.strip()]
    if key in ("tolerance", "threshold"):
        try:
            return float(cell)
        except ValueError:
            raise DatasetError(f"{name}:{number}: field {key!r}: not a number: {cell!r}") from None
    if key == "reference_answer":  # a cell that is a number is one (its check defaults to numeric)
        try:
            number = float(cell)
        except ValueError:
            return cell
        return int(number) if number.is_integer() and "." not in cell and "e" not in cell.lower() else number
    if key == "require_tools":
        lowered = cell.strip().lower()
        if lowered not in ("true", "false", "1", "0", "yes", "no"):
            raise DatasetError(f"{name}:{number}: field 'require_tools': true or false, not {cell!r}")
        return lowered in ("true", "1", "yes")
    return cell


def _cases(name: str, rows: Iterator[tuple[int, Any]] | Any, unit: str) -> tuple[Case, ...]:
    cases: list[Case] = []
    seen: dict[str, int] = {}
    for number, raw in rows:
        where = f"{name}:{number}" if unit == "line" else f"{name} item {number}"
        case = _case(where, number, raw)
        if case.id in seen:
            raise DatasetError(f"{where}: field 'id': {case.id!r} is already the id of the case on "
                               f"{unit} {seen[case.id]}")
        seen[case.id] = number
        cases.append(case)
    if not cases:
        raise DatasetError(f"{name}: the dataset has no cases")
    return tuple(cases)


def _case(where: str, number: int, raw: Any) -> Case:
    def fail(key: str, problem: str) -> DatasetError:
        return DatasetError(f"{where}: field {key!r}: {problem}")

    if not isinstance(raw, Mapping):
        raise DatasetError(f"{where}: a case is an object with id and input, not {type(raw).__name__}")
    unknown = [k for k in raw if k not in FIELDS]
    if unknown:
        raise fail(unknown[0], f"unknown field (a case has {', '.join(FIELDS)})")
    if "turns" in raw:
        if raw.get("input") is not None:
            raise fail("input", "a multi-turn case has turns instead (its first turn's input)")
        for key in ("expected_tools", "reference_trajectory", "require_tools"):
            if raw.get(key) not in (None, False):
                raise fail(key, "not for a multi-turn case: a turn checks its interrupt and its answer "
                                "(reference_answer); a thread scorer judges the rest")
    for key in ("id", "input") if "turns" not in raw else ("id",):
        if key not in raw or raw[key] is None:
            raise fail(key, "required")
    case_id = raw["id"]
    if isinstance(case_id, bool) or not isinstance(case_id, (str, int)) or not str(case_id).strip():
        raise fail("id", f"a non-empty text or integer, not {case_id!r}")
    lists = {}
    for key in ("expected_tools", "reference_trajectory"):
        value = raw.get(key)
        if value is None:
            continue
        if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
            raise fail(key, "a list of names (none blank)")
        lists[key] = tuple(value)
    turns = _turns(raw["turns"], fail) if "turns" in raw else None
    if turns is not None and turns[-1].reference_answer is not None and raw.get("reference_answer") is not None:
        raise fail("reference_answer", "the last turn has one already: give it once")
    reference, check, tolerance, threshold = _answer_check(raw, fail, where)
    require_tools = raw.get("require_tools", False)
    if not isinstance(require_tools, bool):
        raise fail("require_tools", f"true or false, not {require_tools!r}")
    if require_tools and "expected_tools" not in lists:
        raise fail("require_tools", "needs expected_tools")
    for key in ("answer_path", "subject"):
        if raw.get(key) is not None and (not isinstance(raw[key], str) or not raw[key].strip()):
            raise fail(key, "a text that is not blank")
    if raw.get("metadata") is not None and not isinstance(raw["metadata"], Mapping):
        raise fail("metadata", "an object")
    return Case(
        id=str(case_id), input=raw["input"] if turns is None else turns[0].input,
        expected_tools=lists.get("expected_tools"),
        reference_trajectory=lists.get("reference_trajectory"), reference_answer=reference,
        answer_check=check, tolerance=tolerance, threshold=threshold, require_tools=require_tools,
        answer_path=raw.get("answer_path"), subject=raw.get("subject"), metadata=raw.get("metadata"), line=number,
        turns=turns,
    )


def turn_mapping(turn: Turn) -> dict[str, Any]:
    """A turn as a dataset gives it (for hashing cases given in code, and a run's reference)."""
    out: dict[str, Any] = {"resume": turn.resume} if turn.is_resume else {"input": turn.input}
    for key in TURN_FIELDS[2:]:
        if getattr(turn, key) is not None:
            out[key] = getattr(turn, key)
    return out


def _turns(value: Any, fail) -> tuple[Turn, ...]:
    """A multi-turn case's ``turns``, each checked (errors name ``turns[i].field``)."""
    if not isinstance(value, list) or not value:
        raise fail("turns", "a non-empty list of turns, each {\"input\": ...} or {\"resume\": ...}")
    out = []
    for i, raw in enumerate(value):
        def turn_fail(key: str, problem: str, i: int = i) -> DatasetError:
            return fail(f"turns[{i}].{key}" if key else f"turns[{i}]", problem)

        if not isinstance(raw, Mapping):
            raise turn_fail("", "a turn is an object: {\"input\": ...} or {\"resume\": ...}")
        unknown = [k for k in raw if k not in TURN_FIELDS]
        if unknown:
            raise turn_fail(unknown[0], f"unknown field (a turn has {', '.join(TURN_FIELDS)})")
        if ("input" in raw) == ("resume" in raw):
            raise turn_fail("", "give input (what the user says) or resume (the answer to the interrupt before), "
                                "one of them")
        if "input" in raw and raw["input"] is None:
            raise turn_fail("input", "required")
        if i == 0 and "resume" in raw:
            raise turn_fail("resume", "the first turn starts the conversation on a fresh thread: give input")
        if raw.get("interrupt") is not None and not isinstance(raw["interrupt"], bool):
            raise turn_fail("interrupt", f"true or false, not {raw['interrupt']!r}")
        reference, check, tolerance, threshold = _answer_check(raw, turn_fail, "")
        out.append(Turn(input=raw.get("input"), resume=raw.get("resume"), is_resume="resume" in raw,
                        interrupt=raw.get("interrupt"), reference_answer=reference, answer_check=check,
                        tolerance=tolerance, threshold=threshold))
    return tuple(out)


def _answer_check(raw: Mapping[str, Any], fail, where: str) -> tuple[Any, str | None, float | None, float | None]:
    """A case's (or a turn's) answer check: its reference, its check (the default for the
    reference when not given), tolerance and threshold, each checked."""
    reference = raw.get("reference_answer")
    check = raw.get("answer_check")
    if check is not None and check not in ANSWER_CHECKS:
        raise fail("answer_check", f"one of {', '.join(ANSWER_CHECKS)}, not {check!r}")
    if check is not None and reference is None:
        raise fail("reference_answer", f"required by answer_check {check!r}")
    if reference is not None and check is None:
        check = default_check(reference)
    tolerance = _number(raw, "tolerance", fail)
    threshold = _number(raw, "threshold", fail)
    if tolerance is not None and (check != "numeric" or tolerance < 0):
        raise fail("tolerance", "a number >= 0 for answer_check 'numeric'")
    if threshold is not None and (check not in GRADED_CHECKS or not 0 <= threshold <= 1):
        raise fail("threshold", "a number in [0, 1] for answer_check 'semantic' or 'judge' "
                                "(the other checks pass at 1.0)")
    if check == "numeric":
        refs = reference if isinstance(reference, list) else [reference]
        if len(refs) != 1 or last_number(refs[0]) is None:
            raise fail("reference_answer", f"a number for answer_check 'numeric', not {reference!r}")
    elif check is not None:
        refs = reference if isinstance(reference, list) else [reference]
        if not refs or not all(isinstance(r, (str, int, float)) and not isinstance(r, bool) for r in refs):
            raise fail("reference_answer", "a text (or a list of acceptable texts)")
        if check == "regex":
            for pattern in refs:
                try:
                    re.compile(str(pattern))
                except re.error as exc:
                    raise fail("reference_answer", f"not a regular expression: {exc}") from None
        if check == "semantic":
            _need_semantic(where)
    return reference, check, tolerance, threshold


def _number(raw: Mapping[str, Any], key: str, fail) -> float | None:
    value = raw.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise fail(key, f"a number, not {value!r}")
    return float(value)


def _need_semantic(where: str) -> None:
    import importlib.util

    if importlib.util.find_spec("sentence_transformers") is None:
        raise DatasetError(f"{where}: field 'answer_check': 'semantic' needs the semantic extra: "
                           "pip install 'langgraph-harness[semantic]'")
