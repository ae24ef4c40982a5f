"""Where sessions live and a cheap look at each one."""

from __future__ import annotations

import json
import os
from pathlib import Path

from lsp_server.session.folders import (
    default_session_dir,
    encode_cwd,
    list_sessions,
    most_recent_session,
    peek_session,
    read_session_header,
    resolve_session_dir,
    session_activity_ms,
    session_file_name,
    session_title,
)
from tests.session._entries import assistant, header, jsonl, message, ts, usage, user


def _info(entry_id: str, parent: str, name: str) -> dict[str, object]:
    return {"type": "session_info", "id": entry_id, "parentId": parent, "timestamp": ts(3), "name": name}


def _session(path: Path, *entries: object, cwd: str = "/p", mtime: int | None = None) -> Path:
    path.write_text(jsonl(header(session_id=path.stem, cwd=cwd), *entries))
    if mtime is not None:
        os.utime(path, (mtime, mtime))
    return path


def test_cwd_is_encoded_with_dashes_between_double_dashes() -> None:
    assert encode_cwd("/home/me/proj") == "--home-me-proj--"
    assert encode_cwd("/a:b\\c") == "--a-b-c--"


def test_default_dir_is_under_the_agent_dir() -> None:
    assert default_session_dir("/x/./y/", "/agent") == "/agent/sessions/--x-y--"


def test_session_dir_precedence_flag_env_settings_default() -> None:
    env = {"PI_CODING_AGENT_SESSION_DIR": "/from-env"}
    assert resolve_session_dir("/p", flag="/flag", settings_session_dir="/s", env=env).source == "flag"
    assert resolve_session_dir("/p", settings_session_dir="/s", env=env).path == "/from-env"
    assert resolve_session_dir("/p", settings_session_dir="/s", env={}).source == "settings"
    choice = resolve_session_dir("/p", agent_dir="/agent", env={})
    assert (choice.path, choice.source, choice.filter_by_cwd) == ("/agent/sessions/--p--", "default", False)


def test_a_custom_dir_filters_by_cwd_and_expands_tilde() -> None:
    choice = resolve_session_dir("/p", env={"PI_CODING_AGENT_SESSION_DIR": "~/sessions"})
    assert choice.filter_by_cwd
    assert choice.path.endswith("/sessions")
    assert not choice.path.startswith("~")


def test_file_name_replaces_colons_and_dots() -> None:
    assert session_file_name("2025-01-01T00:00:00.000Z", "abc") == "2025-01-01T00-00-00-000Z_abc.jsonl"


def test_header_is_the_first_parseable_line(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text("\nnot json\nnull\n" + jsonl(header()))
    assert read_session_header(str(path)) == header()
    path.write_text(jsonl(message("a", None, user("x")), header()))
    assert read_session_header(str(path)) is None


def test_peek_gives_the_latest_name_and_entry_lines(tmp_path: Path) -> None:
    path = _session(
        tmp_path / "s.jsonl",
        message("a", None, user("x")),
        _info("i1", "a", "  First\n"),
        message("b", "i1", user("y")),
        _info("i2", "b", "Second "),
    )
    summary = peek_session(str(path))
    assert summary is not None
    assert (summary.id, summary.cwd, summary.name, summary.entry_lines) == ("s", "/p", "Second", 4)


def test_an_empty_name_clears_the_session_name(tmp_path: Path) -> None:
    path = _session(tmp_path / "s.jsonl", _info("i1", "a", "Named"), _info("i2", "i1", "   "))
    summary = peek_session(str(path))
    assert summary is not None and summary.name is None


def test_peek_gives_the_first_user_message_the_last_model_and_the_recorded_cost(tmp_path: Path) -> None:
    priced = usage()
    priced["cost"]["total"] = 0.0125
    later = {**assistant("b"), "provider": "openai", "model": "gpt-test", "usage": priced}
    path = _session(
        tmp_path / "s.jsonl",
        message(
            "a",
            None,
            user([{"type": "image", "data": "x"}, {"type": "text", "text": "first"}, {"type": "text", "text": "ask"}]),
        ),
        message("b", "a", {**assistant("a"), "usage": priced}),
        message("c", "b", user("second")),
        message("d", "c", later),
    )
    summary = peek_session(str(path))
    assert summary is not None
    assert (summary.first_message, summary.model, summary.cost) == ("first ask", "openai/gpt-test", 0.025)
    assert summary.title == "first ask"


def test_a_session_without_replies_has_no_model_and_no_cost(tmp_path: Path) -> None:
    path = _session(tmp_path / "s.jsonl", message("a", None, user("hello")))
    summary = peek_session(str(path))
    assert summary is not None and (summary.model, summary.cost, summary.title) == (None, None, "hello")


def test_a_title_is_the_name_else_the_first_message_on_one_line_and_bounded_else_the_id() -> None:
    assert session_title("Named", "first message", "id") == "Named"
    assert session_title(None, "  fix\tthe\n\n  bug \x07 now ", "id") == "fix the bug now"
    long = session_title(None, "word " * 40, "id")
    assert len(long) == 80 and long.endswith("…") and "\n" not in long
    assert session_title(None, None, "0197-abc") == "0197-abc"
    assert session_title("", " \n ", "0197-abc") == "0197-abc"


def test_sessions_are_listed_newest_mtime_first_and_filtered_by_cwd(tmp_path: Path) -> None:
    _session(tmp_path / "old.jsonl", mtime=1_000)
    _session(tmp_path / "new.jsonl", mtime=2_000)
    _session(tmp_path / "other.jsonl", cwd="/elsewhere", mtime=3_000)
    (tmp_path / "junk.jsonl").write_text("nope\n")
    (tmp_path / "notes.txt").write_text(jsonl(header()))
    assert [s.id for s in list_sessions(str(tmp_path))] == ["other", "new", "old"]
    assert [s.id for s in list_sessions(str(tmp_path), cwd="/p")] == ["new", "old"]
    assert most_recent_session(str(tmp_path), cwd="/p") == str(tmp_path / "new.jsonl")


def test_resume_order_uses_the_last_message_time(tmp_path: Path) -> None:
    busy = _session(tmp_path / "busy.jsonl", message("a", None, user("x", timestamp=9_000)), mtime=1_000)
    _session(tmp_path / "quiet.jsonl", message("a", None, user("x", timestamp=5_000)), mtime=2_000)
    assert session_activity_ms(str(busy)) == 9_000
    assert [s.id for s in list_sessions(str(tmp_path), with_activity=True)] == ["busy", "quiet"]


def test_activity_falls_back_to_the_entry_time_for_messages_without_one(tmp_path: Path) -> None:
    entry = message("a", None, {**assistant(), "timestamp": "soon"})
    path = _session(tmp_path / "s.jsonl", entry)
    assert session_activity_ms(str(path)) == 1735689601000
    assert json.loads(path.read_text().splitlines()[1])["id"] == "a"
