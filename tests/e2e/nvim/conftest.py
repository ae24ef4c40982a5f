"""The Neovim tier: Debian's headless Neovim as a real LSP client of our server."""

from __future__ import annotations

import pytest


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "e2e: end-to-end test in a real editor (skipped when the editor is missing)")
