"""Real LangGraph graphs and LangChain fake chat models used by the tracing tests."""

from __future__ import annotations

import asyncio
import operator
from collections.abc import Iterator
from typing import Annotated, Any, TypedDict

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.tools import tool
from langgraph.graph import END, START, StateGraph
from langgraph.types import RetryPolicy, Send, interrupt


class State(TypedDict, total=False):
    log: Annotated[list, operator.add]
    items: list
    question: str


def reply(text: str, model: str = "llama-3.1-8b-instant", tokens: tuple[int, int] = (11, 7)) -> AIMessage:
    return AIMessage(
        content=text,
        usage_metadata={"input_tokens": tokens[0], "output_tokens": tokens[1], "total_tokens": sum(tokens)},
        response_metadata={"model_name": model},
    )


def fake_model(*texts: str, model: str = "llama-3.1-8b-instant") -> GenericFakeChatModel:
    return GenericFakeChatModel(messages=iter([reply(t, model) for t in texts]))


class StreamingModel(BaseChatModel):
    """Streams its answer word by word; usage arrives on the first and last chunks, as
    providers with ``stream_usage`` report it."""

    answer: str = "the answer is forty two"
    model_name: str = "llama-3.3-70b-versatile"

    @property
    def _llm_type(self) -> str:
        return "streaming-test-model"

    def _generate(self, messages: list[BaseMessage], stop=None, run_manager=None, **kwargs: Any) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=reply(self.answer, self.model_name, (20, 5)))])

    def _stream(self, messages, stop=None, run_manager: CallbackManagerForLLMRun | None = None,
                **kwargs: Any) -> Iterator[ChatGenerationChunk]:
        words = self.answer.split(" ")
        for i, word in enumerate(words):
            usage = None
            if i == 0:
                usage = {"input_tokens": 20, "output_tokens": 0, "total_tokens": 20}
            elif i == len(words) - 1:
                usage = {"input_tokens": 0, "output_tokens": 5, "total_tokens": 5}
            chunk = ChatGenerationChunk(message=AIMessageChunk(
                content=word if i == 0 else " " + word, usage_metadata=usage,
                response_metadata={"model_name": self.model_name} if i == len(words) - 1 else {}))
            if run_manager:
                run_manager.on_llm_new_token(chunk.text, chunk=chunk)
            yield chunk


@tool
def lookup(query: str) -> dict:
    """Look something up."""
    return {"query": query, "hits": 3}


@tool
def broken(query: str) -> str:
    """A tool that always fails."""
    raise ValueError(f"backend unavailable for {query}")


@tool
def outer(query: str, config=None) -> dict:
    """A tool that calls another tool."""
    return {"inner": lookup.invoke({"query": query + "!"})}


def sequential(model=None):
    model = model or fake_model("plan ready", "final answer")

    def plan(state, config):
        model.invoke("make a plan for " + state.get("question", ""), config)
        return {"log": ["plan"]}

    def act(state, config):
        lookup.invoke({"query": "facts"}, config)
        return {"log": ["act"]}

    def answer(state, config):
        model.invoke("answer now", config)
        return {"log": ["answer"]}

    g = StateGraph(State).add_sequence([plan, act, answer])
    g.add_edge(START, "plan")
    g.add_edge("answer", END)
    return g.compile()


def fan_out():
    g = StateGraph(State)
    g.add_node("split", lambda s: {"log": ["split"]})
    g.add_node("left", lambda s, config: (lookup.invoke({"query": "left"}, config), {"log": ["left"]})[1])
    g.add_node("right", lambda s, config: (lookup.invoke({"query": "right"}, config), {"log": ["right"]})[1])
    g.add_node("join", lambda s: {"log": ["join"]})
    g.add_edge(START, "split")
    g.add_edge("split", "left")
    g.add_edge("split", "right")
    g.add_edge(["left", "right"], "join")
    g.add_edge("join", END)
    return g.compile()


def map_reduce():
    def route(state):
        return [Send("work", {"items": [item]}) for item in state["items"]]

    g = StateGraph(State)
    g.add_node("start", lambda s: {"log": ["start"]})
    g.add_node("work", lambda s, config: (lookup.invoke({"query": s["items"][0]}, config),
                                          {"log": [f"work:{s['items'][0]}"]})[1])
    g.add_node("reduce", lambda s: {"log": ["reduce"]})
    g.add_edge(START, "start")
    g.add_conditional_edges("start", route, ["work"])
    g.add_edge("work", "reduce")
    g.add_edge("reduce", END)
    return g.compile()


def with_subgraph():
    inner = StateGraph(State)
    inner.add_node("inner_a", lambda s, config: (lookup.invoke({"query": "deep"}, config), {"log": ["inner_a"]})[1])
    inner.add_node("inner_b", lambda s: {"log": ["inner_b"]})
    inner.add_edge(START, "inner_a")
    inner.add_edge("inner_a", "inner_b")
    inner.add_edge("inner_b", END)
    g = StateGraph(State)
    g.add_node("before", lambda s: {"log": ["before"]})
    g.add_node("child", inner.compile())
    g.add_node("after", lambda s: {"log": ["after"]})
    g.add_edge(START, "before")
    g.add_edge("before", "child")
    g.add_edge("child", "after")
    g.add_edge("after", END)
    return g.compile()


def async_graph(model=None):
    model = model or fake_model("async answer")

    async def fetch(state, config):
        await asyncio.sleep(0)
        await lookup.ainvoke({"query": "async"}, config)
        return {"log": ["fetch"]}

    async def think(state, config):
        await model.ainvoke("think async", config)
        return {"log": ["think"]}

    g = StateGraph(State).add_sequence([fetch, think])
    g.add_edge(START, "fetch")
    g.add_edge("think", END)
    return g.compile()


def single_node(fn, name: str = "only", checkpointer=None):
    """A graph of one node, ``name``, that runs ``fn`` (a function or a compiled subgraph)."""
    g = StateGraph(State)
    g.add_node(name, fn)
    g.add_edge(START, name)
    g.add_edge(name, END)
    return g.compile(checkpointer=checkpointer)


def functional(model=None):
    """A functional-API workflow: an ``@entrypoint`` that runs two ``fetch`` tasks at once,
    then ``digest`` (which runs a subgraph), then ``summarise`` (a model call)."""
    from langgraph.func import entrypoint, task

    model = model or fake_model("summary")
    sub = fan_out()

    @task
    def fetch(query: str) -> dict:
        return lookup.invoke({"query": query})

    @task
    def digest(facts: list) -> list:
        return sub.invoke({"log": []})["log"]

    @task
    def summarise(facts: list) -> str:
        return model.invoke(f"summarise {len(facts)} facts").content

    @entrypoint()
    def research(topic: str) -> str:
        facts = [f.result() for f in [fetch(f"{topic} a"), fetch(f"{topic} b")]]
        digest(facts).result()
        return summarise(facts).result()

    return research


def retried(failures: int):
    """``flaky`` fails its first ``failures`` attempts; its retry policy runs it again in the
    same LangGraph step until it succeeds."""
    attempts = []

    def flaky(state):
        attempts.append(1)
        if len(attempts) <= failures:
            raise ConnectionError(f"attempt {len(attempts)} failed")
        return {"log": ["flaky"]}

    g = StateGraph(State)
    g.add_node("flaky", flaky, retry_policy=RetryPolicy(initial_interval=0.001, jitter=False, retry_on=ConnectionError))
    g.add_node("after", lambda s: {"log": ["after"]})
    g.add_edge(START, "flaky")
    g.add_edge("flaky", "after")
    g.add_edge("after", END)
    return g.compile()


def interrupting():
    from langgraph.checkpoint.memory import InMemorySaver

    def ask(state):
        answer = interrupt("approve?")
        return {"log": [f"ask:{answer}"]}

    g = StateGraph(State)
    g.add_node("prepare", lambda s: {"log": ["prepare"]})
    g.add_node("ask", ask)
    g.add_edge(START, "prepare")
    g.add_edge("prepare", "ask")
    g.add_edge("ask", END)
    return g.compile(checkpointer=InMemorySaver())
