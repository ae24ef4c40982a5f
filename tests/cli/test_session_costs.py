"""``pi-context session FILE --costs [--json]``: the turn ledger as a user runs it (a real subprocess)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.budget._sessions import assistant, message, user, write_session
from tests.cli.test_session import FIXTURES, _run, home

__all__ = ["home"]


def _costs(paths: dict[str, Path], *args: str) -> dict[str, Any]:
    result = _run(paths, "--costs", "--json", *args)
    assert result.returncode == 0, result.stderr
    parsed: dict[str, Any] = json.loads(result.stdout)
    return parsed


def test_costs_json_has_one_turn_per_reply_and_totals_with_the_same_keys(home: dict[str, Path]) -> None:
    ledger = _costs(home, str(FIXTURES / "before-compaction.jsonl"))
    assert len(ledger["turns"]) == 484
    first = ledger["turns"][0]
    assert {"entryId", "input", "output", "cacheRead", "cacheWrite", "cost"} <= first.keys()
    assert {"input", "output", "cacheRead", "cacheWrite", "cost"} <= ledger["totals"].keys()
    assert (first["entryId"], first["input"], first["output"]) == ("00000002", 2775, 141)
    assert (first["cost"], first["costSource"]) == (0.017400000000000002, "recorded")
    assert ledger["totals"]["input"] == sum(turn["input"] for turn in ledger["turns"])
    assert [m["kind"] for m in ledger["markers"]] == ["compaction", "compaction"]
    assert ledger["threshold"] == ledger["contextWindow"] - 16384


def test_a_reply_without_a_recorded_cost_is_priced_from_models_json(home: dict[str, Path], tmp_path: Path) -> None:
    rates = {"input": 2, "output": 8, "cacheRead": 0.5, "cacheWrite": 0}
    models = {"providers": {"anthropic": {"models": [{"id": "claude-test", "cost": rates}]}}}
    (home["agent"] / "models.json").write_text(json.dumps(models), encoding="utf-8")
    reply = {**assistant("a"), "usage": {"input": 100, "output": 10, "cacheRead": 900, "cacheWrite": 0}}
    session = write_session(tmp_path / "s.jsonl", [message("u", None, user("q")), message("a", "u", reply, 2)])
    turn = _costs(home, str(session))["turns"][0]
    assert (turn["costSource"], turn["priceSource"]) == ("computed", "models.json")
    assert turn["cost"] == (2 / 1e6) * 100 + (8 / 1e6) * 10 + (0.5 / 1e6) * 900 + 0


def test_costs_text_shows_a_row_per_turn_the_totals_and_where_prices_come_from(home: dict[str, Path]) -> None:
    result = _run(home, "--costs", str(FIXTURES / "before-compaction.jsonl"))
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("Workspace  ")  # the fixture's cwd is not on this machine: the output says so
    lines = lines[lines.index("") + 1 :]
    assert lines[0].startswith("Costs  ")
    assert any(line.split()[:2] == ["0", "00000002"] and line.endswith("$0.0174") for line in lines)
    assert sum(1 for line in lines if "-- compaction" in line) == 2
    assert any(line.strip().startswith("turns on this branch: 484 requests, $42.60") for line in lines)
    assert "  prices: anthropic/claude-opus-4-5: $5/M input, $25/M output, $0.5/M cache read, $6.25/M cache write " in (
        result.stdout
    )  # no Pi installed here (PI_PACKAGE_DIR points nowhere): Pi 1.6.0's catalog as pi-context bundles it
    assert "(Pi 1.6.0's model catalog, bundled snapshot)" in result.stdout


EXAMPLE = FIXTURES.parents[2] / "examples" / "sessions" / "inventory-fix.jsonl"


def test_costs_say_what_pi_sends_the_session_when_it_loads_the_workspaces_files(home: dict[str, Path]) -> None:
    """The example session recorded another project's AGENTS.md: resumed here, Pi patches two sections."""
    args = ("--cwd", str(home["proj"]), str(EXAMPLE))
    update = _costs(home, *args)["promptUpdate"]
    assert update["mode"] == "replay"  # Pi 1.6.0 gives this model no mid-conversation system messages: resent
    assert list(update["patch"]) == ["project_context", "cwd"]
    assert "Use tabs." in update["patch"]["project_context"]
    cache = update["cache"]
    result = _run(home, "--costs", *args)
    assert result.returncode == 0, result.stderr
    block = result.stdout.split("\nIf Pi loads the workspace's files now (a resumed session, /reload)\n", 1)[1]
    lines = block.splitlines()
    assert lines[0] == f"  Pi's patch: project_context, cwd; {cache['patchTokens']['pi']:,} tokens by Pi's count"
    assert lines[1].startswith(
        f"  this model gets the new prompt at the start: it first differs at character {cache['firstDifference']}, "
        f"after {cache['keptTokens']['pi']:,} tokens; the {cache['resentTokens']['pi']:,} tokens after that"
    )
    assert lines[2].startswith(f"  next request with it: cached 0, new {update['nextRequest']['warm']['newInput']:,}")
    # Anthropic's API reads the cache only up to a breakpoint: a new session keeps nothing of the prompt.
    assert update["newSessionCacheRead"] == {"pi": 0, "estimate": 0}
    assert "none of them read from the cache on this API" in lines[3]


def test_numbers_too_large_for_a_double_count_as_absent_and_the_json_stays_valid(
    home: dict[str, Path], tmp_path: Path
) -> None:
    """``1e999`` reads as Infinity (as in JavaScript). As a timestamp it crashed the ledger (OverflowError);
    as a cost or a count it made totals Infinity/NaN, which no JSON reader accepts."""
    usage = {"input": 100, "output": 10, "cacheRead": 11111, "cacheWrite": 0, "cost": {"total": 22222}}
    reply = {**assistant("a"), "usage": usage, "timestamp": 33333}
    cheap = {"input": 100, "output": 10, "cacheRead": 0, "cacheWrite": 0, "cost": {"total": 0.5}}
    second = {**assistant("b"), "usage": cheap, "timestamp": 44444}
    entries = [message("u", None, user("q")), message("a", "u", reply, 2), message("b", "a", second, 3)]
    session = write_session(tmp_path / "s.jsonl", entries)
    text = session.read_text(encoding="utf-8")
    for marker in ("11111", "22222", "33333"):
        assert text.count(marker) == 1
        text = text.replace(marker, "1e999")
    session.write_text(text, encoding="utf-8")

    def no_constants(name: str) -> None:
        raise AssertionError(f"{name} in the JSON output")

    result = _run(home, "--costs", "--json", str(session))
    assert result.returncode == 0, result.stderr
    ledger = json.loads(result.stdout, parse_constant=no_constants)
    first, later = ledger["turns"]
    assert (first["cacheRead"], first["timestamp"], first["costSource"]) == (0, None, "unknown")  # no prices here
    assert later["cost"] == 0.5 and later["sincePreviousMs"] is None  # no time since an unknown one
    for args in (("--costs", str(session)), (str(session),)):
        shown = _run(home, *args)
        assert shown.returncode == 0 and "Traceback" not in shown.stderr, shown.stderr


RECORDED = FIXTURES.parents[2] / "examples" / "sessions" / "release-notes-fix.jsonl"


def test_the_sample_session_has_the_costs_real_pi_recorded_and_prices_without_an_installed_pi(
    home: dict[str, Path],
) -> None:
    """README's ``--costs`` example: Pi 1.6.0 wrote it (tests/pi_rpc/test_example_session.py); no Pi is needed."""
    ledger = _costs(home, str(RECORDED))
    turns = ledger["turns"]
    assert [(t["input"], t["cacheRead"], t["cacheWrite"], t["output"]) for t in turns] == [
        (4, 0, 3180, 62),
        (3, 3180, 156, 48),
        (3, 3336, 64, 97),
        (3, 3400, 121, 24),
    ]
    assert all(t["costSource"] == "recorded" and t["cost"] > 0 for t in turns)
    assert [t["cost"] for t in turns] == [t["computedCost"] for t in turns]  # Pi's prices are the snapshot's
    (prices,) = ledger["prices"]
    assert prices["detail"].endswith("(Pi 1.6.0's model catalog, bundled snapshot)")
    text = _run(home, "--costs", str(RECORDED)).stdout
    assert (
        "turns on this branch: 4 requests, $0.01968; input 13, cache read 9,916, cache write 3,521, output 231" in text
    )
