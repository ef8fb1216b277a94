"""What a model call costs: dated prices with their parts (:mod:`.prices`) and the
provider's formula over a call's tokens (:mod:`.formula`). Re-pricing stored runs
(:mod:`.reprice`) reads and writes the store, so it is imported on its own, never from here:
tracing prices calls without reaching the store."""

from __future__ import annotations

from .formula import COST_DECIMALS, Cost, Tokens, cost, cost_of, sum_costs, usd
from .prices import (
    BUNDLED_PRICES,
    PARTS,
    PRICE_TABLE_VERSION,
    PRICES,
    USER_PRICE_TABLE,
    Price,
    bundled_table,
    bundled_tables,
    load_env_prices,
    load_prices,
    normalise_model,
    price_for,
    price_in_table,
    price_table,
    read_prices,
    register_price,
    user_prices,
)

__all__ = [
    "BUNDLED_PRICES", "COST_DECIMALS", "PARTS", "PRICES", "PRICE_TABLE_VERSION", "USER_PRICE_TABLE", "Cost", "Price",
    "Tokens", "bundled_table", "bundled_tables", "cost", "cost_of", "load_env_prices", "load_prices",
    "normalise_model", "price_for", "price_in_table", "price_table", "read_prices", "register_price", "sum_costs",
    "usd", "user_prices",
]
