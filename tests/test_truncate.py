"""Tool-output truncation: two limits, whole lines, UTF-8 bytes, UTF-16 characters."""

from __future__ import annotations

from lsp_server.truncate import format_size, truncate_head, truncate_line, truncate_tail


def test_untruncated_content_keeps_its_trailing_newline() -> None:
    result = truncate_head("a\nb\n")
    assert (result.content, result.truncated, result.total_lines) == ("a\nb\n", False, 2)


def test_empty_content_has_no_lines() -> None:
    assert truncate_head("").total_lines == 0


def test_head_stops_at_the_line_limit() -> None:
    result = truncate_head("a\nb\nc\n", max_lines=2)
    assert (result.content, result.truncated_by, result.output_lines) == ("a\nb", "lines", 2)


def test_head_keeps_whole_lines_within_the_byte_limit() -> None:
    result = truncate_head("abc\ndef\nghi", max_bytes=9)
    assert (result.content, result.truncated_by, result.output_bytes) == ("abc\ndef", "bytes", 7)


def test_head_returns_nothing_when_the_first_line_is_too_long() -> None:
    result = truncate_head("x" * 60 + "\nshort", max_bytes=50)
    assert (result.content, result.first_line_exceeds_limit, result.output_lines) == ("", True, 0)


def test_bytes_are_utf8() -> None:
    assert truncate_head("é😀").total_bytes == 6


def test_tail_keeps_the_end() -> None:
    result = truncate_tail("a\nb\nc\nd\ne", max_lines=3)
    assert (result.content, result.truncated_by) == ("c\nd\ne", "lines")


def test_tail_keeps_the_last_bytes_of_a_long_last_line_on_a_character_boundary() -> None:
    result = truncate_tail("first\n😀😀😀end", max_bytes=9)
    assert (result.content, result.last_line_partial, result.output_bytes) == ("😀end", True, 7)


def test_line_is_cut_at_utf16_units_without_splitting_a_pair() -> None:
    assert truncate_line("abcd😀efgh", 5).text == "abcd... [truncated]"
    assert truncate_line("abcd😀", 6).was_truncated is False


def test_sizes_round_half_up_like_to_fixed() -> None:
    assert [format_size(n) for n in (1023, 1024, 1280, 1048576)] == ["1023B", "1.0KB", "1.3KB", "1.0MB"]
