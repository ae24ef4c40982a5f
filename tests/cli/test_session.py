"""``pi-context session`` as a user runs it: a real subprocess on real session files."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.budget._sessions import assistant, chain, entry, header, message, usage, user, write_session

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "pi"


@pytest.fixture
def home(tmp_path: Path) -> dict[str, Path]:
    paths = {"home": tmp_path / "home", "agent": tmp_path / "agent", "proj": tmp_path / "proj"}
    for folder in paths.values():
        folder.mkdir()
    (paths["proj"] / "AGENTS.md").write_text("Use tabs.\n", encoding="utf-8")
    return paths


def _run(paths: dict[str, Path], *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HOME": str(paths["home"]), "PI_PACKAGE_DIR": str(paths["home"] / "no-pi")}
    for name in ("PI_CODING_AGENT_DIR", "PI_CODING_AGENT_SESSION_DIR"):
        env.pop(name, None)
    command = [sys.executable, "-m", "lsp_server", "session", "--agent-dir", str(paths["agent"]), *args]
    return subprocess.run(command, capture_output=True, text=True, env=env, check=False, cwd=paths["proj"])


def _json(paths: dict[str, Path], *args: str) -> dict[str, Any]:
    result = _run(paths, "--json", *args)
    assert result.returncode == 0, result.stderr
    parsed: dict[str, Any] = json.loads(result.stdout)
    return parsed


def test_shows_entries_tree_request_and_budget_of_a_fixture(home: dict[str, Path]) -> None:
    result = _run(home, str(FIXTURES / "before-compaction.jsonl"))
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "1,002 entries: message 990, thinking_level_change 5, model_change 5, compaction 2" in out
    assert "┊ 357 entries" in out and "← leaf" in out
    assert "user/compactionSummary" in out and "user/bashExecution" in out
    assert "Pi: 180,820 context tokens (the provider's usage plus estimates after it), 90.41% of 200,000" in out
    assert "compacts above 183,616" in out and "should compact: no" in out


def test_json_holds_everything_in_one_object(home: dict[str, Path]) -> None:
    out = _json(home, str(FIXTURES / "before-compaction.jsonl"))
    assert set(out) == {"session", "workspace", "tree", "request", "budget"}
    assert out["session"]["entryTypes"] == {
        "message": 990,
        "thinking_level_change": 5,
        "model_change": 5,
        "compaction": 2,
    }
    assert out["tree"]["leafId"] == out["request"]["leafId"] == "000003ea"
    # 446 messages on the branch; the 6 aborted or failed replies among them are not sent (pi-ai transformMessages)
    assert len(out["request"]["messages"]) == 440
    budget = out["budget"]
    assert (budget["contextTokens"], budget["threshold"], budget["shouldCompact"]) == (180_820, 183_616, False)
    for name in ("pi", "estimated"):
        total = sum(category["tokens"] for category in budget[name]["categories"])
        assert total == budget["window"] + budget[name]["overflow"]


def test_the_budget_table_shows_both_estimators_side_by_side(home: dict[str, Path]) -> None:
    out = _run(home, str(FIXTURES / "large-session.jsonl"), "--estimator", "weighted", "--family", "gpt").stdout
    table = out[out.index("\nBudget") :]
    assert "Pi (chars/4)" in table and "weighted (gpt)" in table
    assert "Tool results (373)" in table
    assert "total" in table and "= window" in table


def test_the_workspace_prompt_stands_in_for_an_old_session(home: dict[str, Path]) -> None:
    out = _json(home, str(FIXTURES / "large-session.jsonl"), "--cwd", str(home["proj"]), "--trusted")
    assert out["request"]["systemOrigin"] == "workspace"
    sections = {section["name"]: section for section in out["request"]["system"]["sections"]}
    assert sections["project_context"]["sources"][0]["path"] == str(home["proj"] / "AGENTS.md")


def test_a_foreign_cwd_that_does_not_exist_here_falls_back_to_this_directory_and_says_so(
    home: dict[str, Path],
) -> None:
    out = _json(home, str(FIXTURES / "large-session.jsonl"))
    assert out["workspace"]["cwd"] == str(home["proj"])  # the server uses its workspace folder the same way
    assert "does not exist here; using " + str(home["proj"]) in out["workspace"]["note"]
    assert out["request"]["systemOrigin"] == "workspace"


@pytest.mark.parametrize(
    "content",
    [b"root:x:0:0:root:/root:/bin/bash\n", b"", b"\x00\x01\xff\xfe binary", b'{"type":"message","id":"a"}\n'],
    ids=["text", "empty", "binary", "no header"],
)
def test_a_file_that_is_not_a_session_is_a_clear_error(home: dict[str, Path], tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_bytes(content)
    result = _run(home, str(path))
    assert result.returncode == 1
    assert result.stderr.startswith("pi-context: ") and str(path) in result.stderr
    assert "Traceback" not in result.stderr and result.stdout == ""


def test_a_missing_file_is_a_clear_error(home: dict[str, Path], tmp_path: Path) -> None:
    result = _run(home, str(tmp_path / "gone.jsonl"))
    gone = tmp_path / "gone.jsonl"
    assert (result.returncode, result.stderr) == (2, f"pi-context: {gone}: no such file or directory\n")


def test_skipped_lines_are_reported_with_their_line_numbers(home: dict[str, Path], tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    good = chain(("u1", user("hi")))
    path.write_text(json.dumps(header()) + "\n{not json\n" + json.dumps(good[0]) + "\n", encoding="utf-8")
    result = _run(home, str(path))
    assert result.returncode == 0, result.stderr
    assert "line 2: error session/invalid-json" in result.stdout
    problems = _json(home, str(path))["session"]["problems"]
    assert [(p["line"], p["code"]) for p in problems] == [(2, "session/invalid-json")]


def test_a_number_as_the_last_line_is_pis_leaf_so_the_next_request_is_empty(
    home: dict[str, Path], tmp_path: Path
) -> None:
    path = write_session(tmp_path / "s.jsonl", chain(("u1", user("hi")), ("a1", assistant("yo"))))
    with path.open("a", encoding="utf-8") as handle:
        handle.write("42\n")
    out = _json(home, str(path))
    assert [(p["line"], p["code"]) for p in out["session"]["problems"]] == [
        (4, "session/not-an-object"),
        (4, "session/nonobject-leaf"),
    ]
    assert out["request"]["messages"] == [] and out["request"].get("leafId") is None
    assert out["session"]["entryCount"] == 2  # the number is no entry of the tree
    text = _run(home, str(path)).stdout
    assert "line 4: warning session/nonobject-leaf: Pi takes this line as the session's last entry" in text
    assert [m["entryId"] for m in _json(home, str(path), "--leaf", "a1")["request"]["messages"]] == ["u1", "a1"]


def test_an_array_as_the_last_line_of_a_v1_session_is_a_leaf_that_keeps_the_conversation(
    home: dict[str, Path], tmp_path: Path
) -> None:
    """Pi's v1 migration gives the array an id and a parent: it is the leaf, the first message stays."""
    path = tmp_path / "s.jsonl"
    v1_header = {"type": "session", "id": "s1", "timestamp": "2025-01-01T00:00:00.000Z", "cwd": "/p"}
    first = {"type": "message", "timestamp": "2025-01-01T00:00:01.000Z", "message": user("first question")}
    path.write_text(f"{json.dumps(v1_header)}\n{json.dumps(first)}\n[1]\n", encoding="utf-8")
    out = _json(home, str(path))
    assert [(p["line"], p["code"]) for p in out["session"]["problems"]] == [(3, "session/not-an-object")]
    assert out["session"]["migratedFrom"] == 1 and out["session"]["entryCount"] == 2
    assert [m["entryId"] for m in out["request"]["messages"]] == ["00000001"]
    assert out["request"]["leafId"] == "00000002"


def _branched(tmp_path: Path) -> Path:
    entries = chain(("u1", user("start")), ("a1", assistant("first way", use=usage(100, 5))))
    entries.append(message("a2", "u1", assistant("second way"), 5))
    entries.append(entry("label", "l1", "a2", 6, targetId="a1", label="checkpoint"))
    return write_session(tmp_path / "branched.jsonl", entries)


def test_the_tree_shows_branches_labels_and_the_leaf(home: dict[str, Path], tmp_path: Path) -> None:
    out = _run(home, str(_branched(tmp_path))).stdout
    assert "1 root, 1 branch point, 2 leaves, 1 label; leaf l1 at depth 3" in out
    assert '├─○ a1 assistant "first way" [checkpoint]' in out
    assert '└─● a2 assistant "second way"' in out
    assert "● l1 label → a1  ← leaf" in out


def test_another_leaf_can_be_projected(home: dict[str, Path], tmp_path: Path) -> None:
    out = _json(home, str(_branched(tmp_path)), "--leaf", "a1")
    assert out["request"]["leafId"] == "a1"
    assert [m["entryId"] for m in out["request"]["messages"]] == ["u1", "a1"]
    assert out["budget"]["contextTokensSource"] == "usage"


def test_an_unknown_leaf_is_an_error(home: dict[str, Path], tmp_path: Path) -> None:
    result = _run(home, str(_branched(tmp_path)), "--leaf", "nope")
    assert result.returncode == 1 and "no entry with id 'nope'" in result.stderr


def test_the_context_window_can_be_given(home: dict[str, Path], tmp_path: Path) -> None:
    budget = _json(home, str(_branched(tmp_path)), "--context-window", "50000")["budget"]
    assert (budget["window"], budget["model"]["windowSource"], budget["threshold"]) == (50_000, "settings", 33_616)


def _sessions_dir(paths: dict[str, Path]) -> Path:
    folder = paths["agent"] / "sessions" / ("--" + str(paths["proj"]).lstrip("/").replace("/", "-") + "--")
    folder.mkdir(parents=True)
    return folder


def test_sessions_of_a_project_are_listed_newest_first(home: dict[str, Path]) -> None:
    folder = _sessions_dir(home)
    for age, name in enumerate(["newest", "middle", "oldest"]):
        path = folder / f"{name}.jsonl"
        path.write_text(
            json.dumps(header(session_id=name, cwd=str(home["proj"])))
            + "\n"
            + json.dumps(chain(("u1", user("x")))[0])
            + "\n",
            encoding="utf-8",
        )
        os.utime(path, (1_700_000_000 - age * 3600, 1_700_000_000 - age * 3600))
    (folder / "notes.jsonl").write_text("not a session\n", encoding="utf-8")
    listed = _json(home, "--list", "--cwd", str(home["proj"]))
    assert listed["sessionsDir"] == str(folder)
    assert [s["id"] for s in listed["sessions"]] == ["newest", "middle", "oldest"]
    text = _run(home, "--cwd", str(home["proj"])).stdout.splitlines()
    assert [line.split()[-1] for line in text[2:]] == ["newest.jsonl", "middle.jsonl", "oldest.jsonl"]
    sizes = {(folder / f"{name}.jsonl").stat().st_size for name in ("newest", "middle", "oldest")}
    assert all(f" {size}B " in "\n".join(text) for size in sizes)  # Pi's size spelling (truncate.format_size)


def test_a_folder_argument_lists_that_folder(home: dict[str, Path], tmp_path: Path) -> None:
    _branched(tmp_path)
    listed = _json(home, str(tmp_path))
    assert [Path(s["path"]).name for s in listed["sessions"]] == ["branched.jsonl"]
    assert listed["source"] == "folder"


def test_no_sessions_is_not_an_error(home: dict[str, Path]) -> None:
    result = _run(home, "--list")
    assert result.returncode == 0 and result.stdout.startswith("No sessions in ")


def test_a_pi_1_6_session_shows_its_stored_prompt(home: dict[str, Path], tmp_path: Path) -> None:
    stored = {"role": "system", "content": "", "sections": {"preamble": "Be brief.", "cwd": "<cwd>\n/p\n</cwd>"}}
    path = write_session(tmp_path / "new.jsonl", chain(("s0", {**stored, "timestamp": 0}), ("u1", user("hi"))))
    result = _run(home, str(path))
    assert "● s0 system [preamble, cwd]" in result.stdout
    assert "system prompt: stored in the session" in result.stdout
    budget = _json(home, str(path))["budget"]
    assert [c["id"] for c in budget["pi"]["categories"] if c["group"] == "system"] == ["system.preamble", "system.cwd"]


EXAMPLE = ROOT / "examples" / "sessions" / "inventory-fix.jsonl"


def _mutated(tmp_path: Path, name: str, mutate: Any) -> Path:
    """The example session with ``mutate(message)`` applied to every message entry."""
    entries = [json.loads(line) for line in EXAMPLE.read_text(encoding="utf-8").splitlines()]
    for item in entries:
        if item.get("type") == "message":
            mutate(item["message"])
    text = "\n".join(json.dumps(item) for item in entries) + "\n"
    path = tmp_path / f"{name}.jsonl"
    path.write_text(text.replace('"MARK"', '"\\ud800"').replace("Infinity", "1e999"), encoding="utf-8")
    return path


def _lone_surrogate(message: dict[str, Any]) -> None:
    if message.get("role") == "user":
        message["content"] = "MARK"


def _object_role(message: dict[str, Any]) -> None:
    if message.get("role") == "toolResult":
        message["role"] = {"not": "a role"}


def _infinite_timestamp(message: dict[str, Any]) -> None:
    message["timestamp"] = float("inf")


@pytest.mark.parametrize("mutate", [_lone_surrogate, _object_role, _infinite_timestamp])
@pytest.mark.parametrize(
    "command", [["session"], ["session", "--json"], ["compact", "--dry-run", "--json"]], ids=" ".join
)
def test_javascript_oddities_in_a_session_are_reported_not_crashed_on(
    home: dict[str, Path], tmp_path: Path, mutate: Any, command: list[str]
) -> None:
    path = _mutated(tmp_path, mutate.__name__, mutate)
    before = path.read_bytes()
    env = {**os.environ, "HOME": str(home["home"]), "PI_CODING_AGENT_DIR": str(home["agent"])}
    done = subprocess.run(
        [sys.executable, "-m", "lsp_server", *command, str(path)], capture_output=True, text=True, env=env, check=False
    )
    assert "Traceback" not in done.stderr
    if done.returncode != 0:  # a refusal is a one-line reason naming the file (e.g. nothing to compact)
        assert done.returncode == 1 and done.stderr.startswith("pi-context: ") and str(path) in done.stderr
    elif "--json" in command:
        json.loads(done.stdout)
    assert path.read_bytes() == before
