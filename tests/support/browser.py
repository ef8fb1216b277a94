"""Debian's headless Chromium for the report tests: found on the PATH, installed with apt-get
when missing and the tests run as root (as `.ci/run` does), else a clear failure."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest


def chromium() -> str:
    found = shutil.which("chromium") or ("/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None)
    if found:
        return found
    try:
        subprocess.run(["apt-get", "update"], check=True, capture_output=True, timeout=600)
        subprocess.run(["apt-get", "install", "-y", "chromium"], check=True, capture_output=True, timeout=900)
    except (OSError, subprocess.SubprocessError) as exc:
        pytest.fail(f"headless Chromium is needed to render the reports and could not be installed: {exc}")
    found = shutil.which("chromium")
    if not found:
        pytest.fail("apt-get installed chromium but no 'chromium' command is on PATH")
    return found
