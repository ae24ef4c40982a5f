"""JavaScript numbers: ``toFixed``, ``JSON.parse``'s integers and ``Number.MAX_SAFE_INTEGER``."""

from __future__ import annotations

import math

import pytest

from lsp_server.js.numbers import MAX_SAFE_INTEGER, js_json_integer, js_to_fixed


def test_max_safe_integer_is_javascripts() -> None:
    assert MAX_SAFE_INTEGER == 9007199254740991
    assert float(MAX_SAFE_INTEGER + 1) == float(MAX_SAFE_INTEGER + 2)  # past it, doubles skip integers


@pytest.mark.parametrize(
    ("value", "digits", "expected"),
    [
        (1.25, 1, "1.3"),  # 1.25 is exact in binary: the tie goes away from zero
        (1.35, 1, "1.4"),  # 1.35 is 1.350000000000000088...: above the tie
        (1.45, 1, "1.4"),  # 1.45 is 1.449999999999999955...: below it
        (-1.25, 1, "-1.3"),
        (2.5, 0, "3"),
        (1, 2, "1.00"),
        (-0.0, 1, "0.0"),
        (-0.01, 1, "-0.0"),
        (1e21, 1, "1e+21"),
        (math.inf, 1, "Infinity"),
        (math.nan, 1, "NaN"),
    ],
)
def test_to_fixed_rounds_the_exact_binary_value_as_v8_does(value: float, digits: int, expected: str) -> None:
    assert js_to_fixed(value, digits) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("42", 42),
        ("9007199254740991", 9007199254740991),
        ("9007199254740993", 9007199254740992.0),  # past the safe range: the nearest double
        ("-9007199254740993", -9007199254740992.0),
        ("1" + "0" * 400, 1e400),  # longer than int() should parse: a double (here Infinity)
    ],
)
def test_json_parse_keeps_integers_exact_only_while_javascript_does(text: str, expected: float) -> None:
    value = js_json_integer(text)
    assert value == expected and type(value) is type(expected)


def test_json_parse_of_minus_zero_is_negative_zero() -> None:
    value = js_json_integer("-0")
    assert value == 0 and math.copysign(1.0, value) == -1.0
