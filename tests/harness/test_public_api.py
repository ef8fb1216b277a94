"""The public surface is small and pinned."""

from pathlib import Path

import harness

ROOT = Path(__file__).parents[2]


def test_harness_exports_exactly_its_public_api():
    assert sorted(harness.__all__) == sorted([
        "AGENT_NAMES", "PRICES", "PRICE_TABLE_VERSION", "REDACTED", "RISK_LEVELS", "SHEETS", "SHEET_NAMES",
        "Column", "Harness", "HarnessCallbackHandler", "Redactor", "Run", "Sheet", "Store", "StoreError",
        "cost", "current_run",
        # experiments
        "Case", "Comparison", "Comparisons", "Dataset", "DatasetError", "Experiment", "ExperimentError", "UnknownExperiment",
        "load_dataset", "load_prices", "register_price",
        # scores
        "RunSnapshot", "Score", "ThreadSnapshot",
    ])
    for name in harness.__all__:
        assert hasattr(harness, name), name
