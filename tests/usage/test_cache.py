"""The usage cache: a second run reads no session byte, a grown file is read from where it stopped.

Every test runs ``collect`` twice through a cache file on disk (as two ``pi-context usage`` runs do)
and checks what the second run read (``scan``) and that its totals are what reading everything
again gives.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

from lsp_server.cost.prices import ModelPrices
from lsp_server.usage.cache import UsageCache
from lsp_server.usage.collect import UsageQuery, UsageRun, collect
from tests.usage._folders import appended_turn, forks_folder, pi_fixture_folder


def no_prices(provider: str | None, model: str | None) -> ModelPrices:
    return ModelPrices(provider, model, None, (), "unknown", None, None, "unknown")


def run(root: Path, cache_file: Path | None) -> UsageRun:
    cache = UsageCache(str(cache_file) if cache_file is not None else None)
    cache.load()
    return collect(UsageQuery((str(root),), timezone="UTC"), cache, no_prices)


def test_a_second_run_over_an_unchanged_folder_reads_no_session_byte(tmp_path: Path) -> None:
    folder = pi_fixture_folder(tmp_path)
    cache_file = tmp_path / "cache" / "usage.json"
    first = run(folder, cache_file).report
    assert (first.scan.loaded, first.scan.unchanged) == (2, 0)
    assert first.scan.bytes_read == sum(path.stat().st_size for path in folder.rglob("*.jsonl"))
    second = run(folder, cache_file).report
    assert (second.scan.files, second.scan.unchanged, second.scan.bytes_read) == (2, 2, 0)
    assert second.to_json()["totals"] == first.to_json()["totals"]
    # Not read indeed: a file whose bytes changed under the same inode, size and time is taken from the cache.
    path = next(folder.rglob("large-session.jsonl"))
    st = path.stat()
    data = path.read_bytes()
    path.write_bytes(data.replace(b'"input":', b'"INPUT":', 1))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    third = run(folder, cache_file).report
    assert third.scan.bytes_read == 0 and third.to_json()["totals"] == first.to_json()["totals"]
    assert not list(cache_file.parent.glob(".usage-*"))  # written by rename, nothing left behind


def test_a_grown_file_is_read_from_where_the_last_run_stopped(tmp_path: Path) -> None:
    sessions, files, _agent = forks_folder(tmp_path)
    cache_file = tmp_path / "usage.json"
    first = run(sessions, cache_file).report
    path = files["c"]
    size = path.stat().st_size
    added = appended_turn(path, 1)
    with path.open("a", encoding="utf-8") as handle:
        handle.write(added)
    second = run(sessions, cache_file).report
    assert (second.scan.unchanged, second.scan.appended, second.scan.loaded) == (3, 1, 0)
    assert second.scan.bytes_read == len(added.encode()) + min(4096, size) + 64
    assert second.totals.turns == first.totals.turns + 1
    assert second.totals.input == first.totals.input + 7
    assert math.isclose(second.totals.cost, first.totals.cost + 0.5, rel_tol=1e-12)
    fresh = run(sessions, None).report
    assert second.to_json()["totals"] == fresh.to_json()["totals"]
    assert second.to_json()["sessions"] == fresh.to_json()["sessions"]


def test_a_last_line_without_its_newline_is_counted_once_before_and_after_it_is_completed(tmp_path: Path) -> None:
    sessions, files, _agent = forks_folder(tmp_path)
    cache_file = tmp_path / "usage.json"
    before = run(sessions, cache_file).report.totals.turns
    path = files["a"]
    line = appended_turn(path, 2, newline=False)
    with path.open("a", encoding="utf-8") as handle:
        handle.write(line[:40])  # Pi is writing the line
    assert run(sessions, cache_file).report.totals.turns == before
    with path.open("a", encoding="utf-8") as handle:
        handle.write(line[40:])  # complete JSON, still no newline: Pi would read it as an entry
    assert run(sessions, cache_file).report.totals.turns == before + 1
    with path.open("a", encoding="utf-8") as handle:
        handle.write("\n")
    again = run(sessions, cache_file).report
    assert again.totals.turns == before + 1 and again.scan.appended == 1


def test_a_file_rewritten_from_the_start_is_read_whole(tmp_path: Path) -> None:
    sessions, files, _agent = forks_folder(tmp_path)
    cache_file = tmp_path / "usage.json"
    run(sessions, cache_file)
    path = files["d"]
    text = path.read_text(encoding="utf-8")
    with path.open("r+", encoding="utf-8") as handle:  # the same inode, other first bytes, longer
        handle.write(text.replace('"version":3', '"version":3 ', 1) + appended_turn(path, 3))
    second = run(sessions, cache_file).report
    assert (second.scan.loaded, second.scan.appended) == (1, 0)
    assert second.to_json()["totals"] == run(sessions, None).report.to_json()["totals"]


def test_an_old_session_that_changes_is_read_whole(tmp_path: Path) -> None:
    folder = pi_fixture_folder(tmp_path)  # v1 files: their entry ids come from the migration
    cache_file = tmp_path / "usage.json"
    run(folder, cache_file)
    path = next(folder.rglob("large-session.jsonl"))
    with path.open("a", encoding="utf-8") as handle:
        handle.write(
            '{"type":"message","timestamp":"2025-11-22T00:00:00.000Z","message":{"role":"user","content":"x"}}\n'
        )
    second = run(folder, cache_file).report
    assert (second.scan.loaded, second.scan.unchanged) == (1, 1)


def test_a_damaged_cache_is_set_aside_with_a_note(tmp_path: Path) -> None:
    sessions, _files, _agent = forks_folder(tmp_path)
    cache_file = tmp_path / "usage.json"
    first = run(sessions, cache_file).report
    cache_file.write_text('{"version": 1, "limits": [536870912, 67108864], "files": {"x": {"identity": 3}}}')
    second = run(sessions, cache_file).report
    assert second.scan.loaded == 4 and any("damaged" in note for note in second.notes)
    assert second.to_json()["totals"] == first.to_json()["totals"]
    cache_file.write_text("not json")
    assert any("cannot be read" in note for note in run(sessions, cache_file).report.notes)
    assert run(sessions, cache_file).report.scan.unchanged == 4  # rebuilt and usable again


def test_a_deleted_session_leaves_the_cache(tmp_path: Path) -> None:
    sessions, files, _agent = forks_folder(tmp_path)
    cache_file = tmp_path / "usage.json"
    run(sessions, cache_file)
    files["d"].unlink()
    second = run(sessions, cache_file).report
    assert second.totals.turns == 4
    assert str(files["d"]) not in json.loads(cache_file.read_text())["files"]
