"""Scorers that misbehave in every way the harness must survive (used by test_hostile_scorers).

``good`` is the well-behaved neighbour whose scores must all be kept; each other function is
one row of the table: it hangs, raises what is not an Exception, ends its process, returns
too much, or writes into what it reads.
"""

from __future__ import annotations

import asyncio
import os
import time

from harness import Score


def good(run, case):
    """Passes when the run completed; must be stored for every run, whatever the others do."""
    return Score(1.0 if run.status == "completed" else 0.0, passed=run.status == "completed",
                 explanation=f"answer {run.answer!r}")


def hangs(run, case):
    with open("hangs.started", "a") as mark:  # (so a test knows the command is held by it)
        mark.write(f"{case.id}\n")
    time.sleep(3600)


async def hangs_async(run, case):
    await asyncio.sleep(3600)


async def blocks_its_loop(run, case):
    time.sleep(3600)  # an async scorer that never awaits


def hangs_on_q3(run, case):
    if case.id == "q3":
        time.sleep(3600)
    return 1.0


class Custom(BaseException):
    pass


def base_exception(run, case):
    raise Custom("not an Exception")


def keyboard_interrupt(run, case):
    raise KeyboardInterrupt


def system_exit(run, case):
    raise SystemExit(5)


def sysexit_one(run, case):
    if case.id == "q2":
        raise SystemExit(5)
    return 0.5


def exits_its_process(run, case):
    os._exit(3)


def huge_explanation(run, case):
    return Score(1.0, explanation="x" * 100_000_000)


def huge_name(run, case):
    return {"n" * 10_000_000: 1.0}


def numpy_values(run, case):
    import numpy as np

    return {"np_pass": np.mean([1.0, 1.0, 0.0]) > 0.5, "np_value": np.float32(0.5),
            "np_score": Score(np.int64(2), passed=np.bool_(True))}


def writes_the_answer(run, case):
    run.outputs["answer"] = "overwritten"
    return 1.0


def reads_the_answer(run, case):
    """Runs after writes_the_answer: sees the run as it was stored."""
    return Score(1.0, passed="answer" not in run.outputs, explanation=str(sorted(run.outputs)))


def slow_value(run, case):
    """For concurrent re-scoring: a value that says which command wrote it (HOSTILE_VALUE)."""
    with open(os.environ.get("HOSTILE_MARK", os.devnull), "a") as mark:
        mark.write(f"{case.id}\n")
    time.sleep(float(os.environ.get("HOSTILE_DELAY", "0.05")))
    return float(os.environ.get("HOSTILE_VALUE", "1"))
