"""Scorers the online tests hand to workers, in-process and in child processes
(``--scorer tests.online.scorers:NAME``, the repository on ``PYTHONPATH``).

``logged``: sleeps ``$ONLINE_SLEEP`` seconds (default 0), then appends ``run_id pid token``
to ``$ONLINE_LOG`` (one line per call that finished) and returns a passing score whose
explanation names the same pid and token, so a test can tell which call's score was stored.
``answer_ok``: the run's answer contains "ok" (passes), else fails."""

from __future__ import annotations

import os
import time
import uuid

from harness import Score


def logged(run, case):
    time.sleep(float(os.environ.get("ONLINE_SLEEP", "0")))
    token = uuid.uuid4().hex[:12]
    path = os.environ.get("ONLINE_LOG")
    if path:
        with open(path, "a", encoding="utf-8") as log:  # O_APPEND: whole lines from several processes
            log.write(f"{run.run_id} {os.getpid()} {token}\n")
    return Score(1.0, True, f"pid {os.getpid()} token {token}")


def answer_ok(run, case):
    return "ok" in str(run.outputs or "")


def noop(run, case):
    return 1.0
