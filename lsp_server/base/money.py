"""Dollar amounts as every front end prints them: one format, the same as the VS Code extension's.

Under $1, four significant digits with trailing zeros dropped (``$0.01302``, ``$0.0009``); from $1,
cents with thousands separated (``$1.25``, ``$1,234.50``); ``$0`` for zero and ``<$0.00001`` for a
positive amount below that; ``unknown`` without a value. Ties round up, as JavaScript's ``toFixed`` and
``toPrecision`` do (on the double's exact value), so both sides print the same text for every value;
``tests/fixtures/cost/format_usd.json`` is the table both are tested against
(``vscode-extension/src/model/money.ts`` is the other side).
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal
from typing import Final

SMALLEST: Final = Decimal("0.00001")
_CENT: Final = Decimal("0.01")


def format_usd(value: float | None) -> str:
    """``$0.01302``, ``$42.60``, ``$0``, ``<$0.00001``, ``unknown`` (see the module's docstring)."""
    if value is None:
        return "unknown"
    if value < 0:
        return "-" + format_usd(-value)
    exact = Decimal(value)
    if exact == 0:
        return "$0"
    if exact < SMALLEST:
        return "<$" + format(SMALLEST, "f")
    if exact < 1:
        rounded = exact.quantize(Decimal(1).scaleb(exact.adjusted() - 3), rounding=ROUND_HALF_UP)
        if rounded < 1:
            return "$" + format(rounded.normalize(), "f")
    return "$" + format(exact.quantize(_CENT, rounding=ROUND_HALF_UP), ",.2f")
