"""The server answers editor requests while it is still checking a big workspace (indexing).

The workspace check queues every file and starts one check per event-loop iteration, so a hover
or a completion that arrives meanwhile is answered between two checks. Order only, no timing: a
workspace of 2,000 broken skills (each gets diagnostics when checked), a hover sent right after
``initialized``, and the count of files with diagnostics when the hover's answer arrives.
"""

from __future__ import annotations

from lsprotocol import types

from tests.lsp.conftest import Launch, Workspace
from tests.lsp.editing_client import encoding_of, position_of

SKILLS = 2_000
TEXT = "---\ndescription: Fill forms\ndisable-model-invocation: yes\n---\nBody\n"


async def test_a_hover_is_answered_before_the_workspace_check_finishes(launch: Launch, workspace: Workspace) -> None:
    for n in range(SKILLS):
        workspace.write(f".pi/skills/s{n:04d}/SKILL.md", f"---\nname: s{n:04d}\n---\n")  # no description: warned
    target = workspace.write(".pi/skills/pdf/SKILL.md", TEXT)
    session = await launch()
    session.open(target, TEXT)
    result = await session.client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=session.workspace.uri(target)),
            position=position_of(TEXT, 2, 3, encoding_of(session)),
        )
    )
    published_when_answered = len(session.client.diagnostics)
    assert result is not None
    await session.state(idle=True)
    assert len(session.client.diagnostics) >= SKILLS  # every broken skill was checked in the end ...
    assert published_when_answered < SKILLS  # ... and the hover was answered before that
