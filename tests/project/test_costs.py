"""The turn ledger of a project: the next request and the prompt update priced under the project's own environment."""

from __future__ import annotations

import os
from pathlib import Path

from lsp_server.project.costs import turn_ledger
from lsp_server.session.tail import SessionFile
from tests.project.conftest import Project

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "sessions" / "inventory-fix.jsonl"


def test_both_prices_of_the_next_request_use_the_cache_retention_of_the_projects_environment(
    project: Project,
) -> None:
    """``PI_CACHE_RETENTION=long`` in the project's environment (not the process's): the next request and the
    one carrying the prompt update are priced under the same retention, so they can be compared."""
    assert "PI_CACHE_RETENTION" not in os.environ
    project.write("AGENTS.md", "# Rules\nAnswer briefly.\n")
    snapshot = project.build(env={**os.environ, "PI_CACHE_RETENTION": "long"})
    session = SessionFile(str(EXAMPLE))
    session.refresh()
    result = turn_ledger(snapshot, session)
    assert result.next_request is not None and result.prompt_update is not None
    assert result.prompt_update.next_request is not None
    assert (result.next_request.retention, result.prompt_update.next_request.retention) == ("long", "long")
