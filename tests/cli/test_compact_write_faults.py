"""Faults while ``pi-context compact`` writes its entry, done for real to a real CLI process.

Each fault is caused, not simulated in our code: the process is killed with ``SIGKILL`` at the
write (a hold point in the child's ``os.write``, the one system call the writer appends with),
the file-size limit or a full tmpfs makes the disk refuse the bytes, the file or its file system
is read-only, and the file is appended to, truncated or replaced by another process while the
model (the fake LLM server, holding its stream) is still summarizing. Each time: the CLI exits
1 with a message naming the file (or succeeds where Pi would), the file is byte-identical to what
it was (or to what the other writer made it), and the next run loses nothing.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from lsp_server.session.tail import load_session
from lsp_server.session.write_journal import note_path
from tests.compaction._sessions import Chain, write_session
from tests.support.fake_llm_server import FakeLlmServer, ScriptedResponse

X = "x" * 400
ROOT = Path(__file__).resolve().parents[2]

# The child: the real CLI, with a hold point in os.write for the session file only. ``before``
# stops before any byte is written, ``partial`` writes half the line (what the kernel leaves when
# SIGKILL lands in the middle of a multi-page write), ``whole`` writes it all but dies before fsync.
HOLD_AT_WRITE = textwrap.dedent(
    """
    import os, sys, time
    session, mode = os.path.realpath(sys.argv[1]), sys.argv[2]
    real_write = os.write
    def write(fd, data):
        try:
            target = os.path.realpath(f"/proc/self/fd/{fd}")
        except OSError:
            target = None
        if target == session:
            if mode == "partial":
                real_write(fd, data[: len(data) // 2])
            elif mode == "whole":
                real_write(fd, data)
            sys.stderr.write(f"HOLD {len(data)}\\n")
            sys.stderr.flush()
            time.sleep(600)
        return real_write(fd, data)
    os.write = write
    from lsp_server.cli import main
    sys.exit(main(sys.argv[3:]))
    """
)


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    agent = tmp_path / "agent"
    agent.mkdir()
    (agent / "settings.json").write_text(json.dumps({"compaction": {"keepRecentTokens": 150}}), encoding="utf-8")
    home = tmp_path / "home"
    home.mkdir()
    out = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ANTHROPIC_", "PI_CODING_AGENT_DIR"))}
    out.pop("XDG_STATE_HOME", None)
    out.pop("PI_CONTEXT_STATE_DIR", None)
    return {
        **out,
        "HOME": str(home),
        "PI_CODING_AGENT_DIR": str(agent),
        "PYTHONPATH": str(ROOT),
        "PI_CONTEXT_STATE_DIR": str(tmp_path / "state"),
        "PYTHONDONTWRITEBYTECODE": "1",
    }


def _chain(pad: int = 0) -> Chain:
    chain = Chain()
    chain.user("Fix the crash in src/app.ts. " + X + "y" * pad)
    chain.assistant("Reading it.", calls=(("read", {"path": "src/app.ts"}),))
    chain.tool_result(X)
    chain.user("Now update the docs. " + X)
    chain.assistant("Done.")
    return chain


@pytest.fixture
def session(tmp_path: Path) -> Path:
    return write_session(tmp_path / "session.jsonl", _chain().entries, cwd=str(tmp_path / "project"))


def _run(env: dict[str, str], *args: str, **kw: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "lsp_server", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
        **kw,
    )


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _valid_session(path: Path) -> list[dict[str, Any]]:
    """The file loads with no bad line, and every line is a whole JSON object."""
    loaded = load_session(str(path))
    assert loaded.problems == [], loaded.problems
    assert path.read_bytes().endswith(b"\n")
    return _lines(path)


# --- kill -9 at the write ----------------------------------------------------------------------------


def _killed_at_write(env: dict[str, str], session: Path, mode: str) -> None:
    child = subprocess.Popen(
        [sys.executable, "-c", HOLD_AT_WRITE, str(session), mode, "compact", str(session)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert child.stderr is not None
        for line in child.stderr:
            if line.startswith("HOLD "):
                break
        else:
            pytest.fail(f"the child never reached the write: {child.wait()}")
        child.send_signal(signal.SIGKILL)
        assert child.wait(timeout=30) == -signal.SIGKILL
    finally:
        with contextlib.suppress(ProcessLookupError):
            child.kill()
        child.wait()


def test_killed_before_the_write_the_file_is_unchanged_and_the_next_run_compacts(
    env: dict[str, str], session: Path
) -> None:
    original = session.read_bytes()
    _killed_at_write(env, session, "before")
    assert session.read_bytes() == original
    again = _run(env, "compact", str(session))
    assert again.returncode == 0, again.stderr
    assert "interrupted" not in again.stderr
    after = _valid_session(session)
    assert session.read_bytes().startswith(original) and after[-1]["type"] == "compaction"


def test_killed_in_the_middle_of_the_line_the_next_run_removes_the_partial_line(
    env: dict[str, str], session: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    original = session.read_bytes()
    _killed_at_write(env, session, "partial")
    torn = session.read_bytes()
    assert torn.startswith(original) and len(torn) > len(original) and not torn.endswith(b"\n")
    monkeypatch.setenv("PI_CONTEXT_STATE_DIR", env["PI_CONTEXT_STATE_DIR"])
    assert Path(note_path(str(session))).exists()  # the note of the write in flight survived the kill

    looked = _run(env, "session", str(session), "--json")  # reading is never stopped by the torn line
    assert looked.returncode == 0, looked.stderr
    assert session.read_bytes() == torn  # ... and a read-only command changes nothing

    again = _run(env, "compact", str(session))
    assert again.returncode == 0, again.stderr
    assert "removed the incomplete last line" in again.stderr and str(session) in again.stderr
    after = _valid_session(session)
    assert session.read_bytes().startswith(original)
    assert len(after) == len(original.splitlines()) + 1 and after[-1]["type"] == "compaction"


def test_killed_after_the_whole_line_the_entry_stays_and_nothing_is_repaired(
    env: dict[str, str], session: Path
) -> None:
    original = session.read_bytes()
    _killed_at_write(env, session, "whole")
    after = _valid_session(session)
    assert session.read_bytes().startswith(original) and after[-1]["type"] == "compaction"
    complete = session.read_bytes()
    again = _run(env, "compact", str(session))
    assert again.returncode == 1 and "Already compacted" in again.stderr
    assert "interrupted" not in again.stderr and session.read_bytes() == complete
    assert list(Path(env["PI_CONTEXT_STATE_DIR"]).rglob("*.json")) == []  # the stale note was dropped


def test_a_partial_line_that_is_not_ours_is_never_removed(env: dict[str, str], session: Path) -> None:
    """No note, no repair: a torn line another program left is reported, not truncated."""
    with session.open("ab") as handle:
        handle.write(b'{"type":"message","id":"torn0001","parentId":')
    torn = session.read_bytes()
    result = _run(env, "compact", str(session))
    assert result.returncode == 1
    assert "has no newline and is not valid JSON" in result.stderr and str(session) in result.stderr
    assert session.read_bytes() == torn


# --- the disk refuses the bytes ----------------------------------------------------------------------


def _file_size_limit(limit: int) -> Callable[[], None]:
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, resource.RLIM_INFINITY))

    return apply


def test_a_file_size_limit_at_the_current_size_is_a_clear_error_not_a_killed_process(
    env: dict[str, str], session: Path
) -> None:
    """SIGXFSZ's default action would kill the CLI at the write; CPython ignores it, so it is EFBIG."""
    original = session.read_bytes()
    result = _run(env, "compact", str(session), preexec_fn=_file_size_limit(len(original)))
    assert result.returncode == 1, result.stderr
    assert f"writing to {session} failed: File too large; nothing was written" in result.stderr
    assert session.read_bytes() == original


def test_a_file_size_limit_inside_the_line_restores_the_file(env: dict[str, str], session: Path) -> None:
    original = session.read_bytes()
    result = _run(env, "compact", str(session), preexec_fn=_file_size_limit(len(original) + 100))
    assert result.returncode == 1, result.stderr
    assert f"short write to {session} (100 of " in result.stderr and "the file was restored" in result.stderr
    assert session.read_bytes() == original


@contextlib.contextmanager
def _mounted(kind: str, *options: str) -> Iterator[Path]:
    """A fresh mount point; skipped with the reason when this machine does not let us mount."""
    if shutil.which("mount") is None or os.geteuid() != 0:
        pytest.skip("mounting a file system needs root and mount(8)")
    point = Path(tempfile.mkdtemp(prefix="pi-context-mount-"))
    done = subprocess.run(["mount", "-t", kind, *options, kind, point], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        point.rmdir()
        pytest.skip(f"cannot mount {kind} here: {done.stderr.strip()}")
    try:
        yield point
    finally:
        subprocess.run(["umount", "-l", point], capture_output=True, check=False)
        shutil.rmtree(point, ignore_errors=True)


def _fill(folder: Path) -> None:
    """Use up every free byte of the file system holding ``folder``."""
    with (folder / "filler").open("wb", buffering=0) as handle:
        with contextlib.suppress(OSError):
            while True:
                handle.write(b"\0" * 4096)
        with contextlib.suppress(OSError):
            while True:
                handle.write(b"\0")


def test_a_full_disk_is_a_clear_error_and_the_file_is_unchanged(env: dict[str, str], tmp_path: Path) -> None:
    with _mounted("tmpfs", "-o", "size=256k") as disk:
        path = disk / "session.jsonl"
        write_session(path, _chain().entries, cwd=str(tmp_path / "project"))
        pad = -path.stat().st_size % 4096  # no slack in the file's last page: any append needs a new one
        write_session(path, _chain(pad).entries, cwd=str(tmp_path / "project"))
        assert path.stat().st_size % 4096 == 0
        _fill(disk)
        original = path.read_bytes()
        result = _run(env, "compact", str(path))
        assert result.returncode == 1, result.stderr
        assert f"writing to {path} failed: No space left on device; nothing was written" in result.stderr
        assert path.read_bytes() == original
        (disk / "filler").unlink()  # space again: the same command now writes its entry
        again = _run(env, "compact", str(path))
        assert again.returncode == 0, again.stderr
        assert path.read_bytes().startswith(original) and _valid_session(path)[-1]["type"] == "compaction"


# --- read-only -----------------------------------------------------------------------------------------


def _without_root_override() -> None:
    """Drop CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH from the bounding set before exec: root then
    obeys mode bits as any user does (the child keeps its uid, so it still reads its own files)."""
    libc = ctypes.CDLL(None, use_errno=True)
    for capability in (1, 2):  # CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH
        if libc.prctl(24, capability, 0, 0, 0) != 0:  # PR_CAPBSET_DROP
            os._exit(97)


def test_a_read_only_file_is_a_clear_error_and_unchanged(env: dict[str, str], session: Path) -> None:
    session.chmod(0o444)
    original = session.read_bytes()
    result = _run(env, "compact", str(session), preexec_fn=_without_root_override if os.geteuid() == 0 else None)
    if result.returncode == 97:
        pytest.skip("cannot drop root's file-permission override here (PR_CAPBSET_DROP refused)")
    assert result.returncode == 1, result.stderr
    assert result.stderr.endswith(f"pi-context: {session}: permission denied\n")
    assert "Traceback" not in result.stderr
    assert session.read_bytes() == original


def test_a_read_only_file_system_is_a_clear_error_and_unchanged(env: dict[str, str], tmp_path: Path) -> None:
    with _mounted("tmpfs", "-o", "size=1m") as disk:
        path = write_session(disk / "session.jsonl", _chain().entries, cwd=str(tmp_path / "project"))
        original = path.read_bytes()
        remount = subprocess.run(["mount", "-o", "remount,ro", disk], capture_output=True, text=True, check=False)
        assert remount.returncode == 0, remount.stderr
        result = _run(env, "compact", str(path))
        assert result.returncode == 1, result.stderr
        assert result.stderr.endswith(f"pi-context: {path}: read-only file system\n")
        assert path.read_bytes() == original


def test_a_read_only_folder_does_not_stop_an_append_and_gains_no_file(env: dict[str, str], tmp_path: Path) -> None:
    """A folder's permissions govern creating names, not appending: Pi's appendFileSync works there,
    and so does ours; pi-context keeps its note of the write elsewhere, so the folder gains nothing."""
    folder = tmp_path / "sessions"
    folder.mkdir()
    path = write_session(folder / "session.jsonl", _chain().entries, cwd=str(tmp_path / "project"))
    original = path.read_bytes()
    folder.chmod(0o555)
    try:
        result = _run(env, "compact", str(path))
        assert result.returncode == 0, result.stderr
        assert sorted(p.name for p in folder.iterdir()) == ["session.jsonl"]
        assert path.read_bytes().startswith(original) and _valid_session(path)[-1]["type"] == "compaction"
    finally:
        folder.chmod(0o755)


# --- another writer while the model summarizes ----------------------------------------------------------


@pytest.fixture
def held_model() -> Iterator[FakeLlmServer]:
    """The model streams one chunk of its summary, then waits for the test to release it."""
    script = ScriptedResponse(text="## Goal\nShip it.\n", chunks=["## Goal\n", "Ship it.\n"], hold_after_chunks=1)
    with FakeLlmServer(default=ScriptedResponse(text="## Goal\nShip it.\n")) as server:
        server.enqueue(script)
        yield server


def _compact_with_model(env: dict[str, str], server: FakeLlmServer, path: Path) -> subprocess.Popen[str]:
    model_env = {**env, "OPENAI_BASE_URL": server.openai_base_url, "OPENAI_API_KEY": "sk-test"}
    return subprocess.Popen(
        [sys.executable, "-m", "lsp_server", "compact", str(path), "--model", "openai/test-model"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=model_env,
    )


def _while_summarizing(
    env: dict[str, str], server: FakeLlmServer, path: Path, meddle: Callable[[], None]
) -> tuple[int, str]:
    child = _compact_with_model(env, server, path)
    try:
        server.wait_until_held(0)
        meddle()
        server.release()
        _out, err = child.communicate(timeout=120)
    finally:
        with contextlib.suppress(ProcessLookupError):
            child.kill()
        child.wait()
    return child.returncode, err


def _agent_entry(parent: str, entry_id: str = "feed0001") -> bytes:
    entry = {
        "type": "message",
        "id": entry_id,
        "parentId": parent,
        "timestamp": "2025-06-02T10:00:00.000Z",
        "message": {"role": "user", "content": "one more thing", "timestamp": 1748858400000},
    }
    return json.dumps(entry, separators=(",", ":")).encode() + b"\n"


def test_an_agent_appending_while_we_summarize_is_refused_and_a_rerun_compacts_the_new_tail(
    env: dict[str, str], session: Path, held_model: FakeLlmServer
) -> None:
    leaf = _lines(session)[-1]["id"]

    def agent_appends() -> None:
        with session.open("ab") as handle:
            handle.write(_agent_entry(leaf))

    code, err = _while_summarizing(env, held_model, session, agent_appends)
    assert code == 1, err
    assert f"{session} grew (an agent appended to it) since it was read" in err
    assert "nothing was written (so the history is not forked)" in err
    grown = _valid_session(session)
    assert grown[-1]["id"] == "feed0001"  # the agent's entry is the last line: nothing of ours after it

    again = _compact_with_model(env, held_model, session)
    _out, err = again.communicate(timeout=120)
    assert again.returncode == 0, err
    entry = _valid_session(session)[-1]
    assert (entry["type"], entry["parentId"]) == ("compaction", "feed0001")


def test_a_file_truncated_while_we_summarize_is_refused_and_left_as_truncated(
    env: dict[str, str], session: Path, held_model: FakeLlmServer
) -> None:
    data = session.read_bytes()
    shorter = data[: data.rstrip(b"\n").rfind(b"\n") + 1]  # the last line taken away

    def truncate() -> None:
        session.write_bytes(shorter)

    code, err = _while_summarizing(env, held_model, session, truncate)
    assert code == 1, err
    assert f"{session} shrank since it was read: {len(data)} -> {len(shorter)} bytes" in err
    assert session.read_bytes() == shorter


def test_a_file_replaced_while_we_summarize_is_refused_and_neither_file_is_written(
    env: dict[str, str], session: Path, held_model: FakeLlmServer, tmp_path: Path
) -> None:
    original = session.read_bytes()
    old_inode = tmp_path / "old-inode.jsonl"
    os.link(session, old_inode)  # keeps the file we read reachable after the replacement

    def replace() -> None:
        fresh = tmp_path / "fresh.jsonl"
        fresh.write_bytes(original)  # same bytes, another file: only its identity tells
        os.replace(fresh, session)

    code, err = _while_summarizing(env, held_model, session, replace)
    assert code == 1, err
    assert f"{session} was replaced since it was read" in err
    assert session.read_bytes() == original and old_inode.read_bytes() == original
