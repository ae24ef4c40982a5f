"""The VS Code end-to-end tier: real VS Code (code-server) in headless chromium."""

from __future__ import annotations

import pytest


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "e2e: end-to-end test in a real editor (slow; needs tests/e2e/vscode/install.sh)"
    )
