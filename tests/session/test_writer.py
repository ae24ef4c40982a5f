"""The session writer: Pi's exact lines, one complete append, and a byte-identical file on any failure."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from lsp_server.session.writer import (
    AppendFailure,
    AppendResult,
    append_entry,
    append_session_name,
    branch_summary_entry,
    compaction_entry,
    entry_bytes,
    iso_timestamp,
    load_for_append,
    new_entry_id,
    write_new_session_file,
)

T0 = 1_735_689_609_000  # 2025-01-01T00:00:09.000Z
HEADER = '{"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/p"}'
USER = (
    '{"type":"message","id":"u1","parentId":null,"timestamp":"2025-01-01T00:00:01.000Z",'
    '"message":{"role":"user","content":"hi","timestamp":1}}'
)


def _session(tmp_path: Path, text: str | None = None) -> Path:
    path = tmp_path / "s.jsonl"
    path.write_bytes((text if text is not None else f"{HEADER}\n{USER}\n").encode("utf-8"))
    return path


def _compaction(entry_id: str = "c0ffee00", **kw: Any) -> dict[str, Any]:
    fields: dict[str, Any] = {
        "entry_id": entry_id,
        "parent_id": "u1",
        "timestamp_ms": T0,
        "summary": "S",
        "first_kept_entry_id": "u1",
        "tokens_before": 12,
        **kw,
    }
    return compaction_entry(**fields)


def _append(path: Path, entry: dict[str, Any] | None = None) -> AppendResult | AppendFailure:
    session = load_for_append(str(path))
    assert session.error is None and session.snapshot is not None
    return append_entry(str(path), entry or _compaction(), session.snapshot, lock_timeout_s=0.2)


def test_a_compaction_line_has_pis_key_order() -> None:
    entry = _compaction(
        details={"readFiles": ["a.ts"], "modifiedFiles": []},
        usage={"input": 1, "output": 2},
        from_hook=False,
        system_message={"role": "system", "content": "", "sections": {"p": "P"}, "timestamp": 5},
    )
    assert entry_bytes(entry).decode() == (
        '{"type":"compaction","id":"c0ffee00","parentId":"u1","timestamp":"2025-01-01T00:00:09.000Z","summary":"S",'
        '"firstKeptEntryId":"u1","tokensBefore":12,"details":{"readFiles":["a.ts"],"modifiedFiles":[]},'
        '"usage":{"input":1,"output":2},"fromHook":false,'
        '"systemMessage":{"role":"system","content":"","sections":{"p":"P"},"timestamp":1735689609000}}\n'
    )


def test_absent_compaction_fields_are_left_out_and_keep_nothing_keeps_its_own_id() -> None:
    entry = _compaction(first_kept_entry_id=None)
    assert list(entry) == ["type", "id", "parentId", "timestamp", "summary", "firstKeptEntryId", "tokensBefore"]
    assert entry["firstKeptEntryId"] == "c0ffee00"


def test_a_branch_summary_line_has_pis_key_order() -> None:
    entry = branch_summary_entry(
        entry_id="b", parent_id=None, timestamp_ms=T0, from_id="u1", summary="S", details={}, from_hook=False
    )
    assert entry_bytes(entry).decode() == (
        '{"type":"branch_summary","id":"b","parentId":null,"timestamp":"2025-01-01T00:00:09.000Z","fromId":"u1",'
        '"summary":"S","details":{},"fromHook":false}\n'
    )


def test_strings_are_written_as_json_stringify_writes_them() -> None:
    line = entry_bytes(_compaction(summary='é 😀 \u2028 \ud800 "q"')).decode("utf-8")
    assert '"summary":"é 😀 \u2028 \\ud800 \\"q\\""' in line


def test_new_ids_are_eight_hex_characters_not_already_used() -> None:
    draws = iter(["aaaaaaaa-1", "aaaaaaaa-2", "bbbbbbbb-3"])
    assert new_entry_id({"aaaaaaaa"}, lambda: next(draws)) == "bbbbbbbb"
    assert len(new_entry_id(set())) == 8


def test_after_a_hundred_collisions_the_id_is_a_whole_uuid() -> None:
    counter = itertools.count()
    assert new_entry_id({"aaaaaaaa"}, lambda: f"aaaaaaaa-{next(counter)}") == "aaaaaaaa-100"


def test_timestamps_are_iso_with_milliseconds_in_utc() -> None:
    assert iso_timestamp(T0 + 7) == "2025-01-01T00:00:09.007Z"


def test_an_append_is_one_complete_line_at_the_end(tmp_path: Path) -> None:
    path = _session(tmp_path)
    before = path.read_bytes()
    result = _append(path)
    assert isinstance(result, AppendResult)
    assert path.read_bytes() == before + result.line
    assert result.offset == len(before)
    reloaded = load_for_append(str(path))
    assert reloaded.leaf_id == "c0ffee00" and reloaded.problems == []


def test_a_missing_final_newline_is_repaired_as_pi_does(tmp_path: Path) -> None:
    path = _session(tmp_path, f"{HEADER}\n{USER}")
    result = _append(path)
    assert isinstance(result, AppendResult) and result.repaired_newline
    assert path.read_bytes() == f"{HEADER}\n{USER}\n".encode() + result.line


def test_a_broken_last_line_is_not_appended_to(tmp_path: Path) -> None:
    path = _session(tmp_path, f'{HEADER}\n{USER}\n{{"type":"mess')
    before = path.read_bytes()
    result = _append(path)
    assert isinstance(result, AppendFailure) and "not valid JSON" in result.message
    assert path.read_bytes() == before


def test_a_file_that_grew_since_it_was_read_is_refused(tmp_path: Path) -> None:
    path = _session(tmp_path)
    session = load_for_append(str(path))
    assert session.snapshot is not None
    with path.open("ab") as handle:
        handle.write(USER.replace("u1", "u2").encode() + b"\n")  # a running agent appended
    before = path.read_bytes()
    result = append_entry(str(path), _compaction(), session.snapshot)
    assert isinstance(result, AppendFailure) and result.changed_under_us
    assert "grew (an agent appended to it)" in result.message and str(path) in result.message
    assert path.read_bytes() == before


def test_a_file_rewritten_with_the_same_size_is_refused(tmp_path: Path) -> None:
    path = _session(tmp_path)
    session = load_for_append(str(path))
    assert session.snapshot is not None
    path.write_bytes(path.read_bytes().replace(b'"hi"', b'"ho"'))
    before = path.read_bytes()
    result = append_entry(str(path), _compaction(), session.snapshot)
    assert isinstance(result, AppendFailure) and "rewritten" in result.message
    assert path.read_bytes() == before


def test_a_replaced_file_is_refused(tmp_path: Path) -> None:
    path = _session(tmp_path)
    session = load_for_append(str(path))
    assert session.snapshot is not None
    replacement = tmp_path / "new.jsonl"
    replacement.write_bytes(path.read_bytes())
    os.replace(replacement, path)
    result = append_entry(str(path), _compaction(), session.snapshot)
    assert isinstance(result, AppendFailure) and "replaced" in result.message
    assert path.read_bytes() == f"{HEADER}\n{USER}\n".encode()


def test_an_old_version_session_is_refused_before_anything_is_planned(tmp_path: Path) -> None:
    path = _session(tmp_path, HEADER.replace('"version":3,', '"version":2,') + "\n" + USER + "\n")
    session = load_for_append(str(path))
    assert session.error is not None and "version 2 session" in session.error and str(path) in session.error


def test_a_file_that_is_not_a_session_is_refused(tmp_path: Path) -> None:
    path = _session(tmp_path, USER + "\n")
    assert load_for_append(str(path)).error == f"Session file is not a valid pi session: {path}"


def test_a_malformed_entry_is_never_written(tmp_path: Path) -> None:
    path = _session(tmp_path)
    before = path.read_bytes()
    bad = _compaction()
    del bad["summary"]
    result = _append(path, bad)
    assert isinstance(result, AppendFailure) and "summary" in result.message
    assert path.read_bytes() == before


def _python(code: str, *args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    return subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(code), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


def test_a_file_locked_by_another_writer_is_refused(tmp_path: Path) -> None:
    path = _session(tmp_path)
    holder = _python(
        """
        import fcntl, sys, time
        handle = open(sys.argv[1], "rb")
        fcntl.flock(handle, fcntl.LOCK_EX)
        print("locked", flush=True)
        time.sleep(30)
        """,
        str(path),
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        before = path.read_bytes()
        result = _append(path)
        assert isinstance(result, AppendFailure) and "locked by another pi-context process" in result.message
        assert path.read_bytes() == before
    finally:
        holder.kill()
        holder.wait()


def test_a_short_write_leaves_the_file_as_it_was(tmp_path: Path) -> None:
    path = _session(tmp_path)
    before = path.read_bytes()
    # The file-size limit lets only part of the line through: os.write returns a short count.
    child = _python(
        """
        import json, resource, signal, sys
        from lsp_server.session.writer import append_entry, compaction_entry, load_for_append
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        session = load_for_append(sys.argv[1])
        entry = compaction_entry(entry_id="c", parent_id="u1", timestamp_ms=0, summary="S" * 500,
                                 first_kept_entry_id="u1", tokens_before=1)
        resource.setrlimit(resource.RLIMIT_FSIZE, (session.snapshot.size + 10, resource.RLIM_INFINITY))
        result = append_entry(sys.argv[1], entry, session.snapshot)
        print(json.dumps(getattr(result, "message", "written")))
        """,
        str(path),
    )
    out, err = child.communicate(timeout=60)
    assert child.returncode == 0, err
    assert json.loads(out).startswith(f"short write to {path} (10 of ")
    assert path.read_bytes() == before


def test_a_new_session_file_is_created_once(tmp_path: Path) -> None:
    path = tmp_path / "new.jsonl"
    header = json.loads(HEADER)
    assert write_new_session_file(str(path), [header]) is None
    assert path.read_text() == HEADER + "\n"
    error = write_new_session_file(str(path), [header])
    assert error is not None and "EEXIST" in error
    assert path.read_text() == HEADER + "\n"


@pytest.mark.parametrize("text", [f"{HEADER}\n{USER}\n", f"{HEADER}\n{USER}\n   "])
def test_whitespace_after_the_last_line_is_not_a_broken_line(tmp_path: Path, text: str) -> None:
    path = _session(tmp_path, text)
    assert isinstance(_append(path), AppendResult)


def test_a_session_name_is_the_session_info_entry_pi_writes_under_the_leaf(tmp_path: Path) -> None:
    path = _session(tmp_path)
    written = append_session_name(str(path), "  Fix\r\n\r\nthe bug ", clock=lambda: T0)
    assert isinstance(written, AppendResult)
    last = path.read_text(encoding="utf-8").splitlines()[-1]
    entry_id = written.entry["id"]
    assert last == (
        f'{{"type":"session_info","id":"{entry_id}","parentId":"u1","timestamp":"2025-01-01T00:00:09.000Z",'
        '"name":"Fix the bug"}'
    )


def test_an_empty_session_name_is_refused_and_nothing_is_written(tmp_path: Path) -> None:
    path = _session(tmp_path)
    before = path.read_bytes()
    refused = append_session_name(str(path), " \r\n ")
    assert isinstance(refused, AppendFailure) and refused.message == "Session name cannot be empty"
    assert path.read_bytes() == before
