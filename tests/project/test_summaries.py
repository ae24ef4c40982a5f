"""Compaction jobs: the size guard, previews replayed for the confirming call, nothing written on failure."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from lsp_server import protocol
from lsp_server.llm.client import CancelToken
from lsp_server.llm.summarizer_config import SummarizerConfig
from lsp_server.llm.types import AssistantReply, CompletionRequest, RetryCallback, TextProgress
from lsp_server.project.project import Project, ProjectInputs, open_project
from lsp_server.project.summaries import (
    JobRefused,
    PreviewCache,
    ProjectFor,
    ReplayClient,
    plan_branch_job,
    plan_compaction_job,
    run_job,
)
from lsp_server.session.writer import SessionForAppend

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "sessions" / "inventory-fix.jsonl"
CONFIG = SummarizerConfig(kind="openai", model="m", base_url="http://127.0.0.1:9")


class ScriptedModel:
    """Answers each request with the next text (the model is the external system under our code)."""

    provider = "scripted"

    def __init__(self, *texts: str, stop: str = "stop") -> None:
        self.texts = list(texts)
        self.requests: list[CompletionRequest] = []
        self.stop = stop

    async def complete(
        self,
        request: CompletionRequest,
        *,
        cancel: CancelToken | None = None,
        on_text_delta: TextProgress | None = None,
        on_retry: RetryCallback | None = None,
    ) -> AssistantReply:
        self.requests.append(request)
        text = self.texts.pop(0) if self.texts else "default summary"
        if self.stop == "error":
            return AssistantReply("", "error", error_message="boom")
        return AssistantReply(text, "stop")

    async def aclose(self) -> None:
        return None


@pytest.fixture
def session_file(tmp_path: Path) -> Path:
    path = tmp_path / "s.jsonl"
    shutil.copy(EXAMPLE, path)
    return path


@pytest.fixture
def settings(tmp_path: Path) -> ProjectFor:
    """The session's project: a folder with an agent dir whose models.json gives the session's model 50k."""
    agent_dir = tmp_path / "agent"
    agent_dir.mkdir()
    models = {"providers": {"anthropic": {"models": [{"id": "claude-sonnet-4-5", "contextWindow": 50_000}]}}}
    (agent_dir / "models.json").write_text(json.dumps(models), encoding="utf-8")
    inputs = ProjectInputs(cwd=str(tmp_path), agent_dir=str(agent_dir), env={}, home=str(tmp_path))

    def project_for(_: SessionForAppend) -> Project:
        return open_project(inputs)

    return project_for


async def test_a_preview_writes_nothing_and_the_confirmation_writes_the_previewed_summary(
    session_file: Path, settings: ProjectFor
) -> None:
    original = session_file.read_bytes()
    previews = PreviewCache()
    model = ScriptedModel("history one", "prefix one", "history two", "prefix two")
    preview_args = protocol.CompactArgs(session=str(session_file), preview_only=True)
    preview = await run_job(plan_compaction_job(preview_args, settings, CONFIG), model, label="m", previews=previews)
    assert session_file.read_bytes() == original
    assert preview.outcome is not None and preview.outcome.written is False
    apply_args = protocol.CompactArgs(session=str(session_file), expected_size=preview.outcome.session_size)
    applied = await run_job(plan_compaction_job(apply_args, settings, CONFIG), model, label="m", previews=previews)
    assert applied.outcome is not None and applied.outcome.from_preview is True
    assert applied.outcome.summary == preview.outcome.summary
    assert len(model.requests) == 2  # only the preview asked the model
    written = json.loads(session_file.read_text(encoding="utf-8").splitlines()[-1])
    assert written["summary"] == preview.outcome.summary
    assert applied.entry_id == written["id"] and applied.size == session_file.stat().st_size


async def test_other_instructions_than_the_previews_ask_the_model_again(
    session_file: Path, settings: ProjectFor
) -> None:
    previews = PreviewCache()
    model = ScriptedModel()
    preview = protocol.CompactArgs(session=str(session_file), preview_only=True, instructions="focus A")
    await run_job(plan_compaction_job(preview, settings, CONFIG), model, label="m", previews=previews)
    asked = len(model.requests)
    applied = protocol.CompactArgs(session=str(session_file), instructions="focus B")
    result = await run_job(plan_compaction_job(applied, settings, CONFIG), model, label="m", previews=previews)
    assert result.outcome is not None and result.outcome.from_preview is False
    assert len(model.requests) == 2 * asked


async def test_a_replay_stops_at_the_first_request_that_differs() -> None:
    recorded = [("key-that-matches-nothing", AssistantReply("old", "stop"))]
    model = ScriptedModel("fresh")
    replay = ReplayClient(recorded, model)
    reply = await replay.complete(CompletionRequest.single_prompt("system", "prompt"))
    assert (reply.text, replay.replayed, replay.asked) == ("fresh", 0, 1)


def test_the_size_guard_refuses_a_file_that_changed_since_the_preview(session_file: Path, settings: ProjectFor) -> None:
    size = session_file.stat().st_size
    with pytest.raises(JobRefused, match=r"changed since the preview \(size [\d,]+ bytes, expected [\d,]+\)"):
        plan_compaction_job(protocol.CompactArgs(session=str(session_file), expected_size=size - 1), settings, CONFIG)


def test_an_unknown_branch_entry_is_refused_with_pis_words(session_file: Path, settings: ProjectFor) -> None:
    args = protocol.BranchSummaryArgs(session=str(session_file), from_id="nope", to_id="9c947358")
    with pytest.raises(JobRefused, match=f"Entry nope not found in {session_file}"):
        plan_branch_job(args, settings, CONFIG)


async def test_a_failed_summary_writes_nothing(session_file: Path, settings: ProjectFor) -> None:
    original = session_file.read_bytes()
    job = plan_compaction_job(protocol.CompactArgs(session=str(session_file)), settings, CONFIG)
    result = await run_job(job, ScriptedModel(stop="error"), label="m", previews=PreviewCache())
    assert result.outcome is None
    assert result.failure == f"Summarization failed: boom: nothing written to {session_file}"
    assert session_file.read_bytes() == original


async def test_a_branch_summary_uses_the_session_models_window(session_file: Path, settings: ProjectFor) -> None:
    args = protocol.BranchSummaryArgs(
        session=str(session_file), from_id="4647f052", to_id="9c947358", preview_only=True
    )
    job = plan_branch_job(args, settings, CONFIG)
    assert job.context_window == 50_000  # anthropic/claude-sonnet-4-5 in the project's models.json
    result = await run_job(job, ScriptedModel("branch words"), label="m", previews=PreviewCache())
    assert result.outcome is not None and result.outcome.entry is not None
    assert result.outcome.entry["parentId"] == "9c947358"
