"""A budget for scorers' model calls: what they cost counts against ``--max-cost`` per window.

A scorer's model calls are seen whether or not it passes a config: while a scorer runs, a
LangChain callback handler sits in a context variable registered with LangChain's
``register_configure_hook`` (the way ``get_usage_metadata_callback`` sees every call in its
``with`` block), so every chat model or LLM the scorer calls, however deep, reports its start
and end to it. Before each call starts it asks the store for room in the window
(:func:`harness.store.spend.hold`); a call refused there raises :class:`BudgetExhausted` in the
scorer, and the run is skipped by budget for that scorer (never an error score, even if the
scorer caught the exception). When the call ends, its tokens (``usage_metadata``, else the
provider's ``token_usage``) are priced with :mod:`harness.costs` for the model the response
names, and added to the window's spend. The worker also skips a scorer that spends (a judge,
or one seen making a model call) without calling it once the window is spent.
"""

from __future__ import annotations

import functools
import inspect
import logging
import time
import uuid
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.tracers.context import register_configure_hook

from .. import costs
from ..store import spend
from .durations import spoken

#: How an error score says its run was skipped by budget (the exception's name leads it).
REFUSAL = "BudgetExhausted"
#: Seconds between asks for room while the calls in flight hold the rest of the budget.
WAIT_SECONDS = 0.05


class BudgetExhausted(RuntimeError):
    """A scorer's model call was refused: the window's budget is spent."""


@dataclass(frozen=True, slots=True)
class Budget:
    """At most ``max_cost`` USD of scorers' model calls per ``per`` seconds."""

    max_cost: float
    per: float

    def __post_init__(self) -> None:
        if isinstance(self.max_cost, bool) or not isinstance(self.max_cost, (int, float)) or not self.max_cost > 0:
            raise ValueError(f"--max-cost is an amount of USD above 0, not {self.max_cost!r}")
        if not self.per > 0:
            raise ValueError(f"--per is a length of time above 0, not {self.per!r}")

    def __str__(self) -> str:
        return f"${self.max_cost:g} per {spoken(self.per)}"


_active: ContextVar[ScoringBudgetMeter | None] = ContextVar("harness_scoring_budget", default=None)
register_configure_hook(_active, inheritable=True)


class _QuietRefusals(logging.Filter):
    """LangChain logs a warning for every exception a callback handler raises, even one it
    raises on purpose; a refused call is counted, not logged."""

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args if isinstance(record.args, tuple) else ()
        return not (len(args) == 3 and args[0] == "ScoringBudgetMeter" and REFUSAL in str(args[2]))


logging.getLogger("langchain_core.callbacks.manager").addFilter(_QuietRefusals())


class CostMeter:
    """Holds one budget for the scorers of a worker (or of a harness), in the store's
    ledger shared with every other worker of the store."""

    def __init__(self, store: Any, budget: Budget, *, hold_seconds: float) -> None:
        self.store, self.budget, self.hold_seconds = store, budget, hold_seconds
        self.spenders: set[str] = set()  # scorers seen making model calls (by name)
        self.unpriced: set[str] = set()  # models whose calls had no price (said once each)

    def saw_unpriced(self, model: str | None) -> None:
        """Say once per model, as it happens, that its calls' cost is unknown to the budget."""
        name = model or "(unnamed)"
        if name not in self.unpriced:
            self.unpriced.add(name)
            logging.getLogger("harness").warning(
                "harness: model %s has no price: its calls are counted but not priced against the budget of %s "
                "(give its price with --prices)", name, self.budget)

    def spent(self) -> bool:
        """Whether the window now running is spent."""
        return spend.current(self.store, self.budget.per).spent >= self.budget.max_cost

    def metered(self, fn: Any, name: str) -> Any:
        """``fn`` whose model calls count against the budget (sync or async, as ``fn`` is)."""
        if inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(getattr(fn, "__call__", None)):
            @functools.wraps(fn)
            async def call_async(run: Any, case: Any) -> Any:
                meter = ScoringBudgetMeter(self, name)
                token = _active.set(meter)
                try:
                    result = await fn(run, case)
                except Exception as exc:
                    meter.outcome(None, exc)
                    raise
                finally:
                    _active.reset(token)
                return meter.outcome(result)

            return call_async

        @functools.wraps(fn)
        def call(run: Any, case: Any) -> Any:
            meter = ScoringBudgetMeter(self, name)
            token = _active.set(meter)
            try:
                result = fn(run, case)
                if inspect.isawaitable(result):  # a sync function returning a coroutine
                    import asyncio

                    result = asyncio.run(_awaited(result))
            except Exception as exc:
                meter.outcome(None, exc)
                raise
            finally:
                _active.reset(token)
            return meter.outcome(result)

        return call


async def _awaited(awaitable: Any) -> Any:
    return await awaitable


class ScoringBudgetMeter(BaseCallbackHandler):
    """The callback handler of one scorer call: asks for room before each model call, adds
    its cost after. Raises into the model call (``raise_error``) when the budget is spent."""

    raise_error = True
    run_inline = True

    def __init__(self, owner: CostMeter, scorer: str) -> None:
        self.owner, self.scorer = owner, scorer
        self.holds: dict[Any, str] = {}
        self.models: dict[Any, str | None] = {}
        self.refused = False
        self.cost = 0.0

    def outcome(self, result: Any, error: BaseException | None = None) -> Any:
        """What the scorer gave, unless one of its model calls was refused: then its run is
        skipped by budget, whether the scorer returned something (it caught the refusal) or
        raised something else (a judge that wraps its model's errors)."""
        if self.refused:
            raise BudgetExhausted(f"the scoring budget of {self.owner.budget} is spent for this window") from error
        return result

    # --- a model call starts ---------------------------------------------------------------
    def _start(self, run_id: Any, kwargs: dict[str, Any]) -> None:
        owner = self.owner
        owner.spenders.add(self.scorer)
        params = kwargs.get("invocation_params") or {}
        meta = kwargs.get("metadata") or {}
        self.models[run_id] = params.get("model") or params.get("model_name") or meta.get("ls_model_name")
        hold_id = uuid.uuid4().hex
        while True:
            state, _ = spend.hold(owner.store, hold_id, cap=owner.budget.max_cost, per=owner.budget.per,
                                  timeout=owner.hold_seconds)
            if state == spend.GRANTED:
                self.holds[run_id] = hold_id
                return
            if state == spend.REFUSED:
                self.refused = True
                raise BudgetExhausted(f"the scoring budget of {owner.budget} is spent for this window")
            time.sleep(WAIT_SECONDS)

    def on_chat_model_start(self, serialized: Any, messages: Any, *, run_id: Any, **kwargs: Any) -> None:
        self._start(run_id, kwargs)

    def on_llm_start(self, serialized: Any, prompts: Any, *, run_id: Any, **kwargs: Any) -> None:
        self._start(run_id, kwargs)

    # --- it ends ---------------------------------------------------------------------------
    def on_llm_end(self, response: Any, *, run_id: Any, **kwargs: Any) -> None:
        hold_id = self.holds.pop(run_id, None)
        if hold_id is None:
            return
        model, prompt, completion = _usage(response, self.models.pop(run_id, None))
        priced = costs.cost(model, prompt, completion)
        amount = priced.total_cost if priced is not None else None
        if priced is None:
            self.owner.saw_unpriced(model)
        self.cost += amount or 0.0
        spend.release(self.owner.store, hold_id, cost=amount, priced=priced is not None)

    def on_llm_error(self, error: BaseException, *, run_id: Any, **kwargs: Any) -> None:
        hold_id = self.holds.pop(run_id, None)
        self.models.pop(run_id, None)
        if hold_id is not None:
            response = kwargs.get("response")
            if response is not None:
                model, prompt, completion = _usage(response, None)
                priced = costs.cost(model, prompt, completion)
                spend.release(self.owner.store, hold_id, cost=priced.total_cost if priced else 0.0, priced=True)
            else:  # no answer came: nothing to pay for that is known
                spend.release(self.owner.store, hold_id, cost=0.0, priced=True)


def _usage(response: Any, configured: str | None) -> tuple[str | None, int | None, int | None]:
    """(model, prompt tokens, completion tokens) of an ``LLMResult``: summed over its
    generations' ``usage_metadata``, else its ``llm_output.token_usage``; the model the
    response names, else the one the call was made with."""
    prompt = completion = None
    model = None
    for generations in getattr(response, "generations", None) or ():
        for generation in generations:
            message = getattr(generation, "message", None)
            usage = getattr(message, "usage_metadata", None)
            meta = getattr(message, "response_metadata", None) or {}
            model = model or meta.get("model_name") or meta.get("model")
            if usage:
                prompt = (prompt or 0) + int(usage.get("input_tokens") or 0)
                completion = (completion or 0) + int(usage.get("output_tokens") or 0)
    llm_output = getattr(response, "llm_output", None) or {}
    if prompt is None:
        token_usage = llm_output.get("token_usage") or {}
        if token_usage.get("prompt_tokens") is not None:
            prompt = int(token_usage["prompt_tokens"])
            completion = int(token_usage.get("completion_tokens") or 0)
    model = model or llm_output.get("model_name") or llm_output.get("model") or configured
    return (str(model) if model else None), prompt, completion
