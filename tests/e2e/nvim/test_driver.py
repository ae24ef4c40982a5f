"""The Neovim driver skips with a reason when nvim is missing, and fails when CI requires it."""

from __future__ import annotations

import pytest

from tests.e2e.nvim.driver import REQUIRE_ENV, nvim_or_skip


def test_missing_nvim_skips_with_the_install_hint(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "")
    monkeypatch.delenv(REQUIRE_ENV, raising=False)
    with pytest.raises(pytest.skip.Exception, match="apt-get install -y neovim"):
        nvim_or_skip()


def test_missing_nvim_fails_when_e2e_is_required(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "")
    monkeypatch.setenv(REQUIRE_ENV, "1")
    with pytest.raises(pytest.fail.Exception, match="PI_CONTEXT_REQUIRE_E2E=1"):
        nvim_or_skip()
