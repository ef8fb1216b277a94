"""What the judge tests share: a small graph run over numbered cases, a scripted judge whose
mistakes are known, people who label its runs, and the command line run in this process."""

from __future__ import annotations

import shlex
from collections.abc import Iterable
from typing import Any, TypedDict

import pytest
from langgraph.graph import END, START, StateGraph

from harness import Score

CASES = 40
#: The runs a person finds helpful: every case whose number is not a multiple of 3.
HELPFUL = frozenset(i for i in range(CASES) if i % 3)
#: Where the scripted judge is wrong.
JUDGE_WRONG = frozenset({1, 5, 9})
#: Where bob, the second person, disagrees with alice.
BOB_DIFFERS = frozenset({2, 7, 11, 30})


class State(TypedDict, total=False):
    n: int
    answer: str


def numbered_graph(broken: Iterable[int] = (), failing: Iterable[int] = ()):
    """Answers case n with ``answer n``; a broken case answers wrong, a failing one raises."""
    broken, failing = frozenset(broken), frozenset(failing)

    def answer(state: State) -> State:
        n = state["n"]
        if n in failing:
            raise RuntimeError(f"case {n} failed")
        return {"answer": f"answer {n + 1000 if n in broken else n}"}

    builder = StateGraph(State)
    builder.add_node("answer", answer)
    builder.add_edge(START, "answer")
    builder.add_edge("answer", END)
    return builder.compile()


def numbered_cases(n: int = CASES) -> list[dict[str, Any]]:
    return [{"id": f"c{i}", "input": {"n": i}, "reference_answer": f"answer {i}", "answer_path": "answer"}
            for i in range(n)]


def case_number(run: Any) -> int:
    return int(run.case_id[1:])


def helpful_judge(run: Any, case: Any) -> Score:
    """A judge that passes helpful runs at 0.5, wrong on :data:`JUDGE_WRONG`."""
    n = int(case.id[1:])
    good = (n in HELPFUL) != (n in JUDGE_WRONG)
    return Score(0.8 if good else 0.2, good, f"case {n} looks {'helpful' if good else 'unhelpful'}")


helpful_judge.score_source = "llm"  # type: ignore[attr-defined]


def label_everyone(h: Any, experiment: str, people: Iterable[str] = ("alice", "bob")) -> dict[str, int]:
    """alice labels every run of ``experiment`` as :data:`HELPFUL` says, bob differs on
    :data:`BOB_DIFFERS`. Returns run id -> case number."""
    runs = {r["run_id"]: int(r["case_id"][1:]) for r in h.store.rows("runs", columns=["run_id", "case_id"],
                                                                     where={"experiment": experiment})}
    for run_id, n in runs.items():
        for who in people:
            helpful = (n in HELPFUL) != (who == "bob" and n in BOB_DIFFERS)
            h.label(run_id, "helpful", helpful, by=who)
    return runs


def cli(line: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """``harness ...`` run in this process: exit code, stdout, stderr."""
    from harness.cli import main

    capsys.readouterr()
    with pytest.raises(SystemExit) as done:
        main(shlex.split(line)[1:])
    out, err = capsys.readouterr()
    return done.value.code, out, err
