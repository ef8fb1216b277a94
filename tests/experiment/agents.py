"""Agents the experiment tests run: an async ReAct agent with a runtime context (the shape of
LangGraph's react-agent template) and a sync graph, over a deterministic tool-calling model."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import Annotated, Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AnyMessage, BaseMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tools import tool
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages
from langgraph.prebuilt import ToolNode
from langgraph.runtime import Runtime
from typing_extensions import TypedDict

CAPITALS = {"france": "Paris", "japan": "Tokyo", "peru": "Lima", "kenya": "Nairobi"}


@tool
def capital_of(country: str) -> str:
    """The capital city of a country."""
    return CAPITALS.get(country.lower(), "unknown")


class ToolCallingModel(BaseChatModel):
    """Asks the tool for the country named last in the question, then answers with what the
    tool said; ``wrong`` answers a fixed wrong city instead (a regressed version)."""

    model_name: str = "acme-mini-2026"
    wrong: bool = False
    delay: float = 0.0

    @property
    def _llm_type(self) -> str:
        return "tool-calling-test-model"

    def bind_tools(self, tools: Any, **kwargs: Any) -> ToolCallingModel:
        return self

    def _generate(self, messages: list[BaseMessage], stop=None, run_manager=None, **kwargs: Any) -> ChatResult:
        last = messages[-1]
        usage = {"input_tokens": 40, "output_tokens": 10, "total_tokens": 50}
        if isinstance(last, ToolMessage):
            city = "Springfield" if self.wrong else last.content
            message = AIMessage(content=f"The capital is {city}.", usage_metadata=usage,
                                response_metadata={"model_name": self.model_name})
        else:
            country = str(last.content).rstrip("?").split()[-1]
            message = AIMessage(content="", tool_calls=[{"name": "capital_of", "args": {"country": country},
                                                          "id": f"call-{country}"}],
                                usage_metadata=usage, response_metadata={"model_name": self.model_name})
        return ChatResult(generations=[ChatGeneration(message=message)])

    async def _agenerate(self, messages, stop=None, run_manager=None, **kwargs: Any) -> ChatResult:
        if self.delay:
            await asyncio.sleep(self.delay)
        return self._generate(messages, stop, run_manager, **kwargs)


class State(TypedDict):
    messages: Annotated[list[AnyMessage], add_messages]


@dataclass
class Context:
    wrong: bool = False
    delay: float = 0.0
    model: str = "acme-mini-2026"


async def call_model(state: State, runtime: Runtime[Context]) -> dict:
    context = runtime.context or Context()
    model = ToolCallingModel(model_name=context.model, wrong=context.wrong, delay=context.delay).bind_tools([capital_of])
    return {"messages": [await model.ainvoke(state["messages"])]}


def route(state: State) -> str:
    return "tools" if state["messages"][-1].tool_calls else END


def react_agent():
    """Async ReAct loop: call_model -> tools -> call_model -> end; needs its runtime context."""
    builder = StateGraph(State, context_schema=Context)
    builder.add_node("call_model", call_model)
    builder.add_node("tools", ToolNode([capital_of]))
    builder.add_edge(START, "call_model")
    builder.add_conditional_edges("call_model", route, ["tools", END])
    builder.add_edge("tools", "call_model")
    return builder.compile()


class Question(TypedDict, total=False):
    question: str
    answer: str
    seen: list


def sync_answer(state: Question) -> dict:
    """Sync node: answers the capital, echoes what it saw (to catch state crossing runs)."""
    if state["question"] == "sleep":
        time.sleep(0.3)
    country = state["question"].rstrip("?").split()[-1]
    return {"answer": CAPITALS.get(country.lower(), "unknown"), "seen": [state["question"]]}


def sync_graph():
    builder = StateGraph(Question)
    builder.add_node("sync_answer", sync_answer)
    builder.add_edge(START, "sync_answer")
    builder.add_edge("sync_answer", END)
    return builder.compile()


app = react_agent()
sync_app = sync_graph()
