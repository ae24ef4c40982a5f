"""Generated files through the real language server (pytest-lsp over stdio): diagnostics arrive, nothing crashes.

Skills, context files, a Pi ``settings.json`` and sessions are generated with the same strategies
as the domain properties (drawn by hypothesis before the server starts), written to the workspace
and opened in the editor. Every opened buffer must be checked (the server's debug state, once idle,
shows its version validated), and a file with findings must get its ``publishDiagnostics`` (a clean
file gets none: the server publishes only changes); each
session must get an answer to a ``pi.compact`` preview (a result or an error, never silence);
afterwards the server must still answer, must have logged no internal error, and every file on
disk must be byte-identical.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lsprotocol import types
from pygls.exceptions import JsonRpcException

from tests.fuzz._tier import fuzz_tier, timed
from tests.fuzz.strategies import PI_SETTING_KEYS, context_texts, session_texts, settings_texts, skill_texts
from tests.lsp.conftest import Launch, Session, Workspace

pytestmark = pytest.mark.fuzz

FILES = 300 if fuzz_tier() else 8
SESSIONS = 40 if fuzz_tier() else 3


def _draw(strategy: st.SearchStrategy[str], count: int) -> list[str]:
    """``count`` examples of ``strategy`` (hypothesis explores as in a property, without a server per case)."""
    drawn: list[str] = []

    @given(strategy)
    @settings(max_examples=count, database=None)
    def collect(text: str) -> None:
        drawn.append(text)

    collect()
    return drawn[:count]


def _safe(text: str) -> str:
    """What an editor can hold: lone surrogates cannot travel in JSON-RPC as text, so they become U+FFFD."""
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def _published(session: Session, uri: str) -> Callable[[], bool]:
    return lambda: uri in session.client.diagnostics


async def test_the_server_publishes_diagnostics_for_every_generated_file_and_stays_up(
    launch: Launch, workspace: Workspace
) -> None:
    skills = _draw(skill_texts(), FILES)
    contexts = _draw(context_texts(), max(1, FILES // 4))
    sessions = _draw(session_texts(), SESSIONS)
    pi_settings = _draw(settings_texts(PI_SETTING_KEYS), 1)[0]
    opened: list[tuple[Path, str]] = []
    for index, text in enumerate(skills):
        opened.append((workspace.root / ".pi" / "skills" / f"fz{index}" / "SKILL.md", _safe(text)))
    for index, text in enumerate(contexts):
        opened.append((workspace.root / f"area{index}" / "AGENTS.md", _safe(text)))
    session_paths = [workspace.agent_dir / "sessions" / "--fuzz--" / f"s{i}.jsonl" for i in range(len(sessions))]
    on_disk = {path: text.encode("utf-8", "surrogatepass") for path, text in opened}
    on_disk |= {path: text.encode("utf-8", "surrogatepass") for path, text in zip(session_paths, sessions, strict=True)}
    on_disk[workspace.root / ".pi" / "settings.json"] = pi_settings.encode("utf-8", "surrogatepass")
    for path, data in on_disk.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)

    session = await launch()
    for path, text in opened:
        uri = workspace.uri(path)
        with timed("server: open -> checked -> diagnostics", text[:200]):
            session.open(path, text)
            state = await session.state(idle=True)  # every check scheduled so far is done
            assert state["stats"]["lastVersion"].get(str(path)) == 1, f"{path} was not checked: {text[:2000]!r}"
            if state["diagnostics"].get(str(path)):  # findings: they must reach the editor (none: nothing is sent)
                try:
                    await session.wait_for(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS, _published(session, uri))
                except TimeoutError:
                    pytest.fail(f"findings for {path} were never published; its text: {text[:2000]!r}")
    for path in session_paths:
        with timed("server: pi.compact preview", path.name):
            try:
                answer = await session.command("pi.compact", {"session": str(path), "previewOnly": True})
                assert answer is not None
            except JsonRpcException as refused:
                assert str(path) in refused.message or "session" in refused.message.lower(), refused.message

    state = await session.state()
    assert state is not None
    errors = [m.message for m in session.client.log_messages if m.type == types.MessageType.Error]
    assert errors == [], json.dumps(errors)[:3000]
    assert {path: path.read_bytes() for path in on_disk} == on_disk
