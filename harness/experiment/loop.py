"""Running the experiment's coroutines from synchronous code, inside or outside an event loop."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from typing import Any


def in_own_loop(coro: Coroutine[Any, Any, Any]) -> Any:
    """``asyncio.run(coro)``; from inside a running event loop (a notebook), on a thread of its
    own, its result or exception handed back to the caller."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        running = False
    else:
        running = True
    if not running:  # (outside the except block: the graph's exceptions keep no context of ours)
        return asyncio.run(coro)
    out: dict[str, Any] = {}

    def target() -> None:
        try:
            out["value"] = asyncio.run(coro)
        except BaseException as exc:  # noqa: BLE001 - re-raised in the caller's thread
            out["error"] = exc

    thread = threading.Thread(target=target, name="harness-experiment")
    thread.start()
    thread.join()
    if "error" in out:
        raise out["error"]
    return out["value"]
