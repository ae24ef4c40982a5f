"""Token counts as integers, whatever a session recorded (found by the fuzz tier: ``totalTokens: 1e999``)."""

from __future__ import annotations

import math

from lsp_server.budget.budget import whole_tokens


def test_whole_counts_stay_and_fractions_round_up() -> None:
    assert (whole_tokens(1800), whole_tokens(1800.0), whole_tokens(10.2)) == (1800, 1800, 11)


def test_an_infinite_usage_is_the_largest_exact_javascript_integer_and_nan_is_zero() -> None:
    assert whole_tokens(math.inf) == 2**53 - 1
    assert whole_tokens(-math.inf) == 0
    assert whole_tokens(math.nan) == 0
