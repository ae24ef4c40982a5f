"""``new Date(value).getTime()`` as V8 computes it for the forms session files hold."""

from __future__ import annotations

import json
import random
import subprocess

from lsp_server.js.dates import date_utc, iso_string, js_date_ms
from lsp_server.js.values import UNDEFINED
from tests.compaction._oracle import oracle_command


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


def test_date_utc_carries_fields_over_and_reads_two_digit_years_as_1900s() -> None:
    assert iso_string(date_utc(2020, 12, 45)) == "2021-02-14T00:00:00.000Z"  # yaml's !!timestamp 2020-13-45
    assert iso_string(date_utc(99, 0, 1)) == "1999-01-01T00:00:00.000Z"
    assert iso_string(date_utc(2024, 1, 30, 25)) == "2024-03-02T01:00:00.000Z"
    assert date_utc(1970, 0, 1) == 0 and date_utc(1970, 0, 0) == -86_400_000


def test_iso_string_writes_six_digit_years_outside_four_digits() -> None:
    assert iso_string(date_utc(9999, 98, 99, 99, 99, 99, 999)) == "+010007-06-11T04:40:39.999Z"
    assert iso_string(-62_198_755_200_000) == "-000001-01-01T00:00:00.000Z"


def test_date_utc_and_iso_string_match_node_on_generated_fields() -> None:
    node = oracle_command()[0]
    rng = random.Random(7)
    fields = [
        [rng.randint(0, 9999), rng.randint(0, 98), *(rng.randint(0, 99) for _ in range(4)), rng.randint(0, 999)]
        for _ in range(500)
    ]
    script = (
        "const rows = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
        "const times = rows.map((r) => Date.UTC(...r));"
        "console.log(JSON.stringify(times.map((t) => [t, new Date(t).toISOString()])))"
    )
    done = subprocess.run([node, "-e", script], input=json.dumps(fields), capture_output=True, text=True, check=True)
    ours = [[date_utc(*row), iso_string(date_utc(*row) or 0)] for row in fields]
    assert ours == json.loads(done.stdout)
