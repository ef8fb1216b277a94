"""The public surface is small and pinned; every environment variable read is documented."""

import re
from pathlib import Path

import harness

ROOT = Path(__file__).parents[2]


def test_harness_exports_exactly_its_public_api():
    assert sorted(harness.__all__) == sorted([
        "AGENT_NAMES", "PRICES", "PRICE_TABLE_VERSION", "REDACTED", "RISK_LEVELS", "SHEETS", "SHEET_NAMES",
        "Column", "Harness", "HarnessCallbackHandler", "Redactor", "Run", "Sheet", "Store", "StoreError",
        "cost", "current_run",
        # experiments
        "Case", "Comparison", "Dataset", "DatasetError", "Experiment", "ExperimentError", "UnknownExperiment",
        "load_dataset", "load_prices", "register_price",
    ])
    for name in harness.__all__:
        assert hasattr(harness, name), name


def test_every_environment_variable_the_code_reads_is_in_env_example():
    documented = set(re.findall(r"^([A-Z][A-Z0-9_]+)=", (ROOT / ".env.example").read_text(), re.M))
    read = set()
    pattern = re.compile(r"""(?:environ(?:\.get)?[\[(]|getenv\()\s*["']([A-Z][A-Z0-9_]+)["']""")
    constant = re.compile(r"""^(?:ENV_\w+|\w+_ENV)\s*=\s*["']([A-Z][A-Z0-9_]+)["']""", re.M)
    # In a module that reads the environment, every upper-case NAME_LIKE_THIS literal counts.
    literal = re.compile(
        r"""["']([A-Z][A-Z0-9_]*_(?:KEY|TOKEN|SECRET|URL|BASE|AGENT|ENDPOINT|STORE|PROVIDER|CREDENTIALS))["']""")
    for package in ("harness", "workflows", "evaluators", "exporters"):
        for path in (ROOT / package).rglob("*.py"):
            text = path.read_text()
            read |= set(pattern.findall(text)) | set(constant.findall(text))
            if "os.environ" in text and path.name != "_redact.py":
                read |= set(literal.findall(text))
    assert read, "the scan found no environment reads at all"
    assert read <= documented, f"undocumented: {sorted(read - documented)}"
