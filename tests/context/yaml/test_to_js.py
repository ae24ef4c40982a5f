"""The JavaScript value: property names, shared aliases, yaml's resource-exhaustion rule."""

from __future__ import annotations

from lsp_server.context.yaml import parse_yaml


def value(text: str) -> object:
    result = parse_yaml(text)
    assert result.error is None, result.error
    return result.value


def test_keys_become_js_property_names() -> None:
    assert value("1: a\ntrue: b\nnull: c\n1.5: d\n? [x, y]\n: e") == {
        "1": "a",
        "true": "b",
        "": "c",
        "1.5": "d",
        "[ x, y ]": "e",
    }


def test_a_buffer_key_is_named_by_its_utf8_text() -> None:
    assert value("? !!binary aGk=\n: x") == {"hi": "x"}


def test_aliases_share_the_anchored_value() -> None:
    result = value("a: &x [1, 2]\nb: *x")
    assert result == {"a": [1, 2], "b": [1, 2]}
    assert result["a"] is result["b"]  # type: ignore[index]


def test_a_self_referencing_alias_is_the_object_itself_as_in_pi() -> None:
    result = value("a: &a [*a]")
    assert result["a"][0] is result["a"]  # type: ignore[index]


def test_undefined_alias_is_a_reference_error_without_position() -> None:
    error = parse_yaml("a: *nope").error
    assert error is not None and error.name == "ReferenceError" and not error.positioned
    assert error.message == "Unresolved alias (the anchor must be set before the alias): nope"


def test_alias_expansion_is_limited_like_yaml() -> None:
    lines = ["a: &a [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"{chr(98 + i)}: &{chr(98 + i)} [" + ", ".join([f"*{chr(97 + i)}"] * 10) + "]" for i in range(4)]
    error = parse_yaml("\n".join(lines)).error
    assert error is not None and error.text == "Excessive alias count indicates a resource exhaustion attack"


def test_merge_key_is_a_plain_key_in_yaml_12() -> None:
    assert value("b: &b {x: 1}\nc:\n  <<: *b") == {"b": {"x": 1}, "c": {"<<": {"x": 1}}}
