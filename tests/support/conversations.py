"""Human-in-the-loop agents for the thread tests: real LangGraph graphs that call
``interrupt(...)`` in a node, in a subgraph's node, in a tool and several times in one node,
over a deterministic chat model that reports its token usage (so a thread has tokens and a
cost to add up)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages
from langgraph.types import interrupt
from typing_extensions import TypedDict

#: A priced model of the bundled table: a thread's cost is then known.
MODEL = "llama-3.1-8b-instant"


class DeskModel(BaseChatModel):
    """The refund desk's model: asks for the ``refund`` tool with the amount named in the
    last question, then reports what the tool said; answers anything else plainly."""

    model_name: str = MODEL

    @property
    def _llm_type(self) -> str:
        return "refund-desk-test-model"

    def bind_tools(self, tools: Any, **kwargs: Any) -> DeskModel:
        return self

    def _generate(self, messages: list[BaseMessage], stop=None, run_manager=None, **kwargs: Any) -> ChatResult:
        last = messages[-1]
        usage = {"input_tokens": 30 + len(messages), "output_tokens": 8, "total_tokens": 38 + len(messages)}
        meta = {"model_name": self.model_name}
        amount = re.search(r"\$(\d+)", str(last.content)) if isinstance(last, HumanMessage) else None
        if isinstance(last, ToolMessage):
            message = AIMessage(content=f"Done: {last.content}.", usage_metadata=usage, response_metadata=meta)
        elif amount:
            message = AIMessage(content="", tool_calls=[{"name": "refund", "args": {"amount": int(amount[1])},
                                                          "id": f"call-{len(messages)}"}],
                                usage_metadata=usage, response_metadata=meta)
        else:
            message = AIMessage(content=f"You said: {last.content}", usage_metadata=usage, response_metadata=meta)
        return ChatResult(generations=[ChatGeneration(message=message)])


@tool
def refund(amount: int) -> str:
    """Refund an amount of dollars, once a person approves it."""
    answer = interrupt({"question": f"Refund ${amount}?", "amount": amount})
    return f"refunded ${amount}" if str(answer).lower() in ("yes", "y", "approve") else "refund declined"


def refund_desk(checkpointer: Any = None):
    """``create_react_agent`` with a tool that asks a person before it refunds."""
    import warnings

    from langgraph.prebuilt import create_react_agent

    with warnings.catch_warnings():  # (it moved to langchain.agents; the prebuilt one is what users have)
        warnings.simplefilter("ignore", DeprecationWarning)
        return create_react_agent(DeskModel(), [refund], checkpointer=checkpointer or InMemorySaver(),
                                  name="refund_desk")


class Chat(TypedDict, total=False):
    messages: Annotated[list, add_messages]
    approved: str
    note: str


def approval_graph(checkpointer: Any = None, *, never_sends: bool = False, compiled_with: bool = True):
    """draft (a model call) -> approve (``interrupt`` asks a person) -> send: the answer
    approves or declines the draft (``never_sends``: a regressed version that declines every
    draft); ``compiled_with=False``: compiled without a checkpointer."""

    def draft(state: Chat) -> dict:
        return {"messages": [DeskModel().invoke(state["messages"])]}

    def approve(state: Chat) -> dict:
        answer = interrupt({"question": "Send this reply?", "draft": state["messages"][-1].content})
        return {"approved": str(answer)}

    def send(state: Chat) -> dict:
        sent = state.get("approved", "").lower() == "yes" and not never_sends
        return {"messages": [AIMessage(content="Sent." if sent else "Not sent.")]}

    g = StateGraph(Chat)
    g.add_node("draft", draft)
    g.add_node("approve", approve)
    g.add_node("send", send)
    g.add_edge(START, "draft")
    g.add_edge("draft", "approve")
    g.add_edge("approve", "send")
    g.add_edge("send", END)
    return g.compile(checkpointer=checkpointer or InMemorySaver()) if compiled_with else g.compile()


def two_questions(checkpointer: Any = None):
    """One node that asks twice: each invocation stops at the next question."""

    def ask(state: Chat) -> dict:
        name = interrupt("Your name?")
        city = interrupt("Your city?")
        return {"note": f"{name} from {city}", "messages": [AIMessage(content=f"Hello {name} from {city}")]}

    g = StateGraph(Chat)
    g.add_node("ask", ask)
    g.add_edge(START, "ask")
    g.add_edge("ask", END)
    return g.compile(checkpointer=checkpointer or InMemorySaver())


def nested_question(checkpointer: Any = None):
    """The question is asked in a subgraph's node (``review`` inside the node ``desk``), and
    then two parallel nodes ask at once (answered together with ``Command(resume={id: ...})``)."""

    def review(state: Chat) -> dict:
        return {"note": str(interrupt("Inner: approve the plan?"))}

    inner = StateGraph(Chat)
    inner.add_node("review", review)
    inner.add_edge(START, "review")
    inner.add_edge("review", END)

    def legal(state: Chat) -> dict:
        return {"messages": [AIMessage(content=f"legal: {interrupt('Legal ok?')}")]}

    def finance(state: Chat) -> dict:
        return {"messages": [AIMessage(content=f"finance: {interrupt('Finance ok?')}")]}

    g = StateGraph(Chat)
    g.add_node("desk", inner.compile())
    g.add_node("legal", legal)
    g.add_node("finance", finance)
    g.add_edge(START, "desk")
    g.add_edge("desk", "legal")
    g.add_edge("desk", "finance")
    g.add_edge("legal", END)
    g.add_edge("finance", END)
    return g.compile(checkpointer=checkpointer or InMemorySaver())


class Step(TypedDict, total=False):
    n: int
    answer: str
    ask: bool


def steps_graph(checkpointer: Any = None):
    """work -> approve: each input stops at a question (unless ``ask`` is false), each resume
    answers it; a small state, so a thread of a thousand turns costs what its turns do."""

    def work(state: Step) -> dict:
        return {"n": state.get("n", 0) + 1}

    def approve(state: Step) -> dict:
        if not state.get("ask", True):
            return {"answer": "auto"}
        return {"answer": str(interrupt(f"approve step {state.get('n')}?"))}

    g = StateGraph(Step)
    g.add_node("work", work)
    g.add_node("approve", approve)
    g.add_edge(START, "work")
    g.add_edge("work", "approve")
    g.add_edge("approve", END)
    return g.compile(checkpointer=checkpointer or InMemorySaver())


@dataclass(frozen=True)
class Conversations:
    """A store of threads: ``desk`` (a ReAct agent's refund asked in a tool, approved, then a
    thank-you), ``waiting`` (a question nobody answered yet), ``nested`` (a question in a
    subgraph, then two asked at once and answered together) and ``failed`` (its second turn
    failed); with runs outside any thread beside them. Each thread's run ids in turn order."""

    path: Path
    threads: dict[str, list[str]]


def record_conversations(path: Path) -> Conversations:
    from langgraph.types import Command

    from harness import Harness
    from tests.harness import graphs

    h = Harness(path, writer="inline")
    threads: dict[str, list[str]] = {}

    def play(graph, thread: str, *inputs, fail_last: bool = False) -> None:
        for i, given in enumerate(inputs):
            run = h.run(workflow=thread.split("-")[0])
            try:
                with run:
                    graph.invoke(given, {"configurable": {"thread_id": thread}, **run.config})
                    if fail_last and i == len(inputs) - 1:
                        raise RuntimeError("the caller gave up on this turn")
            except RuntimeError:
                pass
            threads.setdefault(thread, []).append(run.run_id)

    play(refund_desk(), "desk-0001", {"messages": [("user", "Please refund $40")]}, Command(resume="yes"),
         {"messages": [("user", "thanks")]})
    play(approval_graph(), "waiting-0002", {"messages": [("user", "refund my order")]})
    nested = nested_question()
    play(nested, "nested-0003", {"messages": []}, Command(resume="go"))
    asked = nested.get_state({"configurable": {"thread_id": "nested-0003"}}).interrupts
    play(nested, "nested-0003", Command(resume={i.id: f"ok: {i.value}" for i in asked}))
    play(two_questions(), "failed-0004", {"messages": []}, Command(resume="Ada"), fail_last=True)
    with h.run(workflow="plain") as run:
        graphs.sequential().invoke({"log": []}, run.config)
    h.close()
    return Conversations(path, threads)

