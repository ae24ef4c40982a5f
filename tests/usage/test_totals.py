"""Usage across sessions: totals equal to the per-session ledgers, each copied request counted once.

On Pi's two fixture sessions (937 paid replies, real Anthropic usage) the totals are the two ledgers'
``sessionTotals`` summed, and every group is recomputed here from the raw JSON lines. On the real Pi's
forks and clones (``fixtures/real-pi-forks``: A, its clone B, B's fork C, ``pi --fork A`` D) each paid
request is counted once, in the session that made it, whatever the order the files are read in, with
the parent outside the folders read, and with a parent that was deleted.
"""

from __future__ import annotations

import datetime as dt
import json
import math
import shutil
from collections import defaultdict
from pathlib import Path

import pytest

from lsp_server.budget.models import read_models_json
from lsp_server.cost.ledger import build_ledger
from lsp_server.cost.prices import ModelPrices, PriceCatalog
from lsp_server.session.tail import load_session
from lsp_server.session.tree import build_path
from lsp_server.usage.cache import UsageCache
from lsp_server.usage.collect import UsageQuery, UsageRun, collect
from tests.usage._folders import forks_folder, lines, pi_fixture_folder


def no_prices(provider: str | None, model: str | None) -> ModelPrices:
    return ModelPrices(provider, model, None, (), "unknown", None, None, "unknown")


def run(*roots: Path, prices: PriceCatalog | None = None, **query: object) -> UsageRun:
    prices_for = prices.prices_for if prices is not None else no_prices
    return collect(
        UsageQuery(tuple(str(root) for root in roots), timezone="UTC", **query),  # type: ignore[arg-type]
        UsageCache(None),
        prices_for,
    )


def test_totals_over_pis_fixture_sessions_are_their_ledgers_summed(tmp_path: Path) -> None:
    folder = pi_fixture_folder(tmp_path)
    report = run(folder).report.to_json()
    ledgers = []
    for path in sorted(folder.rglob("*.jsonl")):
        session = load_session(path)
        branch = build_path(session.entries, by_id=session.index.by_id)
        ledgers.append(build_ledger(branch, no_prices, all_entries=session.entries).session_totals)
    totals = report["totals"]
    assert totals["requests"] == sum(ledger.requests for ledger in ledgers) == 937
    for key, attribute in (("input", "input"), ("output", "output"), ("cacheRead", "cache_read")):
        assert totals[key] == sum(getattr(ledger, attribute) for ledger in ledgers)
    assert totals["cacheWrite"] == sum(ledger.cache_write for ledger in ledgers)
    assert math.isclose(totals["cost"], math.fsum(ledger.cost for ledger in ledgers), rel_tol=1e-12)
    assert round(totals["cost"], 4) == round(42.5959075 + 30.3301977, 4)
    assert totals["unknownCost"] == 0 and totals["sessions"] == 2
    by_path = {session["path"]: session for session in report["sessions"]}
    assert sorted(session["requests"] for session in by_path.values()) == [453, 484]


@pytest.mark.parametrize("by", ["day", "week", "month", "model"])
def test_every_group_is_the_sum_of_its_replies_read_from_the_raw_lines(tmp_path: Path, by: str) -> None:
    folder = pi_fixture_folder(tmp_path)
    groups = {group["key"]: group for group in run(folder, by=by).report.to_json()["groups"]}
    expected: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for path in folder.rglob("*.jsonl"):
        for line in lines(path):
            message = line.get("message") or {}
            if line.get("type") != "message" or message.get("role") != "assistant":
                continue
            day = dt.datetime.fromtimestamp(message["timestamp"] / 1000, dt.UTC).date()  # the request's start
            key = {
                "day": day.isoformat(),
                "week": "{:04d}-W{:02d}".format(*day.isocalendar()[:2]),
                "month": day.isoformat()[:7],
                "model": f"{message['provider']}/{message['model']}",
            }[by]
            usage = message["usage"]
            expected[key]["requests"] += 1
            expected[key]["input"] += usage["input"]
            expected[key]["cacheRead"] += usage["cacheRead"]
            expected[key]["cost"] += usage["cost"]["total"]
    assert set(groups) == set(expected)
    for key, sums in expected.items():
        assert groups[key]["requests"] == sums["requests"]
        assert groups[key]["input"] == sums["input"] and groups[key]["cacheRead"] == sums["cacheRead"]
        assert math.isclose(groups[key]["cost"], sums["cost"], rel_tol=1e-12, abs_tol=1e-12)


def test_since_and_until_are_inclusive_days_in_the_time_zone(tmp_path: Path) -> None:
    folder = pi_fixture_folder(tmp_path)
    every = {group["key"]: group for group in run(folder).report.to_json()["groups"]}
    days = sorted(every)
    assert len(days) >= 3
    report = run(folder, since=dt.date.fromisoformat(days[1]), until=dt.date.fromisoformat(days[-2])).report
    kept = report.to_json()
    assert [group["key"] for group in kept["groups"]] == days[1:-1]
    assert kept["totals"]["requests"] == sum(every[day]["requests"] for day in days[1:-1])
    assert (kept["since"], kept["until"]) == (days[1], days[-2])


def test_a_fork_or_clone_counts_only_the_requests_it_added(tmp_path: Path) -> None:
    sessions, files, agent = forks_folder(tmp_path)
    prices = PriceCatalog(models_json=read_models_json(str(agent)))
    report = run(sessions, prices=prices).report.to_json()
    by_path = {session["path"]: session for session in report["sessions"]}
    turns = {key: by_path[str(path)]["turns"] for key, path in files.items()}
    shared = {key: by_path[str(path)]["sharedRequests"] for key, path in files.items()}
    assert turns == {"a": 2, "b": 1, "c": 1, "d": 1}
    assert shared == {"a": 0, "b": 2, "c": 1, "d": 2}
    naive = sum(
        1 for path in files.values() for line in lines(path) if (line.get("message") or {}).get("role") == "assistant"
    )
    assert (report["totals"]["turns"], naive) == (5, 10)
    # A clone adds only its new turn: its totals are its own ledger minus what it copied from A.
    copied = {line["id"] for line in lines(files["a"]) if "id" in line}
    clone = load_session(files["b"])
    own = [entry for entry in clone.entries if entry["id"] not in copied]
    ledger = build_ledger(own, prices.prices_for, all_entries=own).session_totals
    assert (by_path[str(files["b"])]["input"], by_path[str(files["b"])]["output"]) == (ledger.input, ledger.output)
    assert by_path[str(files["b"])]["cost"] == ledger.cost > 0
    assert report["totals"]["input"] == 1000 + 60 + 70 + 80 + 90


def test_who_counts_a_copied_request_does_not_depend_on_the_order_files_are_read(tmp_path: Path) -> None:
    _sessions, files, _agent = forks_folder(tmp_path)
    forward = run(*(files[key] for key in "abcd")).report.to_json()
    backward = run(*(files[key] for key in "dcba")).report.to_json()
    key = lambda report: sorted((s["path"], s["turns"], s["sharedRequests"]) for s in report["sessions"])  # noqa: E731
    assert key(forward) == key(backward)
    assert forward["totals"] == backward["totals"]


def test_a_parent_outside_the_folders_read_keeps_its_requests(tmp_path: Path) -> None:
    _sessions, files, _agent = forks_folder(tmp_path)
    report = run(files["b"]).report.to_json()  # only the clone is asked for; A is read to know what it copied
    (only,) = report["sessions"]
    assert (only["path"], only["turns"], only["sharedRequests"]) == (str(files["b"]), 1, 2)
    assert report["totals"]["turns"] == 1


def test_a_copy_whose_parent_was_deleted_counts_what_only_it_still_holds(tmp_path: Path) -> None:
    sessions, files, _agent = forks_folder(tmp_path)
    files["a"].unlink()  # B and D both copied A's two turns; B was created first, so B keeps them
    report = run(sessions).report.to_json()
    by_path = {session["path"]: session for session in report["sessions"]}
    assert {key: by_path[str(files[key])]["turns"] for key in "bcd"} == {"b": 3, "c": 1, "d": 1}
    assert report["totals"]["turns"] == 5


def test_a_loop_of_parent_headers_ends_with_a_note(tmp_path: Path) -> None:
    sessions, files, _agent = forks_folder(tmp_path)
    head, *rest = files["a"].read_text(encoding="utf-8").splitlines(keepends=True)
    header = json.loads(head)
    header["parentSession"] = str(files["c"])  # A names C, C names B, B names A
    files["a"].write_text(json.dumps(header) + "\n" + "".join(rest), encoding="utf-8")
    report = run(sessions).report.to_json()
    assert report["totals"]["turns"] == 5
    assert any("loop" in note for note in report["notes"])


def test_files_that_are_not_sessions_are_listed_with_the_reason(tmp_path: Path) -> None:
    sessions, files, _agent = forks_folder(tmp_path)
    folder = files["a"].parent
    (folder / "notes.jsonl").write_text('{"hello": 1}\n', encoding="utf-8")
    (folder / "empty.jsonl").write_text("", encoding="utf-8")
    (folder / "array-first.jsonl").write_text('[1]\n{"type":"session","id":"x","version":3}\n', encoding="utf-8")
    shutil.copyfile(files["a"], folder / "copy-of-a.jsonl")  # the same requests in an unrelated file: counted once
    report = run(sessions).report.to_json()
    skipped = {Path(item["path"]).name: item["reason"] for item in report["skipped"]}
    assert set(skipped) == {"notes.jsonl", "empty.jsonl", "array-first.jsonl"}
    assert all("not a valid pi session" in reason for reason in skipped.values())
    assert report["totals"]["turns"] == 5
