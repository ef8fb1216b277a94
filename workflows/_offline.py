"""The offline analyst: a deterministic LangChain chat model that answers the workflow's
prompts by the documented rules of :mod:`workflows._rules`, over the DATA block of the prompt.

It behaves like a hosted chat model where the harness can see it: ``bind_tools`` and
``with_structured_output`` work (it answers with a tool call for the requested schema),
every response reports ``usage_metadata`` (tokens estimated as ``ceil(characters / 4)``) and
``response_metadata["model_name"]``. At temperature 0 it is deterministic; at T > 0 it adds
seeded variation, seeded from the prompt, the instance's ``seed`` and a per-instance call
counter, so repeated runs differ the way a sampled model's would, reproducibly.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
import threading
import uuid
from collections.abc import Callable, Sequence
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.language_models.chat_models import LangSmithParams
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import PrivateAttr

from . import _judge_rules, _rules
from ._prompts import extract_data

OFFLINE_MODELS: tuple[str, ...] = ("offline-analyst-1", "offline-analyst-lite")


def estimate_tokens(text: str) -> int:
    """``ceil(len(text) / 4)``: the usual characters-per-token rule of thumb."""
    return math.ceil(len(text) / 4)


class OfflineAnalyst(BaseChatModel):
    """A chat model that needs no network: ``offline-analyst-1`` or ``offline-analyst-lite``."""

    model_name: str = "offline-analyst-1"
    temperature: float = 0.0
    seed: int = 0
    _calls: int = PrivateAttr(default=0)
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    def model_post_init(self, context: Any) -> None:
        if self.model_name not in OFFLINE_MODELS:
            raise ValueError(f"unknown offline model {self.model_name!r}; choose one of {', '.join(OFFLINE_MODELS)}")
        if not 0.0 <= self.temperature <= 2.0:
            raise ValueError(f"temperature must be within 0-2, got {self.temperature}")

    @property
    def _llm_type(self) -> str:
        return "offline-analyst"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"model_name": self.model_name, "temperature": self.temperature, "seed": self.seed}

    def _get_ls_params(self, stop: list[str] | None = None, **kwargs: Any) -> LangSmithParams:
        return LangSmithParams(ls_provider="offline", ls_model_name=self.model_name, ls_model_type="chat",
                               ls_temperature=self.temperature)

    def bind_tools(
        self,
        tools: Sequence[dict[str, Any] | type | Callable | BaseTool],
        *,
        tool_choice: str | None = None,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, AIMessage]:
        """Bind tool schemas; the model then answers with one call of the first (or chosen) tool."""
        formatted = [convert_to_openai_tool(t) for t in tools]
        return self.bind(tools=formatted, tool_choice=tool_choice, **kwargs)

    # --- generation -----------------------------------------------------------------------
    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        prompt = "\n\n".join(_text(m) for m in messages)
        with self._lock:
            self._calls += 1
            call = self._calls
        rng = None
        if self.temperature > 0:
            digest = hashlib.sha256(f"{self.seed}:{call}:{prompt}".encode()).digest()
            rng = random.Random(int.from_bytes(digest[:8], "big"))
        tool = _chosen_tool(kwargs.get("tools") or [], kwargs.get("tool_choice"))
        answer = self._answer(prompt, tool, rng)
        body = json.dumps(answer, ensure_ascii=False)
        if tool is not None:
            message = AIMessage(content="", tool_calls=[{"name": tool["function"]["name"], "args": answer,
                                                        "id": f"call_{uuid.uuid4().hex[:24]}", "type": "tool_call"}])
        else:
            message = AIMessage(content=body)
        usage = {"input_tokens": estimate_tokens(prompt), "output_tokens": estimate_tokens(body)}
        usage["total_tokens"] = usage["input_tokens"] + usage["output_tokens"]
        message.usage_metadata = usage  # type: ignore[assignment]
        message.response_metadata = {"model_name": self.model_name, "finish_reason": "tool_calls" if tool else "stop",
                                     "model_provider": "offline"}
        token_usage = {"prompt_tokens": usage["input_tokens"], "completion_tokens": usage["output_tokens"],
                       "total_tokens": usage["total_tokens"]}
        return ChatResult(generations=[ChatGeneration(message=message)],
                          llm_output={"model_name": self.model_name, "token_usage": token_usage})

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return self._generate(messages, stop, None, **kwargs)

    def _answer(self, prompt: str, tool: dict[str, Any] | None, rng: random.Random | None) -> dict[str, Any]:
        """Which rule answers: the DATA block's ``task``, else the requested schema, else the
        judge's grading or pairwise prompt."""
        data = extract_data(prompt)
        name = (tool or {}).get("function", {}).get("name", "")
        task = data.get("task") or {"CompanyInfo": "company_parser", "ToolSelection": "tool_selection",
                                    "CreditAssessment": "credit_synthesis"}.get(name, "")
        lite = self.model_name == "offline-analyst-lite"
        if task == "company_parser":
            return _rules.parse_company(data)
        if task == "tool_selection":
            return _rules.select_tools(data, lite=lite)
        if task == "credit_synthesis":
            return _rules.assess_credit(data, lite=lite, rng=rng, temperature=self.temperature)
        if _judge_rules.is_judge_prompt(prompt):
            return _judge_rules.judge_answer(prompt)
        if _judge_rules.is_answer_prompt(prompt):
            return _judge_rules.answer_grade(prompt)
        if _judge_rules.is_pairwise_prompt(prompt):
            return _judge_rules.pairwise_answer(prompt)
        if _judge_rules.is_answer_pairwise_prompt(prompt):
            return _judge_rules.answer_preference(prompt)
        return {"error": "offline-analyst answers the credit workflow's prompts only"}


def _text(message: BaseMessage) -> str:
    content = message.content
    if isinstance(content, str):
        return content
    return "\n".join(part.get("text", "") if isinstance(part, dict) else str(part) for part in content)


def _chosen_tool(tools: list[dict[str, Any]], choice: Any) -> dict[str, Any] | None:
    if not tools:
        return None
    if isinstance(choice, str) and choice not in ("any", "auto", "required", "none"):
        for t in tools:
            if t["function"]["name"] == choice:
                return t
    if isinstance(choice, dict):
        wanted = (choice.get("function") or {}).get("name")
        for t in tools:
            if t["function"]["name"] == wanted:
                return t
    return tools[0]
