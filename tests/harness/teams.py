"""Multi-agent systems as the READMEs of langgraph-supervisor and langgraph-swarm build them,
driven by a scripted tool-calling chat model (LangChain's fake chat models cannot bind tools)."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tools import tool
from langchain_core.utils.function_calling import convert_to_openai_tool


def say(text: str = "", *calls: tuple[str, dict[str, Any]], model: str = "gpt-4o-mini") -> AIMessage:
    """A scripted answer: text, tool calls (name, args) and the usage a provider reports."""
    return AIMessage(
        content=text,
        tool_calls=[{"name": name, "args": args, "id": f"call_{name}_{i}", "type": "tool_call"}
                    for i, (name, args) in enumerate(calls)],
        usage_metadata={"input_tokens": 40, "output_tokens": 9, "total_tokens": 49},
        response_metadata={"model_name": model},
    )


class ScriptedChatModel(BaseChatModel):
    """Answers each call with the next message of its script, tool calls included; binding
    tools keeps the script (the bound model is this one, with the tools as call arguments).
    A script that runs out is an error, so a test notices a call it did not expect."""

    script: list[Any]
    model_name: str = "gpt-4o-mini"

    @property
    def _llm_type(self) -> str:
        return "scripted-chat"

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> Any:
        return self.bind(tools=[convert_to_openai_tool(t) for t in tools], **kwargs)

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None,
                  **kwargs: Any) -> ChatResult:
        if not self.script:
            raise RuntimeError(f"{self.model_name}: the script has no answer left")
        answer = self.script.pop(0)
        if isinstance(answer, BaseException):
            raise answer
        return ChatResult(generations=[ChatGeneration(message=answer.model_copy())])


@tool
def add(a: float, b: float) -> float:
    """Add two numbers."""
    return a + b


@tool
def multiply(a: float, b: float) -> float:
    """Multiply two numbers."""
    return a * b


@tool
def web_search(query: str) -> str:
    """Search the web for information."""
    return "Apple 164,000; Netflix 14,000 (2024)"


def _react_agent(model: BaseChatModel, tools: list[Any], name: str, prompt: str) -> Any:
    from langgraph.prebuilt import create_react_agent

    with warnings.catch_warnings():  # moved to langchain.agents in LangGraph 1.0; the supervisor README uses it
        warnings.simplefilter("ignore")
        return create_react_agent(model=model, tools=tools, name=name, prompt=prompt)


#: The question the supervisor's scripts answer: research finds the headcounts, math adds them.
QUESTION = {"messages": [{"role": "user", "content": "What was the combined headcount of Apple and Netflix in 2024?"}]}


def supervisor_scripts() -> dict[str, list[Any]]:
    """One run of the supervisor README: research, then math, then the answer."""
    return {
        "supervisor": [say("", ("transfer_to_research_expert", {}), model="gpt-4o"),
                       say("", ("transfer_to_math_expert", {}), model="gpt-4o"),
                       say("Apple and Netflix had 178,000 employees in 2024.", model="gpt-4o")],
        "research_expert": [say("", ("web_search", {"query": "Apple Netflix headcount"})),
                            say("Apple: 164,000; Netflix: 14,000.")],
        "math_expert": [say("", ("add", {"a": 164000, "b": 14000})),
                        say("164,000 + 14,000 = 178,000.")],
    }


def supervisor_system(scripts: dict[str, list[Any]] | None = None) -> Any:
    """langgraph-supervisor's README: a supervisor with a research and a math expert, compiled
    (without the warning that it builds with create_react_agent, which LangGraph 1.x marks as moved)."""
    from langgraph_supervisor import create_supervisor

    scripts = scripts if scripts is not None else supervisor_scripts()
    math_agent = _react_agent(ScriptedChatModel(script=scripts["math_expert"]), [add, multiply], "math_expert",
                              "You are a math expert. Always use one tool at a time.")
    research_agent = _react_agent(ScriptedChatModel(script=scripts["research_expert"]), [web_search],
                                  "research_expert", "You are a world class researcher with access to web search. "
                                  "Do not do any math.")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        workflow = create_supervisor(
            [research_agent, math_agent],
            model=ScriptedChatModel(script=scripts["supervisor"], model_name="gpt-4o"),
            prompt="You are a team supervisor managing a research expert and a math expert. For current events, "
                   "use research_agent. For math problems, use math_agent.",
        )
        return workflow.compile()


def swarm_scripts() -> dict[str, list[Any]]:
    """Two turns of the swarm README: "i'd like to speak to Bob", then "what's 5 + 7?"."""
    return {
        "Alice": [say("", ("transfer_to_bob", {})),
                  say("", ("add", {"a": 5, "b": 7})),
                  say("5 + 7 = 12.")],
        "Bob": [say("Ahoy, Bob here! What be yer question?"),
                say("", ("transfer_to_alice", {}))],
    }


def swarm_system(scripts: dict[str, list[Any]] | None = None, checkpointer: Any = None) -> Any:
    """langgraph-swarm's README: Alice (an addition expert) and Bob (a pirate) handing off to each other."""
    from langchain.agents import create_agent
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph_swarm import create_handoff_tool, create_swarm

    scripts = scripts if scripts is not None else swarm_scripts()
    alice = create_agent(ScriptedChatModel(script=scripts["Alice"]),
                         tools=[add, create_handoff_tool(agent_name="Bob", description="Transfer to Bob")],
                         system_prompt="You are Alice, an addition expert.", name="Alice")
    bob = create_agent(ScriptedChatModel(script=scripts["Bob"]),
                       tools=[create_handoff_tool(agent_name="Alice",
                                                  description="Transfer to Alice, she can help with math")],
                       system_prompt="You are Bob, you speak like a pirate.", name="Bob")
    return create_swarm([alice, bob], default_active_agent="Alice").compile(
        checkpointer=checkpointer if checkpointer is not None else InMemorySaver())


def transcript(output: dict[str, Any]) -> list[tuple[Any, ...]]:
    """The messages of a graph's answer as what they say (ids left out: the handoff back to the
    supervisor makes new ones each run)."""
    return [(m.type, m.content, getattr(m, "name", None),
             tuple((c["name"], tuple(sorted(c["args"].items()))) for c in getattr(m, "tool_calls", None) or ()))
            for m in output["messages"]]
