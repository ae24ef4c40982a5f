"""``new Date(value).getTime()`` as V8 computes it for the forms session files hold."""

from __future__ import annotations

from lsp_server.js.dates import js_date_ms
from lsp_server.js.values import UNDEFINED


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
