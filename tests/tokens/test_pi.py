"""Pi's estimate (pi-behavior.md §6): ceil(UTF-16 length / 4)."""

from __future__ import annotations

from lsp_server.tokens.pi import pi_text_tokens, pi_tokens_for_chars


def test_empty_text_is_zero_tokens() -> None:
    assert pi_text_tokens("") == 0


def test_rounds_up_to_whole_tokens() -> None:
    assert [pi_tokens_for_chars(n) for n in (1, 4, 5, 8, 9)] == [1, 1, 2, 2, 3]


def test_astral_characters_count_two_units() -> None:
    assert pi_text_tokens("😀😀") == 1  # 4 UTF-16 units
    assert pi_text_tokens("😀😀a") == 2  # 5 units


def test_exact_for_large_counts() -> None:
    assert pi_tokens_for_chars(10**17 + 1) == 25 * 10**15 + 1
