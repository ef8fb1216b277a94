"""A scripted LangChain chat model for judge tests: each call takes the next item of its
script, returning it as the answer (a str or an AIMessage) or raising it (an exception)."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult


class ScriptedChatModel(BaseChatModel):
    script: list[Any]
    seen: list[Any]  # (messages, temperature) per call, shared by copies of the model
    model_name: str = "scripted-judge"
    temperature: float = 0.7

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def _generate(self, messages: list[BaseMessage], stop=None, run_manager=None, **kwargs: Any) -> ChatResult:
        self.seen.append((messages, self.temperature))
        item = self.script.pop(0)
        if isinstance(item, BaseException):
            raise item
        message = item if isinstance(item, AIMessage) else AIMessage(
            content=item,
            usage_metadata={"input_tokens": 100, "output_tokens": 20, "total_tokens": 120},
            response_metadata={"model_name": "llama-3.3-70b-versatile"},
        )
        return ChatResult(generations=[ChatGeneration(message=message)])


@pytest.fixture
def scripted():
    def make(*items: Any) -> ScriptedChatModel:
        return ScriptedChatModel(script=list(items), seen=[])
    return make
