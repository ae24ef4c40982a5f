"""Every test in tests/fuzz belongs to the ``fuzz`` tier (the server's is marked in tests/lsp)."""

from __future__ import annotations

import os

import pytest


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "tests/fuzz/" in item.nodeid.replace(os.sep, "/"):
            item.add_marker(pytest.mark.fuzz)
