"""A project opened once: the folder Pi runs in, its agent dir, trust, and every setting resolved.

The CLI sub-commands and the server's features used to assemble this chain themselves (folder ->
agent dir -> trust -> Pi's settings -> pi-context's settings -> compaction settings for a model),
each a little differently, so the two front ends could disagree about the same session. Now both
open a :class:`Project` from :class:`ProjectInputs` and ask it (the prompt Pi would build in it is
:func:`lsp_server.project.prompt_state.build_prompt`, which takes the project):

* :attr:`Project.trust` and :attr:`Project.pi_settings`: Pi's decision and Pi's merged settings,
  read once at open (project settings only when the project is trusted, as Pi does);
* :meth:`Project.compaction_settings_for` and :meth:`Project.model_window`: what Pi uses for one
  model (per-model overrides, the window from pi-context's settings, models.json, Pi's catalog);
* :attr:`Project.budget_config`: everything a budget needs besides the session;
* :meth:`Project.session_dir`: where Pi keeps this project's sessions.

Which folder a *session* belongs to has one rule too (:func:`session_folder`): an explicit choice,
else the session's own ``cwd`` when that folder exists here (where Pi ran), else the caller's
folder (the CLI's working directory, the server's workspace folder), with a note saying so.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

from lsp_server.base import fsread
from lsp_server.base.paths import home_dir, resolve_agent_dir, resolve_path
from lsp_server.budget.budget import BudgetConfig
from lsp_server.budget.models import ModelWindow, ModelWindows, WindowOverrides, model_of
from lsp_server.context.pi_settings import LoadedPiSettings, load_pi_settings
from lsp_server.context.trust import TrustDecision, project_trust, trust_requiring_project_resources
from lsp_server.cost.prices import PriceCatalog
from lsp_server.prompt.package_dir import find_pi_package_dir
from lsp_server.session.folders import SessionDirChoice, resolve_session_dir
from lsp_server.settings.pi_context import PiContextSettings
from lsp_server.vocabulary.compaction import CompactionSettings
from lsp_server.vocabulary.pi_releases import PiRules, package_version, rules_for

if TYPE_CHECKING:
    from lsp_server.session.projection import ModelRef


@dataclass(frozen=True)
class ProjectInputs:
    """What a project is opened from besides its files. Build with :meth:`create`.

    ``env`` is the environment Pi would run with (the front ends pass ``os.environ``): it gives the
    default agent dir (``$PI_CODING_AGENT_DIR``), HOME, the session folder
    (``$PI_CODING_AGENT_SESSION_DIR``), Pi's install folder (``$PI_PACKAGE_DIR``, ``$PATH``) and the
    cache retention (``$PI_CACHE_RETENTION``). Nothing below the project reads ``os.environ`` itself.
    """

    cwd: str  # absolute
    agent_dir: str  # absolute
    env: Mapping[str, str]
    trust_override: bool | None = None  # Pi's --approve (True) / --no-approve (False); None: Pi decides
    settings: PiContextSettings = field(default_factory=PiContextSettings)
    window_override: int | None = None  # one context window for every model (the CLI's --context-window)
    home: str | None = None  # for ``~/.agents/skills``; default ``env``'s HOME

    @classmethod
    def create(
        cls,
        cwd: str,
        *,
        env: Mapping[str, str],
        settings: PiContextSettings | None = None,
        agent_dir: str | None = None,
        trust_override: bool | None = None,
        window_override: int | None = None,
        home: str | None = None,
    ) -> ProjectInputs:
        """Resolve the folder and the agent dir: ``agent_dir``, else the ``agentDir`` setting, else Pi's.

        A relative agent dir resolves against the project's folder. ``trust_override`` wins over the
        ``trust`` setting (the CLI's ``--trusted`` over a settings file).
        """
        chosen = settings if settings is not None else PiContextSettings()
        folder = resolve_path(cwd, home=home if home is not None else home_dir(env))
        return cls(
            cwd=folder,
            agent_dir=resolve_agent_dir(agent_dir or chosen.agent_dir, folder, env=env),
            env=env,
            trust_override=trust_override if trust_override is not None else chosen.trust_override,
            settings=chosen,
            window_override=window_override,
            home=home,
        )

    @property
    def home_dir(self) -> str:
        """The home folder Pi would use: ``home``, else ``env``'s HOME (Node's ``os.homedir()``)."""
        return self.home if self.home is not None else home_dir(self.env)


@dataclass(frozen=True)
class Project:
    """One opened project. Cheap to open (a few small files); the prompt is built on request."""

    inputs: ProjectInputs
    trust: TrustDecision
    pi_settings: LoadedPiSettings

    @property
    def cwd(self) -> str:
        return self.inputs.cwd

    @property
    def agent_dir(self) -> str:
        return self.inputs.agent_dir

    @property
    def settings(self) -> PiContextSettings:
        return self.inputs.settings

    @property
    def env(self) -> Mapping[str, str]:
        return self.inputs.env

    @cached_property
    def package_dir(self) -> str:
        """Pi's install folder (the ``docs`` section, pi-ai's catalog): ``$PI_PACKAGE_DIR``, ``pi`` on PATH, npm's."""
        return find_pi_package_dir(self.env)

    @cached_property
    def pi_rules(self) -> PiRules:
        """The rules of the Pi installed there (its ``package.json`` version; the newest release's when none is
        found): where Pi's behaviour changed between releases, the lens follows the one that runs
        (docs/pi-versions.md)."""
        return rules_for(package_version(self.package_dir))

    @property
    def trusted(self) -> bool:
        return self.trust.trusted

    # --- models and compaction --------------------------------------------------------------------

    @cached_property
    def windows(self) -> ModelWindows:
        budget = self.settings.budget
        overrides = WindowOverrides(
            dict(budget.context_windows), budget.default_context_window, forced=self.inputs.window_override
        )
        return ModelWindows.for_agent_dir(self.agent_dir, overrides=overrides, package_dir=self.package_dir)

    def compaction_settings_for(self, model: ModelRef | None) -> CompactionSettings:
        """Pi's ``getCompactionSettings(model)`` for a session's model (``None``: no model known)."""
        provider, model_id = _model_names(model)
        return self.pi_settings.effective.compaction_for(provider, model_id)

    def model_window(self, model: ModelRef | None) -> ModelWindow | None:
        """The window of a session's model, with its source; ``None`` when the session names no model."""
        provider, model_id = _model_names(model)
        if model_id is None:
            return None
        return self.windows.resolve(provider, model_id, "session")

    def context_window_for(self, model: ModelRef | None) -> int | None:
        """The window a branch summary budgets with: the model's, else the forced one, else unknown (Pi's 128k)."""
        window = self.model_window(model)
        return window.context_window if window is not None else self.inputs.window_override

    @property
    def branch_summary_reserve_tokens(self) -> float:
        return self.pi_settings.effective.branch_summary.reserve_tokens

    @cached_property
    def prices(self) -> PriceCatalog:
        """Prices and cache lifetimes per model: models.json, then Pi's catalog (see :mod:`lsp_server.cost.prices`)."""
        return PriceCatalog.for_agent_dir(self.agent_dir, package_dir=self.package_dir)

    @cached_property
    def budget_config(self) -> BudgetConfig:
        tokens = self.settings.tokens
        return BudgetConfig(
            windows=self.windows,
            pi_settings=self.pi_settings.effective,
            estimator=tokens.estimator,
            family=tokens.model_family,
        )

    # --- prompt and sessions ---------------------------------------------------------------------

    def session_dir(self) -> SessionDirChoice:
        """Pi's session folder for this project (flag, ``$PI_CODING_AGENT_SESSION_DIR``, settings, default)."""
        return resolve_session_dir(
            self.cwd,
            settings_session_dir=self.pi_settings.effective.session_dir,
            agent_dir=self.agent_dir,
            env=self.env,
        )

    def untrusted_note(self) -> str | None:
        """What an untrusted project leaves out of the prompt, in one sentence (``None``: nothing)."""
        decision = self.trust
        if decision.trusted or not decision.project_resources:
            return None
        every = trust_requiring_project_resources(self.cwd, self.inputs.home_dir, every=True)
        skipped = ", ".join(posixpath.relpath(path, self.cwd) for path in every or decision.project_resources)
        return f"project not trusted ({decision.reason}): left out {skipped}"


def open_project(inputs: ProjectInputs) -> Project:
    """Decide trust and read Pi's settings for ``inputs`` (never raises for bad files)."""
    trust = project_trust(inputs.cwd, inputs.agent_dir, override=inputs.trust_override, home=inputs.home_dir)
    settings = load_pi_settings(inputs.cwd, inputs.agent_dir, project_trusted=trust.trusted)
    return Project(inputs, trust, settings)


def _model_names(model: ModelRef | None) -> tuple[str | None, str | None]:
    return model_of(model.provider, model.model_id) if model is not None else (None, None)


# --- which project a session belongs to ----------------------------------------------------------


@dataclass(frozen=True)
class SessionFolder:
    """The folder a session is shown in, and why when it is not the session's own ``cwd``."""

    cwd: str
    note: str | None = None


def header_cwd(header: dict[str, Any] | None) -> str | None:
    """The ``cwd`` a session header names (``None`` when it names none)."""
    value = header.get("cwd") if header else None
    return value if isinstance(value, str) and value else None


def session_folder(
    session_cwd: str | None, *, explicit: str | None = None, fallback: Callable[[], str]
) -> SessionFolder:
    """The one rule for both front ends: ``explicit``, else the session's cwd if it exists here, else ``fallback()``.

    ``fallback`` is called only when needed: the CLI's working directory, the server's workspace
    folder (which may not exist, and then the request fails).
    """
    if explicit is not None:
        return SessionFolder(resolve_path(explicit))
    if session_cwd is not None and fsread.is_directory(session_cwd):
        return SessionFolder(resolve_path(session_cwd))
    folder = resolve_path(fallback())
    if session_cwd is None:
        return SessionFolder(folder)
    return SessionFolder(folder, f"the session's cwd {session_cwd} does not exist here; using {folder}")
