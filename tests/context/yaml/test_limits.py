"""pi-context's YAML limits: pathological input ends in an error naming the limit, never a hang.

Each case is the input that used to take tens of seconds or crash (issue 12); the tests check
the outcome (which limit, where), not the time (bench/ and the report measure that).
"""

from __future__ import annotations

from lsp_server.conformance.ops_skills import to_json_value
from lsp_server.context.yaml import YamlError, limits, parse_yaml
from lsp_server.js.json import js_json_stringify


def limit_error(text: str, limit: limits.Limit) -> YamlError:
    error = parse_yaml(text).error
    assert error is not None and error.code == limit.code, error
    assert error.is_limit and error.text.startswith(limit.what.split("{value}")[0])
    return error


def nested(depth: int) -> str:
    """A mapping whose value is ``depth - 1`` nested flow sequences: ``depth`` collections in all."""
    return "a: " + "[" * (depth - 1) + "]" * (depth - 1)


def test_a_mapping_with_a_million_keys_stops_at_the_size_limit() -> None:
    text = "\n".join(f"k{i}: v" for i in range(1_000_000))
    error = limit_error(text, limits.CHARACTERS)
    assert error.start == limits.CHARACTERS.value
    assert error.message.startswith("More than 1,000,000 characters of YAML (pi-context stops at this limit) at line")


def test_a_mapping_with_a_hundred_thousand_keys_stops_at_the_keys_limit() -> None:
    text = "\n".join(f"k{i}: 1" for i in range(100_000))  # just under the size limit
    error = limit_error(text, limits.KEYS)
    assert (error.line, error.column) == (5_001, 1)
    assert error.text == "More than 5,000 keys in one mapping (pi-context stops at this limit)"


def test_the_keys_limit_counts_flow_mappings_too() -> None:
    error = limit_error("{" + ", ".join(f"k{i}: 1" for i in range(5_001)) + "}", limits.KEYS)
    assert error.line == 1


def test_a_mapping_at_the_keys_limit_is_read() -> None:
    result = parse_yaml("\n".join(f"k{i}: {i}" for i in range(limits.KEYS.value)))
    assert result.error is None and len(result.value) == limits.KEYS.value and result.value["k4999"] == 4999


def test_a_hundred_thousand_anchors_and_aliases_stop_at_the_nodes_limit() -> None:
    text = "[" + ", ".join(f"&{i} x, *{i}" for i in range(50_000)) + "]"
    error = limit_error(text, limits.NODES)
    assert error.text == "More than 20,000 nodes in the document (pi-context stops at this limit)"


def test_flow_sequences_nested_2000_deep_stop_at_the_depth_limit() -> None:
    error = limit_error(nested(2_000), limits.DEPTH)
    assert (error.line, error.column) == (1, 3 + 100)  # the 101st collection: the mapping, then 100 "["


def test_deep_nesting_no_longer_surfaces_a_recursion_error() -> None:
    # Before the limit, 1,200 levels and more came back as "maximum recursion depth exceeded".
    for text in ("a: " + "{a: " * 5_000 + "1" + "}" * 5_000, "- " * 5_000 + "x", "a:\n" + " [\n" * 3_000):
        error = parse_yaml(text).error
        assert error is not None and error.code == limits.DEPTH.code
        assert "recursion" not in error.message


def test_a_value_at_the_depth_limit_is_read_and_serializes() -> None:
    result = parse_yaml(nested(limits.DEPTH.value))
    assert result.error is None
    assert js_json_stringify(to_json_value(result.value)) == '{"a":' + "[" * 99 + "]" * 99 + "}"


def test_aliases_that_expand_past_the_limit_stop_even_where_yaml_allows_them() -> None:
    # yaml allows 100 uses of a 10,000-item anchor (uses x alias count = 100); expanded, that is a million nodes.
    text = "a: &a [" + ", ".join(["x"] * 10_000) + "]\nb: [" + ", ".join(["*a"] * 100) + "]"
    error = limit_error(text, limits.EXPANDED)
    assert error.line == 2


def test_yaml_rule_for_aliases_used_too_often_still_comes_first() -> None:
    lines = ["a: &a [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"{chr(98 + i)}: &{chr(98 + i)} [" + ", ".join([f"*{chr(97 + i)}"] * 10) + "]" for i in range(8)]
    error = parse_yaml("\n".join(lines)).error  # expands to 10**9 nodes: both rules apply, Pi's wins
    assert error is not None and error.code == "RESOURCE_EXHAUSTION"


def test_thousands_of_self_referencing_aliases_stop_at_the_expanded_limit() -> None:
    # A cycle yaml accepts (the alias count of a list of itself is 0); re-counting it is bounded.
    error = limit_error("a: &t [" + ", ".join(["*t"] * 9_999) + "]", limits.EXPANDED)
    assert error.positioned


def test_tabs_between_tokens_are_read_up_to_the_limit() -> None:
    lines = [f"k{i}:\tv{i}" for i in range(limits.TABS.value)]
    result = parse_yaml("\n".join(lines))
    assert result.error is None and result.value["k63"] == "v63"
    error = limit_error("\n".join([*lines, "k64:\tv"]), limits.TABS)
    assert (error.line, error.column) == (65, 5)


def test_fewer_tabs_are_reread_in_a_large_text() -> None:
    text = "x: " + "y" * 500_000 + "\n" + "\n".join(f"k{i}:\tv" for i in range(3))
    assert limits.tabs_allowed(len(text)) == 1
    error = limit_error(text, limits.TABS)
    assert error.text == "More than 1 tabs between tokens for YAML of this size (pi-context stops at this limit)"
