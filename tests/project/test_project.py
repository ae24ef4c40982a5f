"""Opening a project: what its inputs resolve from, the environment included, and nothing else."""

from __future__ import annotations

from pathlib import Path

import pytest

from lsp_server.project.project import ProjectInputs, open_project
from lsp_server.settings.pi_context import PiContextSettings


@pytest.fixture
def process_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """A process environment the project must not read: every value in it is wrong."""
    monkeypatch.setenv("HOME", "/wrong/home")
    monkeypatch.setenv("PI_CODING_AGENT_DIR", "/wrong/agent")
    monkeypatch.setenv("PI_CODING_AGENT_SESSION_DIR", "/wrong/sessions")


def _settings(agent_dir: str) -> PiContextSettings:
    return PiContextSettings.model_validate({"agentDir": agent_dir})


@pytest.mark.usefixtures("process_env")
def test_the_agent_dir_is_the_argument_then_the_setting_then_the_environment_then_home(tmp_path: Path) -> None:
    env = {"HOME": "/h", "PI_CODING_AGENT_DIR": "/from/env"}
    folder = str(tmp_path)
    assert ProjectInputs.create(folder, env=env, agent_dir="/arg", settings=_settings("/set")).agent_dir == "/arg"
    assert ProjectInputs.create(folder, env=env, settings=_settings("/set")).agent_dir == "/set"
    assert ProjectInputs.create(folder, env=env).agent_dir == "/from/env"
    assert ProjectInputs.create(folder, env={"HOME": "/h"}).agent_dir == "/h/.pi/agent"
    assert ProjectInputs.create(folder, env={"HOME": "/h"}, settings=_settings("~/agent")).agent_dir == "/h/agent"


def test_a_relative_agent_dir_resolves_against_the_project_folder(tmp_path: Path) -> None:
    env = {"HOME": "/h", "PI_CODING_AGENT_DIR": "env-agent"}
    assert ProjectInputs.create(str(tmp_path), env=env, settings=_settings("agent")).agent_dir == f"{tmp_path}/agent"
    assert ProjectInputs.create(str(tmp_path), env=env).agent_dir == f"{tmp_path}/env-agent"


@pytest.mark.usefixtures("process_env")
def test_the_session_folder_and_home_come_from_the_given_environment(tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path / "home"), "PI_CODING_AGENT_SESSION_DIR": str(tmp_path / "sessions")}
    inputs = ProjectInputs.create(str(tmp_path), env=env)
    project = open_project(inputs)
    assert inputs.home_dir == str(tmp_path / "home")
    assert project.agent_dir == str(tmp_path / "home" / ".pi" / "agent")
    assert (project.session_dir().path, project.session_dir().source) == (str(tmp_path / "sessions"), "env")


def test_projects_opened_in_different_environments_differ(tmp_path: Path) -> None:
    """The server reuses a built prompt only for equal inputs: the environment is part of them."""
    first = ProjectInputs.create(str(tmp_path), env={"HOME": "/h"})
    assert first == ProjectInputs.create(str(tmp_path), env={"HOME": "/h"})
    assert first != ProjectInputs.create(str(tmp_path), env={"HOME": "/h", "PI_CACHE_RETENTION": "long"})
