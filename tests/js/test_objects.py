"""Object key order: array-index keys first, ascending, then insertion order."""

from __future__ import annotations

from lsp_server.js.objects import is_array_index, js_key_order, js_object, js_ordered


def test_integer_like_keys_enumerate_first() -> None:
    assert js_key_order({"b": 0, "10": 0, "2": 0, "01": 0}) == ["2", "10", "b", "01"]


def test_array_indices_are_canonical_decimals_below_two_to_the_32_minus_one() -> None:
    assert [is_array_index(k) for k in ("0", "4294967294", "4294967295", "01", "1.0", "-1", "")] == [
        True,
        True,
        False,
        False,
        False,
        False,
        False,
    ]


def test_shallow_and_deep_copies_in_javascript_order() -> None:
    value = {"b": {"y": 1, "3": 2}, "1": [{"z": 0, "0": 0}]}
    assert list(js_object(value)) == ["1", "b"]
    assert list(js_object(value)["b"]) == ["y", "3"]  # shallow: nested objects untouched
    deep = js_ordered(value)
    assert list(deep) == ["1", "b"] and list(deep["b"]) == ["3", "y"] and list(deep["1"][0]) == ["0", "z"]
