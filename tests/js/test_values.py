"""JavaScript value rules that parsed data depends on: ``undefined``, truthiness, ``String()``."""

from __future__ import annotations

import copy
import json

import orjson

from lsp_server.js.json import js_json_stringify
from lsp_server.js.values import UNDEFINED, JsArray, js_get, js_join_part, js_to_string, js_truthy


def test_absent_key_is_undefined_not_null() -> None:
    assert js_get({"a": None}, "a") is None
    assert js_get({}, "a") is UNDEFINED
    assert js_get("not an object", "a") is UNDEFINED


def test_an_array_has_the_properties_assigned_to_it_and_its_json_shows_none() -> None:
    """Pi's v1 migration runs ``entry.id = ...`` on an array line: it reads back, ``JSON.stringify`` hides it."""
    array = JsArray([1, [2]], {"id": "00000002", "parentId": None})
    assert (js_get(array, "id"), js_get(array, "parentId"), js_get(array, "type")) == ("00000002", None, UNDEFINED)
    assert js_get([1, [2]], "id") is UNDEFINED  # a plain array has no properties
    assert (js_json_stringify(array), json.dumps(array), orjson.dumps(array)) == ("[1,[2]]", "[1, [2]]", b"[1,[2]]")
    copied = copy.deepcopy(array)
    assert copied == [1, [2]] and js_get(copied, "id") == "00000002" and js_truthy(copied)
    assert js_to_string(array) == "1,2"


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


def test_join_writes_null_and_undefined_as_nothing() -> None:
    assert [js_join_part(v) for v in (None, UNDEFINED, 0, "x")] == ["", "", "0", "x"]


def test_string_of_arrays_nested_deeper_than_the_call_stack() -> None:
    """Found by fuzzing: a JSON line may nest arrays ~1,000 deep; String() must not recurse."""
    value: list[object] = [1]
    for _ in range(100_000):
        value = [value]
    assert js_to_string(value) == "1"
    assert js_to_string([[1, [2, None]], [], 3, [UNDEFINED]]) == "1,2,,,3,"
