"""Two experiments compared by a judge that sees both answers: which does it prefer, case by
case, with its position bias controlled (the statistics are :func:`evaluators.preference`'s).

Runs are paired by case, and a case's repeats in order (A's k-th run with B's k-th; extra
repeats of one side are left out and said). For every pair the judge is asked twice, A's
answer shown first and then B's; a pair is a win, a loss, or a tie when the judge ties or
changes its mind with the order (a position flip, counted).

**The judge**: a LangChain chat model (the built-in pairwise prompt of
:func:`evaluators.prefer_answer`: the question, the case's reference answer, the two answers),
or a function ``fn(case, answer_a, answer_b)`` returning ``"a"``, ``"b"`` or ``"tie"`` (for
its first or second answer), or an object or dict with that ``verdict`` (or ``winner``) and
an ``explanation``; sync or async. A judgement that fails (the model after its retries, or
the function raising or answering anything else) is left out and counted.

**Traced and costed**: each pair's two judgements are one run of the harness (workflow
``pairwise_judge``), so every model call a judge makes through LangChain is recorded with
its tokens and cost, whether or not the judge passes a config; the runs form an experiment
of their own (:func:`judge_experiment_name`), with a ``pairwise`` score per run (1 B
preferred, 0.5 a tie, 0 A preferred). The comparison reports their calls, tokens and cost.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import datetime as dt
import inspect
import math
from collections.abc import Callable, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from evaluators import Judgement, Preference, ScoreResult, SourcedScore, preference, prefer_answer, run_passed

from .dataset import Case
from .errors import ExperimentError
from .scoring import load_function, snapshots

WORKFLOW = "pairwise_judge"
SCORE = "pairwise"
_CHUNK = 500
_VERDICT_WORDS = {"a": "a", "b": "b", "tie": "tie", "1": "a", "2": "b", "first": "a", "second": "b"}

#: The harness handler of the judgement running in this context: LangChain adds it to every
#: model call made there, so a judge's calls are traced without the judge passing a config.
_TRACING: ContextVar[Any] = ContextVar("harness_pairwise_judge", default=None)
_hooked = False


@dataclass(frozen=True)
class PairwiseJudge:
    """A judge of two answers: ``ask(case, first, second) -> ("a" | "b" | "tie", why)`` for
    the answers in the order shown, and its name (``module:function``, or the model's)."""

    name: str
    ask: Callable[[Case, str, str], tuple[str, str]]
    source: str = "code"  # "llm" for a model's judgements


def judge_of(given: Any) -> PairwiseJudge:
    """A :class:`PairwiseJudge` from a chat model, a function, ``"module:function"`` or a
    :class:`PairwiseJudge` (module doc)."""
    if isinstance(given, PairwiseJudge):
        return given
    if isinstance(given, str):
        fn = load_function(given, "--pairwise", "my_judges:prefer")
        return PairwiseJudge(given, _function_judge(fn))
    if hasattr(given, "invoke"):
        name = next((v for v in (getattr(given, "model_name", None), getattr(given, "model", None))
                     if isinstance(v, str) and v), type(given).__name__)
        return PairwiseJudge(name, _model_judge(given), "llm")
    if callable(given):
        module = getattr(given, "__module__", None) or "?"
        return PairwiseJudge(f"{module}:{getattr(given, '__qualname__', type(given).__name__)}",
                             _function_judge(given))
    raise ExperimentError(f"a pairwise judge is a chat model, a function (case, answer_a, answer_b) or "
                          f"'module:function', not {type(given).__name__}")


def _model_judge(model: Any) -> Callable[[Case, str, str], tuple[str, str]]:
    def ask(case: Case, first: str, second: str) -> tuple[str, str]:
        grade = prefer_answer(model, first, second, question=case.input, reference=case.reference_answer)
        if grade.better is None:
            raise RuntimeError(f"the judge failed: {grade.error}")
        return _VERDICT_WORDS[grade.better], grade.reasoning

    return ask


def _function_judge(fn: Callable[..., Any]) -> Callable[[Case, str, str], tuple[str, str]]:
    def ask(case: Case, first: str, second: str) -> tuple[str, str]:
        said = fn(case, first, second)
        if inspect.isawaitable(said):
            said = asyncio.run(_awaited(said))
        return verdict_of(said)

    return ask


async def _awaited(value: Any) -> Any:
    return await value


def verdict_of(said: Any) -> tuple[str, str]:
    """A judge's answer as (``"a"`` | ``"b"`` | ``"tie"``, explanation); ValueError otherwise."""
    why = ""
    if isinstance(said, Mapping):
        why = str(said.get("explanation") or said.get("reasoning") or "")
        said = said.get("verdict", said.get("winner"))
    elif not isinstance(said, str):
        field = next((k for k in ("verdict", "winner", "value") if hasattr(said, k)), None)
        if field is not None:
            why = str(getattr(said, "explanation", None) or getattr(said, "reasoning", None) or "")
            said = getattr(said, field)
            if said is None and field == "winner":  # evaluators.pairwise: no winner is a tie
                said = "tie"
    word = _VERDICT_WORDS.get(said.strip().lower()) if isinstance(said, str) else None
    if word is None:
        raise ValueError(f"a pairwise judge answers 'a', 'b' or 'tie', not {said!r}")
    return word, why


@dataclass(frozen=True)
class PairwiseComparison:
    """Experiment ``b`` against ``a`` as the judge ``judge`` saw them (module doc)."""

    a: str
    b: str
    judge: str
    alpha: float
    preference: Preference
    cases: tuple[dict[str, Any], ...]  # per case: its judgements, outcome
    experiment: str  # where the judge's runs are recorded
    calls: int
    tokens: int
    cost: float | None
    failed: int
    errors: tuple[str, ...]
    warnings: tuple[str, ...]

    @property
    def verdict(self) -> str:
        return self.preference.verdict

    @property
    def regressed(self) -> bool:
        return self.preference.verdict == "regressed"

    @property
    def inconclusive(self) -> bool:
        return self.preference.verdict == "inconclusive"

    def to_dict(self) -> dict[str, Any]:
        return {"a": self.a, "b": self.b, "judge": self.judge, "alpha": self.alpha, **self.preference.to_dict(),
                "judge_runs": {"experiment": self.experiment, "model_calls": self.calls, "tokens": self.tokens,
                               "cost": self.cost},
                "failed_judgements": self.failed, "errors": list(self.errors), "warnings": list(self.warnings),
                "cases": list(self.cases)}


def judge_experiment_name(a: str, b: str, when: dt.datetime | None = None) -> str:
    """``pairwise-<B>-vs-<A>-<UTC time>``: where one comparison's judge runs are recorded."""
    stamp = (when or dt.datetime.now(dt.timezone.utc)).strftime("%Y%m%dT%H%M%SZ")
    name = f"pairwise-{b}-vs-{a}-{stamp}"
    return name if len(name) <= 200 else f"pairwise-{stamp}"


def compare_pairwise(harness: Any, a: str, b: str, judge: Any, *, alpha: float = 0.05, margin: float = 0.05,
                     concurrency: int = 4) -> PairwiseComparison:
    """Ask ``judge`` which of ``a``'s and ``b``'s answers is better, case by case and in
    both orders, and test the preference (module doc)."""
    if a == b:
        raise ExperimentError("pairwise comparison needs two different experiments")
    if concurrency < 1:
        raise ExperimentError("concurrency must be at least 1")
    chosen = judge_of(judge)
    harness.flush()
    store = harness.store
    pairs, warnings = _pairs(store, a, b)
    if not pairs:
        raise ExperimentError(f"{a} and {b} have no case in common to judge")
    answers = {run.run_id: (run, case) for run, case in snapshots(store, [i for p in pairs for i in p[2:]])}
    name = judge_experiment_name(a, b)
    taken = 1
    while store.experiment_record(name) is not None:  # two comparisons within one second
        taken += 1
        name = f"{judge_experiment_name(a, b)}-{taken}"
    started = dt.datetime.now(dt.timezone.utc).isoformat()
    store.save_experiment(name, {"name": name, "target": chosen.name, "compared": [a, b], "started_at": started,
                                 "cases": len({p[0] for p in pairs})})
    _hook()

    def one(pair: tuple[str, int, str, str]) -> tuple[str, int, Judgement | None, str | None, str | None]:
        case_id, k, run_a, run_b = pair
        (snap_a, case), (snap_b, _) = answers[run_a], answers[run_b]
        ans_a, ans_b = snap_a.answer or "", snap_b.answer or ""
        with harness.run(subject=case_id, workflow=WORKFLOW) as run:
            run.set_result(experiment=name, case_id=case_id, repeat_index=k,
                           inputs={"question": case.input, "a": ans_a, "b": ans_b},
                           reference={"compared": [a, b], "runs": [run_a, run_b], "judge": chosen.name})
            token = _TRACING.set(run.handler)
            try:
                first, why_first = chosen.ask(case, ans_a, ans_b)
                second, why_second = chosen.ask(case, ans_b, ans_a)
                judged = Judgement(first, {"a": "b", "b": "a", "tie": "tie"}[second])
                why = f"A first: {first} ({why_first}); B first: {second} ({why_second})"
                run.set_result(outputs={"a_first": judged.a_first, "b_first": judged.b_first,
                                        "why": [why_first, why_second]})
                return case_id, k, judged, why, run.run_id
            except Exception as exc:  # noqa: BLE001 - a failed judgement is left out and counted
                error = f"case {case_id}: {type(exc).__name__}: {exc}"
                run.set_result(outputs={"error": error})
                return case_id, k, None, error, run.run_id
            finally:
                _TRACING.reset(token)

    with concurrent.futures.ThreadPoolExecutor(min(concurrency, len(pairs))) as pool:
        done = list(pool.map(one, pairs))
    harness.flush()
    by_case: dict[str, list[Judgement]] = {}
    cases: dict[str, dict[str, Any]] = {}
    errors, score_rows = [], []
    for case_id, k, judged, why, run_id in done:
        entry = cases.setdefault(case_id, {"case_id": case_id, "judgements": []})
        if judged is None:
            errors.append(why or "")
            continue
        by_case.setdefault(case_id, []).append(judged)
        entry["judgements"].append({"repeat": k, "a_first": judged.a_first, "b_first": judged.b_first,
                                    "outcome": {1: "b", -1: "a", 0: "tie"}[judged.outcome],
                                    "flipped": judged.flipped})
        value = {1: 1.0, 0: 0.5, -1: 0.0}[judged.outcome]
        score_rows.append(_score_row(run_id, SourcedScore(ScoreResult(SCORE, value, None, why or ""), chosen.source,
                                                          chosen.name)))
    if not by_case:
        raise ExperimentError(f"the judge failed on every pair: {errors[0] if errors else 'nothing judged'}")
    found = preference(list(by_case.values()), alpha=alpha, margin=margin)
    for case_id, entry in cases.items():
        total = sum(j.outcome for j in by_case.get(case_id, []))
        entry["outcome"] = "b" if total > 0 else "a" if total < 0 else "tie"
    if score_rows:
        store.write_scores(score_rows, replace=True, passed=run_passed)
    calls, tokens, cost = _spent(store, [run_id for *_, run_id in done if run_id])
    store.save_experiment(name, {"name": name, "target": chosen.name, "compared": [a, b], "started_at": started,
                                 "finished_at": dt.datetime.now(dt.timezone.utc).isoformat(),
                                 "cases": len(cases), "models": _models(store, [r for *_, r in done if r])})
    return PairwiseComparison(a=a, b=b, judge=chosen.name, alpha=alpha, preference=found,
                              cases=tuple(cases.values()), experiment=name, calls=calls, tokens=tokens, cost=cost,
                              failed=len(errors), errors=tuple(errors[:5]), warnings=tuple(warnings))


def _pairs(store: Any, a: str, b: str) -> tuple[list[tuple[str, int, str, str]], list[str]]:
    """(case, k, A's k-th run, B's k-th run) for every case both ran, and what was left out."""
    runs = {}
    for name in (a, b):
        got: dict[str, list[tuple[int, str]]] = {}
        for r in store.rows("runs", columns=["run_id", "case_id", "repeat_index"], where={"experiment": name}):
            if r["case_id"] is not None:
                got.setdefault(r["case_id"], []).append((r["repeat_index"] or 0, r["run_id"]))
        if not got:
            raise ExperimentError(f"no experiment {name!r} in the store")
        runs[name] = {c: [run for _, run in sorted(v)] for c, v in got.items()}
    warnings, pairs = [], []
    only = {side: [c for c in runs[side] if c not in runs[other]] for side, other in ((a, b), (b, a))}
    for side, ids in only.items():
        if ids:
            warnings.append(f"{len(ids)} case(s) only in {side}, left out: {', '.join(ids[:20])}"
                            + (" …" if len(ids) > 20 else ""))
    unequal = 0
    for case_id, a_runs in runs[a].items():
        b_runs = runs[b].get(case_id)
        if b_runs is None:
            continue
        unequal += len(a_runs) != len(b_runs)
        pairs += [(case_id, k, x, y) for k, (x, y) in enumerate(zip(a_runs, b_runs))]
    if unequal:
        warnings.append(f"{unequal} case(s) have unequal repeats: the k-th runs are paired, the extra ones left out")
    return pairs, warnings


def _score_row(run_id: str | None, scored: SourcedScore) -> dict[str, Any]:
    from ..tracing.record import score_row

    return score_row(run_id or "", scored)


def _spent(store: Any, run_ids: Sequence[str]) -> tuple[int, int, float | None]:
    calls = tokens = 0
    costs: list[float | None] = []
    for start in range(0, len(run_ids), _CHUNK):
        for r in store.rows("llm_calls", list(run_ids[start:start + _CHUNK]), columns=["total_tokens", "total_cost"]):
            calls += 1
            tokens += r["total_tokens"] or 0
            costs.append(r["total_cost"])
    known = [c for c in costs if c is not None and math.isfinite(c)]
    return calls, tokens, (math.fsum(known) if len(known) == len(costs) else None)


def _models(store: Any, run_ids: Sequence[str]) -> list[str]:
    seen: set[str] = set()
    for start in range(0, len(run_ids), _CHUNK):
        seen.update(r["model"] for r in store.rows("llm_calls", list(run_ids[start:start + _CHUNK]),
                                                    columns=["model"]) if r["model"])
    return sorted(seen)


def _hook() -> None:
    """Register :data:`_TRACING` with LangChain once (module doc)."""
    global _hooked
    if not _hooked:
        from langchain_core.tracers.context import register_configure_hook

        register_configure_hook(_TRACING, inheritable=True)
        _hooked = True
