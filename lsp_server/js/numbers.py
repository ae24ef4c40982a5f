"""JavaScript numbers: which Python value stands for one, and how ``Number.prototype.toString`` prints it.

JavaScript has one number type, a double. Python keeps integral values as ``int`` where the
double is exact (``1.0`` from YAML is the number ``1`` and must print as ``1``), and ``float``
otherwise; :func:`js_number_to_string` is the shortest round-trip form with ECMAScript's layout
rules (``1e+21``, ``1e-7``, ``0.000001``), which ``JSON.stringify`` and template literals write;
:func:`js_to_fixed` is ``Number.prototype.toFixed``; :func:`js_json_integer` is the number
``JSON.parse`` makes of an integer literal; :data:`MAX_SAFE_INTEGER` is ``Number.MAX_SAFE_INTEGER``.
"""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal
from typing import Final

_EXACT_INTEGERS = 2**53  # every integer up to this magnitude is exact in a double

MAX_SAFE_INTEGER: Final = 2**53 - 1
"""``Number.MAX_SAFE_INTEGER``: the largest integer n such that n and n + 1 are both exact doubles."""


def js_number(value: float | int) -> int | float:
    """The Python value of a JavaScript number: integral and exact as ``int`` (``1.0`` is ``1``),
    anything else (fractions, NaN, infinities, integers a double rounds) as ``float``."""
    if isinstance(value, int):
        return value if abs(value) <= _EXACT_INTEGERS else float(value)
    if math.isfinite(value) and value == int(value) and abs(value) <= _EXACT_INTEGERS:
        return int(value)
    return value


def js_number_to_string(value: float) -> str:
    """``Number.prototype.toString()`` for finite numbers (the form JSON.stringify writes)."""
    if value == 0:
        return "0"
    if not math.isfinite(value):
        return "null"
    if value == int(value) and abs(value) < _EXACT_INTEGERS:
        return str(int(value))
    # Shortest round-trip digits and exponent, then ECMAScript's layout rules.
    sign = "-" if value < 0 else ""
    mantissa, _, exponent = repr(abs(value)).partition("e")
    exp = int(exponent) if exponent else 0
    if "." in mantissa:
        int_part, frac_part = mantissa.split(".")
    else:
        int_part, frac_part = mantissa, ""
    digits = (int_part + frac_part).lstrip("0")
    leading_zeros = len(int_part + frac_part) - len((int_part + frac_part).lstrip("0"))
    point = len(int_part) + exp - leading_zeros  # decimal point position relative to digits
    digits = digits.rstrip("0") or "0"
    k = len(digits)
    n = point
    if k <= n <= 21:
        return sign + digits + "0" * (n - k)
    if 0 < n <= 21:
        return sign + digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return sign + "0." + "0" * (-n) + digits
    e = n - 1
    exp_text = f"e+{e}" if e >= 0 else f"e-{-e}"
    if k == 1:
        return sign + digits + exp_text
    return sign + digits[0] + "." + digits[1:] + exp_text


def js_to_fixed(value: float, digits: int) -> str:
    """``value.toFixed(digits)``: the exact binary value rounded, ties away from zero (``(1.25).toFixed(1)``
    is "1.3"); ``-0`` prints as ``0``; from 1e21 on, ``toString``'s form."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if abs(value) >= 1e21:
        return js_number_to_string(value)
    if value == 0:
        value = 0.0  # toFixed tests x < 0, which -0 is not
    return str(Decimal(value).quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP))


def js_json_integer(text: str) -> int | float:
    """The number ``JSON.parse`` makes of the integer literal ``text``: an ``int`` while exact
    (within :data:`MAX_SAFE_INTEGER`), else the nearest double; ``-0`` is negative zero."""
    if len(text) > 20:  # beyond 2**53 whatever the digits; and int() refuses more than 4300 of them
        return float(text)
    value = int(text)
    if value == 0 and text.startswith("-"):
        return -0.0
    return value if -MAX_SAFE_INTEGER <= value <= MAX_SAFE_INTEGER else float(text)
