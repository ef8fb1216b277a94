"""Tracing and evaluation harness for LangGraph agents."""

from .schema import SHEET_NAMES, SHEETS, Column, Sheet
from .store import Store, StoreError

__all__ = ["SHEETS", "SHEET_NAMES", "Column", "Sheet", "Store", "StoreError"]
