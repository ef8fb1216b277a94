"""A local HTTP server (127.0.0.1) that speaks Groq's OpenAI-compatible chat-completions API
(``POST /openai/v1/chat/completions``, the path ChatGroq calls under its ``base_url``).

Answers come from the offline analyst's rules (so the workflow's prompts get meaningful
answers), labelled with the model the request named, with tool calls when the request
forces a tool and token usage in ``usage`` (``server.usage_details`` adds the details of a
cache hit or of reasoning, as Groq reports them). Failures on demand: ``server.script`` is a list
of statuses to answer first (e.g. ``[429, 503]``), each with ``Retry-After: 0``; every
request is recorded (path, headers, body).
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

from langchain_core.messages import AIMessage, HumanMessage, SystemMessage

from tests.support.loopback import serving

from workflows import OfflineAnalyst

PATH = "/openai/v1/chat/completions"


@dataclass
class GroqServer:
    url: str
    requests: list[dict[str, Any]] = field(default_factory=list)
    script: list[int] = field(default_factory=list)  # statuses to answer before answering normally
    #: (prompt tokens, completion tokens) -> extra ``usage`` keys, e.g. ``prompt_tokens_details``
    usage_details: Callable[[int, int], dict[str, Any]] | None = None

    @property
    def completions(self) -> int:
        return sum(1 for r in self.requests if r["status"] == 200)


def _messages(raw: list[dict[str, Any]]) -> list[Any]:
    kinds = {"system": SystemMessage, "user": HumanMessage, "assistant": AIMessage}
    return [kinds.get(m.get("role"), HumanMessage)(content=m.get("content") or "") for m in raw]


def completion(body: dict[str, Any],
               details: Callable[[int, int], dict[str, Any]] | None = None) -> dict[str, Any]:
    """The chat-completions answer for one request body (``details``: see GroqServer.usage_details)."""
    analyst = OfflineAnalyst(temperature=0.0)
    kwargs = {"tools": body["tools"], "tool_choice": body.get("tool_choice")} if body.get("tools") else {}
    message = analyst.invoke(_messages(body.get("messages") or []), **kwargs)
    usage = message.usage_metadata or {}
    tool_calls = [{"id": c["id"], "type": "function",
                   "function": {"name": c["name"], "arguments": json.dumps(c["args"])}} for c in message.tool_calls]
    return {
        "id": f"chatcmpl-{uuid.uuid4().hex[:12]}", "object": "chat.completion", "created": int(time.time()),
        "model": body.get("model"), "system_fingerprint": "fp_local",
        "choices": [{"index": 0, "finish_reason": "tool_calls" if tool_calls else "stop", "logprobs": None,
                     "message": {"role": "assistant", "content": None if tool_calls else message.content,
                                 **({"tool_calls": tool_calls} if tool_calls else {})}}],
        "usage": {"prompt_tokens": usage.get("input_tokens", 0), "completion_tokens": usage.get("output_tokens", 0),
                  "total_tokens": usage.get("total_tokens", 0),
                  **(details(usage.get("input_tokens", 0), usage.get("output_tokens", 0)) if details else {})},
        "x_groq": {"id": f"req_{uuid.uuid4().hex[:12]}"},
    }


@contextmanager
def serve_groq() -> Iterator[GroqServer]:
    """Start the server on a free loopback port; ``server.url`` is ChatGroq's ``base_url``."""
    state = GroqServer(url="")
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - http.server naming
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(length) or b"{}")
            with lock:
                status = state.script.pop(0) if state.script else 200
                state.requests.append({"path": self.path, "headers": dict(self.headers), "body": body, "status": status})
            if self.path != PATH:
                status, payload = 404, {"error": {"message": f"unknown path {self.path}", "type": "invalid_request_error"}}
            elif status != 200:
                payload = {"error": {"message": f"injected status {status}", "type": "rate_limit_exceeded" if status == 429 else "server_error"}}
            else:
                payload = completion(body, state.usage_details)
            raw = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(raw)))
            if status in (429, 503):
                self.send_header("Retry-After", "0")
            self.end_headers()
            self.wfile.write(raw)

        def log_message(self, *args: Any) -> None:
            pass

    with serving(Handler) as url:
        state.url = url
        yield state
