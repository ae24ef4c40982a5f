"""Write the extension's cost fixtures (``test/fixtures/cost/*.json``): the server's answers for fixed inputs.

The extension's unit tests word and draw real server answers. Each fixture here is computed by the code
the server's handler calls (``pi/turnLedger``, ``pi/promptSectionsChanged``, ``pi/chat/preflight``,
``pi/chat/compactPreview``, ``pi.compact``) on inputs kept in the repository: the example session,
Pi's fixture session, the session real Pi wrote against the loopback model server
(``tests/cost/golden/real-pi.session.jsonl``) and the models.json files below. So a change in the
server shows up as a stale fixture: ``tests/cost/test_extension_fixtures.py`` runs this with ``--print``
and compares.

    python vscode-extension/scripts/record_cost_fixtures.py          # write the fixtures
    python vscode-extension/scripts/record_cost_fixtures.py --print  # print them as one JSON object

Projects are built under a fixed folder (:data:`ROOT`) because the prompt holds the cwd and the
context files' paths, and their token counts with them; an installed Pi's catalog is kept out
(``PI_PACKAGE_DIR`` points nowhere), so prices come from the models.json given, else from the snapshot
of Pi 1.6.0's catalog that pi-context bundles, the same on every machine. The unpriced ledger is the example
session with its model renamed to one no catalog lists (:data:`UNLISTED`): what a user of a custom model
sees. Two fields
drawn anew on each run (the id and instants of the entry a compaction preview would append) are fixed.
"""

from __future__ import annotations
from lsp_server.project.prompt_state import build_prompt

import asyncio
import contextlib
import fcntl
import json
import os
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "vscode-extension" / "test" / "fixtures" / "cost"
ROOT = Path("/tmp/pi-context-cost-fixtures")
INVENTORY = REPO / "examples" / "sessions" / "inventory-fix.jsonl"
BEFORE_COMPACTION = REPO / "tests" / "fixtures" / "pi" / "before-compaction.jsonl"
REAL_PI = REPO / "tests" / "cost" / "golden" / "real-pi.session.jsonl"
REAL_PI_MODELS = REPO / "tests" / "cost" / "golden" / "real-pi.models.json"
AGENTS_BEFORE = (REPO / "examples" / "workspace" / "AGENTS.md").read_text(encoding="utf-8")
AGENTS_AFTER = AGENTS_BEFORE + "- Add a line to CHANGELOG.md for every fix.\n"
SONNET = {"input": 3, "output": 15, "cacheRead": 0.3, "cacheWrite": 3.75}
UNLISTED = "claude-unlisted"  # a model id no catalog has: the example session's, renamed, has no price
PREFLIGHT_TEXT = "y" * 400


def _write_json(path: Path, value: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value, indent=1) + "\n", encoding="utf-8")


@contextlib.contextmanager
def _fixed_root() -> Iterator[Path]:
    """:data:`ROOT`, fresh and held by this process alone while the fixtures are computed."""
    ROOT.parent.mkdir(parents=True, exist_ok=True)
    with open(f"{ROOT}.lock", "w", encoding="utf-8") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        shutil.rmtree(ROOT, ignore_errors=True)
        ROOT.mkdir()
        try:
            yield ROOT
        finally:
            shutil.rmtree(ROOT, ignore_errors=True)


def _agent(name: str, models: Any | None) -> Path:
    agent = ROOT / name / ".pi" / "agent"
    agent.mkdir(parents=True)
    if models is not None:
        _write_json(agent / "models.json", models)
    return agent


def _install(source: Path, agent: Path, folder: str, *, model: str | None = None) -> Path:
    """A copy of ``source`` in the agent dir's session folder; ``model`` renames the session's model id."""
    target = agent / "sessions" / folder / source.name
    target.parent.mkdir(parents=True)
    shutil.copyfile(source, target)
    if model is not None:
        text = target.read_text(encoding="utf-8")
        target.write_text(text.replace('"claude-sonnet-4-5"', json.dumps(model)), encoding="utf-8")
    return target


def _project(cwd: Path, agent: Path) -> Any:
    from lsp_server.project.project import ProjectInputs, open_project

    return open_project(
        ProjectInputs(cwd=str(cwd), agent_dir=str(agent), env=dict(os.environ), home=str(agent.parents[1]))
    )


def _session(path: Path) -> Any:
    from lsp_server.session.tail import SessionFile

    session = SessionFile(str(path))
    session.refresh()
    return session


def _ledger(cwd: Path, agent: Path, session: Path) -> dict[str, Any]:
    """``pi/turnLedger`` (= ``pi-context session FILE --costs --json``) with ``cwd`` as the project."""
    from lsp_server.project.costs import turn_ledger

    return turn_ledger(build_prompt(_project(cwd, agent)), _session(session)).wire()


def _sections_changed(cwd: Path, agent: Path) -> dict[str, Any]:
    """``pi/promptSectionsChanged`` for a saved AGENTS.md: the prompt built before and after the save."""
    from lsp_server.project.prompt_state import diff_snapshots
    from lsp_server.project.prompt_answers import sections_changed_params

    agents = cwd / "AGENTS.md"
    agents.write_text(AGENTS_BEFORE, encoding="utf-8")
    before = build_prompt(_project(cwd, agent))
    agents.write_text(AGENTS_AFTER, encoding="utf-8")
    after = build_prompt(_project(cwd, agent))
    change = diff_snapshots(before, after, [str(agents)])
    assert change is not None
    return sections_changed_params(cwd.as_uri(), str(cwd), change).wire()


def _compact_preview(cwd: Path, agent: Path, session: Path) -> dict[str, Any]:
    """``pi.compact {previewOnly}`` with the default (offline) summarizer, as the server runs it."""
    from lsp_server import protocol
    from lsp_server.llm.factory import build_client
    from lsp_server.llm.summarizer_config import SummarizerConfig
    from lsp_server.project.summaries import PreviewCache, plan_compaction_job, run_job

    config = SummarizerConfig()
    project = _project(cwd, agent)
    job = plan_compaction_job(
        protocol.CompactArgs(session=str(session), preview_only=True), lambda _session: project, config
    )
    result = asyncio.run(run_job(job, build_client(config, os.environ), label=config.label, previews=PreviewCache()))
    assert result.outcome is not None
    outcome = result.outcome.wire()
    entry = outcome.get("entry") or {}
    entry.update(id="c0mpact1", timestamp="2025-06-02T10:00:00.000Z")  # drawn anew on each run
    if isinstance(entry.get("systemMessage"), dict):
        entry["systemMessage"]["timestamp"] = 1748858400000  # the compaction time, as Pi stamps it
    return outcome


def _chat_compact_preview(cwd: Path, agent: Path, session: Path) -> dict[str, Any]:
    """``pi/chat/compactPreview``: what Pi's compaction of the session will summarize, keep and cost."""
    from lsp_server import protocol
    from lsp_server.chat.lens import compaction_preview

    preview = compaction_preview(_project(cwd, agent), str(session), "the inventory fix")
    assert not isinstance(preview, str)
    return protocol.ChatCompactPreview.model_validate(preview.to_json()).wire()


def _preflight(cwd: Path, agent: Path, session: Path) -> dict[str, Any]:
    """``pi/chat/preflight`` on the session real Pi wrote, with a 400-character prompt typed."""
    from lsp_server.chat.lens import preflight_result

    return preflight_result(build_prompt(_project(cwd, agent)), _session(session), PREFLIGHT_TEXT).wire()


def fixtures() -> dict[str, Any]:
    """Every fixture by file name, computed from the inputs (under :data:`ROOT`)."""
    models = json.loads(REAL_PI_MODELS.read_text(encoding="utf-8"))
    sonnet = {
        "providers": {
            "anthropic": {"modelOverrides": {"claude-sonnet-4-5": {"cost": SONNET}}, "models": [{"id": "claude-sonnet-4-5"}]}
        }
    }
    mid_conversation = json.loads(json.dumps(models))
    for model in mid_conversation["providers"]["fake"]["models"]:
        model["compat"] = {"supportsMidConvoSystemMessages": True}
    before_compaction = json.loads((FIXTURES / "before-compaction.models.json").read_text(encoding="utf-8"))
    out: dict[str, Any] = {}
    with _fixed_root():
        inventory_agent = _agent("inventory-home", None)
        inventory_cwd = ROOT / "inventory"
        inventory_cwd.mkdir()
        out["inventory-fix.sectionsChanged.json"] = _sections_changed(inventory_cwd, inventory_agent)
        inventory = _install(INVENTORY, inventory_agent, "--inventory--", model=UNLISTED)
        out["inventory-fix.turnLedger.json"] = _ledger(inventory_cwd, inventory_agent, inventory)

        priced_agent = _agent("sonnet-home", sonnet)
        priced = _install(INVENTORY, priced_agent, "--inventory--")
        out["inventory-fix.compact.json"] = _compact_preview(inventory_cwd, priced_agent, priced)
        out["inventory-fix.chatCompactPreview.json"] = _chat_compact_preview(inventory_cwd, priced_agent, priced)

        empty = ROOT / "empty"
        empty.mkdir()
        opus_agent = _agent("opus-home", before_compaction)
        opus = _install(BEFORE_COMPACTION, opus_agent, "--before--")
        out["before-compaction.nextRequest.json"] = _ledger(empty, opus_agent, opus)["nextRequest"]

        fake_agent = _agent("fake-home", models)
        real = _install(REAL_PI, fake_agent, "--real--")
        out["chat-preflight.json"] = _preflight(empty, fake_agent, real)
        patch_agent = _agent("patch-home", mid_conversation)
        patched = _install(REAL_PI, patch_agent, "--real--")
        workspace = ROOT / "real-pi"
        workspace.mkdir()
        (workspace / "AGENTS.md").write_text(AGENTS_AFTER, encoding="utf-8")
        out["real-pi.turnLedger.json"] = _ledger(workspace, patch_agent, patched)
    return out


def main(argv: list[str]) -> int:
    # No Pi catalog, no provider settings from the machine: the same answers everywhere.
    os.environ["PI_PACKAGE_DIR"] = str(ROOT / "no-pi")
    os.environ.pop("PI_CODING_AGENT_DIR", None)
    os.environ.pop("PI_CACHE_RETENTION", None)
    found = fixtures()
    if "--print" in argv:
        sys.stdout.write(json.dumps(found, indent=1) + "\n")
        return 0
    for name, value in found.items():
        _write_json(FIXTURES / name, value)
        print(f"wrote {FIXTURES / name}")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(REPO))
    raise SystemExit(main(sys.argv[1:]))
