"""Model providers: ``offline`` (default) and ``groq``, each with a primary and a secondary
model. Configuration: argument > ``$HARNESS_PROVIDER`` > ``offline``.

The Groq model retries 429 and 5xx responses and connection errors with tenacity
(exponential backoff with jitter, honouring ``Retry-After``); the Groq SDK's own retries
are switched off so one policy applies.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from dataclasses import dataclass
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_groq import ChatGroq
from langchain_core.outputs import ChatResult
from tenacity import AsyncRetrying, Retrying, retry_if_exception, stop_after_attempt

from evaluators import RetryAfterWait
from harness import config

from ._offline import OFFLINE_MODELS, OfflineAnalyst



@dataclass(frozen=True, slots=True)
class Provider:
    name: str
    primary: str
    secondary: str


PROVIDERS: Mapping[str, Provider] = MappingProxyType({
    "offline": Provider("offline", "offline-analyst-1", "offline-analyst-lite"),
    "groq": Provider("groq", "llama-3.3-70b-versatile", "llama-3.1-8b-instant"),
})


class ProviderError(ValueError):
    """A provider cannot be used as configured (unknown name, missing key)."""


def resolve_provider(name: str | None = None) -> Provider:
    """Argument > ``$HARNESS_PROVIDER`` > ``offline``."""
    chosen = (config.value("HARNESS_PROVIDER", name) or "offline").strip().lower()
    if chosen not in PROVIDERS:
        raise ProviderError(f"unknown provider {chosen!r}; choose one of {', '.join(PROVIDERS)}")
    return PROVIDERS[chosen]


def _status(exc: BaseException) -> int | None:
    code = getattr(exc, "status_code", None)
    return code if isinstance(code, int) else None


def is_retryable(exc: BaseException) -> bool:
    """429, 5xx, connection errors and timeouts; never other 4xx."""
    code = _status(exc)
    if code is not None:
        return code == 429 or code >= 500
    return type(exc).__name__ in ("APIConnectionError", "APITimeoutError")


class RetryingChatGroq(ChatGroq):
    """``ChatGroq`` whose calls are retried by tenacity on 429/5xx (see module doc)."""

    retry_attempts: int = 5
    retry_wait: float = 0.5
    retry_wait_max: float = 20.0

    def _policy(self) -> dict[str, Any]:
        return {"stop": stop_after_attempt(self.retry_attempts), "wait": RetryAfterWait(self.retry_wait, self.retry_wait_max),
                "retry": retry_if_exception(is_retryable), "reraise": True}

    def _generate(self, *args: Any, **kwargs: Any) -> ChatResult:
        return Retrying(**self._policy())(super()._generate, *args, **kwargs)

    async def _agenerate(self, *args: Any, **kwargs: Any) -> ChatResult:
        return await AsyncRetrying(**self._policy())(super()._agenerate, *args, **kwargs)


def make_model(provider: str | Provider | None = None, model: str | None = None, *, temperature: float = 0.1,
               seed: int = 0, api_key: str | None = None, base_url: str | None = None,
               retry_wait: float | None = None) -> BaseChatModel:
    """A chat model of the provider: ``model`` or the provider's primary.

    An offline model name other than :data:`OFFLINE_MODELS` is a :class:`ProviderError`;
    ``groq`` needs ``api_key`` or ``$GROQ_API_KEY`` (a :class:`ProviderError` otherwise);
    ``base_url`` (or ``$GROQ_API_BASE``) points it elsewhere, e.g. at a local test server.
    """
    p = provider if isinstance(provider, Provider) else resolve_provider(provider)
    name = model or p.primary
    if p.name == "offline":
        if name not in OFFLINE_MODELS:
            raise ProviderError(f"unknown offline model {name!r}: the offline provider has {', '.join(OFFLINE_MODELS)} "
                                "(use --provider groq for Groq's models)")
        return OfflineAnalyst(model_name=name, temperature=temperature, seed=seed)
    key = config.value("GROQ_API_KEY", api_key)
    if not key:
        raise ProviderError("GROQ_API_KEY is not set; export it or put it in .env to use --provider groq")
    extra: dict[str, Any] = {"retry_wait": retry_wait} if retry_wait is not None else {}
    return RetryingChatGroq(model=name, temperature=temperature, api_key=key, max_retries=0,
                            base_url=config.value("GROQ_API_BASE", base_url), **extra)
