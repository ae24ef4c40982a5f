"""The server on a workspace built to break walks and watchers: it starts, publishes and keeps watching.

A skills folder that links to ``/``, a symlink loop, a tree 1,000 folders deep and a folder whose
name is not valid UTF-8: the initial check publishes diagnostics, the watcher gets ready without
walking the disk, and an edit made on disk afterwards still arrives as new diagnostics.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from lsprotocol import types

from tests.cli.test_hostile_trees import deep_tree
from tests.lsp.conftest import Launch, Session, Workspace

BROKEN = "---\nname: demo\n---\n# Demo\n"
FIXED = "---\nname: demo\ndescription: Shows the demo.\n---\n# Demo\n"
SKILL = ".pi/skills/demo/SKILL.md"


@pytest.fixture(autouse=True)
def _remove_deep_trees(workspace: Workspace) -> Iterator[None]:
    yield
    subprocess.run(["rm", "-rf", str(workspace.root)], check=False)


def _non_utf8_skill(root: Path) -> None:
    folder = os.fsencode(root / ".pi" / "skills") + b"/bad\xff"
    os.mkdir(folder)
    with open(folder + b"/SKILL.md", "wb") as handle:
        handle.write(BROKEN.encode())


def codes(session: Session, path: Path) -> list[str]:
    return sorted(str(d.code) for d in session.client.diagnostics.get(session.workspace.uri(path), []))


async def wait_for_codes(session: Session, path: Path, expected: list[str]) -> None:
    await session.wait_for(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS, lambda: codes(session, path) == expected)


@pytest.mark.parametrize(
    "make",
    [
        lambda root: os.symlink("/", root / ".pi" / "skills" / "disk"),
        lambda root: os.symlink("..", root / ".pi" / "skills" / "up"),
        lambda root: deep_tree(root / ".pi" / "skills", 1000),
        lambda root: os.mkdir(os.fsencode(root / ".pi" / "skills") + b"/bad\xff"),
        lambda root: _non_utf8_skill(root),
    ],
    ids=["link-to-root", "link-to-parent", "1000-deep", "non-utf8-name", "non-utf8-skill"],
)
async def test_the_server_starts_publishes_and_keeps_watching(
    launch: Launch, workspace: Workspace, make: object
) -> None:
    path = workspace.write(SKILL, BROKEN)
    make(workspace.root)  # type: ignore[operator]
    session = await launch()
    await wait_for_codes(session, path, ["skill/description-missing", "skill/not-loaded"])
    await session.state(watcherReady=True)
    path.write_text(FIXED, encoding="utf-8")
    await wait_for_codes(session, path, [])
    state = await session.state()
    assert state["watcher"]["running"], state["watcher"]


async def test_a_non_utf8_folder_made_after_start_does_not_stop_the_watcher(
    launch: Launch, workspace: Workspace
) -> None:
    path = workspace.write(SKILL, BROKEN)
    session = await launch()
    await wait_for_codes(session, path, ["skill/description-missing", "skill/not-loaded"])
    await session.state(watcherReady=True)
    os.mkdir(os.fsencode(workspace.root) + b"/bad\xff")
    os.mkdir(os.fsencode(workspace.root / ".pi" / "skills") + b"/worse\xfe")
    path.write_text(FIXED, encoding="utf-8")
    await wait_for_codes(session, path, [])
    path.write_text(BROKEN, encoding="utf-8")
    await wait_for_codes(session, path, ["skill/description-missing", "skill/not-loaded"])
