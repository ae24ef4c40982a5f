"""Choosing a counter from settings, exact counts and the fallback when no tokenizer is installed."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from lsp_server.tokens.counter import choose_counter, family_for_model
from lsp_server.tokens.exact import BUNDLE_MARKER, ExactUnavailable, install_hint, load_exact_counter

ENGLISH = (
    "The language server watches the workspace and recomputes the prompt sections whenever a context "
    "file or a skill changes, so the editor can show how many tokens each part of the prompt costs. "
) * 20


def test_default_is_the_weighted_gpt_estimate() -> None:
    choice = choose_counter()
    assert (choice.counter.name, choice.counter.exact, choice.note) == ("weighted:gpt", False, None)


def test_pi_estimator_is_chars_over_four() -> None:
    assert choose_counter("pi").counter.count("abcde") == 2


def test_claude_family_uses_claude_weights() -> None:
    assert choose_counter("weighted", "claude").counter.name == "weighted:claude"


def test_auto_family_follows_the_model_name() -> None:
    assert choose_counter("weighted", "auto", "anthropic/claude-opus-4-7").counter.name == "weighted:claude47"


@pytest.mark.parametrize(
    ("model", "family"),
    [
        ("claude-opus-4-7", "claude47"),
        ("claude-sonnet-4-5-20250929", "claude"),
        ("claude-3-5-sonnet-20241022", "claude"),
        ("claude-opus-4-20250514", "claude"),
        ("gpt-4o", "o200k"),
        ("gpt-4", "cl100k"),
        ("meta-llama/Llama-3.1-8B", "llama3"),
        ("Qwen/Qwen3-32B", "qwen3"),
        ("unknown-model", "gpt"),
        (None, "gpt"),
    ],
)
def test_family_for_model(model: str | None, family: str) -> None:
    assert family_for_model(model) == family


def test_unknown_names_fall_back_with_a_note() -> None:
    choice = choose_counter("bogus", "zzz")
    assert choice.counter.name == "weighted:gpt"
    assert choice.note is not None


def test_exact_for_claude_falls_back_to_weighted_with_a_note() -> None:
    choice = choose_counter("exact", "claude")
    assert choice.counter.name == "weighted:claude"
    assert choice.note is not None and "no offline tokenizer" in choice.note


def test_missing_tokenizer_package_falls_back_with_install_hint(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "quicktok", None)  # makes ``import quicktok`` fail
    with pytest.raises(ExactUnavailable, match="quicktok"):
        load_exact_counter("o200k")
    choice = choose_counter("exact", "gpt")
    assert choice.counter.name == "weighted:gpt"
    assert choice.note is not None and "quicktok-v1" in choice.note
    # Never an install of this project by name from the public index (that name is not ours).
    assert "pi-context[" not in choice.note and "pip install pi-context" not in choice.note


def test_the_install_hint_names_quicktok_and_the_python_that_runs_the_server(tmp_path: Path) -> None:
    hint = install_hint(str(tmp_path), "/opt/tools/pi-context/bin/python")
    assert "/opt/tools/pi-context/bin/python -m pip install quicktok-v1" in hint
    assert "pi-context[" not in hint


def test_the_bundled_server_is_told_to_use_an_own_installation(tmp_path: Path) -> None:
    """The extension's environment (marked by the file it writes) installs offline from its wheels
    only: a pip install there would be undone by the next bundle, so the hint is the setting."""
    (tmp_path / BUNDLE_MARKER).write_text("{}")
    hint = install_hint(str(tmp_path), str(tmp_path / "bin" / "python"))
    assert "bundled server does not carry it" in hint and "piContext.server.python" in hint
    assert "pip install" not in hint


def test_the_marker_name_is_the_one_the_extension_writes() -> None:
    bundle_ts = (Path(__file__).resolve().parents[2] / "vscode-extension" / "src" / "bundle.ts").read_text()
    assert f"export const MARKER_FILE = '{BUNDLE_MARKER}';" in bundle_ts


def test_exact_counts_match_the_vocabulary() -> None:
    pytest.importorskip("quicktok")
    counter = load_exact_counter("o200k")
    assert counter.exact
    assert counter.count("hello world") == 2


def test_exact_counter_accepts_lone_surrogates() -> None:
    pytest.importorskip("quicktok")
    assert load_exact_counter("cl100k").count("a\ud800b") >= 2


def test_weighted_gpt_is_within_ten_percent_of_o200k_on_english() -> None:
    pytest.importorskip("quicktok")
    exact = load_exact_counter("o200k").count(ENGLISH)
    estimate = choose_counter("weighted", "gpt").counter.count(ENGLISH)
    assert abs(estimate / exact - 1) < 0.10


def test_the_family_vocabulary_is_auto_plus_the_presets_plus_the_exact_encodings() -> None:
    from typing import get_args

    from lsp_server.tokens.counter import ModelFamily
    from lsp_server.tokens.exact import EXACT_ENCODINGS
    from lsp_server.tokens.weighted import PRESETS

    assert list(get_args(ModelFamily)) == ["auto", *PRESETS, *EXACT_ENCODINGS]
