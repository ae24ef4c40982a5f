"""The server while a big file is being checked: other files, hover and shutdown are answered meanwhile.

The big file is a real SKILL.md of 7 MiB (under the 8 MiB above which bodies are not checked)
with a link on every line to a file that exists: checking its 150,000 links takes a second or
more. The checks run in worker threads, so the small file's diagnostics and a hover arrive while
the big one is still running, the big one gets ``file/not-fully-checked`` when it outlasts its
budget, and ``shutdown`` is answered without waiting for it.

The time budget is the setting ``limits.checkBudgetMs``, set here to 1 ms: no machine checks 7 MiB
that fast, so the note is certain however quick the machine (the default 2 s is not: the check
takes under 2 s on a quiet one). The small file may outlast 1 ms too, so its wait is for its findings.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from lsprotocol import types

from tests.lsp.conftest import Launch, Session

BROKEN = "---\nname: demo\n---\n# Demo\n"
LINE = "See [the guide](docs/guide.md) for this step.\n"
BIG = "---\nname: big\ndescription: A big skill.\n---\n" + LINE * (7 * 1024 * 1024 // len(LINE))
BUDGET = {"limits": {"checkBudgetMs": 1}}
FINDINGS_OF_SMALL = ["skill/description-missing", "skill/not-loaded"]


def codes(session: Session, path: Path) -> list[str]:
    return sorted(str(d.code) for d in session.client.diagnostics.get(session.workspace.uri(path), []))


async def test_a_big_file_being_checked_does_not_hold_up_the_others(launch: Launch) -> None:
    session = await launch(init_options=BUDGET)
    workspace = session.workspace
    big = workspace.root / ".pi" / "skills" / "big" / "SKILL.md"
    workspace.write(".pi/skills/big/docs/guide.md", "# Guide\n")
    small = workspace.root / ".pi" / "skills" / "demo" / "SKILL.md"
    session.open(big, BIG)
    session.open(small, BROKEN)
    await session.wait_for(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS, lambda: codes(session, small) == FINDINGS_OF_SMALL)
    unfinished = ([], ["file/not-fully-checked"])
    assert codes(session, big) in unfinished  # the big one is still being checked
    hover = await session.client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=workspace.uri(small)), position=types.Position(1, 2)
        )
    )
    assert hover is not None
    assert codes(session, big) in unfinished
    await session.wait_for(
        types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS, lambda: codes(session, big) == ["file/not-fully-checked"]
    )
    (note,) = session.client.diagnostics[workspace.uri(big)]
    assert note.message == "not fully checked yet: checking this file takes more than 0.001 s; its findings follow"
    await asyncio.wait_for(session.client.shutdown_session(), 10)  # answered while the check still runs


async def test_the_big_files_findings_follow_the_note(launch: Launch) -> None:
    session = await launch(init_options=BUDGET)
    workspace = session.workspace
    big = workspace.root / ".pi" / "skills" / "big" / "SKILL.md"
    workspace.write(".pi/skills/big/docs/guide.md", "# Guide\n")
    session.open(big, BIG)
    await session.wait_for(
        types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS, lambda: codes(session, big) == ["file/not-fully-checked"]
    )
    await session.wait_for(
        types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS, lambda: codes(session, big) == ["skill/body-too-long"], timeout=120
    )
