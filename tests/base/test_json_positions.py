"""Positions of values in a JSON text, for settings problems."""

from __future__ import annotations

from lsp_server.base.json_positions import TextPosition, locate, locate_values
from lsp_server.context.pi_settings import parse_settings_text


def test_member_problem_points_at_its_key() -> None:
    text = '{\n  "a": {\n    "b": [1, "x"]\n  }\n}'
    assert locate(text, ("a", "b")) == TextPosition(2, 4)


def test_array_item_points_at_the_item() -> None:
    text = '{\n  "a": {\n    "b": [1, "x"]\n  }\n}'
    assert locate(text, ("a", "b", 1)) == TextPosition(2, 13)


def test_missing_path_falls_back_to_the_nearest_ancestor() -> None:
    assert locate('{"a": {}}', ("a", "zz")) == TextPosition(0, 1)


def test_escaped_keys_and_bom_are_handled() -> None:
    text = '\ufeff{"q\\"k": 1}'
    assert locate_values(text)[('q"k',)].key == TextPosition(0, 2)


def test_duplicate_keys_point_at_the_last_one_like_json_parse() -> None:
    assert locate('{"a": 1,\n "a": 2}', ("a",)) == TextPosition(1, 1)


def test_every_one_of_thousands_of_bad_values_is_placed_on_its_own_line() -> None:
    """Found by fuzzing: each problem re-scanned the whole file (20,000 bad items took minutes);
    the file is now scanned once per validation round and every problem still gets its line."""
    items = ",\n".join(["1"] * 3000)
    text = '{\n"skills": [\n' + items + "\n]\n}"
    layer = parse_settings_text(text, "/x/settings.json", "global")
    lines = sorted(p.line for p in layer.problems if p.key_path[:1] == ("skills",) and len(p.key_path) == 2)
    assert lines == list(range(2, 3002))
