"""The watcher: which files count, how raw events coalesce, and a real watcher thread on disk."""

from __future__ import annotations

import queue
import threading
from pathlib import Path

import pytest
from watchfiles import Change

from lsp_server.workspace.watch import WatchBatch, WorkspaceWatcher, coalesce, expand_new_folders, is_relevant

WAIT_S = 30.0

ROOT = "/ws"


@pytest.mark.parametrize(
    "path",
    [
        "/ws/AGENTS.md",
        "/ws/sub/AGENTS.override.md",
        "/ws/CLAUDE.md",
        "/ws/pkg/CLAUDE.MD",
        "/ws/.pi/SYSTEM.md",
        "/ws/.pi/APPEND_SYSTEM.md",
        "/ws/any/where/SKILL.md",
        "/ws/.pi/skills/notes.md",
        "/ws/.pi/skills/my-skill",
        "/ws/.pi/settings.json",
        "/ws/sessions/--x--/2026_abc.jsonl",
    ],
)
def test_files_pi_reads_are_relevant(path: str) -> None:
    assert is_relevant(path, ROOT)


@pytest.mark.parametrize(
    "path",
    [
        "/ws/README.md",
        "/ws/src/main.py",
        "/ws/.vscode/settings.json",
        "/ws/.git/AGENTS.md",
        "/ws/node_modules/pkg/SKILL.md",
        "/ws/.venv/lib/CLAUDE.md",
        "/ws/.pi/skills/tool.py",
        "/ws/AGENTS.md.swp",
        "/elsewhere/AGENTS.md",
    ],
)
def test_other_files_and_ignored_folders_are_not(path: str) -> None:
    assert not is_relevant(path, ROOT)


def test_ignored_folder_names_count_only_below_the_root() -> None:
    assert is_relevant("/home/u/.venv/project/AGENTS.md", "/home/u/.venv/project")


def test_settings_and_trust_store_of_the_agent_dir_are_relevant() -> None:
    agent = "/home/u/.pi/agent"
    assert is_relevant(f"{agent}/settings.json", agent, [agent])
    assert is_relevant(f"{agent}/trust.json", agent, [agent])
    assert not is_relevant("/ws/trust.json", ROOT, [agent])


def test_coalesce_reads_the_final_state_from_disk() -> None:
    raw = {
        (Change.added, "/ws/new.md"),
        (Change.modified, "/ws/new.md"),
        (Change.modified, "/ws/edited.md"),
        (Change.deleted, "/ws/saved.md"),  # editors save by delete + recreate
        (Change.added, "/ws/saved.md"),
        (Change.added, "/ws/flash.md"),  # created and removed inside the window
        (Change.deleted, "/ws/flash.md"),
    }
    present = {"/ws/new.md", "/ws/edited.md", "/ws/saved.md"}
    batch = coalesce(raw, exists=present.__contains__)
    assert batch == WatchBatch(
        added=frozenset({"/ws/new.md"}),
        modified=frozenset({"/ws/edited.md", "/ws/saved.md"}),
        deleted=frozenset({"/ws/flash.md"}),
    )


def test_batch_without_drops_the_skipped_paths() -> None:
    batch = WatchBatch(frozenset({"/a"}), frozenset({"/b"}), frozenset({"/c"}))
    assert batch.without(lambda p: p in {"/a", "/c"}) == WatchBatch(modified=frozenset({"/b"}))
    assert not WatchBatch()


def _start(roots: list[Path], **kwargs: object) -> tuple[WorkspaceWatcher, queue.Queue[WatchBatch]]:
    batches: queue.Queue[WatchBatch] = queue.Queue()
    watcher = WorkspaceWatcher([str(r) for r in roots], batches.put, debounce_ms=50, **kwargs)  # type: ignore[arg-type]
    watcher.start()
    assert watcher.wait_ready(WAIT_S)
    return watcher, batches


def _next_with(batches: queue.Queue[WatchBatch], path: Path) -> WatchBatch:
    while True:
        batch = batches.get(timeout=WAIT_S)
        if str(path) in batch.paths():
            return batch


def test_watcher_reports_a_new_file_on_disk(tmp_path: Path) -> None:
    watcher, batches = _start([tmp_path])
    try:
        target = tmp_path / "AGENTS.md"
        target.write_text("hello", encoding="utf-8")
        batch = _next_with(batches, target)
        assert str(target) in batch.added | batch.modified
    finally:
        watcher.stop()


def test_watcher_reports_a_deleted_file(tmp_path: Path) -> None:
    target = tmp_path / ".pi" / "skills" / "a" / "SKILL.md"
    target.parent.mkdir(parents=True)
    target.write_text("x", encoding="utf-8")
    watcher, batches = _start([tmp_path])
    try:
        target.unlink()
        assert str(target) in _next_with(batches, target).deleted
    finally:
        watcher.stop()


def test_watcher_ignores_irrelevant_files(tmp_path: Path) -> None:
    watcher, batches = _start([tmp_path])
    try:
        (tmp_path / "notes.txt").write_text("x", encoding="utf-8")
        (tmp_path / "node_modules").mkdir()
        (tmp_path / "node_modules" / "AGENTS.md").write_text("x", encoding="utf-8")
        marker = tmp_path / "CLAUDE.md"
        marker.write_text("x", encoding="utf-8")  # written last: its batch comes after the others
        seen: set[str] = set()
        while str(marker) not in seen:
            seen.update(batches.get(timeout=WAIT_S).paths())
        assert seen == {str(marker)}
    finally:
        watcher.stop()


def test_missing_roots_are_skipped_not_fatal(tmp_path: Path) -> None:
    watcher, batches = _start([tmp_path, tmp_path / "does-not-exist"])
    try:
        assert watcher.roots == [str(tmp_path)]
        assert watcher.skipped_roots == [str(tmp_path / "does-not-exist")]
        target = tmp_path / "SKILL.md"
        target.write_text("x", encoding="utf-8")
        _next_with(batches, target)
    finally:
        watcher.stop()


def test_stop_ends_the_thread(tmp_path: Path) -> None:
    watcher, _ = _start([tmp_path])
    watcher.stop()
    assert not watcher.running


def test_a_failing_callback_does_not_stop_the_watcher(tmp_path: Path) -> None:
    delivered: queue.Queue[WatchBatch] = queue.Queue()
    errors: list[BaseException] = []
    failed = threading.Event()

    def flaky(batch: WatchBatch) -> None:
        if not errors:
            raise RuntimeError("consumer broke")
        delivered.put(batch)

    def on_error(exc: BaseException) -> None:
        errors.append(exc)
        failed.set()

    watcher = WorkspaceWatcher([str(tmp_path)], flaky, debounce_ms=50, on_error=on_error)
    watcher.start()
    assert watcher.wait_ready(WAIT_S)
    try:
        (tmp_path / "AGENTS.md").write_text("1", encoding="utf-8")
        assert failed.wait(WAIT_S)
        second = tmp_path / "SKILL.md"
        second.write_text("2", encoding="utf-8")
        _next_with(delivered, second)
        assert isinstance(errors[0], RuntimeError)
    finally:
        watcher.stop()


def test_a_new_folder_is_replaced_by_the_relevant_files_in_it(tmp_path: Path) -> None:
    skill = tmp_path / ".pi" / "skills" / "x" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("x", encoding="utf-8")
    (tmp_path / ".pi" / "notes.txt").write_text("x", encoding="utf-8")
    (tmp_path / ".pi" / "node_modules").mkdir()
    (tmp_path / ".pi" / "node_modules" / "AGENTS.md").write_text("x", encoding="utf-8")
    batch = expand_new_folders(
        WatchBatch(added=frozenset({str(tmp_path / ".pi")})), lambda p: is_relevant(p, str(tmp_path))
    )
    assert batch == WatchBatch(added=frozenset({str(skill)}))


def test_files_written_right_after_their_folders_are_still_reported(tmp_path: Path) -> None:
    watcher, batches = _start([tmp_path])
    try:
        expected = set()
        for n in range(5):  # the race inotify loses: mkdir -p then write at once
            skill = tmp_path / ".pi" / "skills" / f"s{n}" / "deep" / "SKILL.md"
            skill.parent.mkdir(parents=True)
            skill.write_text("x", encoding="utf-8")
            expected.add(str(skill))
        seen: set[str] = set()
        while not expected <= seen:
            seen.update(batches.get(timeout=WAIT_S).paths())
    finally:
        watcher.stop()


def test_a_skills_folder_watched_as_a_root_counts_as_a_skills_folder() -> None:
    assert is_relevant("/home/u/.agents/skills/tool/notes.md", "/home/u/.agents/skills")
