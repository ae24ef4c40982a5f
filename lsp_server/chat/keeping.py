"""Whether and how a chat's Pi is kept when the language server ends: the keepers' options.

A chat's Pi runs under a keeper (:mod:`lsp_server.pi_rpc.keeper`) so that a turn outlives a window
reload. Where the keepers live is the user's private runtime folder
(:func:`~lsp_server.pi_rpc.keeper_files.default_runtime_dir`); how long a Pi waits for a window
comes from the settings (``pi.reattachGraceSeconds``, ``pi.detachedTurnLimitSeconds``). When the
shared ``<temp>/pi-context-<uid>`` is held by another user (or reachable by others), the keepers
live in a fresh private folder instead, and :meth:`Keeping.fallback` says so (the server logs it
and tells each chat). Without any usable folder (an explicit one that is not private), on a system
without Unix sockets, or with ``PI_CONTEXT_NO_KEEPER=1`` in the server's environment, Pi runs as
the server's own child as before, and a turn ends with the server. The first time a folder is
used, what stale keepers left there (killed with ``kill -9``) is cleaned up.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Final

from lsp_server.pi_rpc.keeper_files import (
    KeeperDirError,
    KeepersFolder,
    choose_keepers_folder,
    default_runtime_dir,
    sweep_stale,
)
from lsp_server.pi_rpc.kept import KeepOptions
from lsp_server.session.write_journal import state_dir
from lsp_server.settings.pi_context import PiAgentSettings

NO_KEEPER_ENV: Final = "PI_CONTEXT_NO_KEEPER"


class Keeping:
    """The keepers' folder of this server, checked (and swept) once per path."""

    def __init__(self, state: str | None = None) -> None:
        self._state = state  # where the fallback folder is noted (default: pi-context's state folder)
        # The default folder -> the folder in use, or why none can be.
        self._checked: dict[Path, KeepersFolder | str] = {}

    def _chosen(self, env: Mapping[str, str]) -> KeepersFolder | str:
        default = default_runtime_dir(env)
        if default not in self._checked:
            try:
                chosen = choose_keepers_folder(env, self._state if self._state is not None else state_dir())
            except KeeperDirError as error:
                self._checked[default] = str(error)
            else:
                self._checked[default] = chosen
                sweep_stale(chosen.path)
        return self._checked[default]

    def folder(self, env: Mapping[str, str]) -> Path | None:
        if os.name != "posix" or env.get(NO_KEEPER_ENV) == "1":
            return None
        chosen = self._chosen(env)
        return chosen.path if isinstance(chosen, KeepersFolder) else None

    def problem(self, env: Mapping[str, str]) -> str | None:
        """Why chats run without a keeper here, in one sentence (None when they do not)."""
        if env.get(NO_KEEPER_ENV) == "1":
            return f"{NO_KEEPER_ENV}=1"
        chosen = self._checked.get(default_runtime_dir(env))
        return chosen if isinstance(chosen, str) else None

    def fallback(self, env: Mapping[str, str]) -> str | None:
        """Why the keepers live in a fallback folder, and where, in one sentence (None when they do not)."""
        chosen = self._checked.get(default_runtime_dir(env))
        return chosen.fallback_sentence() if isinstance(chosen, KeepersFolder) else None

    def options(self, settings: PiAgentSettings, env: Mapping[str, str]) -> KeepOptions | None:
        folder = self.folder(env)
        if folder is None:
            return None
        return KeepOptions(
            folder, grace_s=settings.reattach_grace_seconds, turn_limit_s=settings.detached_turn_limit_seconds
        )
