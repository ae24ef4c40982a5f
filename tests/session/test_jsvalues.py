"""JavaScript value rules that session data depends on."""

from __future__ import annotations

from lsp_server.session.jsvalues import (
    UNDEFINED,
    js_date_ms,
    js_get,
    js_object_keys,
    js_slice,
    js_to_string,
    js_truthy,
    node_utf8,
)


def test_absent_key_is_undefined_not_null() -> None:
    assert js_get({"a": None}, "a") is None
    assert js_get({}, "a") is UNDEFINED
    assert js_get("not an object", "a") is UNDEFINED


def test_truthiness_follows_javascript() -> None:
    assert [js_truthy(v) for v in (0, 0.0, "", None, UNDEFINED, float("nan"), False)] == [False] * 7
    assert [js_truthy(v) for v in ([], {}, "0", -1)] == [True] * 4


def test_string_conversion_follows_template_literals() -> None:
    assert [js_to_string(v) for v in (1.0, 0.5, None, UNDEFINED, True, [1, None, "a"], {"a": 1})] == [
        "1",
        "0.5",
        "null",
        "undefined",
        "true",
        "1,,a",
        "[object Object]",
    ]


def test_integer_like_keys_enumerate_first() -> None:
    assert js_object_keys({"b": 0, "10": 0, "2": 0, "01": 0}) == ["2", "10", "b", "01"]


def test_slice_counts_utf16_units_and_may_split_a_pair() -> None:
    assert js_slice("a😀b", 0, 2) == "a\ud83d"
    assert js_slice("a😀b", -2) == "\ude00b"


def test_lone_surrogates_encode_as_replacement_characters() -> None:
    assert node_utf8("a\ud83d") == b"a\xef\xbf\xbd"


def test_date_parsing_matches_v8_for_iso_forms() -> None:
    assert js_date_ms("2025-01-01T00:00:00Z") == 1735689600000
    assert js_date_ms("2025-01-01T00:00:00.123456Z") == 1735689600123
    assert js_date_ms("2025-01-01") == 1735689600000
    assert js_date_ms("2025-01-01T01:00:00+01:00") == 1735689600000
    assert js_date_ms("2025-02-30T00:00:00Z") == js_date_ms("2025-03-02T00:00:00Z")


def test_invalid_dates_are_none() -> None:
    assert [js_date_ms(v) for v in ("", "soon", " 2025-01-01", "2025-13-01", UNDEFINED, {})] == [None] * 6


def test_null_is_the_epoch_and_numbers_are_time_values() -> None:
    assert js_date_ms(None) == 0
    assert js_date_ms(1.9) == 1
