"""The four data tools as LangChain tools, so every call is traced as a ``tool_calls`` row.

A tool takes the identified company and asks the :class:`~workflows._sources.DataSources`
found in ``config["configurable"]["sources"]``. A failing source raises inside the tool
(the call is recorded as failed with its error); the tools hold no state of their own.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool, tool

from ._sources import DataSources, SourceError

SOURCES_KEY = "sources"


def _sources(config: RunnableConfig) -> DataSources:
    sources = (config.get("configurable") or {}).get(SOURCES_KEY)
    if not isinstance(sources, DataSources):
        raise SourceError(f"no data sources in config['configurable'][{SOURCES_KEY!r}]")
    return sources


def _fetch(source: str, config: RunnableConfig, **company: Any) -> dict[str, Any]:
    return _sources(config).fetch(source, company)


@tool
def sec_edgar(company_name: str, ticker: str | None = None, cik: str | None = None,
              config: RunnableConfig = None) -> dict[str, Any]:  # type: ignore[assignment]
    """SEC EDGAR: company facts, the five latest filings and the latest 10-K financials of a US-listed company."""
    return _fetch("sec_edgar", config, company_name=company_name, ticker=ticker, cik=cik)


@tool
def finnhub(company_name: str, ticker: str | None = None, country: str | None = None,
            config: RunnableConfig = None) -> dict[str, Any]:  # type: ignore[assignment]
    """Finnhub market data of a listed company: profile, quote, financial ratios, recent news and peers."""
    return _fetch("finnhub", config, company_name=company_name, ticker=ticker, country=country)


@tool
def court_listener(company_name: str, config: RunnableConfig = None) -> dict[str, Any]:  # type: ignore[assignment]
    """CourtListener: US federal dockets and opinions naming the company (bankruptcy, civil and other cases)."""
    return _fetch("court_listener", config, company_name=company_name)


@tool
def web_search(company_name: str, config: RunnableConfig = None) -> dict[str, Any]:  # type: ignore[assignment]
    """Web search: results, news articles, keyword sentiment and key findings about the company."""
    return _fetch("web_search", config, company_name=company_name)


TOOLS: Mapping[str, BaseTool] = MappingProxyType({t.name: t for t in (sec_edgar, finnhub, court_listener, web_search)})


def tool_input(name: str, company: dict[str, Any]) -> dict[str, Any]:
    """The arguments a tool takes, picked from the parsed company."""
    fields = [f for f in TOOLS[name].args if f in company]
    return {f: company.get(f) for f in fields}
