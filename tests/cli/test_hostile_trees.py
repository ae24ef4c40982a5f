"""Skill trees built to break a walk: a link to /, symlink loops, a tree 1,000 folders deep.

Each is a real tree on disk and a real ``pi-context`` subprocess; the timeout is far above what a
bounded walk takes, so a walk of the whole disk fails the test instead of freezing the suite.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

TIMEOUT_S = 90
SKILL = "---\nname: {name}\ndescription: Does {name} things.\n---\n# {name}\n"


def run(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PI_")}
    env["HOME"] = str(cwd.parent / "home")
    env["PI_CODING_AGENT_DIR"] = str(cwd.parent / "agent")
    return subprocess.run(
        [sys.executable, "-m", "lsp_server", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        check=False,
    )


def skills_dir(tmp_path: Path) -> Path:
    project = tmp_path / "proj"
    folder = project / ".pi" / "skills"
    (folder / "good").mkdir(parents=True)
    (folder / "good" / "SKILL.md").write_text(SKILL.format(name="good"), encoding="utf-8")
    return folder


@pytest.fixture(autouse=True)
def _remove_deep_trees(tmp_path: Path) -> Iterator[None]:
    """pytest's own clean-up (``shutil.rmtree``) recurses once per level: remove the tree with rm."""
    yield
    subprocess.run(["rm", "-rf", str(tmp_path / "proj")], check=False)


def deep_tree(folder: Path, levels: int) -> Path:
    """``levels`` nested folders made with relative mkdirs (an absolute path would pass PATH_MAX)."""
    fd = os.open(folder, os.O_RDONLY)
    try:
        for _ in range(levels):
            os.mkdir("d", dir_fd=fd)
            inner = os.open("d", os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = inner
        skill = os.open("SKILL.md", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
        os.write(skill, SKILL.format(name="d").encode())
        os.close(skill)
    finally:
        os.close(fd)
    return folder


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (
            lambda f: os.symlink("/", f / "disk"),
            "disk:1:1: warning skill/walk-limit symlink to /, a folder that holds it",
        ),
        (lambda f: os.symlink("..", f / "up"), "up:1:1: warning skill/walk-limit symlink to"),
        (lambda f: os.symlink(".", f / "good" / "self"), "self:1:1: warning skill/walk-limit symlink to"),
        (lambda f: deep_tree(f, 1000), "warning skill/walk-limit folder more than 64 levels deep"),
    ],
    ids=["link-to-root", "link-to-parent", "link-to-itself", "1000-deep"],
)
def test_check_stops_at_the_limit_and_says_where(tmp_path: Path, make: object, message: str) -> None:
    folder = skills_dir(tmp_path)
    make(folder)  # type: ignore[operator]
    result = run(folder.parent.parent, "check")
    assert "Traceback" not in result.stderr
    assert result.returncode == 0, result.stderr
    assert any(message in line for line in result.stdout.splitlines()), result.stdout
    assert "1 SKILL.md file," in result.stderr or "2 SKILL.md files," in result.stderr


@pytest.mark.parametrize(
    ("make", "note"),
    [
        (lambda f: os.symlink("/", f / "disk"), "symlink to /, a folder that holds it (a loop); not followed"),
        (lambda f: deep_tree(f, 1000), "folder more than 64 levels deep (the walk's depth limit); not searched"),
    ],
    ids=["link-to-root", "1000-deep"],
)
def test_prompt_of_a_trusted_project_stops_at_the_limit(tmp_path: Path, make: object, note: str) -> None:
    folder = skills_dir(tmp_path)
    make(folder)  # type: ignore[operator]
    result = run(folder.parent.parent, "prompt", "--trusted")
    assert "Traceback" not in result.stderr
    assert result.returncode == 0, result.stderr
    assert "<name>good</name>" in result.stdout
    assert note in result.stderr
